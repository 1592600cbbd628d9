//! SARC through zero-copy views (`formats::sarc::schema::view`, one module
//! per byte order): on every corpus archive and the sample, the view and
//! the decoded archive agree field for field, each file's bytes are the
//! input's own (no copy), and a view turns into the decoded value.

mod common;

use formats::sarc::schema::view;
use formats::sarc::{self, Variant};

fn archives() -> Vec<(String, Vec<u8>)> {
    let mut folders: Vec<_> = ["sarc", "yaz0"]
        .into_iter()
        .filter_map(common::corpus)
        .collect();
    folders.push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/sarc"));
    common::sarc_archives(&folders)
}

/// Each node's view turns into the decoded node, and the root's into the
/// archive.
macro_rules! owned_agree {
    ($module:ident, $data:expr, $doc:expr, $name:expr) => {{
        let source = view::$module::source($data);
        let file = view::$module::open(&source).unwrap();
        for (i, (v, n)) in file.nodes().unwrap().iter().zip(&$doc.nodes).enumerate() {
            assert_eq!(v.to_owned().unwrap(), *n, "{} node {i}", $name);
        }
        assert_eq!(file.to_owned().unwrap(), $doc, "{}", $name);
    }};
}

#[test]
fn views_agree_with_decode_on_every_archive() {
    let files = archives();
    assert!(!files.is_empty(), "the sample archive at least");
    let mut counts = (0, 0);
    for (name, data) in &files {
        let (variant, doc) = sarc::decode(data).unwrap();
        if let Err(field) = sarc::views::compare(data, &doc, variant) {
            panic!("{name}: the view and decode disagree at {field}");
        }
        let (n, bytes) = sarc::views::visit(data, variant).unwrap();
        assert_eq!(n, doc.nodes.len());
        assert_eq!(
            bytes,
            doc.nodes
                .iter()
                .map(|n| n.data.value.len() as u64)
                .sum::<u64>()
        );
        match variant {
            Variant::Little => {
                owned_agree!(little, data, doc, name);
                counts.0 += n;
            }
            Variant::Big => {
                owned_agree!(big, data, doc, name);
                counts.1 += n;
            }
        }
    }
    eprintln!(
        "views = decode on {} archives ({} files little-endian, {} big-endian)",
        files.len(),
        counts.0,
        counts.1
    );
    // Both byte orders were seen, where the corpus is here.
    if common::corpus("sarc").is_some() {
        assert!(counts.0 > 0 && counts.1 > 0, "{counts:?}");
    }
}

/// A damaged file gets decode's error through the view, at the same offset:
/// a node whose data end lies before its start, a name beyond the file, a
/// file table longer than the file.
#[test]
fn a_damaged_archive_gets_a_located_error_through_the_view() {
    let doc = sarc::Sarc::new(vec![
        sarc::Node::new("a.txt", b"hello".to_vec()),
        sarc::Node::new("b.bin", vec![1, 2, 3, 4]),
    ]);
    let good = sarc::encode(&doc, Variant::Little).unwrap();
    let node = |i: usize| 0x20 + 0x10 * i;
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    // The second node's end before its start.
    let mut bad = good.clone();
    let start = u32_at(&bad, node(1) + 8);
    bad[node(1) + 12..node(1) + 16].copy_from_slice(&(start - 1).to_le_bytes());
    let source = view::little::source(&bad);
    let file = view::little::open(&source).unwrap();
    let e = file.nodes().unwrap().get(1).unwrap().data().unwrap_err();
    let decoded = sarc::decode(&bad).unwrap_err();
    assert_eq!(e.offset(), decoded.offset(), "{e} / {decoded}");
    assert!(e.to_string().contains("lies before the start"), "{e}");
    // A name offset far beyond the file.
    let mut bad = good.clone();
    bad[node(0) + 4..node(0) + 7].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let source = view::little::source(&bad);
    let file = view::little::open(&source).unwrap();
    let e = file.nodes().unwrap().get(0).unwrap().name().unwrap_err();
    assert_eq!(e.offset(), sarc::decode(&bad).unwrap_err().offset(), "{e}");
    // More nodes than the file holds: refused when the file is opened (the
    // name table's magic lies after them), before anything is read.
    let mut bad = good;
    bad[0x1A..0x1C].copy_from_slice(&0xFFFFu16.to_le_bytes());
    let source = view::little::source(&bad);
    let e = view::little::open(&source).unwrap_err();
    assert!(e.to_string().contains("nodes"), "{e}");
}
