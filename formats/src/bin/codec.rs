//! `codec`: the command-line tool over the formats this project generates.
//!
//! Each verb lives in its own module under `src/bin/codec/` (a crate root
//! finds its modules beside it, hence the `#[path]`); this file only
//! declares the command line (clap derive) and dispatches.

#[path = "codec/check.rs"]
mod check;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// Decode, check and convert the binary formats described by the project's
/// schemas (AAMP parameter archives so far).
#[derive(Debug, Parser)]
#[command(
    name = "codec",
    version,
    about,
    long_about = "Decode, check and convert the binary formats described by the \
                  project's schemas (AAMP parameter archives so far).\n\n\
                  The format of each file is detected from its magic bytes; \
                  --format overrides the detection.",
    propagate_version = true,
    after_help = "`codec check PATH...` prints a line per file that does not \
                  round-trip byte for byte, then `checked N files: A identical, \
                  B differ, C failed`.\n\
                  Exit status: 0 when every checked file is identical, 1 \
                  otherwise, 2 on a usage error. See `codec check --help`."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The verbs. Each variant's arguments live in its module.
#[derive(Debug, Subcommand)]
enum Command {
    /// Decode and re-encode files, and report any that do not come back
    /// byte for byte.
    #[command(
        long_about = "Decode each file into its document model, encode it again \
                      and compare the result with the input bytes. Folders are \
                      walked recursively.\n\n\
                      One line is printed per file that is not identical: its \
                      path and the first differing offset (with both lengths when \
                      they differ), or the error that stopped it. Then exactly one \
                      summary line:\n\n    \
                      checked N files: A identical, B differ, C failed\n\n\
                      N counts the files checked; A came back byte for byte, B \
                      round-tripped but with different bytes, C could not be read, \
                      decoded or encoded.\n\n\
                      In folders, files of no supported format (text, other \
                      formats; detected by magic) are skipped and not counted; a \
                      line before the summary says how many. A file named on the \
                      command line is always counted: if its format is unknown it \
                      fails.",
        after_help = "Exit status: 0 when every checked file is identical \
                      (B = 0 and C = 0), 1 otherwise, 2 on a usage error."
    )]
    Check(check::CheckArgs),
}

/// A format the user can name with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// AAMP v2 parameter archives (.bxml, .bgparamlist, .baiprog, ...).
    Aamp,
}

impl From<FormatArg> for formats::Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Aamp => formats::Format::Aamp,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
    }
}
