//! `codec docs`: wiki pages from the schemas (Markdown, MediaWiki, SVG).

use crate::atomic::{self, Staged};
use crate::dump;
use clap::{Args, ValueEnum};
use codec_schema::docs::{self, DocFormat};
use std::path::PathBuf;
use std::process::ExitCode;

/// Which pages `--kind` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocsFormat {
    /// Markdown with GitHub tables (`<schema>.md`).
    Md,
    /// MediaWiki table syntax (`<schema>.mediawiki`).
    Mediawiki,
    /// One byte-layout picture per struct (`<schema>-<Struct>.svg`).
    Svg,
    /// All of the above.
    All,
}

impl DocsFormat {
    fn formats(self) -> Vec<DocFormat> {
        match self {
            DocsFormat::Md => vec![DocFormat::Markdown],
            DocsFormat::Mediawiki => vec![DocFormat::MediaWiki],
            DocsFormat::Svg => vec![DocFormat::Svg],
            DocsFormat::All => DocFormat::ALL.to_vec(),
        }
    }
}

/// Arguments of `codec docs`.
#[derive(Debug, Args)]
pub struct DocsArgs {
    /// Which pages to write.
    #[arg(long, value_enum, default_value = "all")]
    kind: DocsFormat,

    /// Document only the built-in schema of FORMAT.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    format: Option<crate::FormatArg>,

    /// The folder to write them to (created if missing); required, so
    /// that pages never land in the current folder by surprise (the
    /// project's own pages: `--out docs/formats`). The pages replace the
    /// old ones only once every page is written in full (to temporary
    /// files), so a failed run changes nothing.
    #[arg(long, short = 'o', value_name = "DIR")]
    out: PathBuf,

    /// Replace pages that already exist.
    #[arg(long, short)]
    force: bool,

    /// Print only the number of pages written, not each one.
    #[arg(long, short)]
    quiet: bool,

    /// Document these schema files instead of the schemas built into the
    /// binary (repeatable).
    #[arg(long, value_name = "FILE.ron")]
    schema: Vec<PathBuf>,
}

/// Runs `codec docs`: 0 when every page was written, 1 when a write
/// failed, 2 when a schema has errors.
pub fn run(args: &DocsArgs) -> ExitCode {
    let mut schemas = Vec::new();
    if args.schema.is_empty() {
        let only = args.format.map(|f| formats::Format::from(f).name());
        for b in dump::builtin_schemas() {
            if only.is_some_and(|f| f != b.name) {
                continue;
            }
            match dump::builtin(&b) {
                Ok(c) => schemas.push(c),
                Err(e) => {
                    eprint!("codec: schema errors:\n{e}");
                    return ExitCode::from(2);
                }
            }
        }
    } else {
        for p in &args.schema {
            match dump::load(p) {
                Ok(c) => schemas.push(c),
                Err(e) => {
                    eprint!("codec: schema errors:\n{e}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let created = match atomic::create_dirs(&args.out) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("codec: {e}");
            return ExitCode::FAILURE;
        }
    };
    let fail = |e: String| {
        eprintln!("codec: {e}");
        atomic::remove_created(&created);
        ExitCode::FAILURE
    };
    // Every page is staged (written to a temporary file) before any is
    // renamed into place: a run that fails leaves the old pages as they were.
    let formats = args.kind.formats();
    let mut staged = Staged::new();
    let mut written = Vec::new();
    let pages: Vec<_> = schemas
        .iter()
        .flat_map(|c| docs::generate(c, &formats))
        .collect();
    if !args.force {
        let existing: Vec<String> = pages
            .iter()
            .map(|f| args.out.join(&f.name))
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if let Some(first) = existing.first() {
            atomic::remove_created(&created);
            eprintln!(
                "codec: {first}: exists ({} page(s) would be replaced); use --force to replace them",
                existing.len()
            );
            return ExitCode::FAILURE;
        }
    }
    {
        for f in &pages {
            let path = args.out.join(&f.name);
            if let Err(e) = staged.add(&path, f.contents.as_bytes(), true) {
                // The staged files go first, then the folders they were in.
                drop(staged);
                return fail(e);
            }
            written.push(path);
        }
    }
    if let Err(e) = staged.commit() {
        return fail(e);
    }
    let mut text = String::new();
    if args.quiet {
        text = format!("wrote {} pages to {}\n", written.len(), args.out.display());
    } else {
        for path in written {
            text.push_str(&format!("wrote {}\n", path.display()));
        }
    }
    if crate::inputs::print(&text) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
