//! `codec coverage PATH...`: for each file, the bytes its schema explains
//! (fields, padding), the bytes of fields declared unknown, and the ranges
//! nothing explains; then a summary over all files.

use crate::dump;
use crate::FormatArg;
use clap::Args;
use codec_interp::{self as interp, coverage, render};
use codec_schema::{Checked, Type};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Gaps listed per file unless `--all-gaps`.
const GAPS_SHOWN: usize = 8;

/// Arguments of `codec coverage`.
#[derive(Debug, Args)]
pub struct CoverageArgs {
    /// Files and folders; folders are walked recursively and files of no
    /// supported format (or, with --schema, without the schema's magic)
    /// are skipped.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Interpret the files with this schema instead of the built-in ones.
    #[arg(long, value_name = "FILE.ron")]
    schema: Option<PathBuf>,

    /// Use the built-in schema of FORMAT instead of detecting it by magic.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    format: Option<FormatArg>,

    /// Read the files as this game's or version's variant instead of the
    /// detected one (bdat: switch/xc2, x/xcx, wii/xc1, new3ds/3ds; ainb:
    /// 0x404, 0x407, 0x408; or a variant of --schema by its name).
    #[arg(long, alias = "game", value_name = "NAME")]
    variant: Option<String>,

    /// List every unexplained range, not just the first few per file.
    #[arg(long)]
    all_gaps: bool,

    /// Only the summary line (and files that fail to decode).
    #[arg(long, short = 'q', conflicts_with = "json")]
    quiet: bool,

    /// Print one JSON object per file and a summary object, for tools.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

/// What one file gave.
enum Outcome {
    /// A compression layer: what it holds has an outcome of its own.
    Layer,
    Skipped,
    Failed(String),
    /// Coverage, and the decode error when only part of the file was read.
    Covered(coverage::Coverage, Option<String>, Numbers),
}

/// Runs `codec coverage`. Exit status 0 when every file decoded, 1 when one
/// did not, 2 when the schema cannot be used.
pub fn run(args: &CoverageArgs) -> ExitCode {
    let schemas = match dump::Schemas::new(args.schema.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprint!("codec: schema errors:\n{e}");
            return ExitCode::from(2);
        }
    };
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let files = crate::inputs::collect(&args.paths);
    let bar = crate::inputs::progress_bar("coverage", files.len());
    // Per input, a labelled outcome for it and for each file inside its
    // layers and archives.
    let mut outcomes: Vec<Vec<(String, Outcome)>> = files
        .par_iter()
        .map(|(path, entry)| {
            let label = crate::inputs::shown(&path.display().to_string()).into_owned();
            let outcomes = match entry {
                crate::inputs::Input::File { named } => match crate::open::read(path, &dicts) {
                    Ok(data) => {
                        let mut found = Vec::new();
                        crate::archive::each_file(&data, &label, &dicts, &mut |l, d| {
                            let top = l == label;
                            let outcome = match d {
                                Err(e) => Outcome::Failed(e),
                                Ok(d) => one(d, *named && top, &schemas, args, top),
                            };
                            found.push((l, outcome));
                        });
                        found
                    }
                    Err(e) => vec![(label, Outcome::Failed(e))],
                },
                crate::inputs::Input::Error(e) => vec![(label, Outcome::Failed(e.clone()))],
                crate::inputs::Input::Other => vec![(label, Outcome::Skipped)],
            };
            bar.inc(1);
            outcomes
        })
        .collect();
    bar.finish_and_clear();
    doubt_stored_positions(&mut outcomes);

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut totals = render::Totals::default();
    let mut text = String::new();
    let mut skipped = 0;
    for (name, outcome) in outcomes.iter().flatten() {
        let path = Path::new(name);
        let name = name.clone();
        match outcome {
            Outcome::Layer => {}
            Outcome::Skipped => skipped += 1,
            Outcome::Failed(e) => {
                totals.failed += 1;
                crate::inputs::error(path, e);
                if args.json {
                    let _ = writeln!(text, "{}", serde_json::json!({"file": name, "error": e}));
                }
            }
            Outcome::Covered(cov, err, _) => {
                if let Some(e) = err {
                    totals.failed += 1;
                    if args.json {
                        let _ = writeln!(
                            text,
                            "{}",
                            serde_json::json!({"file": name, "error": e, "partial": cov})
                        );
                    } else {
                        crate::inputs::error(path, format_args!("decode error {e}"));
                        if !args.quiet {
                            let _ = writeln!(
                                text,
                                "{name}: before the decode error: {}",
                                file_text("", cov, args.all_gaps).trim_start_matches(": ")
                            );
                        }
                    }
                    continue;
                }
                totals.add(cov);
                if args.json {
                    let _ = writeln!(
                        text,
                        "{}",
                        serde_json::json!({"file": name, "coverage": cov})
                    );
                } else if !args.quiet {
                    text.push_str(&file_text(&name, cov, args.all_gaps));
                }
            }
        }
    }
    if args.json {
        let _ = writeln!(
            text,
            "{}",
            serde_json::json!({"summary": {
                "files": totals.files, "failed": totals.failed, "skipped": skipped,
                "bytes": totals.len, "known": totals.known, "padding": totals.padding,
                "unknown": totals.unknown, "unexplained": totals.unexplained, "gaps": totals.gaps,
            }})
        );
    } else {
        if skipped > 0 {
            let _ = writeln!(text, "skipped {skipped} files of no supported format");
        }
        let _ = writeln!(text, "{}", totals.summary());
    }
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("codec: cannot write the report: {e}");
        }
        return ExitCode::FAILURE;
    }
    if totals.files == 0 && totals.failed == 0 {
        eprintln!("{}", crate::inputs::nothing_found(&args.paths));
        return crate::inputs::failure();
    }
    if totals.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A file's lines, with at most [`GAPS_SHOWN`] gaps unless `all`.
fn file_text(name: &str, cov: &coverage::Coverage, all: bool) -> String {
    if all || cov.gaps.len() <= GAPS_SHOWN {
        return render::coverage_text(name, cov);
    }
    let mut shown = cov.clone();
    shown.gaps.truncate(GAPS_SHOWN);
    let mut s = render::coverage_text(name, cov)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    s.push('\n');
    for g in &shown.gaps {
        let _ = writeln!(s, "  {}", render::gap_text(g));
    }
    let _ = writeln!(
        s,
        "  … {} more range(s) (--all-gaps lists them)",
        cov.gaps.len() - GAPS_SHOWN
    );
    for p in &cov.stored_positions {
        let _ = writeln!(s, "  {}", render::stored_position_text(p));
    }
    for o in &cov.overlaps {
        let _ = writeln!(s, "  {}", render::overlap_text(o));
    }
    s
}

/// The magic the schema's root record starts with, to pick files in folders.
pub fn root_magic(c: &Checked) -> Option<Vec<u8>> {
    match c.root().fields.first().map(|f| &f.ty) {
        Some(Type::Magic(m)) => Some(m.as_bytes().to_vec()),
        _ => None,
    }
}

/// The coverage of one file's bytes (a file given, or one inside layers
/// and archives); `named`: given on the command line, so never skipped;
/// `top`: the file given (`--format` and `--variant` apply to it only).
fn one(
    data: &[u8],
    named: bool,
    schemas: &dump::Schemas,
    args: &CoverageArgs,
    top: bool,
) -> Outcome {
    let (forced, variant) = if top {
        (args.format, args.variant.as_deref())
    } else {
        (None, None)
    };
    if data.is_empty() {
        return if named {
            Outcome::Failed("empty file".into())
        } else {
            Outcome::Skipped
        };
    }
    if formats::layer::Layer::detect(data).is_some() {
        // Its content is covered on its own (the next call).
        return Outcome::Layer;
    }
    if !schemas.takes(data, forced.is_some()) && !named {
        return Outcome::Skipped;
    }
    let checked = match schemas.pick(forced, data, variant) {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(e),
    };
    let (checked, decoded) = interp::decode_variants(
        checked,
        data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    let cov = coverage::coverage(checked, &decoded.root, data);
    let numbers = Numbers {
        schema: checked.schema.name.clone(),
        places: interp::edits::number_places(&decoded.root),
        suspects: interp::edits::stored_offsets(checked, &decoded.root),
    };
    Outcome::Covered(cov, decoded.error.map(|e| e.to_string()), numbers)
}

/// A file's stored numbers, for the judgement over every file of which
/// are offsets kept as numbers.
struct Numbers {
    /// The schema's name (the files of several formats are judged apart).
    schema: String,
    places: std::collections::HashSet<String>,
    suspects: Vec<interp::edits::Suspect>,
}

/// Counts as unexplained, in each file's coverage, the stored numbers
/// that hold where something starts at the places whose values do so in
/// nearly every file (`check`'s judgement): offsets the schema keeps as
/// numbers, which a name does not explain.
fn doubt_stored_positions(outcomes: &mut [Vec<(String, Outcome)>]) {
    let mut judged: std::collections::HashMap<String, interp::edits::NumberPlaces> =
        Default::default();
    for o in outcomes.iter_mut().flatten() {
        if let Outcome::Covered(_, None, n) = &mut o.1 {
            judged
                .entry(n.schema.clone())
                .or_default()
                .add_file(std::mem::take(&mut n.places), &n.suspects);
        }
    }
    for o in outcomes.iter_mut().flatten() {
        if let Outcome::Covered(cov, None, n) = &mut o.1 {
            let Some(places) = judged.get(&n.schema) else {
                continue;
            };
            let offsets: Vec<interp::edits::Suspect> = std::mem::take(&mut n.suspects)
                .into_iter()
                .filter(|s| places.offset_like(s))
                .collect();
            cov.doubt_stored_positions(&offsets);
        }
    }
}
