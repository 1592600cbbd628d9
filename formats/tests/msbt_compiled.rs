//! MSBT's compiled codec (generated from `schemas/msbt.ron`, with its text
//! of control records, its table of hash slots and its blocks that differ
//! in size) against the schema interpreter on the same schema: the same
//! value for every corpus file, the same bytes written back, the same
//! error (offset, field path, message) for a file cut or damaged anywhere.

mod common;

use codec_interp::{self as interp, to_value, Value};
use formats::interp_hooks::Glue;
use formats::msbt::compiled::{self, Variant};
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| std::fs::read(p).is_ok_and(|d| d.starts_with(formats::msbt::MAGIC)))
        .collect();
    out.sort();
    out
}

fn variant_of(data: &[u8]) -> Variant {
    let name = formats::msbt::detect(data).expect("an MSBT variant");
    Variant::from_name(name).expect("the codec has every variant")
}

fn interpreted(data: &[u8]) -> Result<Value, String> {
    let name = formats::msbt::detect(data).ok_or("no variant")?;
    let c = formats::msbt::schema().variant(name).unwrap();
    let d = interp::decode_partial_with(c, data, codec_runtime::Limits::default(), &Glue);
    match d.error {
        None => Ok(d.root.to_value()),
        Some(e) => Err(e.to_string()),
    }
}

fn compiled_value(data: &[u8]) -> Result<Value, String> {
    compiled::decode(data, variant_of(data))
        .map(|m| to_value(&m).expect("serializes"))
        .map_err(|e| e.to_string())
}

#[test]
#[cfg_attr(
    corpus_missing_msbt,
    ignore = "needs the MSBT corpus (../shared/corpus/msbt or $CODEC_CORPUS), absent here"
)]
fn the_compiled_codec_reads_and_writes_every_corpus_file_as_the_interpreter() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let files = files(&dir);
    assert!(files.len() >= 160, "{} MSBT files", files.len());
    let mut tags = 0;
    for path in &files {
        let name = path.display().to_string();
        let data = std::fs::read(path).unwrap();
        let v = variant_of(&data);
        let doc = compiled::decode(&data, v).unwrap_or_else(|e| panic!("{name}: {e}"));
        let value = to_value(&doc).unwrap();
        let expected = interpreted(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(d) = value.first_difference(&expected) {
            panic!("{name}: compiled and interpreted values differ at {d}");
        }
        let back = compiled::encode(&doc, v).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(back == data, "{name}: the compiled codec wrote other bytes");
        // The generic form goes back to the typed document.
        let again: compiled::Msbt = interp::from_value(expected).unwrap();
        assert_eq!(again, doc, "{name}");
        tags += format!("{doc:?}").matches("Record(Tag(").count();
    }
    // The corpus's messages hold tags: the text's records were exercised.
    assert!(tags > 100, "{tags} tags");
}

/// A file cut at any length, or with any one of its first bytes changed,
/// fails (or reads) the same way in both: the same offset, field path and
/// message.
#[test]
#[cfg_attr(
    corpus_missing_msbt,
    ignore = "needs the MSBT corpus (../shared/corpus/msbt or $CODEC_CORPUS), absent here"
)]
fn a_damaged_file_fails_the_same_way_in_both() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    let mut errors = 0;
    let mut check = |d: &[u8], what: &str| {
        if formats::msbt::detect(d).is_none() {
            return;
        }
        let (a, b) = (compiled_value(d), interpreted(d));
        errors += usize::from(a.is_err());
        match (&a, &b) {
            (Ok(x), Ok(y)) => {
                if let Some(diff) = x.first_difference(y) {
                    panic!("{what}: values differ at {diff}");
                }
            }
            _ => assert_eq!(a, b, "{what}"),
        }
    };
    for len in (16..data.len()).step_by(7) {
        check(&data[..len], &format!("cut at {len}"));
    }
    // Every byte of the header and the labels, every third one after.
    for i in (0..data.len()).filter(|&i| i < 0x400 || i % 3 == 0) {
        let mut d = data.clone();
        d[i] ^= 0x5A;
        check(&d, &format!("byte {i:#x} changed"));
    }
    assert!(errors > 100, "only {errors} errors");
}

/// A new label is put in the slot its hash names, and a text holding the
/// unit that opens a tag is refused rather than written as a tag.
#[test]
#[cfg_attr(
    corpus_missing_msbt,
    ignore = "needs the MSBT corpus (../shared/corpus/msbt or $CODEC_CORPUS), absent here"
)]
fn an_edited_document_is_laid_out_as_the_interpreter_lays_it_out() {
    let Some(dir) = common::corpus("msbt") else {
        return;
    };
    let data = std::fs::read(dir.join("totk/ActorMsg/Boss.msbt")).unwrap();
    let v = variant_of(&data);
    let mut doc = compiled::decode(&data, v).unwrap();
    let mut edited = false;
    for b in &mut doc.blocks {
        match b {
            compiled::Block::Labels(l) => l.data.labels.push(compiled::Label {
                name: "Added_Label".into(),
                message: 0,
            }),
            compiled::Block::Texts(t) => {
                t.data.messages[0] = vec![codec_runtime::TextPart::Chars("A new line".into())];
                edited = true;
            }
            _ => {}
        }
    }
    assert!(edited);
    let out = compiled::encode(&doc, v).unwrap();
    let c = formats::msbt::schema().variant("Le").unwrap();
    let by_interp = interp::encode(c, &to_value(&doc).unwrap(), &Glue).unwrap();
    assert!(
        out == by_interp,
        "the two writers lay the edit out differently"
    );
    let back = compiled::decode(&out, v).unwrap();
    assert_eq!(back.blocks.len(), doc.blocks.len());
    let text = format!("{back:?}");
    assert!(text.contains("Added_Label") && text.contains("A new line"));

    let mut bad = doc.clone();
    for b in &mut bad.blocks {
        if let compiled::Block::Texts(t) = b {
            t.data.messages[0] = vec![codec_runtime::TextPart::Chars("a\u{e}b".into())];
        }
    }
    let e = compiled::encode(&bad, v).unwrap_err().to_string();
    assert!(
        e.contains("U+000E, the unit that opens a `Control16` record"),
        "{e}"
    );
}
