//! The interpreter on constructs that came with the variants and units of
//! the language (for BDAT): the ones it reads (fixed-point numbers, lossless
//! strings, unit-relative offsets, references), with the compiled codec's
//! located errors.

use codec_interp::{self as interp, coverage, render, Kind};
use codec_schema::Checked;

const SCHEMA: &str = include_str!("interp_fixtures/next.ron");

fn checked(src: &str) -> Checked {
    codec_schema::parse_str(src, "next.ron").expect("the fixture checks")
}

/// Header (magic, a 20.12 number, an offset to a label that is not UTF-8,
/// an offset to a unit), the label, the unit (an id and an offset to its
/// name counted from the unit's start), the name.
fn file() -> Vec<u8> {
    let mut d = b"V2V2".to_vec();
    d.extend_from_slice(&(-6144i32).to_le_bytes());
    d.extend_from_slice(&16u32.to_le_bytes());
    d.extend_from_slice(&24u32.to_le_bytes());
    d.extend_from_slice(b"\xff\xfeab\0\0\0\0");
    d.extend_from_slice(&7u32.to_le_bytes());
    d.extend_from_slice(&8u32.to_le_bytes());
    d.extend_from_slice(b"unit\0");
    d
}

fn find<'a>(root: &'a interp::Node, path: &str) -> &'a interp::Node {
    let mut found = None;
    root.walk(&mut |n, _| {
        if n.path == path && found.is_none() {
            found = Some(n);
        }
    });
    found.unwrap_or_else(|| panic!("no node {path}"))
}

#[test]
fn fixed_lossless_and_unit_offsets_are_read() {
    let c = checked(SCHEMA);
    let data = file();
    let root = interp::decode(&c, &data).expect("decodes");
    let scale = find(&root, "File.scale");
    assert_eq!(
        scale.kind,
        Kind::Fixed {
            value: interp::Value::I32(-6144),
            frac: 12
        }
    );
    assert_eq!(render::value_text(scale), "-6144 = -1.5");
    // Not UTF-8: kept as bytes.
    let label: Vec<&interp::Node> = {
        let mut v = Vec::new();
        root.walk(&mut |n, _| {
            if n.path == "File.label" && matches!(n.kind, Kind::Bytes { .. }) {
                v.push(n);
            }
        });
        v
    };
    assert_eq!(label.len(), 1);
    assert_eq!(
        label[0].kind,
        Kind::Bytes {
            bytes: vec![0xff, 0xfe, b'a', b'b']
        }
    );
    // The unit's name offset (8) counts from the unit at 0x18.
    let name = find(&root, "File.unit.name");
    assert_eq!(
        name.kind,
        Kind::Offset {
            raw: 8,
            target: Some(0x20),
            kept: None,
        }
    );
    let cov = coverage::coverage(&c, &root, &data);
    assert_eq!(cov.gaps, vec![]);
    assert_eq!(cov.known + cov.padding, cov.len);
}

#[test]
fn a_reference_to_no_record_gives_the_codecs_located_error() {
    let with_ref = SCHEMA.replace(
        r#"(name: "id", type: U32),"#,
        r#"(name: "id", type: U32), (name: "other", type: Ref(width: U32, base: Unit, to: "Unit")),"#,
    );
    assert_ne!(with_ref, SCHEMA);
    let c = checked(&with_ref);
    let d = interp::decode_partial(&c, &file(), codec_runtime::Limits::default());
    let e = d.error.expect("refused").to_string();
    assert_eq!(
        e,
        "at offset 0x1c, File.unit.other: reference to 0x8 does not point at a `Unit` record (read before it)"
    );
    // What came before is kept.
    assert_eq!(
        find(&d.root, "File.unit.id").kind,
        Kind::Number {
            value: interp::Value::U32(7)
        }
    );
}

/// Only schemas with something that ends at the next offset target make a
/// decoder note every offset's target (a cost per offset); AAMP has none.
#[test]
fn only_schemas_that_read_up_to_the_next_target_say_so() {
    let load = |name: &str| {
        let path = format!("{}/../schemas/{name}", env!("CARGO_MANIFEST_DIR"));
        codec_schema::load(std::path::Path::new(&path), name).unwrap()
    };
    assert!(!load("aamp.ron").ends_at_next_target());
    assert!(load("ainb.ron").ends_at_next_target());
}

/// The schema questions the generator and the interpreter both ask, each
/// answered by one walk over every type the schema holds, nested ones
/// included (a `Ref` inside a union payload, a list inside an offset).
#[test]
fn schema_questions_see_nested_types() {
    let load = |name: &str| {
        let path = format!("{}/../schemas/{name}", env!("CARGO_MANIFEST_DIR"));
        codec_schema::load(std::path::Path::new(&path), name).unwrap()
    };
    let bdat = load("bdat_legacy.ron");
    // FlagInfo, a payload of the ColumnInfo union, refers to its Column.
    assert!(bdat.is_ref_target("Column"));
    assert!(!bdat.is_ref_target("ColumnInfo"));
    // Without the long header, the columns follow the table's name up to
    // the hash table; with it, they are counted.
    assert!(bdat.variant("Wii").unwrap().uses_to_next());
    assert!(!bdat.variant("Switch").unwrap().uses_to_next());
    assert!(!load("aamp.ron").uses_to_next());
    let sarc = load("sarc.ron");
    assert!(sarc.section_based("names") && sarc.section_based("data"));
    assert!(!sarc.section_based("nodes"));
}
