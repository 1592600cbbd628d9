//! One way in for every subcommand: what an input on the command line is
//! (a file, `-` for standard input, or `ARCHIVE:MEMBER` for one file inside
//! an archive, through the archive's compression layers), and the zstd
//! dictionaries of a run, given once.
//!
//! Dictionaries: the files of `--zstd-dict`, else those of
//! `$CODEC_ZSTD_DICT` (separated like PATH); and, unnamed, the game's own
//! `Pack/ZsDic.pack.zs` when an input is a romfs tree or lies in one, named
//! anywhere: a file inside it, the romfs folder itself, or a folder up to
//! two levels above the romfs (a game dump holding `romfs/`). Each frame
//! names the dictionary it needs by id, so loading one too many is
//! harmless.

use formats::layer::{peel, Dictionaries};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `--zstd-dict`, as every subcommand takes it.
#[derive(Debug, Clone, clap::Args)]
pub struct DictArgs {
    /// A zstd dictionary (repeatable): a raw dictionary, or an archive of
    /// them such as the game's ZsDic.pack.zs. Default: the files in
    /// $CODEC_ZSTD_DICT (separated like PATH), and for a file inside the
    /// game's romfs, its Pack/ZsDic.pack.zs. Each frame names the
    /// dictionary it needs by id.
    #[arg(long = "zstd-dict", value_name = "FILE")]
    pub zstd_dict: Vec<PathBuf>,
}

impl DictArgs {
    /// The run's dictionaries (see [`dictionaries`]).
    pub fn load(&self, inputs: &[PathBuf]) -> Result<Dictionaries, String> {
        dictionaries(&self.zstd_dict, inputs)
    }
}

/// The environment variable that names zstd dictionaries.
pub const DICT_ENV: &str = "CODEC_ZSTD_DICT";

/// Where a romfs tree keeps its dictionaries, from its root.
const ROMFS_DICTS: &str = "Pack/ZsDic.pack.zs";

/// The dictionaries of a run: `cli` (`--zstd-dict`), else `$CODEC_ZSTD_DICT`;
/// plus the romfs dictionaries found above any of `inputs`.
pub fn dictionaries(cli: &[PathBuf], inputs: &[PathBuf]) -> Result<Dictionaries, String> {
    let mut dicts = Dictionaries::default();
    let (files, from): (Vec<PathBuf>, &str) = if cli.is_empty() {
        let env = std::env::var_os(DICT_ENV)
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        (env, "$CODEC_ZSTD_DICT")
    } else {
        (cli.to_vec(), "--zstd-dict")
    };
    for path in &files {
        load(&mut dicts, path).map_err(|e| format!("{}: {from}: {e}", path.display()))?;
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    for input in inputs {
        let file = split_member(input).map_or_else(|| input.clone(), |(a, _)| a);
        let Some(found) = romfs_dictionaries(&file) else {
            continue;
        };
        if seen.contains(&found) {
            continue;
        }
        // A broken dictionary file found unnamed is reported when a frame
        // needs it, not here.
        let _ = load(&mut dicts, &found);
        seen.push(found);
    }
    Ok(dicts)
}

fn load(dicts: &mut Dictionaries, path: &Path) -> Result<usize, String> {
    let data = std::fs::read(path).map_err(|e| formats::io_message(&e))?;
    dicts.add_file(&data)
}

/// How many folders below a folder named on the command line the romfs
/// dictionaries are looked for (`dump/romfs/Pack/ZsDic.pack.zs` from
/// `dump`).
const ROMFS_SEARCH_DEPTH: usize = 2;

/// The `Pack/ZsDic.pack.zs` of the romfs tree `input` lies in (the folder
/// itself, or one above it), or, for a folder, of a romfs tree inside it
/// (up to [`ROMFS_SEARCH_DEPTH`] folders down, symbolic links not
/// followed; the first found in name order).
fn romfs_dictionaries(input: &Path) -> Option<PathBuf> {
    let input = std::fs::canonicalize(input).ok()?;
    let skip = usize::from(!input.is_dir());
    if let Some(found) = input
        .ancestors()
        .skip(skip)
        .map(|dir| dir.join(ROMFS_DICTS))
        .find(|p| p.is_file())
    {
        return Some(found);
    }
    let mut level = vec![input];
    for _ in 0..ROMFS_SEARCH_DEPTH {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut children: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect();
            children.sort();
            for child in children {
                let p = child.join(ROMFS_DICTS);
                if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                    return Some(p);
                }
                next.push(child);
            }
        }
        level = next;
    }
    None
}

/// `ARCHIVE:MEMBER` split, when `path` itself does not exist and a prefix
/// before a `:` is a file.
pub fn split_member(path: &Path) -> Option<(PathBuf, String)> {
    if path.as_os_str() == "-" || path.exists() {
        return None;
    }
    let s = path.to_str()?;
    s.match_indices(':').find_map(|(i, _)| {
        let (archive, member) = (&s[..i], &s[i + 1..]);
        (!archive.is_empty() && !member.is_empty() && Path::new(archive).is_file())
            .then(|| (PathBuf::from(archive), member.to_owned()))
    })
}

/// Whether `path` names an input [`read`] can open that is not a plain
/// path: standard input, or a member of an archive.
pub fn is_addressed(path: &Path) -> bool {
    path.as_os_str() == "-" || split_member(path).is_some()
}

/// The bytes of an input: a file, standard input (`-`), or an archive's
/// member as stored (a member in a member: `A.pack:B.sarc:C.byml`).
pub fn read(path: &Path, dicts: &Dictionaries) -> Result<Vec<u8>, String> {
    if path.as_os_str() == "-" {
        let mut data = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut data)
            .map_err(|e| format!("standard input: {e}"))?;
        return Ok(data);
    }
    match split_member(path) {
        None => std::fs::read(path).map_err(|e| formats::io_message(&e)),
        Some((archive, member)) => {
            let data = std::fs::read(&archive).map_err(|e| formats::io_message(&e))?;
            member_of(&data, &member, dicts)
        }
    }
}

/// The stored bytes of `member` in the archive `data` (inside its layers);
/// `a:b` reaches into an archive member `a`.
pub fn member_of(data: &[u8], member: &str, dicts: &Dictionaries) -> Result<Vec<u8>, String> {
    let (_, inner) = peel(data, dicts)?;
    if !formats::sarc::looks_like(&inner) {
        return Err(format!(
            "not an archive, so it has no member {}",
            formats::shown(member)
        ));
    }
    let inner = std::sync::Arc::new(inner);
    let (_, archive) = formats::sarc::decode_shared(&inner).map_err(|e| format!("sarc {e}"))?;
    if let Some(node) = archive.nodes.iter().find(|n| n.name == member) {
        return Ok(node.data.value.to_vec());
    }
    // A member of a member.
    for (i, _) in member.match_indices(':') {
        let (outer, rest) = (&member[..i], &member[i + 1..]);
        if let Some(node) = archive.nodes.iter().find(|n| n.name == outer) {
            return member_of(&node.data.value, rest, dicts);
        }
    }
    let mut names: Vec<&str> = archive.nodes.iter().map(|n| n.name.as_str()).collect();
    names.sort_by_key(|n| strsim_distance(n, member));
    Err(format!(
        "the archive has no member {} (closest: {})",
        formats::shown(member),
        names
            .iter()
            .take(3)
            .map(|n| formats::shown(n).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// A rough distance between two names, for suggestions: the length of
/// what they do not share at either end.
fn strsim_distance(a: &str, b: &str) -> usize {
    let prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (a.len() + b.len()).saturating_sub(2 * (prefix + suffix).min(a.len().min(b.len())))
}
