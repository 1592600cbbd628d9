//! A counted list inline in an element of a list read up to the next
//! target was refused as a cycle ("offset to 0x5 leads back to a record
//! that contains it") by the compiled codec and the interpreter alike,
//! though no offset is involved (`../shared/research/schema-repros/`,
//! case 2). Both now read it, and the codec writes the same bytes back.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/counted_in_to_next.ron", serde);
}

use codec_interp as interp;

/// `NAME`, then `ab` and `cde`, each after its length.
fn file() -> Vec<u8> {
    let mut d = b"NAME".to_vec();
    d.extend_from_slice(&[2, b'a', b'b', 3, b'c', b'd', b'e']);
    d
}

#[test]
fn the_compiled_codec_reads_and_writes_it() {
    let data = file();
    let doc = compiled::decode(&data).expect("no cycle: no offset is involved");
    let texts: Vec<&[u8]> = doc.names.iter().map(|n| n.text.as_slice()).collect();
    assert_eq!(texts, [&b"ab"[..], &b"cde"[..]]);
    assert_eq!(compiled::encode(&doc).unwrap(), data);
}

#[test]
fn the_interpreter_reads_it_as_the_codec_does() {
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/counted_in_to_next.ron"),
        "counted_in_to_next.ron",
    )
    .unwrap();
    let data = file();
    let root = interp::decode(&c, &data).expect("no cycle: no offset is involved");
    let value = root.to_value();
    let doc = compiled::decode(&data).unwrap();
    assert_eq!(value, interp::to_value(&doc).unwrap());
    // A length past the end of the file is still an error, in both.
    let mut short = data.clone();
    short.truncate(9);
    assert!(interp::decode(&c, &short).is_err());
    assert!(compiled::decode(&short).is_err());
}
