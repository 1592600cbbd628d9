//! BYML from `schemas/byml.ron`: every corpus document comes back byte for
//! byte (shared subtrees, placement order, both string tables, aligned
//! blobs, 64-bit values); documents built in code are laid out the way
//! Nintendo's writer lays them out; bad input gets a located error.

mod common;

use formats::byml::schema::{HashMap, HashMapEntry};
use formats::byml::{self, Array, Container, Entry, Hash, Header, Node, Variant};

fn corpus_documents() -> Vec<(String, Vec<u8>)> {
    let Some(folder) = common::corpus("byml") else {
        return Vec::new();
    };
    common::files_with_ext(&folder, "byml")
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

fn hash(entries: Vec<(&str, Node)>) -> Hash {
    Hash {
        entries: entries
            .into_iter()
            .map(|(k, v)| Entry {
                key: k.into(),
                value: v,
            })
            .collect(),
    }
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A document built in code: keys and strings land in sorted tables, hash
/// entries are written in key order, equal subtrees are written once, a
/// 64-bit value is written per reference and before the containers.
#[test]
fn new_documents_are_laid_out_like_nintendos_writer() {
    let point = || Node::Hash(hash(vec![("Y", Node::Float(1.0)), ("X", Node::Float(0.0))]));
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(hash(vec![
            ("b", point()),
            ("a", point()),
            ("id", Node::UInt64(7)),
            ("id2", Node::UInt64(7)),
            ("name", Node::String("x".into())),
        ]))),
    };
    let out = byml::encode(&doc, Variant::Le).unwrap();
    assert_eq!(&out[..4], b"YB\x07\x00");
    // Key table at 0x10: a, b, id, id2, name, X, Y sorted by bytes (upper case first).
    let keys = le_u32(&out, 4) as usize;
    assert_eq!(out[keys], 0xC2);
    assert_eq!(
        u32::from_le_bytes([out[keys + 1], out[keys + 2], out[keys + 3], 0]),
        7
    );
    let first = keys + le_u32(&out, keys + 4) as usize;
    assert_eq!(&out[first..first + 2], b"X\0");
    // The two u64 values come before the root, one copy per reference.
    let root = le_u32(&out, 12) as usize;
    let (v1, v2) = (root - 16, root - 8);
    assert_eq!(le_u32(&out, v1), 7);
    assert_eq!(le_u32(&out, v2), 7);
    // Root entries in key order: a, b, id, id2, name; a and b share one hash.
    assert_eq!(out[root], 0xC1);
    let word = |i: usize| le_u32(&out, root + 4 + 8 * i + 4) as usize;
    assert_eq!(word(0), word(1), "equal subtrees are written once");
    assert_eq!(
        word(0),
        root + 4 + 8 * 5,
        "the shared hash follows its first holder"
    );
    assert_eq!((word(2), word(3)), (v1, v2));
    let (_, back) = byml::decode(&out).unwrap();
    // Decode gives the document back; the equal subtrees are two values again.
    let Some(Container::Hash(h)) = &back.root else {
        panic!("root is a hash")
    };
    let keys: Vec<&str> = h.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["a", "b", "id", "id2", "name"]);
    // A hash of inline values has no placement order: it reads back in key order.
    let sorted = Node::Hash(hash(vec![("X", Node::Float(0.0)), ("Y", Node::Float(1.0))]));
    assert_eq!(h.entries[0].value, sorted);
    assert_eq!(h.entries[1].value, sorted);
}

/// A hash whose children were placed out of key order keeps that order in
/// the document, so the file is written back the same way.
#[test]
fn placement_order_of_a_hash_survives_a_round_trip() {
    let leaf = |x: i32| {
        Node::Array(Array {
            items: vec![Node::Int(x)].into(),
        })
    };
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(hash(vec![("z", leaf(1)), ("a", leaf(2))]))),
    };
    let out = byml::encode(&doc, Variant::Be).unwrap();
    assert_eq!(&out[..2], b"BY");
    let (v, back) = byml::decode(&out).unwrap();
    assert_eq!(v, Variant::Be);
    assert_eq!(back.root, doc.root, "z stays first: it was placed first");
    assert_eq!(byml::encode(&back, v).unwrap(), out);
}

#[test]
fn bad_input_gets_a_located_error() {
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![Node::String("s".into())].into(),
        })),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    // A string index past the end of the table.
    let mut bad = good.clone();
    let root = le_u32(&bad, 12) as usize;
    bad[root + 8..root + 12].copy_from_slice(&9u32.to_le_bytes());
    let e = byml::decode(&bad).unwrap_err().to_string();
    assert!(
        e.contains("string index 9") && e.contains("items[0]"),
        "{e}"
    );
    // A container that points at itself.
    let mut cyc = good.clone();
    cyc[root + 4] = 0xC0;
    cyc[root + 8..root + 12].copy_from_slice(&(root as u32).to_le_bytes());
    let e = byml::decode(&cyc).unwrap_err().to_string();
    assert!(e.contains("cycl") || e.contains("cycle"), "{e}");
    // A count of 0xFFFFFF elements is refused before anything is allocated.
    let mut big = good;
    big[root + 1..root + 4].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let e = byml::decode(&big).unwrap_err().to_string();
    assert!(e.contains("0x"), "{e}");
    // Not a BYML file.
    assert!(byml::decode(b"YB\x09\x00").is_err());
}

/// Whether the writer shares equal containers is kept in the document
/// (`shares_equal`, from the schema's `SharesEqual`): TotK's `.bgyml`
/// writer stores equal containers apart, its `.bcett` writer and BotW's
/// share them, and each file comes back as its writer laid it out.
#[test]
fn equal_containers_are_shared_or_kept_apart_as_the_file_had_them() {
    let xyz = || {
        Node::Hash(hash(vec![
            ("X", Node::Float(0.0)),
            ("Y", Node::Float(0.0)),
            ("Z", Node::Float(0.0)),
        ]))
    };
    let doc = |shares_equal: bool| Header {
        version: 7,
        path_table: 0,
        shares_equal,
        root: Some(Container::Array(Array {
            items: vec![xyz(), xyz(), Node::Int(1), xyz()].into(),
        })),
    };
    // Apart: three copies of the 28-byte hash, each where it is met.
    let apart = byml::encode(&doc(false), Variant::Le).unwrap();
    let shared = byml::encode(&doc(true), Variant::Le).unwrap();
    assert_eq!(apart.len(), shared.len() + 2 * 28);
    let root = le_u32(&apart, 12) as usize;
    let words: Vec<u32> = (0..4).map(|i| le_u32(&apart, root + 8 + 4 * i)).collect();
    let first = root + 8 + 16;
    assert_eq!(
        [words[0], words[1], words[3]],
        [first as u32, first as u32 + 28, first as u32 + 56]
    );
    // Shared: one copy, three offsets to it.
    let root = le_u32(&shared, 12) as usize;
    let words: Vec<u32> = (0..4).map(|i| le_u32(&shared, root + 8 + 4 * i)).collect();
    assert_eq!([words[0], words[1], words[3]], [words[0]; 3]);
    // Decode finds the writer's choice, and each comes back byte for byte.
    for (bytes, shares) in [(&apart, false), (&shared, true)] {
        let (v, back) = byml::decode(bytes).unwrap();
        assert_eq!(back, doc(shares));
        assert_eq!(&byml::encode(&back, v).unwrap(), bytes);
    }
    // A file with no equal containers says nothing of its writer: it reads
    // as not sharing, and is written back the same either way.
    let plain = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![xyz(), Node::Int(1)].into(),
        })),
    };
    let bytes = byml::encode(&plain, Variant::Le).unwrap();
    let (v, back) = byml::decode(&bytes).unwrap();
    assert!(!back.shares_equal);
    assert_eq!(byml::encode(&back, v).unwrap(), bytes);
}

/// A binary node read by `decode_shared` is a range of the input (no
/// copy), equal to `decode`'s, and written back byte for byte; so is a
/// node with an alignment (0xA2). Writing to it copies it out first.
#[test]
fn shared_decode_reads_blobs_without_a_copy() {
    let doc = Header {
        version: 4,
        path_table: 0,
        shares_equal: false,
        root: Some(Container::Array(Array {
            items: vec![
                Node::Binary((0..200u8).collect::<Vec<u8>>().into()),
                Node::File(byml::schema::AlignedBinary {
                    alignment: 0x20,
                    data: vec![7u8; 33].into(),
                }),
            ]
            .into(),
        })),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let input = std::sync::Arc::new(bytes.clone());
    let (v, mut shared) = byml::decode_shared(&input).unwrap();
    assert_eq!(shared, doc);
    assert_eq!(byml::encode(&shared, v).unwrap(), bytes);
    let Some(Container::Array(a)) = &mut shared.root else {
        panic!("an array root")
    };
    let mut items = a.items.to_vec();
    let range = input.as_ptr_range();
    for n in &items {
        let b = match n {
            Node::Binary(b) => b,
            Node::File(f) => &f.data,
            other => panic!("not a blob: {other:?}"),
        };
        assert!(
            b.is_shared() && range.contains(&b.as_ptr()),
            "a range of the input"
        );
    }
    let Node::Binary(b) = &mut items[0] else {
        panic!("a binary node")
    };
    b[0] = 0xEE;
    assert!(!b.is_shared());
    assert_eq!(*input, bytes, "the input is not written");
    let (_, copied) = byml::decode(&bytes).unwrap();
    let Some(Container::Array(c)) = &copied.root else {
        panic!("an array root")
    };
    assert!(matches!(&*c.items.get(0).unwrap(), Node::Binary(b) if !b.is_shared()));

    // The limits given are the limits kept: a depth of 1 stops at the
    // root's array, as it does for a decode from a slice.
    let tight = codec_runtime::Limits {
        max_depth: 1,
        ..Default::default()
    };
    let from_slice = byml::schema::decode_with(&bytes, v, tight).unwrap_err();
    let shared_err = byml::schema::decode_shared_with(&input, v, tight).unwrap_err();
    assert_eq!(shared_err.to_string(), from_slice.to_string());
    assert!(byml::schema::decode_shared_with(&input, v, Default::default()).is_ok());
}

/// Containers holding equal blobs are equal, and shared; a blob of the same
/// length but other bytes is not. (The encoder's first pass knows blobs by
/// their length and copies none; two of one length make it look again,
/// comparing bytes.) The interpreter writes the same bytes.
#[test]
fn containers_holding_equal_blobs_are_shared_and_others_are_not() {
    let x: Vec<u8> = (0..100u8).collect();
    let mut y = x.clone();
    y[99] = 0;
    let holder = |b: &Vec<u8>| {
        Node::Array(Array {
            items: vec![Node::Binary(b.clone().into()), Node::Int(7)].into(),
        })
    };
    let doc = Header {
        version: 4,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![holder(&x), holder(&x), holder(&y)].into(),
        })),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let count = |b: &[u8]| bytes.windows(b.len()).filter(|w| *w == b).count();
    assert_eq!((count(&x), count(&y)), (1, 1), "each blob written once");
    let root = le_u32(&bytes, 12) as usize;
    let words: Vec<u32> = (0..3).map(|i| le_u32(&bytes, root + 8 + 4 * i)).collect();
    assert_eq!(words[0], words[1], "the two equal holders are one");
    assert_ne!(words[0], words[2]);
    let (v, back) = byml::decode(&bytes).unwrap();
    assert_eq!(back, doc);
    assert_eq!(byml::encode(&back, v).unwrap(), bytes);
    // One blob alone of its length: nothing to compare, the same bytes.
    let single = Header {
        root: Some(Container::Array(Array {
            items: vec![holder(&x), Node::Int(1)].into(),
        })),
        ..doc.clone()
    };
    let one = byml::encode(&single, Variant::Le).unwrap();
    let (v, back) = byml::decode(&one).unwrap();
    assert_eq!(back.root, single.root);
    assert_eq!(byml::encode(&back, v).unwrap(), one);
    // The interpreter, through the same runtime, writes the same bytes.
    let c = codec_schema::parse_str(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron").unwrap();
    let c = c.variant("Le").unwrap();
    let g = codec_interp::decode(c, &bytes).unwrap().to_value();
    let glue = formats::interp_hooks::Glue;
    assert_eq!(codec_interp::encode(c, &g, &glue).unwrap(), bytes);
}

/// The run-time interpreter (`dump`, `coverage`) reads what the codec
/// reads: a file without string values (the header's offset to them is 0)
/// and the writer's sharing, on files that share and files that do not.
#[test]
fn the_interpreter_reads_the_sharing_and_an_absent_string_table() {
    let c = codec_schema::parse_str(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron")
        .expect("the BYML schema checks");
    let leaf = || Node::Hash(hash(vec![("a", Node::Int(1))]));
    for shares_equal in [false, true] {
        let doc = Header {
            version: 7,
            path_table: 0,
            shares_equal,
            root: Some(Container::Hash(hash(vec![("p", leaf()), ("q", leaf())]))),
        };
        let bytes = byml::encode(&doc, Variant::Le).unwrap();
        assert_eq!(le_u32(&bytes, 8), 0, "no string-value table");
        let (variant, back) = byml::decode(&bytes).unwrap();
        assert_eq!(back.shares_equal, shares_equal);
        let d = codec_interp::decode_partial_with(
            c.variant(variant.name()).unwrap(),
            &bytes,
            codec_runtime::Limits::default(),
            &formats::interp_hooks::Glue,
        );
        assert!(d.error.is_none(), "{:?}", d.error);
        let compiled = codec_interp::to_value(&back).unwrap();
        assert_eq!(d.root.to_value(), compiled);
    }
}

/// Files that decode but could not come back: a hash holding one key twice
/// (its YAML could not hold it) or its keys out of order (its document
/// order would read back differently), a key table holding one string
/// twice (two indices for one key) or out of order, an aligned blob whose
/// stored alignment is larger than the file (encode would pad by
/// gigabytes). Each is a located error, from the codec and the interpreter
/// alike; so is a file that is not BYML.
#[test]
fn files_that_could_not_come_back_are_refused_where_they_go_wrong() {
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(hash(vec![
            ("a", Node::Int(1)),
            ("b", Node::Int(2)),
            (
                "c",
                Node::File(formats::byml::schema::AlignedBinary {
                    alignment: 0x10,
                    data: vec![1, 2, 3].into(),
                }),
            ),
        ]))),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&good, 12) as usize;
    // Entry 1 names key 0 ("a") again.
    let mut dup_key = good.clone();
    dup_key[root + 4 + 8..root + 4 + 8 + 3].copy_from_slice(&[0, 0, 0]);
    let compiled = refused(&dup_key);
    assert!(
        compiled.contains(&format!(
            "at offset 0x{:x}, Header.root::Hash.entries[1].key",
            root + 12
        )) && compiled.contains("key index 0 is held twice"),
        "{compiled}"
    );
    // The key table holds "a" twice (the second string was "b").
    let mut dup_string = good.clone();
    let keys = le_u32(&good, 4) as usize;
    let second = keys + le_u32(&good, keys + 8) as usize;
    assert_eq!(dup_string[second], b'b');
    dup_string[second] = b'a';
    let compiled = refused(&dup_string);
    assert!(
        compiled.contains("Header.hash_keys.strings[1]")
            && compiled.contains("the string \"a\" is held twice"),
        "{compiled}"
    );
    // Keys out of order: entry 1 names "c", entry 2 "b".
    let mut swapped = good.clone();
    swapped[root + 4 + 8..root + 4 + 8 + 3].copy_from_slice(&[2, 0, 0]);
    swapped[root + 4 + 16..root + 4 + 16 + 3].copy_from_slice(&[1, 0, 0]);
    let compiled = refused(&swapped);
    assert!(
        compiled.contains("Header.root::Hash.entries[2].key: key index 1 follows key index 2"),
        "{compiled}"
    );
    // The key table out of order: "a", "z", "c".
    let mut unsorted = good.clone();
    unsorted[second] = b'z';
    let compiled = refused(&unsorted);
    assert!(
        compiled.contains("Header.hash_keys.strings[2]: the string \"c\" follows \"z\""),
        "{compiled}"
    );
    // The blob's stored alignment says 2 GiB.
    let mut huge = good.clone();
    let blob = le_u32(&good, root + 4 + 16 + 4) as usize;
    assert_eq!(le_u32(&good, blob + 4), 0x10);
    huge[blob + 4..blob + 8].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let compiled = refused(&huge);
    assert!(
        compiled.contains(&format!("at offset 0x{:x}", blob + 4))
            && compiled.contains(
                "File.alignment: a stored alignment of 2147483648 bytes is larger than the file"
            ),
        "{compiled}"
    );
    // Not BYML at all: the magic is named.
    let e = byml::decode(b"YZ\x02\x00").unwrap_err().to_string();
    assert!(
        e.starts_with("at offset 0x0, Header.magic: expected the magic"),
        "{e}"
    );
}

/// A container's type byte and count are read as one record when the file
/// holds all four bytes; a wrong type byte, and a file that ends inside
/// them, are still refused at the field, as the interpreter refuses them.
#[test]
fn a_container_header_cut_or_wrong_is_refused_at_its_field() {
    let inner = Node::Array(Array {
        items: vec![Node::Int(7), Node::Int(8)].into(),
    });
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(hash(vec![("a", inner)]))),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&good, 12) as usize;
    let child = le_u32(&good, root + 8) as usize;
    assert_eq!(good[child], 0xC0, "the child array");
    assert!(byml::decode(&good).is_ok());
    // The child's type byte says 0xC3.
    let mut wrong = good.clone();
    wrong[child] = 0xC3;
    let e = refused(&wrong);
    assert!(
        e.contains(&format!("at offset 0x{child:x}")) && e.contains("entries[0].value::Array"),
        "{e}"
    );
    // The file ends inside the child's count, then just after its type byte.
    for end in [child + 3, child + 1] {
        let e = refused(&good[..end]);
        assert!(
            e.contains("entries[0].value::Array.count")
                && e.contains(&format!("0x{:x}", child + 1)),
            "cut at {end}: {e}"
        );
    }
}

/// The error the codec gives for a file it must refuse, after checking
/// that the interpreter (little-endian variant) gives the same one.
fn refused(bytes: &[u8]) -> String {
    let c = codec_schema::parse_str(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron")
        .expect("the BYML schema checks");
    let compiled = byml::decode(bytes).unwrap_err().to_string();
    let d = codec_interp::decode_partial_with(
        c.variant("Le").unwrap(),
        bytes,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    let interpreted = d.error.expect("the interpreter refuses it too").to_string();
    assert_eq!(
        compiled, interpreted,
        "the codec and the interpreter differ"
    );
    compiled
}

/// Node 0x21 (the peers disagree on its entries: roead reads a value, a
/// 32-bit hash and a word, BymlLibrary a 64-bit hash and a value; no file
/// settles it) is refused where its type byte lies, by name and with the
/// reason (a `reserved` tag of the schema), by the codec and the
/// interpreter alike, rather than read as something else.
#[test]
fn a_node_type_not_read_yet_is_refused_at_its_type_byte() {
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![Node::Int(5), Node::UInt(6)].into(),
        })),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&good, 12) as usize;
    assert_eq!(good[root..root + 4], [0xC0, 2, 0, 0]);
    let tag = 0x21u8;
    let mut bad = good.clone();
    bad[root + 5] = tag;
    let compiled = refused(&bad);
    assert!(
        compiled.contains(&format!("at offset 0x{:x}", root + 5))
            && compiled.contains("items[1]")
            && compiled.contains("tag 33 (0x21) is Node's ValueHashMap, which is not read")
            && compiled.contains("no known file settles it"),
        "{compiled}"
    );
    // A tag no source names stays an unknown tag.
    bad[root + 5] = 0x42;
    let compiled = refused(&bad);
    assert!(
        compiled.contains("tag 66 (0x42) names no variant of Node"),
        "{compiled}"
    );
}

fn map(entries: Vec<(u32, Node)>) -> HashMap {
    HashMap {
        entries: entries
            .into_iter()
            .map(|(hash, value)| HashMapEntry { hash, value })
            .collect(),
    }
}

/// A version 7 map keyed by 32-bit hashes (node 0x20), laid out as roead
/// and BymlLibrary both read and write it: `count` entries of (hash,
/// value word) sorted by hash, then the `count` node types, padded to 4.
/// The bytes below are written out by hand from that layout; the document
/// lists its entries out of hash order, which the writer sorts.
#[test]
fn a_hash_keyed_map_is_written_sorted_with_its_types_after_the_entries() {
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::HashMap(map(vec![
            (0x30, Node::Int(5)),
            (0x10, Node::String("a".into())),
            (
                0x20,
                Node::Array(Array {
                    items: vec![Node::Bool(true)].into(),
                }),
            ),
        ]))),
    };
    let mut want: Vec<u8> = Vec::new();
    // Header: no key table, the string table at 0x10, the root at 0x20.
    want.extend(b"YB\x07\x00");
    want.extend(0u32.to_le_bytes());
    want.extend(0x10u32.to_le_bytes());
    want.extend(0x20u32.to_le_bytes());
    // The string-value table: one string, offsets from the table's start.
    want.extend([0xC2, 1, 0, 0]);
    want.extend(12u32.to_le_bytes());
    want.extend(14u32.to_le_bytes());
    want.extend(b"a\0\0\0");
    // The map at 0x20: entries by hash, then the types, padded to 4.
    want.extend([0x20, 3, 0, 0]);
    want.extend(0x10u32.to_le_bytes());
    want.extend(0u32.to_le_bytes());
    want.extend(0x20u32.to_le_bytes());
    want.extend(0x40u32.to_le_bytes());
    want.extend(0x30u32.to_le_bytes());
    want.extend(5u32.to_le_bytes());
    want.extend([0xA0, 0xC0, 0xD1, 0]);
    // Its array child at 0x40.
    want.extend([0xC0, 1, 0, 0, 0xD0, 0, 0, 0]);
    want.extend(1u32.to_le_bytes());
    let out = byml::encode(&doc, Variant::Le).unwrap();
    assert_eq!(out, want);
    // Decode keeps the file's (sorted) order; the rest is the document.
    let (variant, back) = byml::decode(&out).unwrap();
    assert_eq!(variant, Variant::Le);
    let Some(Container::HashMap(m)) = &back.root else {
        panic!("the root is a hash map: {back:?}");
    };
    let hashes: Vec<u32> = m.entries.iter().map(|e| e.hash).collect();
    assert_eq!(hashes, [0x10, 0x20, 0x30]);
    assert_eq!(m.entries[0].value, Node::String("a".into()));
    assert_eq!(m.entries[2].value, Node::Int(5));
    assert_eq!(byml::encode(&back, Variant::Le).unwrap(), want);
    // Big-endian: the same layout, every number the other way round.
    let be = byml::encode(&doc, Variant::Be).unwrap();
    assert_eq!(&be[..4], b"BY\x00\x07");
    assert_eq!(be[0x20..0x24], [0x20, 0, 0, 3]);
    assert_eq!(be[0x24..0x28], 0x10u32.to_be_bytes());
    assert_eq!(be[0x3C..0x40], [0xA0, 0xC0, 0xD1, 0]);
    assert_eq!(byml::decode(&be).unwrap().1, back);
}

/// Maps inside maps inside arrays: each element takes the tag its own
/// map holds for it, however deep, in the codec and the interpreter alike;
/// equal maps are written once.
#[test]
fn nested_hash_maps_read_their_own_types() {
    let inner = |x: i32| {
        Node::HashMap(map(vec![
            (7, Node::Float(1.5)),
            (3, Node::Int(x)),
            (9, Node::HashMap(map(vec![(1, Node::UInt(x as u32))]))),
        ]))
    };
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![inner(1), inner(2), inner(1), Node::Null(())].into(),
        })),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let (_, back) = byml::decode(&bytes).unwrap();
    // The entries come back sorted by hash, their values with them.
    let Some(Container::Array(a)) = &back.root else {
        panic!("{back:?}")
    };
    for (item, x) in a.items.iter().zip([1, 2, 1]) {
        let Node::HashMap(m) = &*item else {
            panic!("{item:?}")
        };
        let got: Vec<(u32, &Node)> = m.entries.iter().map(|e| (e.hash, &e.value)).collect();
        assert_eq!(got[0], (3, &Node::Int(x)));
        assert_eq!(got[1], (7, &Node::Float(1.5)));
        assert!(matches!(got[2], (9, Node::HashMap(_))));
    }
    assert_eq!(byml::encode(&back, Variant::Le).unwrap(), bytes);
    // Equal subtrees once: the third item points where the first does.
    let root = le_u32(&bytes, 12) as usize;
    let word = |i: usize| le_u32(&bytes, root + 8 + 4 * i);
    assert_eq!(word(0), word(2));
    assert_ne!(word(0), word(1));
    // The interpreter reads the same document.
    let c = codec_schema::parse_str(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron").unwrap();
    let d = codec_interp::decode_partial_with(
        c.variant("Le").unwrap(),
        &bytes,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    assert!(d.error.is_none(), "{:?}", d.error);
    assert_eq!(d.root.to_value(), codec_interp::to_value(&back).unwrap());
}

/// A map whose types run past the end of the file, or whose element is
/// read outside a map, is refused with the offset and the field.
#[test]
fn a_hash_map_cut_short_is_refused_at_its_types() {
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::HashMap(map(vec![
            (1, Node::Int(1)),
            (2, Node::Int(2)),
        ]))),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&bytes, 12) as usize;
    // Cut inside the types: the entries are there, their types are not.
    let cut = &bytes[..root + 4 + 16 + 1];
    let e = refused(cut);
    eprintln!("{e}");
    assert!(e.contains("types") && e.contains("HashMap"), "{e}");
    // A count far beyond the file: refused before anything is allocated.
    let mut big = bytes.clone();
    big[root + 1..root + 4].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let e = refused(&big);
    eprintln!("{e}");
    assert!(
        e.contains("entries") && e.contains(&format!("0x{:x}", root + 4)),
        "{e}"
    );
}

/// A map's children are placed in hash order, the order its entries are
/// written (as roead and BymlLibrary place them), whatever order the
/// document lists them in; so decode then encode is a fixed point.
/// (Found by the `byml_round_trip` fuzz target: children were placed in
/// the document's order, which decode cannot recover.)
#[test]
fn a_hash_maps_children_are_placed_in_hash_order() {
    let leaf = |x: i32| {
        Node::Array(Array {
            items: vec![Node::Int(x)].into(),
        })
    };
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::HashMap(map(vec![
            (0x30, leaf(3)),
            (0x10, leaf(1)),
            (0x20, leaf(2)),
        ]))),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&bytes, 12) as usize;
    let targets: Vec<u32> = (0..3).map(|i| le_u32(&bytes, root + 8 + 8 * i)).collect();
    assert!(
        targets[0] < targets[1] && targets[1] < targets[2],
        "children placed in hash order: {targets:x?}"
    );
    let (variant, back) = byml::decode(&bytes).unwrap();
    assert_eq!(byml::encode(&back, variant).unwrap(), bytes);
}

/// A map whose hashes do not ascend, or repeat, is refused where the
/// offending hash lies, by the codec and the interpreter alike: the game
/// looks hashes up by halves, and encode would write them in another order
/// (its YAML could not hold a repeated key at all). Found by the
/// `byml_round_trip` fuzz target.
#[test]
fn a_hash_map_whose_hashes_do_not_ascend_is_refused() {
    let doc = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::HashMap(map(vec![
            (5, Node::Int(1)),
            (9, Node::Int(2)),
        ]))),
    };
    let good = byml::encode(&doc, Variant::Le).unwrap();
    let root = le_u32(&good, 12) as usize;
    for (second, what) in [
        (5u32, "key 5 is held twice in a row"),
        (3, "key 3 follows key 5"),
    ] {
        let mut bad = good.clone();
        bad[root + 12..root + 16].copy_from_slice(&second.to_le_bytes());
        let e = refused(&bad);
        assert!(
            e.contains(what)
                && e.contains(&format!("at offset 0x{:x}", root + 12))
                && e.contains("entries[1].hash"),
            "{e}"
        );
    }
}

/// A document holding one key twice in a hash, or one hash twice in a map,
/// is refused on encode, naming the list and the elements: the file would
/// be one that decode refuses.
#[test]
fn a_key_held_twice_is_refused_on_encode() {
    let twice_in_map = Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::HashMap(map(vec![
            (9, Node::Int(1)),
            (4, Node::Int(2)),
            (9, Node::Int(3)),
        ]))),
    };
    let e = byml::encode(&twice_in_map, Variant::Le)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("HashMap.entries") && e.contains("elements 0 and 2 have the same key"),
        "{e}"
    );
    let twice_in_hash = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(hash(vec![
            ("a", Node::Int(1)),
            ("a", Node::Int(2)),
        ]))),
    };
    let e = byml::encode(&twice_in_hash, Variant::Le)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Hash.entries") && e.contains("elements 0 and 1 have the same key"),
        "{e}"
    );
}

/// Documents of many small hashes over few keys, nested, with equal
/// subtrees shared and many hashes of one length but other keys: each
/// hash's keys are taken from what its shape noted, so a key given to the
/// wrong hash would come back as another key (or out of order, which
/// decode refuses). Every hash reads back with its own keys and values.
#[test]
fn every_hash_is_written_with_its_own_keys() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    const KEYS: [&str; 6] = ["a", "b", "c", "Name", "Translate", "zz"];
    fn build(depth: u32, next: &mut impl FnMut(u64) -> u64) -> Node {
        if depth == 0 || next(4) == 0 {
            return match next(3) {
                0 => Node::Int(next(3) as i32),
                1 => Node::String(KEYS[next(6) as usize].into()),
                _ => Node::Float(next(2) as f32),
            };
        }
        if next(4) == 0 {
            let n = next(4) as usize;
            return Node::Array(Array {
                items: (0..n).map(|_| build(depth - 1, next)).collect(),
            });
        }
        // Two or three distinct keys out of six, in any order.
        let n = 2 + next(2) as usize;
        let start = next(6) as usize;
        let step = 1 + next(5) as usize;
        let mut keys: Vec<&str> = (0..n).map(|i| KEYS[(start + i * step) % 6]).collect();
        keys.dedup();
        keys.sort_unstable();
        keys.dedup();
        if next(2) == 0 {
            keys.reverse();
        }
        Node::Hash(hash(
            keys.into_iter()
                .map(|k| (k, build(depth - 1, next)))
                .collect(),
        ))
    }
    for round in 0..40 {
        let Node::Hash(root) = build(6, &mut next) else {
            continue;
        };
        let doc = Header {
            version: 2,
            path_table: 0,
            shares_equal: round % 2 == 0,
            root: Some(Container::Hash(root)),
        };
        let out = byml::encode(&doc, Variant::Le).unwrap();
        let (_, back) = byml::decode(&out).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(
            common::byml_in_key_order(&back) == common::byml_in_key_order(&doc),
            "round {round}: the document changed"
        );
        assert_eq!(
            byml::encode(&back, Variant::Le).unwrap(),
            out,
            "round {round}"
        );
    }
}

/// Arrays of up to four numbers, booleans or nulls are held inline; others
/// on the heap. Either way the document is the same and comes back byte
/// for byte, and a bad leaf in a short array is refused with its place, as
/// when every element was read one by one.
#[test]
fn short_arrays_of_leaves_are_inline_and_read_as_before() {
    let arr = |items: Vec<Node>| {
        Node::Array(Array {
            items: items.into(),
        })
    };
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: false,
        root: Some(Container::Array(Array {
            items: vec![
                arr(vec![
                    Node::Bool(true),
                    Node::Int(-7),
                    Node::Float(1.5),
                    Node::Null(()),
                ]),
                arr((0..5).map(Node::UInt).collect()),
                arr(vec![Node::Float(2.0), Node::String("s".into())]),
                arr(vec![]),
            ]
            .into(),
        })),
    };
    let bytes = byml::encode(&doc, Variant::Le).unwrap();
    let (_, back) = byml::decode(&bytes).unwrap();
    assert_eq!(back, doc);
    assert_eq!(byml::encode(&back, Variant::Le).unwrap(), bytes);
    let Some(Container::Array(root)) = &back.root else {
        panic!("{back:?}")
    };
    let forms: Vec<bool> = root
        .items
        .heap_items()
        .iter()
        .map(|n| match n {
            Node::Array(a) => a.items.is_inline(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(forms, [true, false, false, true]);

    // The first small array's words follow its 4 type bytes; its Bool
    // word set to 2 and its Null word set to 1 are each refused, by the
    // element's index.
    let root_at = le_u32(&bytes, 12) as usize;
    let first = le_u32(&bytes, root_at + 8) as usize; // the root's first word
    assert_eq!(bytes[first], 0xC0);
    for (i, word) in [(0usize, 2u32), (3, 1)] {
        let mut bad = bytes.clone();
        let at = first + 8 + 4 * i;
        bad[at..at + 4].copy_from_slice(&word.to_le_bytes());
        let e = byml::decode(&bad).unwrap_err().to_string();
        assert!(e.contains(&format!("items[{i}]")), "{e}");
        assert!(
            e.contains(&format!("0x{at:x}")) || e.contains(&at.to_string()),
            "{e}"
        );
    }
}

/// A node is a tag and 24 bytes, as it was when blobs were `Vec<u8>`: the
/// blob's spare values hold the tag (a 40-byte node, as a first `Blob`
/// made it, cost the corpus's decode 6 % in copies of entries).
#[test]
fn a_node_is_32_bytes_and_an_entry_56() {
    assert_eq!(std::mem::size_of::<Node>(), 32);
    assert_eq!(std::mem::size_of::<Entry>(), 56);
}
