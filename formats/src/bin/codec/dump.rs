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

/// A schema built into the binary.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// The format's name, as `--format` and [`Format::name`] spell it.
    pub format: &'static str,
    /// The name diagnostics and pages print (`schemas/aamp.ron`).
    pub file: &'static str,
    pub source: &'static str,
    /// Recognises a file of the format, and the variant it is written in
    /// (for schemas with variants): `None` when it is not one.
    pub detect: fn(&[u8]) -> Option<Option<&'static str>>,
}

/// The schemas built into the binary, in a stable order.
pub fn builtin_schemas() -> Vec<Builtin> {
    vec![
        Builtin {
            format: "aamp",
            file: "schemas/aamp.ron",
            source: formats::aamp::schema::SCHEMA_SOURCE,
            detect: |d| d.starts_with(formats::aamp::MAGIC).then_some(None),
        },
        Builtin {
            format: "ainb",
            file: "schemas/ainb.ron",
            source: formats::ainb::schema::SCHEMA_SOURCE,
            detect: |d| {
                d.starts_with(formats::ainb::MAGIC).then(|| {
                    let version = d.get(4..8)?;
                    let version =
                        u32::from_le_bytes([version[0], version[1], version[2], version[3]]);
                    formats::ainb::variant_of(version).map(|v| v.name())
                })
            },
        },
        Builtin {
            format: "bdat",
            file: "schemas/bdat_legacy.ron",
            source: formats::bdat::schema::SCHEMA_SOURCE,
            detect: |d| {
                formats::bdat::looks_like(d).then(|| formats::bdat::detect(d).map(|v| v.name()))
            },
        },
    ]
}

/// Parses and checks a built-in schema.
pub fn builtin(b: &Builtin) -> Result<Checked, String> {
    codec_schema::parse_str(b.source, b.file).map_err(|d| d.to_string())
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
    builtins: Vec<(Builtin, Result<Checked, String>)>,
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
                .map(|b| (b, builtin(&b)))
                .collect()
        };
        Ok(Schemas { given, builtins })
    }

    /// Does a built-in schema's format recognise `data`?
    pub fn recognizes(&self, data: &[u8]) -> bool {
        self.builtins
            .iter()
            .any(|(b, _)| (b.detect)(data).is_some())
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
        let (c, detected) = self.pick_schema(forced, data)?;
        let Some(name) = variant.or(detected) else {
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

    /// The schema, and the variant the file's format detection names.
    fn pick_schema(
        &self,
        forced: Option<FormatArg>,
        data: &[u8],
    ) -> Result<(&Checked, Option<&'static str>), String> {
        if let Some(c) = &self.given {
            return Ok((c, None));
        }
        let found = match forced {
            Some(f) => {
                let name = Format::from(f).name();
                let b = self.builtins.iter().find(|(b, _)| b.format == name);
                b.map(|(b, c)| (c, (b.detect)(data).flatten()))
                    .ok_or_else(|| format!("no schema is built in for {name}"))?
            }
            None => self
                .builtins
                .iter()
                .find_map(|(b, c)| (b.detect)(data).map(|v| (c, v)))
                .ok_or_else(|| {
                    "not a file of a supported format (its first bytes match no known magic); \
                     use --format, or --schema FILE.ron to interpret it with a schema"
                        .to_owned()
                })?,
        };
        match found {
            (Ok(c), v) => Ok((c, v)),
            (Err(e), _) => Err(e.clone()),
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
    let decoded = interp::decode_partial_with(
        checked,
        &data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
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
