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
