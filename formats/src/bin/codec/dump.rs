//! `codec dump FILE`: every field of a file with its offset, size, path,
//! type and value, read by interpreting a schema at run time. Also the
//! schema selection that `coverage` and `docs` share.

use crate::FormatArg;
use clap::Args;
use codec_interp::{self as interp, render};
use codec_schema::Checked;
use formats::Format;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A schema built into the binary: its format's entry in the registry.
pub type Builtin = &'static formats::registry::Entry;

/// The schemas built into the binary, in the registry's order.
pub fn builtin_schemas() -> Vec<Builtin> {
    formats::registry::FORMATS.iter().collect()
}

/// Parses and checks a built-in schema.
pub fn builtin(b: &Builtin) -> Result<Checked, String> {
    codec_schema::parse_str(b.schema_source, b.schema_file).map_err(|d| d.to_string())
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

    /// Is `data` for this run: with `--schema`, it starts with the magic
    /// the schema's root record starts with (any file, when it has none);
    /// else a built-in format recognises it, or `forced` (`--format`) says
    /// what it is.
    pub fn takes(&self, data: &[u8], forced: bool) -> bool {
        match &self.given {
            Some(c) => match formats::registry::for_schema(&c.base().name) {
                // A built-in format's schema, edited or not: its detection.
                Some(e) => forced || (e.detect)(data).is_some(),
                None => crate::coverage::root_magic(c).is_none_or(|m| data.starts_with(&m)),
            },
            None => forced || self.recognizes(data),
        }
    }

    /// The schema given with `--schema`, if any.
    pub fn given(&self) -> Option<&Checked> {
        self.given.as_ref()
    }

    /// The schema for `data`: `--schema` if given, else the built-in schema
    /// of the forced or detected format; with `variant`, that variant's
    /// concrete schema (else the detected or first variant's). A game's or
    /// version's name (`xc2`, `0x404`) means the format's variant of that
    /// name; other names are the schema's own.
    pub fn pick(
        &self,
        forced: Option<FormatArg>,
        data: &[u8],
        variant: Option<&str>,
    ) -> Result<&Checked, String> {
        let variant = variant.map(|v| {
            forced
                .map(Format::from)
                .or_else(|| Format::detect(data))
                .and_then(|f| formats::variant_name(f, v))
                .unwrap_or(v)
        });
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
            return Ok((c, detected_variant(c, data)));
        }
        let found = match forced {
            Some(f) => {
                let name = Format::from(f).name();
                let b = self.builtins.iter().find(|(b, _)| b.name == name);
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

/// The variant of schema `c` a built-in format's detection names for
/// `data`, when `c` is that format's schema (edited or not): the variant
/// the compiled codec reads the file as. Two variants may both read a
/// file, one of them wrongly (legacy BDAT's Wii tables read as XCX tables
/// of no columns), so the first variant that decodes is only the choice
/// of a schema no format detects.
fn detected_variant(c: &Checked, data: &[u8]) -> Option<&'static str> {
    formats::registry::for_schema(&c.base().name)
        .and_then(|e| (e.detect)(data).flatten())
        .filter(|v| c.variant(v).is_some())
}

/// Decodes `data` with a schema given with `--schema`, by the interpreter
/// with the built-in glue: as its variant `variant`, else the one its
/// format detects, else each variant in turn until one decodes (the first
/// error is the one said). The variant
/// that read it, and the tree.
pub fn interpret<'c>(
    c: &'c Checked,
    variant: Option<&str>,
    data: &[u8],
) -> Result<(&'c Checked, interp::Node), String> {
    let c = match variant.or_else(|| detected_variant(c, data)) {
        Some(v) => c
            .variant(v)
            .ok_or_else(|| format!("schema {} has no variant `{v}`", c.file()))?,
        None => c,
    };
    let glue = formats::interp_hooks::Glue;
    match interp::decode_variants(c, data, codec_runtime::Limits::default(), &glue) {
        (cv, interp::Decoded { root, error: None }) => Ok((cv, root)),
        (_, interp::Decoded { error: Some(e), .. }) if c.variants().len() > 1 => {
            let names: Vec<&str> = c
                .variants()
                .iter()
                .filter_map(Checked::variant_name)
                .collect();
            Err(format!(
                "{e} (no variant of the schema reads the file: {} tried, the first one's error \
                 said; --variant NAME reads it as one)",
                names.join(", ")
            ))
        }
        (_, interp::Decoded { error: Some(e), .. }) => Err(e.to_string()),
    }
}

/// Arguments of `codec dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// The files to dump (folders: every file of a supported format below).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Interpret the files with this schema instead of the one built into
    /// the binary: edit the schema, run again, see the change (no rebuild).
    #[arg(long, value_name = "FILE.ron")]
    schema: Option<PathBuf>,

    /// Use the built-in schema of FORMAT instead of detecting it by magic.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "schema")]
    format: Option<FormatArg>,

    /// Read the files as this game's or version's variant instead of the
    /// detected one (bdat: switch/xc2, x/xcx, wii/xc1, new3ds/3ds; ainb:
    /// 0x404, 0x407, 0x408; or a variant of --schema by its name).
    #[arg(long, alias = "game", value_name = "NAME")]
    variant: Option<String>,

    /// Only the fields whose path starts with PREFIX (and the records that
    /// lead to them), e.g. `File.tables[3]` or `File.root.lists[0]`.
    #[arg(long, value_name = "PREFIX")]
    filter: Option<String>,

    /// AAMP: a names file, one name per line (repeatable), to show the
    /// name each CRC32 stands for. Replaces $CODEC_AAMP_NAMES.
    #[arg(long, value_name = "FILE")]
    names: Vec<PathBuf>,

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

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

/// Runs `codec dump`. Exit status 0 when every file decodes, 1 when one
/// does not or is missing (what was read before an error is still
/// printed), 2 when the schema or the options cannot be used.
pub fn run(args: &DumpArgs) -> ExitCode {
    let schemas = match Schemas::new(args.schema.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprint!("codec: schema errors:\n{e}");
            return crate::inputs::usage();
        }
    };
    let names = match crate::text::load_names(&args.names, &[]) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let entries = crate::inputs::collect(&args.paths);
    let mut ok = true;
    let mut dumped = 0usize;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for (path, entry) in &entries {
        let named = match entry {
            crate::inputs::Input::File { named } => *named,
            crate::inputs::Input::Error(e) => {
                crate::inputs::error(path, e);
                ok = false;
                continue;
            }
            crate::inputs::Input::Other => continue,
        };
        // Through its compression layers: the file inside is dumped.
        let peeled = crate::open::read(path, &dicts).and_then(|raw| {
            formats::layer::peel(&raw, &dicts).map_err(|e| {
                if !named && !schemas.recognizes(&raw) {
                    String::new()
                } else {
                    e
                }
            })
        });
        let (layers, data) = match peeled {
            Ok(p) => p,
            Err(e) if e.is_empty() => continue,
            Err(e) => {
                crate::inputs::error(path, e);
                ok = false;
                continue;
            }
        };
        let mut label = crate::inputs::shown(&path.display().to_string()).into_owned();
        for layer in &layers {
            label.push_str(&format!(" ▸ {layer}"));
        }
        if !named && schemas.given().is_none() && !schemas.recognizes(&data) {
            continue;
        }
        if data.is_empty() {
            crate::inputs::error(path, "empty file");
            ok = false;
            continue;
        }
        dumped += 1;
        match dump_one(Path::new(&label), &data, &schemas, &names, args, &mut out) {
            Ok(true) => {}
            Ok(false) => ok = false,
            Err(e) => {
                if e.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("codec: cannot write the dump: {e}");
                }
                return crate::inputs::failure();
            }
        }
    }
    if let Err(e) = out.flush() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("codec: cannot write the dump: {e}");
        }
        return crate::inputs::failure();
    }
    if dumped == 0 && ok {
        eprintln!("{}", crate::inputs::nothing_found(&args.paths));
        return crate::inputs::failure();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        crate::inputs::failure()
    }
}

/// Dumps one file; `Ok(false)` when it does not decode in full (the error
/// is on stderr).
fn dump_one(
    path: &Path,
    data: &[u8],
    schemas: &Schemas,
    names: &formats::aamp::names::NameTable,
    args: &DumpArgs,
    out: &mut impl Write,
) -> io::Result<bool> {
    let checked = match schemas.pick(args.format, data, args.variant.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            crate::inputs::error(path, e);
            return Ok(false);
        }
    };
    let (checked, mut decoded) = interp::decode_variants(
        checked,
        data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    formats::research::annotate(&checked.schema.name, &mut decoded.root, names, data);
    if let Some(prefix) = &args.filter {
        if !formats::research::filter(&mut decoded.root, prefix) {
            crate::inputs::error(path, format_args!("no field's path starts with `{prefix}`"));
            return Ok(false);
        }
    }
    if args.json {
        let doc = serde_json::json!({
            "file": path.display().to_string(),
            "len": data.len(),
            "schema": checked.file(),
            "variant": checked.variant_name(),
            "root": decoded.root,
            "error": decoded.error.as_ref().map(ToString::to_string),
        });
        serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        let opts = render::DumpOptions {
            hex: args.hex,
            flat: args.flat,
            doc: args.doc,
        };
        let header = render::dump_header(
            &path.display().to_string(),
            data.len(),
            checked.file(),
            &match checked.variant_name() {
                Some(v) => format!("{}, variant {v}", checked.schema.name),
                None => checked.schema.name.clone(),
            },
        );
        writeln!(out, "{header}")?;
        render::dump_to(&decoded.root, data, opts, out)?;
    }
    match decoded.error {
        None => Ok(true),
        Some(e) => {
            crate::inputs::error(path, format_args!("decode error {e}"));
            Ok(false)
        }
    }
}
