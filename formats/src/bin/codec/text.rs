//! `codec to-text FILE` and `codec from-text FILE`: binary ↔ editable text
//! (AAMP ↔ YAML in oead's dialect, AINB ↔ JSON, legacy BDAT ↔ JSON/CSV),
//! written atomically.

use crate::atomic::Staged;
use crate::FormatArg;
use clap::Args;
use formats::aamp::names::{NameTable, NAMES_ENV, NUMBERED_NAMES_ENV};
use formats::Format;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const OUTPUT_HELP: &str = "Where to write: a path, or `-` for standard output.";

/// Arguments of `codec to-text`.
#[derive(Debug, Args)]
#[command(
    about = "Convert a binary file to editable text (AAMP to YAML, AINB and BDAT to JSON)",
    long_about = "Convert a binary file to editable text: AAMP parameter archives \
                  become YAML in the dialect of oead and roead (`!io`, `!list`, \
                  `!obj`, `!vec3`, `!str64`, `!u`, ...), byte for byte what oead \
                  writes when given the same names. `codec from-text` turns the text \
                  back into the identical binary.\n\n\
                  The format is detected from the file's magic bytes (--format \
                  overrides).\n\n\
                  Key names: AAMP stores only CRC32 hashes of names. They are \
                  recovered from the names files (--names, one name per line, e.g. \
                  the community's botw_hashed_names.txt; default: the files in \
                  $CODEC_AAMP_NAMES), from numbered patterns (--numbered-names, one \
                  printf-style pattern such as `Item_%02d` per line, or Rust-style \
                  `Item_{:02}`; default: $CODEC_AAMP_NUMBERED_NAMES), from the \
                  document's own strings, and by guessing from the parent's name and \
                  the index (`Children_3`, `Item_04`, ...). A hash nothing explains \
                  is written as the bare decimal number. Several files in an \
                  environment variable are separated like PATH. No names ship with \
                  the tool.\n\n\
                  Output: without -o, FILE.yml beside the input (FILE plus `.yml`). \
                  An existing output is replaced only with --force. The file is \
                  written to a temporary file in the same folder and renamed into \
                  place, so a failed or interrupted run leaves no partial file and \
                  the old output untouched. The input is never overwritten unless it \
                  is named with -o and --force is given.\n\n\
                  AINB: the JSON of dt-12345/AINB (its key names and shape; EXB \
                  instructions as its disassembly text, `STR float GMem[0x8], float \
                  1.5`), plus `$`-prefixed keys for what that shape loses (string \
                  pool order and orphan strings, attachment and multi-input indices, \
                  raw slots, EXB layout), so that `codec from-text` gives back the \
                  identical binary. Without -o: FILE.json beside the input.\n\n\
                  Checked against the peers' own libraries on every corpus file \
                  (tests/peers/check.py): oead 1.3.0 reads the AAMP YAML, and the \
                  `ainb` package 0.2.16 (dt-12345/AINB) reads the AINB JSON.",
    after_help = "Exit status: 0 on success, 1 when the file cannot be read, decoded \
                  or written (nothing is written then), 2 on a usage error."
)]
pub struct ToTextArgs {
    /// The binary file to convert.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    #[arg(short, long, value_name = "OUT", help = OUTPUT_HELP, long_help = "Where to write the text: a path, or `-` for standard output. Default: FILE.yml beside the input.")]
    output: Option<PathBuf>,

    /// Replace OUT if it already exists.
    #[arg(short, long)]
    force: bool,

    /// Read FILE as FORMAT instead of detecting it from its magic bytes.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,

    /// A names file: one name per line (repeatable). Replaces
    /// $CODEC_AAMP_NAMES.
    #[arg(long, value_name = "FILE")]
    names: Vec<PathBuf>,

    /// A numbered-patterns file: one pattern such as `Item_%02d` per line
    /// (repeatable). Replaces $CODEC_AAMP_NUMBERED_NAMES.
    #[arg(long, value_name = "FILE")]
    numbered_names: Vec<PathBuf>,

    /// Legacy BDAT: read FILE as this game's tables instead of detecting
    /// it (switch, xc2, xc1de; x, xcx; wii, xc1; new3ds, 3ds, xc3d). The
    /// tables are written as bdat-toolset lays them out:
    /// OUT/<name>.bschema and OUT/<name>/<Table>.json (OUT: -o, or FILE's
    /// folder). Each is first written to a temporary file; they replace the
    /// old files only once every table converted and every file is
    /// complete (the .bschema last), so a failed run changes nothing.
    #[arg(long, value_name = "GAME")]
    game: Option<String>,

    /// Legacy BDAT: write each table as CSV instead of JSON (export only).
    #[arg(long)]
    csv: bool,
}

/// Arguments of `codec from-text`.
#[derive(Debug, Args)]
#[command(
    about = "Convert editable text back to the binary file (YAML to AAMP, JSON to AINB or BDAT)",
    long_about = "Convert editable text back to the binary file: an AAMP YAML \
                  document (its root tagged `!io`; oead's or roead's dialect) becomes \
                  the AAMP file, laid out byte for byte as Nintendo's tools do.\n\n\
                  Keys are names (hashed with CRC32) or bare integers (the hash \
                  itself); a quoted number is a name. Errors give the line and column \
                  and what was expected.\n\n\
                  Output: without -o, the input path without its `.yml` or `.yaml` \
                  extension (`Foo.bxml.yml` → `Foo.bxml`). An existing output is \
                  replaced only with --force. The file is written to a temporary file \
                  in the same folder and renamed into place, so a failed or \
                  interrupted run leaves no partial file and the old output \
                  untouched. The input is never overwritten unless it is named with \
                  -o and --force is given.\n\n\
                  AINB: a JSON document as `codec to-text` or dt-12345/AINB writes it \
                  (detected by its `Nodes` and `Version` keys; --format ainb \
                  overrides). EXB instructions are read as the library's text or as \
                  the objects older versions of codec wrote. What the `$` keys leave \
                  out (pool order, attachment indices, constant table, ...) is derived \
                  as the game's tools lay it out. Without -o: FILE without its `.json` \
                  extension.\n\n\
                  Checked against the peers' own libraries on every corpus file \
                  (tests/peers/check.py): codec reads what oead 1.3.0 writes (AAMP \
                  YAML) and what the `ainb` package 0.2.16 writes (AINB JSON).",
    after_help = "Exit status: 0 on success, 1 when the text cannot be read, parsed, \
                  encoded or written (nothing is written then), 2 on a usage error."
)]
pub struct FromTextArgs {
    /// The text file to convert (`.yml` or `.yaml`).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    #[arg(short, long, value_name = "OUT", help = OUTPUT_HELP, long_help = "Where to write the binary: a path, or `-` for standard output. Default: FILE without its .yml or .yaml extension.")]
    output: Option<PathBuf>,

    /// Replace OUT if it already exists.
    #[arg(short, long)]
    force: bool,

    /// Read FILE as the text of FORMAT instead of detecting it (an AAMP
    /// document starts with the `!io` tag).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,

    /// Legacy BDAT (FILE is a .bschema; its tables are read from the folder
    /// beside it named after the file): write this game's layout instead of
    /// the one the .bschema names.
    #[arg(long, value_name = "GAME")]
    game: Option<String>,
}

/// Runs `codec to-text`.
pub fn run_to_text(args: &ToTextArgs) -> ExitCode {
    finish(to_text(args))
}

/// Runs `codec from-text`.
pub fn run_from_text(args: &FromTextArgs) -> ExitCode {
    finish(from_text(args))
}

fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("codec: {message}");
            ExitCode::FAILURE
        }
    }
}

fn to_text(args: &ToTextArgs) -> Result<(), String> {
    let input = &args.file;
    if let Some(done) = crate::bdat::to_text(
        input,
        args.output.as_deref(),
        args.force,
        args.format.map(Format::from),
        args.game.as_deref(),
        args.csv,
    ) {
        return done;
    }
    let format_arg = args.format.map(Format::from);
    if let Some(done) = crate::ainb::to_text(input, args.output.as_deref(), args.force, format_arg)
    {
        return done;
    }
    let target = Target::resolve(input, args.output.as_deref(), args.force, |p| {
        let mut name: OsString = p.as_os_str().to_owned();
        name.push(".yml");
        Ok(PathBuf::from(name))
    })?;
    let bytes = fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let format = match args.format {
        Some(f) => Format::from(f),
        None => Format::detect(&bytes).ok_or_else(|| {
            format!(
                "{}: not a binary format this tool converts (no known magic; to-text reads AAMP)",
                input.display()
            )
        })?,
    };
    let text = match format {
        Format::Aamp => {
            let pio = formats::aamp::decode(&bytes)
                .map_err(|e| format!("{}: decode error {e}", input.display()))?;
            let names = load_names(&args.names, &args.numbered_names)?;
            formats::aamp::text::to_yaml(&pio, &names)
        }
        #[allow(unreachable_patterns)]
        other => {
            return Err(format!(
                "{}: {other} has no text form yet (to-text converts AAMP)",
                input.display()
            ))
        }
    };
    target.write(text.as_bytes())
}

fn from_text(args: &FromTextArgs) -> Result<(), String> {
    let input = &args.file;
    if let Some(done) = crate::bdat::from_text(
        input,
        args.output.as_deref(),
        args.force,
        args.format.map(Format::from),
        args.game.as_deref(),
    ) {
        return done;
    }
    let format_arg = args.format.map(Format::from);
    if let Some(done) =
        crate::ainb::from_text(input, args.output.as_deref(), args.force, format_arg)
    {
        return done;
    }
    let target = Target::resolve(input, args.output.as_deref(), args.force, |p| {
        match p.extension().and_then(|e| e.to_str()) {
            Some(ext) if ext.eq_ignore_ascii_case("yml") || ext.eq_ignore_ascii_case("yaml") => {
                Ok(p.with_extension(""))
            }
            _ => Err(format!(
                "{}: cannot name the output (the input does not end in .yml or .yaml); use -o OUT",
                p.display()
            )),
        }
    })?;
    let bytes = fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            input.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let format = match args.format {
        Some(f) => Format::from(f),
        None if formats::aamp::text::looks_like_aamp_text(&text) => Format::Aamp,
        None => {
            return Err(format!(
            "{}: not a text document this tool converts (an AAMP document starts with the !io tag)",
            input.display()
        ))
        }
    };
    let bytes = match format {
        Format::Aamp => {
            let pio = formats::aamp::text::from_yaml(&text).map_err(|e| {
                format!("{}:{}:{}: {}", input.display(), e.line, e.column, e.message)
            })?;
            formats::aamp::encode(&pio)
                .map_err(|e| format!("{}: encode error: {e}", input.display()))?
        }
        #[allow(unreachable_patterns)]
        other => {
            return Err(format!(
                "{}: {other} has no text form yet (from-text converts AAMP)",
                input.display()
            ))
        }
    };
    target.write(&bytes)
}

/// The names from the command line, or else from the environment.
pub(crate) fn load_names(names: &[PathBuf], numbered: &[PathBuf]) -> Result<NameTable, String> {
    let from_env = |var: &str| -> Vec<PathBuf> {
        std::env::var_os(var)
            .map(|v| {
                std::env::split_paths(&v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let names = if names.is_empty() {
        from_env(NAMES_ENV)
    } else {
        names.to_vec()
    };
    let numbered = if numbered.is_empty() {
        from_env(NUMBERED_NAMES_ENV)
    } else {
        numbered.to_vec()
    };
    let mut table = NameTable::new();
    for path in &names {
        table
            .load_names_file(path)
            .map_err(|e| format!("names: {e}"))?;
    }
    for path in &numbered {
        table
            .load_patterns_file(path)
            .map_err(|e| format!("numbered names: {e}"))?;
    }
    Ok(table)
}

/// Where the output goes.
#[derive(Debug)]
pub(crate) enum Target {
    Stdout,
    File { path: PathBuf, replace: bool },
}

impl Target {
    /// Decides the output before any work is done, refusing what must not
    /// be overwritten.
    pub(crate) fn resolve(
        input: &Path,
        output: Option<&Path>,
        force: bool,
        derive: impl FnOnce(&Path) -> Result<PathBuf, String>,
    ) -> Result<Target, String> {
        let (path, named) = match output {
            Some(p) if p.as_os_str() == "-" => return Ok(Target::Stdout),
            Some(p) => (p.to_owned(), true),
            None => (derive(input)?, false),
        };
        let exists = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                return Err(format!(
                    "{}: is a folder; name a file with -o",
                    path.display()
                ))
            }
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        if exists {
            if same_file(input, &path) && !(named && force) {
                return Err(format!(
                    "{}: refusing to overwrite the input (name it with -o and add --force to do so)",
                    path.display()
                ));
            }
            if !force {
                return Err(format!(
                    "{}: exists; use --force to replace it",
                    path.display()
                ));
            }
        }
        Ok(Target::File {
            path,
            replace: force,
        })
    }

    /// Writes everything, atomically for files: a temporary file in the
    /// same folder, renamed over the target once complete.
    pub(crate) fn write(&self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Target::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("standard output: {e}"))
            }
            Target::File { path, replace } => crate::atomic::write(path, bytes, *replace),
        }
    }

    /// Stages a file target's bytes to be renamed into place with the other
    /// files of the run (see [`crate::atomic`]).
    pub(crate) fn stage(&self, staged: &mut Staged, bytes: &[u8]) -> Result<(), String> {
        match self {
            Target::Stdout => Err("several files cannot go to standard output".into()),
            Target::File { path, replace } => staged.add(path, bytes, *replace),
        }
    }
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
