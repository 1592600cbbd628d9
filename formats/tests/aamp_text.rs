//! AAMP ↔ YAML: exact texts on documents built here, located errors, and on
//! the corpus (read in place from `$CODEC_CORPUS/aamp` or
//! `../shared/corpus/aamp`; the tests say so and pass when it is absent):
//! binary → text → binary is byte-identical, oead's and roead's golden texts
//! read back to the original bytes, and with the community's names loaded
//! the text equals oead's.

use formats::aamp::names::NameTable;
use formats::aamp::text::{from_yaml, to_yaml};
use formats::aamp::{
    self, Curve, Name, ParameterIO, ParameterList, ParameterObject, ParameterValue,
};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// Corpus helpers

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("CODEC_CORPUS") {
        Some(root) => PathBuf::from(root).join("aamp"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/aamp"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: the AAMP corpus is absent ({}); set CODEC_CORPUS to run the corpus tests",
            dir.display()
        );
        None
    }
}

/// The binaries at the corpus's top level, sorted.
fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read the corpus folder")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.is_file() && fs::read(p).map(|b| b.starts_with(b"AAMP")).unwrap_or(false))
        .collect();
    files.sort();
    files
}

/// The community's names, loaded once.
fn dict_names(dir: &Path) -> &'static NameTable {
    static TABLE: OnceLock<NameTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = NameTable::new();
        table
            .load_names_file(&dir.join("dict/botw_hashed_names.txt"))
            .expect("names file");
        table
            .load_patterns_file(&dir.join("dict/botw_numbered_names.txt"))
            .expect("numbered names file");
        table
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------
// Corpus tests

#[test]
fn corpus_binary_text_binary_is_identical() {
    let Some(dir) = corpus() else { return };
    let names = dict_names(&dir);
    let empty = NameTable::new();
    let files = corpus_files(&dir);
    assert_eq!(files.len(), 158, "the corpus holds 158 AAMP files");
    let mut identical = 0;
    let mut failures = Vec::new();
    for path in &files {
        let bytes = fs::read(path).unwrap();
        let pio = aamp::decode(&bytes).unwrap();
        // With and without names: both must come back byte for byte.
        let mut ok = true;
        for table in [names, &empty] {
            let text = to_yaml(&pio, table);
            match from_yaml(&text).map(|p| aamp::encode(&p)) {
                Ok(Ok(back)) if back == bytes => {}
                Ok(Ok(_)) => {
                    ok = false;
                    failures.push(format!("{}: bytes differ", file_name(path)));
                }
                Ok(Err(e)) => {
                    ok = false;
                    failures.push(format!("{}: encode: {e}", file_name(path)));
                }
                Err(e) => {
                    ok = false;
                    failures.push(format!("{}: from-text: {e}", file_name(path)));
                }
            }
        }
        identical += usize::from(ok);
    }
    eprintln!(
        "binary -> text -> binary identical: {identical}/{}",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn golden_reads_back(tool: &str, expected_count: usize) {
    let Some(dir) = corpus() else { return };
    let golden = dir.join("golden").join(tool);
    let mut count = 0;
    let mut failures = Vec::new();
    for path in corpus_files(&dir) {
        let yml = golden.join(format!("{}.yml", file_name(&path)));
        if !yml.exists() {
            continue;
        }
        count += 1;
        let text = fs::read_to_string(&yml).unwrap();
        let bytes = fs::read(&path).unwrap();
        match from_yaml(&text).map(|p| aamp::encode(&p)) {
            Ok(Ok(back)) if back == bytes => {}
            Ok(Ok(_)) => failures.push(format!("{}: bytes differ", file_name(&path))),
            Ok(Err(e)) => failures.push(format!("{}: encode: {e}", file_name(&path))),
            Err(e) => failures.push(format!("{}: {e}", file_name(&path))),
        }
    }
    eprintln!(
        "{tool} golden -> binary identical: {}/{count}",
        count - failures.len()
    );
    assert_eq!(count, expected_count, "golden texts of {tool}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_oead_golden_reads_back_to_the_binary() {
    golden_reads_back("oead-1.2.9.post4", 158);
}

#[test]
fn corpus_roead_golden_reads_back_to_the_binary() {
    golden_reads_back("roead-1.0.0", 156);
}

/// With the community's names, the text is oead's, byte for byte.
#[test]
fn corpus_text_equals_oead_golden() {
    let Some(dir) = corpus() else { return };
    let names = dict_names(&dir);
    let golden = dir.join("golden/oead-1.2.9.post4");
    let files = corpus_files(&dir);
    let mut equal = 0;
    let mut report = Vec::new();
    for path in &files {
        let pio = aamp::decode(&fs::read(path).unwrap()).unwrap();
        let text = to_yaml(&pio, names);
        let want = fs::read_to_string(golden.join(format!("{}.yml", file_name(path)))).unwrap();
        if text == want {
            equal += 1;
            continue;
        }
        let differing: Vec<String> = text
            .lines()
            .zip(want.lines())
            .filter(|(a, b)| a != b)
            .take(3)
            .map(|(a, b)| format!("    ours: {a}\n    oead: {b}"))
            .collect();
        let lines = text
            .lines()
            .zip(want.lines())
            .filter(|(a, b)| a != b)
            .count();
        report.push(format!(
            "{}: {lines} lines differ (lengths {} / {})\n{}",
            file_name(path),
            text.len(),
            want.len(),
            differing.join("\n")
        ));
    }
    eprintln!("to-text equals oead's golden: {equal}/{}", files.len());
    for r in &report {
        eprintln!("{r}");
    }
    assert_eq!(equal, files.len(), "texts differing from oead's golden");
}
