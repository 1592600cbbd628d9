//! The edit probe (issue 72): a schema that keeps an offset as a stored
//! number reads and writes its files byte for byte, since the stale number
//! comes back as it was; the probe edits the document, and names the field
//! whose number no longer says where its target is. The same file read by
//! a schema that derives the number passes every edit.

use codec_interp::{self as interp, edits};

/// A header (a count, an offset to the names, the title's position, an
/// offset to the title), the names, the title.
fn schema(title_at: &str) -> String {
    format!(
        r#"Schema(name: "t", endian: Little, root: "File",
    sections: [Section(name: "names"), Section(name: "title")],
    types: [
    Struct(name: "File", fields: [
        (name: "magic", type: Magic("EP")),
        (name: "n", type: U16, derive: Count("names")),
        (name: "names", type: Ptr(width: U32, to: List(of: Named("Name"), count: Field("n")), section: "names")),
        (name: "title_at", {title_at}),
        (name: "title", type: Ptr(width: U32, to: CString(), section: "title")),
        (name: "pad", type: U32),
    ]),
    Struct(name: "Name", fields: [(name: "text", type: CString())]),
])"#
    )
}

fn file() -> Vec<u8> {
    let mut d = b"EP".to_vec();
    d.extend_from_slice(&2u16.to_le_bytes());
    d.extend_from_slice(&0x14u32.to_le_bytes());
    d.extend_from_slice(&0x1au32.to_le_bytes());
    d.extend_from_slice(&0x1au32.to_le_bytes());
    d.extend_from_slice(&0u32.to_le_bytes());
    d.extend_from_slice(b"ab\0cd\0T\0");
    d
}

fn probe(src: &str) -> edits::Report {
    let c = codec_schema::parse_str(src, "t.ron").expect("the schema checks");
    let data = file();
    let read = interp::decode(&c, &data).expect("decodes");
    let again = interp::encode(&c, &read.to_value(), &interp::NoHooks).expect("encodes");
    assert_eq!(again, data, "identity holds either way");
    edits::probe(&c, &read, &interp::NoHooks)
}

#[test]
fn an_offset_kept_as_a_number_fails_the_probe_by_name() {
    let r = probe(&schema("type: U32"));
    // The names' list and strings, the title grown and shrunk.
    assert_eq!(r.tried, 6, "{r:#?}");
    // Only the title's own edits leave it where it was.
    assert_eq!(r.held, 2, "{r:#?}");
    let f = &r.failed[0];
    assert_eq!(f.path, "File.names");
    // A copy of "cd" with a name of its own, "cdEdit": 7 bytes more.
    assert_eq!(f.edit, "an element appended (a copy of [1])");
    assert!(
        f.why.starts_with(
            "File.title_at is a stored number, 0x1a, the position of File.title in the file read; \
             after the edit that is at 0x21 and the number still says 0x1a"
        ),
        "{}",
        f.why
    );
    assert!(r
        .failed
        .iter()
        .any(|f| f.path == "File.names[0].text" && f.edit == "grew by 4 bytes"));
}

#[test]
fn a_derived_position_holds_every_edit() {
    let r = probe(&schema(r#"type: U32, derive: SectionStart("title")"#));
    assert_eq!((r.tried, r.held), (6, 6), "{r:#?}");
}

#[test]
fn each_place_of_the_schema_is_edited_once() {
    let c = codec_schema::parse_str(&schema("type: U32"), "t.ron").unwrap();
    let doc = interp::decode(&c, &file()).unwrap().to_value();
    let sites = edits::sites(&c, &doc);
    let paths: Vec<&str> = sites.iter().map(|s| s.path.as_str()).collect();
    // names[1].text is the same place as names[0].text.
    assert_eq!(
        paths,
        [
            "File.names",
            "File.names",
            "File.names[0].text",
            "File.names[0].text",
            "File.title",
            "File.title"
        ]
    );
}
