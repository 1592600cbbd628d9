//! MSBT from `schemas/msbt.ron` alone, through the schema interpreter (no
//! compiled codec): every corpus file decodes and encodes back byte for
//! byte, blocks of kinds the schema does not read are kept in their place,
//! an edited message is laid out with its block's size and the file's size
//! derived and the padding kept, and padding that is not one byte repeated
//! is refused where it stops being padding.

mod common;

use codec_interp::{self as interp, Value};
use codec_schema::Checked;
use formats::interp_hooks::Glue;
use std::path::{Path, PathBuf};

fn schema() -> Checked {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/msbt.ron");
    let src = std::fs::read_to_string(&path).unwrap();
    codec_schema::parse_str(&src, "schemas/msbt.ron").unwrap()
}

/// The first variant (byte order and encoding) that decodes the file, and
/// the document; else the error of the variant that read furthest.
fn decode(c: &Checked, data: &[u8]) -> Result<(Checked, Value), String> {
    let mut best: Option<(u64, String)> = None;
    for v in c.variants() {
        let d = interp::decode_partial_with(v, data, codec_runtime::Limits::default(), &Glue);
        match d.error {
            None => return Ok((v.clone(), d.root.to_value())),
            Some(e) if best.as_ref().is_none_or(|(at, _)| e.offset() > *at) => {
                best = Some((e.offset(), e.to_string()))
            }
            Some(_) => {}
        }
    }
    Err(best.map_or_else(|| "no variant".into(), |(_, e)| e))
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "msbt"))
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

fn field<'v>(v: &'v Value, name: &str) -> &'v Value {
    match v {
        Value::Struct { fields, .. } => &fields.iter().find(|(n, _)| n == name).unwrap().1,
        Value::Variant { value, .. } => field(value, name),
        other => panic!("not a record: {other:?}"),
    }
}

fn field_mut<'v>(v: &'v mut Value, name: &str) -> &'v mut Value {
    match v {
        Value::Struct { fields, .. } => &mut fields.iter_mut().find(|(n, _)| n == name).unwrap().1,
        Value::Variant { value, .. } => field_mut(value, name),
        other => panic!("not a record: {other:?}"),
    }
}

fn seq(v: &Value) -> &Vec<Value> {
    match v {
        Value::Seq(s) => s,
        other => panic!("not a list: {other:?}"),
    }
}

fn variant(v: &Value) -> &str {
    match v {
        Value::Variant { variant, .. } => variant,
        other => panic!("not a variant: {other:?}"),
    }
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

#[test]
fn every_corpus_file_comes_back_identical_from_the_schema_alone() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let c = schema();
    let (mut identical, mut refused) = (0, Vec::new());
    for path in files(&dir) {
        let data = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if !data.starts_with(b"MsgStdBn") {
            // The tool fixture that is not an MSBT: refused by every variant.
            assert!(decode(&c, &data).is_err(), "{name} decoded");
            refused.push(name);
            continue;
        }
        let (v, doc) = decode(&c, &data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = interp::encode(&v, &doc, &Glue).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            out == data,
            "{name}: {} bytes written for {} read",
            out.len(),
            data.len()
        );
        identical += 1;
    }
    eprintln!(
        "{identical} MSBT files identical, {} refused",
        refused.len()
    );
    assert!(identical >= 160, "only {identical} files");
    assert_eq!(refused.len(), 1, "{refused:?}");
}

/// TSY1 (a style index per message) and NLI1 (numbers for the messages),
/// as the wikis describe them: no corpus file has one, so the files are
/// made here, laid out byte by byte from that description, read as those
/// blocks and written back the same.
#[test]
fn style_and_numeric_label_blocks_are_read_as_described() {
    fn block(magic: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut b = magic.to_vec();
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(data);
        while b.len() % 16 != 0 {
            b.push(0xAB);
        }
        b
    }
    let words = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
    // Two messages "a" and "b" (UTF-16), styles 7 and 0, numbers 100, 200.
    let txt2 = [words(&[2, 12, 16]), vec![b'a', 0, 0, 0, b'b', 0, 0, 0]].concat();
    let blocks = [
        block(b"NLI1", &words(&[2, 100, 0, 200, 1])),
        block(b"TSY1", &words(&[7, 0])),
        block(b"TXT2", &txt2),
    ]
    .concat();
    let mut file = b"MsgStdBn\xFF\xFE\0\0\x01\x03\x03\0\0\0".to_vec();
    file.extend_from_slice(&((32 + blocks.len()) as u32).to_le_bytes());
    file.extend_from_slice(&[0; 10]);
    file.extend_from_slice(&blocks);
    let (_, doc) = decode(&schema(), &file).unwrap();
    let kinds: Vec<&str> = seq(field(&doc, "blocks")).iter().map(variant).collect();
    assert_eq!(kinds, ["NumericLabels", "Styles", "Texts"]);
    let styles = field(field(&seq(field(&doc, "blocks"))[1], "data"), "styles");
    assert_eq!(seq(styles), &vec![Value::U32(7), Value::U32(0)]);
    let numbers = field(field(&seq(field(&doc, "blocks"))[0], "data"), "entries");
    assert_eq!(field(&seq(numbers)[1], "id"), &Value::U32(200));
    assert_eq!(field(&seq(numbers)[1], "message"), &Value::U32(1));
    assert_eq!(formats::msbt::encode(&doc, "Le").unwrap(), file);
    // Named by number, the messages have no labels for the editors' text:
    // it says so and names the generic form.
    let e = formats::msbt::to_text(&file).unwrap_err();
    assert!(
        e.contains("NLI1") && e.contains("--schema schemas/msbt.ron"),
        "{e}"
    );
    // TSY1 beside labels is a setting of the text, and comes back.
    let text = "$msbt:\n  blocks: [LBL1, TXT2, {TSY1: [7, 0]}]\nA: a\nB: b\n";
    let bytes = formats::msbt::from_text(text).unwrap();
    let back = formats::msbt::to_text(&bytes).unwrap();
    assert_eq!(
        back,
        "$msbt:\n  blocks: [LBL1, TXT2, {TSY1: [7, 0]}]\nA: |-\n  a\nB: |-\n  b\n"
    );
}

#[test]
fn a_block_of_an_unknown_kind_is_kept_in_its_place() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("tools/example7.msbt")).unwrap();
    let (_, doc) = decode(&schema(), &data).unwrap();
    let blocks = seq(field(&doc, "blocks"));
    let kinds: Vec<&str> = blocks.iter().map(variant).collect();
    assert_eq!(kinds, ["Labels", "Attributes", "Texts", "Other"]);
    let extr = &blocks[3];
    assert_eq!(field(extr, "magic"), &Value::Bytes(b"EXTR".to_vec()));
    assert_eq!(
        field(extr, "data"),
        &Value::Bytes(data[0xb0..0xbc].to_vec())
    );
}

#[test]
fn an_edited_message_is_laid_out_with_sizes_derived_and_padding_kept() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    let (v, mut doc) = decode(&schema(), &data).unwrap();
    let before = doc.clone();
    // Message 0 ("Phantom Ganon") gets three more characters.
    assert_eq!(variant(&seq(field(&doc, "blocks"))[1]), "Texts");
    let Value::Str(text) = &mut seq_mut(first_message(&mut doc))[0] else {
        panic!("message 0 starts with text")
    };
    assert_eq!(text, "Phantom Ganon");
    text.push_str("abc");
    let out = interp::encode(&v, &doc, &Glue).unwrap();
    // 6 more bytes: TXT2's data grows by 6, the file by the padding's change.
    let txt = out.windows(4).position(|w| w == b"TXT2").unwrap();
    let old_txt = data.windows(4).position(|w| w == b"TXT2").unwrap();
    assert_eq!(txt, old_txt, "LBL1 moved");
    assert_eq!(u32_at(&out, txt + 4), u32_at(&data, old_txt + 4) + 6);
    assert_eq!(u32_at(&out, 0x12) as usize, out.len(), "file size");
    assert_eq!(out.len() % 16, 0);
    let data_end = txt + 16 + u32_at(&out, txt + 4) as usize;
    assert!(
        out[data_end..].iter().all(|&b| b == 0xAB),
        "padding byte kept"
    );
    // Read back: that message changed, nothing else.
    let (_, again) = decode(&schema(), &out).unwrap();
    assert_eq!(again, doc);
    assert_ne!(again, before);
    // A character whose unit opens a tag would read back as one: refused.
    let Value::Str(text) = &mut seq_mut(first_message(&mut doc))[0] else {
        unreachable!()
    };
    text.push('\u{E}');
    let e = interp::encode(&v, &doc, &Glue).unwrap_err().to_string();
    assert!(e.contains("U+000E") && e.contains("Control16"), "{e}");
}

fn first_message(doc: &mut Value) -> &mut Value {
    let texts = &mut seq_mut(field_mut(doc, "blocks"))[1];
    let messages = field_mut(field_mut(texts, "data"), "messages");
    &mut seq_mut(messages)[0]
}

/// Messages are text and tags: a tag's group, type and parameters, the
/// text around it, a closing tag; an invalid UTF-8 fixture keeps its bytes.
#[test]
fn messages_are_text_and_tags() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/LayoutMsg/CtrlGuide_00.msbt")).unwrap();
    let (_, doc) = decode(&schema(), &data).unwrap();
    let texts = &seq(field(&doc, "blocks"))[1];
    let all = seq(field(field(texts, "data"), "messages"));
    let parts: Vec<&Value> = all.iter().flat_map(|m| seq(m).iter()).collect();
    let is =
        |p: &&&Value, name: &str| matches!(p, Value::Variant { variant, .. } if variant == name);
    assert!(
        parts.iter().any(|p| is(&p, "Close")),
        "the closing tag 3.1 of CtrlGuide_00"
    );
    let tag = parts.iter().find(|p| is(p, "Tag")).expect("a tag");
    assert!(matches!(field(tag, "group"), Value::U16(_)));
    assert!(parts
        .iter()
        .any(|p| matches!(p, Value::Str(s) if !s.is_empty())));
    // example9: UTF-8 with bytes that are no UTF-8, kept as bytes.
    let data = std::fs::read(dir.join("tools/example9.msbt")).unwrap();
    let (v, doc) = decode(&schema(), &data).unwrap();
    assert_eq!(v.variant_name(), Some("LeUtf8"));
    let texts = &seq(field(&doc, "blocks"))[2];
    let m = &seq(field(field(texts, "data"), "messages_utf8"))[0];
    assert_eq!(
        seq(m)[0],
        Value::Variant {
            union: "Text".into(),
            variant: "Bytes".into(),
            value: Box::new(Value::Bytes(b"\xCF\xFF\xFFMo".to_vec()))
        }
    );
}

fn seq_mut(v: &mut Value) -> &mut Vec<Value> {
    match v {
        Value::Seq(s) => s,
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn padding_that_is_not_one_byte_repeated_is_refused_where_it_changes() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let mut data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    // LBL1's data ends at 0x30 + its size; its padding follows.
    let end = 0x30 + u32_at(&data, 0x24) as usize;
    assert!(end % 16 < 14, "this file's LBL1 padding is long enough");
    data[end + 1] = 0x00;
    let e = decode(&schema(), &data).unwrap_err();
    assert!(e.contains("not padding"), "{e}");
    assert!(e.contains(&format!("{:#x}", end + 1)), "{e}");
    assert!(e.contains("padding"), "{e}");
}

#[test]
fn the_checker_names_misused_sizes_pads_and_other_variants() {
    let bad = r#"Schema(name: "t", endian: Little, root: "R", types: [
        Struct(name: "R", fields: [
            (name: "size", type: U32, derive: Size("body")),
            (name: "body", type: Named("Body"), size: "size"),
            (name: "len2", type: U32),
            (name: "unit", type: Named("U"), size: "len2"),
            (name: "blocks", type: List(of: Named("B"), count: Field("n"))),
            (name: "n", type: U8),
        ]),
        Struct(name: "Body", fields: [(name: "x", type: U8), (name: "pad", type: Pad(align: 3))]),
        Struct(name: "U", layout: (sections: []), fields: [(name: "x", type: U8)]),
        Union(name: "B", tag: U8, inline_tag: true, variants: [(name: "A", tag: 1, type: U8)], other: "A"),
        Struct(name: "H", layout: (sections: [Section(name: "s")]), fields: [
            (name: "n", type: U32),
            (name: "items", type: HashSlots(of: "Item", key: "name", slots: "n", hash: MulAdd(0x492), base: Unit, section: "s",
                rule: PrimeAbove(ratio: 0, max: 101))),
        ]),
        Struct(name: "Item", fields: [
            (name: "name", type: PString(len: U8)),
            (name: "far", type: Ptr(width: U32, base: Unit, to: U32, section: "s")),
        ]),
    ])"#;
    let e = codec_schema::parse_str(bad, "t.ron")
        .unwrap_err()
        .to_string();
    for want in [
        "`size` applies to a unit laid out inline, and `body` is not one",
        "the size field `len2` must have `derive: Size(\"unit\")`",
        "Pad's align must be a power of two from 2 to 65536, not 3",
        "`other` applies to a peek union",
        "the records of a table of hash slots hold no offsets yet, and `Item.far` is one",
        "PrimeAbove(ratio: 0, max: 101) gives no slot count",
    ] {
        assert!(e.contains(want), "missing {want:?} in:\n{e}");
    }
}

/// The registry's entry: `codec check` on the corpus folder finds every
/// MSBT by its magic and proves it through the interpreter, and refuses
/// the tool fixture that is not one; the generic JSON and the editors'
/// text give back every file.
#[test]
fn codec_check_proves_the_corpus_and_text_comes_back_byte_for_byte() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let o = common::codec(&["check".as_ref(), dir.as_os_str()]);
    let out = String::from_utf8_lossy(&o.stdout).to_string() + &common::stderr(&o);
    assert!(o.status.success(), "{out}");
    let n = files(&dir).len() - 1;
    assert!(
        out.contains(&format!(
            "checked {n} files: {n} identical, 0 differ, 0 failed"
        )),
        "{out}"
    );
    // Every byte explained: fields, padding, the zero that ends each text.
    let o = common::codec(&["coverage".as_ref(), dir.as_os_str()]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        out.contains("0 unexplained (0.00%) in 0 range(s); 0 failed to decode"),
        "{out}"
    );
    // to-text of every file, then from-text: the same bytes.
    let scratch = common::scratch("msbt_schema", "text");
    let (mut done, mut texts) = (0, 0);
    for path in files(&dir) {
        let data = std::fs::read(&path).unwrap();
        if formats::msbt::detect(&data).is_none() {
            continue;
        }
        let (variant, doc) = formats::msbt::decode(&data).unwrap();
        let c = formats::msbt::schema().variant(variant).unwrap();
        let text = codec_interp::json::to_json(c, &doc, &[]);
        assert!(formats::msbt::looks_like_text(&text));
        let (cv, read) = codec_interp::json::from_json(formats::msbt::schema(), &text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = interp::encode(&cv, &read.document, &Glue).unwrap();
        assert!(back == data, "{}", path.display());
        // The editors' text too.
        let text =
            formats::msbt::to_text(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back =
            formats::msbt::from_text(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(back == data, "{}", path.display());
        done += 1;
        // A few through the command line too, named by their magic alone.
        if texts < 3 {
            let input = scratch.join(format!("f{texts}.msbt"));
            std::fs::write(&input, &data).unwrap();
            let o = common::codec(&["to-text".as_ref(), input.as_os_str()]);
            assert!(o.status.success(), "{}", common::stderr(&o));
            let json = scratch.join(format!("f{texts}.msbt.yml"));
            let again = scratch.join(format!("f{texts}.again.msbt"));
            let o = common::codec(&[
                "from-text".as_ref(),
                json.as_os_str(),
                "-o".as_ref(),
                again.as_os_str(),
            ]);
            assert!(o.status.success(), "{}", common::stderr(&o));
            assert!(std::fs::read(&again).unwrap() == data);
            texts += 1;
        }
    }
    assert_eq!(done, n);
}

/// The label table is derived: a new label lands in the slot its hash
/// names, and a label found in another slot (here: the slot count changed
/// under the labels) is refused, naming it, rather than moved silently.
#[test]
fn labels_are_grouped_by_their_hash_and_a_misplaced_one_is_refused() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    let (v, mut doc) = decode(&schema(), &data).unwrap();
    let labels_of = |doc: &Value| -> Vec<Value> {
        seq(field(
            field(&seq(field(doc, "blocks"))[0], "data"),
            "labels",
        ))
        .clone()
    };
    let before = labels_of(&doc);
    let labels = field_mut(
        field_mut(&mut seq_mut(field_mut(&mut doc, "blocks"))[0], "data"),
        "labels",
    );
    let new = Value::Struct {
        name: "Label".into(),
        fields: vec![
            ("name".into(), Value::Str("Zz_Added".into())),
            ("message".into(), Value::U32(0)),
        ],
    };
    seq_mut(labels).push(new.clone());
    let out = interp::encode(&v, &doc, &Glue).unwrap();
    // Read back (every label in the slot its hash names): one more label.
    let (_, again) = decode(&schema(), &out).unwrap();
    let mut after = labels_of(&again);
    let at = after.iter().position(|l| l == &new).expect("the new label");
    after.remove(at);
    assert_eq!(after.len(), before.len());
    assert!(before.iter().all(|l| after.contains(l)));
    // Its slot: hash mod 29, among the labels of that slot.
    let h = codec_runtime::slots::mul_add_hash(b"Zz_Added", 0x492);
    let slot = u32_at(&out, 0x34 + 8 * (h % 29) as usize);
    assert!(slot >= 1);
    // Another slot count under the same labels: refused, naming one.
    let mut bad = data.clone();
    bad[0x30] = 31;
    let e = decode(&schema(), &bad).unwrap_err();
    assert!(
        e.contains("sits in slot") && e.contains("names slot"),
        "{e}"
    );
}

/// `docs/walkthrough-new-format.md` quotes what its commands print.
#[test]
fn the_walkthrough_quotes_what_the_commands_print() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/walkthrough-new-format.md")).unwrap();
    let step1 = root.join("docs/walkthrough-new-format/step1.ron");
    let full = root.join("schemas/msbt.ron");
    let totk = dir.join("totk");
    for (command, schema) in [("check", &step1), ("coverage", &step1), ("check", &full)] {
        let o = common::codec(&[
            command.as_ref(),
            "--schema".as_ref(),
            schema.as_os_str(),
            totk.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        let last = out.lines().last().unwrap_or_default();
        assert!(
            doc.contains(last),
            "the walkthrough does not quote `{last}` ({command} {})",
            schema.display()
        );
        // The edit probe's line, but for the time it took.
        if command == "check" {
            let edits = out
                .lines()
                .find(|l| l.starts_with("edits: "))
                .unwrap_or_default();
            let edits = edits.rsplit_once(", ").map_or(edits, |(e, _)| e);
            assert!(
                !edits.is_empty() && doc.contains(edits),
                "the walkthrough does not quote `{edits}` ({})",
                schema.display()
            );
        }
    }
}

/// A text runs to the next target even in a schema with no other construct
/// that runs to one: the offset of a later inline record is known as an end
/// before the first text is read (two texts, not one holding the other).
#[test]
fn a_text_ends_where_the_next_target_starts() {
    let src = r#"Schema(name: "t", endian: Little, root: "R", sections: [Section(name: "t")], types: [
        Struct(name: "R", fields: [
            (name: "first", type: Named("A")),
            (name: "second", type: Named("A")),
        ]),
        Struct(name: "A", size: 4, fields: [
            (name: "text", type: Ptr(width: U32, to: Text(encoding: Utf8), section: "t")),
        ]),
    ])"#;
    let c = codec_schema::parse_str(src, "t.ron").unwrap();
    let data = b"\x08\0\0\0\x0b\0\0\0ab\0c\0";
    let doc = interp::decode(&c, data).unwrap().to_value();
    assert_eq!(
        seq(field(field(&doc, "first"), "text")),
        &vec![Value::Str("ab".into())]
    );
    assert_eq!(
        seq(field(field(&doc, "second"), "text")),
        &vec![Value::Str("c".into())]
    );
    assert_eq!(interp::encode(&c, &doc, &Glue).unwrap(), data);
}

/// A file that departs from the schema is reported at the offset where it
/// does, with the field path: `codec check` said `at offset 0x0` for every
/// MSBT error before, the real place only inside the message.
#[test]
fn a_broken_file_is_reported_where_it_breaks() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    let scratch = common::scratch("msbt_schema", "broken");
    let cut = scratch.join("cut.msbt");
    std::fs::write(&cut, &data[..200]).unwrap();
    let o = common::codec(&["check".as_ref(), cut.as_os_str()]);
    assert!(!o.status.success());
    let e = common::stderr(&o);
    assert!(
        e.contains(
            "msbt decode error at offset 0x24, Msbt.blocks[0]::Labels.data: the size field says"
        ),
        "{e}"
    );
    assert!(!e.contains("offset 0x0"), "{e}");
    let located = formats::msbt::decode_located(&data[..200]).unwrap_err();
    assert_eq!(located.offset(), 0x24);
    // The interpreter's path travels as the runtime's, not folded into the message.
    assert_eq!(located.path(), "Msbt.blocks[0]::Labels.data");
    assert!(located
        .kind()
        .to_string()
        .starts_with("the size field says"));
}
