//! `codec to-text FILE` and `codec from-text FILE`: binary ↔ editable text
//! (AAMP ↔ YAML in oead's dialect, AINB ↔ JSON, legacy BDAT ↔ JSON/CSV),
//! written atomically.

use crate::archive::{Opened, Peeled};
use crate::atomic::Staged;
use crate::FormatArg;
use clap::Args;
use formats::aamp::names::{NameTable, NAMES_ENV, NUMBERED_NAMES_ENV};
use formats::registry::{LayersNote, TextContext, TextOptions};
use formats::Format;
use rayon::prelude::*;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const OUTPUT_HELP: &str = "Where to write: a path, or `-` for standard output.";

/// Arguments of `codec to-text`.
#[derive(Debug, Clone, Args)]
#[command(
    about = "Convert a binary file to editable text (AAMP, BYML and MSBT to YAML, AINB and BDAT to JSON)",
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
                  BYML: YAML in oead's dialect (`!u`, `!l`, `!ul`, `!f64`, \
                  `!!binary`, `!!file`; short leaf containers in flow style). \
                  The first line, a comment other readers ignore, records the \
                  version and byte order (`# BYML version 2, little-endian`); each \
                  hash lists its keys in the order the file placed their values \
                  (YAML mappings are unordered, so oead and roead read the same \
                  document), which makes `codec from-text` give back the identical \
                  file. Without -o: FILE.yml beside the input.\n\n\
                  AINB: the JSON of dt-12345/AINB (its key names and shape; EXB \
                  instructions as its disassembly text, `STR float GMem[0x8], float \
                  1.5`), plus `$`-prefixed keys for what that shape loses (string \
                  pool order and orphan strings, attachment and multi-input indices, \
                  raw slots, EXB layout), so that `codec from-text` gives back the \
                  identical binary. Without -o: FILE.json beside the input.\n\n\
                  MSBT: the form TotK's editors read and write (TotkBits, \
                  NX-Editor): `Label: |-` then the message, one entry per message \
                  in message order, tags inline as `<3 Type='0' Data='0x0B00'/>`, \
                  closing tags as `<[3|1]>`; a first entry `$msbt` only where the \
                  file departs from TotK's defaults (docs/msbt-text.md). A file the \
                  text cannot give back is refused with a pointer to the generic \
                  form (--schema schemas/msbt.ron). Without -o: FILE.yml beside the \
                  input.\n\n\
                  Checked against the peers' own libraries on every corpus file \
                  (tests/peers/check.py, tests/peers/msbt.py): oead 1.3.0 reads the \
                  AAMP YAML, the `ainb` package 0.2.16 (dt-12345/AINB) the AINB \
                  JSON, and pymsbt 1.0.2 the MSBT text.",
    after_help = "Exit status: 0 on success, 1 when the file cannot be read, decoded \
                  or written (nothing is written then), 2 on a usage error."
)]
pub struct ToTextArgs {
    /// The binary files to convert (folders: every file of a supported
    /// format below).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[arg(short, long, value_name = "OUT", help = OUTPUT_HELP, long_help = "Where to write the text: a path, or `-` for standard output (one input only). Default, beside the input: FILE.yml for AAMP, FILE.json for AINB; for legacy BDAT, OUT is the folder that gets FILE.bschema and a folder of tables (default: the input's folder).")]
    output: Option<PathBuf>,

    /// Replace OUT if it already exists.
    #[arg(short, long)]
    force: bool,

    /// Print only the number of files written, not each one.
    #[arg(short, long)]
    quiet: bool,

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
    #[arg(long = "variant", alias = "game", value_name = "NAME")]
    game: Option<String>,

    /// Legacy BDAT: write each table as CSV instead of JSON (export only).
    #[arg(long)]
    csv: bool,

    /// Read the files with this schema, interpreted (no build), and write
    /// the generic JSON form of their documents (docs/generic-text.md):
    /// FILE.json beside each. `from-text --schema` reads it back.
    /// With --variant, as that variant of the schema (else each in turn,
    /// as `check` reads them).
    #[arg(long, value_name = "FILE.ron", conflicts_with_all = ["format", "csv"])]
    schema: Option<PathBuf>,

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

/// A byte order on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Endian {
    Little,
    Big,
}

/// Arguments of `codec from-text`.
#[derive(Debug, Clone, Args)]
#[command(
    about = "Convert editable text back to the binary file (YAML to AAMP, BYML or MSBT, JSON to AINB or BDAT)",
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
                  BYML: YAML in oead's or roead's dialect. The version and byte \
                  order come from --byml-version and --endian, else from the \
                  `# BYML version N, little-endian` first line `codec to-text` \
                  writes; a text that says neither is refused (BotW: 2, TotK: 7; \
                  Switch: little, Wii U: big). Hashes are written in the order the \
                  text lists their keys. Detected by that first line or by \
                  --byml-version/--endian (--format byml overrides).\n\n\
                  AINB: a JSON document as `codec to-text` or dt-12345/AINB writes it \
                  (detected by its `Nodes` and `Version` keys; --format ainb \
                  overrides). EXB instructions are read as the library's text or as \
                  the objects older versions of codec wrote. What the `$` keys leave \
                  out (pool order, attachment indices, constant table, ...) is derived \
                  as the game's tools lay it out. Without -o: FILE without its `.json` \
                  extension.\n\n\
                  MSBT: the TotK editors' text (docs/msbt-text.md), detected by a \
                  name ending in `.msbt.yml`, a first entry `$msbt`, a first \
                  message written `|-`, or --format msbt; laid out as Nintendo's \
                  writer lays it out (labels in their hash's slot, the slot count by \
                  TotK's rule unless `$msbt.slots` says, 0xAB padding). Without -o: \
                  FILE without its `.yml` extension. msyt's YAML (BotW; \
                  FILE.msyt, or `group_count` and `entries` at the top) is read too: \
                  its messages in the order listed, little-endian UTF-16 unless \
                  --endian big or --variant Be/LeUtf8/... says (msyt's --platform and \
                  --encoding); without -o: FILE.msbt.\n\n\
                  Checked against the peers' own libraries on every corpus file \
                  (tests/peers/check.py): codec reads what oead 1.3.0 writes (AAMP \
                  YAML) and what the `ainb` package 0.2.16 writes (AINB JSON).",
    after_help = "Exit status: 0 on success, 1 when the text cannot be read, parsed, \
                  encoded or written (nothing is written then), 2 on a usage error."
)]
pub struct FromTextArgs {
    /// The text files to convert: AAMP YAML (`.yml`, `.yaml`), AINB JSON
    /// (`.json`), BDAT `.bschema` (folders: every such file below).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    #[arg(short, long, value_name = "OUT", help = OUTPUT_HELP, long_help = "Where to write the binary: a path, or `-` for standard output (one input only). Default, beside the input: FILE without its .yml, .yaml or .json extension; for a .bschema, the file it names (NAME.bdat).")]
    output: Option<PathBuf>,

    /// Replace OUT if it already exists.
    #[arg(short, long)]
    force: bool,

    /// Print only the number of files written, not each one.
    #[arg(short, long)]
    quiet: bool,

    /// Refuse an edit that changes a value's type from the one it has in
    /// the file being replaced (or, for an unpacked archive, in the
    /// archive it came from): `9O.0` typed for `90.0` is a string, `ture`
    /// for `true` too; with --schema, a stored number that held the
    /// position of something the edit moved (an offset the schema keeps as
    /// a number). Without it, each such change is a warning.
    #[arg(long)]
    strict: bool,

    /// Read FILE as the text of FORMAT instead of detecting it (an AAMP
    /// document starts with the `!io` tag).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,

    /// Read the generic JSON form `to-text --schema` writes, and write the
    /// file with this schema, interpreted (no build): FILE without its
    /// `.json` beside each.
    #[arg(long, value_name = "FILE.ron", conflicts_with = "format")]
    schema: Option<PathBuf>,

    /// BYML: the version to write (1 to 7; BotW 2, TotK 7). Overrides the
    /// text's `# BYML version N, ...` first line; needed when the text has
    /// none (oead's and roead's YAML).
    /// (Named --byml-version: -V and --version print the tool's version,
    /// as on every subcommand.)
    #[arg(long = "byml-version", value_name = "N", value_parser = clap::value_parser!(u16).range(1..=7))]
    byml_version: Option<u16>,

    /// BYML, and msyt's YAML: the byte order to write (Switch: little, Wii U: big).
    /// Overrides the text's first line; needed when the text has none.
    #[arg(long, value_enum, value_name = "ORDER")]
    endian: Option<Endian>,

    /// Legacy BDAT (FILE is a .bschema; its tables are read from the folder
    /// beside it named after the file): write this game's layout instead of
    /// the one the .bschema names. msyt's YAML (FILE.msyt): the MSBT
    /// variant to write, as msyt's --platform and --encoding (Le: Switch
    /// UTF-16, the default; Be: Wii U; LeUtf8, BeUtf8, LeUtf32, BeUtf32).
    #[arg(long = "variant", alias = "game", value_name = "NAME")]
    game: Option<String>,

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

/// Runs `codec to-text` on every input.
pub fn run_to_text(args: &ToTextArgs) -> ExitCode {
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    // Several inputs with -o DIR: every output goes into DIR, as it would
    // go beside its input.
    let into = match output_folder(&args.paths, args.output.as_deref()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let args = &ToTextArgs {
        output: if into.is_some() {
            None
        } else {
            args.output.clone()
        },
        ..args.clone()
    };
    if let Some(schema) = &args.schema {
        let schemas = match crate::dump::Schemas::new(Some(schema)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return crate::inputs::usage();
            }
        };
        return run_each(&args.paths, into.as_deref(), args.quiet, |path, named| {
            let c = schemas.given()?;
            let takes = named
                || first_bytes(path).is_some_and(|d| {
                    formats::layer::Layer::detect(&d).is_some() || schemas.takes(&d, false)
                });
            takes.then(|| schema_to_text(path, args, &dicts, c))
        });
    }
    run_each(&args.paths, into.as_deref(), args.quiet, |path, named| {
        // An archive (compressed or not) becomes a folder. Only a file
        // whose first bytes are a SARC's or a layer's is read whole.
        let data = starts_like_archive(path)
            .then(|| fs::read(path).ok())
            .flatten();
        let peeled = match data.map(|d| crate::archive::open(d, &dicts)) {
            Some(Opened::Compressed(peeled)) => {
                // A compressed single file: converted when named, or
                // when what it holds has a text form; one that cannot be
                // opened (its dictionary not found) is a failure, not a
                // file skipped in silence.
                let convertible = named
                    || peeled.is_err()
                    || peeled.as_ref().is_ok_and(|p| {
                        matches!(Format::detect(&p.inner), Some(Format::Aamp | Format::Byml))
                    });
                return convertible.then(|| to_text(path, args, &dicts, Some(peeled)));
            }
            Some(Opened::Archive(p)) => Some(p),
            Some(Opened::Plain) | None => None,
        };
        if let Some(peeled) = peeled {
            let out = args
                .output
                .clone()
                .unwrap_or_else(|| relocated(crate::archive::folder_for(path)));
            let names = match load_names(&args.names, &args.numbered_names) {
                Ok(n) => n,
                Err(e) => return Some(Err(e)),
            };
            return Some(crate::archive::to_folder(
                path, peeled, &out, args.force, &names,
            ));
        }
        if !named && !is_binary_we_convert(path) {
            return None;
        }
        Some(to_text(path, args, &dicts, None))
    })
}

/// Runs `codec from-text` on every input.
pub fn run_from_text(args: &FromTextArgs) -> ExitCode {
    // A folder to-text wrote for an archive is packed back into it; the
    // other paths are converted file by file.
    let (folders, paths): (Vec<PathBuf>, Vec<PathBuf>) = args
        .paths
        .iter()
        .cloned()
        .partition(|p| crate::archive::is_archive_folder(p));
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    if !folders.is_empty() {
        if args.output.is_some() && args.paths.len() > 1 {
            eprintln!("codec: -o names the output of one input; with several inputs each output goes beside its input");
            return crate::inputs::usage();
        }
        let mut failed = false;
        for dir in &folders {
            let done = crate::archive::archive_for(dir)
                .or_else(|e| args.output.clone().ok_or(e))
                .and_then(|default| {
                    let out = args.output.clone().unwrap_or(default);
                    let target =
                        Target::resolve(dir, Some(&out), args.force, |p| Ok(p.to_owned()))?;
                    // The archive it was unpacked from, if still there: an
                    // edit that changes a value's type is reported.
                    let original = crate::archive::archive_for(dir)
                        .ok()
                        .filter(|p| p.is_file())
                        .and_then(|p| fs::read(p).ok())
                        .and_then(|d| formats::layer::peel(&d, &dicts).ok())
                        .and_then(|(_, inner)| formats::sarc::decode(&inner).ok())
                        .map(|(_, s)| s);
                    let options = formats::sarc::folder::PackOptions {
                        original: original.as_ref(),
                        strict: args.strict,
                    };
                    let packed = crate::archive::from_folder(dir, &dicts, &options)?;
                    for note in &packed.notes {
                        eprintln!("codec: {}: {note}", dir.display());
                    }
                    target.write(&packed.bytes)
                });
            match done {
                Ok(files) if !args.quiet => {
                    for f in files {
                        println!("wrote {}", crate::inputs::shown(&f.display().to_string()));
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("codec: {e}");
                    failed = true;
                }
            }
        }
        if args.quiet && !failed {
            println!("wrote {} files", folders.len());
        }
        if paths.is_empty() || failed {
            return if failed {
                crate::inputs::failure()
            } else {
                ExitCode::SUCCESS
            };
        }
    }
    let into = match output_folder(&paths, args.output.as_deref()) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let args = &FromTextArgs {
        output: if into.is_some() {
            None
        } else {
            args.output.clone()
        },
        ..args.clone()
    };
    if let Some(schema) = &args.schema {
        let schemas = match crate::dump::Schemas::new(Some(schema)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                return crate::inputs::usage();
            }
        };
        return run_each(&paths, into.as_deref(), args.quiet, |path, named| {
            let c = schemas.given()?;
            let json = path.extension().is_some_and(|e| e == "json");
            (named || json).then(|| schema_from_text(path, args, &dicts, c))
        });
    }
    run_each(&paths, into.as_deref(), args.quiet, |path, named| {
        if !named && !is_text_we_convert(path) {
            return None;
        }
        Some(from_text(path, args, &dicts))
    })
}

/// Whether a file's first bytes are a SARC's or a compression layer's.
fn starts_like_archive(path: &Path) -> bool {
    let mut prefix = Vec::new();
    let read = fs::File::open(path).and_then(|f| {
        use std::io::Read;
        f.take(16).read_to_end(&mut prefix)
    });
    read.is_ok()
        && (formats::sarc::looks_like(&prefix) || formats::layer::Layer::detect(&prefix).is_some())
}

/// Whether a file met in a folder is a binary that `to-text` converts.
fn is_binary_we_convert(path: &Path) -> bool {
    let mut prefix = Vec::new();
    let read = fs::File::open(path).and_then(|f| {
        use std::io::Read;
        f.take(256).read_to_end(&mut prefix)
    });
    read.is_ok() && Format::detect(&prefix).is_some()
}

/// Whether a file met in a folder is text that `from-text` converts: an
/// AAMP or BYML YAML document, an AINB JSON document, or a BDAT `.bschema`.
fn is_text_we_convert(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if ext == "bschema" {
        return true;
    }
    if ext == "msyt" {
        return true;
    }
    if !matches!(ext.as_str(), "yml" | "yaml" | "json") {
        return false;
    }
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    formats::aamp::text::looks_like_aamp_text(&text)
        || formats::byml::text::looks_like_byml_text(&text)
        || formats::ainb::text::looks_like_ainb_json(&text)
        || formats::msbt::looks_like_text(&text)
        || is_msbt_text_name(path)
        || formats::msbt::looks_like_editor_text(&text)
}

/// The folder every output goes into when -o names one for several inputs
/// (or a folder of inputs); `None` when -o names the one output, or is
/// not given.
fn output_folder(paths: &[PathBuf], output: Option<&Path>) -> Result<Option<PathBuf>, ExitCode> {
    let Some(out) = output else {
        return Ok(None);
    };
    let several = paths.len() > 1 || paths.iter().any(|p| p.is_dir());
    if !several {
        return Ok(None);
    }
    if out.as_os_str() == "-" {
        eprintln!("codec: -o - (standard output) takes one input");
        return Err(crate::inputs::usage());
    }
    if out.exists() && !out.is_dir() {
        eprintln!(
            "codec: {}: with several inputs, -o names a folder (this is a file)",
            out.display()
        );
        return Err(crate::inputs::usage());
    }
    Ok(Some(out.to_owned()))
}

thread_local! {
    /// While one input converts in a run with -o DIR: the folder its
    /// outputs would go to beside it, and DIR (see [`relocated`]).
    static OUTPUT_ROOT: std::cell::RefCell<Option<(PathBuf, PathBuf)>> =
        const { std::cell::RefCell::new(None) };
}

/// The folder an input's outputs are placed relative to: the folder named
/// on the command line that holds it, else the input's own folder.
fn root_of(paths: &[PathBuf], input: &Path) -> PathBuf {
    paths
        .iter()
        .filter(|p| p.is_dir())
        .find(|p| input.starts_with(p))
        .cloned()
        .unwrap_or_else(|| input.parent().map(Path::to_owned).unwrap_or_default())
}

/// `path`, an output that would go beside its input, moved into the -o
/// folder of the run (the same place relative to it); unchanged when the
/// run has none.
pub(crate) fn relocated(path: PathBuf) -> PathBuf {
    OUTPUT_ROOT.with(|r| match &*r.borrow() {
        Some((root, into)) => match path.strip_prefix(root) {
            Ok(rel) => into.join(rel),
            Err(_) => into.join(path.file_name().unwrap_or_default()),
        },
        None => path,
    })
}

/// Converts every input (folders walked; files in them that `convert`
/// declines are skipped), printing one line per file written, or their
/// number with `-q`.
fn run_each(
    paths: &[PathBuf],
    into: Option<&Path>,
    quiet: bool,
    convert: impl Fn(&Path, bool) -> Option<Result<Vec<PathBuf>, String>> + Sync,
) -> ExitCode {
    let entries = crate::inputs::collect(paths);
    // Files convert on all cores; their lines are printed in input order.
    let bar = crate::inputs::progress_bar("converting", entries.len());
    let meter = crate::inputs::Throughput::start();
    let results: Vec<Option<Result<Vec<PathBuf>, String>>> = entries
        .par_iter()
        .map(|(path, entry)| {
            let result = match entry {
                crate::inputs::Input::File { named } => {
                    let root = into.map(|dir| (root_of(paths, path), dir.to_owned()));
                    OUTPUT_ROOT.with(|r| *r.borrow_mut() = root);
                    let result = convert(path, *named);
                    OUTPUT_ROOT.with(|r| *r.borrow_mut() = None);
                    result
                }
                crate::inputs::Input::Error(e) => Some(Err(format!("{}: {e}", path.display()))),
                crate::inputs::Input::Other => None,
            };
            if matches!(result, Some(Ok(_))) {
                meter.add(fs::metadata(path).map_or(0, |m| m.len()));
            }
            bar.inc(1);
            result
        })
        .collect();
    bar.finish_and_clear();
    let (mut converted, mut failed, mut written) = (0usize, 0usize, 0usize);
    let mut out = String::new();
    for result in results {
        match result {
            None => {}
            Some(Ok(files)) => {
                converted += 1;
                written += files.len();
                if !quiet {
                    for f in &files {
                        out.push_str(&format!(
                            "wrote {}\n",
                            crate::inputs::shown(&f.display().to_string())
                        ));
                    }
                }
            }
            Some(Err(message)) => {
                eprintln!("codec: {message}");
                failed += 1;
            }
        }
    }
    if quiet && written > 0 {
        out.push_str(&format!("wrote {written} files\n"));
    } else if converted > 1 {
        out.push_str(&meter.line(converted));
    }
    if !out.is_empty() && !crate::inputs::print(&out) {
        return crate::inputs::failure();
    }
    if converted == 0 && failed == 0 {
        eprintln!("{}", crate::inputs::nothing_found(paths));
        return crate::inputs::failure();
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        crate::inputs::failure()
    }
}

/// `codec to-text` of one file; `peeled`: its bytes out of their layers,
/// when the caller has read and peeled them already.
fn to_text(
    input: &Path,
    args: &ToTextArgs,
    dicts: &formats::layer::Dictionaries,
    peeled: Option<Result<Peeled, String>>,
) -> Result<Vec<PathBuf>, String> {
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
    let at = |e: String| format!("{}: {e}", input.display());
    // A compressed file: its text, with the layers named (a comment, or
    // the form's own field).
    let (layers, bytes) = match peeled {
        Some(p) => p.map(|p| (p.layers, p.inner)).map_err(at)?,
        None => read_peeled(input, dicts).map_err(at)?,
    };
    let format = match args.format {
        Some(f) => Format::from(f),
        None => Format::detect(&bytes).ok_or_else(|| at(not_converted(&bytes, &layers)))?,
    };
    let entry = format.entry();
    let Some(form) = entry.text_form.as_ref() else {
        return Err(at(format!("{} has no text form", entry.name)));
    };
    if !layers.is_empty() && form.layers == LayersNote::Refused {
        return Err(at(format!(
            "{} inside compression layers: to-text writes the text of a compressed \
             AAMP, BYML, MSBT or RSTB file (its text records the layers); decompress it first",
            entry.name
        )));
    }
    let ext = format!(".{}", form.ext);
    let target = Target::resolve(input, args.output.as_deref(), args.force, beside(&ext))?;
    let names = if form.uses_names {
        load_names(&args.names, &args.numbered_names)?
    } else {
        NameTable::default()
    };
    let cx = TextContext {
        names: &names,
        layers: &layers,
    };
    let text = (form.to_text)(&bytes, &cx).map_err(at)?;
    // A member's YAML names the member it was made from (see `source`).
    let source = form
        .records_source
        .then(|| source::line(input, target.path().as_deref()))
        .flatten();
    let text = head_lines(text, form.layers, &layers, source);
    target.write(text.as_bytes())
}

/// A text with the lines it starts with: the layers' comment (where the
/// form keeps them in a comment) and the member it was made from; after
/// the first line where that line is the form's own (BYML's version).
fn head_lines(
    text: String,
    note: LayersNote,
    layers: &[formats::layer::Layer],
    source: Option<String>,
) -> String {
    let mut head = String::new();
    let commented = matches!(
        note,
        LayersNote::Comment | LayersNote::CommentAfterFirstLine
    );
    if commented && !layers.is_empty() {
        head.push_str(&formats::layer::comment_line(layers));
        head.push('\n');
    }
    if let Some(line) = source {
        head.push_str(&line);
        head.push('\n');
    }
    if head.is_empty() {
        return text;
    }
    match note {
        LayersNote::CommentAfterFirstLine => {
            let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
            format!("{first}\n{head}{rest}")
        }
        _ => format!("{head}{text}"),
    }
}

/// The first bytes of a file found in a folder (its magic, a layer's), so
/// that a file of no interest is never read whole.
fn first_bytes(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(256)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
}

/// A binary input's bytes out of its compression layers, and the layers
/// (outermost first; none for a plain file).
fn read_peeled(
    input: &Path,
    dicts: &formats::layer::Dictionaries,
) -> Result<(Vec<formats::layer::Layer>, Vec<u8>), String> {
    let raw = crate::open::read(input, dicts)?;
    if formats::layer::Layer::detect(&raw).is_some() {
        formats::layer::peel(&raw, dicts)
    } else {
        Ok((Vec::new(), raw))
    }
}

/// The text's name beside binary `p`: `p` and `ext` (`Foo.bxml.yml`). An
/// archive's member (`ARCHIVE:MEMBER`) has no folder of its own to be
/// beside, so -o must name its text.
pub(crate) fn beside(ext: &str) -> impl FnOnce(&Path) -> Result<PathBuf, String> + '_ {
    move |p| {
        if crate::open::is_addressed(p) {
            return Err(format!(
                "{}: name the output with -o (-o - for standard output)",
                p.display()
            ));
        }
        let mut name: OsString = p.as_os_str().to_owned();
        name.push(ext);
        Ok(PathBuf::from(name))
    }
}

/// The binary a YAML text is converted to: its name without `.yml` or
/// `.yaml`.
/// The binary a text names by its extension: `FILE.yml` (or `.yaml`) or
/// `FILE.json` gives `FILE`.
fn without_text_ext(ext: &'static str) -> impl Fn(&Path) -> Result<PathBuf, String> {
    move |p| {
        let yaml = ext == "yml";
        match p.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case(ext) || (yaml && e.eq_ignore_ascii_case("yaml")) => {
                Ok(p.with_extension(""))
            }
            _ => Err(format!(
                "{}: cannot name the output (the input does not end in {}); use -o OUT",
                p.display(),
                if yaml { ".yml or .yaml" } else { ".json" }
            )),
        }
    }
}

/// The text form a text is in, without `--format`: the first whose
/// reader recognises it, else the one its name says (`FILE.msbt.yml`),
/// else BYML's when its layout is given as options.
fn text_form_of(
    input: &Path,
    text: &str,
    options: &TextOptions,
) -> Option<&'static formats::registry::TextForm> {
    let forms = || {
        formats::registry::FORMATS
            .iter()
            .filter_map(|e| e.text_form.as_ref())
    };
    if let Some(f) = forms().find(|f| (f.looks_like)(text)) {
        return Some(f);
    }
    if is_msbt_text_name(input) {
        return formats::registry::text_form_named("msbt-yaml");
    }
    if options.byml_version.is_some() || options.big_endian.is_some() {
        return formats::registry::text_form_named("byml-yaml");
    }
    None
}

/// Named as msyt names its YAML: `FILE.msyt`.
fn is_msyt_name(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("msyt"))
}

/// `from-text` of msyt's YAML: the MSBT beside it (FILE.msbt), in the
/// byte order and encoding `--variant` (or `--endian`) names, little-endian
/// UTF-16 by default as msyt's `create --platform switch`.
fn msyt_from_text(
    input: &Path,
    args: &FromTextArgs,
    source: Option<String>,
) -> Result<Vec<PathBuf>, String> {
    let variant = match (args.game.as_deref(), args.endian) {
        (Some(name), _) => formats::msbt::variant_named(name).ok_or_else(|| {
            format!(
                "{}: --variant {name} is not an MSBT variant (Le, Be, LeUtf8, BeUtf8, LeUtf32, BeUtf32)",
                input.display()
            )
        })?,
        (None, Some(Endian::Big)) => "Be",
        (None, _) => "Le",
    };
    let Some(source) = source else {
        return Err(format!(
            "{}: not UTF-8 text (msyt's YAML is)",
            input.display()
        ));
    };
    let target = Target::resolve(input, args.output.as_deref(), args.force, |p| {
        Ok(p.with_extension("msbt"))
    })?;
    let bytes = formats::msbt::from_msyt(&source, variant)
        .map_err(|e| format!("{}: {e}", input.display()))?;
    target.write(&bytes)
}

/// Named as `to-text` names MSBT's text: `FILE.msbt.yml` (or `.yaml`).
fn is_msbt_text_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".msbt.yml") || name.ends_with(".msbt.yaml")
}

/// `to-text --schema`: the generic JSON form of one file's document, read
/// by the interpreter (through the file's compression layers, which the
/// JSON names).
fn schema_to_text(
    input: &Path,
    args: &ToTextArgs,
    dicts: &formats::layer::Dictionaries,
    c: &codec_schema::Checked,
) -> Result<Vec<PathBuf>, String> {
    let target = Target::resolve(input, args.output.as_deref(), args.force, beside(".json"))?;
    let at = |e: String| format!("{}: {e}", input.display());
    let (layers, bytes) = read_peeled(input, dicts).map_err(at)?;
    let (cv, node) = crate::dump::interpret(c, args.game.as_deref(), &bytes).map_err(at)?;
    let mut extra: Vec<(&str, serde_json::Value)> = Vec::new();
    if !layers.is_empty() {
        extra.push(("layers", formats::layer::describe(&layers).into()));
    }
    // The stored numbers that hold where something starts (most likely
    // offsets the schema keeps as numbers): `from-text` warns when the
    // edited document moves what one led to and the number stayed.
    let positions: Vec<serde_json::Value> = codec_interp::edits::stored_offsets(cv, &node)
        .iter()
        .filter(|s| s.wide)
        .map(codec_interp::edits::Suspect::to_json)
        .collect();
    if !positions.is_empty() {
        extra.push(("stored_positions", positions.into()));
    }
    let text = codec_interp::json::to_json(cv, &node.to_value(), &extra);
    target.write(text.as_bytes())
}

/// `from-text --schema`: a file written by the interpreter from the
/// generic JSON form (inside the layers the JSON names).
fn schema_from_text(
    input: &Path,
    args: &FromTextArgs,
    dicts: &formats::layer::Dictionaries,
    c: &codec_schema::Checked,
) -> Result<Vec<PathBuf>, String> {
    let target = Target::resolve(input, args.output.as_deref(), args.force, |p| {
        match p.extension() {
            Some(e) if e == "json" => Ok(p.with_extension("")),
            _ => Err(format!(
                "{}: not a .json file; name the output with -o",
                p.display()
            )),
        }
    })?;
    let at = |e: String| format!("{}: {e}", input.display());
    let text = fs::read_to_string(input).map_err(|e| at(e.to_string()))?;
    let (cv, read) = codec_interp::json::from_json(c, &text).map_err(at)?;
    let layers = match read.extra.get("layers") {
        None => Vec::new(),
        Some(serde_json::Value::String(s)) => formats::layer::parse(s).map_err(at)?,
        Some(_) => return Err(at("`layers` is not a string".into())),
    };
    if let Some(k) = read
        .extra
        .keys()
        .find(|k| *k != "layers" && *k != "stored_positions")
    {
        return Err(at(format!(
            "`{k}` is not a member of the generic form (schema, variant, layers, \
             stored_positions, document)"
        )));
    }
    let suspects: Vec<codec_interp::edits::Suspect> =
        match read.extra.get("stored_positions") {
            None => Vec::new(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|v| {
                    codec_interp::edits::Suspect::from_json(v).ok_or_else(|| {
                        at(format!(
                            "`stored_positions`: {v} is not {{\"field\", \"value\", \"target\", \"into\"}}"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(at("`stored_positions` is not a list".into())),
        };
    let glue = formats::interp_hooks::Glue;
    let bytes = codec_interp::encode(&cv, &read.document, &glue)
        .map_err(|e| at(format!("encode error: {e}")))?;
    if !suspects.is_empty() {
        let back = codec_interp::decode_partial_with(&cv, &bytes, Default::default(), &glue);
        for line in codec_interp::edits::stale_numbers(&back.root, &suspects) {
            let what = format!("{}: {line}", input.display());
            crate::inputs::warn_or_refuse(what, args.strict)?;
        }
    }
    let bytes = formats::layer::wrap(bytes, &layers, dicts).map_err(at)?;
    target.write(&bytes)
}

/// Why `to-text` does not convert `bytes` (found inside `layers`).
fn not_converted(bytes: &[u8], layers: &[formats::layer::Layer]) -> String {
    if bytes.is_empty() {
        return "empty file".to_owned();
    }
    if !layers.is_empty() {
        let layers: Vec<String> = layers.iter().map(|l| l.to_string()).collect();
        return format!(
            "content of no supported format inside {} (magic {:02X?})",
            layers.join(" ▸ "),
            &bytes[..bytes.len().min(4)]
        );
    }
    "not a binary format this tool converts (no known magic; to-text reads AAMP, AINB, MSBT, \
     BYML, legacy BDAT and SARC archives, also inside Yaz0 and zstd)"
        .to_owned()
}

fn from_text(
    input: &Path,
    args: &FromTextArgs,
    dicts: &formats::layer::Dictionaries,
) -> Result<Vec<PathBuf>, String> {
    if let Some(done) = crate::bdat::from_text(
        input,
        args.output.as_deref(),
        args.force,
        args.format.map(Format::from),
        args.game.as_deref(),
    ) {
        return done;
    }
    // MSBT's text is the editors' form; its generic JSON is read too.
    let source = fs::read_to_string(input).ok();
    if source
        .as_deref()
        .is_some_and(formats::msbt::looks_like_text)
    {
        return schema_from_text(input, args, dicts, formats::msbt::schema());
    }
    // msyt's YAML (BotW's MSBT text): FILE.msyt gives FILE.msbt.
    if is_msyt_name(input)
        || source
            .as_deref()
            .is_some_and(formats::msbt::msyt::looks_like_msyt)
    {
        return msyt_from_text(input, args, source);
    }
    if let Some(name) = &args.game {
        return Err(format!(
            "{}: --variant {name} names the layout of a .bschema's tables (legacy BDAT) or of \
             an MSBT written from msyt's YAML; this input is neither",
            input.display()
        ));
    }
    // A text's binary is named by dropping the text's extension: an input
    // with none of them needs `-o` (said before the input is read).
    let text_ext = input.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["yml", "yaml", "json"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    });
    if args.output.is_none() && !text_ext && !crate::open::is_addressed(input) {
        return Err(format!(
            "{}: cannot name the output (the input does not end in .yml or .yaml, or .json for a JSON text); use -o OUT",
            input.display()
        ));
    }
    let bytes = crate::open::read(input, dicts).map_err(|e| format!("{}: {e}", input.display()))?;
    if bytes.is_empty() {
        return Err(format!("{}: empty file", input.display()));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            input.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let options = TextOptions {
        byml_version: args.byml_version,
        big_endian: args.endian.map(|e| e == Endian::Big),
    };
    let form = match args.format {
        Some(f) => {
            let entry = Format::from(f).entry();
            entry.text_form.as_ref().ok_or_else(|| {
                format!(
                    "{}: {} has no text form (from-text converts {} and legacy BDAT)",
                    input.display(),
                    entry.name,
                    formats::registry::text_form_names().join(", ")
                )
            })?
        }
        None => text_form_of(input, &text, &options).ok_or_else(|| {
            let said: Vec<&str> = formats::registry::FORMATS
                .iter()
                .filter_map(|e| e.text_form.as_ref())
                .map(|f| f.recognised_by)
                .collect();
            format!(
                "{}: not a text document this tool converts ({}; a BYML text without its first line needs --format byml --byml-version N --endian little|big; MSBT text may be named FILE.msbt.yml; BDAT tables are read through their .bschema)",
                input.display(),
                said.join("; ")
            )
        })?,
    };
    let target = Target::resolve(
        input,
        args.output.as_deref(),
        args.force,
        without_text_ext(form.ext),
    )?;
    let file = (form.from_text)(&text, &options).map_err(|e| match e.at {
        Some((line, column)) => format!("{}:{line}:{column}: {}", input.display(), e.message),
        None => format!("{}: {}", input.display(), e.message),
    })?;
    let bytes = file.bytes;
    // A string among numbers that reads as numbers (a comma left out):
    // wrong with or without the original.
    for c in formats::retype::number_like_strings(&bytes) {
        let what = format!(
            "{}: {} is the string {:?} in an array of numbers (a comma left out?)",
            input.display(),
            c.key,
            c.text
        );
        crate::inputs::warn_or_refuse(what, args.strict)?;
    }
    // An edit that changes a value's type from the file being replaced,
    // else from the archive member the text was made from, when it is at
    // hand.
    let replaced = target
        .path()
        .filter(|p| p.is_file())
        .and_then(|p| fs::read(p).ok())
        .and_then(|d| formats::layer::peel(&d, dicts).ok())
        .map(|(_, inner)| ("the file it replaces".to_owned(), inner));
    let original = replaced.or_else(|| {
        source::member(&text, input, dicts)
            .map(|(named, inner)| (format!("{named}, which it was made from"), inner))
    });
    if let Some((what_was, old)) = original {
        for c in formats::retype::changes(&old, &bytes, &formats::retype::names_in(&text)) {
            let line =
                formats::retype::line_of(&text, &c.last).map_or(String::new(), |l| format!(":{l}"));
            let what = format!(
                "{}{line}: {} was {} in {what_was}, and is {} now",
                input.display(),
                c.key,
                c.was,
                c.now
            );
            crate::inputs::warn_or_refuse(what, args.strict)?;
        }
    }
    // The layers the text names, in its own fields (RSTB's `layers`) or
    // its comment (a compressed file's text).
    let layers = match file.layers {
        Some(layers) => layers,
        None => match formats::layer::from_comment(&text) {
            Ok(None) => Vec::new(),
            Ok(Some((_, layers))) => layers,
            Err(e) => return Err(format!("{}:{e}", input.display())),
        },
    };
    let bytes = if layers.is_empty() {
        bytes
    } else {
        formats::layer::wrap(bytes, &layers, dicts)
            .map_err(|e| format!("{}: {e}", input.display()))?
    };
    target.write(&bytes)
}

/// The comment by which the YAML of an archive member records where it
/// came from (`# codec source: Pack/Armor.pack.zs:Phive/Belt.bgyml`), so
/// that `from-text` can compare the edited document with that member when
/// no file is being replaced. The archive's path is relative to the text's
/// folder and inside it: a text names no file outside where it lies (a
/// member of an archive elsewhere gets no comment), and a comment naming
/// one, or a link, is not followed. MSBT's text has no such comment: the
/// editors would read it as a label.
mod source {
    use std::path::Path;

    const PREFIX: &str = "# codec source:";

    /// The comment for the text of `input`, written to `text_at`, when
    /// `input` is an archive's member inside the text's folder.
    pub(super) fn line(input: &Path, text_at: Option<&Path>) -> Option<String> {
        let (archive, member) = crate::open::split_member(input)?;
        let archive = std::fs::canonicalize(archive).ok()?;
        let folder = std::fs::canonicalize(text_at?.parent()?).ok()?;
        let within = archive
            .strip_prefix(&folder)
            .ok()?
            .to_str()?
            .replace('\\', "/");
        let within = formats::sarc::folder::safe_relative(&within)?;
        (!member.contains(['\n', '\r'])).then(|| format!("{PREFIX} {within}:{member}"))
    }

    /// The member a text's comment names (before its first line that is not
    /// a comment), `(as named, its bytes out of their layers)`, when it is
    /// at hand.
    pub(super) fn member(
        text: &str,
        text_at: &Path,
        dicts: &formats::layer::Dictionaries,
    ) -> Option<(String, Vec<u8>)> {
        let named = text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix(PREFIX))?
            .trim();
        let (archive, _) = named.split_once(':')?;
        formats::sarc::folder::safe_relative(archive)?;
        let folder = text_at.parent().unwrap_or(Path::new(""));
        // Every step a folder or a file, none a link.
        let mut at = folder.to_path_buf();
        for part in archive.split('/') {
            at.push(part);
            if std::fs::symlink_metadata(&at)
                .ok()?
                .file_type()
                .is_symlink()
            {
                return None;
            }
        }
        let addressed = folder.join(named);
        let stored = crate::open::read(&addressed, dicts).ok()?;
        let (_, inner) = formats::layer::peel(&stored, dicts).ok()?;
        Some((named.to_owned(), inner))
    }
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
            None => (relocated(derive(input)?), false),
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
    pub(crate) fn write(&self, bytes: &[u8]) -> Result<Vec<PathBuf>, String> {
        match self {
            Target::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("standard output: {e}"))?;
                Ok(Vec::new())
            }
            Target::File { path, replace } => {
                // A missing folder on the way is made (and removed again
                // when the write fails).
                let created = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => crate::atomic::create_dirs(p)?,
                    _ => Vec::new(),
                };
                if let Err(e) = crate::atomic::write(path, bytes, *replace) {
                    crate::atomic::remove_created(&created);
                    return Err(e);
                }
                Ok(vec![path.clone()])
            }
        }
    }

    /// The file this target writes (none for standard output).
    pub(crate) fn path(&self) -> Option<PathBuf> {
        match self {
            Target::Stdout => None,
            Target::File { path, .. } => Some(path.clone()),
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
