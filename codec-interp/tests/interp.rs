//! The interpreter against a codec compiled from the same schema, on a
//! fixture that uses every construct (big endian): bitfields, inline
//! structs and nested arrays, long byte arrays, every integer width, floats
//! with odd bits, strings with `max` and `pad`, count-prefixed and
//! count-before lists, a recursive tree behind record-relative offsets, a
//! union behind a scaled offset, and root-only derived fields.
//!
//! The files are written by the compiled encoder; the interpreter must give
//! the same value (through serde, floats by bits) and, on damaged copies,
//! the same error text (offset, field path, message).

use codec_interp::{self as interp, coverage, render, to_value, Kind};
use codec_schema::Checked;

mod constructs {
    codec_derive::schema!("tests/interp_fixtures/constructs.ron", serde);
}

use constructs::{Node, Pair, Root, RootFlags, Value};

fn checked() -> Checked {
    codec_schema::parse_str(constructs::SCHEMA_SOURCE, "constructs.ron").expect("fixture checks")
}

fn leaf(id: u32) -> Node {
    Node {
        id,
        children: Vec::new(),
        unk_pad: 0,
    }
}

fn root(value: Value) -> Root {
    Root {
        flags: RootFlags {
            enabled: true,
            level: 0x55,
            index: 0xBEEF,
            unknown_bits: 0x12,
        },
        pair: Pair { x: -0.0, y: -7 },
        small: [1, 2, 0xFFFF],
        flag: true,
        delta: -3,
        wide: 0xAB_CDEF,
        big: i64::MIN + 5,
        ratio: f64::from_bits(0x7ff8_dead_beef_0001),
        blob: std::array::from_fn(|i| i as u8 * 3),
        title: "constructs".into(),
        bytes: vec![9, 8, 7].into(),
        tree: Node {
            id: 1,
            children: vec![
                Node {
                    id: 2,
                    children: vec![leaf(4)],
                    unk_pad: 0xAA,
                },
                leaf(3),
            ],
            unk_pad: 0,
        },
        value,
        grid: [[1, -1], [i16::MAX, i16::MIN]],
        pairs: [
            Pair { x: 1.5, y: 2 },
            Pair {
                x: f32::INFINITY,
                y: -2,
            },
        ],
        count32: false,
        small_signed: -300,
        wide_unsigned: u64::MAX,
    }
}

fn values() -> Vec<Value> {
    vec![
        Value::Int(-5),
        Value::Ints(vec![1, -2, 3]),
        Value::Ints(Vec::new()),
        Value::Raw(Box::new(std::array::from_fn(|i| 200 - i as u8))),
        Value::Text("hello".into()),
        Value::Pairs([Pair { x: 0.25, y: 1 }, Pair { x: f32::NAN, y: 0 }]),
        Value::Halves(vec![0x1234, 0xFFFF]),
    ]
}

fn files() -> Vec<Vec<u8>> {
    values()
        .into_iter()
        .map(|v| {
            let r = root(v);
            let bytes = constructs::encode(&r).expect("encodes");
            // The fixture itself round-trips, or the comparison means little.
            let back = constructs::decode(&bytes).expect("decodes");
            // (NaN != NaN for `==`; the serde form compares floats by bits.)
            assert_eq!(to_value(&back).unwrap(), to_value(&r).unwrap());
            assert_eq!(constructs::encode(&back).unwrap(), bytes);
            bytes
        })
        .collect()
}

fn compiled(data: &[u8]) -> Result<interp::Value, String> {
    constructs::decode(data)
        .map(|v| to_value(&v).expect("serializes"))
        .map_err(|e| e.to_string())
}

fn interpreted(c: &Checked, data: &[u8]) -> Result<interp::Value, String> {
    interp::decode(c, data)
        .map(|n| n.to_value())
        .map_err(|e| e.to_string())
}

fn agree(c: &Checked, data: &[u8], what: &str) {
    let (a, b) = (compiled(data), interpreted(c, data));
    if let (Ok(x), Ok(y)) = (&a, &b) {
        if let Some(d) = x.first_difference(y) {
            panic!("{what}: values differ at {d}");
        }
    }
    assert_eq!(a, b, "{what}");
}

#[test]
fn interpreter_equals_codec_on_every_construct() {
    let c = checked();
    for (i, f) in files().iter().enumerate() {
        let node = interp::decode(&c, f).expect("interprets");
        let typed = constructs::decode(f).unwrap();
        assert_eq!(to_value(&typed).unwrap(), node.to_value(), "file {i}");
    }
}

#[test]
fn the_value_has_the_generated_shape() {
    let c = checked();
    let f = &files()[0];
    let v = interp::decode(&c, f).unwrap().to_value();
    let interp::Value::Struct { name, fields } = &v else {
        panic!("{v:?}")
    };
    assert_eq!(name, "Root");
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    // Magic and derived fields are not part of the value.
    assert_eq!(
        names,
        [
            "flags",
            "pair",
            "small",
            "flag",
            "delta",
            "wide",
            "big",
            "ratio",
            "blob",
            "title",
            "bytes",
            "tree",
            "value",
            "grid",
            "pairs",
            "count32",
            "small_signed",
            "wide_unsigned"
        ]
    );
    let flags = &fields[0].1;
    assert_eq!(
        flags,
        &interp::Value::Struct {
            name: "RootFlags".into(),
            fields: vec![
                ("enabled".into(), interp::Value::Bool(true)),
                ("level".into(), interp::Value::U8(0x55)),
                ("index".into(), interp::Value::U16(0xBEEF)),
                ("unknown_bits".into(), interp::Value::U8(0x12)),
            ]
        }
    );
    // -0.0 is kept, and compared by its bits.
    let interp::Value::Struct { fields: pair, .. } = &fields[1].1 else {
        panic!()
    };
    assert_eq!(pair[0].1, interp::Value::F32(-0.0));
    assert_ne!(pair[0].1, interp::Value::F32(0.0));
}

#[test]
fn damaged_files_fail_alike() {
    let c = checked();
    let mut cases = 0;
    for (i, f) in files().iter().enumerate() {
        for cut in 0..f.len() {
            agree(&c, &f[..cut], &format!("file {i} cut at {cut}"));
            cases += 1;
        }
        for pos in 0..f.len() {
            for v in [0x00, 0xff, f[pos].wrapping_add(1), f[pos] ^ 0x80, 0x02] {
                let mut d = f.clone();
                d[pos] = v;
                agree(&c, &d, &format!("file {i}: byte 0x{pos:x} = 0x{v:02x}"));
                cases += 1;
            }
        }
    }
    assert!(cases > 2000, "{cases}");
}

#[test]
fn a_partial_tree_ends_where_the_error_is() {
    let c = checked();
    let f = &files()[1];
    for cut in [0, 3, 9, 0x20, f.len() / 2, f.len() - 1] {
        let d = interp::decode_partial(&c, &f[..cut], codec_runtime::Limits::default());
        let e = d.error.expect("a cut file fails");
        assert_eq!(Err(e.to_string()), compiled(&f[..cut]));
        assert_eq!(d.root.name, "Root");
        // Nothing in the partial tree lies beyond the cut.
        d.root.walk(&mut |n, _| {
            assert!(
                n.offset + n.size <= cut as u64,
                "{} at 0x{:x}",
                n.path,
                n.offset
            )
        });
    }
}

#[test]
fn coverage_explains_every_byte_and_counts_unknown_fields() {
    let c = checked();
    for (i, f) in files().iter().enumerate() {
        let node = interp::decode(&c, f).unwrap();
        let cov = coverage::coverage(&c, &node, f);
        assert_eq!(cov.gaps, vec![], "file {i}");
        // `unk_pad` of the four nodes.
        assert_eq!(cov.unknown, 8, "file {i}");
        assert_eq!(cov.known + cov.padding + cov.unknown, cov.len, "file {i}");
    }
}

#[test]
fn coverage_finds_bytes_no_field_reads() {
    let c = checked();
    let mut f = files()[0].clone();
    // Eight bytes that nothing points at, before the end padding moves
    // them: append them and fix the stated size.
    f.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    let len = f.len() as u32;
    f[4..8].copy_from_slice(&len.to_be_bytes());
    let node = interp::decode(&c, &f).unwrap();
    let cov = coverage::coverage(&c, &node, &f);
    assert_eq!(cov.gaps.len(), 1, "{:?}", cov.gaps);
    let g = &cov.gaps[0];
    assert_eq!((g.offset, g.len), (len as u64 - 8, 8));
    assert_eq!(g.preview, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(render::coverage_text("x", &cov)
        .contains(&format!("gap at 0x{:x}, 8 byte(s) after ", len - 8)));
}

#[test]
fn dump_lines_carry_offset_size_type_and_value() {
    let c = checked();
    let f = &files()[1];
    let node = interp::decode(&c, f).unwrap();
    let text = render::dump(
        &node,
        f,
        render::DumpOptions {
            hex: true,
            ..Default::default()
        },
    );
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in\n{text}"))
            .to_owned()
    };
    assert!(
        line("magic").starts_with("0x000000       4  43 4e 53 54"),
        "{}",
        line("magic")
    );
    assert!(line(" wide ").contains("u24") && line(" wide ").contains("11259375 (0xabcdef)"));
    assert!(
        line("unknown_bits").contains("bits 24..32") && line("unknown_bits").ends_with("[unknown]")
    );
    assert!(line(" title ").contains("→ 0x"));
    assert!(line("\"constructs\"").contains("cstring (max 16)"));
    assert!(line("::Ints").contains("Value::Ints"));
    assert!(line("[1, -2, 3]").contains("→ elements"));
    assert!(line("[9, 8, 7]").contains("u8[3]"));
    assert!(line(" ratio ").contains("NaN"));
    // Flat: full paths.
    let flat = render::dump(
        &node,
        f,
        render::DumpOptions {
            flat: true,
            ..Default::default()
        },
    );
    assert!(
        flat.contains("Root.tree.children[0].children[0].id"),
        "{flat}"
    );
    // Every node appears with its kind.
    let mut kinds = std::collections::HashSet::new();
    node.walk(&mut |n, _| {
        kinds.insert(std::mem::discriminant(&n.kind));
    });
    assert!(kinds.contains(&std::mem::discriminant(&Kind::Seq)));
}

#[test]
fn a_schema_the_checker_refuses_is_never_interpreted() {
    let bad = constructs::SCHEMA_SOURCE.replace(
        "count: Field(\"child_count\")",
        "count: Field(\"child_cnt\")",
    );
    let e = codec_schema::parse_str(&bad, "bad.ron")
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.ron:") && e.contains("child_cnt"), "{e}");
}

/// Coverage counts what is understood, not what is named (issue 72): a
/// blob with no doc is unknown whatever its name (`tail` explained 100 %
/// before), and one whose doc says what it holds is known.
#[test]
fn an_undocumented_blob_is_unknown_whatever_its_name() {
    let unknown = |field: &str| {
        let src = format!(
            r#"Schema(name: "t", endian: Little, root: "R", types: [
                Struct(name: "R", fields: [(name: "magic", type: Magic("RB")), {field}]),
            ])"#
        );
        let c = codec_schema::parse_str(&src, "t.ron").expect("checks");
        let data = b"RBabcd";
        let node = interp::decode(&c, data).unwrap();
        coverage::coverage(&c, &node, data).unknown
    };
    assert_eq!(unknown(r#"(name: "tail", type: Bytes(4))"#), 4);
    assert_eq!(
        unknown(r#"(name: "tail", type: List(of: U8, count: ToNext))"#),
        4
    );
    assert_eq!(
        unknown(r#"(name: "tail", type: Bytes(4), doc: "The checksum's bytes.")"#),
        0
    );
    // Declared known on purpose.
    assert_eq!(
        unknown(r#"(name: "tail", type: Bytes(4), unknown: false)"#),
        0
    );
}
