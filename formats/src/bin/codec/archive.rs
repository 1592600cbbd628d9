//! `to-text` and `from-text` on archives: a SARC (inside any compression
//! layers) becomes a folder, each file in it converted where a text form
//! exists (AAMP → YAML, AINB → JSON) and kept as bytes otherwise, plus a
//! manifest, `codec-archive.json`, with what the bytes alone do not say:
//! the layers, the byte order, the header values, and per file its order,
//! alignment, name flag and a CRC32 of its bytes. `from-text` on the folder
//! writes the archive back: byte for byte when nothing was edited; a file
//! whose bytes changed, or a new one, gets the alignment of its unchanged
//! siblings of the same extension, else its kind's (`sarc::glue`); a file
//! gone from the folder is gone from the archive.

use crate::atomic::Staged;
use formats::layer::{peel, Dictionaries, Layer};
use formats::sarc::{self, Node, Sarc, Variant};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The manifest's file name inside an archive's folder.
pub const MANIFEST: &str = "codec-archive.json";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// `sarc`.
    format: String,
    /// `little` or `big`.
    byte_order: String,
    /// Compression layers around the archive, outermost first.
    layers: Vec<LayerEntry>,
    version: u16,
    hash_multiplier: u32,
    /// In file-table order.
    files: Vec<FileEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
enum LayerEntry {
    Yaz0 { alignment: u32 },
    Zstd { dictionary: Option<u32> },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    /// The path inside the archive.
    name: String,
    /// Where its content is in the folder, relative to it.
    stored: String,
    /// How it is stored: `bytes`, `aamp-yaml`, `byml-yaml` or `ainb-json`.
    form: String,
    /// The alignment it was found at (0: choose on writing).
    align: u64,
    name_flag: u8,
    /// CRC32 of its bytes as found: a file whose bytes changed gets a new
    /// alignment.
    crc32: u32,
}

/// Whether `data` is an archive, possibly compressed.
pub fn is_archive(data: &[u8], dicts: &Dictionaries) -> bool {
    sarc::looks_like(data)
        || (Layer::detect(data).is_some()
            && peel(data, dicts).is_ok_and(|(_, inner)| sarc::looks_like(&inner)))
}

/// The folder `to-text` writes for archive `input`.
pub fn folder_for(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".d");
    PathBuf::from(name)
}

/// Writes archive `input` as a folder; returns the files written.
pub fn to_folder(
    input: &Path,
    data: &[u8],
    out: &Path,
    force: bool,
    dicts: &Dictionaries,
    names: &formats::aamp::names::NameTable,
) -> Result<Vec<PathBuf>, String> {
    let at = |m: String| format!("{}: {m}", input.display());
    let (layers, inner) = peel(data, dicts).map_err(at)?;
    let (variant, archive) =
        sarc::decode(&inner).map_err(|e| at(format!("SARC decode error {e}")))?;
    if out.exists() && !force {
        return Err(format!(
            "{}: exists; use --force to replace it",
            out.display()
        ));
    }
    let mut staged = Staged::new();
    let mut written = Vec::new();
    let mut files = Vec::new();
    let mut created = Vec::new();
    let result = (|| -> Result<(), String> {
        for node in &archive.nodes {
            let name = node.name.as_str();
            let rel = safe_relative(name).ok_or_else(|| {
                at(format!(
                    "the archive holds a file named {name:?}, which is not a relative path"
                ))
            })?;
            let bytes = &node.data.value;
            let (form, stored, content) = text_form(bytes, names)
                .map(|(form, ext, text)| (form, format!("{rel}.{ext}"), text.into_bytes()))
                .unwrap_or_else(|| ("bytes", rel.clone(), bytes.clone()));
            let path = out.join(&stored);
            if let Some(parent) = path.parent() {
                created.extend(crate::atomic::create_dirs(parent)?);
            }
            staged.add(&path, &content, true).map_err(at)?;
            written.push(path);
            files.push(FileEntry {
                name: name.to_owned(),
                stored,
                form: form.to_owned(),
                align: node.data.align,
                name_flag: node.name_flag,
                crc32: crc32fast::hash(bytes),
            });
        }
        let manifest = Manifest {
            format: "sarc".into(),
            byte_order: match variant {
                Variant::Little => "little",
                Variant::Big => "big",
            }
            .into(),
            layers: layers
                .iter()
                .map(|l| match *l {
                    Layer::Yaz0 { alignment } => LayerEntry::Yaz0 { alignment },
                    Layer::Zstd { dictionary } => LayerEntry::Zstd { dictionary },
                })
                .collect(),
            version: archive.version,
            hash_multiplier: archive.hash_multiplier,
            files: std::mem::take(&mut files),
        };
        let json = serde_json::to_string_pretty(&manifest).map_err(|e| at(e.to_string()))?;
        let path = out.join(MANIFEST);
        created.extend(crate::atomic::create_dirs(out)?);
        // The manifest names the others: staged last.
        staged
            .add(&path, format!("{json}\n").as_bytes(), true)
            .map_err(at)?;
        written.push(path);
        Ok(())
    })();
    match result.and_then(|()| staged.commit()) {
        Ok(()) => Ok(written),
        Err(e) => {
            crate::atomic::remove_created(&created);
            Err(e)
        }
    }
}

/// A text form of an archive's file: (form, extension, text).
fn text_form(
    bytes: &[u8],
    names: &formats::aamp::names::NameTable,
) -> Option<(&'static str, &'static str, String)> {
    if bytes.starts_with(formats::aamp::MAGIC) {
        let doc = formats::aamp::decode(bytes).ok()?;
        // Only when the text gives the same bytes back.
        let text = formats::aamp::text::to_yaml(&doc, names);
        let back = formats::aamp::text::from_yaml(&text).ok()?;
        return (formats::aamp::encode(&back).ok()? == bytes).then_some(("aamp-yaml", "yml", text));
    }
    if formats::byml::looks_like(bytes) {
        let (variant, doc) = formats::byml::decode(bytes).ok()?;
        let text = formats::byml::text::to_yaml(&doc, variant);
        let (variant, back) = formats::byml::text::from_yaml(&text, None, None).ok()?;
        return (formats::byml::encode(&back, variant).ok()? == bytes).then_some((
            "byml-yaml",
            "yml",
            text,
        ));
    }
    if bytes.starts_with(formats::ainb::MAGIC) {
        let doc = formats::ainb::decode(bytes).ok()?;
        let text = formats::ainb::text::to_json(&doc).ok()?;
        let back = formats::ainb::text::from_json(&text).ok()?;
        return (formats::ainb::encode(&back).ok()? == bytes).then_some((
            "ainb-json",
            "json",
            text,
        ));
    }
    None
}

/// `name` as a path inside a folder: no root, no `..`, no empty parts.
fn safe_relative(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && name
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..");
    ok.then(|| name.to_owned())
}

/// Whether `dir` is a folder `to-text` wrote for an archive.
pub fn is_archive_folder(dir: &Path) -> bool {
    dir.is_dir() && dir.join(MANIFEST).is_file()
}

/// The archive file `from-text` writes for folder `dir` (`X.sarc.d` → `X.sarc`).
pub fn archive_for(dir: &Path) -> Result<PathBuf, String> {
    let s = dir.as_os_str().to_string_lossy();
    let trimmed = s.trim_end_matches('/');
    trimmed
        .strip_suffix(".d")
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!(
                "{}: cannot name the archive (the folder does not end in .d); use -o OUT",
                dir.display()
            )
        })
}

/// Builds the archive of folder `dir` (with its layers).
pub fn from_folder(dir: &Path, dicts: &Dictionaries) -> Result<Vec<u8>, String> {
    let at = |m: String| format!("{}: {m}", dir.display());
    let mpath = dir.join(MANIFEST);
    let text = fs::read_to_string(&mpath).map_err(|e| format!("{}: {e}", mpath.display()))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        let (where_, what) = formats::json_syntax(&e);
        format!("{}: {where_}: {what}", mpath.display())
    })?;
    let variant = match manifest.byte_order.as_str() {
        "little" => Variant::Little,
        "big" => Variant::Big,
        other => {
            return Err(format!(
                "{}: byte_order is \"{other}\": expected \"little\" or \"big\"",
                mpath.display()
            ))
        }
    };
    // Every file in the folder: listed ones by where they are stored, the
    // others are new.
    let mut on_disk: Vec<String> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            (rel != MANIFEST && !rel.starts_with(".codec-")).then_some(rel)
        })
        .collect();
    let mut nodes: Vec<(Node, bool, String)> = Vec::new();
    for f in &manifest.files {
        let path = dir.join(&f.stored);
        if !path.is_file() {
            continue; // removed
        }
        on_disk.retain(|p| p != &f.stored);
        let bytes = read_stored(&path, &f.form).map_err(at)?;
        let unchanged = crc32fast::hash(&bytes) == f.crc32;
        let mut node = Node::new(&f.name, bytes);
        node.name_flag = f.name_flag;
        if unchanged {
            node.data.align = f.align;
        }
        nodes.push((node, unchanged, extension(&f.name)));
    }
    for rel in on_disk {
        let path = dir.join(&rel);
        let (name, form) = match rel.strip_suffix(".yml") {
            Some(n)
                if fs::read_to_string(&path)
                    .is_ok_and(|t| formats::aamp::text::looks_like_aamp_text(&t)) =>
            {
                (n.to_owned(), "aamp-yaml")
            }
            Some(n)
                if fs::read_to_string(&path)
                    .is_ok_and(|t| formats::byml::text::looks_like_byml_text(&t)) =>
            {
                (n.to_owned(), "byml-yaml")
            }
            _ => (rel.clone(), "bytes"),
        };
        let bytes = read_stored(&path, form).map_err(at)?;
        let ext = extension(&name);
        nodes.push((Node::new(&name, bytes), false, ext));
    }
    // New and changed files: the alignment their unchanged siblings of the
    // same extension show (the smallest), else their kind's.
    let mut sibling: HashMap<String, u64> = HashMap::new();
    for (n, unchanged, ext) in &nodes {
        if *unchanged && n.data.align > 0 {
            let e = sibling.entry(ext.clone()).or_insert(n.data.align);
            *e = (*e).min(n.data.align);
        }
    }
    let nodes: Vec<Node> = nodes
        .into_iter()
        .map(|(mut n, unchanged, ext)| {
            if !unchanged {
                n.data.align = sibling.get(&ext).copied().unwrap_or(0);
            }
            n
        })
        .collect();
    let mut archive = Sarc::new(nodes);
    archive.version = manifest.version;
    archive.hash_multiplier = manifest.hash_multiplier;
    let mut bytes =
        sarc::encode(&archive, variant).map_err(|e| at(format!("SARC encode error: {e}")))?;
    for layer in manifest.layers.iter().rev() {
        let layer = match *layer {
            LayerEntry::Yaz0 { alignment } => Layer::Yaz0 { alignment },
            LayerEntry::Zstd { dictionary } => Layer::Zstd { dictionary },
        };
        bytes = layer
            .compress(&bytes, dicts)
            .map_err(|e| at(format!("{layer}: {e}")))?;
    }
    Ok(bytes)
}

/// A stored file's bytes: converted back from its text form.
fn read_stored(path: &Path, form: &str) -> Result<Vec<u8>, String> {
    let fail = |m: String| format!("{}: {m}", path.display());
    let raw = fs::read(path).map_err(|e| fail(crate::inputs::io_message(&e)))?;
    match form {
        "bytes" => Ok(raw),
        "aamp-yaml" => {
            let text = String::from_utf8(raw).map_err(|_| fail("not UTF-8 text".into()))?;
            let doc = formats::aamp::text::from_yaml(&text).map_err(|e| {
                format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message)
            })?;
            formats::aamp::encode(&doc).map_err(|e| fail(format!("encode error: {e}")))
        }
        "byml-yaml" => {
            let text = String::from_utf8(raw).map_err(|_| fail("not UTF-8 text".into()))?;
            // The first line names the version and byte order.
            let (variant, doc) =
                formats::byml::text::from_yaml(&text, None, None).map_err(|e| {
                    format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message)
                })?;
            formats::byml::encode(&doc, variant).map_err(|e| fail(format!("encode error: {e}")))
        }
        "ainb-json" => {
            let text = String::from_utf8(raw).map_err(|_| fail("not UTF-8 text".into()))?;
            let doc = formats::ainb::text::from_json(&text).map_err(|e| fail(e.to_string()))?;
            formats::ainb::encode(&doc).map_err(|e| fail(format!("encode error: {e}")))
        }
        other => Err(fail(format!(
            "form \"{other}\" is not one of bytes, aamp-yaml, byml-yaml, ainb-json"
        ))),
    }
}

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The most layers and archives one file may nest when walked by
/// [`each_file`] (a longer chain is hostile).
const MAX_NESTING: usize = 8;

/// What [`each_file`] calls for each file: its label, and its bytes or why
/// it could not be opened.
pub type FileVisitor<'v> = dyn FnMut(String, Result<&[u8], String>) + 'v;

/// Calls `f` with `data` and with every file inside it: compression layers
/// peeled, SARC archives opened (the archive itself is a file too), each
/// named by its way in (`A.pack ▸ zstd ▸ Actor/x.bgyml`). A layer or an
/// archive that cannot be opened is passed to `f` as the error.
pub fn each_file(data: &[u8], label: &str, dicts: &Dictionaries, f: &mut FileVisitor<'_>) {
    walk_files(data, label, dicts, 0, f);
}

fn walk_files(
    data: &[u8],
    label: &str,
    dicts: &Dictionaries,
    depth: usize,
    f: &mut FileVisitor<'_>,
) {
    if depth > MAX_NESTING {
        let why = format!("more than {MAX_NESTING} layers and archives inside each other");
        return f(label.to_owned(), Err(why));
    }
    if let Some(layer) = Layer::detect(data) {
        let inner_label = format!("{label} ▸ {layer}");
        match layer.decompress(data, dicts) {
            Ok(inner) => walk_files(&inner, &inner_label, dicts, depth + 1, f),
            Err(e) => f(inner_label, Err(format!("{layer} {e}"))),
        }
        return;
    }
    f(label.to_owned(), Ok(data));
    if sarc::looks_like(data) {
        match sarc::decode(data) {
            Ok((_, archive)) => {
                for node in &archive.nodes {
                    let inner = format!("{label} ▸ {}", node.name);
                    walk_files(&node.data.value, &inner, dicts, depth + 1, f);
                }
            }
            Err(e) => f(label.to_owned(), Err(format!("sarc {e}"))),
        }
    }
}
