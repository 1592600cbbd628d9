//! `to-text` and `from-text` on archives: a SARC (inside any compression
//! layers) becomes a folder, each file in it converted where a text form
//! exists (AAMP → YAML, BYML → YAML, AINB → JSON) and kept as bytes
//! otherwise, plus a manifest, `codec-archive.json`, with what the bytes
//! alone do not say: the layers, the byte order, the header values, and per
//! file its order, alignment, name flag and a CRC32 of its bytes.
//! `from-text` on the folder writes the archive back: byte for byte when
//! nothing was edited; a file whose bytes changed, or a new one, gets the
//! alignment of its unchanged siblings of the same extension, else its
//! kind's (`sarc::glue`).
//!
//! Archives come from strangers and folders are edited by hand, so the
//! folder form is a closed world:
//!
//! - `to-text` writes the whole folder into a fresh staging folder beside
//!   the target and swaps it in only once complete (an atomic exchange on
//!   Linux). A failure or an interruption leaves the old folder as it was;
//!   nothing is written through a symbolic link; two runs on one target
//!   give one run's folder, never a mix.
//! - Every entry gets a file of its own: duplicate names, an entry named
//!   like the manifest, a text name that equals another entry's name, and a
//!   file where another entry needs a folder get distinct stored names
//!   (`name~2.ext`), recorded in the manifest ([`plan_stored`]).
//! - `from-text` reads only regular files inside the folder: manifest
//!   names and stored paths are checked by the same rule as `to-text`'s
//!   ([`safe_relative`]), no symbolic link is followed (one found is an
//!   error), layers are bounded, and a file deleted from the folder is
//!   reported, not dropped in silence. A new file is converted by its
//!   extension as the archive's own files are (`X.ainb.json` → AINB), or
//!   refused when it cannot be.

use formats::layer::{peel, Dictionaries, Layer, MAX_LAYERS};
use formats::sarc::{self, Node, Sarc, Variant};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The manifest's file name inside an archive's folder.
pub const MANIFEST: &str = "codec-archive.json";

/// The prefix of every temporary name `codec` creates; such names are never
/// read as content.
const TEMP_PREFIX: &str = ".codec-";

/// The largest manifest read (a manifest lists names, not contents).
const MAX_MANIFEST: u64 = 256 << 20;

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

/// The forms a file can be stored in, with the extension their text adds.
const FORMS: [(&str, Option<&str>); 4] = [
    ("bytes", None),
    ("aamp-yaml", Some("yml")),
    ("byml-yaml", Some("yml")),
    ("ainb-json", Some("json")),
];

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

/// Writes archive `input` as folder `out`; returns the files written.
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
    check_target_folder(out, force)?;
    // Every name is checked, and every stored name chosen, before anything
    // is written.
    let mut converted = Vec::with_capacity(archive.nodes.len());
    for (i, node) in archive.nodes.iter().enumerate() {
        let name = node.name.as_str();
        let rel = safe_relative(name).ok_or_else(|| {
            at(format!(
                "file {i} of the archive is named {}, which is not a relative path inside a folder",
                crate::inputs::shown(&format!("{name:?}"))
            ))
        })?;
        converted.push((rel, text_form(&node.data.value, names)));
    }
    let wanted: Vec<(&str, Option<&str>)> = converted
        .iter()
        .map(|(rel, text)| (rel.as_str(), text.as_ref().map(|(_, ext, _)| *ext)))
        .collect();
    let stored = plan_stored(&wanted).map_err(at)?;

    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    let created = crate::atomic::create_dirs(&parent)?;
    let made = crate::interrupt::created(
        || {
            tempfile::Builder::new()
                .prefix(TEMP_PREFIX)
                .suffix(".tmp")
                .tempdir_in(&parent)
        },
        |t| t.path(),
    );
    let (staging, _guard) = match made {
        Ok(t) => t,
        Err(e) => {
            crate::atomic::remove_created(&created);
            return Err(format!("{}: {e}", parent.display()));
        }
    };
    let result = (|| -> Result<Vec<String>, String> {
        let mut files = Vec::with_capacity(archive.nodes.len());
        let mut written = Vec::with_capacity(archive.nodes.len() + 1);
        for ((node, (_, text)), stored) in archive.nodes.iter().zip(converted).zip(stored) {
            let bytes = &node.data.value;
            let (form, content) = match text {
                Some((form, _, text)) => (form, std::borrow::Cow::Owned(text.into_bytes())),
                None => ("bytes", std::borrow::Cow::Borrowed(bytes.as_slice())),
            };
            write_new(staging.path(), &stored, &content)?;
            files.push(FileEntry {
                name: node.name.as_str().to_owned(),
                stored: stored.clone(),
                form: form.to_owned(),
                align: node.data.align,
                name_flag: node.name_flag,
                crc32: crc32fast::hash(bytes),
            });
            written.push(stored);
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
            files,
        };
        let json = serde_json::to_string_pretty(&manifest).map_err(|e| at(e.to_string()))?;
        write_new(staging.path(), MANIFEST, format!("{json}\n").as_bytes())?;
        written.push(MANIFEST.to_owned());
        Ok(written)
    })()
    .and_then(|written| {
        swap_in(staging.path(), out, force)?;
        Ok(written)
    });
    // The staging path now holds the old folder (after an exchange), a
    // half-written one (after a failure), or nothing.
    crate::interrupt::remove(staging.path());
    drop(staging);
    match result {
        Ok(written) => Ok(written.iter().map(|s| out.join(s)).collect()),
        Err(e) => {
            crate::atomic::remove_created(&created);
            Err(e)
        }
    }
}

/// Refuses a target that must not be replaced: an existing one without
/// `--force`, a symbolic link, anything but a folder.
fn check_target_folder(out: &Path, force: bool) -> Result<(), String> {
    match fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", out.display())),
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{}: is a symbolic link, which codec does not follow; remove it or choose another -o",
            out.display()
        )),
        Ok(m) if !m.is_dir() => Err(format!(
            "{}: exists and is not a folder; remove it or choose another -o",
            out.display()
        )),
        Ok(_) if !force => Err(format!(
            "{}: exists; use --force to replace it",
            out.display()
        )),
        Ok(_) => Ok(()),
    }
}

/// Writes a new file `rel` under `root` (a folder this run created),
/// creating its folders; never opens an existing file.
fn write_new(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let _creating = crate::interrupt::creating();
    let path = root.join(rel);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Puts the finished folder `staging` at `out`. With `replace`, an
/// existing `out` is exchanged with it (the old folder is then at
/// `staging`, for the caller to remove); without, an existing `out` is
/// refused, even one that appeared during the run.
fn swap_in(staging: &Path, out: &Path, replace: bool) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", out.display());
    let exists = fs::symlink_metadata(out).is_ok();
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        let flags = if replace && exists {
            RenameFlags::EXCHANGE
        } else {
            RenameFlags::NOREPLACE
        };
        match renameat_with(CWD, staging, CWD, out, flags) {
            Ok(()) => return Ok(()),
            // The filesystem (or kernel) cannot: the portable way below.
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) if e == rustix::io::Errno::EXIST => {
                return Err(format!(
                    "{}: exists; use --force to replace it",
                    out.display()
                ))
            }
            Err(e) => return Err(fail(e.into())),
        }
    }
    if !replace || !exists {
        if fs::symlink_metadata(out).is_ok() {
            return Err(format!(
                "{}: exists; use --force to replace it",
                out.display()
            ));
        }
        return fs::rename(staging, out).map_err(fail);
    }
    // Move the old folder aside, the new one in, the old one to `staging`.
    let aside = staging.with_extension("old");
    fs::rename(out, &aside).map_err(fail)?;
    if let Err(e) = fs::rename(staging, out) {
        let _ = fs::rename(&aside, out);
        return Err(fail(e));
    }
    fs::rename(&aside, staging).map_err(fail)
}

/// Chooses where each entry is stored in the folder: `wanted` gives each
/// entry's relative name and the extension its text form adds (if any).
/// Every entry gets a path of its own, compared without regard to case (so
/// that the folder survives a copy to a case-insensitive disk): a name
/// already taken, the manifest's, or a folder another entry needs gets
/// `~2`, `~3`, ... before its last extension (`same~2.txt`,
/// `m.byml~2.yml`).
pub(crate) fn plan_stored(wanted: &[(&str, Option<&str>)]) -> Result<Vec<String>, String> {
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

/// `name` as a path inside a folder: no root, no `..`, no empty parts, no
/// backslash or NUL, no control characters, no drive letter.
pub(crate) fn safe_relative(name: &str) -> Option<String> {
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

/// An archive built from a folder, and what the user should know about it.
pub struct Packed {
    pub bytes: Vec<u8>,
    /// Files the manifest lists that are gone from the folder (and so from
    /// the archive), and similar notes, one line each.
    pub notes: Vec<String>,
}

/// Builds the archive of folder `dir` (with its layers).
pub fn from_folder(dir: &Path, dicts: &Dictionaries) -> Result<Packed, String> {
    let at = |m: String| format!("{}: {m}", dir.display());
    let mpath = dir.join(MANIFEST);
    let text = read_inside(dir, MANIFEST, MAX_MANIFEST)?;
    let text =
        String::from_utf8(text).map_err(|_| format!("{}: not UTF-8 text", mpath.display()))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        let (where_, what) = formats::json_syntax(&e);
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
        let entry = |m: String| {
            bad(format!(
                "files[{i}] ({}): {m}",
                crate::inputs::shown(&f.name)
            ))
        };
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
                crate::inputs::shown(&format!("{:?}", f.stored))
            )));
        }
        if !stored_seen.insert(f.stored.to_lowercase()) {
            return Err(entry(format!(
                "stored {:?} is also another entry's: each entry needs its own file",
                f.stored
            )));
        }
        if !FORMS.iter().any(|(form, _)| *form == f.form) {
            return Err(entry(format!(
                "form {:?} is not one of bytes, aamp-yaml, byml-yaml, ainb-json",
                f.form
            )));
        }
    }
    let on_disk = folder_files(dir)?;
    let mut notes = Vec::new();
    let mut nodes: Vec<(Node, bool, String)> = Vec::new();
    // How the archive's own files of each extension are stored.
    let mut form_of_ext: HashMap<String, &'static str> = HashMap::new();
    for f in &manifest.files {
        if let Some((form, _)) = FORMS
            .iter()
            .find(|(form, _)| *form == f.form && *form != "bytes")
        {
            form_of_ext.insert(extension(&f.name), form);
        }
    }
    let mut listed: HashSet<&str> = HashSet::new();
    for f in &manifest.files {
        listed.insert(f.stored.as_str());
        if !on_disk.contains(&f.stored) {
            notes.push(format!(
                "{} ({}): listed in the manifest but not in the folder; left out of the archive",
                crate::inputs::shown(&f.stored),
                crate::inputs::shown(&f.name)
            ));
            continue;
        }
        let raw = read_inside(dir, &f.stored, u64::MAX)?;
        let bytes = convert_stored(&dir.join(&f.stored), raw, &f.form)?;
        let unchanged = crc32fast::hash(&bytes) == f.crc32;
        let mut node = Node::new(&f.name, bytes);
        node.name_flag = f.name_flag;
        if unchanged {
            node.data.align = f.align;
        }
        nodes.push((node, unchanged, extension(&f.name)));
    }
    for rel in on_disk.iter().filter(|p| !listed.contains(p.as_str())) {
        let path = dir.join(rel);
        let raw = read_inside(dir, rel, u64::MAX)?;
        let (name, form) = new_file_form(rel, &raw, &form_of_ext).map_err(at)?;
        if safe_relative(&name).is_none() {
            return Err(at(format!(
                "{}: not a name an archive can hold",
                crate::inputs::shown(rel)
            )));
        }
        let bytes = convert_stored(&path, raw, form)?;
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
    Ok(Packed { bytes, notes })
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
    let looks = |form: &str| {
        text.is_some_and(|t| match form {
            "aamp-yaml" => formats::aamp::text::looks_like_aamp_text(t),
            "byml-yaml" => formats::byml::text::looks_like_byml_text(t),
            "ainb-json" => formats::ainb::text::looks_like_ainb_json(t),
            _ => false,
        })
    };
    let yaml = text_ext != "json";
    let by_content = if yaml {
        ["aamp-yaml", "byml-yaml"].into_iter().find(|f| looks(f))
    } else {
        ["ainb-json"].into_iter().find(|f| looks(f))
    };
    if let Some(form) = by_content {
        return Ok((inner.to_owned(), form));
    }
    // Named like a converted binary: its text is expected.
    let ext = extension(inner);
    let expected = form_of_ext
        .get(&ext)
        .copied()
        .or_else(|| (ext == "ainb").then_some("ainb-json"));
    match expected {
        Some(form) if form.ends_with(if yaml { "yaml" } else { "json" }) => Err(format!(
            "{}: a new file named like a {ext} file's text, but not that text ({}); \
             rename it to keep it as bytes",
            crate::inputs::shown(rel),
            match form {
                "aamp-yaml" => "AAMP YAML starts with the !io tag",
                "byml-yaml" =>
                    "BYML YAML starts with `# BYML version N, little-endian` or `big-endian`",
                _ => "AINB JSON has `Nodes` and `Version`",
            }
        )),
        _ => Ok((rel.to_owned(), "bytes")),
    }
}
/// The files of folder `dir`, relative to it with `/` separators, but the
/// manifest and codec's temporary names (at any depth). A symbolic link or
/// anything else that is not a regular file or a folder is an error: the
/// folder form reads only what is inside it.
fn folder_files(dir: &Path) -> Result<HashSet<String>, String> {
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
fn read_inside(dir: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
    let path = dir.join(rel);
    let fail = |m: String| format!("{}: {m}", path.display());
    let mut at = dir.to_owned();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        let m = fs::symlink_metadata(&at).map_err(|e| fail(crate::inputs::io_message(&e)))?;
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
        fail(crate::inputs::io_message(&e))
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
    let fail = |m: String| format!("{}: {m}", path.display());
    if form == "bytes" {
        return Ok(raw);
    }
    let text = String::from_utf8(raw).map_err(|_| fail("not UTF-8 text".into()))?;
    match form {
        "aamp-yaml" => {
            let doc = formats::aamp::text::from_yaml(&text).map_err(|e| {
                format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message)
            })?;
            formats::aamp::encode(&doc).map_err(|e| fail(format!("encode error: {e}")))
        }
        "byml-yaml" => {
            // The first line names the version and byte order.
            let (variant, doc) =
                formats::byml::text::from_yaml(&text, None, None).map_err(|e| {
                    format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message)
                })?;
            formats::byml::encode(&doc, variant).map_err(|e| fail(format!("encode error: {e}")))
        }
        "ainb-json" => {
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
    let limit = formats::layer::inner_limit(data.len());
    walk_files(data, label, dicts, limit, 0, f);
}

fn walk_files(
    data: &[u8],
    label: &str,
    dicts: &Dictionaries,
    limit: u64,
    depth: usize,
    f: &mut FileVisitor<'_>,
) {
    if depth > MAX_NESTING {
        let why = format!("more than {MAX_NESTING} layers and archives inside each other");
        return f(label.to_owned(), Err(why));
    }
    if let Some(layer) = Layer::detect(data) {
        let inner_label = format!("{label} ▸ {layer}");
        match layer.decompress_within(data, dicts, limit) {
            Ok(inner) => walk_files(&inner, &inner_label, dicts, limit, depth + 1, f),
            Err(e) => f(inner_label, Err(format!("{layer} {e}"))),
        }
        return;
    }
    f(label.to_owned(), Ok(data));
    if sarc::looks_like(data) {
        match sarc::decode(data) {
            Ok((_, archive)) => {
                for node in &archive.nodes {
                    let inner = format!("{label} ▸ {}", crate::inputs::shown(&node.name));
                    walk_files(&node.data.value, &inner, dicts, limit, depth + 1, f);
                }
            }
            Err(e) => f(label.to_owned(), Err(format!("sarc {e}"))),
        }
    }
}
