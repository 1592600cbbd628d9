//! BYML ↔ YAML in oead's dialect: every corpus file comes back byte for
//! byte through our text; oead's own `.yml` files read into the same
//! documents as the binaries, and give the original bytes where the file
//! placed each hash's children in key order; the dialect's shapes (tags,
//! flow style, quoting, folding) and its errors.

mod common;

use formats::byml::schema::AlignedBinary;
use formats::byml::{self, text, Array, Container, Entry, Hash, Header, Node, Variant};

fn corpus_files(ext: &str) -> Vec<std::path::PathBuf> {
    let Some(folder) = common::corpus("byml") else {
        return Vec::new();
    };
    common::paths_with_ext(&folder, ext)
}

#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml or $CODEC_CORPUS), absent here"
)]
fn binary_to_yaml_to_binary_is_identical_on_every_corpus_file() {
    let paths = corpus_files("byml");
    assert_eq!(paths.len(), 8, "the corpus holds 8 BYML files");
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let (variant, doc) = byml::decode(&data).unwrap();
        let yaml = text::to_yaml(&doc, variant);
        let (variant2, back) = text::from_yaml(&yaml, None, None)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(variant2, variant, "{}", path.display());
        assert!(back == doc, "{}: the document changed", path.display());
        let out = byml::encode(&back, variant).unwrap();
        assert!(out == data, "{}: the bytes changed", path.display());
    }
}

/// oead's `.yml` beside a binary reads into the same document; written with
/// the binary's version and byte order it gives the original bytes exactly
/// where the file placed every hash's children in key order (the two files
/// the research names); elsewhere the text does not hold the order and
/// only the content matches.
#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml or $CODEC_CORPUS), absent here"
)]
fn oeads_yaml_reads_into_the_binarys_document() {
    let mut identical = Vec::new();
    let mut checked = 0;
    for yml in corpus_files("yml") {
        let bin = yml.with_extension("byml");
        if !bin.exists() {
            continue;
        }
        checked += 1;
        let data = std::fs::read(&bin).unwrap();
        let (variant, doc) = byml::decode(&data).unwrap();
        let text = std::fs::read_to_string(&yml).unwrap();
        let big = matches!(variant, Variant::Be | Variant::V1Be);
        let (v, from_text) = text::from_yaml(&text, Some(doc.version), Some(big))
            .unwrap_or_else(|e| panic!("{}: {e}", yml.display()));
        assert_eq!(v, variant);
        assert!(
            common::byml_in_key_order(&from_text) == common::byml_in_key_order(&doc),
            "{}: oead's text reads into another document",
            yml.display()
        );
        if byml::encode(&from_text, variant).unwrap() == data {
            identical.push(yml.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(
        checked, 6,
        "six corpus .yml files have a binary beside them"
    );
    assert_eq!(
        identical,
        [
            "ElectricGenerator.Nin_NX_NVN.esetb.yml",
            "MainFieldLocation.yml"
        ]
    );
}

/// oead's test file with a 32,256-byte blob in a block literal reads, and
/// the blob survives a binary round trip.
#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml or $CODEC_CORPUS), absent here"
)]
fn oeads_binary_test_file_reads() {
    let Some(folder) = common::corpus("byml") else {
        return;
    };
    let text = std::fs::read_to_string(folder.join("binary.yml")).unwrap();
    let (variant, doc) = text::from_yaml(&text, Some(2), Some(false)).unwrap();
    let Some(Container::Hash(root)) = &doc.root else {
        panic!("a hash at the root")
    };
    let Node::Hash(inner) = &root.entries[0].value else {
        panic!("a hash inside")
    };
    let Node::Binary(blob) = &inner.entries[0].value else {
        panic!("a blob")
    };
    assert_eq!(blob.len(), 32256);
    assert_eq!(blob.iter().filter(|&&b| b != 0).count(), 519);
    let bytes = byml::encode(&doc, variant).unwrap();
    let (_, again) = byml::decode(&bytes).unwrap();
    assert!(again.root == doc.root);
}

fn doc(root: Container) -> Header {
    Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(root),
    }
}

fn entry(key: &str, value: Node) -> Entry {
    Entry {
        key: key.into(),
        value,
    }
}

fn body(yaml: &str) -> &str {
    yaml.split_once('\n').unwrap().1
}

/// Every node type with its tag, flow style for short leaf containers,
/// block style for the rest (sequences under a key not indented, as
/// libyaml writes them), keys in the document's order.
#[test]
fn the_dialects_shapes() {
    let d = doc(Container::Hash(Hash {
        entries: vec![
            entry("z", Node::Int(-3)),
            entry("Float", Node::Float(0.1)),
            entry("U", Node::UInt(42)),
            entry("L", Node::Int64(-5_000_000_000)),
            entry("UL", Node::UInt64(u64::MAX)),
            entry("D", Node::Double(0.1)),
            entry("B", Node::Bool(true)),
            entry("N", Node::Null(())),
            entry("S", Node::String("plain text".into())),
            entry("Q", Node::String("123".into())),
            entry("Bin", Node::Binary(vec![1, 2, 3].into())),
            entry(
                "File",
                Node::File(AlignedBinary {
                    alignment: 0x1000,
                    data: vec![0xFF].into(),
                }),
            ),
            entry(
                "File16",
                Node::File(AlignedBinary {
                    alignment: 16,
                    data: Default::default(),
                }),
            ),
            entry(
                "Pos",
                Node::Array(Array {
                    items: vec![Node::Float(1.0), Node::Float(-0.0), Node::Float(2.5)].into(),
                }),
            ),
            entry("Empty", Node::Hash(Hash { entries: vec![] })),
            entry(
                "List",
                Node::Array(Array {
                    items: vec![
                        Node::Hash(Hash {
                            entries: vec![entry("a", Node::String("x,y".into()))],
                        }),
                        Node::Array(Array {
                            items: vec![Node::Array(Array {
                                items: vec![].into(),
                            })]
                            .into(),
                        }),
                    ]
                    .into(),
                }),
            ),
        ],
    }));
    let yaml = text::to_yaml(&d, Variant::Le);
    assert_eq!(
        yaml,
        "# BYML version 2, little-endian\n\
         z: -3\n\
         Float: 0.100000001\n\
         U: !u 0x0000002a\n\
         L: !l -5000000000\n\
         UL: !ul 18446744073709551615\n\
         D: !f64 0.1\n\
         B: true\n\
         N: null\n\
         S: plain text\n\
         Q: '123'\n\
         Bin: !!binary AQID\n\
         File: !!file /w==\n\
         File16: !file/16 ''\n\
         Pos: [1.0, -0.0, 2.5]\n\
         Empty: {}\n\
         List:\n\
         - {a: 'x,y'}\n\
         - - []\n"
    );
    let (variant, back) = text::from_yaml(&yaml, None, None).unwrap();
    assert_eq!(variant, Variant::Le);
    assert!(back == d, "the text reads back into the same document");
    let a = byml::encode(&d, Variant::Le).unwrap();
    let b = byml::encode(&back, Variant::Le).unwrap();
    assert_eq!(a, b);
}

/// Floats come back to the same bits: NaNs with payloads too.
#[test]
fn floats_read_back_to_the_same_bits() {
    let floats = [
        0.1f32,
        -0.0,
        f32::MIN_POSITIVE,
        f32::MAX,
        1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7FC0_0000),
        f32::from_bits(0x7FC0_1234),
    ];
    let doubles = [
        0.1f64,
        -0.0,
        1e300,
        5e-324,
        f64::from_bits(0x7FF8_0000_0000_0000),
        f64::from_bits(0x7FF0_0000_0000_0001),
    ];
    let items = floats
        .iter()
        .map(|&f| Node::Float(f))
        .chain(doubles.iter().map(|&d| Node::Double(d)))
        .collect();
    let d = doc(Container::Array(Array { items }));
    let yaml = text::to_yaml(&d, Variant::Be);
    assert!(yaml.contains("!f32 0x7fc01234"), "{yaml}");
    let (variant, back) = text::from_yaml(&yaml, None, None).unwrap();
    assert_eq!(variant, Variant::Be);
    let Some(Container::Array(a)) = &back.root else {
        panic!()
    };
    for (i, n) in a.items.iter().enumerate() {
        match &*n {
            Node::Float(f) => assert_eq!(f.to_bits(), floats[i].to_bits(), "item {i}"),
            Node::Double(d) => {
                assert_eq!(d.to_bits(), doubles[i - floats.len()].to_bits(), "item {i}")
            }
            other => panic!("item {i}: {other:?}"),
        }
    }
}

/// A flow collection longer than the line continues on the next line,
/// indented one level deeper than its parent (libyaml's width 120).
#[test]
fn long_flow_collections_fold_at_the_line_width() {
    let d = doc(Container::Hash(Hash {
        entries: vec![entry(
            "Params",
            Node::Hash(Hash {
                entries: (0..10)
                    .map(|i| entry(&format!("LongParameterName{i}"), Node::Int(i)))
                    .collect(),
            }),
        )],
    }));
    let yaml = text::to_yaml(&d, Variant::Le);
    let lines: Vec<&str> = body(&yaml).lines().collect();
    assert!(lines.len() > 1, "{yaml}");
    assert!(lines[0].starts_with("Params: {LongParameterName0: 0,"));
    assert!(lines[0].chars().count() > 120 && lines[0].chars().count() < 150);
    assert!(lines[1].starts_with("  LongParameterName"), "{yaml}");
    let (_, back) = text::from_yaml(&yaml, None, None).unwrap();
    assert!(back == d);
}

/// The version and byte order: from the first line, or from the caller
/// (who wins), and an error naming what is missing when neither says.
#[test]
fn version_and_byte_order_come_from_the_text_or_the_caller() {
    let text = "a: 1\n";
    let e = text::from_yaml(text, None, Some(false)).unwrap_err();
    assert!(e.message.contains("version"), "{e}");
    let e = text::from_yaml(text, Some(2), None).unwrap_err();
    assert!(e.message.contains("byte order"), "{e}");
    let (v, d) = text::from_yaml(text, Some(7), Some(true)).unwrap();
    assert_eq!((v, d.version), (Variant::Be, 7));
    let (v, d) = text::from_yaml(text, Some(1), Some(false)).unwrap();
    assert_eq!((v, d.version), (Variant::V1Le, 1));
    let said = "# BYML version 4, big-endian\na: 1\n";
    let (v, d) = text::from_yaml(said, None, None).unwrap();
    assert_eq!((v, d.version), (Variant::Be, 4));
    let (v, d) = text::from_yaml(said, Some(3), Some(false)).unwrap();
    assert_eq!((v, d.version), (Variant::Le, 3));
    assert!(text::from_yaml(text, Some(8), Some(false)).is_err());
    let (_, empty) = text::from_yaml("null\n", Some(2), Some(false)).unwrap();
    assert!(empty.root.is_none());
    assert_eq!(
        text::to_yaml(&empty, Variant::Le),
        "# BYML version 2, little-endian\nnull\n"
    );
}

/// Values outside their type, unknown tags, bad base64, repeated keys and
/// a scalar root are errors with their line and column.
#[test]
fn bad_text_gets_a_located_error() {
    let cases = [
        ("a: 1\nb: 3000000000\n", 2, 4, "out of range for an s32"),
        ("a: !u -1\n", 1, 4, "out of range for a u32"),
        (
            "a: !l 9223372036854775808\n",
            1,
            4,
            "out of range for an s64",
        ),
        ("a: !vec3 [1, 2, 3]\n", 1, 4, "unknown container tag !vec3"),
        ("a: !str64 x\n", 1, 4, "unknown tag !str64"),
        ("a: !!binary '@@@'\n", 1, 4, "invalid base64"),
        ("a: 1\nb: 2\na: 3\n", 3, 1, "`a` appears twice"),
        ("just a string\n", 1, 1, "expected the root"),
        ("a: 1e39\n", 1, 4, "out of range for an f32"),
        ("a: [1, 2\n", 2, 1, "invalid YAML"),
        ("a: *x\n", 1, 4, "anchor"),
        ("a: !h {1: 2, 1: 3}\n", 1, 14, "`1` appears twice"),
        ("a: !h {x: 2}\n", 1, 8, "a u32 key hash"),
        (
            "a: !h {4294967296: 1}\n",
            1,
            8,
            "out of range for a u32 key hash",
        ),
        ("a: !h {[1]: 1}\n", 1, 8, "expected a key (a 32-bit hash"),
        ("a: !vh {1: 2}\n", 1, 4, "node 0x21 is not supported"),
    ];
    for (text, line, column, what) in cases {
        let e = text::from_yaml(text, Some(2), Some(false))
            .map(|_| ())
            .expect_err(text);
        assert!(e.message.contains(what), "{text:?}: {e}");
        assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
    }
}

/// Deep nesting is refused, not a stack overflow.
#[test]
fn deep_nesting_is_an_error() {
    let text = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
    let e = text::from_yaml(&text, Some(2), Some(false)).unwrap_err();
    assert!(
        e.message.contains("nested deeper") || e.message.contains("recursion limit"),
        "{e}"
    );
}

/// The deepest text the reader takes is one that decode reads back from
/// its binary (the text limit counts levels as decode does: one per array,
/// two per hash), and one level more is refused with a located error.
#[test]
fn the_deepest_text_read_comes_back_from_its_binary() {
    // Debug builds recurse with large frames: a thread with room for them.
    let run = || {
        let arrays = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
        let hashes = |d: usize| format!("{}1{}", "{a: ".repeat(d), "}".repeat(d));
        let mixed = |d: usize| format!("{}1{}", "{a: [".repeat(d), "]}".repeat(d));
        let maps = |d: usize| format!("{}1{}", "!h {7: ".repeat(d), "}".repeat(d));
        for nested in [&arrays as &dyn Fn(usize) -> String, &hashes, &mixed, &maps] {
            let mut deepest = 0;
            for d in 1..1000 {
                match text::from_yaml(&nested(d), Some(2), Some(false)) {
                    Ok(_) => deepest = d,
                    Err(e) => {
                        // Ours, or the YAML parser's own limit, whichever first.
                        assert!(
                            e.message.contains("nested deeper")
                                || e.message.contains("recursion limit"),
                            "{e}"
                        );
                        break;
                    }
                }
            }
            assert!(
                deepest >= 64,
                "real files nest a few levels; {deepest} is too few"
            );
            let (variant, doc) = text::from_yaml(&nested(deepest), Some(2), Some(false)).unwrap();
            let bytes = byml::encode(&doc, variant).unwrap();
            let (_, back) = byml::decode(&bytes).expect("the deepest text's binary decodes");
            assert!(back.root == doc.root);
        }
    };
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

/// Strings that begin with an indicator character and then one that
/// could start or end a flow collection (`-,`, `?]`, `:{` ...) come back
/// as themselves, as keys and values, in block and in flow style.
#[test]
fn strings_that_start_like_indicators_read_back() {
    let firsts = [
        "-", "?", ":", "#", "!", "&", "*", "|", ">", "%", "@", "`", "'", "\"", "~", "=", "<",
    ];
    let seconds = [
        "", ",", "[", "]", "{", "}", "-", "?", ":", "#", " ", "a", " -", "x:", ", a", "] b",
    ];
    let mut strings = Vec::new();
    for f in firsts {
        for s in seconds {
            strings.push(format!("{f}{s}"));
        }
    }
    strings.extend(
        [
            "- ", "-,x", "a -", "a, b", "a ]", "{a}", "[a]", "a #b", "a: b", "--- x", "... x",
            "a -b", "a - b", "a  -", "a\t-", "a -x", "a ?", "a :", "a -,", "a,-",
        ]
        .map(String::from),
    );
    let mut failures = Vec::new();
    for s in &strings {
        // A short leaf array is written in flow style, a hash with a nested
        // container in block style; the string is a key and a value in both.
        let flow = Node::Array(Array {
            items: vec![Node::String(s.as_str().into())].into(),
        });
        let d = doc(Container::Hash(Hash {
            entries: vec![
                entry(s, Node::String(s.as_str().into())),
                entry("flow", flow),
                entry(
                    "nested",
                    Node::Hash(Hash {
                        entries: vec![entry(s, Node::Int(1))],
                    }),
                ),
            ],
        }));
        let yaml = text::to_yaml(&d, Variant::Le);
        match text::from_yaml(&yaml, None, None) {
            Ok((_, back)) if back.root == d.root => {}
            Ok(_) => failures.push(format!("{s:?}: reads back differently:\n{yaml}")),
            Err(e) => failures.push(format!("{s:?}: {e}:\n{yaml}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        strings.len(),
        failures.join("\n")
    );
}

/// libyaml, and so oead, writes the string `a -` plain inside a flow
/// collection (`[a -]`). saphyr-parser refuses that; the fast YAML reader
/// reads it as YAML 1.2 and libyaml do, so oead's text reads.
#[test]
fn oeads_dash_ending_strings_in_flow_collections_read() {
    let yaml = "k: [a -, b -  ]\nm: {x: c -}\n";
    let (_, doc) = text::from_yaml(yaml, Some(2), Some(false)).expect("oead's text reads");
    let Some(Container::Hash(h)) = &doc.root else {
        panic!("a hash at the root");
    };
    let Node::Array(a) = &h.entries[0].value else {
        panic!("k is an array");
    };
    assert_eq!(
        a.items,
        vec![Node::String("a -".into()), Node::String("b -".into())].into()
    );
    let Node::Hash(m) = &h.entries[1].value else {
        panic!("m is a hash");
    };
    assert_eq!(m.entries[0].value, Node::String("c -".into()));
}
