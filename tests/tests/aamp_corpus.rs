//! Every AAMP file at the top level of the corpus decodes and re-encodes to
//! exactly its own bytes.
//!
//! The corpus is read in place (`$CODEC_CORPUS/aamp` or
//! `../shared/corpus/aamp`); when it is absent the test says so and passes.

use std::fs;
use std::path::{Path, PathBuf};

/// The number of AAMP files at the corpus's top level (see its MANIFEST.tsv).
const EXPECTED_FILES: usize = 158;

/// Top-level files of the corpus folder that are not AAMP archives.
fn is_documentation(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("tsv" | "md" | "txt")
    )
}

/// The AAMP files at the top level of the corpus, sorted by name.
fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.is_file() && !is_documentation(p))
        .collect();
    files.sort();
    files
}

/// Why one file does not round-trip.
fn check(data: &[u8]) -> Result<(), String> {
    let doc = formats::aamp::decode(data).map_err(|e| format!("decode error: {e}"))?;
    let out = formats::aamp::encode(&doc).map_err(|e| format!("encode error: {e}"))?;
    if out == data {
        return Ok(());
    }
    let first = data
        .iter()
        .zip(&out)
        .position(|(a, b)| a != b)
        .unwrap_or(data.len().min(out.len()));
    let show = |b: &[u8]| {
        b.get(first..(first + 8).min(b.len()))
            .map(|s| format!("{s:02x?}"))
            .unwrap_or_else(|| "(end)".into())
    };
    Err(format!(
        "first difference at offset 0x{first:x} (input {} bytes, output {} bytes; input {} vs output {})",
        data.len(),
        out.len(),
        show(data),
        show(&out)
    ))
}

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn every_corpus_file_round_trips_byte_for_byte() {
    let Some(dir) = codec_tests::corpus_dir("aamp") else {
        println!("SKIPPED: AAMP corpus not found (set CODEC_CORPUS)");
        return;
    };
    let files = corpus_files(&dir);
    let mut identical = 0usize;
    let mut failures = Vec::new();
    for path in &files {
        let data = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        match check(&data) {
            Ok(()) => identical += 1,
            Err(why) => failures.push(format!("{}: {why}", path.display())),
        }
    }
    println!("aamp corpus: {} files, {identical} identical", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} file(s) do not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert_eq!(
        files.len(),
        EXPECTED_FILES,
        "expected {EXPECTED_FILES} AAMP files at the top level of {}",
        dir.display()
    );
    assert_eq!(identical, EXPECTED_FILES);
}

/// Every file the corpus manifest lists is present at the top level, so the
/// count above cannot silently include a stray file in place of a missing one.
#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn corpus_manifest_matches_the_files() {
    let Some(dir) = codec_tests::corpus_dir("aamp") else {
        println!("SKIPPED: AAMP corpus not found (set CODEC_CORPUS)");
        return;
    };
    let Ok(manifest) = fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        println!("SKIPPED: AAMP corpus has no MANIFEST.tsv");
        return;
    };
    let mut listed: Vec<String> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect();
    listed.sort();
    let present: Vec<String> = corpus_files(&dir)
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
        .collect();
    assert_eq!(
        listed, present,
        "MANIFEST.tsv and the corpus folder disagree"
    );
}
