//! `codec check`, `codec to-text` and `codec from-text` on legacy BDAT files
//! this test writes itself, run as a process.

mod common;
use common::{codec, stderr, stdout};
use formats::bdat::{self, BdatFile, Cell, CellType, Table, Variant};
use std::fs;

fn file() -> BdatFile {
    let mut a = Table::new("ITM_Price");
    a.add_value_column("Price", CellType::U16);
    a.add_value_column("Name", CellType::String);
    for (i, name) in ["Potion", "Ether", "Potion"].iter().enumerate() {
        let cell = a.string_cell(name);
        a.rows.push(vec![Cell::U16(100 + i as u16), cell]);
    }
    a.flags.scrambled = true;
    let mut b = Table::new("SYS_Empty");
    b.base_id = 40;
    b.add_value_column("x", CellType::Float);
    BdatFile { tables: vec![a, b] }
}

#[test]
fn check_reports_identical_files() {
    let dir = scratch("check");
    let path = dir.join("common.bdat");
    fs::write(&path, bdat::encode(&file(), Variant::Switch).unwrap()).unwrap();
    common::assert_check_says_identical(&path);
}

#[test]
fn to_text_and_back_as_bdat_toolset_lays_files_out() {
    let dir = scratch("round_trip");
    let bin = dir.join("common.bdat");
    let bytes = bdat::encode(&file(), Variant::Wii).unwrap();
    fs::write(&bin, &bytes).unwrap();
    let out = dir.join("text");
    let o = codec(&[
        "to-text".as_ref(),
        bin.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let schema = fs::read_to_string(out.join("common.bschema")).unwrap();
    assert_eq!(
        schema,
        r#"{"file_name":"common","version":{"Legacy":"Wii"},"format_version":2,"tables":["ITM_Price","SYS_Empty"]}"#
    );
    let price = fs::read_to_string(out.join("common/ITM_Price.json")).unwrap();
    assert!(price.contains("\"Name\": \"Ether\""), "{price}");
    assert!(price.contains("\"scrambled\": true"), "{price}");
    // A second run refuses to overwrite without --force.
    let o = codec(&[
        "to-text".as_ref(),
        bin.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("exists; use --force"), "{}", stderr(&o));
    // Back: the same bytes.
    let back = dir.join("back.bdat");
    let o = codec(&[
        "from-text".as_ref(),
        out.join("common.bschema").as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&back).unwrap(), bytes);
    // --game writes another game's layout.
    let xc2 = dir.join("xc2.bdat");
    let o = codec(&[
        "from-text".as_ref(),
        out.join("common.bschema").as_os_str(),
        "--game".as_ref(),
        "xc2".as_ref(),
        "-o".as_ref(),
        xc2.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        bdat::detect(&fs::read(&xc2).unwrap()),
        Some(Variant::Switch)
    );
    // CSV export.
    let csv = dir.join("csv");
    let o = codec(&[
        "to-text".as_ref(),
        "--csv".as_ref(),
        bin.as_os_str(),
        "-o".as_ref(),
        csv.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(csv.join("common/ITM_Price.csv")).unwrap(),
        "Price {2},Name {7}\n100,Potion\n101,Ether\n102,Potion\n"
    );
}

#[test]
fn a_missing_table_file_is_an_error_and_nothing_is_written() {
    let dir = scratch("missing");
    let bin = dir.join("common.bdat");
    fs::write(&bin, bdat::encode(&file(), Variant::Switch).unwrap()).unwrap();
    let out = dir.join("text");
    let o = codec(&[
        "to-text".as_ref(),
        bin.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    fs::remove_file(out.join("common/SYS_Empty.json")).unwrap();
    let back = dir.join("back.bdat");
    let o = codec(&[
        "from-text".as_ref(),
        out.join("common.bschema").as_os_str(),
        "-o".as_ref(),
        back.as_os_str(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SYS_Empty"), "{}", stderr(&o));
    assert!(!back.exists());
}

#[test]
fn a_bad_row_id_names_the_table_and_the_row() {
    let dir = scratch("bad_id");
    let bin = dir.join("common.bdat");
    fs::write(&bin, bdat::encode(&file(), Variant::Switch).unwrap()).unwrap();
    let out = dir.join("text");
    assert!(codec(&[
        "to-text".as_ref(),
        bin.as_os_str(),
        "-o".as_ref(),
        out.as_os_str()
    ])
    .status
    .success());
    let table = out.join("common/ITM_Price.json");
    let text = fs::read_to_string(&table)
        .unwrap()
        .replace("\"$id\": 3", "\"$id\": 7");
    fs::write(&table, text).unwrap();
    let o = codec(&[
        "from-text".as_ref(),
        out.join("common.bschema").as_os_str(),
        "-o".as_ref(),
        dir.join("back.bdat").as_os_str(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("ITM_Price.json: rows[2].$id: row ids count up by one"),
        "{err}"
    );
}

#[test]
fn modern_files_are_not_legacy_bdat() {
    let dir = scratch("modern");
    let path = dir.join("modern.bdat");
    let mut modern = b"BDAT\x04\x01\x00\x00".to_vec();
    modern.extend([0u8; 24]);
    fs::write(&path, modern).unwrap();
    let o = codec(&["check".as_ref(), path.as_os_str()]);
    assert!(!o.status.success());
    assert!(
        stdout(&o).contains("0 identical, 0 differ, 1 failed"),
        "{}",
        stdout(&o)
    );
}

/// An empty folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("bdat_cli", name)
}
