//! One record type placed in two sections, each use naming its own (issue
//! 73: a timeline's parameter containers before the timeline and its clips'
//! after it). The compiled codec and the interpreter place them alike, and
//! an edit moves only what follows it.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/two_sections.ron", serde);
}

use codec_interp as interp;

fn params(value: u32, name: &str) -> compiled::Params {
    compiled::Params {
        value,
        name: name.into(),
    }
}

fn doc() -> compiled::File {
    compiled::File {
        pad: 0,
        head: params(1, "head"),
        clips: vec![
            compiled::Clip {
                start: 5,
                params: params(2, "c1"),
            },
            compiled::Clip {
                start: 6,
                params: params(3, "c2"),
            },
        ],
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn a_type_lands_in_the_section_each_offset_names() {
    let b = compiled::encode(&doc()).unwrap();
    // The header's parameters in `before`, right after the 12-byte header;
    // the clips' list in `main` (its count at 0x14); each clip's
    // parameters in `after`, past the list.
    assert_eq!(u32_at(&b, 4), 0x0C);
    assert_eq!(u32_at(&b, 0x0C), 1);
    assert_eq!(u32_at(&b, 8), 0x18);
    assert_eq!(u32_at(&b, 0x14), 2);
    let clip_params = [u32_at(&b, 0x1C) as usize, u32_at(&b, 0x24) as usize];
    assert!(clip_params.iter().all(|&p| p >= 0x28), "{clip_params:x?}");
    assert_eq!(u32_at(&b, clip_params[0]), 2);
    assert_eq!(u32_at(&b, clip_params[1]), 3);
    assert_eq!(compiled::decode(&b).unwrap(), doc());
    // The interpreter: the same bytes, read back to the same value.
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/two_sections.ron"),
        "two_sections.ron",
    )
    .unwrap();
    let v = interp::to_value(&doc()).unwrap();
    assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), b);
    assert_eq!(interp::decode(&c, &b).unwrap().to_value(), v);
    // A longer name of the header's parameters moves the clips'
    // parameters (in `after`, behind it), not the list.
    let mut edited = doc();
    edited.head.name = "a longer head".into();
    let e = compiled::encode(&edited).unwrap();
    assert_eq!(u32_at(&e, 8), 0x18);
    assert_eq!(u32_at(&e, 0x1C) as usize, clip_params[0] + 9);
    assert_eq!(compiled::decode(&e).unwrap(), edited);
    let v = interp::to_value(&edited).unwrap();
    assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), e);
}
