//! RSTB from `schemas/rstb.ron` alone (no glue): the corpus's table, found
//! inside Yaz0, decodes and encodes byte for byte; its text gives the same
//! bytes back; an edit of one size changes those four bytes only; the
//! interpreter reads it as the codec does, every byte explained.

use formats::layer::{self, Dictionaries};
use formats::rstb::{self, text, Variant};

mod common;

/// The corpus's table, decompressed, or `None` (said) when it is absent.
fn table() -> Option<Vec<u8>> {
    let dir = common::corpus("yaz0")?;
    let data = std::fs::read(dir.join("ResourceSizeTable.product.srsizetable")).ok()?;
    let (layers, inner) = layer::peel(&data, &Dictionaries::default()).unwrap();
    assert_eq!(layers.len(), 1, "one Yaz0 layer");
    Some(inner)
}

#[test]
fn the_corpus_table_round_trips_and_through_text() {
    let Some(data) = table() else { return };
    let (variant, doc) = rstb::decode(&data).unwrap();
    assert_eq!(variant, Variant::Le);
    assert_eq!(doc.crcs.len(), 65_816);
    assert_eq!(
        doc.names[0].name.as_str(),
        "Actor/Physics/SwitchStepL.bphysics"
    );
    assert_eq!(rstb::encode(&doc, variant).unwrap(), data);

    let json = text::to_json(&doc, variant, &[]);
    let (v, back, layers) = text::from_json(&json).unwrap();
    assert!(layers.is_empty());
    assert_eq!(rstb::encode(&back, v).unwrap(), data);

    // An edit of one size: those four bytes change, nothing else.
    let edited = json.replacen("\"size\": 14800}", "\"size\": 20000}", 1);
    let (v, doc2, _) = text::from_json(&edited).unwrap();
    let bytes = rstb::encode(&doc2, v).unwrap();
    let changed: Vec<usize> = (0..data.len()).filter(|&i| data[i] != bytes[i]).collect();
    let at = 12 + 65_816 * 8 + 128;
    assert_eq!(bytes.len(), data.len());
    assert!(
        changed.iter().all(|&i| (at..at + 4).contains(&i)),
        "{changed:?}"
    );
    assert_eq!(&bytes[at..at + 4], &20000u32.to_le_bytes());
}

#[test]
fn the_interpreter_reads_it_as_the_codec_does() {
    let Some(data) = table() else { return };
    let c = codec_schema::parse_str(rstb::schema::SCHEMA_SOURCE, "schemas/rstb.ron").unwrap();
    let c = c.variant("Le").unwrap();
    let root = codec_interp::decode(c, &data).unwrap();
    let (_, doc) = rstb::decode(&data).unwrap();
    assert_eq!(root.to_value(), codec_interp::to_value(&doc).unwrap());
    let cov = codec_interp::coverage::coverage(c, &root, &data);
    assert_eq!(cov.unexplained(), 0);
}

#[test]
fn a_big_endian_table_and_a_damaged_one() {
    let doc = rstb::Table {
        crcs: vec![rstb::CrcEntry { crc: 7, size: 9 }],
        names: vec![rstb::NameEntry {
            name: "a/b.bfres".into(),
            size: 3,
        }],
    };
    let be = rstb::encode(&doc, Variant::Be).unwrap();
    assert_eq!(&be[4..8], &1u32.to_be_bytes());
    assert_eq!(rstb::decode(&be).unwrap(), (Variant::Be, doc.clone()));
    // A name that does not fit its 128-byte field is refused on encode.
    let mut long = doc.clone();
    long.names[0].name = "x".repeat(128).as_str().into();
    let e = rstb::encode(&long, Variant::Le).unwrap_err();
    assert!(
        e.to_string()
            .contains("129 bytes do not fit in its 128-byte field"),
        "{e}"
    );
    // Counts that fit neither byte order, and a byte after a name's end.
    let mut cut = be.clone();
    cut.pop();
    assert!(rstb::decode(&cut)
        .unwrap_err()
        .to_string()
        .contains("neither byte order"));
    let mut dirty = rstb::encode(&doc, Variant::Le).unwrap();
    dirty[12 + 8 + 100] = 1;
    let e = rstb::decode(&dirty).unwrap_err();
    assert_eq!(e.offset(), 12 + 8 + 100);
    assert!(e.to_string().contains("after the string's end"), "{e}");
}
