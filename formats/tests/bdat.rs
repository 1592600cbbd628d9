//! Legacy BDAT against the corpus (read in place from `$CODEC_CORPUS/bdat` or
//! `../shared/corpus/bdat`; each corpus test says SKIPPED and passes when it
//! is absent), and on files the tests build themselves.

use codec_runtime::Text;
use formats::bdat::text::{self, FileSchema, TextError};
use formats::bdat::{self, BdatFile, Cell, CellType, ColumnInfo, Table, ValueInfo, Variant};
use std::collections::HashMap;
use std::path::Path;

mod common;

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const XC2_SCRAMBLED: [&str; 2] = ["xc2_ckurtz_common_ms.bdat", "xc2_ckurtz_common_gmk.bdat"];
const RANDOMIZER: &str = "xc2_randomizer_common_ms.bdat";
/// The one-table files bdat-rs wrote, with their game and golden folder name.
const SAMPLES: [(&str, Variant, &str); 4] = [
    (
        "bdatrs_test_legacy_1.bdat",
        Variant::Switch,
        "test_legacy_1",
    ),
    ("bdatrs_test_legacy_x_1.bdat", Variant::X, "test_legacy_x_1"),
    (
        "bdatrs_test_legacy_wii_1.bdat",
        Variant::Wii,
        "test_legacy_wii_1",
    ),
    (
        "bdatrs_test_legacy_3ds_1.bdat",
        Variant::New3ds,
        "test_legacy_3ds_1",
    ),
];

/// Each table's bytes in a file: from its offset to the next one's.
fn table_slices(data: &[u8], file: &BdatFile, variant: Variant) -> Vec<Vec<u8>> {
    let big = matches!(variant, Variant::X | Variant::Wii);
    let word = |at: usize| {
        let b: [u8; 4] = data[at..at + 4].try_into().unwrap();
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let n = file.tables.len();
    let offsets: Vec<usize> = (0..n).map(|i| word(8 + 4 * i) as usize).collect();
    (0..n)
        .map(|i| {
            let end = offsets.get(i + 1).copied().unwrap_or(data.len());
            data[offsets[i]..end].to_vec()
        })
        .collect()
}

/// A table encoded alone, without the file header.
fn encode_table(t: &Table, variant: Variant) -> Vec<u8> {
    let one = BdatFile {
        tables: vec![t.clone()],
    };
    bdat::encode(&one, variant).unwrap()[12..].to_vec()
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn xc2_game_files_come_back_byte_for_byte() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    for name in XC2_SCRAMBLED {
        let data = read(&dir, name);
        let (variant, file) = bdat::decode(&data).unwrap();
        assert_eq!(variant, Variant::Switch, "{name}");
        assert!(
            file.tables.iter().all(|t| t.flags.scrambled),
            "{name}: every table is scrambled"
        );
        let out = bdat::encode(&file, variant).unwrap();
        assert!(out == data, "{name}: re-encoded bytes differ");
    }
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn the_mod_edited_file_keeps_its_clean_tables_and_its_values() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let data = read(&dir, RANDOMIZER);
    let (variant, file) = bdat::decode(&data).unwrap();
    assert_eq!((variant, file.tables.len()), (Variant::Switch, 124));
    let originals = table_slices(&data, &file, variant);
    let mut differ = Vec::new();
    for (t, orig) in file.tables.iter().zip(&originals) {
        let ours = encode_table(t, variant);
        if ours != *orig {
            // Why: the key the mod left (stale), and where the bytes part.
            let stale_key = ours[0x16..0x18] != orig[0x16..0x18];
            let first = ours.iter().zip(orig).position(|(a, b)| a != b).unwrap_or(0);
            differ.push((t.name.to_string(), stale_key, first, ours.len(), orig.len()));
        }
    }
    let names: Vec<&str> = differ.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(
        names,
        ["menu_ms", "menu_option_cap_ms", "menu_option_name_ms"],
        "{differ:?}"
    );
    for (name, stale_key, first, ours, orig) in &differ {
        eprintln!("{name}: checksum {}; first difference at 0x{first:x}; {orig} bytes in the file, {ours} re-encoded",
            if *stale_key { "recomputed (the file's is stale)" } else { "equal" });
        assert!(stale_key, "{name}: the mod left a stale checksum");
    }
    // The whole file re-encoded reads back to the same tables.
    let out = bdat::encode(&file, variant).unwrap();
    assert_ne!(out, data);
    let (_, back) = bdat::decode(&out).unwrap();
    assert_eq!(back, file);
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn one_table_files_of_each_game_read_as_bdat_toolset_reads_them() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let golden = dir.join("golden/bdattoolset_generated");
    for (name, game, stem) in SAMPLES {
        let data = read(&dir, name);
        let (variant, file) = bdat::decode(&data).unwrap();
        assert_eq!(variant, game, "{name}");
        // The values, as bdat-toolset's JSON has them.
        let texts = text::file_to_text(&file, variant, stem);
        let want: serde_json::Value =
            serde_json::from_slice(&read(&golden, &format!("json/{stem}/Table1.json"))).unwrap();
        let mut got: serde_json::Value = serde_json::from_str(&texts.tables[0].1).unwrap();
        got.as_object_mut().unwrap().remove("$codec");
        assert_eq!(got, want, "{name}");
        let schema = read(&golden, &format!("json/{stem}.bschema"));
        assert_eq!(texts.bschema.as_bytes(), schema, "{name}");
        let csv = read(&golden, &format!("csv/{stem}/Table1.csv"));
        assert_eq!(
            text::table_to_csv(&file.tables[0]),
            String::from_utf8(csv).unwrap(),
            "{name}"
        );
        // Re-encoded, they read back the same.
        let out = bdat::encode(&file, variant).unwrap();
        assert_eq!(bdat::decode(&out).unwrap(), (variant, file), "{name}");
    }
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn other_games_keep_the_layout_bdat_rs_writes() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    // Written by bdat-rs's XCX, Wii and 3DS writers: besides the file size
    // (older bdat-rs left the file header out) and the checksum (which it
    // left 0), the bytes come back.
    for (name, _, _) in &SAMPLES[1..] {
        let data = read(&dir, name);
        let (variant, file) = bdat::decode(&data).unwrap();
        let out = bdat::encode(&file, variant).unwrap();
        assert_eq!(out.len(), data.len(), "{name}");
        let diffs: Vec<usize> = (0..out.len()).filter(|&i| out[i] != data[i]).collect();
        let allowed = |i: usize| (4..8).contains(&i) || (12 + 0x16..12 + 0x18).contains(&i);
        assert!(diffs.iter().all(|&i| allowed(i)), "{name}: {diffs:x?}");
    }
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn the_xc3_file_is_another_format() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let data = read(&dir, "bdatrs_test_modern_1.bdat");
    assert_eq!(bdat::detect(&data), None);
    assert!(!bdat::looks_like(&data));
    assert_eq!(formats::Format::detect(&data), None);
    assert!(bdat::decode(&data).is_err());
}

/// The golden tables' header fields as the game wrote them (from the merged
/// XC2 file the goldens were verified against).
fn layout_rows(dir: &Path) -> HashMap<String, HashMap<String, String>> {
    let tsv = String::from_utf8(read(dir, "golden/layout/xbtool_xc2_bdats.gz.tables.tsv")).unwrap();
    let mut lines = tsv.lines().filter(|l| !l.starts_with('#'));
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            let row: HashMap<String, String> = head
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (row["name"].clone(), row)
        })
        .collect()
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn golden_json_tables_pack_as_the_game_laid_them_out_and_read_back_identical() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let gold = dir.join("golden/randomizer_xc2_common_json");
    let layout = layout_rows(&dir);
    let mut checked = 0;
    for entry in std::fs::read_dir(&gold).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let json = std::fs::read_to_string(&path).unwrap();
        let t = text::table_from_json(&json, &stem, Variant::Switch).unwrap();
        // Back to text: the same document, byte for byte.
        assert_eq!(
            text::table_to_json(&t, &stem),
            json,
            "{stem}: to-text of from-text"
        );
        // Laid out as the game does: the header the game wrote, checksum
        // (over every byte after 0x20) included.
        let bytes = encode_table(&t, Variant::Switch);
        let row = &layout[&stem];
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64;
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as u64;
        let field = |k: &str| -> u64 {
            let v = &row[k];
            match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).unwrap(),
                None => v.parse().unwrap(),
            }
        };
        for (k, got) in [
            ("names_off", u16_at(6)),
            ("row_len", u16_at(8)),
            ("hash_off", u16_at(0xa)),
            ("hash_slots", u16_at(0xc)),
            ("rows_off", u16_at(0xe)),
            ("row_count", u16_at(0x10)),
            ("base_id", u16_at(0x12)),
            ("key", u16_at(0x16)),
            ("str_off", u32_at(0x18)),
            ("str_len", u32_at(0x1c)),
            ("nodes_off", u16_at(0x20)),
            ("node_count", u16_at(0x22)),
            ("table_size", bytes.len() as u64),
        ] {
            assert_eq!(got, field(k), "{stem}: {k}");
        }
        // And the binary reads back to the same table.
        let file = BdatFile {
            tables: vec![t.clone()],
        };
        let (_, back) = bdat::decode(&bdat::encode(&file, Variant::Switch).unwrap()).unwrap();
        assert_eq!(back.tables[0], t, "{stem}");
        checked += 1;
    }
    assert_eq!(checked, 24);
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn golden_bschema_reads() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let s = String::from_utf8(read(
        &dir,
        "golden/randomizer_xc2_common_json/common.bschema",
    ))
    .unwrap();
    let schema = text::read_bschema(&s).unwrap();
    assert_eq!(schema.variant, Variant::Switch);
    assert_eq!(schema.file_name, "common");
    assert!(schema.tables.iter().any(|t| t == "BTL_Class"));
}

/// A `.bschema` names the tables' folder and files (and `codec from-text`'s
/// default output): a name that leads to another folder (`..`, a path, an
/// absolute path) is an error, so that a `.bschema` cannot make the command
/// read or write outside its folder.
#[test]
fn bschema_names_that_lead_to_other_folders_are_errors() {
    let good =
        r#"{"file_name":"common","version":{"Legacy":"Switch"},"format_version":2,"tables":["A"]}"#;
    assert_eq!(text::read_bschema(good).unwrap().file_name, "common");
    for (bad, at) in [
        (good.replace(r#""common""#, r#""../common""#), "file_name"),
        (good.replace(r#""common""#, r#""/tmp/common""#), "file_name"),
        (good.replace(r#""common""#, r#""..""#), "file_name"),
        (good.replace(r#""common""#, r#""""#), "file_name"),
        (good.replace(r#"["A"]"#, r#"["A","../../x"]"#), "tables[1]"),
        (good.replace(r#"["A"]"#, r#"["a\\b"]"#), "tables[0]"),
    ] {
        let e = text::read_bschema(&bad).unwrap_err();
        assert_eq!(e.at, at, "{bad}: {e}");
        assert!(e.message.contains("is not a file name"), "{bad}: {e}");
    }
}

/// JSON -> table -> JSON, and the binary of the JSON's table, for every
/// table of a file.
fn json_round_trip(name: &str, data: &[u8]) -> usize {
    let (variant, file) = bdat::decode(data).unwrap();
    let texts = text::file_to_text(&file, variant, "f");
    let schema = text::read_bschema(&texts.bschema).unwrap();
    let by_stem: HashMap<&str, &str> = texts
        .tables
        .iter()
        .map(|(s, j)| (s.as_str(), j.as_str()))
        .collect();
    let back =
        text::file_from_text(&schema, schema.variant, |stem| Ok(by_stem[stem].to_owned())).unwrap();
    for (a, b) in file.tables.iter().zip(&back.tables) {
        assert_eq!(a, b, "{name}: table {}", a.name);
    }
    assert_eq!(
        bdat::encode(&back, variant).unwrap(),
        bdat::encode(&file, variant).unwrap(),
        "{name}"
    );
    let again = text::file_to_text(&back, variant, "f");
    assert_eq!(again.tables, texts.tables, "{name}");
    file.tables.len()
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn json_keeps_every_table_of_the_corpus() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let mut n = 0;
    for name in XC2_SCRAMBLED.iter().chain([&RANDOMIZER]) {
        n += json_round_trip(name, &read(&dir, name));
    }
    for (name, ..) in SAMPLES {
        n += json_round_trip(name, &read(&dir, name));
    }
    assert_eq!(n, 124 + 220 + 124 + 4);
}

#[test]
#[cfg_attr(
    corpus_missing_bdat,
    ignore = "needs the BDAT corpus (../shared/corpus/bdat or $CODEC_CORPUS), absent here"
)]
fn duplicate_columns_stay_distinct() {
    let Some(dir) = common::corpus("bdat") else {
        return;
    };
    let (variant, file) = bdat::decode(&read(&dir, "xc2_ckurtz_common_gmk.bdat")).unwrap();
    let t = file
        .tables
        .iter()
        .find(|t| t.name == "FLD_MapGimmick")
        .unwrap();
    let dups: Vec<usize> = (0..t.columns.len())
        .filter(|&i| t.columns[i].name == "menuMapImage")
        .collect();
    assert_eq!(dups.len(), 2);
    let ranges = t.cell_ranges();
    let (a, b) = (ranges[dups[0]].unwrap().0, ranges[dups[1]].unwrap().0);
    let differ = t.rows.iter().filter(|r| r[a] != r[b]).count();
    assert_eq!(differ, 4, "the two columns differ in 4 rows");
    let json = text::table_to_json(t, "FLD_MapGimmick");
    assert!(json.contains("\"duplicates\""));
    let back = text::table_from_json(&json, "FLD_MapGimmick", variant).unwrap();
    assert_eq!(&back, t);
}

/// Found by the `bdat_round_trip` fuzz target: a column named `$id` was
/// written under the row's own `$id` key, and the JSON read back refused
/// the row id (or took the cell for it). Its values go to
/// `$codec.duplicates` like a repeated name's.
#[test]
fn a_column_named_like_the_row_id_keeps_its_values() {
    let mut t = Table::new("Table1");
    t.add_value_column("$id", CellType::U32);
    t.add_value_column("x", CellType::U8);
    // A second column of the name, equal to the first: a repeated name's
    // values are left out when they equal the first column's, but here the
    // row's key gives the row id, not the first column.
    t.add_value_column("$id", CellType::U32);
    t.rows.push(vec![Cell::U32(7), Cell::U8(1), Cell::U32(7)]);
    t.rows.push(vec![Cell::U32(9), Cell::U8(2), Cell::U32(9)]);
    let json = text::table_to_json(&t, "Table1");
    assert!(json.contains("\"duplicates\""), "{json}");
    let back = text::table_from_json(&json, "Table1", Variant::Switch).unwrap();
    assert_eq!(back, t);
}

// ---------------------------------------------------------------------------
// Files the tests build.

#[test]
fn built_tables_round_trip_in_every_game() {
    let mut scrambled = common::bdat_sample_table();
    scrambled.flags.scrambled = true;
    scrambled.name = "SYS_Scrambled".into();
    for v in Variant::ALL {
        let mut second = common::bdat_sample_for(v);
        second.flags.scrambled = true;
        second.name = scrambled.name.clone();
        let file = BdatFile {
            tables: vec![common::bdat_sample_for(v), second],
        };
        let bytes = bdat::encode(&file, v).unwrap();
        assert_eq!(bdat::detect(&bytes), Some(v));
        assert_eq!(bdat::decode(&bytes).unwrap(), (v, file.clone()), "{v:?}");
        assert_eq!(file.tables[0].flag_value(2, 6), Some(1), "{v:?}");
    }
}

#[test]
fn strings_that_are_not_utf8_are_kept_as_bytes() {
    let mut t = common::bdat_sample_table();
    let sjis = Text::from_bytes(&[0x83, 0x65, 0x83, 0x58, 0x83, 0x67]);
    assert!(sjis.as_str().is_none());
    let cell = t.string_cell(sjis.clone());
    t.rows[1][1] = cell;
    t.columns[0].name = Text::from_bytes(&[0x96, 0xbc, 0x91, 0x4f]);
    let file = BdatFile {
        tables: vec![t.clone()],
    };
    let bytes = bdat::encode(&file, Variant::Wii).unwrap();
    let back = bdat::decode_as(&bytes, Variant::Wii).unwrap();
    assert_eq!(back, file);
    let json = text::table_to_json(&t, "SYS_Sample");
    assert!(json.contains("\"$bytes\": \"836583588367\""), "{json}");
    assert_eq!(
        text::table_from_json(&json, "SYS_Sample", Variant::Wii).unwrap(),
        t
    );
}

#[test]
fn flag_parents_keep_bits_no_flag_covers() {
    let mut t = common::bdat_sample_table();
    t.rows[0][5] = Cell::U8(0b1000_0111);
    let json = text::table_to_json(&t, "SYS_Sample");
    assert!(json.contains("\"raw\""));
    assert_eq!(
        text::table_from_json(&json, "SYS_Sample", Variant::Switch).unwrap(),
        t
    );
}

#[test]
fn empty_tables_keep_their_base_id_and_xcx_keeps_raw_fixed_point() {
    let mut t = Table::new("EMPTY");
    t.base_id = 300;
    t.add_value_column("x", CellType::Float);
    let json = text::table_to_json(&t, "EMPTY");
    assert_eq!(
        text::table_from_json(&json, "EMPTY", Variant::X).unwrap(),
        t
    );
    // A raw value no f32 holds exactly.
    t.rows.push(vec![Cell::Fixed(0xffff_fff7)]);
    let json = text::table_to_json(&t, "EMPTY");
    assert_eq!(
        text::table_from_json(&json, "EMPTY", Variant::X).unwrap(),
        t
    );
}

/// Found by the `bdat_round_trip` fuzz target: an XCX fixed-point cell of
/// raw 1627390034 is written exactly (397312.02001953125), but serde_json's
/// number parser (not correctly rounded) read it one f64 step off, no longer
/// a multiple of 1/4096, and the reader refused its own JSON.
#[test]
fn fixed_point_values_read_back_despite_the_json_parsers_rounding() {
    let mut t = Table::new("EMPTY");
    t.add_value_column("x", CellType::Float);
    for raw in [
        1_627_390_034u32,
        0,
        1,
        0xffff_ffff,
        0x8000_0001,
        0x7fff_ffff,
    ] {
        t.rows.push(vec![Cell::Fixed(raw)]);
    }
    let json = text::table_to_json(&t, "EMPTY");
    assert!(json.contains("397312.02001953125"), "{json}");
    assert_eq!(
        text::table_from_json(&json, "EMPTY", Variant::X).unwrap(),
        t
    );
    let off = json.replacen("397312.02001953125", "397312.0201", 1);
    let e = text::table_from_json(&off, "EMPTY", Variant::X).unwrap_err();
    assert_eq!(e.at, "rows[0].x");
    assert!(e.message.contains("not a 20.12 fixed-point value"), "{e}");
}

#[test]
fn row_id_gaps_unknown_columns_and_missing_tables_are_errors() {
    let t = common::bdat_sample_table();
    let json = text::table_to_json(&t, "SYS_Sample");
    let gap = json.replacen("\"$id\": 7", "\"$id\": 9", 1);
    let e = text::table_from_json(&gap, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[2].$id");
    assert!(e.message.contains("expected 7, found 9"), "{e}");
    let extra = json.replacen("\"id\": 101,", "\"id\": 101, \"idd\": 3,", 1);
    let e = text::table_from_json(&extra, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[1].idd");
    let bad_type = json.replacen("\"type\": 2", "\"type\": 9", 1);
    let e = text::table_from_json(&bad_type, "SYS_Sample", Variant::Switch).unwrap_err();
    assert!(e.message.contains("unknown cell type 9"), "{e}");
    let too_big = json.replacen("\"id\": 101", "\"id\": 70000", 1);
    let e = text::table_from_json(&too_big, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[1].id");
    let flag = json.replacen("\"level\": 0", "\"level\": 4", 1);
    let e = text::table_from_json(&flag, "SYS_Sample", Variant::Switch).unwrap_err();
    assert!(e.message.contains("does not fit"), "{e}");
    let schema = FileSchema {
        file_name: "f".into(),
        variant: Variant::Switch,
        tables: vec!["SYS_Sample".into(), "Gone".into()],
    };
    let e = text::file_from_text(&schema, Variant::Switch, |stem| {
        if stem == "SYS_Sample" {
            Ok(json.clone())
        } else {
            Err(TextError {
                file: format!("{stem}.json"),
                at: String::new(),
                message: "missing".into(),
            })
        }
    })
    .unwrap_err();
    assert_eq!(e.file, "Gone.json");
}

/// A table whose flags read bits no JSON flag value can give back: a shift
/// past the parent's width (the shift is a byte in the file, any value),
/// mask bits below the shift, a flag of a signed parent, and an orphan flag
/// (of a string column) with a large shift.
fn odd_flags_table() -> Table {
    let mut t = Table::new("Table1");
    t.add_value_column("bits", CellType::U32);
    t.add_value_column("small", CellType::I8);
    t.add_value_column("name", CellType::String);
    for (label, shift, mask, parent) in [
        ("far", 65u8, 0xffu32, 0u32),
        ("below", 4, 0xf0f, 0),
        ("last", 255, 0xffff_0000, 0),
        ("top", 28, 0xf000_0000, 0),
        ("wide", 200, u32::MAX, 1),
        ("orphan", 70, 0xff, 2),
    ] {
        t.add_flag_column(label, parent, shift, mask);
    }
    for (bits, small) in [(u32::MAX, -1i8), (0x1234_5678, 5), (0, 0), (0xab, -128)] {
        let name = t.string_cell(format!("row {bits:x}"));
        t.rows.push(vec![Cell::U32(bits), Cell::I8(small), name]);
    }
    t
}

/// Found by the `bdat_round_trip` fuzz target: a flag's shift of 65 decoded
/// (the field is a byte), but its JSON did not read back ("65 is more than
/// 31"), and the parent's bits under such a flag's mask were lost.
#[test]
fn flag_shifts_of_any_byte_survive_binary_json_binary_in_every_game() {
    for v in Variant::ALL {
        let file = BdatFile {
            tables: vec![odd_flags_table()],
        };
        let bytes = bdat::encode(&file, v).unwrap();
        assert_eq!(bdat::decode_as(&bytes, v).unwrap(), file, "{v:?}");
        let t = &file.tables[0];
        assert_eq!(t.flag_value(0, 3), Some(0), "{v:?}: shift 65 reads 0");
        assert_eq!(t.flag_value(0, 4), Some(0xf0), "{v:?}: (0xf0f & MAX) >> 4");
        let texts = text::file_to_text(&file, v, "f");
        assert!(texts.tables[0].1.contains("\"index\": 65"), "{v:?}");
        let schema = text::read_bschema(&texts.bschema).unwrap();
        let back = text::file_from_text(&schema, v, |stem| {
            Ok(texts
                .tables
                .iter()
                .find(|(s, _)| s == stem)
                .unwrap()
                .1
                .clone())
        })
        .unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert_eq!(back, file, "{v:?}");
        assert_eq!(bdat::encode(&back, v).unwrap(), bytes, "{v:?}");
        let csv = text::table_to_csv(t);
        assert!(
            csv.starts_with("bits [far] {3},bits [below] {3}"),
            "{v:?}: {csv}"
        );
        assert!(csv.contains("\n0,240,0,15,"), "{v:?}: {csv}");
    }
}

#[test]
fn a_flag_index_is_read_as_the_byte_it_is_in_the_file() {
    let mut t = common::bdat_sample_table();
    if let ColumnInfo::Flag(f) = &mut t.columns[5].info {
        f.shift = 255;
    }
    let json = text::table_to_json(&t, "SYS_Sample");
    assert!(json.contains("\"index\": 255"), "{json}");
    assert_eq!(
        text::table_from_json(&json, "SYS_Sample", Variant::Switch).unwrap(),
        t
    );
    let past = json.replacen("\"index\": 255", "\"index\": 256", 1);
    let e = text::table_from_json(&past, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "schema[3].flags[0]");
    assert!(e.message.contains("256 is more than 255"), "{e}");
    // A flag shifted past every bit only holds 0.
    let set = json.replacen("\"on\": 0", "\"on\": 1", 1);
    let e = text::table_from_json(&set, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[0].flags.on");
    assert!(e.message.contains("1 does not fit"), "{e}");
}

/// Found by the `bdat_round_trip` fuzz target (after the fix above): two
/// flags of one parent named `Bit1`; the row's flags object holds one value
/// per label, so the second one's bits were set from the first one's value.
#[test]
fn flags_of_one_parent_sharing_a_label_keep_their_bits_in_every_game() {
    let mut t = Table::new("Table1");
    t.add_value_column("value_flags", CellType::U8);
    for (label, shift, mask) in [("Bit1", 0u8, 1u32), ("Bits23", 1, 6), ("Bit1", 3, 8)] {
        t.add_flag_column(label, 0, shift, mask);
    }
    for raw in [15u8, 12, 3, 0] {
        t.rows.push(vec![Cell::U8(raw)]);
    }
    let file = BdatFile { tables: vec![t] };
    for v in Variant::ALL {
        let bytes = bdat::encode(&file, v).unwrap();
        assert_eq!(bdat::decode_as(&bytes, v).unwrap(), file, "{v:?}");
        let texts = text::file_to_text(&file, v, "f");
        let json = &texts.tables[0].1;
        assert_eq!(json.matches("\"Bit1\": ").count(), 4, "{v:?}: {json}");
        let schema = text::read_bschema(&texts.bschema).unwrap();
        let back = text::file_from_text(&schema, v, |_| Ok(json.clone())).unwrap();
        assert_eq!(back, file, "{v:?}");
        assert_eq!(bdat::encode(&back, v).unwrap(), bytes, "{v:?}");
    }
}

/// A flag's value, or `$codec.raw`, with bits past the parent's cell (a u8
/// here) was cut when the cell was written; the header's scramble bit was
/// dropped. Each is refused where it is given.
#[test]
fn json_values_the_binary_cannot_hold_are_refused() {
    let mut t = common::bdat_sample_table();
    if let ColumnInfo::Flag(f) = &mut t.columns[6].info {
        f.mask = 0x1_0006;
    }
    t.rows[0][5] = Cell::U8(0x81);
    let json = text::table_to_json(&t, "SYS_Sample");
    assert_eq!(
        text::table_from_json(&json, "SYS_Sample", Variant::Switch).unwrap(),
        t
    );
    let wide = json.replacen("\"level\": 0", "\"level\": 32768", 1);
    let e = text::table_from_json(&wide, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[0].flags.level");
    assert!(e.message.contains("past the parent's cell"), "{e}");
    assert!(json.contains("128,"), "{json}");
    let raw = json.replacen("128,", "384,", 1);
    let e = text::table_from_json(&raw, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "rows[0].flags ($codec.raw)");
    assert!(e.message.contains("384 is more than 255"), "{e}");
    let header = json.replacen(
        "\"$codec\": {",
        "\"$codec\": {\"header\": {\"flags\": 2},",
        1,
    );
    let e = text::table_from_json(&header, "SYS_Sample", Variant::Switch).unwrap_err();
    assert_eq!(e.at, "$codec.header.flags");
}

// ---------------------------------------------------------------------------
// Bad binary input: located errors, never a panic.

/// The sample table as game `v` holds it (XCX: fixed-point floats).
fn sample_bytes(v: Variant) -> Vec<u8> {
    bdat::encode(
        &BdatFile {
            tables: vec![common::bdat_sample_for(v)],
        },
        v,
    )
    .unwrap()
}

#[test]
fn an_unknown_cell_type_is_named_where_it_is_read() {
    let mut t = common::bdat_sample_table();
    t.columns[4].info = ColumnInfo::Value(ValueInfo { cell_type: 9 });
    assert!(bdat::encode(&BdatFile { tables: vec![t] }, Variant::Switch).is_err());
    let mut b = sample_bytes(Variant::Switch);
    // The fifth info record (value, type 8) starts at 12 + 0x40 + 4 + 4 + 6 + 4.
    let at = 12 + 0x40 + 18;
    assert_eq!(&b[at..at + 2], &[1, 8]);
    b[at + 1] = 9;
    let e = bdat::decode_as(&b, Variant::Switch).unwrap_err();
    assert_eq!(e.offset(), at as u64 + 1, "{e}");
    assert!(e.to_string().contains("tag 9"), "{e}");
    assert!(e.path().starts_with("File.tables[0].rows"), "{e}");
}

#[test]
fn offsets_outside_the_table_and_counts_that_do_not_fit_are_errors() {
    let b = sample_bytes(Variant::Switch);
    // The rows' offset points past the table.
    let mut x = b.clone();
    x[12 + 0xe..12 + 0x10].copy_from_slice(&0xfff0u16.to_le_bytes());
    let e = bdat::decode_as(&x, Variant::Switch).unwrap_err();
    assert_eq!(e.path(), "File.tables[0].rows", "{e}");
    assert_eq!(e.offset(), 12 + 0xe);
    // A table count the file cannot hold.
    let mut x = b.clone();
    x[0..4].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    let e = bdat::decode_as(&x, Variant::Switch).unwrap_err();
    assert_eq!(e.path(), "File.tables", "{e}");
    // A table offset outside the file.
    let mut x = b.clone();
    x[8..12].copy_from_slice(&0x7000_0000u32.to_le_bytes());
    let e = bdat::decode_as(&x, Variant::Switch).unwrap_err();
    assert_eq!(e.path(), "File.tables[0]", "{e}");
    // A row count beyond the table.
    let mut x = b;
    x[12 + 0x10..12 + 0x12].copy_from_slice(&0xffffu16.to_le_bytes());
    let e = bdat::decode_as(&x, Variant::Switch).unwrap_err();
    assert_eq!(e.path(), "File.tables[0].rows", "{e}");
}

/// A file that is no game's layout is an error located at the table count
/// and offsets (found by the corpus mutation sweep: the error of `decode`
/// named no field).
#[test]
fn a_file_of_no_game_is_a_located_error() {
    let b = sample_bytes(Variant::Switch);
    let mut no_table = b.clone();
    no_table[0] ^= 0x10;
    for data in [&b[..1], &b[..8], &no_table[..], &[0xff; 16][..]] {
        let e = bdat::decode(data).unwrap_err();
        assert_eq!(e.offset(), 0, "{e}");
        assert_eq!(e.path(), "File.tables", "{e}");
        assert!(
            e.to_string()
                .starts_with("at offset 0x0, File.tables: not a legacy BDAT file"),
            "{e}"
        );
    }
}

/// Every cut, bit flip and inverted byte of a built two-table file (value,
/// array and flag columns; the second table scrambled) in every game
/// decodes, and then encodes without a panic, or fails with an error at an
/// offset within the file and a field path. The corpus sweep
/// (`tests/tests/mutation_sweep.rs`) does this on real files; this one runs
/// without the corpus, and covers scrambled tables of the games the corpus
/// has only unscrambled samples of (XCX, XC1 Wii, XC1 3D).
#[test]
fn every_cut_and_flip_of_a_built_file_decodes_or_fails_located() {
    let located =
        |v: Variant, what: &str, len: usize, r: Result<(), codec_runtime::DecodeError>| {
            if let Err(e) = r {
                assert!(e.offset() <= len as u64, "{v:?} {what}: {e}");
                assert!(!e.path().is_empty(), "{v:?} {what}: {e}");
            }
        };
    for v in Variant::ALL {
        let mut second = common::bdat_sample_for(v);
        second.flags.scrambled = true;
        second.name = "SYS_Scrambled".into();
        let b = bdat::encode(
            &BdatFile {
                tables: vec![common::bdat_sample_for(v), second],
            },
            v,
        )
        .unwrap();
        let run = |what: &str, x: &[u8]| {
            let outcome = std::panic::catch_unwind(|| {
                let r = bdat::decode_as(x, v).map(|f| {
                    let _ = bdat::encode(&f, v);
                });
                let d = bdat::decode(x).map(|(w, f)| {
                    let _ = bdat::encode(&f, w);
                });
                (r, d)
            });
            let (r, d) = outcome.unwrap_or_else(|_| panic!("{v:?} {what}: panicked"));
            located(v, what, x.len(), r);
            located(v, what, x.len(), d);
        };
        for n in 0..b.len() {
            run(&format!("cut to {n}"), &b[..n]);
        }
        let mut x = b.clone();
        for i in 0..b.len() {
            for bits in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff] {
                x[i] ^= bits;
                run(&format!("byte 0x{i:x} ^ 0x{bits:x}"), &x);
                x[i] ^= bits;
            }
        }
    }
}

/// Found by fuzzing (bdat_round_trip): a column named by bytes that are not
/// UTF-8, after a column whose (UTF-8) name is their lossy text. Both have
/// one JSON key, so the second is a duplicate; the writer matched names by
/// their bytes when it chose whether to write the duplicate's values, did
/// not write them, and the reader gave the second column the first one's.
#[test]
fn a_name_whose_lossy_text_is_another_columns_name_keeps_its_values() {
    let mut t = Table::new("Table1");
    t.add_value_column("\u{1}\u{fffd}\u{c}", CellType::U16);
    t.add_value_column("other", CellType::U8);
    t.columns[1].name = Text::from_bytes(&[0x01, 0xea, 0x0c]);
    for (a, b) in [(1u16, 7u8), (2, 8)] {
        t.rows.push(vec![Cell::U16(a), Cell::U8(b)]);
    }
    let file = BdatFile { tables: vec![t] };
    for v in Variant::ALL {
        let bytes = bdat::encode(&file, v).unwrap();
        let texts = text::file_to_text(&file, v, "f");
        let json = &texts.tables[0].1;
        let schema = text::read_bschema(&texts.bschema).unwrap();
        let back = text::file_from_text(&schema, v, |_| Ok(json.clone()))
            .unwrap_or_else(|e| panic!("{v:?}: {e}\n{json}"));
        assert_eq!(back, file, "{v:?}");
        assert_eq!(bdat::encode(&back, v).unwrap(), bytes, "{v:?}");
    }
}

/// A cell whose type is not its column's is refused on encode, naming the
/// first such row and its column (counted in layout order, columns of
/// several cells once), in both byte orders.
#[test]
fn a_cell_of_another_type_than_its_column_is_named_on_encode() {
    for variant in [Variant::Switch, Variant::Wii] {
        let mut t = Table::new("Table1");
        t.add_value_column("a", CellType::U8);
        t.add_list_column("b", CellType::U16, 3);
        t.add_value_column("c", CellType::I32);
        for i in 0..4u8 {
            let b = Cell::U16(u16::from(i));
            t.rows
                .push(vec![Cell::U8(i), b.clone(), b.clone(), b, Cell::I32(-1)]);
        }
        // Good cells encode.
        let good = BdatFile {
            tables: vec![t.clone()],
        };
        bdat::encode(&good, variant).expect("matching cells encode");
        t.rows[2][4] = Cell::U16(7);
        // A bad cell in a later row but an earlier column is not the
        // first one (the writer goes column by column).
        t.rows[3][0] = Cell::I32(5);
        let err = bdat::encode(&BdatFile { tables: vec![t] }, variant)
            .expect_err("a U16 cell in an I32 column")
            .to_string();
        assert!(
            err.contains("row 2, column 2: a cell of type 2 where the column holds type 6"),
            "{variant:?}: {err}"
        );
    }
}

/// In a long row, the cells of one type are written together
/// (`fill_rows`): a row whose columns alternate U8 and U16 writes all its
/// U8 cells before its U16 cells. The cells still land in their places,
/// and the bad cell named is still the first in layout order, not the
/// first of its type to be written.
#[test]
fn a_long_rows_cells_land_in_place_and_the_first_bad_one_is_named() {
    let mut t = Table::new("Table1");
    let types = |k: u8| {
        if k % 2 == 0 {
            CellType::U8
        } else {
            CellType::U16
        }
    };
    for k in 0..12 {
        t.add_value_column(format!("c{k}"), types(k));
    }
    for i in 0..3u8 {
        t.rows.push((0..12u8).map(|k| match types(k) {
            CellType::U8 => Cell::U8(i * 16 + k),
            _ => Cell::U16(u16::from(i) << 8 | u16::from(k)),
        }));
    }
    for variant in [Variant::Switch, Variant::Wii] {
        let good = BdatFile {
            tables: vec![t.clone()],
        };
        let bytes = bdat::encode(&good, variant).expect("matching cells encode");
        assert_eq!(
            bdat::decode_as(&bytes, variant).unwrap(),
            good,
            "{variant:?}"
        );
    }
    t.rows[1][1] = Cell::I32(9);
    t.rows[1][2] = Cell::U16(9);
    let err = bdat::encode(&BdatFile { tables: vec![t] }, Variant::Switch)
        .expect_err("bad cells in row 1")
        .to_string();
    assert!(
        err.contains("row 1, column 1: a cell of type 6 where the column holds type 2"),
        "{err}"
    );
}

/// Found by the `bdat_round_trip` fuzz target: a 624-byte file whose one
/// table holds 65,535 rows of no columns, with junk around it. Its 268-byte
/// re-encoding was refused: each table was read with a budget of its own,
/// from its own size (the 64 KB floor), and the rows are charged a byte
/// each. The tables now spend the file's budget.
#[test]
fn a_re_encoded_table_of_empty_rows_decodes() {
    let data = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bdat_65535_empty_rows.bin"),
    )
    .unwrap();
    let file = bdat::decode_as(&data, Variant::Switch).unwrap();
    assert_eq!(file.tables[0].rows.len(), 65_535);
    let bytes = bdat::encode(&file, Variant::Switch).unwrap();
    assert!(bytes.len() < data.len());
    assert_eq!(bdat::decode_as(&bytes, Variant::Switch).unwrap(), file);
}

/// The tables of a file share the file's read budget: twenty tables of
/// 60,000 empty rows each (1.2 million rows charged, in a file of a few
/// kilobytes) are refused, where a budget per table (each at least the
/// 64 KB floor, which one table's rows fit) let them all through. Larger
/// limits read the file.
#[test]
fn the_tables_of_a_file_share_its_read_budget() {
    let mut t = Table::new("EMPTY");
    for _ in 0..60_000 {
        t.rows.push(Vec::<Cell>::new());
    }
    let file = BdatFile {
        tables: vec![t; 20],
    };
    let bytes = bdat::encode(&file, Variant::Switch).unwrap();
    assert!(bytes.len() < 8 << 10, "{}", bytes.len());
    let e = bdat::decode_as(&bytes, Variant::Switch).unwrap_err();
    assert!(
        matches!(e.kind(), codec_runtime::ErrorKind::BudgetExhausted { .. }),
        "{e}"
    );
    let limits = codec_runtime::Limits {
        read_factor: 1 << 16,
        ..Default::default()
    };
    let back = bdat::schema::decode_with(&bytes, Variant::Switch, limits).unwrap();
    assert_eq!(back, file);
}
