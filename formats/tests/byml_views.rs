//! BYML through zero-copy views (`formats::byml::schema::view`, one module
//! per variant): on every corpus document, the sample and documents built
//! in code with every node type in all four variants, the views and the
//! decoded document agree node for node; a view turns into the decoded
//! value; damaged files get decode's error through the views, and a cycle
//! ends in an error rather than a hang.

mod common;

use codec_runtime::ErrorKind;
use formats::byml::schema::view;
use formats::byml::schema::AlignedBinary;
use formats::byml::{
    self, Array, Container, Entry, Hash, HashMap, HashMapEntry, Header, Node, Variant,
};

fn documents() -> Vec<(String, Vec<u8>)> {
    let mut folders =
        vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/byml")];
    folders.extend(common::corpus("byml"));
    folders
        .iter()
        .flat_map(|f| common::files_with_ext(f, "byml"))
        .collect()
}

fn hash(entries: Vec<(&str, Node)>) -> Node {
    Node::Hash(Hash {
        entries: entries
            .into_iter()
            .map(|(k, v)| Entry {
                key: k.into(),
                value: v,
            })
            .collect(),
    })
}

/// Every node type, nested, with a shared subtree and a hash-keyed map.
fn every_node(version: u16) -> Header {
    let leaf = hash(vec![("X", Node::Float(1.5)), ("Y", Node::Int(-3))]);
    let mut items = vec![
        Node::String("text".into()),
        Node::Binary(vec![1, 2, 3, 4, 5].into()),
        Node::File(AlignedBinary {
            alignment: 0x10,
            data: vec![9; 7].into(),
        }),
        Node::Bool(true),
        Node::Int(-7),
        Node::Float(0.25),
        Node::UInt(0xDEAD_BEEF),
        Node::Int64(-1 << 40),
        Node::UInt64(1 << 50),
        Node::Double(std::f64::consts::PI),
        Node::Null(()),
        leaf.clone(),
        leaf,
        Node::Array(Array {
            items: vec![].into(),
        }),
    ];
    if version >= 7 {
        items.push(Node::HashMap(HashMap {
            entries: vec![
                HashMapEntry {
                    hash: 0x10,
                    value: Node::String("first".into()),
                },
                HashMapEntry {
                    hash: 0x20,
                    value: hash(vec![("inner", Node::Bool(false))]),
                },
            ],
        }));
    }
    Header {
        version,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(Hash {
            entries: vec![
                Entry {
                    key: "list".into(),
                    value: Node::Array(Array {
                        items: items.into(),
                    }),
                },
                Entry {
                    key: "name".into(),
                    value: Node::String("text".into()),
                },
            ],
        })),
    }
}

/// Nodes a walk visits: the root and every value below it.
fn count(doc: &Header) -> u64 {
    fn node(n: &Node) -> u64 {
        1 + match n {
            Node::Array(a) => a.items.iter().map(|n| node(&n)).sum(),
            Node::Hash(h) => h.entries.iter().map(|e| node(&e.value)).sum(),
            Node::HashMap(m) => m.entries.iter().map(|e| node(&e.value)).sum(),
            _ => 0,
        }
    }
    match &doc.root {
        None => 0,
        Some(Container::Array(a)) => 1 + a.items.iter().map(|n| node(&n)).sum::<u64>(),
        Some(Container::Hash(h)) => 1 + h.entries.iter().map(|e| node(&e.value)).sum::<u64>(),
        Some(Container::HashMap(m)) => 1 + m.entries.iter().map(|e| node(&e.value)).sum::<u64>(),
    }
}

fn agree(name: &str, data: &[u8]) -> Variant {
    let (variant, doc) = byml::decode(data).unwrap();
    if let Err(at) = byml::views::compare(data, &doc, variant) {
        panic!("{name} ({variant:?}): the views and decode disagree at {at}");
    }
    let tally = byml::views::visit(data, variant).unwrap();
    assert_eq!(tally.nodes, count(&doc), "{name}");
    variant
}

#[test]
fn views_agree_with_decode_on_every_document() {
    let docs = documents();
    assert!(!docs.is_empty(), "the sample at least");
    let mut versions = std::collections::BTreeSet::new();
    for (name, data) in &docs {
        agree(name, data);
        versions.insert(u16::from_le_bytes([data[2], data[3]]));
    }
    eprintln!(
        "views = decode on {} documents, versions {versions:?}",
        docs.len()
    );
    if common::corpus("byml").is_some() {
        assert_eq!(docs.len(), 9, "8 corpus files and the sample");
    }
}

#[test]
fn every_node_type_reads_alike_in_every_variant() {
    for (variant, version) in [
        (Variant::Le, 7),
        (Variant::Be, 7),
        (Variant::Le, 4),
        (Variant::Be, 3),
        (Variant::V1Le, 1),
        (Variant::V1Be, 1),
    ] {
        let doc = every_node(version);
        let data = byml::encode(&doc, variant).unwrap();
        assert_eq!(agree(&format!("{variant:?} v{version}"), &data), variant);
    }
}

#[test]
fn a_view_turns_into_the_decoded_value() {
    let doc = every_node(7);
    let data = byml::encode(&doc, Variant::Le).unwrap();
    let source = view::le::source(&data);
    let file = view::le::open(&source).unwrap();
    assert_eq!(file.to_owned().unwrap(), doc);
    let Some(view::le::ContainerView::Hash(root)) = file.root().unwrap() else {
        panic!("a hash at the root");
    };
    let Some(Container::Hash(owned_root)) = &doc.root else {
        unreachable!()
    };
    assert_eq!(root.to_owned().unwrap(), *owned_root);
    // The root as the union it is (a peek union: told apart by its first
    // byte) turns into the owned container too.
    let container = file.root().unwrap().unwrap();
    assert_eq!(container.at(), root.at());
    assert_eq!(container.to_owned().unwrap(), *doc.root.as_ref().unwrap());
    // An entry deep inside: its key and value come from the tables the
    // opening noted.
    let list = root.entries().unwrap().get(0).unwrap();
    assert_eq!(list.key().unwrap(), "list");
    let view::le::NodeView::Array(items) = list.value().unwrap() else {
        panic!("an array");
    };
    let items = items.items().unwrap();
    assert_eq!(items.len(), 15);
    assert_eq!(items.tag(0), Some(0xA0));
    let view::le::NodeView::HashMap(m) = items.get(14).unwrap().unwrap() else {
        panic!("a hash-keyed map last");
    };
    let second = m.entries().unwrap().get(1).unwrap();
    assert_eq!(second.hash(), 0x20);
    assert_eq!(
        second.to_owned().unwrap(),
        HashMapEntry {
            hash: 0x20,
            // Alone, a record's held tag is not known: its owned value is
            // read with the tag given by the list, as the view reads it.
            value: second_value(&doc),
        }
    );
}

fn second_value(doc: &Header) -> Node {
    let Some(Container::Hash(h)) = &doc.root else {
        unreachable!()
    };
    let Node::Array(a) = &h.entries[0].value else {
        unreachable!()
    };
    let Some(Node::HashMap(m)) = a.items.get(14).map(|n| n.into_owned()) else {
        unreachable!()
    };
    m.entries[1].value.clone()
}

fn le_u32(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// Decode's error and the views' for the same damaged file: the same kind
/// at the same offset.
fn same_error(data: &[u8]) -> codec_runtime::DecodeError {
    let decoded = byml::decode(data).unwrap_err();
    let viewed = byml::views::visit(data, Variant::Le).unwrap_err();
    assert_eq!(
        viewed.kind(),
        decoded.kind(),
        "views: {viewed}\ndecode: {decoded}"
    );
    assert_eq!(
        viewed.offset(),
        decoded.offset(),
        "views: {viewed}\ndecode: {decoded}"
    );
    viewed
}

#[test]
fn a_damaged_document_gets_decodes_error_through_the_views() {
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![Node::String("s".into()), Node::Int64(5)].into(),
        })),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&good, 12);
    // A string index past the end of the table.
    let mut bad = good.clone();
    bad[root + 8..root + 12].copy_from_slice(&9u32.to_le_bytes());
    let e = same_error(&bad);
    assert!(e.to_string().contains("string index 9"), "{e}");
    // A type byte no version defines.
    let mut bad = good.clone();
    bad[root + 4] = 0x77;
    same_error(&bad);
    // A 64-bit value behind an offset past the end.
    let mut bad = good.clone();
    bad[root + 12..root + 16].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes());
    same_error(&bad);
    // A count of 0xFFFFFF items: refused before anything is read.
    let mut bad = good.clone();
    bad[root + 1..root + 4].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let e = same_error(&bad);
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }), "{e}");
    // A string table whose first offset leads out of the file: decode
    // refuses it when it reads the tables, the views when the string is
    // read, at the same offset.
    let mut bad = good.clone();
    let strings = le_u32(&bad, 8);
    bad[strings + 4..strings + 8].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let source = view::le::source(&bad);
    assert!(
        view::le::open(&source).is_ok(),
        "opening reads the tables' headers only"
    );
    same_error(&bad);
}

#[test]
fn a_cycle_ends_in_an_error_not_a_hang() {
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![Node::Array(Array {
                items: vec![Node::Int(1)].into(),
            })]
            .into(),
        })),
    };
    let mut data = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&data, 12);
    // The inner array's word now leads back to the root array.
    data[root + 8..root + 12].copy_from_slice(&(root as u32).to_le_bytes());
    assert!(byml::decode(&data).is_err());
    let e = byml::views::visit(&data, Variant::Le).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::TooDeep { .. } | ErrorKind::BudgetExhausted { .. }
        ),
        "{e}"
    );
}
