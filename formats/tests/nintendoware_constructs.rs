//! The NintendoWare constructs of `codec-runtime`, held to the 15 event
//! flows and timelines of the corpus (`../shared/corpus/bfevfl/`): each
//! string pool (`STR `) laid out again from its strings, given in another
//! order, gives its bytes; each radix dictionary (`DIC `) built again from
//! its keys gives its stored tree; each relocation table (`RELT`) derived
//! again from the slots it names gives its entries. The blocks are found
//! by the file's own links (header, block chain) and, for dictionaries, by
//! their magic at 8-byte boundaries; the totals are the ones
//! `../shared/research/bfevfl.md` measured, so a dictionary missed or one
//! read where there is none fails.

mod common;

use codec_runtime::radix_dict::{self, Node};
use codec_runtime::relocations;

fn u16_at(d: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([d[at], d[at + 1]]))
}

fn u32_at(d: &[u8], at: usize) -> usize {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as usize
}

fn u64_at(d: &[u8], at: usize) -> usize {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap()) as usize
}

/// The pool entry at `at`: its bytes after the 2-byte length.
fn pool_string(d: &[u8], at: usize) -> &[u8] {
    let n = u16_at(d, at);
    &d[at + 2..at + 2 + n]
}

fn files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = common::corpus("bfevfl") else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "bfevfl" || x == "bfevtm")
        })
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert_eq!(out.len(), 15, "the corpus has 15 event flows and timelines");
    out
}

/// Where `STR ` starts: the first block (header 0x16) links to it.
fn pool_block(d: &[u8]) -> usize {
    let block = u16_at(d, 0x16);
    let at = block + u32_at(d, block + 4);
    assert_eq!(&d[at..at + 4], b"STR ");
    at
}

/// A schema whose `STR ` block is declared as the event flows hold it: a
/// header counting the strings (the empty one left out), then a sorted
/// section of 2-byte lengths, the bytes and a NUL, 2-aligned, each string
/// once, by `ReversedBits`; each name record holds a 64-bit absolute
/// offset to its string, as the event flows' records do.
const POOL_SCHEMA: &str = r#"Schema(
    name: "pool",
    endian: Little,
    root: "File",
    sections: [
        Section(name: "records", align: 8),
        Section(name: "pool", align: 2),
        Section(name: "strings", align: 2, item_align: 2, dedup: Exact, sort: ReversedBits),
    ],
    types: [
        Struct(name: "File", fields: [
            (name: "n", type: U32, derive: Count("names")),
            (name: "names", type: Ptr(width: U32, to: List(of: Named("Name"), count: Field("n")), section: "records")),
            (name: "pool", type: Ptr(width: U32, to: Named("Pool"), section: "pool")),
        ]),
        Struct(name: "Pool", fields: [
            (name: "magic", type: Magic("STR ")),
            (name: "next", type: U32),
            (name: "reserved", type: U64),
            (name: "count", type: U32, derive: SortedStrings("strings")),
        ]),
        Struct(name: "Name", fields: [
            (name: "name", type: Ptr(width: U64, to: PString(len: U16, nul: true), section: "strings")),
        ]),
    ],
)"#;

fn names_document(strings: &[Vec<u8>]) -> codec_interp::Value {
    use codec_interp::Value;
    let name = |s: &Vec<u8>| Value::Struct {
        name: "Name".into(),
        fields: vec![(
            "name".into(),
            Value::Str(String::from_utf8(s.clone()).unwrap()),
        )],
    };
    let pool = Value::Struct {
        name: "Pool".into(),
        fields: vec![
            ("next".into(), Value::U32(0)),
            ("reserved".into(), Value::U64(0)),
        ],
    };
    Value::Struct {
        name: "File".into(),
        fields: vec![
            (
                "names".into(),
                Value::Seq(strings.iter().map(name).collect()),
            ),
            ("pool".into(), pool),
        ],
    }
}

#[test]
fn every_string_pool_is_a_sorted_section_of_its_strings() {
    let schema = codec_schema::parse_str(POOL_SCHEMA, "pool.ron").unwrap();
    let plain = codec_schema::parse_str(
        &POOL_SCHEMA.replace("sort: ReversedBits", "sort: Bytes"),
        "pool.ron",
    )
    .unwrap();
    let mut total = 0;
    for (name, d) in files() {
        let at = pool_block(&d);
        let count = u32_at(&d, at + 0x10);
        // The entries as stored: the empty string, then `count` more.
        let start = at + 0x14;
        let mut strings = Vec::new();
        let mut pos = start;
        for _ in 0..=count {
            let s = pool_string(&d, pos);
            strings.push(s.to_vec());
            pos += (2 + s.len() + 1).next_multiple_of(2);
        }
        assert!(strings[0].is_empty(), "{name}: the first entry");
        // Met in byte order, twice each: the section must sort them, and
        // keep each once.
        let mut given = strings.clone();
        given.sort();
        given.extend(strings.iter().rev().cloned());
        let doc = names_document(&given);
        let out = codec_interp::encode(&schema, &doc, &codec_interp::NoHooks).unwrap();
        // The header (16), the name records (8 each), then the `STR `
        // block: its header (its count included) and its strings.
        let pool_at = 16 + 8 * given.len();
        // Nothing but padding after the last string.
        let pool = &out[pool_at..];
        let n = pos - at;
        assert!(
            pool.len() >= n && pool[n..].iter().all(|&b| b == 0),
            "{name}"
        );
        assert!(
            pool[..n] == d[at..pos],
            "{name}: the STR block laid out again differs"
        );
        // Each record's offset leads to its own string.
        let back = codec_interp::decode(&schema, &out).unwrap().to_value();
        assert_eq!(back, doc, "{name}");
        // Plain byte order would not give it (the rule is the pool's own).
        let by_bytes = codec_interp::encode(&plain, &doc, &codec_interp::NoHooks).unwrap();
        if count > 2 {
            assert_ne!(by_bytes[pool_at..pool_at + n], d[at..pos], "{name}");
        }
        total += count;
    }
    if total > 0 {
        assert_eq!(
            total,
            1541 - 15,
            "the pools' strings, the empty ones left out"
        );
    }
}

#[test]
fn every_radix_dictionary_is_the_tree_of_its_keys() {
    let (mut dicts, mut keys_seen) = (0, 0);
    for (name, d) in files() {
        for at in (0..d.len().saturating_sub(8)).step_by(8) {
            if &d[at..at + 4] != b"DIC " {
                continue;
            }
            let n = u32_at(&d, at + 4);
            let entry = |i: usize| at + 8 + 16 * i;
            let stored: Vec<Node> = (0..=n)
                .map(|i| Node {
                    bit: u32_at(&d, entry(i)) as u32,
                    child: [
                        u16_at(&d, entry(i) + 4) as u16,
                        u16_at(&d, entry(i) + 6) as u16,
                    ],
                })
                .collect();
            let keys: Vec<&[u8]> = (1..=n)
                .map(|i| pool_string(&d, u64_at(&d, entry(i) + 8)))
                .collect();
            if let Err(e) = radix_dict::check(&keys, &stored) {
                panic!("{name}: the dictionary at {at:#x}: {e}");
            }
            // The reader's walk finds each key at its own entry.
            for (i, k) in keys.iter().enumerate() {
                assert_eq!(radix_dict::find(&stored, &keys, k), Some(i + 1));
            }
            dicts += 1;
            keys_seen += n;
        }
    }
    if dicts > 0 {
        assert_eq!((dicts, keys_seen), (736, 3854));
    }
}

#[test]
fn every_relocation_table_is_derived_from_its_slots() {
    let (mut tables, mut entries_seen, mut slots_seen) = (0, 0, 0);
    for (name, d) in files() {
        let at = u32_at(&d, 0x18);
        assert_eq!(&d[at..at + 4], b"RELT", "{name}");
        let n = u32_at(&d, at + 0x24);
        let stored: Vec<relocations::Entry> = (0..n)
            .map(|i| relocations::Entry {
                base: u32_at(&d, at + 0x28 + 8 * i) as u64,
                mask: u32_at(&d, at + 0x2c + 8 * i) as u32,
            })
            .collect();
        let slots = relocations::slots(&stored);
        // Given in the file's order reversed: the derivation sorts them.
        let mut given = slots.clone();
        given.reverse();
        assert_eq!(relocations::entries(&given), stored, "{name}");
        // Every slot named is a word the file holds, 0 or an offset in it.
        for &s in &slots {
            let v = u64_at(&d, s as usize);
            assert!(v < d.len(), "{name}: slot {s:#x} holds {v:#x}");
        }
        tables += 1;
        entries_seen += n;
        slots_seen += slots.len();
    }
    if tables > 0 {
        assert_eq!((tables, entries_seen, slots_seen), (15, 923, 12153));
    }
}
