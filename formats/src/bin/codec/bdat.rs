//! Legacy BDAT in `codec to-text` and `codec from-text`: a file becomes a
//! folder of text as bdat-toolset lays it out (`OUT/<name>.bschema` and
//! `OUT/<name>/<Table>.json`), and back.

use crate::atomic::{self, Staged};
use crate::text::Target;
use formats::bdat::{self, text, Variant};
use formats::Format;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The game named with `--game`.
fn game(name: Option<&str>) -> Result<Option<Variant>, String> {
    name.map(|g| {
        Variant::from_game(g).ok_or_else(|| {
            format!(
                "--variant {g}: not a game of legacy BDAT (switch, xc2, xc1de; x, xcx; wii, xc1; new3ds, 3ds, xc3d)"
            )
        })
    })
    .transpose()
}

/// `codec to-text` for a BDAT file; `None` when FILE is not one (and no
/// option asks for BDAT), so that the other formats get their turn.
pub fn to_text(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    format: Option<Format>,
    game_name: Option<&str>,
    csv: bool,
) -> Option<Result<Vec<PathBuf>, String>> {
    let forced = game_name.is_some() || format == Some(Format::Bdat);
    if format.is_some_and(|f| f != Format::Bdat) {
        return None;
    }
    if !forced {
        let mut prefix = Vec::new();
        let opened = fs::File::open(input).and_then(|f| f.take(256).read_to_end(&mut prefix));
        if opened.is_err() || !bdat::looks_like(&prefix) {
            return None;
        }
    }
    Some(to_text_bdat(input, output, force, game_name, csv))
}

fn to_text_bdat(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    game_name: Option<&str>,
    csv: bool,
) -> Result<Vec<PathBuf>, String> {
    let forced = game(game_name)?;
    let folder = match output {
        Some(p) if p.as_os_str() == "-" => {
            return Err(format!(
                "{}: a BDAT file becomes a folder of files; name the folder with -o",
                input.display()
            ))
        }
        Some(p) => p.to_owned(),
        None => crate::text::relocated(input.parent().map(Path::to_owned).unwrap_or_default()),
    };
    let bytes = fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let (variant, file) = match forced {
        Some(v) => (v, bdat::decode_as(&bytes, v)),
        None => match bdat::detect(&bytes) {
            Some(v) => (v, bdat::decode_as(&bytes, v)),
            None => {
                return Err(format!(
                "{}: not a legacy BDAT file this tool recognises (name the game with --variant)",
                input.display()
            ))
            }
        },
    };
    let file = file.map_err(|e| format!("{}: decode error {e}", input.display()))?;
    let file_name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bdat".into());
    let texts = text::file_to_text(&file, variant, &file_name);
    let tables_dir = folder.join(&file_name);
    // Decide every output before writing any: the .bschema first here.
    let mut outputs: Vec<(Target, Vec<u8>)> = Vec::new();
    let schema_path = folder.join(format!("{file_name}.bschema"));
    outputs.push((
        Target::resolve(input, Some(&schema_path), force, |p| Ok(p.to_owned()))?,
        texts.bschema.into_bytes(),
    ));
    for ((stem, json), table) in texts.tables.into_iter().zip(&file.tables) {
        let (path, body) = if csv {
            (
                tables_dir.join(format!("{stem}.csv")),
                text::table_to_csv(table),
            )
        } else {
            (tables_dir.join(format!("{stem}.json")), json)
        };
        outputs.push((
            Target::resolve(input, Some(&path), force, |p| Ok(p.to_owned()))?,
            body.into_bytes(),
        ));
    }
    // Every file is staged (written to a temporary file beside its
    // target) before any is renamed into place, the .bschema last: a run
    // that fails leaves the old files as they were, and no new folder.
    let created = atomic::create_dirs(&tables_dir)?;
    let mut staged = Staged::new();
    let all_staged = outputs[1..]
        .iter()
        .chain(&outputs[..1])
        .try_for_each(|(target, body)| target.stage(&mut staged, body));
    let done = match all_staged {
        Ok(()) => staged.commit(),
        Err(e) => {
            // The staged files go first, then the folders they were in.
            drop(staged);
            Err(e)
        }
    };
    if done.is_err() {
        atomic::remove_created(&created);
    }
    done.map(|()| outputs.iter().filter_map(|(t, _)| t.path()).collect())
}

/// `codec from-text` for a `.bschema`; `None` when FILE is not one.
pub fn from_text(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    format: Option<Format>,
    game_name: Option<&str>,
) -> Option<Result<Vec<PathBuf>, String>> {
    if format.is_some_and(|f| f != Format::Bdat) {
        return None;
    }
    let is_schema = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bschema"));
    if !is_schema && format != Some(Format::Bdat) {
        return None;
    }
    Some(from_text_bdat(input, output, force, game_name))
}

fn from_text_bdat(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    game_name: Option<&str>,
) -> Result<Vec<PathBuf>, String> {
    let forced = game(game_name)?;
    let src = fs::read_to_string(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let schema = text::read_bschema(&src).map_err(|e| format!("{}: {e}", input.display()))?;
    let variant = forced.unwrap_or(schema.variant);
    let folder = input.parent().map(Path::to_owned).unwrap_or_default();
    let tables_dir = folder.join(&schema.file_name);
    let target = Target::resolve(input, output, force, |_| {
        Ok(folder.join(format!("{}.bdat", schema.file_name)))
    })?;
    let file = text::file_from_text(&schema, variant, |stem| {
        let path: PathBuf = tables_dir.join(format!("{stem}.json"));
        fs::read_to_string(&path).map_err(|e| text::TextError {
            file: path.display().to_string(),
            at: String::new(),
            message: format!("cannot read the table `{stem}` the .bschema lists: {e}"),
        })
    })
    .map_err(|e| {
        if e.file.contains(std::path::MAIN_SEPARATOR) {
            e.to_string()
        } else {
            format!("{}/{e}", tables_dir.display())
        }
    })?;
    let bytes = bdat::encode(&file, variant)
        .map_err(|e| format!("{}: encode error: {e}", input.display()))?;
    target.write(&bytes)
}
