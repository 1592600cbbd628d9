//! Walks and checks over legacy BDAT's zero-copy views
//! (`schema::view::switch`, `x`): for the tests, the fuzz target, the bench,
//! and as an example of reading tables in place.
//!
//! A table is a unit laid out on its own, and scrambled tables must be
//! unscrambled before they can be read. So the file's view gives each
//! table as a handle (`TableUnit`): its bytes after the unscrambling
//! (borrowed from the file when the table is not scrambled), and the source
//! its views read them from. Errors inside a table still name offsets in
//! the file.
//!
//! ```
//! use formats::bdat::{self, schema::view::switch as v, CellType, Table, Variant};
//! let mut t = Table::new("ITM_Sample");
//! t.add_value_column("Price", CellType::U16);
//! t.rows.push(vec![bdat::Cell::U16(120)]);
//! let data = bdat::encode(&bdat::BdatFile { tables: vec![t] }, Variant::Switch)?;
//!
//! let source = v::source(&data);
//! let unit = v::open(&source)?.tables()?.get(0).unwrap();
//! let bytes = unit.bytes()?; // in place: the table is not scrambled
//! let table_source = unit.source(&bytes)?;
//! let table = v::TableView::open(&table_source)?;
//! assert_eq!(table.name()?, "ITM_Sample");
//! let column = table.columns()?.get(0).unwrap();
//! let v::ColumnInfoView::Value(info) = column.info()? else { unreachable!() };
//! let row = table.rows()?.get(0).unwrap();
//! let cell = row.cell(u64::from(info.cell_type()), u64::from(info.offset()), 0, info.at())?;
//! assert!(matches!(cell, v::CellView::U16(120)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The XC1 (Wii) and XC1 3D variants' views read the tables' headers, names
//! and rows, but not their columns (`view::wii::SKIPPED`): the column nodes
//! stand inline in the name table, each as long as its name, up to the hash
//! table (`Follows` with a list counted `ToNext`), which views do not read.
//! Without the columns a row's cells cannot be told apart, so [`visit`] and
//! [`compare`] walk the Switch and XCX files only. A column is still found
//! by its name in every variant, through the table's hash index, as the
//! games find it: `table.hash_find(b"Name")`.

use super::{BdatFile, Variant};
use codec_runtime::DecodeResult;

/// What a walk over every table found: enough to keep the work from being
/// optimised away, and to compare two walks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub tables: u64,
    pub columns: u64,
    pub rows: u64,
    /// Cells read (an array column's each count).
    pub cells: u64,
    /// Bytes of every table name, column name and string cell read.
    pub string_bytes: u64,
    /// A mix of every number cell's bits.
    pub numbers: u64,
}

impl Tally {
    fn number(&mut self, bits: u64) {
        self.numbers = self.numbers.rotate_left(5) ^ bits;
    }
}

/// Visits every cell of every table through the views of `variant`;
/// `None` for a variant without views.
pub fn visit(data: &[u8], variant: Variant) -> Option<DecodeResult<Tally>> {
    match variant {
        Variant::Switch => Some(switch::visit(data)),
        Variant::X => Some(x::visit(data)),
        Variant::Wii | Variant::New3ds => None,
    }
}

/// Where the views of `data` and the decoded file `file` disagree, if
/// anywhere: the path of the first value that differs. `Ok` for a variant
/// without views.
pub fn compare(data: &[u8], file: &BdatFile, variant: Variant) -> Result<(), String> {
    match variant {
        Variant::Switch => switch::compare(data, file),
        Variant::X => x::compare(data, file),
        Variant::Wii | Variant::New3ds => Ok(()),
    }
}

/// A float cell's bits: an IEEE float's, or a fixed-point number's raw
/// integer (XCX).
trait Raw {
    fn raw(self) -> u32;
}

impl Raw for f32 {
    fn raw(self) -> u32 {
        self.to_bits()
    }
}

impl Raw for u32 {
    fn raw(self) -> u32 {
        self
    }
}

/// Looks every column of every table up by its name through the tables'
/// hash indices (Switch and XCX files: the games whose views list the
/// columns) and returns how many lookups found a column of that name;
/// `None` for a variant without the column list.
pub fn find_columns(data: &[u8], variant: Variant) -> Option<DecodeResult<u64>> {
    match variant {
        Variant::Switch => Some(switch::find_columns(data)),
        Variant::X => Some(x::find_columns(data)),
        Variant::Wii | Variant::New3ds => None,
    }
}

macro_rules! walkers {
    ($($m:ident: $float:ident),*) => {$(
        mod $m {
            use super::super::schema::view::$m as v;
            use super::super::{BdatFile, Cell, ColumnInfo, Table};
            use super::Tally;
            use codec_runtime::{DecodeError, DecodeResult};

            /// A column's cells in a row: the type, where the first lies,
            /// how many, and where the type is stored. `None` for a flag.
            fn layout(c: &v::ColumnView<'_>) -> DecodeResult<Option<(u64, u64, u64, u64)>> {
                Ok(match c.info()? {
                    v::ColumnInfoView::Value(i) => {
                        Some((u64::from(i.cell_type()), u64::from(i.offset()), 1, i.at()))
                    }
                    v::ColumnInfoView::List(i) => Some((
                        u64::from(i.cell_type()),
                        u64::from(i.offset()),
                        u64::from(i.count()),
                        i.at(),
                    )),
                    v::ColumnInfoView::Flag(_) => None,
                })
            }

            pub(super) fn visit(data: &[u8]) -> DecodeResult<Tally> {
                let source = v::source(data);
                let file = v::open(&source)?;
                let mut t = Tally::default();
                for unit in file.tables()? {
                    let bytes = unit.bytes()?;
                    let source = unit.source(&bytes)?;
                    table(v::TableView::open(&source)?, &mut t)?;
                }
                Ok(t)
            }

            pub(super) fn find_columns(data: &[u8]) -> DecodeResult<u64> {
                let source = v::source(data);
                let mut found = 0;
                for unit in v::open(&source)?.tables()? {
                    let bytes = unit.bytes()?;
                    let source = unit.source(&bytes)?;
                    let table = v::TableView::open(&source)?;
                    for c in table.columns()? {
                        let name = c.name()?;
                        if let Some(hit) = table.hash_find(name.as_bytes())? {
                            found += u64::from(hit.name()? == name);
                        }
                    }
                }
                Ok(found)
            }

            fn table(table: v::TableView<'_>, t: &mut Tally) -> DecodeResult<()> {
                t.tables += 1;
                t.string_bytes += table.name()?.len() as u64;
                let mut cells = Vec::new();
                for c in table.columns()? {
                    t.columns += 1;
                    t.string_bytes += c.name()?.len() as u64;
                    cells.extend(layout(&c)?);
                }
                for row in table.rows()? {
                    t.rows += 1;
                    for &(tag, offset, count, tag_pos) in &cells {
                        for k in 0..count {
                            t.cells += 1;
                            match row.cell(tag, offset, k, tag_pos)? {
                                v::CellView::String(s) => t.string_bytes += s.len() as u64,
                                v::CellView::U8(n) => t.number(u64::from(n)),
                                v::CellView::U16(n) => t.number(u64::from(n)),
                                v::CellView::U32(n) => t.number(u64::from(n)),
                                v::CellView::I8(n) => t.number(n as u64),
                                v::CellView::I16(n) => t.number(n as u64),
                                v::CellView::I32(n) => t.number(n as u64),
                                v::CellView::$float(n) => t.number(u64::from(super::Raw::raw(n))),
                            }
                        }
                    }
                }
                Ok(())
            }

            fn err(e: DecodeError) -> String {
                e.to_string()
            }

            pub(super) fn compare(data: &[u8], file: &BdatFile) -> Result<(), String> {
                let source = v::source(data);
                let view = v::open(&source).map_err(err)?;
                let units = view.tables().map_err(err)?;
                if units.len() != file.tables.len() {
                    return Err(format!("File.tables: {} tables, decode has {}", units.len(), file.tables.len()));
                }
                for (i, (unit, owned)) in units.iter().zip(&file.tables).enumerate() {
                    let bytes = unit.bytes().map_err(err)?;
                    let source = unit.source(&bytes).map_err(err)?;
                    let table = v::TableView::open(&source).map_err(err)?;
                    same_table(table, owned).map_err(|e| format!("File.tables[{i}].{e}"))?;
                }
                Ok(())
            }

            fn same_table(t: v::TableView<'_>, o: &Table) -> Result<(), String> {
                let differ = |what: &str| Err(format!("{what}: the view and decode differ"));
                if t.name().map_err(err)?.as_bytes() != o.name.as_bytes() {
                    return differ("name");
                }
                if t.flags() != o.flags || t.reserved_05() != o.reserved_05 {
                    return differ("flags");
                }
                if (t.base_id(), t.hash_slots(), t.format_constant()) != (o.base_id, o.hash_slots, o.format_constant) {
                    return differ("base_id");
                }
                if t.reserved() != &o.reserved[..] {
                    return differ("reserved");
                }
                let columns = t.columns().map_err(err)?;
                if columns.len() != o.columns.len() {
                    return differ("columns");
                }
                let starts: Vec<u64> = columns.iter().map(|c| c.at()).collect();
                let mut cells = Vec::new();
                for (j, (c, oc)) in columns.iter().zip(&o.columns).enumerate() {
                    if c.name().map_err(err)?.as_bytes() != oc.name.as_bytes() {
                        return differ(&format!("columns[{j}].name"));
                    }
                    let same = match (c.info().map_err(err)?, &oc.info) {
                        (v::ColumnInfoView::Value(i), ColumnInfo::Value(x)) => i.cell_type() == x.cell_type,
                        (v::ColumnInfoView::List(i), ColumnInfo::List(x)) => {
                            i.cell_type() == x.cell_type && i.count() == x.count
                        }
                        (v::ColumnInfoView::Flag(i), ColumnInfo::Flag(x)) => {
                            let parent = i.parent().map_err(err)?.at();
                            i.shift() == x.shift
                                && i.mask() == x.mask
                                && starts.iter().position(|&s| s == parent) == Some(x.parent as usize)
                        }
                        _ => false,
                    };
                    if !same {
                        return differ(&format!("columns[{j}].info"));
                    }
                    cells.extend(layout(&c).map_err(err)?);
                }
                let rows = t.rows().map_err(err)?;
                if rows.len() != o.rows.len() {
                    return differ("rows");
                }
                for (r, (row, orow)) in rows.iter().zip(o.rows.iter()).enumerate() {
                    let mut owned = orow.iter();
                    for &(tag, offset, count, tag_pos) in &cells {
                        for k in 0..count {
                            let cell = row.cell(tag, offset, k, tag_pos).map_err(err)?;
                            let same = match (cell, owned.next()) {
                                (v::CellView::String(s), Some(Cell::String(i))) => {
                                    o.rows.string(*i) == Some(s.as_bytes())
                                }
                                (v::CellView::U8(n), Some(Cell::U8(x))) => n == *x,
                                (v::CellView::U16(n), Some(Cell::U16(x))) => n == *x,
                                (v::CellView::U32(n), Some(Cell::U32(x))) => n == *x,
                                (v::CellView::I8(n), Some(Cell::I8(x))) => n == *x,
                                (v::CellView::I16(n), Some(Cell::I16(x))) => n == *x,
                                (v::CellView::I32(n), Some(Cell::I32(x))) => n == *x,
                                (v::CellView::$float(n), Some(Cell::$float(x))) => super::Raw::raw(n) == super::Raw::raw(*x),
                                _ => false,
                            };
                            if !same {
                                return differ(&format!("rows[{r}] at offset {}", offset));
                            }
                        }
                    }
                    if owned.next().is_some() {
                        return differ(&format!("rows[{r}]: decode has more cells"));
                    }
                }
                Ok(())
            }
        }
    )*};
}

walkers!(switch: Float, x: Fixed);
