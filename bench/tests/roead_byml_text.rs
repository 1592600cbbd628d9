//! roead, the Rust peer, judges codec's BYML YAML on every corpus file,
//! versions 4 and 7 included (which oead, checked in tests/peers/check.py,
//! cannot read): roead reads codec's text into the document it reads from
//! the binary, and codec reads roead's text into a document that roead
//! reads back, from codec's binary, as the same.
//!
//! Run by CI: `cargo test -p bench --test roead_byml_text`.

use formats::byml::{self, text, Variant};
use roead::byml::Byml;

fn files() -> Vec<bench::CorpusFile> {
    match bench::load_byml() {
        Some(files) if !files.is_empty() => files,
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "the byml corpus is missing (needed with CI set)"
            );
            eprintln!("SKIPPED: the byml corpus is absent");
            Vec::new()
        }
    }
}

#[test]
fn roead_reads_codecs_yaml_as_the_binarys_document() {
    let files = files();
    for f in &files {
        let theirs = Byml::from_binary(&f.bytes).expect("roead reads the binary");
        let (variant, doc) = byml::decode(&f.bytes).unwrap();
        let ours = text::to_yaml(&doc, variant);
        let read = Byml::from_text(&ours)
            .unwrap_or_else(|e| panic!("{}: roead cannot read codec's text: {e}", f.name));
        assert!(read == theirs, "{}: roead reads another document", f.name);
    }
    eprintln!("roead read codec's YAML of {} files", files.len());
}

#[test]
fn codec_reads_roeads_yaml() {
    let files = files();
    for f in &files {
        let theirs = Byml::from_binary(&f.bytes).expect("roead reads the binary");
        let (variant, doc) = byml::decode(&f.bytes).unwrap();
        let big = matches!(variant, Variant::Be | Variant::V1Be);
        let (v, from_theirs) = text::from_yaml(&theirs.to_text(), Some(doc.version), Some(big))
            .unwrap_or_else(|e| panic!("{}: codec cannot read roead's text: {e}", f.name));
        assert_eq!(v, variant);
        let binary = byml::encode(&from_theirs, v).unwrap();
        let back = Byml::from_binary(&binary).expect("roead reads codec's binary");
        assert!(
            back == theirs,
            "{}: roead reads codec's binary as another document",
            f.name
        );
    }
    eprintln!("codec read roead's YAML of {} files", files.len());
}

/// A version 7 document holding maps keyed by hashes (node 0x20, which no
/// corpus file holds), nested in each other, in an array and a hash.
fn hash_map_document() -> Byml {
    let mut inner = roead::byml::HashMap::default();
    inner.insert(0x0000_0003, Byml::I32(-4));
    inner.insert(0xFFFF_FFF0, Byml::String("leaf".into()));
    inner.insert(0x8000_0000, Byml::Float(0.25));
    let mut root = roead::byml::HashMap::default();
    root.insert(0x1234_5678, Byml::HashMap(inner.clone()));
    root.insert(
        0x0000_0001,
        Byml::Array(vec![Byml::HashMap(inner), Byml::U32(7)]),
    );
    let mut named = roead::byml::Map::default();
    named.insert("Name".into(), Byml::String("map".into()));
    named.insert("Empty".into(), Byml::HashMap(Default::default()));
    root.insert(0x9ABC_DEF0, Byml::Map(named));
    root.insert(0x0000_0002, Byml::Double(2.5));
    Byml::HashMap(root)
}

/// roead writes hash-keyed maps and reads them; codec reads roead's binary
/// and roead's YAML into one document, and roead reads codec's binary and
/// codec's YAML back as the document it wrote, in both byte orders.
#[test]
fn hash_keyed_maps_pass_between_roead_and_codec() {
    let theirs = hash_map_document();
    for endian in [roead::Endian::Little, roead::Endian::Big] {
        let binary = theirs.to_binary_with_version(endian, 7);
        let (variant, ours) = byml::decode(&binary).expect("codec reads roead's version 7 binary");
        let big = matches!(variant, Variant::Be);
        assert_eq!(big, endian == roead::Endian::Big);
        let out = byml::encode(&ours, variant).unwrap();
        assert!(
            Byml::from_binary(&out).expect("roead reads codec's binary") == theirs,
            "roead reads codec's binary as another document"
        );
        let yaml = text::to_yaml(&ours, variant);
        assert!(yaml.contains("!h"), "{yaml}");
        let read = Byml::from_text(&yaml)
            .unwrap_or_else(|e| panic!("roead cannot read codec's text: {e}\n{yaml}"));
        assert!(
            read == theirs,
            "roead reads codec's text as another document:\n{yaml}"
        );
        let (v, from_theirs) = text::from_yaml(&theirs.to_text(), Some(7), Some(big))
            .unwrap_or_else(|e| panic!("codec cannot read roead's text: {e}"));
        assert_eq!(v, variant);
        assert_eq!(from_theirs, ours, "roead's text reads as another document");
        // Binary → YAML → binary: the same bytes.
        let (v, again) = text::from_yaml(&yaml, None, None).unwrap();
        assert_eq!(byml::encode(&again, v).unwrap(), out);
    }
}
