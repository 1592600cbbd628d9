//! Shared helpers for the benchmarks in `benches/` and the drivers in `examples/`.

use std::path::{Path, PathBuf};

pub mod byml_shapes;

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

/// Every regular file below `<corpus>/<format>`, in subfolders too, whose
/// first bytes are `magic`, named by its path inside the folder and sorted.
/// `None` when the folder does not exist.
pub fn load_tree(format: &str, magic: &[u8]) -> Option<Vec<CorpusFile>> {
    fn walk(root: &Path, dir: &Path, magic: &[u8], out: &mut Vec<CorpusFile>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                walk(root, &path, magic, out);
            } else if kind.is_file() {
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                if bytes.starts_with(magic) {
                    let name = path.strip_prefix(root).unwrap_or(&path);
                    out.push(CorpusFile {
                        name: name.to_string_lossy().into_owned(),
                        bytes,
                    });
                }
            }
        }
    }
    let root = corpus_root().join(format);
    if !root.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    walk(&root, &root, magic, &mut files);
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

/// Reads what a BYML text writer must read from an owned document (every
/// key's and string's bytes, every number, every blob's length), in the
/// writer's order, and folds it into a number: the floor of any writer
/// over the owned model (`byml_to_text/codec_model_floor_walk`).
pub fn byml_walk(doc: &formats::byml::Header) -> u64 {
    use formats::byml::{Array, Container, Hash, HashMap, Node};
    fn bytes(s: &[u8]) -> u64 {
        s.iter()
            .fold(s.len() as u64, |h, &b| h.rotate_left(5) ^ u64::from(b))
    }
    fn array(a: &Array) -> u64 {
        a.items.iter().map(|n| node(&n)).fold(1, u64::wrapping_add)
    }
    fn hash(h: &Hash) -> u64 {
        h.entries
            .iter()
            .map(|e| bytes(e.key.as_bytes()) ^ node(&e.value))
            .fold(2, u64::wrapping_add)
    }
    fn hash_map(m: &HashMap) -> u64 {
        m.entries
            .iter()
            .map(|e| u64::from(e.hash) ^ node(&e.value))
            .fold(3, u64::wrapping_add)
    }
    fn node(n: &Node) -> u64 {
        match n {
            Node::Array(a) => array(a),
            Node::Hash(h) => hash(h),
            Node::HashMap(m) => hash_map(m),
            Node::String(s) => bytes(s.as_bytes()),
            Node::Binary(b) => b.len() as u64,
            Node::File(f) => f.data.len() as u64,
            Node::Bool(b) => u64::from(*b),
            Node::Int(v) => *v as u64,
            Node::Float(v) => u64::from(v.to_bits()),
            Node::UInt(v) => u64::from(*v),
            Node::Int64(v) => *v as u64,
            Node::UInt64(v) => *v,
            Node::Double(v) => v.to_bits(),
            Node::Null(()) => 4,
        }
    }
    match &doc.root {
        None => 0,
        Some(Container::Array(a)) => array(a),
        Some(Container::Hash(h)) => hash(h),
        Some(Container::HashMap(m)) => hash_map(m),
    }
}
