//! The generic form of a document (`Entry::to_value`, what `codec explore`
//! shows and edits) keeps everything the writer needs: taken out and read
//! back into the typed document, every corpus file and sample encodes to
//! exactly the bytes the compiled codec's own round trip gives. An edit
//! made in that form is then written as the codec writes it.

mod common;

use codec_interp::Value;
use formats::registry::FORMATS;
use std::path::PathBuf;

fn files_of(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

#[test]
fn every_corpus_file_comes_back_through_its_generic_form() {
    let mut seen = 0;
    let mut folders: Vec<PathBuf> =
        vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples")];
    for f in ["aamp", "ainb", "bdat", "byml", "sarc"] {
        match common::corpus(f) {
            Some(d) => folders.push(d),
            None => eprintln!("SKIPPED: no {f} corpus; only the samples are checked for it"),
        }
    }
    let mut per_format = vec![0usize; FORMATS.len()];
    for dir in folders {
        for path in files_of(&dir) {
            let data = std::fs::read(&path).unwrap();
            let Some(entry) = FORMATS.iter().find(|e| (e.detect)(&data).is_some()) else {
                continue;
            };
            let Ok(expected) = (entry.round_trip)(None, &data) else {
                continue;
            };
            let value: Value =
                (entry.to_value)(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let again = (entry.from_value)(&data, value)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                again == expected,
                "{}: the document through its generic form encodes to other bytes",
                path.display()
            );
            per_format[entry.format as usize] += 1;
            seen += 1;
        }
    }
    for (e, n) in FORMATS.iter().zip(&per_format) {
        eprintln!("{}: {n} files through the generic form", e.name);
    }
    assert!(seen > 0);
}

/// A changed value is written: one float of the sample AAMP file, taken
/// out, changed and read back, decodes to the new value and nothing else
/// changed.
#[test]
fn an_edited_value_is_written() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples/aamp/actor.bxml");
    let Ok(data) = std::fs::read(&path) else {
        panic!("the sample {} is missing", path.display());
    };
    let entry = formats::Format::Aamp.entry();
    let mut v = (entry.to_value)(&data).unwrap();
    fn first_f32(v: &mut Value) -> Option<&mut f32> {
        match v {
            Value::F32(x) => Some(x),
            Value::Seq(s) => s.iter_mut().find_map(first_f32),
            Value::Struct { fields, .. } => fields.iter_mut().find_map(|(_, x)| first_f32(x)),
            Value::Variant { value, .. } => first_f32(value),
            Value::Option(Some(x)) => first_f32(x),
            Value::Map(m) => m.iter_mut().find_map(|(_, x)| first_f32(x)),
            _ => None,
        }
    }
    let x = first_f32(&mut v).expect("the sample holds a float");
    let old = *x;
    *x = 1234.5;
    let edited = v.clone();
    let bytes = (entry.from_value)(&data, v).unwrap();
    assert_eq!(bytes.len(), data.len(), "a float changes no layout");
    let diff: Vec<usize> = (0..data.len()).filter(|&i| data[i] != bytes[i]).collect();
    assert!(
        !diff.is_empty() && diff.len() <= 4,
        "one float's bytes change: {diff:?}"
    );
    assert_eq!((entry.to_value)(&bytes).unwrap(), edited);
    assert_ne!(old, 1234.5);
}
