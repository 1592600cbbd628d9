//! Numbers the finished layout gives (the file's size, a section's length
//! and end, a record count) held by any record, at any place in it, not
//! only at a fixed offset of the root (issue 73: an event flow's relocation
//! table holds where its string pool ends). The compiled codec and the
//! interpreter patch them alike (`codec_runtime::settled`), and an edit
//! moves them.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/settled_numbers.ron", serde);
}

use codec_interp as interp;

fn doc(names: &[&str]) -> compiled::File {
    compiled::File {
        items: names
            .iter()
            .map(|n| compiled::Item { name: (*n).into() })
            .collect(),
        tail: compiled::Tail {
            label: "end".into(),
        },
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn a_record_past_a_string_holds_numbers_of_the_finished_layout() {
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/settled_numbers.ron"),
        "settled_numbers.ron",
    )
    .unwrap();
    for names in [&["a", "bc"][..], &["a longer name", "bc", "d"][..]] {
        let d = doc(names);
        let b = compiled::encode(&d).unwrap();
        // Header 12, items 4 each, the strings, the tail 8-aligned.
        let strings_start = 12 + 4 * names.len();
        let strings_len: usize = names.iter().map(|n| n.len() + 1).sum();
        let strings_end = (strings_start + strings_len).next_multiple_of(2);
        let tail = u32_at(&b, 8) as usize;
        assert_eq!(&b[tail..tail + 8], b"TAILend\0");
        let at = tail + 8;
        assert_eq!(b[at] as usize, names.len(), "items");
        assert_eq!(u32_at(&b, at + 1) as usize, strings_end, "strings end");
        let size = u16::from_le_bytes([b[at + 5], b[at + 6]]) as usize;
        assert_eq!(size, strings_end - strings_start, "strings size");
        assert_eq!(u32_at(&b, at + 7) as usize, b.len(), "file size");
        assert_eq!(compiled::decode(&b).unwrap(), d);
        let v = interp::to_value(&d).unwrap();
        assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), b);
    }
}
