//! Targets the interpreter reads and writes only when it reaches them
//! (issue 72, `schema-repros` cases 7 and 8, both met on BFEVFL):
//!
//! - a `List(count: ToNext)` opening the record an offset leads to read 0
//!   elements with no error (the offset's own target, at the list's first
//!   byte, was taken for the next target and ended it), so an event flow's
//!   events and their parameters were dropped and the rest still decoded;
//! - a payload offset reached under `Ptr -> List(record)` in a depth-first
//!   section was written as 0 and its target left out, exit 0, as were
//!   the targets of a list of offsets in a record placed after them.
//!
//! Each file below is decoded, checked for what it holds, and re-encoded to
//! the same bytes; an edit is encoded and decoded back as made.

use codec_interp::{self as interp, Value};
use codec_schema::Checked;

fn checked(src: &str) -> Checked {
    codec_schema::parse_str(src, "t.ron").expect("the schema checks")
}

fn le32(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

/// The named field of a record's generic form.
fn get<'v>(v: &'v Value, name: &str) -> &'v Value {
    match v {
        Value::Struct { fields, .. } => {
            &fields
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
                .1
        }
        Value::Option(Some(x)) => get(x, name),
        other => panic!("not a record: {other:?}"),
    }
}

fn get_mut<'v>(v: &'v mut Value, name: &str) -> &'v mut Value {
    match v {
        Value::Struct { fields, .. } => {
            &mut fields
                .iter_mut()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no field {name}"))
                .1
        }
        Value::Option(Some(x)) => get_mut(x, name),
        other => panic!("not a record: {other:?}"),
    }
}

fn round_trip(c: &Checked, data: &[u8]) -> Value {
    let doc = interp::decode(c, data).expect("decodes").to_value();
    let again = interp::encode(c, &doc, &interp::NoHooks).expect("encodes");
    assert_eq!(again, data, "re-encoded bytes differ");
    doc
}

const TO_NEXT_FIRST: &str = r#"Schema(name: "t", endian: Little, root: "File", sections: [Section(name: "s")], types: [
    Struct(name: "File", fields: [
        (name: "magic", type: Magic("TN")),
        (name: "block", type: Ptr(width: U32, to: Named("Block"), section: "s")),
        (name: "leaf", type: Ptr(width: U32, to: Named("Leaf"), section: "s")),
    ]),
    Struct(name: "Block", fields: [
        (name: "items", type: List(of: U16, count: ToNext)),
    ]),
    Struct(name: "Leaf", fields: [(name: "magic", type: Magic("LF")), (name: "x", type: U8)]),
])"#;

/// The header, the block (two u16s, up to the leaf), the leaf.
fn to_next_file() -> Vec<u8> {
    let mut d = b"TN".to_vec();
    d.extend_from_slice(&le32(10));
    d.extend_from_slice(&le32(14));
    d.extend_from_slice(&[1, 0, 2, 0]);
    d.extend_from_slice(b"LF\x07");
    d
}

#[test]
fn a_to_next_list_opening_an_offsets_target_reads_up_to_the_next_target() {
    let c = checked(TO_NEXT_FIRST);
    let data = to_next_file();
    let doc = round_trip(&c, &data);
    let items = get(get(&doc, "block"), "items");
    assert_eq!(
        items,
        &Value::Seq(vec![Value::U16(1), Value::U16(2)]),
        "the block's own offset does not end its list"
    );
    // An element appended comes back, and the leaf moves after it.
    let mut edited = doc.clone();
    if let Value::Seq(v) = get_mut(get_mut(&mut edited, "block"), "items") {
        v.push(Value::U16(3));
    }
    let bytes = interp::encode(&c, &edited, &interp::NoHooks).expect("encodes");
    assert_eq!(bytes.len(), data.len() + 2);
    let back = interp::decode(&c, &bytes).expect("decodes").to_value();
    assert_eq!(back, edited);
}

const PAYLOAD_DEPTH_FIRST: &str = r#"Schema(name: "t", endian: Little, root: "File",
    sections: [
        Section(name: "ev"),
        Section(name: "leaves", order: DepthFirst),
        Section(name: "boxes", order: DepthFirst),
    ],
    types: [
    Struct(name: "File", fields: [
        (name: "magic", type: Magic("EF")),
        (name: "n", type: U16, derive: Count("events")),
        (name: "events", type: Ptr(width: U32, to: List(of: Named("Event"), count: Field("n")), section: "ev")),
    ]),
    Struct(name: "Event", fields: [
        (name: "kind", type: U8, derive: Tag("data")),
        (name: "pad", type: U8),
        (name: "pad2", type: U16),
        (name: "data", type: Switch(union: "Data", tag: "kind")),
    ]),
    Union(name: "Data", tag: U8, variants: [
        (name: "Int", tag: 0, type: U32),
        (name: "Leaf", tag: 1, type: Ptr(width: U32, to: Named("Leaf"), section: "leaves")),
        (name: "Box", tag: 2, type: Ptr(width: U32, to: Named("Box"), section: "boxes")),
    ]),
    Struct(name: "Leaf", fields: [(name: "magic", type: Magic("LF")), (name: "x", type: U8)]),
    Struct(name: "Box", fields: [
        (name: "count", type: U16, derive: Count("items")),
        (name: "pad", type: U16),
        (name: "items", type: List(of: Ptr(width: U32, to: Named("Leaf"), section: "leaves"), count: Field("count"))),
    ]),
])"#;

/// Three events (a number, a leaf, a box of two leaves); the leaves in the
/// order a depth-first walk meets them, then the box.
fn payload_file() -> Vec<u8> {
    let mut d = b"EF".to_vec();
    d.extend_from_slice(&3u16.to_le_bytes());
    d.extend_from_slice(&le32(8));
    // Events at 8: 3 x 8 bytes, to 0x20.
    d.extend_from_slice(&[0, 0, 0, 0]);
    d.extend_from_slice(&le32(99));
    d.extend_from_slice(&[1, 0, 0, 0]);
    d.extend_from_slice(&le32(0x20));
    d.extend_from_slice(&[2, 0, 0, 0]);
    d.extend_from_slice(&le32(0x29));
    // Leaves at 0x20, 0x23, 0x26.
    d.extend_from_slice(b"LF\x01LF\x02LF\x03");
    // The box at 0x29.
    d.extend_from_slice(&2u16.to_le_bytes());
    d.extend_from_slice(&0u16.to_le_bytes());
    d.extend_from_slice(&le32(0x23));
    d.extend_from_slice(&le32(0x26));
    d
}

#[test]
fn payload_offsets_under_a_list_of_records_are_placed_depth_first() {
    let c = checked(PAYLOAD_DEPTH_FIRST);
    let data = payload_file();
    let doc = round_trip(&c, &data);
    // A leaf made longer is not possible (fixed), but a new leaf in the
    // box moves the box's targets: each offset still finds its leaf.
    let mut edited = doc.clone();
    let Value::Seq(events) = get_mut(&mut edited, "events") else {
        panic!("events")
    };
    let Value::Variant { value: leaf, .. } = get(&events[1], "data").clone() else {
        panic!("not a variant")
    };
    let Value::Variant { value: boxed, .. } = get_mut(&mut events[2], "data") else {
        panic!("not a variant")
    };
    let Value::Seq(items) = get_mut(boxed, "items") else {
        panic!("items")
    };
    items.insert(0, *leaf);
    let bytes = interp::encode(&c, &edited, &interp::NoHooks).expect("encodes");
    assert_eq!(
        bytes.len(),
        data.len() + 3 + 4,
        "a leaf and its offset more"
    );
    let back = interp::decode(&c, &bytes).expect("decodes").to_value();
    assert_eq!(back, edited);
}
