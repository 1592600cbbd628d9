//! The test behind docs/walkthrough-new-variant.md: a codec for a variant of
//! a format (big endian, a header with one more field) derived from a copy
//! of its schema, round-tripped on files this test writes, and read by the
//! interpreter like the compiled codec reads it.

use codec_interp::{self as interp, coverage, render, to_value};
use codec_schema::Checked;
use std::path::{Path, PathBuf};

/// The format as the PC version writes it (little endian).
mod pc {
    codec_derive::schema!("tests/interp_fixtures/entries_named.ron", serde);
}

/// The console variant: big endian, a version in the header.
mod console {
    codec_derive::schema!("tests/interp_fixtures/entries_be.ron", serde);
}

const PC: &str = "codec-interp/tests/interp_fixtures/entries_named.ron";
const CONSOLE: &str = "codec-interp/tests/interp_fixtures/entries_be.ron";
const SAMPLE: &str = "target/tmp/walkthrough/entries_be.bin";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(display: &str) -> Checked {
    codec_schema::load(&repo().join(display), display).expect("the fixture checks")
}

const NAMES: [(u32, &str); 4] = [(7, "sword"), (8, "shield"), (9, "sword"), (10, "bow")];

fn pc_file() -> pc::Header {
    pc::Header {
        entries: NAMES
            .iter()
            .map(|&(id, name)| pc::Entry {
                id,
                name: name.into(),
            })
            .collect(),
        unknown_0x0e: 0,
    }
}

fn console_file() -> console::Header {
    console::Header {
        version: 2,
        entries: NAMES
            .iter()
            .map(|&(id, name)| console::Entry {
                id,
                name: name.into(),
            })
            .collect(),
        unknown_0x12: 0,
    }
}

/// Writes `bytes` to `dir/name` and reads them back, as a user's file.
fn through_a_file(dir: &Path, name: &str, bytes: &[u8]) -> Vec<u8> {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    std::fs::read(&path).unwrap()
}

fn walkthrough_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("walkthrough")
}

#[test]
fn both_variants_round_trip_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let pc_bytes = through_a_file(dir.path(), "pc.bin", &pc::encode(&pc_file()).unwrap());
    let console_bytes = through_a_file(
        dir.path(),
        "console.bin",
        &console::encode(&console_file()).unwrap(),
    );
    // Decode, compare, re-encode: the same bytes.
    let p = pc::decode(&pc_bytes).unwrap();
    let c = console::decode(&console_bytes).unwrap();
    assert_eq!(p, pc_file());
    assert_eq!(c, console_file());
    assert_eq!(pc::encode(&p).unwrap(), pc_bytes);
    assert_eq!(console::encode(&c).unwrap(), console_bytes);
    // The same entries and names in both.
    let names = |e: &[console::Entry]| {
        e.iter()
            .map(|e| (e.id, e.name.to_string()))
            .collect::<Vec<_>>()
    };
    let pc_names: Vec<(u32, String)> = p
        .entries
        .iter()
        .map(|e| (e.id, e.name.to_string()))
        .collect();
    assert_eq!(names(&c.entries), pc_names);
    // The console file: 4 bytes longer header, numbers big endian.
    assert_eq!(console_bytes.len(), pc_bytes.len() + 4);
    assert_eq!(&console_bytes[..4], b"ENTS");
    assert_eq!(console_bytes[4..8], 2u32.to_be_bytes());
    assert_eq!(
        console_bytes[8..12],
        (console_bytes.len() as u32).to_be_bytes()
    );
    assert_eq!(console_bytes[12..16], 0x14u32.to_be_bytes());
    assert_eq!(pc_bytes[8..12], 0x10u32.to_le_bytes());
    // The names section is the same text in both; `sword` is written once.
    let text = |b: &[u8], from: usize| b[from..].to_vec();
    assert_eq!(text(&pc_bytes, 0x10 + 32), text(&console_bytes, 0x14 + 32));
    assert_eq!(
        String::from_utf8_lossy(&pc_bytes[0x30..])
            .matches("sword")
            .count(),
        1
    );
}

#[test]
fn the_interpreter_reads_the_variant_like_its_codec() {
    let console_bytes = through_a_file(
        &walkthrough_dir(),
        "entries_be.bin",
        &console::encode(&console_file()).unwrap(),
    );
    let c = load(CONSOLE);
    let node = interp::decode(&c, &console_bytes).unwrap();
    assert_eq!(
        to_value(&console::decode(&console_bytes).unwrap()).unwrap(),
        node.to_value()
    );
    let cov = coverage::coverage(&c, &node, &console_bytes);
    assert_eq!(cov.gaps, vec![]);
    assert_eq!(cov.unknown, 2);
    // The walkthrough's dump of the console file.
    let doc = std::fs::read_to_string(repo().join("docs/walkthrough-new-variant.md")).unwrap();
    let marker = "<!-- output: dump-console -->\n```text\n";
    let start = doc.find(marker).expect("the walkthrough shows the dump") + marker.len();
    let end = doc[start..].find("```").unwrap() + start;
    let expected = format!(
        "{}\n{}",
        render::dump_header(SAMPLE, console_bytes.len(), c.file(), &c.schema.name),
        render::dump(
            &node,
            &console_bytes,
            render::DumpOptions {
                hex: true,
                ..Default::default()
            }
        )
    );
    // The walkthrough shows the first lines (the header).
    let shown = &doc[start..end];
    assert!(!shown.is_empty());
    assert!(
        expected.starts_with(shown),
        "the walkthrough's dump is stale:\n{expected}"
    );
}

#[test]
fn the_wrong_variant_fails_with_a_located_error() {
    let pc_bytes = pc::encode(&pc_file()).unwrap();
    let console_bytes = console::encode(&console_file()).unwrap();
    // A PC file through the console codec, and the other way round: the
    // magic matches, the numbers do not.
    let e = console::decode(&pc_bytes).unwrap_err().to_string();
    assert!(e.starts_with("at offset 0x"), "{e}");
    let e2 = pc::decode(&console_bytes).unwrap_err().to_string();
    assert!(e2.contains("Header."), "{e2}");
    // The walkthrough's example: the variant's schema without its version.
    let src = std::fs::read_to_string(repo().join(CONSOLE)).unwrap();
    let forgot: String = src
        .lines()
        .filter(|l| !l.contains("name: \"version\""))
        .map(|l| l.replace("size: 0x14", "size: 0x10") + "\n")
        .collect();
    let forgot = codec_schema::parse_str(&forgot, "forgot.ron").unwrap();
    let e3 = interp::decode(&forgot, &console_bytes)
        .unwrap_err()
        .to_string();
    let doc = std::fs::read_to_string(repo().join("docs/walkthrough-new-variant.md")).unwrap();
    assert!(doc.contains(&format!("decode error {e3}")), "{e3}");
    // The interpreter refuses them the same way.
    for (schema, data, compiled) in [(CONSOLE, &pc_bytes, e), (PC, &console_bytes, e2)] {
        let got = interp::decode(&load(schema), data).unwrap_err().to_string();
        assert_eq!(got, compiled);
    }
}

#[test]
fn the_variant_differs_from_its_base_only_where_the_walkthrough_says() {
    let pc = load(PC).schema;
    let con = load(CONSOLE).schema;
    assert_eq!(pc.endian, codec_schema::Endian::Little);
    assert_eq!(con.endian, codec_schema::Endian::Big);
    assert_eq!(pc.sections, con.sections);
    assert_eq!(pc.types[1], con.types[1], "Entry is unchanged");
    let (codec_schema::TypeDef::Struct(a), codec_schema::TypeDef::Struct(b)) =
        (&pc.types[0], &con.types[0])
    else {
        panic!()
    };
    let names =
        |s: &codec_schema::StructDef| s.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(a),
        [
            "magic",
            "file_size",
            "entries",
            "entry_count",
            "unknown_0x0e"
        ]
    );
    assert_eq!(
        names(b),
        [
            "magic",
            "version",
            "file_size",
            "entries",
            "entry_count",
            "unknown_0x12"
        ]
    );
    assert_eq!((a.size, b.size), (Some(0x10), Some(0x14)));
    // The docs of the variant say so.
    let md = codec_schema::docs::markdown(&load(CONSOLE));
    assert!(md.contains("Byte order: big endian."));
    assert!(md.contains("| 0x04 | 4 | `u32` | `version` | Format version; 2 on the console. |"));
}
