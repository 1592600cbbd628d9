//! Behaviour of schema constructs that the AAMP schema does not use. Every
//! expected byte string is written out by hand from the schema, so a wrong
//! layout fails; each round trip decodes back to the same value; each module
//! has decode errors with their offset and field path.

use codec_runtime::{DecodeError, ErrorKind};

/// Asserts a decode error's offset, field path and kind.
#[track_caller]
fn assert_decode_err(e: DecodeError, offset: u64, path: &str, kind: ErrorKind) {
    assert_eq!(e.offset(), offset, "offset of {e}");
    assert_eq!(e.path(), path, "path of {e}");
    assert_eq!(e.kind(), &kind, "kind of {e}");
}

/// Big endian; U8, U16, I8, I16, I64, U64, F64, U24; Bool8; Bytes(N); Bits.
mod prims {
    codec_derive::schema!("tests/schemas/prims.ron");
}

fn prims_value() -> prims::Prims {
    prims::Prims {
        a: 0xA5,
        b: 0x1234,
        c: -2,
        d: -300,
        e: -0x0102_0304_0506_0708,
        f: 0x0102_0304_0506_0708,
        g: 1.5,
        h: true,
        raw: [0xDE, 0xAD, 0x01],
        flags: prims::PrimsFlags {
            enabled: true,
            mode: 5,
            level: 17,
            reserved: 0x42,
        },
        u24: 0x0A_0B0C,
    }
}

#[rustfmt::skip]
const PRIMS_BYTES: [u8; 41] = [
    b'B', b'E',                                     // magic
    0xA5,                                           // a: U8
    0x12, 0x34,                                     // b: U16
    0xFE,                                           // c: I8 -2
    0xFE, 0xD4,                                     // d: I16 -300
    0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8, 0xF8, // e: I64 -0x0102030405060708
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // f: U64
    0x3F, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // g: F64 1.5
    0x01,                                           // h: Bool8
    0xDE, 0xAD, 0x01,                               // raw: Bytes(3)
    // flags: 1 | 5 << 1 | 17 << 4 | 0x42 << 9 = 0x851B
    0x85, 0x1B,
    0x0A, 0x0B, 0x0C,                               // u24
];

#[test]
fn big_endian_scalars_and_bits_round_trip() {
    assert_eq!(prims::ENDIAN, codec_runtime::Endian::Big);
    let v = prims_value();
    let bytes = prims::encode(&v).unwrap();
    assert_eq!(bytes, PRIMS_BYTES);
    assert_eq!(prims::decode(&bytes).unwrap(), v);
}

#[test]
fn fields_at_fixed_places_are_named_by_constants() {
    use prims::Prims;
    assert_eq!(
        (
            Prims::MAGIC_AT,
            Prims::A_AT,
            Prims::B_AT,
            Prims::FLAGS_AT,
            Prims::U24_AT
        ),
        (0, 2, 3, 36, 38)
    );
    assert_eq!(PRIMS_BYTES[Prims::FLAGS_AT], 0x85);
}

#[test]
fn a_bits_struct_gives_its_word_back() {
    let flags = prims_value().flags;
    assert_eq!(flags.to_word(), 0x851B);
    assert_eq!(prims::PrimsFlags::from_word(0x851B), flags);
    // A range holding more than its bits is cut to them, not spilled into
    // the next range (the encoder refuses it; see below).
    let wide = prims::PrimsFlags {
        mode: 0b1101,
        ..Default::default()
    };
    assert_eq!(wide.to_word(), 0b101 << 1);
}

#[test]
fn bits_are_low_bits_first() {
    let mut v = prims_value();
    v.flags = prims::PrimsFlags {
        enabled: false,
        mode: 0,
        level: 0,
        reserved: 0x40,
    };
    let bytes = prims::encode(&v).unwrap();
    // reserved is bits 9..16: 0x40 << 9 = 0x8000.
    assert_eq!(bytes[36..38], [0x80, 0x00]);
    v.flags = prims::PrimsFlags {
        enabled: true,
        ..Default::default()
    };
    let bytes = prims::encode(&v).unwrap();
    assert_eq!(bytes[36..38], [0x00, 0x01]);
    assert_eq!(prims::decode(&bytes).unwrap(), v);
}

#[test]
fn bits_too_wide_for_their_range_fail_to_encode() {
    let mut v = prims_value();
    v.flags.mode = 8;
    let e = prims::encode(&v).unwrap_err();
    assert_eq!(e.path, "Prims.flags.mode");
    assert_eq!(e.message, "8 does not fit in the bit range");
}

#[test]
fn prims_decode_errors() {
    assert_decode_err(
        prims::decode(&PRIMS_BYTES[..20]).unwrap_err(),
        16,
        "Prims.f",
        ErrorKind::UnexpectedEof {
            needed: 8,
            available: 4,
        },
    );
    let mut bad_bool = PRIMS_BYTES;
    bad_bool[32] = 2;
    assert_decode_err(
        prims::decode(&bad_bool).unwrap_err(),
        32,
        "Prims.h",
        ErrorKind::Invalid("expected a bool (0 or 1), found 2".into()),
    );
    let mut bad_magic = PRIMS_BYTES;
    bad_magic[1] = b'X';
    assert_decode_err(
        prims::decode(&bad_magic).unwrap_err(),
        0,
        "Prims.magic",
        ErrorKind::BadMagic {
            expected: b"BE".to_vec(),
            found: b"BX".to_vec(),
        },
    );
}

/// Ptr with base File and base Absolute; a struct behind an offset; List with
/// count Prefix(U16) and Before(U32).
mod offsets {
    codec_derive::schema!("tests/schemas/offsets.ron");
}

fn offsets_value() -> offsets::Head {
    offsets::Head {
        block: offsets::Block { id: 7, weight: 2.0 },
        shorts: vec![1, 2, 3],
        pad: 0xBEEF,
        words: vec![0xAABB_CCDD, 5],
    }
}

#[rustfmt::skip]
const OFFSETS_BYTES: [u8; 0x2C] = [
    // Head (0x10 bytes)
    b'O', b'F', b'F', b'S',
    0x10, 0x00, 0x00, 0x00, // block: 0x10 from the file start
    0x08, 0x00,             // shorts: 0x18 - 0x10
    0xEF, 0xBE,             // pad
    0x14, 0x00, 0x00, 0x00, // words: 0x24 - 0x10 (the first element, after the count)
    // section "blocks" at 0x10: Block
    0x07, 0x00, 0x00, 0x00, // id
    0x00, 0x00, 0x00, 0x40, // weight 2.0
    // section "lists" at 0x18: shorts, count first
    0x03, 0x00,
    0x01, 0x00, 0x02, 0x00, 0x03, 0x00,
    // 0x20: words, count before the first element at 0x24
    0x02, 0x00, 0x00, 0x00,
    0xDD, 0xCC, 0xBB, 0xAA,
    0x05, 0x00, 0x00, 0x00,
];

#[test]
fn offsets_and_counted_lists_round_trip() {
    let v = offsets_value();
    let bytes = offsets::encode(&v).unwrap();
    assert_eq!(bytes, OFFSETS_BYTES);
    assert_eq!(offsets::decode(&bytes).unwrap(), v);
}

#[test]
fn empty_lists_round_trip() {
    let mut v = offsets_value();
    v.shorts.clear();
    v.words.clear();
    let bytes = offsets::encode(&v).unwrap();
    // shorts: its count 0 at 0x18; words: its count at 0x1A, so the offset
    // holds 0x1E - 0x10; the section is padded to 0x20.
    assert_eq!(bytes[..8], OFFSETS_BYTES[..8]);
    assert_eq!(bytes[8..10], [0x08, 0x00]);
    assert_eq!(bytes[12..16], [0x0E, 0x00, 0x00, 0x00]);
    assert_eq!(bytes[0x10..0x18], OFFSETS_BYTES[0x10..0x18]);
    assert_eq!(bytes[0x18..], [0u8; 8]);
    assert_eq!(offsets::decode(&bytes).unwrap(), v);
}

#[test]
fn offsets_decode_errors() {
    let mut far = OFFSETS_BYTES;
    far[4..8].copy_from_slice(&0x1000u32.to_le_bytes());
    assert_decode_err(
        offsets::decode(&far).unwrap_err(),
        4,
        "Head.block",
        ErrorKind::OffsetOutOfRange {
            target: 0x1000,
            len: 0x2C,
        },
    );
    let mut many = OFFSETS_BYTES;
    many[0x18..0x1A].copy_from_slice(&0xFFFFu16.to_le_bytes());
    assert_decode_err(
        offsets::decode(&many).unwrap_err(),
        8,
        "Head.shorts",
        ErrorKind::CountTooLarge {
            count: 0xFFFF,
            elem_size: 2,
            available: 0x2C - 0x1A,
        },
    );
    let mut many = OFFSETS_BYTES;
    many[0x20..0x24].copy_from_slice(&100u32.to_le_bytes());
    assert_decode_err(
        offsets::decode(&many).unwrap_err(),
        12,
        "Head.words",
        ErrorKind::CountTooLarge {
            count: 100,
            elem_size: 4,
            available: 0x2C - 0x24,
        },
    );
    // The file ends inside the Block behind the offset.
    assert_decode_err(
        offsets::decode(&OFFSETS_BYTES[..0x14]).unwrap_err(),
        0x14,
        "Head.block.weight",
        ErrorKind::UnexpectedEof {
            needed: 4,
            available: 0,
        },
    );
}

/// An inline array of structs; CString with max and with pad.
mod strings {
    codec_derive::schema!("tests/schemas/strings.ron");
}

fn strings_value() -> strings::Names {
    strings::Names {
        count: 2,
        points: [
            strings::Point { x: 1, y: -1 },
            strings::Point { x: -300, y: 300 },
        ],
        title: "abc".into(),
        label: "hello".into(),
        tail: 0x1234,
    }
}

#[rustfmt::skip]
const STRINGS_BYTES: [u8; 22] = [
    0x02,                               // count
    0x01, 0x00, 0xFF, 0xFF,             // points[0]: 1, -1
    0xD4, 0xFE, 0x2C, 0x01,             // points[1]: -300, 300
    b'a', b'b', b'c', 0x00,             // title (max 8)
    b'h', b'e', b'l', b'l', b'o', 0x00, // label at 13..19,
    0x00,                               // padded to 20
    0x34, 0x12,                         // tail
];

#[test]
fn arrays_of_structs_and_cstrings_round_trip() {
    let v = strings_value();
    let bytes = strings::encode(&v).unwrap();
    assert_eq!(bytes, STRINGS_BYTES);
    assert_eq!(strings::decode(&bytes).unwrap(), v);
}

#[test]
fn cstring_max_counts_the_nul() {
    let mut v = strings_value();
    v.title = "abcdefg".into(); // 7 bytes + NUL = 8: fits
    let bytes = strings::encode(&v).unwrap();
    assert_eq!(&bytes[9..17], b"abcdefg\0");
    assert_eq!(strings::decode(&bytes).unwrap(), v);

    v.title = "abcdefgh".into(); // 8 bytes + NUL = 9: does not fit
    let e = strings::encode(&v).unwrap_err();
    assert_eq!(e.path, "Names.title");
    assert_eq!(e.message, "8 bytes do not fit in 8 (NUL included)");
}

#[test]
fn strings_decode_errors() {
    // title without a NUL within its 8 bytes.
    let mut long = STRINGS_BYTES[..9].to_vec();
    long.extend_from_slice(b"abcdefghij\0");
    long.extend_from_slice(b"x\0\0\0\0\0");
    assert_decode_err(
        strings::decode(&long).unwrap_err(),
        9,
        "Names.title",
        ErrorKind::UnterminatedString { capacity: Some(8) },
    );
    // The file ends inside points[1].y.
    assert_decode_err(
        strings::decode(&STRINGS_BYTES[..8]).unwrap_err(),
        7,
        "Names.points[1].y",
        ErrorKind::UnexpectedEof {
            needed: 2,
            available: 1,
        },
    );
}

/// A union behind an offset, reached through a Switch on a derived tag.
mod union {
    codec_derive::schema!("tests/schemas/union.ron");
}

fn rec(value: union::Value) -> union::Rec {
    union::Rec { pad: [0; 3], value }
}

#[test]
fn union_variants_round_trip() {
    use union::{Pair, Value};
    #[rustfmt::skip]
    let cases: [(Value, &[u8]); 4] = [
        (Value::Int(-2), &[
            0x01, 0x00, 0x00, 0x00, // kind 1, pad
            0x00, 0x00, 0x00, 0x08, // value: 8
            0xFF, 0xFF, 0xFF, 0xFE, // -2
        ]),
        (Value::Text("hello".into()), &[
            0x02, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x08,
            b'h', b'e', b'l', b'l', b'o', 0x00, 0x00, 0x00, // padded to 4
        ]),
        (Value::Pair(Pair { a: 1, b: 0x0203 }), &[
            0x03, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x08,
            0x00, 0x01, 0x02, 0x03,
        ]),
        (Value::Shorts(vec![7, 0x0102]), &[
            0x04, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x08,
            0x02,                   // count: U8 prefix
            0x00, 0x07, 0x01, 0x02,
            0x00, 0x00, 0x00,       // section padded to 4
        ]),
    ];
    for (value, expected) in cases {
        let tag = value.tag();
        let v = rec(value);
        let bytes = union::encode(&v).unwrap();
        assert_eq!(bytes, expected, "{v:?}");
        assert_eq!(u64::from(bytes[0]), tag);
        assert_eq!(union::decode(&bytes).unwrap(), v);
    }
    assert_eq!(Value::Int(0).variant_name(), "Int");
}

#[test]
fn union_decode_errors() {
    #[rustfmt::skip]
    let unknown: [u8; 12] = [
        0x09, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x08,
        0x00, 0x00, 0x00, 0x00,
    ];
    assert_decode_err(
        union::decode(&unknown).unwrap_err(),
        0,
        "Rec.value",
        ErrorKind::UnknownTag {
            union: "Value".into(),
            tag: 9,
        },
    );
    #[rustfmt::skip]
    let unterminated: [u8; 12] = [
        0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x08,
        b'a', b'b', b'c', b'd',
    ];
    assert_decode_err(
        union::decode(&unterminated).unwrap_err(),
        8,
        "Rec.value::Text",
        ErrorKind::UnterminatedString { capacity: None },
    );
}

// A union payload behind an offset holding offsets of its own, and records in
// a dedup section, were known encoder gaps; the checker refuses both (see
// `tests/ui/union_payload_offset.rs` and `tests/ui/dedup_records.rs`). A
// payload record written in place places its targets
// (`codec-interp/tests/payload_struct_offsets.rs`).
