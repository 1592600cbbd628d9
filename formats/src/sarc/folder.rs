//! The folder form of an archive: what `codec to-text` writes for a SARC
//! (each file, converted to text where a form exists, and a manifest) and
//! how `codec from-text` packs such a folder back. The command writes the
//! folder (atomically, see `src/bin/codec/archive.rs`); this module holds
//! every decision about names and content, so that the fuzz targets reach
//! it.
//!
//! The folder is a closed world: names are checked by one rule
//! ([`safe_relative`]) both ways, every entry gets a file of its own
//! ([`plan_stored`]), and [`pack`] reads only regular files inside the
//! folder, following no symbolic link.

use crate::layer::{Dictionaries, Layer, MAX_LAYERS};
use crate::sarc::{self, Node, Sarc, Variant};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::Path;

/// The manifest's file name inside an archive's folder.
pub const MANIFEST: &str = "codec-archive.json";

/// The prefix of every temporary name `codec` creates; such names are never
/// read as content.
pub const TEMP_PREFIX: &str = ".codec-";

/// The largest manifest read (a manifest lists names, not contents).
const MAX_MANIFEST: u64 = 256 << 20;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `sarc`.
    pub format: String,
    /// `little` or `big`.
    pub byte_order: String,
    /// Compression layers around the archive, outermost first.
    pub layers: Vec<LayerEntry>,
    pub version: u16,
    pub hash_multiplier: u32,
    /// In file-table order.
    pub files: Vec<FileEntry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum LayerEntry {
    Yaz0 { alignment: u32 },
    Zstd { dictionary: Option<u32> },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// The path inside the archive.
    pub name: String,
    /// Where its content is in the folder, relative to it.
    pub stored: String,
    /// How it is stored: `bytes`, or the name of a text form of the
    /// registry (`aamp-yaml`, `byml-yaml`, `ainb-json`, `rstb-json`,
    /// `msbt-yaml`).
    pub form: String,
    /// The alignment it was found at (0: choose on writing).
    pub align: u64,
    pub name_flag: u8,
    /// CRC32 of its bytes as found: a file whose bytes changed gets a new
    /// alignment.
    pub crc32: u32,
}

/// The registry's text form named `form` (`None` for `bytes` and for a
/// name no form has).
fn text_form_named(form: &str) -> Option<&'static crate::registry::TextForm> {
    crate::registry::text_form_named(form)
}

/// The forms a manifest may name, for messages.
fn form_list() -> String {
    let mut v = vec!["bytes"];
    v.extend(crate::registry::text_form_names());
    v.join(", ")
}

/// Chooses where each entry is stored in the folder: `wanted` gives each
/// entry's relative name and the extension its text form adds (if any).
/// Every entry gets a path of its own, compared without regard to case (so
/// that the folder survives a copy to a case-insensitive disk): a name
/// already taken, the manifest's, or a folder another entry needs gets
/// `~2`, `~3`, ... before its last extension (`same~2.txt`,
/// `m.byml~2.yml`).
pub fn plan_stored(wanted: &[(&str, Option<&str>)]) -> Result<Vec<String>, String> {
    let folders: HashSet<String> = wanted
        .iter()
        .flat_map(|(rel, _)| {
            rel.match_indices('/')
                .map(|(i, _)| rel[..i].to_lowercase())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut taken: HashSet<String> = HashSet::from([MANIFEST.to_lowercase()]);
    let mut stored = Vec::with_capacity(wanted.len());
    for (rel, ext) in wanted {
        let (dir, file) = match rel.rsplit_once('/') {
            Some((d, f)) => (Some(d), f),
            None => (None, *rel),
        };
        if let Some(d) = dir {
            if let Some(part) = d.split('/').find(|p| p.starts_with(TEMP_PREFIX)) {
                return Err(format!(
                    "the archive holds {rel:?}, in a folder named {part:?}: names starting with {TEMP_PREFIX:?} are codec's temporary files"
                ));
            }
        }
        let full = match ext {
            Some(e) => format!("{file}.{e}"),
            None => file.to_owned(),
        };
        // The name's own extension stays last: `same.txt` → `same~2.txt`,
        // `m.byml.yml` → `m.byml~2.yml`.
        let (stem, tail) = match ext {
            Some(e) => (file.to_owned(), format!(".{e}")),
            None => match file.rsplit_once('.') {
                Some((s, e)) if !s.is_empty() => (s.to_owned(), format!(".{e}")),
                _ => (file.to_owned(), String::new()),
            },
        };
        let stem = if stem.starts_with(TEMP_PREFIX) {
            format!("_{stem}")
        } else {
            stem
        };
        let with_dir = |f: &str| match dir {
            Some(d) => format!("{d}/{f}"),
            None => f.to_owned(),
        };
        let free = |p: &str| {
            let k = p.to_lowercase();
            !taken.contains(&k) && !folders.contains(&k)
        };
        let mut choice = with_dir(&full);
        if full.starts_with(TEMP_PREFIX) || !free(&choice) {
            choice = (2..)
                .map(|n| with_dir(&format!("{stem}~{n}{tail}")))
                .find(|p| free(p))
                .expect("a free name among infinitely many");
        }
        taken.insert(choice.to_lowercase());
        stored.push(choice);
    }
    Ok(stored)
}

/// A text form of an archive's file: (form, extension, text), when the
/// text gives the bytes back (the registry's text forms).
pub fn text_form(
    bytes: &[u8],
    names: &crate::aamp::names::NameTable,
) -> Option<(&'static str, &'static str, String)> {
    let entry = crate::registry::FORMATS
        .iter()
        .find(|e| e.text_form.is_some() && (e.detect)(bytes).is_some())?;
    let form = entry.text_form.as_ref()?;
    Some((form.name, form.ext, form.faithful_text(bytes, names)?))
}

/// `name` as a path inside a folder: no root, no `..`, no empty parts, no
/// backslash or NUL, no control characters, no drive letter.
pub fn safe_relative(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && !name.chars().any(char::is_control)
        && !name.split('/').next().is_some_and(|p| p.contains(':'))
        && name
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..");
    ok.then(|| name.to_owned())
}

/// An archive built from a folder, and what the user should know about it.
#[derive(Debug)]
pub struct Packed {
    pub bytes: Vec<u8>,
    /// Files the manifest lists that are gone from the folder (and so from
    /// the archive), and similar notes, one line each.
    pub notes: Vec<String>,
}

/// What [`pack`] compares an edited folder with.
#[derive(Debug, Default)]
pub struct PackOptions<'a> {
    /// The archive the folder was unpacked from, when it is still there:
    /// an edited text whose values changed type from its member's is
    /// reported (see [`crate::retype`]).
    pub original: Option<&'a Sarc>,
    /// Refuse such changes instead of warning.
    pub strict: bool,
}

/// Builds the archive of folder `dir` (with its layers).
pub fn pack(dir: &Path, dicts: &Dictionaries, options: &PackOptions<'_>) -> Result<Packed, String> {
    let at = |m: String| format!("{}: {m}", dir.display());
    let mpath = dir.join(MANIFEST);
    let text = read_inside(dir, MANIFEST, MAX_MANIFEST)?;
    let text =
        String::from_utf8(text).map_err(|_| format!("{}: not UTF-8 text", mpath.display()))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        let (where_, what) = crate::json_syntax(&e);
        format!("{}: {where_}: {what}", mpath.display())
    })?;
    let bad = |m: String| format!("{}: {m}", mpath.display());
    if manifest.format != "sarc" {
        return Err(bad(format!(
            "format is {:?}: expected \"sarc\"",
            manifest.format
        )));
    }
    let variant = match manifest.byte_order.as_str() {
        "little" => Variant::Little,
        "big" => Variant::Big,
        other => {
            return Err(bad(format!(
                "byte_order is {other:?}: expected \"little\" or \"big\""
            )))
        }
    };
    if manifest.layers.len() > MAX_LAYERS {
        return Err(bad(format!(
            "layers lists {} compression layers; at most {MAX_LAYERS} are read or written",
            manifest.layers.len()
        )));
    }
    // Every entry is checked before any file is read.
    let mut stored_seen: HashSet<String> = HashSet::new();
    for (i, f) in manifest.files.iter().enumerate() {
        let entry = |m: String| bad(format!("files[{i}] ({}): {m}", crate::shown(&f.name)));
        if safe_relative(&f.name).is_none() {
            return Err(entry(
                "name is not a relative path inside an archive (no leading /, no .. or empty parts, no backslash or control character)".into(),
            ));
        }
        if safe_relative(&f.stored).is_none()
            || f.stored.split('/').any(|p| p.starts_with(TEMP_PREFIX))
            || f.stored.eq_ignore_ascii_case(MANIFEST)
        {
            return Err(entry(format!(
                "stored is {}, which is not a file inside the folder",
                crate::shown(&format!("{:?}", f.stored))
            )));
        }
        if !stored_seen.insert(f.stored.to_lowercase()) {
            return Err(entry(format!(
                "stored {:?} is also another entry's: each entry needs its own file",
                f.stored
            )));
        }
        if f.form != "bytes" && text_form_named(&f.form).is_none() {
            return Err(entry(format!(
                "form {:?} is not one of {}",
                f.form,
                form_list()
            )));
        }
    }
    let on_disk = folder_files(dir)?;
    let mut notes = Vec::new();
    let mut nodes: Vec<(Node, bool)> = Vec::new();
    // How the archive's own files of each extension are stored.
    let mut form_of_ext: HashMap<String, &'static str> = HashMap::new();
    for f in &manifest.files {
        if let Some(form) = text_form_named(&f.form) {
            form_of_ext.insert(extension(&f.name), form.name);
        }
    }
    let mut listed: HashSet<&str> = HashSet::new();
    // A member name is the key the game looks a file up by: of two entries
    // of one name, one is never found. An archive that held both comes
    // back as it was (the entries unchanged); a name given twice otherwise
    // is a mistake, refused (issue 70).
    let mut name_seen: HashMap<&str, (usize, bool)> = HashMap::new();
    // Each listed file read and turned back into its bytes on every core
    // (a message archive: 1,510 texts), used in the manifest's order below.
    /// A listed file read back: its text when an edit is to be type-checked,
    /// and its bytes; `None` when it is not in the folder.
    type Listed = Option<Result<(Option<String>, Vec<u8>), String>>;
    let read: Vec<Listed> = {
        use rayon::prelude::*;
        manifest
            .files
            .par_iter()
            .map(|f| {
                on_disk.contains(&f.stored).then(|| {
                    let raw = read_inside(dir, &f.stored, u64::MAX)?;
                    // The text is kept only for the type check of an edited file.
                    let text = (f.form != "bytes" && options.original.is_some())
                        .then(|| String::from_utf8_lossy(&raw).into_owned());
                    let bytes = convert_stored(&dir.join(&f.stored), raw, &f.form)?;
                    let edited = crc32fast::hash(&bytes) != f.crc32;
                    Ok((text.filter(|_| edited), bytes))
                })
            })
            .collect()
    };
    for ((i, f), read) in manifest.files.iter().enumerate().zip(read) {
        listed.insert(f.stored.as_str());
        let Some(read) = read else {
            notes.push(format!(
                "{} ({}): listed in the manifest but not in the folder; left out of the archive",
                crate::shown(&f.stored),
                crate::shown(&f.name)
            ));
            continue;
        };
        let (text, bytes) = read?;
        let unchanged = crc32fast::hash(&bytes) == f.crc32;
        match name_seen.insert(f.name.as_str(), (i, unchanged)) {
            Some((first, kept)) if !(kept && unchanged) => {
                return Err(bad(format!(
                    "files[{i}] ({}): the name is also files[{first}]'s; an archive holds a name twice only as it was unpacked, both files unchanged",
                    crate::shown(&f.name)
                )));
            }
            _ => {}
        }
        if let (false, Some(text), Some(original)) = (unchanged, &text, options.original) {
            if let Some(old) = original.get(&f.name) {
                for c in crate::retype::changes(old, &bytes, &crate::retype::names_in(text)) {
                    let line = crate::retype::line_of(text, &c.last)
                        .map_or(String::new(), |l| format!(":{l}"));
                    let what = format!(
                        "{}{line}: {} was {} in the archive's {}, and is {} now",
                        crate::shown(&f.stored),
                        c.key,
                        c.was,
                        crate::shown(&f.name),
                        c.now
                    );
                    if options.strict {
                        return Err(at(format!("{what} (--strict)")));
                    }
                    notes.push(format!("warning: {what}"));
                }
            }
        }
        let mut node = Node::new(&f.name, bytes);
        node.name_flag = f.name_flag;
        if unchanged {
            node.data.align = f.align;
        }
        nodes.push((node, unchanged));
    }
    let mut new_names: HashSet<String> = HashSet::new();
    let mut fresh: Vec<&String> = on_disk
        .iter()
        .filter(|p| !listed.contains(p.as_str()))
        .collect();
    // In one order whatever the folder's: which of two clashing files is named is stable.
    fresh.sort();
    for rel in fresh {
        let path = dir.join(rel);
        let raw = read_inside(dir, rel, u64::MAX)?;
        let (name, form) = new_file_form(rel, &raw, &form_of_ext).map_err(at)?;
        if safe_relative(&name).is_none() {
            return Err(at(format!(
                "{}: not a name an archive can hold",
                crate::shown(rel)
            )));
        }
        if let Some(&(i, _)) = name_seen.get(name.as_str()) {
            return Err(at(format!(
                "{}: a new file for member {}, which files[{i}] of the manifest already is; remove one of them",
                crate::shown(rel),
                crate::shown(&name)
            )));
        }
        if !new_names.insert(name.clone()) {
            return Err(at(format!(
                "{}: another new file is also member {}; remove one of them",
                crate::shown(rel),
                crate::shown(&name)
            )));
        }
        let bytes = convert_stored(&path, raw, form)?;
        nodes.push((Node::new(&name, bytes), false));
    }
    let nodes = settle_alignment(nodes);
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
    Ok(Packed { bytes, notes })
}

/// The archive's files with their alignment settled: an unchanged file
/// keeps the alignment it was found at; a new or changed one (`false`)
/// gets the alignment its unchanged siblings of the same extension show
/// (the smallest), else 0: its kind's, chosen on encode (`sarc::glue`).
pub fn settle_alignment(nodes: Vec<(Node, bool)>) -> Vec<Node> {
    let mut sibling: HashMap<String, u64> = HashMap::new();
    for (n, unchanged) in &nodes {
        if *unchanged && n.data.align > 0 {
            let e = sibling.entry(extension(&n.name)).or_insert(n.data.align);
            *e = (*e).min(n.data.align);
        }
    }
    nodes
        .into_iter()
        .map(|(mut n, unchanged)| {
            if !unchanged {
                n.data.align = sibling.get(&extension(&n.name)).copied().unwrap_or(0);
            }
            n
        })
        .collect()
}

/// The form a file new in the folder is read in, and its name in the
/// archive. A text file named like a converted binary (`X.ainb.json`, or
/// `X.bgyml.yml` where the archive keeps its `.bgyml` files as YAML) is
/// converted, or refused when it is not that text; other files are bytes.
fn new_file_form(
    rel: &str,
    raw: &[u8],
    form_of_ext: &HashMap<String, &'static str>,
) -> Result<(String, &'static str), String> {
    let lower = rel.to_ascii_lowercase();
    let stripped = [".yml", ".yaml", ".json"]
        .iter()
        .find(|e| lower.ends_with(*e))
        .map(|e| (&rel[..rel.len() - e.len()], &e[1..]));
    let Some((inner, text_ext)) = stripped else {
        return Ok((rel.to_owned(), "bytes"));
    };
    let text = std::str::from_utf8(raw).ok();
    let yaml = text_ext != "json";
    // The registry's forms whose text takes this extension, in its order.
    let forms = || {
        crate::registry::FORMATS
            .iter()
            .filter_map(|e| e.text_form.as_ref())
            .filter(move |f| (f.ext == "yml") == yaml)
    };
    if let Some(t) = text {
        if let Some(form) = forms().find(|f| (f.looks_like)(t)) {
            return Ok((inner.to_owned(), form.name));
        }
    }
    // Named like a converted binary: its text is expected.
    let ext = extension(inner);
    let expected = form_of_ext.get(&ext).copied().or_else(|| {
        // A form whose files always become text (AINB's JSON).
        crate::registry::FORMATS
            .iter()
            .filter_map(|e| e.text_form.as_ref())
            .find(|f| f.always_of.contains(&ext.as_str()))
            .map(|f| f.name)
    });
    match expected.and_then(text_form_named) {
        Some(form) if (form.ext == "yml") == yaml => Err(format!(
            "{}: a new file named like a {ext} file's text, but not that text ({}); \
             rename it to keep it as bytes",
            crate::shown(rel),
            form.recognised_by
        )),
        _ => Ok((rel.to_owned(), "bytes")),
    }
}
/// The files of folder `dir`, relative to it with `/` separators, but the
/// manifest and codec's temporary names (at any depth). A symbolic link or
/// anything else that is not a regular file or a folder is an error: the
/// folder form reads only what is inside it.
pub fn folder_files(dir: &Path) -> Result<HashSet<String>, String> {
    let mut files = HashSet::new();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !e.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
        });
    for entry in walker {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.depth() == 0 {
            continue;
        }
        let ty = entry.file_type();
        if ty.is_dir() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map_err(|_| format!("{}: outside {}", entry.path().display(), dir.display()))?;
        let rel = rel
            .to_str()
            .ok_or_else(|| format!("{}: the name is not UTF-8", entry.path().display()))?
            .replace(std::path::MAIN_SEPARATOR, "/");
        if ty.is_symlink() {
            return Err(format!(
                "{}: a symbolic link; the folder of an archive may hold only regular files (links are not followed)",
                entry.path().display()
            ));
        }
        if !ty.is_file() {
            return Err(format!(
                "{}: not a regular file; the folder of an archive may hold only regular files",
                entry.path().display()
            ));
        }
        if rel != MANIFEST {
            files.insert(rel);
        }
    }
    Ok(files)
}

/// Reads `rel` (checked by [`safe_relative`]) inside `dir`: every folder on
/// the way must be a real folder and the file a regular file, none a
/// symbolic link; at most `limit` bytes.
pub fn read_inside(dir: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
    let path = dir.join(rel);
    let fail = |m: String| format!("{}: {m}", path.display());
    let mut at = dir.to_owned();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        let m = fs::symlink_metadata(&at).map_err(|e| fail(crate::io_message(&e)))?;
        if !m.is_dir() {
            return Err(fail(format!(
                "{} is a symbolic link or not a folder; links are not followed",
                at.display()
            )));
        }
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // No link followed; a FIFO does not block the open.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(&path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return fail("a symbolic link; links are not followed".into());
        }
        fail(crate::io_message(&e))
    })?;
    let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() {
        return Err(fail("not a regular file".into()));
    }
    if meta.len() > limit {
        return Err(fail(format!("larger than {limit} bytes")));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(e.to_string()))?;
    Ok(bytes)
}

/// A stored file's bytes: converted back from its text form.
fn convert_stored(path: &Path, raw: Vec<u8>, form: &str) -> Result<Vec<u8>, String> {
    if form == "bytes" {
        return Ok(raw);
    }
    let text = String::from_utf8(raw).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    bytes_of_text(form, &text).map_err(|e| match e.at {
        Some((line, column)) => format!("{}:{line}:{column}: {}", path.display(), e.message),
        None => format!("{}: {}", path.display(), e.message),
    })
}

/// The bytes a text of form `form` (as [`text_form`] names them:
/// `aamp-yaml`, `byml-yaml`, `ainb-json`, `msbt-yaml`) describes.
pub fn bytes_of_text(form: &str, text: &str) -> Result<Vec<u8>, crate::registry::TextError> {
    match crate::registry::text_form_named(form) {
        Some(f) => (f.from_text)(text, &crate::registry::TextOptions::default()).map(|t| t.bytes),
        None => Err(crate::registry::TextError {
            at: None,
            message: format!(
                "form \"{form}\" is not one of bytes, {}",
                crate::registry::text_form_names().join(", ")
            ),
        }),
    }
}

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod new_file_tests {
    use super::*;

    /// A new `X.ainb.json` or `X.rsizetable.json` must be that text (the
    /// forms' `always_of`); any other JSON is kept as bytes.
    #[test]
    fn a_text_named_like_an_always_converted_file_must_be_its_text() {
        let none = HashMap::new();
        let raw = b"{\"not\": \"it\"}";
        for name in ["Copy.root.ainb.json", "System/Table.rsizetable.json"] {
            let e = new_file_form(name, raw, &none).unwrap_err();
            assert!(e.contains("rename it to keep it as bytes"), "{name}: {e}");
        }
        assert_eq!(
            new_file_form("Data/notes.json", raw, &none).unwrap(),
            ("Data/notes.json".to_owned(), "bytes")
        );
    }
}
