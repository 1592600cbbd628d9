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

use formats::layer::{peel_owned, Dictionaries, Layer};
pub use formats::sarc::folder::{pack as from_folder, MANIFEST};
use formats::sarc::folder::{
    plan_stored, safe_relative, text_form, FileEntry, LayerEntry, Manifest, TEMP_PREFIX,
};
use formats::sarc::{self, Variant};
use std::fs;
use std::path::{Path, PathBuf};

/// An archive's bytes with their compression layers taken off, and the
/// layers, outermost first.
pub struct Peeled {
    pub layers: Vec<Layer>,
    pub inner: Vec<u8>,
}

/// What a file's bytes are, out of their compression layers, peeled once:
/// the bytes the test decompressed are the bytes the conversion reads
/// (they were decompressed up to three times, and a file with no layer
/// copied).
pub enum Opened {
    /// A SARC archive, possibly compressed.
    Archive(Peeled),
    /// Another file inside at least one layer, or why its layers could
    /// not be taken off.
    Compressed(Result<Peeled, String>),
    /// Neither.
    Plain,
}

/// Opens the bytes `data` of a file (see [`Opened`]).
pub fn open(data: Vec<u8>, dicts: &Dictionaries) -> Opened {
    if sarc::looks_like(&data) {
        return Opened::Archive(Peeled {
            layers: Vec::new(),
            inner: data,
        });
    }
    if Layer::detect(&data).is_none() {
        return Opened::Plain;
    }
    match peel_owned(data, dicts) {
        Ok((layers, inner)) if sarc::looks_like(&inner) => {
            Opened::Archive(Peeled { layers, inner })
        }
        Ok((layers, inner)) => Opened::Compressed(Ok(Peeled { layers, inner })),
        Err(e) => Opened::Compressed(Err(e)),
    }
}

/// The folder `to-text` writes for archive `input`.
pub fn folder_for(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".d");
    PathBuf::from(name)
}

/// Writes archive `input` (peeled by [`open`]) as folder `out`; returns
/// the files written.
pub fn to_folder(
    input: &Path,
    peeled: Peeled,
    out: &Path,
    force: bool,
    names: &formats::aamp::names::NameTable,
) -> Result<Vec<PathBuf>, String> {
    let at = |m: String| format!("{}: {m}", input.display());
    let Peeled { layers, inner } = peeled;
    // The members' bytes are ranges of the archive's buffer, not copies.
    let inner = std::sync::Arc::new(inner);
    let (variant, archive) =
        sarc::decode_shared(&inner).map_err(|e| at(format!("SARC decode error {e}")))?;
    check_target_folder(out, force)?;
    // Every name is checked, and every stored name chosen, before anything
    // is written.
    let mut rels = Vec::with_capacity(archive.nodes.len());
    for (i, node) in archive.nodes.iter().enumerate() {
        let name = node.name.as_str();
        let rel = safe_relative(name).ok_or_else(|| {
            at(format!(
                "file {i} of the archive is named {}, which is not a relative path inside a folder",
                crate::inputs::shown(&format!("{name:?}"))
            ))
        })?;
        rels.push(rel);
    }
    // The members' texts on every core (a message archive: 1,510 of them),
    // in the archive's order.
    let converted: Vec<_> = {
        use rayon::prelude::*;
        let texts: Vec<_> = archive
            .nodes
            .par_iter()
            .map(|node| text_form(&node.data.value, names))
            .collect();
        rels.into_iter().zip(texts).collect()
    };
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
        // Written on every core (each file synced before the folder is
        // swapped in); the manifest lists them in the archive's order.
        let entries: Vec<_> = archive.nodes.iter().zip(converted).zip(stored).collect();
        let files: Vec<FileEntry> = {
            use rayon::prelude::*;
            entries
                .into_par_iter()
                .map(|((node, (_, text)), stored)| {
                    let bytes = &node.data.value;
                    let (form, content) = match text {
                        Some((form, _, text)) => (form, std::borrow::Cow::Owned(text.into_bytes())),
                        None => ("bytes", std::borrow::Cow::Borrowed(bytes.as_slice())),
                    };
                    write_new(staging.path(), &stored, &content)?;
                    Ok(FileEntry {
                        name: node.name.as_str().to_owned(),
                        stored,
                        form: form.to_owned(),
                        align: node.data.align,
                        name_flag: node.name_flag,
                        crc32: crc32fast::hash(bytes),
                    })
                })
                .collect::<Result<_, String>>()?
        };
        let mut written: Vec<String> = files.iter().map(|f| f.stored.clone()).collect();
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
