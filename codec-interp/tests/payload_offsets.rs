//! An `optional` offset held as a union's payload (issue 72): it was
//! accepted and ignored, so a stored 0 was followed to offset 0 and failed
//! there with a magic mismatch, a cause not its own. A stored 0 is now
//! refused at the offset with what it is; a file whose payloads are all
//! present reads as before (event flows' schemas drafted by researchers
//! rely on that until an absent payload has a value).

use codec_interp as interp;

const SCHEMA: &str = r#"Schema(name: "t", endian: Little, root: "Rec", sections: [Section(name: "s")], types: [
    Struct(name: "Rec", fields: [
        (name: "magic", type: Magic("RC")),
        (name: "kind", type: U8, derive: Tag("value")),
        (name: "pad", type: U8),
        (name: "value", type: Switch(union: "Value", tag: "kind")),
    ]),
    Struct(name: "Leaf", fields: [(name: "magic", type: Magic("LF")), (name: "x", type: U8)]),
    Union(name: "Value", tag: U8, variants: [
        (name: "Int", tag: 0, type: U32),
        (name: "Leaf", tag: 1, type: Ptr(width: U32, to: Named("Leaf"), section: "s", optional: true)),
    ]),
])"#;

fn read(data: &[u8]) -> Result<(), String> {
    let c = codec_schema::parse_str(SCHEMA, "t.ron").map_err(|d| d.to_string())?;
    match interp::decode_partial(&c, data, codec_runtime::Limits::default()).error {
        Some(e) => Err(e.to_string()),
        None => Ok(()),
    }
}

#[test]
fn a_stored_zero_in_an_optional_payload_offset_says_what_it_is() {
    let e = read(b"RC\x01\x00\x00\x00\x00\x00").unwrap_err();
    assert!(
        e.contains("at offset 0x4")
            && e.contains("a stored 0 in an `optional` offset held as a union's payload"),
        "{e}"
    );
    assert!(!e.contains("magic"), "{e}");
    // Present, the payload reads.
    assert_eq!(read(b"RC\x01\x00\x08\x00\x00\x00LF\x07"), Ok(()));
}
