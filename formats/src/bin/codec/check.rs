//! `codec check PATH...`: decode and re-encode every file, compare with the
//! input bytes, and summarise.

use crate::FormatArg;
use clap::{Args, ValueEnum};
use formats::layer::{Dictionaries, Layer};
use formats::Format;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use walkdir::WalkDir;

/// More files than this, and stderr a terminal: show a progress bar.
const PROGRESS_THRESHOLD: usize = 50;

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
}

/// What the command line and the folder walk turned up at one path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// A file to check; `named` when given on the command line (then it is
    /// always counted).
    File { named: bool },
    /// A path that could not be examined (missing, unreadable folder, link
    /// loop): counted as failed.
    Error(String),
    /// Something in a folder that is neither file nor folder (a socket, a
    /// FIFO, a device): skipped like a file of no supported format. A
    /// dangling link is an [`Entry::Error`]: it names a file that is gone.
    Other,
}

/// The result for one path.
#[derive(Debug)]
enum Outcome {
    Identical,
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
/// came back byte for byte.
pub fn run(args: &CheckArgs) -> ExitCode {
    let mut dicts = Dictionaries::default();
    for path in &args.zstd_dict {
        let loaded = fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|data| dicts.add_file(&data));
        if let Err(e) = loaded {
            let _ = writeln!(io::stderr(), "codec: --zstd-dict {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let entries = collect(&args.paths);
    let forced = args.format.map(Format::from);

    let bar = progress_bar(entries.len());
    let outcomes: Vec<Outcome> = entries
        .par_iter()
        .map(|(path, entry)| {
            let outcome = match entry {
                Entry::File { named } => check_file(path, *named, forced, &dicts),
                Entry::Error(message) => Outcome::Failed(message.clone()),
                Entry::Other => Outcome::Skipped,
            };
            bar.inc(1);
            outcome
        })
        .collect();
    bar.finish_and_clear();

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match report(&mut out, &entries, &outcomes).and_then(|ok| out.flush().map(|()| ok)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            if e.kind() != io::ErrorKind::BrokenPipe {
                let _ = writeln!(io::stderr(), "codec: cannot write the report: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Expands the command line into every path to examine, sorted by path.
/// A path named on the command line and also found in a folder keeps its
/// named status.
fn collect(paths: &[PathBuf]) -> Vec<(PathBuf, Entry)> {
    let mut entries: BTreeMap<PathBuf, Entry> = BTreeMap::new();
    for root in paths {
        match fs::metadata(root) {
            Err(e) => {
                entries.insert(root.clone(), Entry::Error(e.to_string()));
            }
            Ok(meta) if meta.is_dir() => walk(root, &mut entries),
            Ok(_) => {
                entries.insert(root.clone(), Entry::File { named: true });
            }
        }
    }
    entries.into_iter().collect()
}

/// Adds everything below the folder `root` (links followed) to `entries`.
fn walk(root: &Path, entries: &mut BTreeMap<PathBuf, Entry>) {
    for item in WalkDir::new(root).follow_links(true) {
        match item {
            Ok(e) if e.file_type().is_dir() => {}
            Ok(e) => {
                let entry = if e.file_type().is_file() {
                    Entry::File { named: false }
                } else {
                    Entry::Other
                };
                entries.entry(e.into_path()).or_insert(entry);
            }
            Err(err) => {
                let path = err.path().unwrap_or(root).to_path_buf();
                let message = match err.io_error() {
                    Some(io) => io.to_string(),
                    None => err.to_string(),
                };
                entries.entry(path).or_insert(Entry::Error(message));
            }
        }
    }
}

/// Reads, detects and round-trips one file.
fn check_file(path: &Path, named: bool, forced: Option<Format>, dicts: &Dictionaries) -> Outcome {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut data = Vec::new();
    if let Err(e) = (&mut file).take(DETECT_PREFIX).read_to_end(&mut data) {
        return Outcome::Failed(e.to_string());
    }
    if Layer::detect(&data).is_some() {
        if let Err(e) = file.read_to_end(&mut data) {
            return Outcome::Failed(e.to_string());
        }
        return check_layered(&data, named, forced, dicts);
    }
    let format = match forced.or_else(|| Format::detect(&data)) {
        Some(f) => f,
        None if named => return Outcome::Failed(unknown_format()),
        None => return Outcome::Skipped,
    };
    if let Err(e) = file.read_to_end(&mut data) {
        return Outcome::Failed(e.to_string());
    }
    round_trip(format, &data)
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
        Some(f) => round_trip(f, &inner),
        None if named => Outcome::Failed(unknown_format()),
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

/// Decodes and re-encodes one file's bytes and compares.
fn round_trip(format: Format, data: &[u8]) -> Outcome {
    match formats::round_trip(format, data) {
        Ok(output) if output == data => Outcome::Identical,
        Ok(output) => Outcome::Differ {
            offset: first_difference(data, &output),
            input_len: data.len(),
            output_len: output.len(),
        },
        Err(e) => Outcome::Failed(format!("{format} {e}")),
    }
}

/// The message for a named file whose magic matches no supported format.
fn unknown_format() -> String {
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

/// Prints one line per file that is not identical, the skipped line and
/// the summary. Returns whether every counted file was identical.
fn report(
    out: &mut impl Write,
    entries: &[(PathBuf, Entry)],
    outcomes: &[Outcome],
) -> io::Result<bool> {
    let (mut identical, mut differ, mut failed, mut skipped) = (0usize, 0usize, 0usize, 0usize);
    for ((path, _), outcome) in entries.iter().zip(outcomes) {
        // A file inside layers counts by the file inside; its line names
        // the layers and what recompressing each gave.
        let outcome = match outcome {
            Outcome::Layered {
                layers,
                inner_format,
                inner_magic,
                inner,
            } => {
                write!(out, "{}", path.display())?;
                for (layer, _) in layers {
                    write!(out, " ▸ {layer}")?;
                }
                match inner_format {
                    Some(f) => write!(out, " ▸ {f}: ")?,
                    None => write!(out, " ▸ {inner_magic}: ")?,
                }
                match inner.as_ref() {
                    Outcome::Identical => write!(out, "identical")?,
                    Outcome::Differ { offset, .. } => write!(out, "differs at 0x{offset:x}")?,
                    Outcome::Failed(m) => write!(out, "failed: {m}")?,
                    _ => write!(out, "content decompressed, format not supported")?,
                }
                for (layer, verdict) in layers {
                    match verdict {
                        Recompressed::Identical => {
                            write!(out, "; {layer} recompressed identically")?
                        }
                        Recompressed::Differs { offset, ratio } => write!(
                            out,
                            "; {layer} recompressed: differs at 0x{offset:x}, {ratio:.4}× the size"
                        )?,
                    }
                }
                writeln!(out)?;
                match inner.as_ref() {
                    Outcome::Identical => identical += 1,
                    Outcome::Differ { .. } => differ += 1,
                    Outcome::Failed(_) => failed += 1,
                    _ => skipped += 1,
                }
                continue;
            }
            o => o,
        };
        match outcome {
            Outcome::Identical => identical += 1,
            Outcome::Skipped => skipped += 1,
            Outcome::Differ {
                offset,
                input_len,
                output_len,
            } => {
                differ += 1;
                write!(out, "{}: differs at 0x{offset:x}", path.display())?;
                if input_len != output_len {
                    write!(
                        out,
                        " (input {input_len} bytes, re-encoded {output_len} bytes)"
                    )?;
                }
                writeln!(out)?;
            }
            Outcome::Failed(message) => {
                failed += 1;
                writeln!(out, "{}: failed: {message}", path.display())?;
            }
            Outcome::Layered { .. } => {}
        }
    }
    if skipped > 0 {
        writeln!(out, "skipped {skipped} files of no supported format")?;
    }
    writeln!(
        out,
        "checked {} files: {identical} identical, {differ} differ, {failed} failed",
        identical + differ + failed
    )?;
    Ok(differ == 0 && failed == 0)
}

/// A progress bar on stderr for long runs on a terminal; hidden otherwise.
fn progress_bar(len: usize) -> ProgressBar {
    if len <= PROGRESS_THRESHOLD || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("checking {bar:40} {pos}/{len} {elapsed}") {
        bar.set_style(style);
    }
    bar
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
