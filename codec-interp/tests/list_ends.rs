//! Lists read up to the next target end where the next list starts, in
//! the compiled codec and the interpreter alike, in three cases that ran on
//! into the next list silently (`../shared/research/schema-repros/`, cases
//! 1, 3 and 6): an empty slot of a table, whose offset is the next slot's;
//! a table of offsets to such lists; and slots that are inline records of
//! one struct. Each now reads as its bytes say, and the codec writes the
//! same bytes back.

mod empty_slot {
    codec_derive::schema!("tests/interp_fixtures/empty_slot.ron", serde);
}
mod offset_table {
    codec_derive::schema!("tests/interp_fixtures/offset_table_to_next.ron", serde);
}
mod inline_slots {
    codec_derive::schema!("tests/interp_fixtures/inline_slot_fields.ron", serde);
}

use codec_interp as interp;

/// `SLOT`, 3 slots of (count, offset): (0, 0x20), (2, 0x20), (1, 0x27);
/// then `ab`, `cde` at 0x20 and `f` at 0x27. Slot 0 is empty.
fn slots() -> Vec<u8> {
    let mut d = b"SLOT".to_vec();
    for v in [3u32, 0, 0x20, 2, 0x20, 1, 0x27] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    d.extend_from_slice(b"ab\0cde\0f\0");
    assert_eq!(d.len(), 41);
    d
}

/// `MSGS`, 3 offsets (0x14, 0x18, 0x1a), then u16 messages [1, 2], [3],
/// [4, 5, 6].
fn messages() -> Vec<u8> {
    let mut d = b"MSGS".to_vec();
    for v in [3u32, 0x14, 0x18, 0x1a] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    for v in [1u16, 2, 3, 4, 5, 6] {
        d.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(d.len(), 32);
    d
}

/// The interpreter's reading, compared with the codec's value `expected`.
fn assert_interpreted<T: serde::Serialize>(source: &str, name: &str, data: &[u8], expected: &T) {
    let c = codec_schema::parse_str(source, name).unwrap();
    let root = interp::decode(&c, data).expect("the interpreter reads it");
    assert_eq!(root.to_value(), interp::to_value(expected).unwrap());
}

fn texts(entries: &[codec_runtime::Str]) -> Vec<&str> {
    entries.iter().map(|s| s.as_str()).collect()
}

#[test]
fn an_empty_slot_ends_where_the_next_slot_starts() {
    let data = slots();
    let doc = empty_slot::decode(&data).unwrap();
    let read: Vec<Vec<&str>> = doc.slots.iter().map(|s| texts(&s.entries)).collect();
    assert_eq!(read, [vec![], vec!["ab", "cde"], vec!["f"]]);
    assert_eq!(empty_slot::encode(&doc).unwrap(), data);
    assert_interpreted(
        include_str!("interp_fixtures/empty_slot.ron"),
        "empty_slot.ron",
        &data,
        &doc,
    );
}

#[test]
fn each_offset_of_a_table_ends_the_list_before_it() {
    let data = messages();
    let doc = offset_table::decode(&data).unwrap();
    assert_eq!(doc.messages, [vec![1u16, 2], vec![3], vec![4, 5, 6]]);
    assert_eq!(offset_table::encode(&doc).unwrap(), data);
    assert_interpreted(
        include_str!("interp_fixtures/offset_table_to_next.ron"),
        "offset_table_to_next.ron",
        &data,
        &doc,
    );
}

#[test]
fn slots_as_inline_records_end_where_the_next_one_starts() {
    let data = slots();
    let doc = inline_slots::decode(&data).unwrap();
    let read = [&doc.s0, &doc.s1, &doc.s2].map(|s| texts(&s.entries));
    assert_eq!(read, [vec![], vec!["ab", "cde"], vec!["f"]]);
    assert_eq!(inline_slots::encode(&doc).unwrap(), data);
    assert_interpreted(
        include_str!("interp_fixtures/inline_slot_fields.ron"),
        "inline_slot_fields.ron",
        &data,
        &doc,
    );
}
