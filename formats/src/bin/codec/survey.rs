//! `codec survey PATH...`: every value of the fields a schema declares
//! unknown (or of the fields asked for) across all files under the paths,
//! archives and compression layers opened, with the hypotheses about each
//! field's meaning that hold on every file, and those that some files
//! contradict (naming them).

use crate::dump;
use crate::FormatArg;
use clap::Args;
use codec_interp::{self as interp, survey};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use survey::{FieldReport, FileFacts, Selection, Survey, Why};

/// Arguments of `codec survey`.
#[derive(Debug, Args)]
#[command(
    about = "Collect each unknown field's values over many files and test what they mean",
    long_about = "For each field the schema declares unknown (or each field asked for with \
                  --field, or every numeric field with --all), collect its values across \
                  every file under the paths, inside archives and compression layers too, \
                  and report:\n\n\
                  - the distribution: distinct values, the most common ones with counts, \
                  min and max, per game or version variant;\n\
                  - hypotheses, each tested on every value: constant; a boolean; an enum; \
                  flags (which bits vary, which never do); a float stored in an integer \
                  field; equal to a field, a count or a size elsewhere in the record or \
                  the file; an offset (from the file, the record, the field or the parent \
                  record, ×1 or ×4) landing on the start or the end of something; an \
                  index into a list; the CRC32 (or the format's own) hash of a string of \
                  the file;\n\
                  - per struct, the fields that always change together.\n\n\
                  `holds:` means no value of any file contradicts the hypothesis. \
                  `contradicted:` lists a hypothesis that most files support, with the \
                  files that contradict it. By default known integer fields are also \
                  reported when a hypothesis about them holds that their type does not \
                  say (a float, a hash, an undeclared count): `suspicious`.\n\n\
                  The schema is interpreted at run time: edit it (--schema FILE.ron), \
                  run again.",
    after_help = "Exit status: 0 when every file decodes, 1 when one does not (it is left \
                  out of the survey and named on stderr) or none was found, 2 when the \
                  schema or a dictionary cannot be used."
)]
pub struct SurveyArgs {
    /// Files and folders; folders are walked recursively, archives and
    /// compression layers are opened, and files of no supported format (or,
    /// with --schema, without the schema's magic) are skipped.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Interpret the files with this schema instead of the built-in ones.
    #[arg(long, value_name = "FILE.ron")]
    schema: Option<PathBuf>,

    /// Use the built-in schema of FORMAT for the files given, instead of
    /// detecting it by magic.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    format: Option<FormatArg>,

    /// Read the files as this game's or version's variant instead of the
    /// detected one.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,

    /// Survey this field (repeatable): a key as the report prints it
    /// (`StateInfo.unknown_0x04`), a struct's name for all its fields
    /// (`StateInfo`), or a prefix ending in `*`.
    #[arg(long, value_name = "FIELD", conflicts_with = "all")]
    field: Vec<String>,

    /// Survey every numeric field, known or not.
    #[arg(long)]
    all: bool,

    /// Print one JSON object per schema, for tools.
    #[arg(long)]
    json: bool,

    /// Print only the summary lines (each schema's and the run's), not
    /// every field.
    #[arg(long, short = 'q', conflicts_with = "json")]
    quiet: bool,

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

/// Runs `codec survey`.
pub fn run(args: &SurveyArgs) -> ExitCode {
    let started = Instant::now();
    let schemas = match dump::Schemas::new(args.schema.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprint!("codec: schema errors:\n{e}");
            return crate::inputs::usage();
        }
    };
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let selection = if args.all {
        Selection::All
    } else if args.field.is_empty() {
        Selection::Default
    } else {
        Selection::Only(args.field.clone())
    };
    let hashes = formats::research::string_hashes();
    let files = crate::inputs::collect(&args.paths);
    let bar = crate::inputs::progress_bar("survey", files.len());
    // Per input: (schema file, facts, first overlap) of each file in it,
    // and the failures.
    type Found = (
        Vec<(String, FileFacts, Option<String>)>,
        Vec<(String, String)>,
    );
    let found: Vec<Found> = files
        .par_iter()
        .map(|(path, entry)| {
            let mut facts = Vec::new();
            let mut failed = Vec::new();
            let label = path.display().to_string();
            match entry {
                crate::inputs::Input::File { named } => match crate::open::read(path, &dicts) {
                    Ok(data) => crate::archive::each_file(&data, &label, &dicts, &mut |l, d| {
                        let top = l == label;
                        match d {
                            Err(e) => failed.push((l, e)),
                            Ok(d) => match one(&l, d, &schemas, args, &hashes) {
                                Some(Ok(f)) => facts.push(f),
                                Some(Err(e)) if top || *named => failed.push((l, e)),
                                Some(Err(e)) if !e.starts_with("not a file") => failed.push((l, e)),
                                _ => {}
                            },
                        }
                    }),
                    Err(e) => failed.push((label, e)),
                },
                crate::inputs::Input::Error(e) => failed.push((label, e.clone())),
                crate::inputs::Input::Other => {}
            }
            bar.inc(1);
            (facts, failed)
        })
        .collect();
    bar.finish_and_clear();

    let mut by_schema: BTreeMap<String, Vec<FileFacts>> = BTreeMap::new();
    // Files whose bytes the schema reads two ways (a list that runs into
    // its neighbour, an offset into another field): a survey of values
    // read so is no evidence, so it says so.
    let mut overlapping: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut failed = 0;
    for (facts, errors) in found {
        for (schema, f, overlap) in facts {
            if let Some(o) = overlap {
                overlapping
                    .entry(schema.clone())
                    .or_default()
                    .push((f.label.clone(), o));
            }
            by_schema.entry(schema).or_default().push(f);
        }
        for (label, e) in errors {
            failed += 1;
            eprintln!("codec: {label}: {e}");
        }
    }
    let mut text = String::new();
    let mut surveyed = 0;
    for (schema, facts) in by_schema {
        surveyed += facts.len();
        let overlaps = overlapping.remove(&schema).unwrap_or_default();
        let variants = variant_counts(&facts);
        let survey = Survey::new(facts, &hashes);
        let mut reports: Vec<FieldReport> = survey
            .candidates(&selection)
            .par_iter()
            .filter_map(|(key, why)| survey.field(key, *why))
            .collect();
        reports.sort_by(|a, b| a.field.cmp(&b.field));
        let types: BTreeSet<String> = reports
            .iter()
            .map(|r| Survey::type_of(&r.field).to_owned())
            .collect();
        let structs = survey.structs(&types);
        if args.json {
            let doc = serde_json::json!({
                "schema": schema,
                "files": survey.file_count(),
                "variants": variants,
                "fields": reports,
                "structs": structs,
                "files_read_two_ways": overlaps.iter().map(|(f, o)| serde_json::json!({"file": f, "first": o})).collect::<Vec<_>>(),
            });
            let _ = writeln!(text, "{doc}");
        } else {
            let shown: Vec<String> = variants.iter().map(|(v, n)| format!("{v} ×{n}")).collect();
            let shown = if shown.is_empty() {
                String::new()
            } else {
                format!(" (variants: {})", shown.join(", "))
            };
            let _ = writeln!(text, "# {schema}: {} file(s){shown}", survey.file_count());
            if !args.quiet {
                text.push_str(&survey::report_text(&reports, &structs));
            }
            if let Some((file, first)) = overlaps.first() {
                let _ = writeln!(
                    text,
                    "warning: {} file(s) have bytes the schema reads two ways, so values above \
                     may be misread (`codec coverage` lists them); first: {file}: {first}",
                    overlaps.len()
                );
            }
            let _ = writeln!(
                text,
                "{}",
                survey::summary_text(&reports, survey.file_count(), 0)
            );
        }
        let _ = reports.iter().filter(|r| r.why == Why::Unknown).count();
    }
    if !args.json {
        let _ = writeln!(
            text,
            "surveyed {surveyed} file(s) in {:.1} s; {failed} failed",
            started.elapsed().as_secs_f64()
        );
    }
    if !crate::inputs::print(&text) {
        return crate::inputs::failure();
    }
    if surveyed == 0 && failed == 0 {
        eprintln!("{}", crate::inputs::nothing_found(&args.paths));
        return crate::inputs::failure();
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        crate::inputs::failure()
    }
}

/// How many files were read as each variant.
fn variant_counts(facts: &[FileFacts]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for f in facts {
        if let Some(v) = &f.variant {
            *counts.entry(v.clone()).or_default() += 1;
        }
    }
    counts
}

/// A surveyed file: its schema's file name, its facts, and the first
/// overlap of its fields (bytes read two ways), if any.
type Surveyed = (String, FileFacts, Option<String>);

/// Decodes one file; `None` when it is not for this survey (no schema's
/// magic), else its schema's file name and facts, or why it failed.
fn one(
    label: &str,
    data: &[u8],
    schemas: &dump::Schemas,
    args: &SurveyArgs,
    hashes: &[survey::StringHash],
) -> Option<Result<Surveyed, String>> {
    if data.is_empty() {
        return None;
    }
    if !schemas.takes(data, args.format.is_some()) {
        return None;
    }
    let checked = match schemas.pick(args.format, data, args.variant.as_deref()) {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    let (checked, decoded) = interp::decode_variants(
        checked,
        data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    if let Some(e) = decoded.error {
        return Some(Err(format!("decode error {e}")));
    }
    let variant = checked.variant_name().map(str::to_owned);
    let facts = FileFacts::of(
        label.to_owned(),
        variant,
        &decoded.root,
        data.len() as u64,
        hashes,
    );
    let overlap = interp::coverage::coverage(checked, &decoded.root, data)
        .overlaps
        .first()
        .map(interp::render::overlap_text);
    Some(Ok((checked.file().to_owned(), facts, overlap)))
}
