//! `codec dump FILE`: every field of a file with its offset, size, path,
//! type and value, read by interpreting a schema at run time. Also the
//! schema selection that `coverage` and `docs` share.

use crate::FormatArg;
use clap::Args;
use codec_schema::interp::{self, render};
use codec_schema::Checked;
use formats::Format;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The schemas built into the binary: format, display name, source text.
pub fn builtin_schemas() -> Vec<(Format, &'static str, &'static str)> {
    vec![(
        Format::Aamp,
        "schemas/aamp.ron",
        formats::aamp::schema::SCHEMA_SOURCE,
    )]
}

/// The schema built into the binary for `format`.
pub fn builtin(format: Format) -> Result<Checked, String> {
    let (_, name, src) = builtin_schemas()
        .into_iter()
        .find(|(f, ..)| *f == format)
        .ok_or_else(|| format!("no schema is built in for {format}"))?;
    codec_schema::parse_str(src, name).map_err(|d| d.to_string())
}

/// A schema file given with `--schema`, read and checked now.
pub fn load(path: &Path) -> Result<Checked, String> {
    codec_schema::load(path, &path.display().to_string()).map_err(|d| d.to_string())
}

/// The schemas a run can use: the one given with `--schema`, or else the
/// built-in ones, each parsed and checked once.
#[derive(Debug)]
pub struct Schemas {
    given: Option<Checked>,
    builtins: Vec<(Format, Result<Checked, String>)>,
}

impl Schemas {
    /// Loads `--schema` if given (its diagnostics are the error).
    pub fn new(schema: Option<&Path>) -> Result<Schemas, String> {
        let given = schema.map(load).transpose()?;
        let builtins = if given.is_some() {
            Vec::new()
        } else {
            builtin_schemas()
                .into_iter()
                .map(|(f, ..)| (f, builtin(f)))
                .collect()
        };
        Ok(Schemas { given, builtins })
    }

    /// The schema given with `--schema`, if any.
    pub fn given(&self) -> Option<&Checked> {
        self.given.as_ref()
    }

    /// The schema for `data`: `--schema` if given, else the built-in schema
    /// of the forced or detected format; with `variant`, that variant's
    /// concrete schema (else the first variant's).
    pub fn pick(
        &self,
        forced: Option<FormatArg>,
        data: &[u8],
        variant: Option<&str>,
    ) -> Result<&Checked, String> {
        let c = self.pick_schema(forced, data)?;
        let Some(name) = variant else {
            return Ok(c);
        };
        c.variant(name).ok_or_else(|| {
            let names: Vec<&str> = c
                .variants()
                .iter()
                .filter_map(Checked::variant_name)
                .collect();
            if names.is_empty() {
                format!("schema {} has no variants", c.file())
            } else {
                format!(
                    "schema {} has no variant `{name}`; its variants are: {}",
                    c.file(),
                    names.join(", ")
                )
            }
        })
    }

    fn pick_schema(&self, forced: Option<FormatArg>, data: &[u8]) -> Result<&Checked, String> {
        if let Some(c) = &self.given {
            return Ok(c);
        }
        let format = forced
            .map(Format::from)
            .or_else(|| Format::detect(data))
            .ok_or_else(|| {
                "not a file of a supported format (its first bytes match no known magic); \
                 use --format, or --schema FILE.ron to interpret it with a schema"
                    .to_owned()
            })?;
        match self.builtins.iter().find(|(f, _)| *f == format) {
            Some((_, Ok(c))) => Ok(c),
            Some((_, Err(e))) => Err(e.clone()),
            None => Err(format!("no schema is built in for {format}")),
        }
    }
}

/// Arguments of `codec dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The file to dump.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Interpret FILE with this schema instead of the one built into the
    /// binary: edit the schema, run again, see the change (no rebuild).
    #[arg(long, value_name = "FILE.ron")]
    schema: Option<PathBuf>,

    /// Use the built-in schema of FORMAT instead of detecting it by magic.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    format: Option<FormatArg>,

    /// For a schema with variants (games, versions): read the file as this
    /// variant instead of the first one.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,

    /// Show each field's bytes beside it (up to 16).
    #[arg(long)]
    hex: bool,

    /// One line per field with its full path instead of an indented name.
    #[arg(long, conflicts_with = "json")]
    flat: bool,

    /// Add each field's doc line from the schema (`# …`).
    #[arg(long, conflicts_with = "json")]
    doc: bool,

    /// Print the tree as JSON (offset, size, path, type, kind, value,
    /// children) for other tools.
    #[arg(long)]
    json: bool,
}

/// Runs `codec dump`. Exit status 0 when the file decodes, 1 when it does
/// not (what was read before the error is still printed), 2 when the schema
/// or the file cannot be used.
pub fn run(args: &DumpArgs) -> ExitCode {
    let data = match std::fs::read(&args.file) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {}: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let schemas = match Schemas::new(args.schema.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprint!("codec: schema errors:\n{e}");
            return ExitCode::from(2);
        }
    };
    let checked = match schemas.pick(args.format, &data, args.variant.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("codec: {}: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let decoded = interp::decode_partial(checked, &data, codec_runtime::Limits::default());
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let written = if args.json {
        let doc = serde_json::json!({
            "file": args.file.display().to_string(),
            "len": data.len(),
            "schema": checked.file(),
            "root": decoded.root,
            "error": decoded.error.as_ref().map(ToString::to_string),
        });
        serde_json::to_writer_pretty(&mut out, &doc)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        let opts = render::DumpOptions {
            hex: args.hex,
            flat: args.flat,
            doc: args.doc,
        };
        let header = render::dump_header(
            &args.file.display().to_string(),
            data.len(),
            checked.file(),
            &checked.schema.name,
        );
        writeln!(out, "{header}")
            .and_then(|()| out.write_all(render::dump(&decoded.root, &data, opts).as_bytes()))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("codec: cannot write the dump: {e}");
        }
        return ExitCode::FAILURE;
    }
    match decoded.error {
        None => ExitCode::SUCCESS,
        Some(e) => {
            eprintln!("codec: {}: decode error {e}", args.file.display());
            ExitCode::FAILURE
        }
    }
}
