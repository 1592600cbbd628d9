// A valid schema compiles, and its codec round-trips.
codec_derive::schema!("tests/ui/schemas/pass_small.ron");

fn main() {
    let v = Header {
        items: vec![Item { id: 1, weight: -2 }, Item { id: 3, weight: 4 }],
        name: "hi".into(),
    };
    let bytes = encode(&v).unwrap();
    assert_eq!(&bytes[..4], b"SMAL");
    assert_eq!(bytes.len(), 0x10 + 8 + 4);
    assert_eq!(decode(&bytes).unwrap(), v);
    assert!(SCHEMA_SOURCE.contains("SMAL"));
    assert_eq!(ENDIAN, codec_runtime::Endian::Little);
}
