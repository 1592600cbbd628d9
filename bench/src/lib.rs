//! Shared helpers for the benchmarks in `benches/` and the drivers in `examples/`.

use std::path::{Path, PathBuf};

/// The corpus root: `$CODEC_CORPUS` when set (and not empty), else
/// `<workspace>/../shared/corpus`.
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("CODEC_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            // This crate sits at `<workspace>/bench`.
            let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            workspace.join("..").join("shared").join("corpus")
        }
    }
}

/// One corpus file, read into memory.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// File name (no directory).
    pub name: String,
    /// The whole file.
    pub bytes: Vec<u8>,
}

/// Reads the regular files directly inside `<corpus>/<format>` (no
/// subfolders) whose first bytes are `magic`, sorted by name. Returns `None`
/// when the folder does not exist or cannot be read.
pub fn load_format(format: &str, magic: &[u8]) -> Option<Vec<CorpusFile>> {
    let dir = corpus_root().join(format);
    let entries = std::fs::read_dir(&dir).ok()?;
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        if !bytes.starts_with(magic) {
            continue;
        }
        files.push(CorpusFile {
            name: entry.file_name().to_string_lossy().into_owned(),
            bytes,
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Some(files)
}

/// The AAMP files of the corpus, or `None` when the corpus is absent.
pub fn load_aamp() -> Option<Vec<CorpusFile>> {
    load_format("aamp", formats::aamp::MAGIC)
}

/// A plain record table generated from `schemas/records.ron` (benches/deku.rs
/// reads it side by side with an equivalent deku derive).
pub mod records {
    codec_derive::schema!("schemas/records.ron");
}

/// The BYML files of the corpus (both byte orders), or `None` when the
/// corpus is absent.
pub fn load_byml() -> Option<Vec<CorpusFile>> {
    let mut files = load_format("byml", b"YB")?;
    files.extend(load_format("byml", b"BY")?);
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Some(files)
}

/// The arguments of a profiling driver (`bench/examples/*_profile.rs`):
/// what to run and how many times (20 when not given). Prints `usage` and
/// exits when the first is missing.
pub fn profile_args(usage: &str) -> (String, usize) {
    let mut args = std::env::args().skip(1);
    let Some(what) = args.next() else {
        eprintln!("usage: {usage}");
        std::process::exit(2);
    };
    let iterations = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
    (what, iterations)
}
