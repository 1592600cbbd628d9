//! `codec archive`: the jobs modders do on SARC archives without unpacking
//! the whole: list the members, extract some (raw or as text), create an
//! archive from a plain folder, and add, replace or delete members in
//! place. An archive is opened through its compression layers and written
//! back inside the same layers; the members a command does not touch keep
//! their bytes and their alignment, so the archive differs only where it
//! was changed.

use crate::text::Target;
use clap::{Args, Subcommand};
use formats::layer::{peel, wrap, Dictionaries, Layer};
use formats::sarc::folder::{folder_files, read_inside, safe_relative, settle_alignment};
use formats::sarc::{self, Node, Sarc, Variant};
use formats::Format;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `codec archive`.
#[derive(Debug, Args)]
#[command(
    about = "List, extract, create and edit SARC archives (through Yaz0 and zstd)",
    long_about = "The archive jobs one at a time, as the `sarc` tool does them: \
                  list the members, extract some (raw, or as text with --text), \
                  create an archive from a plain folder, add, replace or delete \
                  members. An archive is read through its Yaz0 and zstd layers and \
                  written back in the same layers; members left alone keep their \
                  bytes and alignment. Edits write atomically: over the archive \
                  itself, or to -o OUT.\n\n\
                  To edit a whole archive as text, `codec to-text ARCHIVE` unpacks \
                  it into a folder and `codec from-text FOLDER` packs it back. One \
                  member can be named on any command as ARCHIVE:MEMBER \
                  (`codec dump Pack/X.pack.zs:Actor/X.bgyml`)."
)]
pub struct ArchiveArgs {
    #[command(subcommand)]
    job: Job,

    /// A zstd dictionary (repeatable): a raw dictionary, or the game's
    /// ZsDic.pack.zs. Default: $CODEC_ZSTD_DICT, and the romfs tree's own
    /// Pack/ZsDic.pack.zs for archives inside one.
    #[arg(long = "zstd-dict", value_name = "FILE", global = true)]
    zstd_dict: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Job {
    /// List the members: size, format, alignment, name.
    List {
        /// The archives.
        #[arg(required = true, value_name = "ARCHIVE")]
        archives: Vec<PathBuf>,
        /// One JSON object per archive, for tools.
        #[arg(long)]
        json: bool,
    },
    /// Write members to a folder, as stored or as text.
    Extract {
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// The members (default: every one).
        #[arg(value_name = "MEMBER")]
        members: Vec<String>,
        /// The folder to write to (default: ARCHIVE.files beside it).
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Write members that have a text form as text (AAMP and BYML as
        /// YAML, AINB as JSON), the others as stored.
        #[arg(long)]
        text: bool,
        /// Replace files that exist.
        #[arg(short, long)]
        force: bool,
    },
    /// Create an archive from a plain folder (every regular file in it).
    Create {
        #[arg(value_name = "FOLDER")]
        folder: PathBuf,
        /// The archive to write; `.zs` adds a zstd layer (with the
        /// dictionary the name calls for, when given: 3 for `.pack.zs`, 2
        /// for `.bcett.byml.zs`, else 1), `.s*` (`.szs`, `.sbactorpack`) a
        /// Yaz0 layer.
        #[arg(short, long, value_name = "ARCHIVE")]
        output: PathBuf,
        /// Big-endian (Wii U) instead of little-endian (Switch).
        #[arg(long)]
        big_endian: bool,
        /// Replace ARCHIVE if it exists.
        #[arg(short, long)]
        force: bool,
    },
    /// Add new members: NAME=FILE (the member NAME gets FILE's bytes).
    Add(Edit),
    /// Replace members: NAME=FILE.
    Replace(Edit),
    /// Delete members by name.
    Delete {
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        #[arg(required = true, value_name = "MEMBER")]
        members: Vec<String>,
        /// Write the edited archive here instead of over ARCHIVE.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Replace OUT if it exists (ARCHIVE itself is always rewritten).
        #[arg(short, long)]
        force: bool,
    },
}

#[derive(Debug, Args)]
struct Edit {
    #[arg(value_name = "ARCHIVE")]
    archive: PathBuf,
    /// NAME=FILE pairs.
    #[arg(required = true, value_name = "NAME=FILE")]
    members: Vec<String>,
    /// Write the edited archive here instead of over ARCHIVE.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace OUT if it exists (ARCHIVE itself is always rewritten).
    #[arg(short, long)]
    force: bool,
    /// Refuse a replacement that changes a value's type from the one it has
    /// in the member it replaces (`9O.0` typed for `90.0` is a string);
    /// without it, each such change is a warning.
    #[arg(long)]
    strict: bool,
}

/// An archive opened through its layers.
struct Opened {
    layers: Vec<Layer>,
    variant: Variant,
    sarc: Sarc,
}

fn open(path: &Path, dicts: &Dictionaries) -> Result<Opened, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let data = crate::open::read(path, dicts).map_err(at)?;
    let (layers, inner) = formats::layer::peel_owned(data, dicts).map_err(at)?;
    if !sarc::looks_like(&inner) {
        return Err(at(format!(
            "not a SARC archive{} (magic {:02X?})",
            if layers.is_empty() {
                String::new()
            } else {
                format!(" inside {}", layers_text(&layers))
            },
            &inner[..inner.len().min(4)]
        )));
    }
    // The members' bytes are ranges of the archive's buffer, not copies.
    let inner = std::sync::Arc::new(inner);
    let (variant, sarc) = sarc::decode_shared(&inner).map_err(|e| at(format!("sarc {e}")))?;
    Ok(Opened {
        layers,
        variant,
        sarc,
    })
}

/// An error naming the first of `members` that archive `a` lacks.
fn require_members(archive: &Path, a: &Opened, members: &[String]) -> Result<(), String> {
    match members
        .iter()
        .find(|m| !a.sarc.nodes.iter().any(|n| n.name == m.as_str()))
    {
        Some(m) => Err(format!(
            "{}: the archive has no member {}",
            archive.display(),
            crate::inputs::shown(m)
        )),
        None => Ok(()),
    }
}

fn layers_text(layers: &[Layer]) -> String {
    layers
        .iter()
        .map(|l| match *l {
            Layer::Zstd {
                dictionary: Some(d),
            } => format!("zstd (dictionary {d})"),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ▸ ")
}

/// What a member holds, in a word: its format, through its layers.
fn kind_of(bytes: &[u8], dicts: &Dictionaries) -> String {
    if let Some(layer) = Layer::detect(bytes) {
        return match peel(bytes, dicts) {
            Ok((_, inner)) => format!("{layer} ▸ {}", kind_of(&inner, dicts)),
            Err(_) => layer.to_string(),
        };
    }
    match Format::detect(bytes) {
        Some(f) => f.to_string(),
        None => bytes
            .get(..4)
            .filter(|m| m.iter().all(|b| b.is_ascii_alphanumeric()))
            .map_or("bytes".to_owned(), |m| {
                String::from_utf8_lossy(m).into_owned()
            }),
    }
}

/// Runs `codec archive`.
pub fn run(args: &ArchiveArgs) -> ExitCode {
    let inputs: Vec<PathBuf> = match &args.job {
        Job::List { archives, .. } => archives.clone(),
        Job::Extract { archive, .. } | Job::Delete { archive, .. } => vec![archive.clone()],
        Job::Add(e) | Job::Replace(e) => vec![e.archive.clone()],
        Job::Create { output, .. } => vec![output.clone()],
    };
    let dicts = match crate::open::dictionaries(&args.zstd_dict, &inputs) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let result = match &args.job {
        Job::List { archives, json } => list(archives, *json, &dicts),
        Job::Extract {
            archive,
            members,
            output,
            text,
            force,
        } => extract(archive, members, output.as_deref(), *text, *force, &dicts),
        Job::Create {
            folder,
            output,
            big_endian,
            force,
        } => create(folder, output, *big_endian, *force, &dicts),
        Job::Add(e) => edit(e, &dicts, EditKind::Add),
        Job::Replace(e) => edit(e, &dicts, EditKind::Replace),
        Job::Delete {
            archive,
            members,
            output,
            force,
        } => delete(archive, members, output.as_deref(), *force, &dicts),
    };
    match result {
        Ok(text) => {
            if crate::inputs::print(&text) {
                ExitCode::SUCCESS
            } else {
                crate::inputs::failure()
            }
        }
        Err(e) => {
            eprintln!("codec: {e}");
            crate::inputs::failure()
        }
    }
}

fn list(archives: &[PathBuf], json: bool, dicts: &Dictionaries) -> Result<String, String> {
    let mut out = String::new();
    for path in archives {
        let a = open(path, dicts)?;
        let shown = crate::inputs::shown(&path.display().to_string()).into_owned();
        if json {
            let members: Vec<serde_json::Value> = a
                .sarc
                .nodes
                .iter()
                .map(|n| {
                    serde_json::json!({
                        "name": n.name.as_str(),
                        "size": n.data.value.len(),
                        "format": kind_of(&n.data.value, dicts),
                        "align": n.data.align,
                    })
                })
                .collect();
            let layers: Vec<String> = a.layers.iter().map(|l| layers_text(&[*l])).collect();
            let doc = serde_json::json!({
                "archive": shown,
                "layers": layers,
                "byte_order": if a.variant == Variant::Big { "big" } else { "little" },
                "members": members,
            });
            let _ = writeln!(out, "{doc}");
            continue;
        }
        let total: usize = a.sarc.nodes.iter().map(|n| n.data.value.len()).sum();
        let mut way = shown;
        if !a.layers.is_empty() {
            let _ = write!(way, " ▸ {}", layers_text(&a.layers));
        }
        let _ = writeln!(
            out,
            "{way} ▸ SARC, {}-endian: {} members, {total} bytes",
            if a.variant == Variant::Big {
                "big"
            } else {
                "little"
            },
            a.sarc.nodes.len()
        );
        let _ = writeln!(
            out,
            "{:>10}  {:>6}  {:<16}  name",
            "size", "align", "format"
        );
        for n in &a.sarc.nodes {
            let _ = writeln!(
                out,
                "{:>10}  {:>6}  {:<16}  {}",
                n.data.value.len(),
                format!("0x{:x}", n.data.align),
                kind_of(&n.data.value, dicts),
                crate::inputs::shown(&n.name)
            );
        }
    }
    Ok(out)
}

fn extract(
    archive: &Path,
    members: &[String],
    output: Option<&Path>,
    text: bool,
    force: bool,
    dicts: &Dictionaries,
) -> Result<String, String> {
    let a = open(archive, dicts)?;
    let out_dir = output.map_or_else(
        || {
            let mut p = archive.as_os_str().to_owned();
            p.push(".files");
            PathBuf::from(p)
        },
        Path::to_path_buf,
    );
    require_members(archive, &a, members)?;
    let names = crate::text::load_names(&[], &[])?;
    let mut staged = crate::atomic::Staged::new();
    let mut written = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut created = Vec::new();
    for node in &a.sarc.nodes {
        if !members.is_empty() && !members.iter().any(|m| m == node.name.as_str()) {
            continue;
        }
        let rel = safe_relative(&node.name).ok_or_else(|| {
            format!(
                "{}: member {} is not a relative path inside a folder; not extracted",
                archive.display(),
                crate::inputs::shown(&format!("{:?}", node.name.as_str()))
            )
        })?;
        let (rel, bytes) = match text
            .then(|| formats::sarc::folder::text_form(&node.data.value, &names))
            .flatten()
        {
            Some((_, ext, t)) => (format!("{rel}.{ext}"), t.into_bytes()),
            None => (rel, node.data.value.to_vec()),
        };
        if !seen.insert(rel.to_lowercase()) {
            return Err(format!(
                "{}: two members would be written to {rel}; extract them one at a time with -o",
                archive.display()
            ));
        }
        let path = out_dir.join(&rel);
        if path.exists() && !force {
            return Err(format!(
                "{}: exists; use --force to replace it",
                path.display()
            ));
        }
        if let Some(parent) = path.parent() {
            created.extend(crate::atomic::create_dirs(parent)?);
        }
        staged.add(&path, &bytes, force)?;
        written.push(path);
    }
    if let Err(e) = staged.commit() {
        crate::atomic::remove_created(&created);
        return Err(e);
    }
    let mut out = String::new();
    for p in &written {
        let _ = writeln!(
            out,
            "wrote {}",
            crate::inputs::shown(&p.display().to_string())
        );
    }
    Ok(out)
}

/// The layers an archive named `path` is written in: `.zs` → zstd (with
/// the game's dictionary for the name when it was given), `.s*` → Yaz0.
fn layers_for_name(path: &Path, dicts: &Dictionaries) -> Vec<Layer> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".zs") {
        let id = if name.ends_with(".pack.zs") {
            3
        } else if name.ends_with(".bcett.byml.zs") {
            2
        } else {
            1
        };
        let dictionary = dicts.get(id).is_some().then_some(id);
        return vec![Layer::Zstd { dictionary }];
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    if ext.len() > 1 && ext.starts_with('s') && ext != "sarc" {
        return vec![Layer::Yaz0 { alignment: 0 }];
    }
    Vec::new()
}

fn create(
    folder: &Path,
    output: &Path,
    big: bool,
    force: bool,
    dicts: &Dictionaries,
) -> Result<String, String> {
    if !folder.is_dir() {
        return Err(format!("{}: not a folder", folder.display()));
    }
    let target = Target::resolve(folder, Some(output), force, |p| Ok(p.to_owned()))?;
    let mut files: Vec<String> = folder_files(folder)?.into_iter().collect();
    files.sort();
    let mut nodes = Vec::with_capacity(files.len());
    for rel in &files {
        let bytes = read_inside(folder, rel, u64::MAX)?;
        nodes.push((Node::new(rel, bytes), false));
    }
    let count = nodes.len();
    let sarc = Sarc::new(settle_alignment(nodes));
    let variant = if big { Variant::Big } else { Variant::Little };
    let bytes = sarc::encode(&sarc, variant).map_err(|e| format!("SARC encode error: {e}"))?;
    let layers = layers_for_name(output, dicts);
    let bytes = wrap(bytes, &layers, dicts)?;
    target.write(&bytes)?;
    let way = if layers.is_empty() {
        String::new()
    } else {
        format!(" in {}", layers_text(&layers))
    };
    Ok(format!(
        "wrote {} ({count} members{way})\n",
        crate::inputs::shown(&output.display().to_string())
    ))
}

#[derive(Clone, Copy, PartialEq)]
enum EditKind {
    Add,
    Replace,
}

/// Writes `a` back, in its layers, to `output` or over `archive`.
fn write_back(
    archive: &Path,
    output: Option<&Path>,
    force: bool,
    a: Opened,
    nodes: Vec<(Node, bool)>,
    dicts: &Dictionaries,
) -> Result<String, String> {
    if crate::open::split_member(archive).is_some() && output.is_none() {
        return Err(format!(
            "{}: an archive inside an archive is written with -o OUT",
            archive.display()
        ));
    }
    let out = output.unwrap_or(archive);
    // An edit rewrites its archive; another file named by -o is replaced
    // only when asked, like every other output.
    let replace = output.is_none() || force || same_file(out, archive);
    if !replace && std::fs::symlink_metadata(out).is_ok() {
        return Err(format!(
            "{}: exists; use --force to replace it",
            out.display()
        ));
    }
    let mut sarc = a.sarc;
    sarc.nodes = settle_alignment(nodes);
    let bytes = sarc::encode(&sarc, a.variant).map_err(|e| format!("SARC encode error: {e}"))?;
    let bytes = wrap(bytes, &a.layers, dicts)?;
    crate::atomic::write(out, &bytes, replace)?;
    Ok(format!(
        "wrote {} ({} members)\n",
        crate::inputs::shown(&out.display().to_string()),
        sarc.nodes.len()
    ))
}

fn edit(e: &Edit, dicts: &Dictionaries, kind: EditKind) -> Result<String, String> {
    let a = open(&e.archive, dicts)?;
    let mut changes = Vec::new();
    for pair in &e.members {
        let (name, file) = pair
            .split_once('=')
            .ok_or_else(|| format!("{pair}: expected NAME=FILE"))?;
        if safe_relative(name).is_none() {
            return Err(format!(
                "{}: not a member name (a relative path: no leading /, no .. or empty parts)",
                crate::inputs::shown(name)
            ));
        }
        let bytes =
            std::fs::read(file).map_err(|err| format!("{file}: {}", formats::io_message(&err)))?;
        let old = a.sarc.nodes.iter().find(|n| n.name == name);
        if let Some(old) = old {
            // The new member's values against the member it replaces: a
            // typo that made a number a string still encodes.
            let names = formats::aamp::names::NameTable::from_env().unwrap_or_default();
            for c in formats::retype::changes(&old.data.value, &bytes, &names) {
                let what = format!(
                    "{}:{name}: {} was {} in the member it replaces, and is {} in {file}",
                    e.archive.display(),
                    c.key,
                    c.was,
                    c.now
                );
                crate::inputs::warn_or_refuse(what, e.strict)?;
            }
        }
        let exists = old.is_some();
        match (kind, exists) {
            (EditKind::Add, true) => {
                return Err(format!(
                    "{}: already has a member {name}; use `codec archive replace`",
                    e.archive.display()
                ))
            }
            (EditKind::Replace, false) => {
                return Err(format!(
                    "{}: has no member {name}; use `codec archive add`",
                    e.archive.display()
                ))
            }
            _ => {}
        }
        changes.push((name.to_owned(), bytes));
    }
    let mut nodes: Vec<(Node, bool)> = a
        .sarc
        .nodes
        .iter()
        .cloned()
        .map(
            |mut n| match changes.iter().find(|(name, _)| *name == n.name.as_str()) {
                // Bytes as they were: the alignment as it was.
                Some((_, bytes)) => {
                    let same = n.data.value == *bytes;
                    n.data.value = bytes.clone().into();
                    (n, same)
                }
                None => (n, true),
            },
        )
        .collect();
    if kind == EditKind::Add {
        for (name, bytes) in changes {
            nodes.push((Node::new(&name, bytes), false));
        }
    }
    write_back(&e.archive, e.output.as_deref(), e.force, a, nodes, dicts)
}

fn delete(
    archive: &Path,
    members: &[String],
    output: Option<&Path>,
    force: bool,
    dicts: &Dictionaries,
) -> Result<String, String> {
    let a = open(archive, dicts)?;
    require_members(archive, &a, members)?;
    let nodes: Vec<(Node, bool)> = a
        .sarc
        .nodes
        .iter()
        .filter(|n| !members.iter().any(|m| m == n.name.as_str()))
        .cloned()
        .map(|n| (n, true))
        .collect();
    write_back(archive, output, force, a, nodes, dicts)
}

/// Do `a` and `b` name the same file (both existing)?
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
