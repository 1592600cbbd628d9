//! `codec check PATH...`: decode and re-encode every file, compare with the
//! input bytes, and summarise.

use crate::inputs::{self, Input};
use crate::FormatArg;
use clap::{Args, ValueEnum};
use formats::layer::{Dictionaries, Layer};
use formats::Format;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How many leading bytes are read to detect the format, before the rest.
/// Files in folders that turn out to be of no supported format are then
/// never read in full.
const DETECT_PREFIX: u64 = 256;

/// Arguments of `codec check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files and folders to check; folders are walked recursively.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Decode every file as FORMAT instead of detecting it by magic.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        long_help = "Decode every file as FORMAT instead of detecting its format \
                     from its magic bytes. No file in a folder is skipped then: \
                     every file is counted, and one that is not of FORMAT fails."
    )]
    format: Option<FormatArg>,

    /// A zstd dictionary (repeatable).
    #[arg(
        long = "zstd-dict",
        value_name = "FILE",
        long_help = "A zstd dictionary for files compressed with one (TotK's `.zs`): a raw \
                     dictionary, or an archive of them such as the game's ZsDic.pack.zs. \
                     Each frame names the dictionary it needs by id; repeat the option \
                     to give several files."
    )]
    zstd_dict: Vec<PathBuf>,

    /// Read the files of a format with variants as this game or version
    /// (bdat: switch/xc2, x/xcx, wii/xc1, new3ds/3ds) instead of detecting it.
    #[arg(long, alias = "game", value_name = "NAME")]
    variant: Option<String>,

    /// Print only the summary line (errors still go to stderr).
    #[arg(long, short = 'q', conflicts_with = "json")]
    quiet: bool,

    /// Print one JSON object per file and a summary object, for tools.
    #[arg(long)]
    json: bool,
}

/// The verdict on one file: a file given, or one inside compression layers
/// and archives.
#[derive(Debug)]
enum Outcome {
    Identical,
    /// The re-encoded bytes differ, but they decode to the same document:
    /// only the layout differs from the input's writer.
    Equivalent {
        offset: usize,
        input_len: usize,
        output_len: usize,
    },
    Differ {
        offset: usize,
        input_len: usize,
        output_len: usize,
    },
    Failed(String),
    /// Of no supported format (kept as bytes inside an archive).
    Skipped,
}

/// One line of the report: a file given, or a file inside it, named by its
/// way in (`A.sbactorpack ▸ Yaz0 ▸ sarc ▸ Actor/x.baiprog`).
#[derive(Debug)]
struct Row {
    label: String,
    outcome: Outcome,
    /// What recompressing each layer around this file gave.
    notes: String,
    /// Inside a layer or an archive: the line is shown even when identical.
    nested: bool,
}

impl Row {
    fn top(path: &Path, outcome: Outcome) -> Row {
        Row {
            label: inputs::shown(&path.display().to_string()).into_owned(),
            outcome,
            notes: String::new(),
            nested: false,
        }
    }
}

/// Runs `codec check`; the exit status is 0 only when every counted file
/// came back byte for byte or as an equivalent document.
pub fn run(args: &CheckArgs) -> ExitCode {
    let mut dicts = Dictionaries::default();
    for path in &args.zstd_dict {
        let loaded = fs::read(path)
            .map_err(|e| inputs::io_message(&e))
            .and_then(|data| dicts.add_file(&data));
        if let Err(e) = loaded {
            inputs::error(path, format_args!("--zstd-dict: {e}"));
            return inputs::usage();
        }
    }
    if let Err(code) = inputs::check_variant(args.variant.as_deref()) {
        return code;
    }
    let entries = inputs::collect(&args.paths);
    let forced = args.format.map(Format::from);
    let variant = args.variant.as_deref();

    let bar = inputs::progress_bar("checking", entries.len());
    let meter = inputs::Throughput::start();
    let rows: Vec<Vec<Row>> = entries
        .par_iter()
        .map(|(path, entry)| {
            let rows = match entry {
                Input::File { named } => check_file(path, *named, forced, variant, &dicts, &meter),
                Input::Error(message) => vec![Row::top(path, Outcome::Failed(message.clone()))],
                Input::Other => vec![Row::top(path, Outcome::Skipped)],
            };
            bar.inc(1);
            rows
        })
        .collect();
    bar.finish_and_clear();

    let report = report(&entries, &rows, args, &meter);
    for (path, message) in &report.errors {
        inputs::error(path, message);
    }
    if report.counted == 0 {
        eprintln!("{}", inputs::nothing_found(&args.paths));
        inputs::print(&report.text);
        return inputs::failure();
    }
    if !inputs::print(&report.text) || !report.ok {
        return inputs::failure();
    }
    ExitCode::SUCCESS
}

/// Reads, detects and checks one file (and what it holds).
fn check_file(
    path: &Path,
    named: bool,
    forced: Option<Format>,
    variant: Option<&str>,
    dicts: &Dictionaries,
    meter: &inputs::Throughput,
) -> Vec<Row> {
    let failed = |m: String| vec![Row::top(path, Outcome::Failed(m))];
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return failed(inputs::io_message(&e)),
    };
    let mut data = Vec::new();
    if let Err(e) = (&mut file).take(DETECT_PREFIX).read_to_end(&mut data) {
        return failed(e.to_string());
    }
    let known =
        Layer::detect(&data).is_some() || forced.or_else(|| Format::detect(&data)).is_some();
    if !known {
        let outcome = if named {
            Outcome::Failed(unknown_format(&data))
        } else {
            Outcome::Skipped
        };
        return vec![Row::top(path, outcome)];
    }
    if let Err(e) = file.read_to_end(&mut data) {
        return failed(e.to_string());
    }
    meter.add(data.len() as u64);
    let what = What {
        named,
        forced,
        variant,
        dicts,
        limit: formats::layer::inner_limit(data.len()),
    };
    let mut rows = Vec::new();
    check_bytes(
        &data,
        &inputs::shown(&path.display().to_string()),
        &what,
        Place::Top,
        0,
        &mut rows,
    );
    rows
}

/// What `check_bytes` needs from the command line.
#[derive(Clone, Copy)]
struct What<'a> {
    /// The file was named on the command line (not found in a folder).
    named: bool,
    forced: Option<Format>,
    variant: Option<&'a str>,
    dicts: &'a Dictionaries,
    /// What the layers of the file given may decompress to, in all
    /// (`formats::layer::inner_limit` of its size).
    limit: u64,
}

/// Where the bytes `check_bytes` gets come from.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// A file given (or found in a folder).
    Top,
    /// The content of a compression layer: its format is named in the label.
    InLayer,
    /// A file inside an archive: its path in the archive is the label.
    InArchive,
}

/// The most layers and archives one file may nest (a chain longer than
/// this is hostile).
const MAX_NESTING: usize = 8;

/// Checks `data`: peels a compression layer (and recompresses it), or
/// round-trips a file of a supported format, and for an archive, every file
/// inside; pushes one row per file.
fn check_bytes(
    data: &[u8],
    label: &str,
    what: &What<'_>,
    place: Place,
    depth: usize,
    rows: &mut Vec<Row>,
) {
    let nested = place != Place::Top;
    let row = |label: String, outcome: Outcome| Row {
        label,
        outcome,
        notes: String::new(),
        nested,
    };
    if depth > MAX_NESTING {
        rows.push(row(
            label.to_owned(),
            Outcome::Failed(format!(
                "more than {MAX_NESTING} layers and archives inside each other"
            )),
        ));
        return;
    }
    if let Some(layer) = Layer::detect(data) {
        let inner_label = format!("{label} ▸ {layer}");
        let inner = match layer.decompress_within(data, what.dicts, what.limit) {
            Ok(p) => p,
            Err(e) => {
                rows.push(row(inner_label, Outcome::Failed(format!("{layer} {e}"))));
                return;
            }
        };
        let first = rows.len();
        check_bytes(&inner, &inner_label, what, Place::InLayer, depth + 1, rows);
        // Content no codec reads is not compressed again: nothing would
        // be written back, and a hostile layer can claim gigabytes.
        let read = rows
            .get(first)
            .is_some_and(|r| !matches!(r.outcome, Outcome::Skipped | Outcome::Failed(_)));
        let note = if read {
            recompressed(layer, &inner, data, what.dicts)
        } else {
            String::new()
        };
        // Outermost layer first.
        if let Some(r) = rows.get_mut(first) {
            r.notes.insert_str(0, &note);
        }
        return;
    }
    let forced = if place == Place::Top {
        what.forced
    } else {
        None
    };
    let Some(format) = forced.or_else(|| Format::detect(data)) else {
        let label = match place {
            Place::InLayer => format!("{label} ▸ {}", magic_text(data)),
            _ => label.to_owned(),
        };
        let outcome = if what.named && place != Place::InArchive {
            Outcome::Failed(unknown_format(data))
        } else {
            Outcome::Skipped
        };
        rows.push(row(label, outcome));
        return;
    };
    let label = match place {
        Place::InLayer => format!("{label} ▸ {format}"),
        _ => label.to_owned(),
    };
    let variant = if place == Place::Top {
        inputs::variant_for(format, what.variant)
    } else {
        None
    };
    rows.push(row(label.clone(), round_trip(format, variant, data)));
    if format == Format::Sarc {
        // The archive's own row is in; then every file it holds.
        if let Ok((_, archive)) = formats::sarc::decode(data) {
            let base = match place {
                Place::InLayer => label,
                _ => format!("{label} ▸ {format}"),
            };
            // A file of no supported format inside is kept, not a failure.
            let inside = What {
                named: false,
                ..*what
            };
            for node in &archive.nodes {
                let inner = format!("{base} ▸ {}", inputs::shown(&node.name));
                check_bytes(
                    &node.data.value,
                    &inner,
                    &inside,
                    Place::InArchive,
                    depth + 1,
                    rows,
                );
            }
        }
    }
}

/// Recompresses `content` in `layer` and says whether the layer's original
/// bytes came back (our own compressor must give back the content).
fn recompressed(layer: Layer, content: &[u8], original: &[u8], dicts: &Dictionaries) -> String {
    let again = match layer.compress(content, dicts) {
        Ok(b) => b,
        Err(e) => return format!("; {layer} recompression failed: {e}"),
    };
    match layer.decompress(&again, dicts) {
        Ok(back) if back == content => {}
        _ => {
            return format!("; internal: {layer} recompression does not decompress to its content")
        }
    }
    if again == original {
        format!("; {layer} recompressed identically")
    } else {
        format!(
            "; {layer} recompressed: differs at 0x{:x}, {:.4}× the size",
            first_difference(original, &again),
            again.len() as f64 / original.len().max(1) as f64
        )
    }
}

/// The first four bytes, printable, to name content of no known format.
fn magic_text(data: &[u8]) -> String {
    String::from_utf8_lossy(&data[..data.len().min(4)])
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '.' })
        .collect()
}

/// Decodes and re-encodes one file's bytes and compares; when the bytes
/// differ, compares the documents the two decode to.
fn round_trip(format: Format, variant: Option<&str>, data: &[u8]) -> Outcome {
    match formats::round_trip_as(format, variant, data) {
        Ok(output) if output == data => Outcome::Identical,
        Ok(output) => {
            let (offset, input_len, output_len) =
                (first_difference(data, &output), data.len(), output.len());
            match formats::same_document(format, data, &output) {
                Ok(true) => Outcome::Equivalent {
                    offset,
                    input_len,
                    output_len,
                },
                Ok(false) => Outcome::Differ {
                    offset,
                    input_len,
                    output_len,
                },
                Err(e) => Outcome::Failed(format!("{format} re-encoded bytes: {e}")),
            }
        }
        Err(e) => Outcome::Failed(format!("{format} {e}")),
    }
}

/// The message for a named file whose magic matches no supported format.
fn unknown_format(data: &[u8]) -> String {
    if data.is_empty() {
        return "empty file".to_owned();
    }
    let names: Vec<String> = FormatArg::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| v.get_name().to_owned())
        .collect();
    format!(
        "not a file of a supported format (its first bytes match no known magic; \
         supported: {}); use --format to decode it as one",
        names.join(", ")
    )
}

/// The first offset at which `a` and `b` differ; the shorter length when
/// one is a prefix of the other.
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// What `check` prints: the report for stdout, the errors for stderr.
struct Report {
    text: String,
    errors: Vec<(PathBuf, String)>,
    /// Files counted (identical, equivalent, differ or failed).
    counted: usize,
    /// Whether every counted file was identical or equivalent.
    ok: bool,
}

/// Tallies of the summary line.
#[derive(Default)]
struct Tally {
    identical: usize,
    equivalent: usize,
    differ: usize,
    failed: usize,
    skipped: usize,
}

/// A verdict line (without the path).
fn verdict(outcome: &Outcome) -> String {
    let lens = |input_len: usize, output_len: usize| {
        if input_len == output_len {
            String::new()
        } else {
            format!(" (input {input_len} bytes, re-encoded {output_len} bytes)")
        }
    };
    match outcome {
        Outcome::Identical => "identical".into(),
        Outcome::Equivalent {
            offset,
            input_len,
            output_len,
        } => format!(
            "equivalent: content identical, layout differs from the input's writer from 0x{offset:x}{}",
            lens(*input_len, *output_len)
        ),
        Outcome::Differ {
            offset,
            input_len,
            output_len,
        } => format!(
            "differs at 0x{offset:x}{}: the re-encoded bytes decode to another document",
            lens(*input_len, *output_len)
        ),
        Outcome::Failed(m) => format!("failed: {m}"),
        Outcome::Skipped => "kept as bytes: no supported format".into(),
    }
}

/// One line per file that is not identical and per file inside layers or
/// archives (failures of files given go to stderr), the skipped line and
/// the summary; or JSON lines with `--json`.
fn report(
    entries: &[(PathBuf, Input)],
    rows: &[Vec<Row>],
    args: &CheckArgs,
    meter: &inputs::Throughput,
) -> Report {
    let mut t = Tally::default();
    let mut text = String::new();
    let mut errors = Vec::new();
    for ((path, _), rows) in entries.iter().zip(rows) {
        for row in rows {
            match &row.outcome {
                Outcome::Identical => t.identical += 1,
                Outcome::Equivalent { .. } => t.equivalent += 1,
                Outcome::Differ { .. } => t.differ += 1,
                Outcome::Failed(m) => {
                    t.failed += 1;
                    if !row.nested {
                        errors.push((path.clone(), m.clone()));
                    }
                }
                Outcome::Skipped => t.skipped += 1,
            }
            let line = format!("{}: {}{}", row.label, verdict(&row.outcome), row.notes);
            if args.json {
                if matches!(row.outcome, Outcome::Skipped) && !row.nested {
                    continue;
                }
                let verdict = match row.outcome {
                    Outcome::Identical => "identical",
                    Outcome::Equivalent { .. } => "equivalent",
                    Outcome::Differ { .. } => "differs",
                    Outcome::Failed(_) => "failed",
                    Outcome::Skipped => "skipped",
                };
                let _ = writeln!(
                    text,
                    "{}",
                    serde_json::json!({"file": path.display().to_string(), "inner": row.label,
                        "verdict": verdict, "line": line})
                );
                continue;
            }
            // Identical files given need no line; failed ones are on stderr.
            let show = match row.outcome {
                Outcome::Equivalent { .. } | Outcome::Differ { .. } => true,
                Outcome::Identical | Outcome::Failed(_) | Outcome::Skipped => row.nested,
            };
            if show && !args.quiet {
                let _ = writeln!(text, "{line}");
            }
        }
    }
    let counted = t.identical + t.equivalent + t.differ + t.failed;
    if args.json {
        let (seconds, files_per_s, mb_per_s) = meter.rates(counted);
        let _ = writeln!(
            text,
            "{}",
            serde_json::json!({"summary": {"checked": counted, "identical": t.identical,
                "equivalent": t.equivalent, "differ": t.differ, "failed": t.failed,
                "skipped": t.skipped, "seconds": seconds, "files_per_s": files_per_s,
                "mb_per_s": mb_per_s, "threads": rayon::current_num_threads()}})
        );
    } else {
        if t.skipped > 0 && !args.quiet {
            let _ = writeln!(text, "skipped {} files of no supported format", t.skipped);
        }
        // The run's throughput goes just before the summary, which stays
        // the last line for scripts.
        if counted > 1 && !args.quiet {
            text.push_str(&meter.line(counted));
        }
        // The summary keeps its first words for scripts; equivalent files
        // are counted at the end when there are any.
        let _ = write!(
            text,
            "checked {counted} files: {} identical, {} differ, {} failed",
            t.identical, t.differ, t.failed
        );
        if t.equivalent > 0 {
            let _ = write!(text, ", {} equivalent", t.equivalent);
        }
        text.push('\n');
    }
    Report {
        text,
        errors,
        counted,
        ok: t.differ == 0 && t.failed == 0,
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn first_difference_finds_the_offset_or_the_shorter_length() {
        assert_eq!(first_difference(b"abcd", b"abxd"), 2);
        assert_eq!(first_difference(b"abc", b"abcd"), 3);
        assert_eq!(first_difference(b"abcd", b"ab"), 2);
        assert_eq!(first_difference(b"", b""), 0);
    }
}
