//! Legacy BDAT through zero-copy views (`formats::bdat::schema::view`, one
//! module per game variant that has views): on every corpus file of those
//! variants and on tables built in code (scrambled or not, with every kind
//! of column), the views and the decoded file agree value for value; a
//! table's unit turns into the decoded table; a scrambled table is read
//! through its unscrambled copy and an unscrambled one in place; damage
//! inside a table gets decode's error at the same file offset.

mod common;

use formats::bdat::schema::view::{self, switch as v};
use formats::bdat::{self, BdatFile, Cell, CellType, Table, Variant};
use std::borrow::Cow;

fn built(variant: Variant) -> (BdatFile, Vec<u8>) {
    let mut scrambled = common::bdat_sample_for(variant);
    scrambled.flags.scrambled = true;
    scrambled.name = "SYS_Scrambled".into();
    let file = BdatFile {
        tables: vec![
            common::bdat_sample_for(variant),
            scrambled,
            Table::new("EMPTY"),
        ],
    };
    let bytes = bdat::encode(&file, variant).unwrap();
    (file, bytes)
}

fn cells(file: &BdatFile) -> u64 {
    file.tables
        .iter()
        .map(|t| t.rows.cells().len() as u64)
        .sum()
}

fn agree(name: &str, data: &[u8]) -> Option<Variant> {
    let (variant, file) = bdat::decode(data).unwrap();
    let tally = bdat::views::visit(data, variant)?.unwrap();
    if let Err(at) = bdat::views::compare(data, &file, variant) {
        panic!("{name} ({variant:?}): the views and decode disagree at {at}");
    }
    assert_eq!(tally.tables, file.tables.len() as u64, "{name}");
    let rows: usize = file.tables.iter().map(|t| t.rows.len()).sum();
    assert_eq!(tally.rows, rows as u64, "{name}");
    assert_eq!(tally.cells, cells(&file), "{name}");
    // Every column is found by its name (a duplicate name, by one of its
    // columns).
    let found = bdat::views::find_columns(data, variant).unwrap().unwrap();
    let columns: usize = file.tables.iter().map(|t| t.columns.len()).sum();
    assert_eq!(found, columns as u64, "{name}");
    Some(variant)
}

#[test]
fn views_agree_with_decode_on_built_files() {
    assert_eq!(view::VARIANTS, ["Switch", "X", "Wii", "New3ds"]);
    assert!(view::switch::SKIPPED.is_empty());
    // Where the column nodes stand inline, no view reads them yet.
    assert_eq!(view::wii::SKIPPED, ["Table.columns"]);
    for variant in [Variant::Switch, Variant::X] {
        let (_, data) = built(variant);
        assert_eq!(agree(&format!("{variant:?}"), &data), Some(variant));
    }
    // A file that differs by one cell, one column name or one string is
    // told apart.
    let (file, data) = built(Variant::Switch);
    let mut other = file.clone();
    other.tables[1].rows[3][6] = Cell::Float(99.0);
    let at = bdat::views::compare(&data, &other, Variant::Switch).unwrap_err();
    assert!(at.starts_with("File.tables[1].rows[3]"), "{at}");
    let mut other = file.clone();
    other.tables[0].columns[2].name = "delta".into();
    let at = bdat::views::compare(&data, &other, Variant::Switch).unwrap_err();
    assert!(at.starts_with("File.tables[0].columns[2].name"), "{at}");
    let mut other = file;
    let s = other.tables[1].string_cell("other");
    other.tables[1].rows[0][1] = s;
    assert!(bdat::views::compare(&data, &other, Variant::Switch).is_err());
    // The games whose column nodes stand inline have no walk: their
    // tables' views cannot read the columns that lay the rows out.
    let (_, data) = built(Variant::Wii);
    assert!(bdat::views::visit(&data, Variant::Wii).is_none());
}

#[test]
fn views_agree_with_decode_on_every_corpus_file() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let mut seen = Vec::new();
    for (name, data) in common::files_with_ext(&dir, "bdat") {
        if bdat::detect(&data).is_none() {
            continue; // the modern (XC3) sample
        }
        if let Some(v) = agree(&name, &data) {
            seen.push((name, v));
        }
    }
    eprintln!("views = decode on {} corpus files", seen.len());
    // The three XC2 files (two scrambled), and bdat-rs's Switch and XCX samples.
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn a_unit_turns_into_the_decoded_table_and_reads_in_place_when_not_scrambled() {
    let (file, data) = built(Variant::Switch);
    let source = v::source(&data);
    let root = v::open(&source).unwrap();
    assert_eq!(root.to_owned().unwrap(), file);
    let units = root.tables().unwrap();
    assert_eq!(units.len(), 3);
    for (unit, owned) in units.iter().zip(&file.tables) {
        assert_eq!(unit.to_owned().unwrap(), *owned);
        let bytes = unit.bytes().unwrap();
        // A scrambled table is read from its unscrambled copy; the others
        // where they lie in the file.
        match (&bytes, owned.flags.scrambled) {
            (Cow::Owned(_), true) => {}
            (Cow::Borrowed(b), false) => {
                let at = unit.at().unwrap() as usize;
                assert_eq!(b.as_ptr(), data[at..].as_ptr());
            }
            _ => panic!("{}: read the wrong way", owned.name),
        }
        let source = unit.source(&bytes).unwrap();
        assert_eq!(source.origin(), unit.at().unwrap());
        let table = v::TableView::open(&source).unwrap();
        assert_eq!(table.name().unwrap().as_bytes(), owned.name.as_bytes());
        assert_eq!(table.flags(), owned.flags);
        assert_eq!(table.to_owned().unwrap(), *owned);
    }

    // Cells read through the columns, the hash index's heads, and a flag's
    // parent column.
    let unit = units.get(1).unwrap();
    let bytes = unit.bytes().unwrap();
    let source = unit.source(&bytes).unwrap();
    let table = v::TableView::open(&source).unwrap();
    let columns = table.columns().unwrap();
    let name = columns.get(1).unwrap();
    assert_eq!(name.name().unwrap(), "name");
    let v::ColumnInfoView::Value(info) = name.info().unwrap() else {
        panic!("a value column");
    };
    assert_eq!(info.cell_type(), CellType::String as u8);
    let row = table.rows().unwrap().get(1).unwrap();
    let cell = row
        .cell(
            u64::from(info.cell_type()),
            u64::from(info.offset()),
            0,
            info.at(),
        )
        .unwrap();
    assert!(matches!(cell, v::CellView::String(s) if s == "row 1"));
    let heads = table.hash().unwrap();
    assert_eq!(heads.len(), usize::from(table.hash_slots()));
    assert!(heads.iter().any(|h| h != 0), "some slot heads a chain");
    let v::ColumnInfoView::Flag(flag) = columns.get(5).unwrap().info().unwrap() else {
        panic!("a flag column");
    };
    assert_eq!(flag.parent().unwrap().name().unwrap(), "flags");
}

/// The position of the string cell of row 1 in the second (scrambled)
/// table, in the file.
fn string_cell_pos(data: &[u8]) -> u64 {
    let source = v::source(data);
    let unit = v::open(&source).unwrap().tables().unwrap().get(1).unwrap();
    let bytes = unit.bytes().unwrap();
    let source = unit.source(&bytes).unwrap();
    let table = v::TableView::open(&source).unwrap();
    let name = table.columns().unwrap().get(1).unwrap();
    let v::ColumnInfoView::Value(info) = name.info().unwrap() else {
        panic!("a value column");
    };
    let row = table.rows().unwrap().get(1).unwrap();
    source.origin() + row.at() + u64::from(info.offset())
}

#[test]
fn damage_inside_a_scrambled_table_is_decodes_error_at_the_same_offset() {
    let (_, mut data) = built(Variant::Switch);
    let at = string_cell_pos(&data) as usize;
    // The string offset of one cell now points far past the table.
    data[at..at + 4].copy_from_slice(&0x00FF_FFF0u32.to_le_bytes());
    let decoded = bdat::decode_as(&data, Variant::Switch).unwrap_err();
    let viewed = bdat::views::visit(&data, Variant::Switch)
        .unwrap()
        .unwrap_err();
    assert_eq!(viewed.kind(), decoded.kind(), "{viewed} / {decoded}");
    assert_eq!(viewed.offset(), decoded.offset(), "{viewed} / {decoded}");
    assert_eq!(viewed.offset(), at as u64, "the cell, in the file");
}

#[test]
fn a_table_offset_past_the_end_is_an_error_not_a_panic() {
    let (_, mut data) = built(Variant::Switch);
    data[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let source = v::source(&data);
    let unit = v::open(&source).unwrap().tables().unwrap().get(0).unwrap();
    let e = unit.bytes().unwrap_err();
    assert_eq!(e.offset(), 8, "{e}");
    assert!(bdat::views::visit(&data, Variant::Switch).unwrap().is_err());
}

/// Every column of `table` is found by its name through the hash index;
/// a name held by one column only finds that column. Returns how many
/// were looked up.
fn find_every_column(table: &Table, view: &v::TableView<'_>) -> usize {
    let columns = view.columns().unwrap();
    for (j, c) in table.columns.iter().enumerate() {
        let name = c.name.as_bytes();
        let found = view
            .hash_find(name)
            .unwrap()
            .unwrap_or_else(|| panic!("{}: column {j} not found", table.name));
        assert_eq!(found.name().unwrap().as_bytes(), name);
        let unique = table.columns.iter().filter(|d| d.name == c.name).count() == 1;
        if unique {
            assert_eq!(found.at(), columns.get(j).unwrap().at(), "{}", table.name);
        }
    }
    assert!(view.hash_find(b"no such column").unwrap().is_none());
    table.columns.len()
}

#[test]
fn columns_are_found_by_name_through_the_hash_index() {
    let mut files = vec![("built".to_owned(), built(Variant::Switch).1)];
    if let Some(dir) = common::corpus("bdat") {
        files.extend(
            common::files_with_ext(&dir, "bdat")
                .into_iter()
                .filter(|(_, d)| bdat::detect(d) == Some(Variant::Switch)),
        );
    }
    let mut found = 0;
    for (name, data) in &files {
        let file = bdat::decode_as(data, Variant::Switch).unwrap();
        let source = v::source(data);
        for (unit, table) in v::open(&source)
            .unwrap()
            .tables()
            .unwrap()
            .iter()
            .zip(&file.tables)
        {
            let bytes = unit.bytes().unwrap();
            let source = unit.source(&bytes).unwrap();
            found += find_every_column(table, &v::TableView::open(&source).unwrap());
        }
        eprintln!("{name}: columns found by name");
    }
    assert!(found >= 15, "{found}");
}

#[test]
fn xc1_columns_are_found_by_name_though_not_listed() {
    // The XC1 views skip the inline column list, but the hash index
    // leads to each column node.
    use formats::bdat::schema::view::wii;
    let (file, data) = built(Variant::Wii);
    let source = wii::source(&data);
    let unit = wii::open(&source)
        .unwrap()
        .tables()
        .unwrap()
        .get(0)
        .unwrap();
    let bytes = unit.bytes().unwrap();
    let source = unit.source(&bytes).unwrap();
    let table = wii::TableView::open(&source).unwrap();
    for c in &file.tables[0].columns {
        let found = table.hash_find(c.name.as_bytes()).unwrap().expect("found");
        assert_eq!(found.name().unwrap().as_bytes(), c.name.as_bytes());
    }
}

#[test]
fn a_hash_chain_that_loops_ends_in_an_error() {
    let (_, mut data) = built(Variant::Switch);
    let source = v::source(&data);
    let unit = v::open(&source).unwrap().tables().unwrap().get(0).unwrap();
    let origin = unit.at().unwrap() as usize;
    let bytes = unit.bytes().unwrap();
    let source = unit.source(&bytes).unwrap();
    let table = v::TableView::open(&source).unwrap();
    // The column found for "id" points at itself as the next of its chain.
    let id = table.hash_find(b"id").unwrap().unwrap();
    let next_at = origin + id.at() as usize + 2;
    let own = (id.at() as u16).to_le_bytes();
    drop(bytes);
    data[next_at..next_at + 2].copy_from_slice(&own);
    let source = v::source(&data);
    let unit = v::open(&source).unwrap().tables().unwrap().get(0).unwrap();
    let bytes = unit.bytes().unwrap();
    let source = unit.source(&bytes).unwrap();
    let table = v::TableView::open(&source).unwrap();
    // "id" itself is still found at the chain's head; a name of the same
    // slot that no column has walks the loop until the read budget runs out.
    assert!(table.hash_find(b"id").unwrap().is_some());
    let slot_of = |k: &[u8]| bdat::glue::name_hash(k) % u64::from(table.hash_slots());
    let key = (b'a'..=b'z')
        .flat_map(|a| (b'a'..=b'z').map(move |b| vec![b'q', a, b]))
        .find(|k| slot_of(k) == slot_of(b"id"))
        .expect("a key of the same slot");
    let e = table.hash_find(&key).unwrap_err();
    assert!(
        matches!(e.kind(), codec_runtime::ErrorKind::BudgetExhausted { .. }),
        "{e}"
    );
}
