//! A record's `place` list: what its fields lead to is placed in that
//! order, then the rest in field order (issue 73: an event flow's switch
//! writes its case table before its parameters). The compiled codec and the
//! interpreter lay out the same bytes, and an edit keeps the order.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/placing_order.ron", serde);
}

use codec_interp as interp;

const SCHEMA: &str = include_str!("interp_fixtures/placing_order.ron");

fn schema(text: &str) -> codec_schema::Checked {
    codec_schema::parse_str(text, "placing_order.ron").unwrap()
}

/// The header (16 bytes); the cases at 0x10; the tail record at 0x16; the
/// parameters at 0x1C; the tail's label at 0x20, placed when the tail is
/// visited, after every target of the header.
fn file() -> Vec<u8> {
    let mut d = b"PO".to_vec();
    d.extend_from_slice(&3u16.to_le_bytes());
    d.extend_from_slice(&0x1Cu32.to_le_bytes()); // params
    d.extend_from_slice(&0x10u32.to_le_bytes()); // cases
    d.extend_from_slice(&0x16u32.to_le_bytes()); // tail
    for c in [7u16, 8, 9] {
        d.extend_from_slice(&c.to_le_bytes());
    }
    d.extend_from_slice(&5u16.to_le_bytes());
    d.extend_from_slice(&0x20u32.to_le_bytes());
    d.extend_from_slice(b"go\0\0");
    d.extend_from_slice(b"end\0");
    d
}

fn doc() -> compiled::File {
    compiled::File {
        params: "go".into(),
        cases: vec![7, 8, 9],
        tail: compiled::Tail {
            x: 5,
            label: "end".into(),
        },
    }
}

#[test]
fn the_compiled_codec_places_in_the_records_order() {
    let data = file();
    assert_eq!(compiled::decode(&data).unwrap(), doc());
    assert_eq!(compiled::encode(&doc()).unwrap(), data);
    // A longer parameter string moves only the label after it.
    let mut edited = doc();
    edited.params = "forward".into();
    let bytes = compiled::encode(&edited).unwrap();
    assert_eq!(&bytes[0x1C..0x24], b"forward\0");
    assert_eq!(
        u32::from_le_bytes(bytes[0x18..0x1C].try_into().unwrap()),
        0x24
    );
    assert_eq!(compiled::decode(&bytes).unwrap(), edited);
}

#[test]
fn the_interpreter_places_as_the_codec_does() {
    let c = schema(SCHEMA);
    let data = file();
    let value = interp::decode(&c, &data).unwrap().to_value();
    assert_eq!(value, interp::to_value(&doc()).unwrap());
    assert_eq!(interp::encode(&c, &value, &interp::NoHooks).unwrap(), data);
    let mut edited = doc();
    edited.params = "forward".into();
    let v = interp::to_value(&edited).unwrap();
    assert_eq!(
        interp::encode(&c, &v, &interp::NoHooks).unwrap(),
        compiled::encode(&edited).unwrap()
    );
}

#[test]
fn without_the_list_the_targets_follow_field_order() {
    let plain = SCHEMA.replace(r#"place: ["cases", "tail"], "#, "");
    assert_ne!(plain, SCHEMA);
    let c = schema(&plain);
    let v = interp::to_value(&doc()).unwrap();
    let bytes = interp::encode(&c, &v, &interp::NoHooks).unwrap();
    // The parameters first, at 0x10, then the cases.
    assert_eq!(&bytes[0x10..0x13], b"go\0");
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 0x14);
}
