//! `codec docs`: wiki pages from the schemas (Markdown, MediaWiki, SVG).

use crate::atomic::{self, Staged};
use crate::dump;
use clap::{Args, ValueEnum};
use codec_schema::docs::{self, DocFormat};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Which pages `--format` asks for.
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
    format: DocsFormat,

    /// The folder to write them to (created if missing). The pages replace
    /// the old ones only once every page is written in full (to temporary
    /// files), so a failed run changes nothing.
    #[arg(long, value_name = "DIR", default_value = "docs/formats")]
    out: PathBuf,

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
        for b in dump::builtin_schemas() {
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
    let formats = args.format.formats();
    let mut staged = Staged::new();
    let mut written = Vec::new();
    for c in &schemas {
        for f in docs::generate(c, &formats) {
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
    let mut stdout = std::io::stdout().lock();
    for path in written {
        let _ = writeln!(stdout, "wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
