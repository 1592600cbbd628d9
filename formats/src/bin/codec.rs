//! `codec`: the command-line tool over the formats this project generates.
//!
//! Each verb lives in its own module under `src/bin/codec/` (a crate root
//! finds its modules beside it, hence the `#[path]`); this file only
//! declares the command line (clap derive) and dispatches.

#[path = "codec/archive.rs"]
mod archive;
#[path = "codec/atomic.rs"]
mod atomic;
#[path = "codec/bdat.rs"]
mod bdat;
#[path = "codec/check.rs"]
mod check;
#[path = "codec/coverage.rs"]
mod coverage;
#[path = "codec/docs.rs"]
mod docs;
#[path = "codec/dump.rs"]
mod dump;
#[cfg(feature = "explore")]
#[path = "codec/explore/mod.rs"]
mod explore;
#[path = "codec/inputs.rs"]
mod inputs;
#[path = "codec/interrupt.rs"]
mod interrupt;
#[path = "codec/members.rs"]
mod members;
#[path = "codec/open.rs"]
mod open;
#[path = "codec/survey.rs"]
mod survey;
#[path = "codec/text.rs"]
mod text;

use clap::{Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

/// Decode, check and convert the binary formats described by the project's
/// schemas (AAMP, AINB, legacy BDAT, BYML, SARC).
#[derive(Debug, Parser)]
#[command(
    name = "codec",
    version,
    about = ABOUT,
    long_about = ABOUT_LONG,
    propagate_version = true,
    after_help = AFTER_HELP,
    after_long_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The first sentence of `codec -h` and `codec --help` alike.
const ABOUT: &str = "Decode, check and convert the binary formats described by the project's \
                     schemas (AAMP parameter archives, AINB AI node graphs, legacy BDAT \
                     tables, BYML documents, SARC archives), inside Yaz0 and zstd layers.";

const ABOUT_LONG: &str = "Decode, check and convert the binary formats described by the project's \
     schemas (AAMP parameter archives, AINB AI node graphs, legacy BDAT tables, BYML \
     documents, SARC archives), inside Yaz0 and zstd layers.\n\n\
     One grammar for every subcommand: PATH... takes files and folders (walked recursively); \
     --format FORMAT reads files as that binary format instead of detecting it from their \
     magic; --variant NAME reads them as a game's or version's variant; --names FILE \
     recovers AAMP key names; -q prints only the summary and --json prints JSON for tools. \
     Results go to standard output, errors to standard error (`codec: PATH: message`).\n\n\
     `codec formats` lists the formats and what each can do.";

const AFTER_HELP: &str = "Exit status (every subcommand): 0 when every file was handled \
     (for check: identical or equivalent), 1 when a file failed, differs, is missing, or no \
     file of a supported format was found, 2 on a usage error (bad arguments, an unusable \
     schema or dictionary).";

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
                      path and the verdict. When the re-encoded bytes differ, they \
                      are decoded again and the documents compared: `equivalent` \
                      (content identical, the layout differs from the input's \
                      writer, e.g. a file another tool wrote) or `differs` (the \
                      content would change). A file that cannot be read, decoded or \
                      encoded is reported on stderr. Then exactly one summary \
                      line:\n\n    \
                      checked N files: A identical, B differ, C failed[, E equivalent]\n\n\
                      N counts the files checked; A came back byte for byte, B \
                      round-tripped to another document, C could not be read, \
                      decoded or encoded, E came back as the same document in other \
                      bytes (shown only when there are any).\n\n\
                      In folders, files of no supported format (text, other \
                      formats; detected by magic) are skipped and not counted; a \
                      line before the summary says how many. A file named on the \
                      command line is always counted: if its format is unknown it \
                      fails.",
        after_help = "Exit status: 0 when every checked file is identical or \
                      equivalent (B = 0 and C = 0), 1 otherwise or when no file of a \
                      supported format was found, 2 on a usage error."
    )]
    Check(check::CheckArgs),
    /// Print every field of a file: offset, size, path, type and value.
    #[command(
        long_about = "Print every field of a file as an indented tree: byte offset, \
                      size, name, type and value; offsets show where they lead and \
                      their targets follow beneath them. The schema is interpreted at \
                      run time: with --schema FILE.ron an edited schema takes effect \
                      on the next run, without rebuilding.",
        after_help = "Exit status: 0 when the file decodes, 1 when it does not (the \
                      fields read before the error are printed, the error goes to \
                      stderr), 2 when the file or the schema cannot be used."
    )]
    Dump(dump::DumpArgs),
    /// Show and edit files in a local web page (hex and tree, coverage,
    /// the live schema).
    #[cfg(feature = "explore")]
    #[command(after_help = "Exit status: 0 when stopped, 1 when a file cannot be \
                      opened or the server cannot start, 2 on a usage error.")]
    Explore(explore::ExploreArgs),
    /// Report the bytes each file's schema explains, and the gaps.
    #[command(
        long_about = "For each file: how many bytes the schema's fields explain, how \
                      many are padding the layout requires (alignment, string \
                      padding), how many lie in fields declared unknown (named \
                      unknown_* or unk_*, or `unknown: true`), and the ranges nothing \
                      explains (offset, length, first bytes). Then a summary over all \
                      files.",
        after_help = "Exit status: 0 when every file decodes, 1 otherwise, 2 when \
                      the schema cannot be used."
    )]
    Coverage(coverage::CoverageArgs),
    // Help texts of survey: on its Args in codec/survey.rs.
    Survey(survey::SurveyArgs),
    /// Write wiki pages (Markdown, MediaWiki, SVG) from the schemas.
    Docs(docs::DocsArgs),
    // Help texts of to-text and from-text: on their Args in codec/text.rs.
    ToText(text::ToTextArgs),
    FromText(text::FromTextArgs),
    // Help texts of archive: on its Args in codec/members.rs.
    Archive(members::ArchiveArgs),
    /// List the formats: their extensions and what codec does with each.
    Formats,
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        long_about = "Print a completion script for SHELL on standard output. For \
                      bash: `codec completions bash > ~/.local/share/bash-completion/completions/codec`."
    )]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// A format the user can name with `--format`: one of the registry's
/// (`formats::registry::FORMATS`), its name and summary from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatArg(formats::Format);

impl ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<Vec<FormatArg>> =
            std::sync::LazyLock::new(|| formats::Format::all().map(FormatArg).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let e = self.0.entry();
        Some(clap::builder::PossibleValue::new(e.name).help(e.summary))
    }
}

impl From<FormatArg> for formats::Format {
    fn from(f: FormatArg) -> Self {
        f.0
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Dump(args) => dump::run(&args),
        #[cfg(feature = "explore")]
        Command::Explore(args) => explore::run(&args),
        Command::Coverage(args) => coverage::run(&args),
        Command::Survey(args) => survey::run(&args),
        Command::Archive(args) => members::run(&args),
        Command::Docs(args) => docs::run(&args),
        Command::ToText(args) => text::run_to_text(&args),
        Command::FromText(args) => text::run_from_text(&args),
        Command::Formats => formats_table(),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "codec", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

/// `codec formats`: every format, its usual extensions and what codec does
/// with it.
fn formats_table() -> ExitCode {
    use formats::registry::FORMATS;
    use std::fmt::Write as _;
    let width = |f: fn(&formats::registry::Entry) -> &str, title: &str| {
        FORMATS
            .iter()
            .map(|e| f(e).chars().count())
            .max()
            .unwrap_or(0)
            .max(title.len())
    };
    let (wn, wm, we, wt) = (
        width(|e| e.name, "format"),
        width(|e| e.magic, "magic"),
        width(|e| e.extensions, "extensions"),
        width(|e| e.text, "text"),
    );
    let mut text = format!(
        "{:wn$}  {:wm$}  {:we$}  check  {:wt$}  dump/coverage/survey/docs\n",
        "format", "magic", "extensions", "text"
    );
    for e in &FORMATS {
        let _ = writeln!(
            text,
            "{:wn$}  {:wm$}  {:we$}  yes    {:wt$}  yes",
            e.name, e.magic, e.extensions, e.text
        );
    }
    text.push_str(
        "layers: Yaz0 (.szs, .sbactorpack, any .s* file) and zstd (.zs; dictionaries: --zstd-dict, \
         $CODEC_ZSTD_DICT, or the romfs's Pack/ZsDic.pack.zs) are opened by every command\n\
         archives: `codec archive list|extract|create|add|replace|delete`; one member anywhere as ARCHIVE:MEMBER\n",
    );
    let variants: Vec<String> = FORMATS
        .iter()
        .filter_map(|e| Some(format!("{}: {}", e.name, e.variants?)))
        .collect();
    let _ = writeln!(text, "variants (--variant): {}", variants.join("; "));
    // What the library's zero-copy views read (docs/views.md).
    let views: Vec<String> = FORMATS
        .iter()
        .map(|e| {
            let parts: Vec<String> = (e.views_skipped)()
                .into_iter()
                .map(|(variant, n)| {
                    let what = if n == 0 {
                        "every field".to_owned()
                    } else {
                        format!("{n} field{} skipped", if n == 1 { "" } else { "s" })
                    };
                    if variant.is_empty() {
                        what
                    } else {
                        format!("{what} ({variant})")
                    }
                })
                .collect();
            if parts.is_empty() {
                // Carried by the interpreter: no generated code, no views.
                return format!("{} none (read by the schema interpreter)", e.name);
            }
            format!("{} {}", e.name, parts.join(", "))
        })
        .collect();
    let _ = writeln!(
        text,
        "views (Rust, formats::<format>::schema::view): {}",
        views.join("; ")
    );
    if inputs::print(&text) {
        ExitCode::SUCCESS
    } else {
        inputs::failure()
    }
}
