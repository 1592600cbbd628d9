//! The constructs MSBT brought, as the generator emits them (the schema
//! interpreter carries MSBT itself): a unit laid out inline within the size
//! stored before it (`size`, `derive: Size`), padding of a kept byte
//! (`Pad`), a length-prefixed string (`PString`) and a peek union's
//! `other` variant, decoded and encoded byte for byte.

mod blocks {
    codec_derive::schema!("tests/schemas/blocks.ron");
}

use blocks::{Block, File, NameBlock, Names};

#[test]
fn a_sized_unit_padding_and_a_prefixed_string_come_back() {
    let data = b"DCHKNAME\x04\0\0\0\x03abc\xAB\xAB\xAB\xAB";
    let v = blocks::decode(data).unwrap();
    let Block::Named(NameBlock { data: names, pad }) = &v.block else {
        panic!("{v:?}")
    };
    assert_eq!((names.label.as_str(), *pad), ("abc", 0xAB));
    assert_eq!(blocks::encode(&v).unwrap(), data);
    // Edited: the size is derived, the padding (from the record's start)
    // shrinks to 2 bytes, of the byte the document holds.
    let edited = File {
        block: Block::Named(NameBlock {
            data: Names {
                label: "abcde".into(),
            },
            pad: 0xCD,
        }),
    };
    assert_eq!(
        blocks::encode(&edited).unwrap(),
        b"DCHKNAME\x06\0\0\0\x05abcde\xCD\xCD"
    );
}

#[test]
fn a_block_of_another_kind_is_kept_and_bad_input_is_located() {
    let other = b"DCHKEXTR\x07\0\0\0";
    let v = blocks::decode(other).unwrap();
    assert!(matches!(&v.block, Block::Other(o) if &o.magic == b"EXTR" && o.value == 7));
    assert_eq!(blocks::encode(&v).unwrap(), other);
    // A size past the end: an error at the size field.
    let e = blocks::decode(b"DCHKNAME\x40\0\0\0\x03abc").unwrap_err();
    assert_eq!(e.offset(), 8, "{e}");
    // Padding that is not one byte repeated: at the byte that differs.
    let e = blocks::decode(b"DCHKNAME\x04\0\0\0\x03abc\xAB\xAB\x00\xAB").unwrap_err();
    assert_eq!(e.offset(), 18, "{e}");
}
