//! `derive: RecordEnd`: a record's stored "end of this block" is where the
//! record ends, written by the writer wherever the record lands (AINB's
//! attachment parameter blocks hold six of them). As a stored number, an
//! edit that moves the blocks leaves the old ends: the edit probe catches
//! it; derived, every edit holds.

use codec_interp::{self as interp, edits};

/// A header (a count, an offset to the blocks, one to a title), blocks of
/// three words (a value, a zero, the block's end), the title.
fn schema(end: &str) -> String {
    format!(
        r#"Schema(name: "t", endian: Little, root: "File",
    sections: [Section(name: "blocks"), Section(name: "title")],
    types: [
    Struct(name: "File", fields: [
        (name: "n", type: U32, derive: Count("blocks")),
        (name: "blocks", type: Ptr(width: U32, to: List(of: Named("Block"), count: Field("n")), section: "blocks")),
        (name: "title", type: Ptr(width: U32, to: CString(), section: "title")),
    ]),
    Struct(name: "Block", size: 12, fields: [
        (name: "value", type: U32),
        (name: "zero", type: U32),
        (name: "end", type: U32{end}),
    ]),
])"#
    )
}

fn file() -> Vec<u8> {
    let mut d = Vec::new();
    for w in [2u32, 12, 36, 7, 0, 12 + 12, 9, 0, 12 + 24] {
        d.extend_from_slice(&w.to_le_bytes());
    }
    d.extend_from_slice(b"T\0");
    d
}

#[test]
fn a_derived_record_end_is_written_where_the_record_lands() {
    let c = codec_schema::parse_str(&schema(", derive: RecordEnd"), "t.ron").expect("checks");
    let data = file();
    let read = interp::decode(&c, &data).expect("decodes");
    let doc = read.to_value();
    assert_eq!(
        interp::encode(&c, &doc, &interp::NoHooks).expect("encodes"),
        data
    );
    // Every edit holds: a block appended ends at 0x30.
    let r = edits::probe(&c, &read, &interp::NoHooks);
    assert!(r.tried >= 2 && r.held == r.tried, "{r:#?}");
    let interp::Value::Struct { fields, .. } = &doc else {
        panic!("a record: {doc:?}")
    };
    let interp::Value::Seq(blocks) = &fields.iter().find(|(n, _)| n == "blocks").unwrap().1 else {
        panic!("a list: {doc:?}")
    };
    assert!(
        matches!(&blocks[0], interp::Value::Struct { fields, .. } if !fields.iter().any(|(n, _)| n == "end")),
        "derived, not in the document: {doc:?}"
    );
    let mut grown = doc.clone();
    if let interp::Value::Struct { fields, .. } = &mut grown {
        if let Some((_, interp::Value::Seq(b))) = fields.iter_mut().find(|(n, _)| n == "blocks") {
            let copy = b[1].clone();
            b.push(copy);
        }
    }
    let out = interp::encode(&c, &grown, &interp::NoHooks).expect("encodes");
    let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!(
        (word(5), word(8), word(11)),
        (0x18, 0x24, 0x30),
        "{out:02x?}"
    );
}

#[test]
fn a_record_end_kept_as_a_number_fails_the_probe() {
    let c = codec_schema::parse_str(&schema(""), "t.ron").expect("checks");
    let read = interp::decode(&c, &file()).expect("decodes");
    let r = edits::probe(&c, &read, &interp::NoHooks);
    assert!(
        r.failed.iter().any(|f| f
            .why
            .contains("File.blocks[1].end is a stored number, 0x24")),
        "{r:#?}"
    );
}
