//! `codec`: the command-line tool over the formats this project generates.
//!
//! Each verb lives in its own module under `src/bin/codec/` (a crate root
//! finds its modules beside it, hence the `#[path]`); this file only
//! declares the command line (clap derive) and dispatches.

#[path = "codec/ainb.rs"]
mod ainb;
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

/// A format the user can name with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// AAMP v2 parameter archives (.bxml, .bgparamlist, .baiprog, ...).
    Aamp,
    /// Legacy BDAT tables (Xenoblade before XC3; the game is detected).
    Bdat,
    /// AI node binaries (0x404, 0x407, 0x408; the version is detected).
    Ainb,
    /// SARC archives (.sarc, .pack, .bactorpack, ...; both byte orders).
    Sarc,
    /// BYML documents (.byml, .bgyml, .bcett, .product, ...; versions 1-7,
    /// both byte orders).
    Byml,
}

impl From<FormatArg> for formats::Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Aamp => formats::Format::Aamp,
            FormatArg::Bdat => formats::Format::Bdat,
            FormatArg::Ainb => formats::Format::Ainb,
            FormatArg::Sarc => formats::Format::Sarc,
            FormatArg::Byml => formats::Format::Byml,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Dump(args) => dump::run(&args),
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
    let text = "\
format  magic         extensions                                  check  text                       dump/coverage/survey/docs
aamp    AAMP          .bxml .bgparamlist .baiprog .bdrop .bphysics …  yes    YAML (oead's dialect)      yes
ainb    AIB           .ainb                                       yes    JSON (dt-12345/AINB's)     yes
bdat    (table list)  .bdat (XC1 Wii/3DS, XCX, XC2, XC1 DE)       yes    JSON/CSV (bdat-toolset's)  yes
byml    YB / BY       .byml .bgyml .bcett .product … (v1-v7)      yes    YAML (oead's dialect)      yes
sarc    SARC          .sarc .pack .bactorpack …                   yes    a folder + manifest        yes
layers: Yaz0 (.szs, .sbactorpack, any .s* file) and zstd (.zs; dictionaries: --zstd-dict, $CODEC_ZSTD_DICT, or the romfs's Pack/ZsDic.pack.zs) are opened by every command
archives: `codec archive list|extract|create|add|replace|delete`; one member anywhere as ARCHIVE:MEMBER
variants (--variant): bdat: switch (xc2, xc1de), x (xcx), wii (xc1), new3ds (3ds); ainb: 0x404, 0x407, 0x408
";
    // What the library's zero-copy views read (docs/views.md).
    use formats::{aamp, ainb, bdat, byml, sarc};
    let skipped = |n: usize| {
        if n == 0 {
            "every field".to_owned()
        } else {
            format!("{n} field{} skipped", if n == 1 { "" } else { "s" })
        }
    };
    let text = format!(
        "{text}views (Rust, formats::<format>::schema::view): aamp {}; ainb {} (0x407); bdat {} (XC2), {} (XC1); byml {}; sarc {}\n",
        skipped(aamp::schema::view::SKIPPED.len()),
        skipped(ainb::schema::view::v407::SKIPPED.len()),
        skipped(bdat::schema::view::switch::SKIPPED.len()),
        skipped(bdat::schema::view::wii::SKIPPED.len()),
        skipped(byml::schema::view::le::SKIPPED.len()),
        skipped(sarc::schema::view::little::SKIPPED.len()),
    );
    if inputs::print(&text) {
        ExitCode::SUCCESS
    } else {
        inputs::failure()
    }
}
