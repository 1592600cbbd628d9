//! The test behind docs/walkthrough-add-a-field.md: a researcher finds what
//! an unknown field means, edits the schema, and sees the field in the
//! dump, the coverage, the docs and the typed API.
//!
//! The sample file is written by a codec compiled from the *edited* schema
//! (standing in for the game), to `target/tmp/walkthrough/entries.bin`, so
//! the commands of the walkthrough can be run by hand. Every output block
//! of the walkthrough is compared with what the tools print today.

use codec_interp::{self as interp, coverage, render, to_value};
use codec_schema::Checked;
use std::path::PathBuf;

/// The schema as first written (`unknown_0x04`).
mod before {
    codec_derive::schema!("tests/interp_fixtures/entries.ron", serde);
}

/// The schema after the edit (`name`).
mod after {
    codec_derive::schema!("tests/interp_fixtures/entries_named.ron", serde);
}

/// Paths as the walkthrough's commands name them, from the repository root.
const BEFORE: &str = "codec-interp/tests/interp_fixtures/entries.ron";
const AFTER: &str = "codec-interp/tests/interp_fixtures/entries_named.ron";
const SAMPLE: &str = "target/tmp/walkthrough/entries.bin";

/// The edit of the walkthrough: one field and one section.
const OLD_FIELD: &str =
    r#"            (name: "unknown_0x04", type: U32, doc: "Differs per entry."),"#;
const NEW_FIELD: &str = r#"            (name: "name", type: Ptr(width: U32, to: CString(), section: "names"), doc: "The entry's name."),"#;
const OLD_SECTIONS: &str = r#"        Section(name: "entries", align: 4),
"#;
const NEW_SECTIONS: &str = r#"        Section(name: "entries", align: 4),
        Section(name: "names", dedup: Exact),
"#;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(display: &str) -> Checked {
    codec_schema::load(&repo().join(display), display).expect("the fixture checks")
}

/// The sample: three entries, the first and last both named `alpha`.
fn sample() -> Vec<u8> {
    let header = after::Header {
        entries: vec![
            after::Entry {
                id: 1,
                name: "alpha".into(),
            },
            after::Entry {
                id: 2,
                name: "beta".into(),
            },
            after::Entry {
                id: 3,
                name: "alpha".into(),
            },
        ],
        unknown_0x0e: 0,
    };
    let bytes = after::encode(&header).expect("encodes");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("walkthrough");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("entries.bin"), &bytes).unwrap();
    bytes
}

fn dump(c: &Checked, data: &[u8]) -> String {
    let node = interp::decode(c, data).expect("decodes");
    format!(
        "{}\n{}",
        render::dump_header(SAMPLE, data.len(), c.file(), &c.schema.name),
        render::dump(&node, data, render::DumpOptions::default())
    )
}

fn coverage_report(c: &Checked, data: &[u8]) -> String {
    let node = interp::decode(c, data).expect("decodes");
    render::coverage_text(SAMPLE, &coverage::coverage(c, &node, data))
}

/// The output block after `<!-- output: NAME -->` in the walkthrough.
fn block(doc: &str, name: &str) -> String {
    let marker = format!("<!-- output: {name} -->\n```text\n");
    let start = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("the walkthrough has no block {name}"))
        + marker.len();
    let end = doc[start..].find("```").expect("the block is closed") + start;
    doc[start..end].to_owned()
}

fn walkthrough() -> String {
    std::fs::read_to_string(repo().join("docs/walkthrough-add-a-field.md")).unwrap()
}

#[test]
fn the_edit_turns_the_first_schema_into_the_second() {
    let src = std::fs::read_to_string(repo().join(BEFORE)).unwrap();
    assert!(src.contains(OLD_FIELD) && src.contains(OLD_SECTIONS));
    let edited = src
        .replace(OLD_FIELD, NEW_FIELD)
        .replace(OLD_SECTIONS, NEW_SECTIONS);
    let edited = codec_schema::parse_str(&edited, "edited").expect("the edited schema checks");
    assert_eq!(edited.schema, load(AFTER).schema);
    // The walkthrough shows the same edit.
    let doc = walkthrough();
    for line in [OLD_FIELD, NEW_FIELD] {
        assert!(doc.contains(line.trim()), "the walkthrough lacks {line}");
    }
}

#[test]
fn before_the_edit_the_bytes_are_unknown_and_the_names_a_gap() {
    let data = sample();
    let c = load(BEFORE);
    let node = interp::decode(&c, &data).unwrap();
    let cov = coverage::coverage(&c, &node, &data);
    // unknown_0x0e and three unknown_0x04.
    assert_eq!(cov.unknown, 2 + 3 * 4);
    assert_eq!(cov.gaps.len(), 1);
    assert_eq!((cov.gaps[0].offset, cov.gaps[0].len), (0x28, 12));
    assert_eq!(&cov.gaps[0].preview[..5], b"alpha");
    // The typed API of the first schema: a number.
    let typed = before::decode(&data).unwrap();
    assert_eq!(typed.entries[0].unknown_0x04, 0x28);
    assert_eq!(to_value(&typed).unwrap(), node.to_value());
    let doc = walkthrough();
    assert_eq!(block(&doc, "dump-before"), dump(&c, &data));
    assert_eq!(block(&doc, "coverage-before"), coverage_report(&c, &data));
}

#[test]
fn after_the_edit_dump_coverage_docs_and_api_show_the_field() {
    let data = sample();
    let c = load(AFTER);
    let node = interp::decode(&c, &data).unwrap();
    let cov = coverage::coverage(&c, &node, &data);
    assert_eq!(cov.gaps, vec![]);
    assert_eq!(cov.unknown, 2);
    // The typed API of the edited schema: the name itself.
    let typed = after::decode(&data).unwrap();
    let names: Vec<&str> = typed.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "alpha"]);
    assert_eq!(after::encode(&typed).unwrap(), data);
    assert_eq!(to_value(&typed).unwrap(), node.to_value());
    let doc = walkthrough();
    assert_eq!(block(&doc, "dump-after"), dump(&c, &data));
    assert_eq!(block(&doc, "coverage-after"), coverage_report(&c, &data));
    // The wiki page's row for the new field, and no unknown entry for it.
    let md = codec_schema::docs::markdown(&c);
    let row = md
        .lines()
        .find(|l| l.contains("| `name` |"))
        .expect("a row for name");
    assert_eq!(block(&doc, "docs-after").trim_end(), row);
    assert!(!md.contains("Entry.unknown_0x04"));
    assert!(codec_schema::docs::markdown(&load(BEFORE))
        .contains("- `Entry.unknown_0x04` (at 0x04, `u32`)"));
}
