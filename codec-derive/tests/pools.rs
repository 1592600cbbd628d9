//! Behaviour of the constructs AINB brought (schema `tests/schemas/pools.ron`):
//! a string pool written in first-use order or kept as decoded, string bit
//! ranges, an optional offset, groups of offsets to a union chosen by glue
//! from context and room, a list field counted by a sum, and lists running to
//! the next target that share a start. Every expected byte is written out by
//! hand from the schema, so a wrong layout fails.

use codec_runtime::{SelectCx, Str, StringPool};

/// The glue the schema names: the body's layout from the room it has.
mod glue {
    use super::SelectCx;

    pub fn pick(cx: &SelectCx<'_>) -> Option<u64> {
        if cx.get("kind") == Some(9) {
            return None;
        }
        Some(match cx.room() {
            2 => 0,
            8 => 1,
            _ => 2,
        })
    }
}

mod pools {
    codec_derive::schema!("tests/schemas/pools.ron", hooks = super::glue);
}

use pools::{Block, Body, Counts, Header, LongBody, Slot, Tagged, TaggedWord};

fn doc() -> Header {
    Header {
        title: "t".into(),
        pool: StringPool::default(),
        first: vec![1, 2],
        second: vec![],
        extra: Some(7),
        block: Block {
            kind: 3,
            slots: [
                vec![Slot {
                    body: Body::Short(0x1111),
                }],
                vec![
                    Slot {
                        body: Body::Long(LongBody {
                            a: 5,
                            b: "n".into(),
                        }),
                    },
                    Slot {
                        body: Body::Raw(vec![0xaa].into()),
                    },
                ],
            ],
        },
        counts: Counts { a: 1, b: 1 },
        names: vec![
            Tagged {
                word: TaggedWord {
                    name: "n".into(),
                    flag: 1,
                },
            },
            Tagged {
                word: TaggedWord {
                    name: "t".into(),
                    flag: 0,
                },
            },
        ],
    }
}

#[rustfmt::skip]
const BYTES: [u8; 78] = [
    b'P', b'O', b'O', b'L',
    0, 0, 0, 0,          // title: "t" at 0 in the pool
    74, 0, 0, 0,         // the pool
    66, 0, 0, 0,         // first
    70, 0, 0, 0,         // second: empty, where `extra` starts
    70, 0, 0, 0,         // extra
    38, 0, 0, 0,         // block
    1, 1,                // counts
    2, 0, 0, 1,          // names[0]: "n" at 2, flag 1
    0, 0, 0, 0,          // names[1]: "t" at 0
    // blocks: kind, the groups' (count, base) pairs, one offset per slot
    3, 1, 0, 2, 1, 55, 0, 0, 0, 57, 0, 0, 0, 65, 0, 0, 0,
    // bodies: Short, Long (a, "n" at 2), Raw
    0x11, 0x11, 5, 0, 0, 0, 2, 0, 0, 0, 0xaa,
    // lists: first, extra
    1, 0, 2, 0, 7, 0, 0, 0,
    // strings, in the order records were written
    b't', 0, b'n', 0,
];

#[test]
fn a_built_document_gets_its_strings_in_first_use_order() {
    assert_eq!(pools::encode(&doc()).unwrap(), BYTES);
}

#[test]
fn decoding_keeps_the_pool_and_chooses_each_layout() {
    let back = pools::decode(&BYTES).unwrap();
    let mut want = doc();
    want.pool = StringPool::new(vec![Str::from("t"), Str::from("n")]);
    assert_eq!(back, want);
    assert_eq!(pools::encode(&back).unwrap(), BYTES);
}

#[test]
fn a_seeded_pool_keeps_its_order_and_orphans() {
    let mut d = doc();
    d.pool = StringPool::new(vec![Str::from("orphan"), Str::from("n"), Str::from("t")]);
    let bytes = pools::encode(&d).unwrap();
    assert_eq!(&bytes[bytes.len() - 11..], b"orphan\0n\0t\0");
    assert_eq!(
        &bytes[4..8],
        &9u32.to_le_bytes(),
        "the title points at its seeded copy"
    );
    assert_eq!(pools::decode(&bytes).unwrap().pool, d.pool);
}

#[test]
fn an_offset_to_the_pools_end_reads_as_empty_and_comes_back() {
    let mut bytes = BYTES;
    bytes[4] = 4; // the title points past the last string
    let back = pools::decode(&bytes).unwrap();
    assert_eq!(back.title, "");
    assert_eq!(back.pool.odd, vec![(4, Str::default())]);
    assert_eq!(pools::encode(&back).unwrap(), bytes);
}

#[test]
fn an_absent_optional_target_is_zero() {
    let mut d = doc();
    d.extra = None;
    let bytes = pools::encode(&d).unwrap();
    assert_eq!(&bytes[20..24], &[0; 4]);
    assert_eq!(pools::decode(&bytes).unwrap().extra, None);
}

#[test]
fn groups_whose_bases_do_not_follow_are_located() {
    let mut bytes = BYTES;
    bytes[42] = 0; // group 1's base
    let e = pools::decode(&bytes).unwrap_err();
    assert_eq!(e.offset(), 42);
    assert!(e.to_string().contains("Header.block.slots[1]"), "{e}");
    assert!(e.to_string().contains("group 1 starts at element 0"), "{e}");
}

#[test]
fn a_select_hook_without_a_variant_is_located() {
    let mut bytes = BYTES;
    bytes[38] = 9; // a kind the glue knows no layout for
    let e = pools::decode(&bytes).unwrap_err();
    assert_eq!(e.offset(), 43, "the offset to the first body");
    assert!(e.to_string().contains("no variant of Body fits"), "{e}");
}

#[test]
fn a_sum_count_the_list_disagrees_with_is_an_encode_error() {
    let mut d = doc();
    d.counts.b = 3;
    let e = pools::encode(&d).unwrap_err();
    assert!(e.to_string().contains("Header.names"), "{e}");
    assert!(e.to_string().contains("counts.a + counts.b says 4"), "{e}");
}
