//! AINB: the corpus round trip (`$CODEC_CORPUS/ainb`, else
//! `../shared/corpus/ainb`; the corpus tests say SKIPPED and pass when it is
//! absent), built documents, and located errors on bad input.

use codec_runtime::StringPool;
use formats::ainb::schema::{LinkPlug, Node, Plug, PlugSlot, Window};
use formats::ainb::{decode, encode, File};

mod common;

#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn corpus_decodes_and_encodes_byte_for_byte() {
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let files = common::files_with_magic(&dir, b"AIB ");
    assert!(!files.is_empty(), "no AINB file in {}", dir.display());
    let mut versions = std::collections::BTreeMap::new();
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let doc = decode(&data).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        *versions.entry(doc.version).or_insert(0) += 1;
        let out = encode(&doc).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        if out != data {
            let at = out.iter().zip(&data).position(|(a, b)| a != b);
            panic!(
                "{}: differs at {at:?} ({} vs {} bytes)",
                p.display(),
                out.len(),
                data.len()
            );
        }
    }
    println!(
        "{} AINB files identical, by version: {versions:x?}",
        files.len()
    );
}

/// Facts of the corpus the design relies on (docs/ainb-design.md).
#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn corpus_keeps_orphan_strings_and_shared_starts() {
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let mut orphans = 0;
    for p in common::files_with_magic(&dir, b"AIB ") {
        let data = std::fs::read(&p).unwrap();
        let doc = decode(&data).unwrap();
        // The pool starts with the filename, then the category.
        assert_eq!(
            doc.string_pool.strings.first(),
            Some(&doc.filename),
            "{}",
            p.display()
        );
        // Rebuilt without its pool, a file's strings come back in first-use
        // order: the same set, minus the orphans.
        let mut bare = doc.clone();
        bare.string_pool = StringPool::default();
        let again = decode(&encode(&bare).unwrap()).unwrap();
        let kept: std::collections::HashSet<_> = again.string_pool.strings.iter().collect();
        // (Other editors' offsets past the pool's end read as "", which a
        // rebuilt pool then holds.)
        let odd: Vec<_> = doc.string_pool.odd.iter().map(|(_, s)| s).collect();
        assert!(again
            .string_pool
            .strings
            .iter()
            .all(|s| doc.string_pool.strings.contains(s) || odd.contains(&s)));
        orphans += doc
            .string_pool
            .strings
            .iter()
            .filter(|s| !kept.contains(s))
            .count();
    }
    assert!(
        orphans > 0,
        "the corpus has orphan pool strings (research §4.1)"
    );
}

fn link(node: i32, name: &str) -> PlugSlot {
    PlugSlot {
        body: Plug::Link(LinkPlug {
            node,
            name: name.into(),
        }),
    }
}

fn node(ty: u16, name: &str) -> Node {
    Node::new(ty, name)
}

fn with_nodes(version: u32, nodes: Vec<Node>) -> File {
    let mut f = File::new(version, "Test", "AI");
    f.nodes = nodes;
    f
}

#[test]
fn built_document_lays_out_like_the_original_writer() {
    for version in [0x404, 0x407, 0x408] {
        let mut n = node(0, "Root");
        n.params.plugs[2].push(link(1, "Child"));
        let doc = with_nodes(version, vec![n, node(2, "Sequence")]);
        let bytes = encode(&doc).unwrap();
        // The pool is the end of the file, the filename then the category
        // first, then the strings in the order records are written.
        let pool = u32::from_le_bytes(bytes[0x24..0x28].try_into().unwrap()) as usize;
        assert_eq!(&bytes[pool..], b"Test\0AI\0Root\0Sequence\0Child\0");
        // The 0x50 word is the transition table's offset.
        assert_eq!(bytes[0x50..0x54], bytes[0x30..0x34]);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.nodes, doc.nodes);
        assert_eq!(back.version, version);
        // Decoded, the document re-encodes to the same bytes.
        assert_eq!(encode(&back).unwrap(), bytes);
        let node_size = if version == 0x404 { 0x38 } else { 0x3c };
        let bb = u32::from_le_bytes(bytes[0x20..0x24].try_into().unwrap()) as usize;
        assert_eq!(bb, 0x74 + 2 * node_size);
    }
}

/// The error's text, with its offset and field path.
fn err(data: &[u8]) -> (u64, String) {
    match decode(data) {
        Ok(_) => panic!("decoded"),
        Err(e) => (e.offset(), e.to_string()),
    }
}

#[test]
fn an_offset_outside_the_file_is_located() {
    let mut bytes = encode(&File::new(0x407, "Test", "AI")).unwrap();
    bytes[0x20..0x24].copy_from_slice(&0x00ff_ffffu32.to_le_bytes());
    let (at, text) = err(&bytes);
    assert_eq!(at, 0x20);
    assert!(text.contains("File.blackboard"), "{text}");
    assert!(text.contains("outside the file"), "{text}");
}

#[test]
fn an_unknown_node_type_is_located() {
    // The encoder refuses the type; written into the bytes instead.
    assert!(encode(&with_nodes(0x407, vec![node(0, "A"), node(999, "B")])).is_err());
    let mut bytes = encode(&with_nodes(0x407, vec![node(0, "A"), node(2, "B")])).unwrap();
    let ty = 0x74 + 0x3c;
    assert_eq!(bytes[ty..ty + 2], 2u16.to_le_bytes());
    bytes[ty..ty + 2].copy_from_slice(&999u16.to_le_bytes());
    let (at, text) = err(&bytes);
    assert_eq!(at, 0x74 + 0x3c);
    assert!(text.contains("File.nodes[1].type"), "{text}");
    assert!(text.contains("unknown node type 999"), "{text}");
}

#[test]
fn a_window_past_its_table_is_located() {
    let mut n = node(0, "A");
    n.params.properties[3] = Window { base: 1, count: 2 };
    // The encoder refuses the window; written into the bytes instead.
    assert!(encode(&with_nodes(0x407, vec![n])).is_err());
    let mut bytes = encode(&with_nodes(0x407, vec![node(0, "A")])).unwrap();
    let block = u32::from_le_bytes(bytes[0x74 + 0x14..0x74 + 0x18].try_into().unwrap()) as u64;
    let w = (block + 3 * 8) as usize;
    bytes[w..w + 8].copy_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
    let (at, text) = err(&bytes);
    assert_eq!(at, block + 3 * 8);
    assert!(text.contains("File.nodes[0].params.properties"), "{text}");
    assert!(
        text.contains("window (1, 2) runs past its table of 0"),
        "{text}"
    );
}

#[test]
fn plug_groups_that_do_not_follow_each_other_are_located() {
    let mut n = node(0, "A");
    n.params.plugs[0].push(link(0, "x"));
    n.params.plugs[2].push(link(0, "y"));
    let mut bytes = encode(&with_nodes(0x407, vec![n])).unwrap();
    let block = u32::from_le_bytes(bytes[0x74 + 0x14..0x74 + 0x18].try_into().unwrap()) as usize;
    // Group 2's base byte: (count, base) pairs after the 0x90 bytes of windows.
    let at = block + 0x90 + 2 * 2 + 1;
    assert_eq!(bytes[at], 1);
    bytes[at] = 7;
    let (off, text) = err(&bytes);
    assert_eq!(off, at as u64);
    assert!(text.contains("File.nodes[0].params.plugs[2]"), "{text}");
    assert!(text.contains("group 2 starts at element 7"), "{text}");
}

#[test]
fn an_unsupported_version_is_named() {
    let mut bytes = encode(&File::new(0x407, "Test", "AI")).unwrap();
    bytes[4] = 0x09;
    let (at, text) = err(&bytes);
    assert_eq!(at, 4);
    assert!(text.contains("unsupported AINB version 0x409"), "{text}");
    let mut doc = File::new(0x407, "Test", "AI");
    doc.version = 0x500;
    assert!(encode(&doc).unwrap_err().to_string().contains("0x500"));
}

/// Every cut fails with a located error, except cuts at a string boundary of
/// the pool: an offset to the pool's end reads as "" (other editors write
/// such offsets), so those decode.
#[test]
fn every_cut_of_a_built_file_is_a_located_error() {
    let mut n = node(1, "Selector");
    n.params.plugs[2].push(link(0, "case"));
    let bytes = encode(&with_nodes(0x407, vec![n, node(0, "Leaf")])).unwrap();
    let pool = u32::from_le_bytes(bytes[0x24..0x28].try_into().unwrap()) as usize;
    for cut in 0..bytes.len() {
        match decode(&bytes[..cut]) {
            Ok(doc) => {
                assert!(cut > pool && bytes[cut - 1] == 0, "cut {cut} decoded");
                assert!(doc.string_pool.odd.iter().all(|(_, s)| s.is_empty()));
            }
            Err(e) => {
                let text = e.to_string();
                assert!(e.offset() <= bytes.len() as u64, "cut {cut}: {text}");
                assert!(text.starts_with("at offset 0x"), "cut {cut}: {text}");
            }
        }
    }
}

#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn corpus_json_round_trip_is_byte_identical() {
    use formats::ainb::text::{from_json, to_json};
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let mut layouts = 0;
    for p in common::files_with_magic(&dir, b"AIB ") {
        let data = std::fs::read(&p).unwrap();
        let doc = decode(&data).unwrap();
        let json = to_json(&doc).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        layouts += json.matches("\"$Layout\"").count();
        let back = from_json(&json).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let out = encode(&back).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(out == data, "{}: JSON round trip differs", p.display());
    }
    // The node type, group, position and input type predict every plug's
    // layout but one (an Expression plug of 24 bytes whose input is an f32).
    assert!(layouts <= 2, "{layouts} plugs needed an explicit layout");
}

/// A document written by hand in dt-12345/AINB's shape, without `$` keys:
/// every layout fact is derived.
const HAND_WRITTEN: &str = r#"{
  "Version": 1031,
  "Filename": "Hand",
  "Category": "AI",
  "Blackboard ID": 7,
  "Parent Blackboard ID": 0,
  "Commands": [{"Name": "Start", "GUID": "858631c4-addd-44c1-9eb1-041686e846e1", "Root Node Index": 0}],
  "Nodes": [
    {
      "Node Type": "Element_S32Selector", "Node Index": 0, "Name": "Select",
      "GUID": "baca70aa-47fa-400c-a18d-006f1b487dcc", "Flags": ["Is Root Node"],
      "Queries": [1], "Attachments": [{"Name": "Att", "Properties": {"Float": [{"Name": "Scale", "Default Value": 0.5, "Flags": []}]}}],
      "Properties": {"Int": [{"Name": "Mode", "Default Value": 3, "Flags": ["Uses Default"]}]},
      "Parameters": {"Inputs": {"Int": [{"Name": "Value", "Default Value": 0, "Node Index": 1, "Output Index": 0, "Flags": []}]}, "Outputs": {}},
      "XLink Actions": [],
      "Plugs": {
        "Child": [
          {"Node Index": 1, "Name": "One", "Condition": 1},
          {"Node Index": 1, "Name": "Other", "Is Default": true}
        ],
        "Int": [{"Node Index": 1, "Name": "Value", "Unknown": 0, "Default Value": 0}]
      }
    },
    {
      "Node Type": "UserDefined", "Node Index": 1, "Name": "QueryValue",
      "GUID": "16df7431-a4bf-4d94-890a-0d5a852fa2af", "Flags": ["Is Query"],
      "Queries": [], "Attachments": [], "Properties": {},
      "Parameters": {"Inputs": {}, "Outputs": {"Int": [{"Name": "Result", "Is Output": true}]}},
      "XLink Actions": [{"Action Slot": "Main", "Action": "Wait"}],
      "Plugs": {}
    }
  ],
  "Blackboard": {"Bool": [{"Blackboard Index": 0, "Name": "Flag", "Notes": "", "Flags": 0, "Default Value": true}]},
  "Expressions": {},
  "Replacement Table": [],
  "Modules": [],
  "Unknown Section 0x58": {},
  "Has Section 0x6C": true
}"#;

#[test]
fn hand_written_json_gets_derived_layout_facts() {
    use formats::ainb::schema::Plug;
    use formats::ainb::text::{from_json, names::murmur3, to_json};
    let doc = from_json(HAND_WRITTEN).unwrap();
    let bytes = encode(&doc).unwrap();
    let back = decode(&bytes).unwrap();
    // Plug layouts from the node type and position.
    let child = &back.nodes[0].params.plugs[2];
    assert!(matches!(&child[0].body, Plug::Case(c) if c.value == 1));
    assert!(matches!(&child[1].body, Plug::Case(c) if c.value == 0));
    assert!(matches!(
        &back.nodes[0].params.plugs[5][0].body,
        Plug::Input(_)
    ));
    // Windows, counts and hashes computed.
    assert_eq!(back.query_count, 1);
    assert_eq!(back.queries.len(), 1);
    assert_eq!(back.queries[0].node, 0, "node 1 is the first query node");
    assert_eq!(back.nodes[0].name_hash, murmur3(b"Select"));
    assert_eq!(back.attachments.len(), 1);
    assert_eq!(back.attachment_ids, vec![0]);
    assert_eq!(back.attachments[0].params.properties[2].base, 0);
    assert_eq!(back.actions[0].node, 1);
    assert_eq!(back.blackboard.bool_header.count, 1);
    // The pool in first-use order: filename, category, then as written.
    let pool: Vec<&str> = back
        .string_pool
        .strings
        .iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(&pool[..3], &["Hand", "AI", "Start"]);
    // And the JSON of the result reads back to the same bytes.
    let again = encode(&from_json(&to_json(&back).unwrap()).unwrap()).unwrap();
    assert_eq!(again, bytes);
}

/// Without `$` keys, each node's attachments are entries of their own, and
/// each node's window starts where the earlier nodes' uses end: the second
/// node's attachment is its own, not the first node's. (Found by the peer
/// check `tests/peers/check.py`: two nodes read the first one's attachment.)
#[test]
fn hand_written_attachments_stay_with_their_nodes() {
    use formats::ainb::text::from_json;
    let text = HAND_WRITTEN.replace(
        r#""Queries": [], "Attachments": [], "Properties": {},"#,
        r#""Queries": [], "Attachments": [{"Name": "Other", "Properties": {"Float": [{"Name": "Speed", "Default Value": 2.0, "Flags": []}]}}], "Properties": {},"#,
    );
    assert_ne!(text, HAND_WRITTEN);
    let back = decode(&encode(&from_json(&text).unwrap()).unwrap()).unwrap();
    let names: Vec<&str> = back
        .nodes
        .iter()
        .map(|n| {
            let id = back.attachment_ids[n.attachment_base as usize];
            assert_eq!(n.attachment_count, 1);
            back.attachments[id as usize].name.as_str()
        })
        .collect();
    assert_eq!(names, ["Att", "Other"]);
    assert_eq!(back.attachment_ids, vec![0, 1]);
}

#[test]
fn json_errors_name_the_value() {
    use formats::ainb::text::from_json;
    let bad = HAND_WRITTEN.replace(r#""Default Value": 3"#, r#""Default Value": "three""#);
    let e = from_json(&bad).unwrap_err();
    assert_eq!(e.path, "Nodes[0].Properties.Int[0].Default Value");
    let bad = HAND_WRITTEN.replace("Element_S32Selector", "Element_Nope");
    let e = from_json(&bad).unwrap_err();
    assert!(
        e.to_string()
            .contains("Nodes[0].Node Type: unknown node type `Element_Nope`"),
        "{e}"
    );
    let e = from_json("{").unwrap_err();
    assert!(e.path.starts_with("line 1"), "{e}");
}

/// Where the dt-12345/AINB v2 (bc54e53) dump is known to be wrong; see
/// `golden_values_agree`.
#[derive(Debug, Default)]
struct GoldenErrors {
    /// Typed input plugs of `ModuleIF_Output_*` and `Alert` nodes are 16 bytes:
    /// dt reads them as 8-byte plugs and drops the unknown word and the
    /// default value.
    short_plugs: usize,
}

fn strip_codec(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, x)| (k.clone(), strip_codec(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_codec).collect()),
        v => v.clone(),
    }
}

/// Numbers equal as f32 (dt prints the f32 widened to a double); a bool
/// equal to 0 or 1 (dt shows some bool defaults as ints).
fn same_scalar(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Bool(x), Value::Number(n)) | (Value::Number(n), Value::Bool(x)) => {
            n.as_i64() == Some(i64::from(*x))
        }
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64().map(|f| f as f32) == y.as_f64().map(|f| f as f32),
        },
        _ => a == b,
    }
}

fn compare(
    mine: &serde_json::Value,
    gold: &serde_json::Value,
    path: &str,
    node_type: &str,
    errors: &mut GoldenErrors,
    diffs: &mut Vec<String>,
) {
    use serde_json::Value;
    match (mine, gold) {
        (Value::Object(a), Value::Object(b)) => {
            let in_plugs = path.contains(".Plugs.");
            for (k, x) in a {
                match b.get(k) {
                    Some(y) => {
                        compare(x, y, &format!("{path}.{k}"), node_type, errors, diffs);
                    }
                    None if in_plugs
                        && (node_type.starts_with("Element_ModuleIF_Output")
                            || node_type == "Element_Alert")
                        && (k == "Unknown" || k == "Default Value") =>
                    {
                        errors.short_plugs += 1;
                    }
                    None => diffs.push(format!("{path}.{k}: only here")),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                diffs.push(format!("{path}.{k}: only in the golden"));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{path}[{i}]"), node_type, errors, diffs);
            }
        }
        (a, b) if same_scalar(a, b) => {}
        (a, b) => diffs.push(format!("{path}: {a} here, {b} in the golden")),
    }
}

/// The decoded nodes, commands, blackboard, plugs and expressions agree with the
/// dt-12345/AINB v2 dumps, except where that tool is wrong (`GoldenErrors`).
#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn golden_values_agree() {
    use formats::ainb::text::to_json;
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let golden = dir.join("golden/dt-AINB-v2_bc54e53");
    if !golden.is_dir() {
        eprintln!("SKIPPED: no dt-AINB-v2 goldens in {}", golden.display());
        return;
    }
    let mut errors = GoldenErrors::default();
    let mut diffs = Vec::new();
    let mut files = 0;
    for p in common::files_with_magic(&dir, b"AIB ") {
        let name = format!("{}.json", p.file_name().unwrap().to_string_lossy());
        let Ok(text) = std::fs::read_to_string(golden.join(&name)) else {
            continue;
        };
        files += 1;
        let gold: serde_json::Value = serde_json::from_str(&text).unwrap();
        let doc = decode(&std::fs::read(&p).unwrap()).unwrap();
        let mine = strip_codec(&serde_json::from_str(&to_json(&doc).unwrap()).unwrap());
        for part in [
            "Version",
            "Filename",
            "Category",
            "Blackboard ID",
            "Parent Blackboard ID",
            "Commands",
            "Blackboard",
            "Modules",
            "Replacement Table",
            // EXB instructions as the library's disassembly text.
            "Expressions",
        ] {
            compare(
                &mine[part],
                &gold[part],
                &format!("{name}: {part}"),
                "",
                &mut errors,
                &mut diffs,
            );
        }
        let (nodes, gnodes) = (
            mine["Nodes"].as_array().unwrap(),
            gold["Nodes"].as_array().unwrap(),
        );
        assert_eq!(nodes.len(), gnodes.len(), "{name}");
        for (i, (n, g)) in nodes.iter().zip(gnodes).enumerate() {
            let ty = n["Node Type"].as_str().unwrap_or_default().to_owned();
            compare(
                n,
                g,
                &format!("{name}: Nodes[{i}]"),
                &ty,
                &mut errors,
                &mut diffs,
            );
        }
    }
    assert!(files > 100, "only {files} goldens found");
    assert!(
        diffs.is_empty(),
        "{} differences, first: {:#?}",
        diffs.len(),
        &diffs[..diffs.len().min(10)]
    );
    println!("{files} goldens agree; golden errors: {errors:?}");
    assert!(errors.short_plugs > 0);
}

/// Found by the `ainb_json` fuzz target: a JSON document whose node held an
/// attachment window past the (empty) attachment table encoded, and the
/// file it gave did not decode. The encoder now refuses a window the decoder
/// would refuse, naming the same field.
#[test]
fn a_window_past_its_table_is_refused_on_encode() {
    for version in [0x404, 0x407, 0x408] {
        let mut doc = with_nodes(version, vec![node(0, "Root")]);
        assert!(decode(&encode(&doc).unwrap()).is_ok());
        doc.nodes[0].attachment_base = 5;
        doc.nodes[0].attachment_count = 0;
        let e = encode(&doc).expect_err("a window past its table encodes");
        let text = e.to_string();
        assert!(text.contains("File.nodes[0].attachment_base"), "{text}");
        assert!(
            text.contains("window (5, 0) runs past its table of 0 element(s)"),
            "{text}"
        );
    }
}

/// An attachment's parameter block ends with six (0, end of the block)
/// pairs (`derive: RecordEnd`): an attachment appended moves the blocks
/// after it, and each block's ends follow it, in the compiled codec's
/// bytes and as the schema's interpreter reads them. They were stored
/// numbers that the edit probe found stale (issue 72).
#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn an_attachment_block_ends_where_it_is_written() {
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let path = dir.join("totk-407-159a10a6-Horablin_MakeNoise.actionseq.root.ainb");
    let data = std::fs::read(&path).unwrap();
    let mut doc = decode(&data).unwrap();
    assert!(doc.attachments.len() >= 2, "the file has attachments");
    let copy = doc.attachments[1].clone();
    doc.attachments.insert(0, copy);
    let out = encode(&doc).unwrap();
    let entry = formats::registry::FORMATS
        .iter()
        .find(|e| e.schema_file.ends_with("ainb.ron"))
        .unwrap();
    let c = codec_schema::parse_str(entry.schema_source, entry.schema_file).unwrap();
    let cv = c.variant("V407").unwrap();
    let read = codec_interp::decode_partial_with(
        cv,
        &out,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    assert!(read.error.is_none(), "{:?}", read.error);
    let read = read.root;
    let mut ends = 0;
    read.walk(&mut |n, _| {
        let last = n.path.rsplit('.').next().unwrap_or_default();
        let Some(i) = last
            .strip_prefix("end_")
            .and_then(|i| i.parse::<u64>().ok())
        else {
            return;
        };
        let codec_interp::Kind::Derived { raw, .. } = &n.kind else {
            panic!("{} is derived: {:?}", n.path, n.kind)
        };
        let block = n.offset - (0x38 + 8 * i);
        assert_eq!(*raw, block + 0x64, "{} in the block at 0x{block:x}", n.path);
        ends += 1;
    });
    assert_eq!(ends, 6 * (doc.attachments.len()), "every end read");
}

/// `check --edits` runs the edit probe on a built-in format, by the
/// interpreter with the schema the codec is generated from: every edit of
/// the corpus's AINB holds (the attachment blocks' ends among them); off
/// by default, and refused beside `--schema` (which probes already).
#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn check_edits_probes_the_built_in_format() {
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let o = common::codec(&["check".as_ref(), "--edits".as_ref(), dir.as_os_str()]);
    let out = common::stdout(&o);
    assert!(o.status.success(), "{out}{}", common::stderr(&o));
    let line = out
        .lines()
        .find(|l| l.starts_with("edits: "))
        .unwrap_or_else(|| panic!("no edits line in {out}"));
    let count = |word: &str| -> usize {
        let before = line.split(&format!(" {word}")).next().unwrap();
        before.rsplit(' ').next().unwrap().parse().unwrap()
    };
    assert!(count("tried,") >= 100, "{line}");
    assert_eq!(count("tried,"), count("held,"), "{line}");
    assert!(line.contains("by the interpreter, with the schemas the codecs are generated from"));
    let o = common::codec(&["check".as_ref(), dir.as_os_str()]);
    assert!(!common::stdout(&o).contains("edits:"));
    let o = common::codec(&[
        "check".as_ref(),
        "--edits".as_ref(),
        "--schema".as_ref(),
        "schemas/ainb.ron".as_ref(),
        dir.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
}
