//! `codec docs`: wiki pages from the schemas (Markdown, MediaWiki, SVG).

use crate::dump;
use clap::{Args, ValueEnum};
use codec_schema::docs::{self, DocFormat};
use std::io::Write;
use std::path::{Path, PathBuf};
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

    /// The folder to write them to (created if missing).
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
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("codec: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let formats = args.format.formats();
    let mut stdout = std::io::stdout().lock();
    for c in &schemas {
        for f in docs::generate(c, &formats) {
            let path = args.out.join(&f.name);
            if let Err(e) = write_atomically(&path, f.contents.as_bytes()) {
                eprintln!("codec: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
            let _ = writeln!(stdout, "wrote {}", path.display());
        }
    }
    ExitCode::SUCCESS
}

/// Writes through a temporary file in the same folder, then renames it, so
/// an interrupted run never leaves a half-written page.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
