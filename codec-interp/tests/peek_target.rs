//! A `peek` union (its tag is the payload's leading magic) as an offset's
//! target: the checker and the interpreter took it, but the generated code
//! did not compile unless some section was placed depth first (its tree
//! impl called the payloads' `visit_df`, which only such schemas have;
//! `../shared/research/schema-repros/`, case 5). This file compiling is
//! the first test; the codec and the interpreter then agree and the codec
//! writes the bytes back.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/peek_target.ron", serde);
}

use codec_interp as interp;

/// `PEEK`, the offset 8, then `UINT` and 7.
fn file() -> Vec<u8> {
    let mut d = b"PEEK".to_vec();
    d.extend_from_slice(&8u32.to_le_bytes());
    d.extend_from_slice(b"UINT");
    d.extend_from_slice(&7u32.to_le_bytes());
    d
}

#[test]
fn a_peeked_union_behind_an_offset_reads_and_writes() {
    let data = file();
    let doc = compiled::decode(&data).expect("decodes");
    match &doc.body {
        compiled::Body::Int(i) => assert_eq!(i.value, 7),
        other => panic!("read as {other:?}"),
    }
    assert_eq!(compiled::encode(&doc).unwrap(), data);
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/peek_target.ron"),
        "peek_target.ron",
    )
    .unwrap();
    let root = interp::decode(&c, &data).expect("the interpreter reads it");
    assert_eq!(root.to_value(), interp::to_value(&doc).unwrap());
}
