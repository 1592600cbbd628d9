//! Legacy BDAT: the data tables of the Xenoblade games before XC3.
//!
//! The binary layout, and the document model, are generated from
//! `schemas/bdat_legacy.ron`: a [`BdatFile`] holds its [`Table`]s in file
//! order; a table has a name, a base id, its [`Column`]s in file order
//! (duplicate names stay separate columns) and its rows, each the row's
//! cells in column order (an array column gives `count` cells; a flag column
//! none: it reads bits of its parent's cell), all in one [`Rows`]; a string
//! cell holds its string's index in the rows' strings. The glue ([`glue`]) is the
//! scramble, the checksum and the column-name hash.
//!
//! The game variant ([`Variant`]) decides the byte order, the header and the
//! layout; [`detect`] recognises it from the file, and every call takes it.
//!
//! ```
//! use formats::bdat::{self, Cell, Table, Variant};
//! let mut t = Table::new("ITM_Sample");
//! t.add_value_column("Price", bdat::CellType::U16);
//! t.add_value_column("Name", bdat::CellType::String);
//! let potion = t.string_cell("Potion");
//! t.rows.push(vec![Cell::U16(120), potion]);
//! let file = bdat::BdatFile { tables: vec![t] };
//! let bytes = bdat::encode(&file, Variant::Switch).unwrap();
//! assert_eq!(bdat::detect(&bytes), Some(Variant::Switch));
//! let (variant, back) = bdat::decode(&bytes).unwrap();
//! assert_eq!((variant, &back), (Variant::Switch, &file));
//! ```

pub mod glue;
pub mod text;
pub mod views;

/// The codec generated from `schemas/bdat_legacy.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/bdat_legacy.ron", hooks = super::glue, serde);
}

pub use schema::{
    Cell, Column, ColumnInfo, File as BdatFile, FlagInfo, ListInfo, Table, TableFlags, ValueInfo,
    Variant,
};

pub use codec_runtime::rows::Rows;
use codec_runtime::{DecodeError, DecodeResult, EncodeResult, ErrorKind, PathSeg, Text};

/// The magic of a table (XC1 3D tables read `TADB`).
pub const MAGIC: &[u8; 4] = b"BDAT";
pub const MAGIC_3DS: &[u8; 4] = b"TADB";

/// The hash slot count of every known table.
pub const DEFAULT_HASH_SLOTS: u16 = 61;

/// The cell types of a value or array column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CellType {
    U8 = 1,
    U16 = 2,
    U32 = 3,
    I8 = 4,
    I16 = 5,
    I32 = 6,
    String = 7,
    /// f32, or 20.12 fixed point in XCX tables.
    Float = 8,
}

impl CellType {
    pub fn from_u8(t: u8) -> Option<CellType> {
        Some(match t {
            1 => CellType::U8,
            2 => CellType::U16,
            3 => CellType::U32,
            4 => CellType::I8,
            5 => CellType::I16,
            6 => CellType::I32,
            7 => CellType::String,
            8 => CellType::Float,
            _ => return None,
        })
    }
}

impl Variant {
    /// The variant a game name designates: `xc2`, `xc1de` and `switch`;
    /// `xcx` and `x`; `xc1`, `xc1wii` and `wii`; `xc3d`, `3ds` and `new3ds`
    /// (case does not matter).
    pub fn from_game(game: &str) -> Option<Variant> {
        Some(match game.to_ascii_lowercase().as_str() {
            "switch" | "xc2" | "xc1de" => Variant::Switch,
            "x" | "xcx" => Variant::X,
            "wii" | "xc1" | "xc1wii" => Variant::Wii,
            "new3ds" | "3ds" | "xc3d" => Variant::New3ds,
            _ => return None,
        })
    }
}

/// The u32 at `at`, big-endian when `big`; `None` past the end.
fn u32_at(data: &[u8], at: usize, big: bool) -> Option<u32> {
    let e = if big {
        codec_runtime::Endian::Big
    } else {
        codec_runtime::Endian::Little
    };
    let word = codec_runtime::base::checked::uint(data, at as u64, 4, e).ok()?;
    Some(word as u32)
}

/// Recognises a legacy BDAT file and its game, as bdat-rs does: a modern
/// (XC3) file starts with `BDAT`; otherwise the table offsets run from 8 up
/// to the first table's magic (or a zero word), and their number is the
/// table count in the file's byte order. Little endian files are 3DS
/// (`TADB`) or Switch; big endian ones are XCX when the table header has a
/// node offset at 0x20 followed by four zero bytes, Wii otherwise.
pub fn detect(data: &[u8]) -> Option<Variant> {
    if data.len() < 8 || data.starts_with(MAGIC) || data.starts_with(MAGIC_3DS) {
        return None;
    }
    let mut n = 0u32;
    let mut at = 8usize;
    while let Some(word) = data.get(at..at + 4) {
        if word == MAGIC || word == MAGIC_3DS || word == [0; 4] {
            break;
        }
        n += 1;
        at += 4;
    }
    let table_magic = |big: bool| -> Option<&[u8]> {
        let count = u32_at(data, 0, big)?;
        if count == 0 {
            return None;
        }
        let first = u32_at(data, 8, big)? as usize;
        data.get(first..first.checked_add(4)?)
    };
    if u32_at(data, 0, false) == Some(n)
        || u32_at(data, 0, false) == Some(0) && u32_at(data, 0, true) == Some(0)
    {
        return match table_magic(false) {
            Some(m) if m == MAGIC_3DS => Some(Variant::New3ds),
            Some(m) if m == MAGIC => Some(Variant::Switch),
            None if n == 0 => Some(Variant::Switch),
            _ => None,
        };
    }
    if u32_at(data, 0, true) != Some(n) || table_magic(true) != Some(MAGIC) {
        return None;
    }
    let first = u32_at(data, 8, true)? as usize;
    let nodes = data.get(first + 0x20..first + 0x22)?;
    let zeros = data.get(first + 0x24..first + 0x28)?;
    let node_offset = u16::from_be_bytes([nodes[0], nodes[1]]);
    if zeros == [0; 4] && node_offset >= 0x40 {
        Some(Variant::X)
    } else {
        Some(Variant::Wii)
    }
}

/// Whether the first bytes of a file look like legacy BDAT (enough for a
/// prefix of the file): a table count, then offsets of which the first
/// points right after them, in one byte order; and the first table's magic
/// when the bytes reach it. Modern (XC3) files start with `BDAT` and are
/// another format.
pub fn looks_like(data: &[u8]) -> bool {
    if data.len() < 12 || data.starts_with(MAGIC) || data.starts_with(MAGIC_3DS) {
        return false;
    }
    [false, true].into_iter().any(|big| {
        let (Some(count), Some(first)) = (u32_at(data, 0, big), u32_at(data, 8, big)) else {
            return false;
        };
        let expected = u64::from(count) * 4 + 8;
        if count == 0 || u64::from(first) != expected {
            return false;
        }
        match data.get(first as usize..first as usize + 4) {
            Some(m) => m == MAGIC || m == MAGIC_3DS,
            None => true,
        }
    })
}

/// Decodes a legacy BDAT file, detecting its game.
pub fn decode(data: &[u8]) -> DecodeResult<(Variant, BdatFile)> {
    let variant = detect(data).ok_or_else(|| {
        DecodeError::new(
            0,
            ErrorKind::Invalid(
                "not a legacy BDAT file: the table count and offsets do not lead to a `BDAT` or `TADB` table"
                    .into(),
            ),
        )
        .within(PathSeg::Field("tables".into()))
        .within(PathSeg::Type("File".into()))
    })?;
    Ok((variant, schema::decode(data, variant)?))
}

/// Decodes a legacy BDAT file of the given game.
pub fn decode_as(data: &[u8], variant: Variant) -> DecodeResult<BdatFile> {
    schema::decode(data, variant)
}

/// Encodes a file the way the game lays it out (XC2; the other games as
/// bdat-rs writes them), recomputing every checksum and scrambling the
/// tables whose flag says so.
pub fn encode(file: &BdatFile, variant: Variant) -> EncodeResult<Vec<u8>> {
    schema::encode(file, variant)
}

impl Table {
    /// An empty table: no columns, no rows, base id 1, unscrambled.
    pub fn new(name: impl Into<Text>) -> Table {
        Table {
            flags: TableFlags::default(),
            reserved_05: 0,
            name: name.into(),
            columns: Vec::new(),
            hash_slots: DEFAULT_HASH_SLOTS,
            rows: codec_runtime::rows::Rows::default(),
            base_id: 1,
            format_constant: 2,
            reserved: [0; 28],
        }
    }

    /// Adds a value column (one cell per row) at the end.
    pub fn add_value_column(&mut self, name: impl Into<Text>, ty: CellType) {
        self.columns.push(Column {
            info: ColumnInfo::Value(ValueInfo {
                cell_type: ty as u8,
            }),
            name: name.into(),
        });
    }

    /// Adds a list column at the end: `count` cells of type `ty` per row,
    /// one after the other.
    pub fn add_list_column(&mut self, name: impl Into<Text>, ty: CellType, count: u16) {
        self.columns.push(Column {
            info: ColumnInfo::List(ListInfo {
                cell_type: ty as u8,
                count,
            }),
            name: name.into(),
        });
    }

    /// Adds a flag column at the end: `(parent's cell & mask) >> shift`,
    /// `parent` being the index of the column whose cell holds the bits.
    pub fn add_flag_column(&mut self, name: impl Into<Text>, parent: u32, shift: u8, mask: u32) {
        self.columns.push(Column {
            info: ColumnInfo::Flag(FlagInfo {
                shift,
                mask,
                parent,
            }),
            name: name.into(),
        });
    }

    /// The first column with this name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == *name)
    }

    /// For each column, the cells of a row it holds: (first cell, count);
    /// `None` for a flag column.
    pub fn cell_ranges(&self) -> Vec<Option<(usize, usize)>> {
        let mut next = 0;
        self.columns
            .iter()
            .map(|c| {
                let n = match &c.info {
                    ColumnInfo::Value(_) => 1,
                    ColumnInfo::List(l) => usize::from(l.count),
                    ColumnInfo::Flag(_) => return None,
                };
                let r = (next, n);
                next += n;
                Some(r)
            })
            .collect()
    }

    /// The id of row `i`.
    pub fn row_id(&self, i: usize) -> u32 {
        u32::from(self.base_id) + i as u32
    }

    /// The value of flag column `col` in row `row`: the parent's cell,
    /// masked and shifted; `None` if `col` is not a flag of an integer cell.
    pub fn flag_value(&self, row: usize, col: usize) -> Option<u32> {
        let ColumnInfo::Flag(f) = &self.columns.get(col)?.info else {
            return None;
        };
        let (first, _) = (*self.cell_ranges().get(f.parent as usize)?)?;
        let raw = self.rows.get(row)?.get(first)?.as_u32()?;
        Some((raw & f.mask).checked_shr(u32::from(f.shift)).unwrap_or(0))
    }
}

impl Table {
    /// A string cell for this table: the string is added to its rows'
    /// strings.
    pub fn string_cell(&mut self, s: impl AsRef<[u8]>) -> Cell {
        Cell::String(self.rows.add_string(s))
    }

    /// The bytes of a string cell's string.
    pub fn cell_bytes(&self, c: &Cell) -> Option<&[u8]> {
        match c {
            Cell::String(i) => self.rows.string(*i),
            _ => None,
        }
    }

    /// The text of a string cell's string, when it is UTF-8.
    pub fn cell_str(&self, c: &Cell) -> Option<&str> {
        self.cell_bytes(c).and_then(|b| std::str::from_utf8(b).ok())
    }
}

impl Cell {
    /// An integer cell's value as a u32 (its bits, for signed ones).
    pub fn as_u32(&self) -> Option<u32> {
        Some(match *self {
            Cell::U8(v) => u32::from(v),
            Cell::U16(v) => u32::from(v),
            Cell::U32(v) => v,
            Cell::I8(v) => v as u8 as u32,
            Cell::I16(v) => v as u16 as u32,
            Cell::I32(v) => v as u32,
            _ => return None,
        })
    }
}
