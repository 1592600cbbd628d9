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

/// The result for one path.
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
    Skipped,
    /// A file inside compression layers: the layers peeled (outermost
    /// first, each with what recompressing gave) and the inner file's
    /// outcome (`Skipped` when its format is not supported).
    Layered {
        layers: Vec<(Layer, Recompressed)>,
        inner_format: Option<Format>,
        inner_magic: String,
        inner: Box<Outcome>,
    },
}

/// Whether recompressing gave the layer's original bytes.
#[derive(Debug)]
enum Recompressed {
    Identical,
    Differs { offset: usize, ratio: f64 },
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
    let outcomes: Vec<Outcome> = entries
        .par_iter()
        .map(|(path, entry)| {
            let outcome = match entry {
                Input::File { named } => check_file(path, *named, forced, variant, &dicts),
                Input::Error(message) => Outcome::Failed(message.clone()),
                Input::Other => Outcome::Skipped,
            };
            bar.inc(1);
            outcome
        })
        .collect();
    bar.finish_and_clear();

    let report = report(&entries, &outcomes, args);
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

/// Reads, detects and round-trips one file.
fn check_file(
    path: &Path,
    named: bool,
    forced: Option<Format>,
    variant: Option<&str>,
    dicts: &Dictionaries,
) -> Outcome {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return Outcome::Failed(inputs::io_message(&e)),
    };
    let mut data = Vec::new();
    if let Err(e) = (&mut file).take(DETECT_PREFIX).read_to_end(&mut data) {
        return Outcome::Failed(e.to_string());
    }
    if Layer::detect(&data).is_some() {
        if let Err(e) = file.read_to_end(&mut data) {
            return Outcome::Failed(e.to_string());
        }
        return check_layered(&data, named, forced, variant, dicts);
    }
    let format = match forced.or_else(|| Format::detect(&data)) {
        Some(f) => f,
        None if named => return Outcome::Failed(unknown_format(&data)),
        None => return Outcome::Skipped,
    };
    if let Err(e) = file.read_to_end(&mut data) {
        return Outcome::Failed(e.to_string());
    }
    round_trip(format, inputs::variant_for(format, variant), &data)
}

/// The most layers peeled off one file (a layer inside a layer is rare; a
/// chain longer than this is hostile).
const MAX_LAYERS: usize = 4;

/// Peels the compression layers, checks the file inside, and recompresses
/// each layer to see whether its bytes come back.
fn check_layered(
    data: &[u8],
    named: bool,
    forced: Option<Format>,
    variant: Option<&str>,
    dicts: &Dictionaries,
) -> Outcome {
    let mut stack: Vec<(Layer, Vec<u8>)> = Vec::new();
    let mut inner = data.to_vec();
    while let Some(layer) = Layer::detect(&inner) {
        if stack.len() == MAX_LAYERS {
            return Outcome::Failed(format!("more than {MAX_LAYERS} compression layers"));
        }
        let peeled = match layer.decompress(&inner, dicts) {
            Ok(p) => p,
            Err(e) => return Outcome::Failed(format!("{layer} {e}")),
        };
        stack.push((layer, std::mem::replace(&mut inner, peeled)));
    }
    let inner_format = forced.or_else(|| Format::detect(&inner));
    let inner_magic = String::from_utf8_lossy(&inner[..inner.len().min(4)])
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '.' })
        .collect();
    let inner_outcome = match inner_format {
        Some(f) => round_trip(f, inputs::variant_for(f, variant), &inner),
        None if named => Outcome::Failed(unknown_format(&inner)),
        None => Outcome::Skipped,
    };
    // Recompress from the inside out: each layer around the original bytes
    // of what it held.
    let mut layers = Vec::with_capacity(stack.len());
    let mut content = inner;
    for (layer, original) in stack.into_iter().rev() {
        let again = match layer.compress(&content, dicts) {
            Ok(b) => b,
            Err(e) => return Outcome::Failed(format!("recompressing {layer}: {e}")),
        };
        // Our own compressor must give back the content exactly.
        match layer.decompress(&again, dicts) {
            Ok(back) if back == content => {}
            _ => {
                return Outcome::Failed(format!(
                    "internal: {layer} recompression does not decompress to its content"
                ))
            }
        }
        let verdict = if again == original {
            Recompressed::Identical
        } else {
            Recompressed::Differs {
                offset: first_difference(&original, &again),
                ratio: again.len() as f64 / original.len().max(1) as f64,
            }
        };
        layers.push((layer, verdict));
        content = original;
    }
    layers.reverse();
    Outcome::Layered {
        layers,
        inner_format,
        inner_magic,
        inner: Box::new(inner_outcome),
    }
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

/// A verdict line (without the path), and the tally it adds to.
fn verdict(outcome: &Outcome) -> Option<String> {
    let lens = |input_len: usize, output_len: usize| {
        if input_len == output_len {
            String::new()
        } else {
            format!(" (input {input_len} bytes, re-encoded {output_len} bytes)")
        }
    };
    match outcome {
        Outcome::Identical => Some("identical".into()),
        Outcome::Equivalent {
            offset,
            input_len,
            output_len,
        } => Some(format!(
            "equivalent: content identical, layout differs from the input's writer from 0x{offset:x}{}",
            lens(*input_len, *output_len)
        )),
        Outcome::Differ {
            offset,
            input_len,
            output_len,
        } => Some(format!(
            "differs at 0x{offset:x}{}: the re-encoded bytes decode to another document",
            lens(*input_len, *output_len)
        )),
        Outcome::Failed(m) => Some(format!("failed: {m}")),
        Outcome::Skipped | Outcome::Layered { .. } => None,
    }
}

/// One line per file that is not identical (failures go to stderr), the
/// skipped line and the summary; or JSON lines with `--json`.
fn report(entries: &[(PathBuf, Input)], outcomes: &[Outcome], args: &CheckArgs) -> Report {
    let mut t = Tally::default();
    let mut text = String::new();
    let mut errors = Vec::new();
    for ((path, _), outcome) in entries.iter().zip(outcomes) {
        // A file inside layers counts by the file inside; its line names
        // the layers and what recompressing each gave.
        let (line, inner) = match outcome {
            Outcome::Layered {
                layers,
                inner_format,
                inner_magic,
                inner,
            } => {
                let mut line = path.display().to_string();
                for (layer, _) in layers {
                    let _ = write!(line, " ▸ {layer}");
                }
                match inner_format {
                    Some(f) => {
                        let _ = write!(line, " ▸ {f}: ");
                    }
                    None => {
                        let _ = write!(line, " ▸ {inner_magic}: ");
                    }
                }
                line.push_str(
                    &verdict(inner)
                        .unwrap_or_else(|| "content decompressed, format not supported".into()),
                );
                for (layer, v) in layers {
                    match v {
                        Recompressed::Identical => {
                            let _ = write!(line, "; {layer} recompressed identically");
                        }
                        Recompressed::Differs { offset, ratio } => {
                            let _ = write!(
                                line,
                                "; {layer} recompressed: differs at 0x{offset:x}, {ratio:.4}× the size"
                            );
                        }
                    }
                }
                (Some(line), inner.as_ref())
            }
            o => (verdict(o).map(|v| format!("{}: {v}", path.display())), o),
        };
        match inner {
            Outcome::Identical => t.identical += 1,
            Outcome::Equivalent { .. } => t.equivalent += 1,
            Outcome::Differ { .. } => t.differ += 1,
            Outcome::Failed(m) => {
                t.failed += 1;
                if !matches!(outcome, Outcome::Layered { .. }) {
                    errors.push((path.clone(), m.clone()));
                }
            }
            _ => t.skipped += 1,
        }
        if args.json {
            if let Some(line) = &line {
                let verdict = match inner {
                    Outcome::Identical => "identical",
                    Outcome::Equivalent { .. } => "equivalent",
                    Outcome::Differ { .. } => "differs",
                    Outcome::Failed(_) => "failed",
                    _ => "skipped",
                };
                let _ = writeln!(
                    text,
                    "{}",
                    serde_json::json!({"file": path.display().to_string(), "verdict": verdict, "line": line})
                );
            }
            continue;
        }
        // Identical files need no line, unless layers were peeled; failed
        // files are reported on stderr (layered ones keep their line).
        let show = matches!(
            (outcome, inner),
            (Outcome::Layered { .. }, _) | (_, Outcome::Equivalent { .. } | Outcome::Differ { .. })
        );
        if show && !args.quiet {
            if let Some(line) = line {
                let _ = writeln!(text, "{line}");
            }
        }
    }
    let counted = t.identical + t.equivalent + t.differ + t.failed;
    if args.json {
        let _ = writeln!(
            text,
            "{}",
            serde_json::json!({"summary": {"checked": counted, "identical": t.identical,
                "equivalent": t.equivalent, "differ": t.differ, "failed": t.failed,
                "skipped": t.skipped}})
        );
    } else {
        if t.skipped > 0 && !args.quiet {
            let _ = writeln!(text, "skipped {} files of no supported format", t.skipped);
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
