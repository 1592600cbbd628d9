//! Offsets inside a union's payload record (issue 73: an event flow's
//! events): the checker refused them, as the writers never placed their
//! targets. The compiled codec and the interpreter now read them, place
//! their targets in the payload's sections and patch them, and write the
//! bytes a file of that layout has.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/payload_struct_offsets.ron", serde);
}

use codec_interp as interp;

fn schema() -> codec_schema::Checked {
    codec_schema::parse_str(
        include_str!("interp_fixtures/payload_struct_offsets.ron"),
        "payload_struct_offsets.ron",
    )
    .unwrap()
}

/// Three events (an action, a fork, a join), then what the action and the
/// fork lead to, in event order.
fn file() -> Vec<u8> {
    let mut d = b"EV".to_vec();
    d.extend_from_slice(&3u16.to_le_bytes());
    d.extend_from_slice(&8u32.to_le_bytes()); // events at 8
    assert_eq!(d.len(), 8);
    // 0x08 action: next 2, params at 0x20
    d.extend_from_slice(&[0, 0]);
    d.extend_from_slice(&2u16.to_le_bytes());
    d.extend_from_slice(&0x20u32.to_le_bytes());
    // 0x10 fork: 2 branches at 0x24
    d.extend_from_slice(&[1, 0]);
    d.extend_from_slice(&2u16.to_le_bytes());
    d.extend_from_slice(&0x24u32.to_le_bytes());
    // 0x18 join: next 0, spare 0
    d.extend_from_slice(&[2, 0]);
    d.extend_from_slice(&[0; 6]);
    assert_eq!(d.len(), 0x20);
    d.extend_from_slice(b"go\0\0"); // 0x20, the list 2-aligned after it
    d.extend_from_slice(&1u16.to_le_bytes()); // 0x24
    d.extend_from_slice(&2u16.to_le_bytes());
    d
}

#[test]
fn the_compiled_codec_places_a_payloads_targets() {
    let data = file();
    let doc = compiled::decode(&data).unwrap();
    let compiled::Body::Action(a) = &doc.events[0].body else {
        panic!("{:?}", doc.events[0].body);
    };
    assert_eq!(a.params.as_bytes(), b"go");
    let compiled::Body::Fork(f) = &doc.events[1].body else {
        panic!("{:?}", doc.events[1].body);
    };
    assert_eq!(f.branches, [1, 2]);
    assert_eq!(compiled::encode(&doc).unwrap(), data);
    // Edited: a longer string moves the fork's branches, whose offset
    // follows.
    let mut edited = doc.clone();
    if let compiled::Body::Action(a) = &mut edited.events[0].body {
        a.params = "forward".into();
    }
    let bytes = compiled::encode(&edited).unwrap();
    assert_eq!(&bytes[0x20..0x28], b"forward\0");
    assert_eq!(
        u32::from_le_bytes(bytes[0x14..0x18].try_into().unwrap()),
        0x28
    );
    assert_eq!(compiled::decode(&bytes).unwrap(), edited);
}

#[test]
fn the_interpreter_reads_and_writes_them_as_the_codec_does() {
    let c = schema();
    let data = file();
    let root = interp::decode(&c, &data).unwrap();
    let value = root.to_value();
    let doc = compiled::decode(&data).unwrap();
    assert_eq!(value, interp::to_value(&doc).unwrap());
    let written = interp::encode(&c, &value, &interp::NoHooks).unwrap();
    assert_eq!(written, data);
    // The edited document: the same bytes as the compiled codec's.
    let mut edited = doc.clone();
    if let compiled::Body::Action(a) = &mut edited.events[0].body {
        a.params = "forward".into();
    }
    let v = interp::to_value(&edited).unwrap();
    assert_eq!(
        interp::encode(&c, &v, &interp::NoHooks).unwrap(),
        compiled::encode(&edited).unwrap()
    );
}
