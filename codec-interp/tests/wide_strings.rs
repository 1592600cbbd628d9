//! `CString(encoding: Utf16 | Utf32)`: text of two- or four-byte units in
//! the file's byte order, ended by a zero unit. UTF-16 text behind an
//! offset was read by `CString()` as its first character with no error
//! (`../shared/research/schema-repros/`, case 4: `"H"` for `"Heat"`). The
//! compiled codec and the interpreter now read every character, the codec
//! writes the same bytes back, and units that are no text are an error at
//! their offset.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/wide_strings.ron", serde);
}

use codec_interp as interp;
use compiled::Variant;

/// `TEXT`, the message's offset (12), the label `Ab` in UTF-32 with its
/// zero unit, then `Heat` in UTF-16 with its zero unit.
fn file(big: bool) -> Vec<u8> {
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let u16b = |v: u16| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut d = b"TEXT".to_vec();
    d.extend_from_slice(&u32b(20));
    for c in "Ab\0".chars() {
        d.extend_from_slice(&u32b(c as u32));
    }
    for c in "Heat\0".encode_utf16() {
        d.extend_from_slice(&u16b(c));
    }
    d
}

#[test]
fn the_codec_reads_every_character_and_writes_the_same_bytes() {
    for (variant, big) in [(Variant::Le, false), (Variant::Be, true)] {
        let data = file(big);
        let doc = compiled::decode(&data, variant).unwrap();
        assert_eq!(doc.message.as_str(), "Heat");
        assert_eq!(doc.label.as_str(), "Ab");
        assert_eq!(compiled::encode(&doc, variant).unwrap(), data);
        // An edit is written in the same units.
        let mut edited = doc.clone();
        edited.message = "Heat Resistance \u{1F525}".into();
        let bytes = compiled::encode(&edited, variant).unwrap();
        assert_eq!(compiled::decode(&bytes, variant).unwrap(), edited);
        assert_eq!(bytes.len(), 20 + (16 + 2 + 1) * 2, "a pair for U+1F525");
    }
}

#[test]
fn the_interpreter_reads_it_as_the_codec_does() {
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/wide_strings.ron"),
        "wide_strings.ron",
    )
    .unwrap();
    for (variant, big) in [(Variant::Le, false), (Variant::Be, true)] {
        let data = file(big);
        let c = c.variant(if big { "Be" } else { "Le" }).unwrap();
        let root = interp::decode(c, &data).unwrap();
        let doc = compiled::decode(&data, variant).unwrap();
        assert_eq!(root.to_value(), interp::to_value(&doc).unwrap());
        // Every byte is explained: the string is read to its zero unit.
        let report = interp::coverage::coverage(c, &root, &data);
        assert_eq!(report.unexplained(), 0, "{:?}", report.gaps);
    }
}

#[test]
fn units_that_are_no_text_are_an_error_at_their_offset() {
    let mut data = file(false);
    // The second unit of "Heat" becomes a lone low surrogate.
    data[22] = 0x00;
    data[23] = 0xDC;
    let e = compiled::decode(&data, Variant::Le).unwrap_err();
    assert_eq!(e.offset(), 22);
    assert!(e.to_string().contains("unpaired surrogate 0xDC00"), "{e}");
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/wide_strings.ron"),
        "wide_strings.ron",
    )
    .unwrap();
    let c = c.variant("Le").unwrap();
    let e = interp::decode(c, &data).unwrap_err();
    assert_eq!(e.offset(), 22, "{e}");
    // A string that has no zero unit before the end of the file.
    let mut cut = file(false);
    cut.truncate(cut.len() - 2);
    assert!(compiled::decode(&cut, Variant::Le).is_err());
}

#[test]
fn the_checker_refuses_a_lossless_or_misaligned_wide_string() {
    let src = include_str!("interp_fixtures/wide_strings.ron").replace(
        "CString(encoding: Utf16)",
        "CString(encoding: Utf16, lossless: true, max: 7)",
    );
    let e = codec_schema::parse_str(&src, "w.ron")
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot be lossless"), "{e}");
    assert!(e.contains("must be a multiple of its unit, 2 bytes"), "{e}");
}
