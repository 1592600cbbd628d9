//! What every subcommand shares: the paths it is given (files and folders,
//! walked recursively), how it reports an error (one line on stderr,
//! `codec: PATH: message`), its exit status, and its progress bar.
//!
//! Exit status, the same for every subcommand:
//!
//! | status | meaning |
//! |---|---|
//! | 0 | every file was handled (identical or equivalent, decoded, converted) |
//! | 1 | some file failed, differs, is missing, or no file of a supported format was found |
//! | 2 | usage: bad arguments, an unusable schema or dictionary |

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use walkdir::WalkDir;

/// Some file failed (status 1).
pub fn failure() -> ExitCode {
    ExitCode::FAILURE
}

/// A usage error (status 2).
pub fn usage() -> ExitCode {
    ExitCode::from(2)
}

/// Prints an error about `path` on stderr, the one way every subcommand does.
pub fn error(path: &Path, message: impl Display) {
    let _ = writeln!(
        io::stderr(),
        "codec: {}: {message}",
        shown(&path.display().to_string())
    );
}

/// What the command line and the folder walk turned up at one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A file; `named` when given on the command line (then it is always
    /// counted, whatever its format).
    File { named: bool },
    /// A path that could not be examined: missing ("not found"), an
    /// unreadable folder, a link loop. Counted as failed.
    Error(String),
    /// Something in a folder that is neither file nor folder (a socket, a
    /// FIFO): skipped like a file of no supported format.
    Other,
}

/// Expands the command line into every path to examine, sorted by path. A
/// path named on the command line and also found in a folder keeps its
/// named status.
pub fn collect(paths: &[PathBuf]) -> Vec<(PathBuf, Input)> {
    let mut entries: BTreeMap<PathBuf, Input> = BTreeMap::new();
    for root in paths {
        match fs::metadata(root) {
            // `-` (standard input) and `ARCHIVE:MEMBER`.
            Err(_) if crate::open::is_addressed(root) => {
                entries.insert(root.clone(), Input::File { named: true });
            }
            Err(e) => {
                entries.insert(root.clone(), Input::Error(io_message(&e)));
            }
            Ok(meta) if meta.is_dir() => walk(root, &mut entries),
            Ok(_) => {
                entries.insert(root.clone(), Input::File { named: true });
            }
        }
    }
    entries.into_iter().collect()
}

/// Adds everything below the folder `root` (links followed) to `entries`.
fn walk(root: &Path, entries: &mut BTreeMap<PathBuf, Input>) {
    // A `.codec-*.tmp` file is a write of codec's that a `kill -9` ended:
    // never an input (it may hold half a file of a known format).
    let leftover = |e: &walkdir::DirEntry| {
        let name = e.file_name().to_string_lossy();
        e.depth() > 0 && name.starts_with(".codec-") && name.ends_with(".tmp")
    };
    for item in WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| !leftover(e))
    {
        match item {
            Ok(e) if e.file_type().is_dir() => {}
            Ok(e) => {
                let entry = if e.file_type().is_file() {
                    Input::File { named: false }
                } else {
                    Input::Other
                };
                entries.entry(e.into_path()).or_insert(entry);
            }
            Err(err) => {
                let path = err.path().unwrap_or(root).to_path_buf();
                let message = match err.io_error() {
                    Some(io) => io_message(io),
                    None => err.to_string(),
                };
                entries.entry(path).or_insert(Input::Error(message));
            }
        }
    }
}

/// The variant a user's `--variant NAME` (or its old spelling `--game`)
/// means for a file of `format`: `None` when that format has no variant of
/// the name (the option then applies to the other files).
pub fn variant_for(format: formats::Format, name: Option<&str>) -> Option<&'static str> {
    formats::variant_name(format, name?)
}

/// Refuses a `--variant` that no format knows (a usage error).
pub fn check_variant(name: Option<&str>) -> Result<(), ExitCode> {
    let Some(name) = name else { return Ok(()) };
    if formats::Format::all().any(|f| formats::variant_name(f, name).is_some()) {
        return Ok(());
    }
    let known: Vec<String> = formats::Format::all()
        .map(|f| format!("{f}: {}", formats::variant_names(f)))
        .collect();
    let _ = writeln!(
        io::stderr(),
        "codec: --variant {name}: not a variant of any format; {}",
        known.join("; ")
    );
    Err(usage())
}

/// The line for a run that found nothing to work on.
pub fn nothing_found(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "codec: no files of a supported format under {} (`codec formats` lists them)",
        shown.join(", ")
    )
}

/// More files than this, and stderr a terminal: show a progress bar.
const PROGRESS_THRESHOLD: usize = 50;

/// A progress bar on stderr for long runs on a terminal; hidden otherwise.
pub fn progress_bar(verb: &str, len: usize) -> ProgressBar {
    if len <= PROGRESS_THRESHOLD || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{verb} {{bar:40}} {{pos}}/{{len}} {{elapsed}}"))
    {
        bar.set_style(style);
    }
    bar
}

/// Writes the report to stdout; a closed pipe is not an error worth a line.
pub fn print(text: &str) -> bool {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => true,
        Err(e) => {
            if e.kind() != io::ErrorKind::BrokenPipe {
                let _ = writeln!(io::stderr(), "codec: cannot write the report: {e}");
            }
            false
        }
    }
}

/// How fast a run over many files went: the files and input bytes it
/// handled, timed from its start. Shared by the worker threads.
pub struct Throughput {
    start: std::time::Instant,
    bytes: std::sync::atomic::AtomicU64,
}

impl Throughput {
    pub fn start() -> Self {
        Throughput {
            start: std::time::Instant::now(),
            bytes: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Counts `n` more input bytes.
    pub fn add(&self, n: u64) {
        self.bytes
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// Seconds, files/s and MB/s (10^6 bytes) so far.
    pub fn rates(&self, files: usize) -> (f64, f64, f64) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let bytes = self.bytes.load(std::sync::atomic::Ordering::Relaxed) as f64;
        (secs, files as f64 / secs, bytes / 1e6 / secs)
    }

    /// The closing line of a run over several files, for stdout after the
    /// summary: `356 files, 17.6 MB in 0.13 s: 2733.1 files/s, 135.4 MB/s
    /// on 2 threads`.
    pub fn line(&self, files: usize) -> String {
        let (secs, per_s, mb_s) = self.rates(files);
        let mb = self.bytes.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e6;
        format!(
            "{files} files, {mb:.1} MB in {secs:.2} s: {per_s:.1} files/s, {mb_s:.1} MB/s on {} threads\n",
            rayon::current_num_threads()
        )
    }
}

pub use formats::{io_message, shown};

/// A warning about what a user wrote (a value's type changed, a stored
/// number left behind): printed, or with `--strict` the error that stops
/// the command.
pub fn warn_or_refuse(what: String, strict: bool) -> Result<(), String> {
    if strict {
        return Err(format!("{what} (--strict)"));
    }
    eprintln!("codec: warning: {what}");
    Ok(())
}
