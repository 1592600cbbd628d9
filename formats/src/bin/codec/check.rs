//! `codec check PATH...`: decode and re-encode every file, compare with the
//! input bytes, and summarise.

use crate::inputs::{self, Input};
use crate::FormatArg;
use clap::{Args, ValueEnum};
use codec_interp as interp;
use codec_schema::Checked;
use formats::layer::{Dictionaries, Layer};
use formats::Format;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How many leading bytes are read to detect the format, before the rest.
/// Files in folders that turn out to be of no supported format are then
/// never read in full.
const DETECT_PREFIX: u64 = 256;

/// Arguments of `codec check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files and folders to check; folders are walked recursively.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Decode every file as FORMAT instead of detecting it by magic.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        long_help = "Decode every file as FORMAT instead of detecting its format \
                     from its magic bytes. No file in a folder is skipped then: \
                     every file is counted, and one that is not of FORMAT fails."
    )]
    format: Option<FormatArg>,

    /// Decode and encode with this schema, interpreted (no build): proves
    /// that a schema reads and writes the files byte for byte.
    #[arg(
        long,
        value_name = "FILE.ron",
        conflicts_with = "format",
        long_help = "Decode and encode every file with this schema, interpreted at run time \
                     (no build): a file comes back identical when the schema reads and \
                     writes it byte for byte. Files are taken when they start with the \
                     root record's magic (every file, for a schema without one), through \
                     their Yaz0 and zstd layers; archives are not opened. A schema with \
                     variants is tried in its order unless --variant names one. A \
                     construct the interpreter does not write yet fails each file with \
                     its name."
    )]
    schema: Option<PathBuf>,

    #[command(flatten)]
    dicts: crate::open::DictArgs,

    /// Read the files of a format with variants as this game or version
    /// (bdat: switch/xc2, x/xcx, wii/xc1, new3ds/3ds) instead of detecting it.
    #[arg(long, alias = "game", value_name = "NAME")]
    variant: Option<String>,

    /// Print only the summary line (errors still go to stderr).
    #[arg(long, short = 'q', conflicts_with = "json")]
    quiet: bool,

    /// Print one JSON object per file and a summary object, for tools.
    #[arg(long)]
    json: bool,

    /// Also print a line for each identical file inside archives and
    /// layers, and for each kept as bytes.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    verbose: bool,

    /// Recompress each Yaz0 or zstd layer and report whether the file's
    /// compressed bytes come back. Off by default: neither game's encoder
    /// settings are known, so they never do, and recompressing was most of
    /// the time a check took (a TotK message archive: 73 %); the content
    /// inside is checked either way.
    #[arg(long)]
    compare_layers: bool,

    /// With --schema: skip the edit probe (only the identity round trip).
    #[arg(
        long,
        requires = "schema",
        long_help = "With --schema, after a file comes back, `check` edits its document in \
                     the ways the schema says are free (every variable-length string made \
                     longer and shorter, an element appended to and removed from every list \
                     whose count or end is derived, the integer payload of each union arm \
                     changed), once per place of the schema, encodes each edit, decodes \
                     it again and compares: a schema that keeps an offset, size or count as \
                     a stored number reads and writes its files byte for byte, and breaks \
                     on the first edit. An edit that does not come back is listed with the \
                     value's path and what was read instead, and fails the run. This flag \
                     skips the probe."
    )]
    no_edits: bool,

    /// Without --schema: run the edit probe on the built-in formats too.
    #[arg(
        long,
        conflicts_with = "schema",
        long_help = "Runs the edit probe (see --no-edits) on files of the built-in formats: \
                     each file that comes back is read again by the interpreter with the \
                     schema its format's codec is generated from, and edited as with \
                     --schema. Off by default: it reads every file twice. With --schema the \
                     probe is on already."
    )]
    edits: bool,
}

/// The verdict on one file: a file given, or one inside compression layers
/// and archives.
#[derive(Debug)]
enum Outcome {
    Identical,
    /// The re-encoded bytes differ, but they decode to the same document:
    /// only the layout differs from the input's writer.
    Equivalent {
        offset: usize,
        input_len: usize,
        output_len: usize,
    },
    Differ {
        offset: usize,
        input_len: usize,
        output_len: usize,
        /// Why, when not that the bytes decode to another document.
        lost: Option<String>,
    },
    Failed(String),
    /// Of no supported format (kept as bytes inside an archive).
    Skipped,
}

/// One line of the report: a file given, or a file inside it, named by its
/// way in (`A.sbactorpack ▸ Yaz0 ▸ sarc ▸ Actor/x.baiprog`).
#[derive(Debug)]
struct Row {
    label: String,
    outcome: Outcome,
    /// What recompressing each layer around this file gave.
    notes: String,
    /// Inside a layer or an archive: the line is shown even when identical.
    nested: bool,
    /// What the edit probe may try on the file's document (`--schema`, a
    /// file that came back).
    edits: Option<Pending>,
}

/// A document the edit probe may edit: the places it holds, tried on the
/// first file (in the order given) that holds each.
#[derive(Debug)]
struct Pending {
    /// The schema that read it: `--schema` (`None`), or the one a built-in
    /// format's codec is generated from (`--edits`).
    schema: Option<Format>,
    /// The schema's variant that read it (by its index), if it has some.
    variant: Option<usize>,
    doc: interp::Value,
    sites: Vec<interp::edits::Site>,
    /// Its stored numbers that equal a position of something read.
    suspects: Vec<interp::edits::Suspect>,
    /// The places of its stored numbers that are not zero.
    numbers: std::collections::HashSet<String>,
}

/// The edits that did not hold listed before the summary, without -v.
const MAX_EDIT_LINES: usize = 20;

/// The edits one file is given, after every file is checked.
struct Job {
    label: String,
    pending: Pending,
}

impl Row {
    fn top(path: &Path, outcome: Outcome) -> Row {
        Row {
            label: inputs::shown(&path.display().to_string()).into_owned(),
            outcome,
            notes: String::new(),
            nested: false,
            edits: None,
        }
    }
}

/// Runs `codec check`; the exit status is 0 only when every counted file
/// came back byte for byte or as an equivalent document.
pub fn run(args: &CheckArgs) -> ExitCode {
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return inputs::usage();
        }
    };
    let schema = match &args.schema {
        None => None,
        Some(p) => match crate::dump::Schemas::new(Some(p)) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("{e}");
                return inputs::usage();
            }
        },
    };
    if schema.is_none() {
        if let Err(code) = inputs::check_variant(args.variant.as_deref()) {
            return code;
        }
    }
    let schema = schema.as_ref();
    let entries = inputs::collect(&args.paths);
    let forced = args.format.map(Format::from);
    let variant = args.variant.as_deref();

    let bar = inputs::progress_bar("checking", entries.len());
    let meter = inputs::Throughput::start();
    // Files are checked on all cores; each file's lines are printed as soon
    // as it and every file before it are done, so the output streams and
    // keeps the input order.
    let stream = std::sync::Mutex::new(Stream::default());
    entries
        .par_iter()
        .enumerate()
        .for_each(|(i, (path, entry))| {
            let rows = match entry {
                Input::File { named } => {
                    let what = What {
                        named: *named,
                        forced,
                        schema,
                        variant,
                        dicts: &dicts,
                        limit: 0,
                        compare_layers: args.compare_layers,
                        edits: (args.schema.is_some() && !args.no_edits) || args.edits,
                    };
                    check_file(path, what, &meter)
                }
                Input::Error(message) => vec![Row::top(path, Outcome::Failed(message.clone()))],
                Input::Other => vec![Row::top(path, Outcome::Skipped)],
            };
            bar.inc(1);
            let mut guard = stream.lock().unwrap_or_else(|e| e.into_inner());
            let s = &mut *guard;
            s.done.insert(i, rows);
            while let Some(mut rows) = s.done.remove(&s.next) {
                s.claim(&mut rows);
                let path = &entries[s.next].0;
                let (text, errors) = s.file(path, &rows, args);
                bar.suspend(|| {
                    for message in &errors {
                        inputs::error(path, message);
                    }
                    if !text.is_empty() && !inputs::print(&text) {
                        s.broken = true;
                    }
                });
                s.next += 1;
            }
        });
    bar.finish_and_clear();

    let mut s = stream.into_inner().unwrap_or_else(|e| e.into_inner());
    if !s.jobs.is_empty() {
        probe(&mut s, schema.and_then(|x| x.given()));
    }
    let counted = s.tally.counted();
    let summary = summary(&s, args, &meter);
    if counted == 0 {
        eprintln!("{}", inputs::nothing_found(&args.paths));
        inputs::print(&summary);
        return inputs::failure();
    }
    let edits_failed = s.tally.edits_held + s.tally.edits_refused < s.tally.edits_tried;
    if s.broken || !inputs::print(&summary) || s.tally.differ + s.tally.failed > 0 || edits_failed {
        return inputs::failure();
    }
    ExitCode::SUCCESS
}

/// Runs the edit probe's jobs (each file's edits, on all cores) and
/// counts them.
fn probe(s: &mut Stream, given: Option<&Checked>) {
    let mut jobs = std::mem::take(&mut s.jobs);
    for job in &mut jobs {
        let places = s.numbers.get(&job.pending.schema);
        job.pending
            .suspects
            .retain(|x| places.is_some_and(|p| p.offset_like(x)));
    }
    let started = std::time::Instant::now();
    let bar = inputs::progress_bar("editing", jobs.len());
    let glue = formats::interp_hooks::Glue;
    let reports: Vec<(String, interp::edits::Report)> = jobs
        .into_par_iter()
        .map(|job| {
            let p = job.pending;
            let c = match p.schema {
                None => given,
                Some(format) => embedded(format),
            };
            let Some(c) = c else {
                return (job.label, interp::edits::Report::default());
            };
            let cv = p.variant.and_then(|i| c.variants().get(i)).unwrap_or(c);
            let r = interp::edits::try_sites(cv, &p.doc, p.sites, &p.suspects, &glue);
            bar.inc(1);
            (job.label, r)
        })
        .collect();
    bar.finish_and_clear();
    for (_, r) in &reports {
        s.tally.edits_tried += r.tried;
        s.tally.edits_held += r.held;
        s.tally.edits_refused += r.refused.len();
        s.tally.edits_files += 1;
    }
    s.probed = Some((reports, started.elapsed()));
}

/// Reads, detects and checks one file (and what it holds).
fn check_file(path: &Path, what: What<'_>, meter: &inputs::Throughput) -> Vec<Row> {
    let dicts = what.dicts;
    let failed = |m: String| vec![Row::top(path, Outcome::Failed(m))];
    let data = if crate::open::is_addressed(path) {
        match crate::open::read(path, dicts) {
            Ok(d) => d,
            Err(e) => return failed(e),
        }
    } else {
        match read_if_known(path, &what) {
            Ok(Some(d)) => d,
            Ok(None) => return vec![Row::top(path, Outcome::Skipped)],
            Err(e) => return failed(e),
        }
    };
    if data.is_empty() {
        return failed(unknown_format(&data));
    }
    meter.add(data.len() as u64);
    let what = What {
        limit: formats::layer::inner_limit(data.len()),
        ..what
    };
    let mut rows = Vec::new();
    check_bytes(
        &data,
        &inputs::shown(&path.display().to_string()),
        &what,
        Place::Top,
        0,
        &mut rows,
    );
    rows
}

/// A file's bytes, read whole only when its first bytes are of a known
/// format or layer (or it was named: then an unknown one is an error);
/// `None`: a file in a folder of no supported format, skipped.
fn read_if_known(path: &Path, what: &What<'_>) -> Result<Option<Vec<u8>>, String> {
    let named = what.named;
    let mut file = File::open(path).map_err(|e| inputs::io_message(&e))?;
    let mut data = Vec::new();
    (&mut file)
        .take(DETECT_PREFIX)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    let known = Layer::detect(&data).is_some()
        || match what.schema {
            Some(s) => s.takes(&data, false),
            None => what.forced.or_else(|| Format::detect(&data)).is_some(),
        };
    if !known {
        return if named && what.schema.is_some() {
            Err("does not start with the schema's magic".into())
        } else if named {
            Err(unknown_format(&data))
        } else {
            Ok(None)
        };
    }
    file.read_to_end(&mut data).map_err(|e| e.to_string())?;
    Ok(Some(data))
}

/// What `check_bytes` needs from the command line.
#[derive(Clone, Copy)]
struct What<'a> {
    /// The file was named on the command line (not found in a folder).
    named: bool,
    forced: Option<Format>,
    /// `--schema`: every file is checked with it, by the interpreter.
    schema: Option<&'a crate::dump::Schemas>,
    variant: Option<&'a str>,
    dicts: &'a Dictionaries,
    /// What the layers of the file given may decompress to, in all
    /// (`formats::layer::inner_limit` of its size).
    limit: u64,
    /// `--compare-layers`: recompress each layer and compare its bytes.
    compare_layers: bool,
    /// `--schema` without `--no-edits`: run the edit probe.
    edits: bool,
}

/// Where the bytes `check_bytes` gets come from.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// A file given (or found in a folder).
    Top,
    /// The content of a compression layer: its format is named in the label.
    InLayer,
    /// A file inside an archive: its path in the archive is the label.
    InArchive,
}

/// The most layers and archives one file may nest (a chain longer than
/// this is hostile).
const MAX_NESTING: usize = 8;

/// Checks `data`: peels a compression layer (and recompresses it), or
/// round-trips a file of a supported format, and for an archive, every file
/// inside; pushes one row per file.
fn check_bytes(
    data: &[u8],
    label: &str,
    what: &What<'_>,
    place: Place,
    depth: usize,
    rows: &mut Vec<Row>,
) {
    let nested = place != Place::Top;
    let row = |label: String, outcome: Outcome| Row {
        label,
        outcome,
        notes: String::new(),
        nested,
        edits: None,
    };
    if depth > MAX_NESTING {
        rows.push(row(
            label.to_owned(),
            Outcome::Failed(format!(
                "more than {MAX_NESTING} layers and archives inside each other"
            )),
        ));
        return;
    }
    if let Some(layer) = Layer::detect(data) {
        let inner_label = format!("{label} ▸ {layer}");
        let inner = match layer.decompress_within(data, what.dicts, what.limit) {
            Ok(p) => p,
            Err(e) => {
                rows.push(row(inner_label, Outcome::Failed(format!("{layer} {e}"))));
                return;
            }
        };
        let first = rows.len();
        check_bytes(&inner, &inner_label, what, Place::InLayer, depth + 1, rows);
        // Content no codec reads is not compressed again: nothing would
        // be written back, and a hostile layer can claim gigabytes.
        let read = rows
            .get(first)
            .is_some_and(|r| !matches!(r.outcome, Outcome::Skipped | Outcome::Failed(_)));
        let note = match (read, what.compare_layers) {
            (true, true) => recompressed(layer, &inner, data, what.dicts),
            (true, false) => format!("; {layer} bytes not compared (--compare-layers)"),
            (false, _) => String::new(),
        };
        // Outermost layer first.
        if let Some(r) = rows.get_mut(first) {
            r.notes.insert_str(0, &note);
        }
        return;
    }
    if let Some(schemas) = what.schema {
        let (outcome, edits) = match schemas.given() {
            Some(c) if schemas.takes(data, false) => {
                interp_round_trip(c, what.variant, data, what.edits)
            }
            _ if what.named && place == Place::Top => (
                Outcome::Failed("does not start with the schema's magic".into()),
                None,
            ),
            _ => (Outcome::Skipped, None),
        };
        rows.push(Row {
            edits,
            ..row(label.to_owned(), outcome)
        });
        return;
    }
    let forced = if place == Place::Top {
        what.forced
    } else {
        None
    };
    let Some(format) = forced.or_else(|| Format::detect(data)) else {
        let label = match place {
            Place::InLayer => format!("{label} ▸ {}", magic_text(data)),
            _ => label.to_owned(),
        };
        let outcome = if what.named && place != Place::InArchive {
            Outcome::Failed(unknown_format(data))
        } else {
            Outcome::Skipped
        };
        rows.push(row(label, outcome));
        return;
    };
    let label = match place {
        Place::InLayer => format!("{label} ▸ {format}"),
        _ => label.to_owned(),
    };
    let variant = if place == Place::Top {
        inputs::variant_for(format, what.variant)
    } else {
        None
    };
    let outcome = round_trip(format, variant, data);
    let edits = (what.edits && matches!(outcome, Outcome::Identical | Outcome::Equivalent { .. }))
        .then(|| embedded_pending(format, variant, data))
        .flatten();
    rows.push(Row {
        edits,
        ..row(label.clone(), outcome)
    });
    if format == Format::Sarc {
        // The archive's own row is in; then every file it holds.
        if let Ok((_, archive)) = formats::sarc::decode(data) {
            let base = match place {
                Place::InLayer => label,
                _ => format!("{label} ▸ {format}"),
            };
            // A file of no supported format inside is kept, not a failure.
            let inside = What {
                named: false,
                ..*what
            };
            // The members on every core (one big archive is one input, and
            // was one thread: issue 76), their rows in the archive's order.
            let per_member: Vec<Vec<Row>> = archive
                .nodes
                .par_iter()
                .map(|node| {
                    let inner = format!("{base} ▸ {}", inputs::shown(&node.name));
                    let mut mine = Vec::new();
                    check_bytes(
                        &node.data.value,
                        &inner,
                        &inside,
                        Place::InArchive,
                        depth + 1,
                        &mut mine,
                    );
                    mine
                })
                .collect();
            rows.extend(per_member.into_iter().flatten());
        }
    }
}

/// Recompresses `content` in `layer` and says whether the layer's original
/// bytes came back (our own compressor must give back the content).
fn recompressed(layer: Layer, content: &[u8], original: &[u8], dicts: &Dictionaries) -> String {
    let again = match layer.compress(content, dicts) {
        Ok(b) => b,
        Err(e) => return format!("; {layer} recompression failed: {e}"),
    };
    match layer.decompress(&again, dicts) {
        Ok(back) if back == content => {}
        _ => {
            return format!("; internal: {layer} recompression does not decompress to its content")
        }
    }
    if again == original {
        format!("; {layer} recompressed identically")
    } else {
        format!(
            "; {layer} recompressed: differs at 0x{:x}, {:.4}× the size",
            first_difference(original, &again),
            again.len() as f64 / original.len().max(1) as f64
        )
    }
}

/// The first four bytes, printable, to name content of no known format.
fn magic_text(data: &[u8]) -> String {
    String::from_utf8_lossy(&data[..data.len().min(4)])
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { '.' })
        .collect()
}

/// Decodes and re-encodes one file's bytes and compares; when the bytes
/// differ, compares the documents the two decode to.
fn round_trip(format: Format, variant: Option<&str>, data: &[u8]) -> Outcome {
    match formats::round_trip_as(format, variant, data) {
        Ok(output) if output == data => Outcome::Identical,
        Ok(output) => {
            let (offset, input_len, output_len) =
                (first_difference(data, &output), data.len(), output.len());
            match formats::same_document(format, data, &output) {
                Ok(true) => same_document(
                    offset,
                    input_len,
                    output_len,
                    unread_by_schema(format, variant, data),
                ),
                Ok(false) => Outcome::Differ {
                    offset,
                    input_len,
                    output_len,
                    lost: None,
                },
                Err(e) => Outcome::Failed(format!("{format} re-encoded bytes: {e}")),
            }
        }
        Err(e) => Outcome::Failed(format!("{format} {e}")),
    }
}

/// Decodes and encodes one file with schema `c` (its variant named, or
/// each in turn until one decodes), by the interpreter; as
/// [`round_trip`], compares the bytes, then the documents. When the file
/// came back and `edits` is set, the edit probe's report on its document.
fn interp_round_trip(
    c: &Checked,
    variant: Option<&str>,
    data: &[u8],
    edits: bool,
) -> (Outcome, Option<Pending>) {
    let (cv, node) = match crate::dump::interpret(c, variant, data) {
        Ok(x) => x,
        Err(e) => return (Outcome::Failed(format!("schema interpreter: {e}")), None),
    };
    let doc = node.to_value();
    let outcome = interp_outcome(cv, &node, &doc, data);
    let pending = (edits && matches!(outcome, Outcome::Identical | Outcome::Equivalent { .. }))
        .then(|| Pending::new(None, c, cv, &node, doc));
    (outcome, pending)
}

impl Pending {
    /// The edits of `doc`, read by `cv` (schema `c` or one of its variants)
    /// as `node`.
    fn new(
        schema: Option<Format>,
        c: &Checked,
        cv: &Checked,
        node: &interp::Node,
        doc: interp::Value,
    ) -> Pending {
        Pending {
            schema,
            variant: c.variants().iter().position(|v| std::ptr::eq(v, cv)),
            sites: interp::edits::sites(cv, &doc),
            suspects: interp::edits::stored_offsets(cv, node),
            numbers: interp::edits::number_places(node),
            doc,
        }
    }
}

/// The edits of a file of a built-in format (`--edits`): its document as
/// the interpreter reads it with the schema the format's codec is
/// generated from.
fn embedded_pending(format: Format, variant: Option<&str>, data: &[u8]) -> Option<Pending> {
    let c = embedded(format)?;
    let (cv, node) = crate::dump::interpret(c, variant, data).ok()?;
    let doc = node.to_value();
    Some(Pending::new(Some(format), c, cv, &node, doc))
}

/// The checked schema a built-in format's codec is generated from.
fn embedded(format: Format) -> Option<&'static Checked> {
    formats::registry::checked(format)
}

/// The verdict on `data`, read by schema `cv` as `node` (`doc` its
/// document).
fn interp_outcome(cv: &Checked, node: &interp::Node, doc: &interp::Value, data: &[u8]) -> Outcome {
    let glue = formats::interp_hooks::Glue;
    let output = match interp::encode(cv, doc, &glue) {
        Ok(o) => o,
        Err(e) => return Outcome::Failed(format!("schema interpreter, encoding: {e}")),
    };
    if output == data {
        return Outcome::Identical;
    }
    let (offset, input_len, output_len) =
        (first_difference(data, &output), data.len(), output.len());
    let limits = codec_runtime::Limits::default();
    let again = interp::decode_partial_with(cv, &output, limits, &glue);
    match again.error {
        Some(e) => Outcome::Failed(format!("schema interpreter, re-encoded bytes: {e}")),
        None if again.root.to_value() != *doc => Outcome::Differ {
            offset,
            input_len,
            output_len,
            lost: None,
        },
        // The same document, but not the same file when the input held
        // bytes the schema never read: they are not in the document, so
        // not in what was written (a list read as empty, a target the
        // schema does not reach; issue 72).
        None => same_document(offset, input_len, output_len, unread(cv, node, data)),
    }
}

/// The verdict on bytes that decode to the input's document: equivalent,
/// unless the input held bytes no field reads (`lost` says which).
fn same_document(
    offset: usize,
    input_len: usize,
    output_len: usize,
    lost: Option<String>,
) -> Outcome {
    match lost {
        Some(why) => Outcome::Differ {
            offset,
            input_len,
            output_len,
            lost: Some(why),
        },
        None => Outcome::Equivalent {
            offset,
            input_len,
            output_len,
        },
    }
}

/// [`unread`] by the schema the format's codec was generated from (a file
/// that is not identical: the others have lost nothing).
fn unread_by_schema(format: Format, variant: Option<&str>, data: &[u8]) -> Option<String> {
    let c = embedded(format)?;
    let (cv, node) = crate::dump::interpret(c, variant, data).ok()?;
    unread(cv, &node, data)
}

/// The input's bytes schema `c` did not read (neither a field's nor
/// padding) that held something other than zeros, said as what they cost
/// the written file; `None` when every byte that is not zero was read.
/// Zeros no field reads are another writer's slack (a bdat-rs table's
/// trailing zeros), which a layout of its own need not keep.
fn unread(c: &Checked, root: &interp::Node, data: &[u8]) -> Option<String> {
    let cov = codec_interp::coverage::coverage(c, root, data);
    let bytes = |g: &codec_interp::coverage::Gap| {
        let from = g.offset as usize;
        data.get(from..from.saturating_add(g.len as usize))
            .unwrap_or_default()
    };
    let held: Vec<_> = cov
        .gaps
        .iter()
        .filter(|g| bytes(g).iter().any(|&b| b != 0))
        .collect();
    let first = held.first()?;
    let n: u64 = held.iter().map(|g| g.len).sum();
    // A stored number that holds where an unread range starts is most
    // likely an offset the schema keeps as a number.
    let starts: std::collections::HashSet<u64> = held.iter().map(|g| g.offset).collect();
    let mut pointer = None;
    root.walk(&mut |n, _| {
        if pointer.is_some() {
            return;
        }
        if let interp::Kind::Number { value } = &n.kind {
            let Some(v) = interp::edits::position(value) else {
                return;
            };
            if v > 0 && starts.contains(&v) {
                pointer = Some(format!(
                    "; {} holds 0x{v:x}, where one starts: declare it as an offset (`Ptr`) \
                     to what is there",
                    n.path
                ));
            }
        }
    });
    Some(format!(
        "{n} byte(s) of the input that are not zero, in {} range(s) the schema does not read \
         (the first at 0x{:x}{}), are not in the document, so not written back{}",
        held.len(),
        first.offset,
        first
            .after
            .as_deref()
            .map(|a| format!(", after {a}"))
            .unwrap_or_default(),
        pointer.unwrap_or_default()
    ))
}

/// The message for a named file whose magic matches no supported format.
fn unknown_format(data: &[u8]) -> String {
    if data.is_empty() {
        return "empty file".to_owned();
    }
    let names: Vec<String> = FormatArg::value_variants()
        .iter()
        .filter_map(|v| v.to_possible_value())
        .map(|v| v.get_name().to_owned())
        .collect();
    format!(
        "not a file of a supported format (its first bytes match no known magic; \
         supported: {}); use --format to decode it as one",
        names.join(", ")
    )
}

/// Tallies of the summary line.
#[derive(Default)]
struct Tally {
    identical: usize,
    equivalent: usize,
    differ: usize,
    failed: usize,
    skipped: usize,
    /// The edit probe's edits, tried and held, and the files it ran on.
    edits_tried: usize,
    edits_held: usize,
    edits_refused: usize,
    edits_files: usize,
}

/// A verdict line (without the path).
fn verdict(outcome: &Outcome) -> String {
    let lens = |input_len: usize, output_len: usize| {
        if input_len == output_len {
            String::new()
        } else {
            format!(" (input {input_len} bytes, re-encoded {output_len} bytes)")
        }
    };
    match outcome {
        Outcome::Identical => "identical".into(),
        Outcome::Equivalent {
            offset,
            input_len,
            output_len,
        } => format!(
            "equivalent: content identical, layout differs from the input's writer from 0x{offset:x}{}",
            lens(*input_len, *output_len)
        ),
        Outcome::Differ {
            offset,
            input_len,
            output_len,
            lost,
        } => format!(
            "differs at 0x{offset:x}{}: {}",
            lens(*input_len, *output_len),
            lost.as_deref()
                .unwrap_or("the re-encoded bytes decode to another document")
        ),
        Outcome::Failed(m) => format!("failed: {m}"),
        Outcome::Skipped => "kept as bytes: no supported format".into(),
    }
}

/// One line per file that is not identical and per file inside layers or
/// archives (failures of files given go to stderr), the skipped line and
/// the summary; or JSON lines with `--json`.
/// The first offset at which `a` and `b` differ; the shorter length when
/// one is a prefix of the other.
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

/// What `check` has printed so far, and its counts.
#[derive(Default)]
struct Stream {
    /// Files checked but not yet printed (a file before them is not done).
    done: std::collections::BTreeMap<usize, Vec<Row>>,
    /// The next file to print.
    next: usize,
    tally: Tally,
    /// Files inside archives and layers of no supported format, by kind
    /// (their extension, else their first bytes).
    kept: std::collections::BTreeMap<String, usize>,
    /// Identical files inside archives and layers (printed with -v).
    identical_inside: usize,
    /// Standard output is gone (a closed pipe).
    broken: bool,
    /// The schema's places some file's edits try.
    claimed: std::collections::HashSet<(Option<Format>, interp::edits::Place)>,
    /// The files given edits, in order.
    jobs: Vec<Job>,
    /// What the files' stored numbers say, by place.
    numbers: std::collections::HashMap<Option<Format>, interp::edits::NumberPlaces>,
    /// What the edit probe found, and how long it took.
    probed: Option<(Vec<(String, interp::edits::Report)>, std::time::Duration)>,
}

impl Stream {
    /// The lines of one file given (its rows, and those of the files inside
    /// it) for standard output, and its errors for standard error; counts
    /// its rows.
    fn file(&mut self, path: &Path, rows: &[Row], args: &CheckArgs) -> (String, Vec<String>) {
        let mut text = String::new();
        let mut errors = Vec::new();
        for row in rows {
            let t = &mut self.tally;
            match &row.outcome {
                Outcome::Identical => t.identical += 1,
                Outcome::Equivalent { .. } => t.equivalent += 1,
                Outcome::Differ { .. } => t.differ += 1,
                Outcome::Failed(m) => {
                    t.failed += 1;
                    if !row.nested {
                        errors.push(m.clone());
                    }
                }
                Outcome::Skipped => t.skipped += 1,
            }
            let line = format!("{}: {}{}", row.label, verdict(&row.outcome), row.notes);
            if args.json {
                if matches!(row.outcome, Outcome::Skipped) && !row.nested {
                    continue;
                }
                let verdict = match row.outcome {
                    Outcome::Identical => "identical",
                    Outcome::Equivalent { .. } => "equivalent",
                    Outcome::Differ { .. } => "differs",
                    Outcome::Failed(_) => "failed",
                    Outcome::Skipped => "skipped",
                };
                let _ = writeln!(
                    text,
                    "{}",
                    serde_json::json!({"file": path.display().to_string(), "inner": row.label,
                        "verdict": verdict, "line": line})
                );
                continue;
            }
            // Identical files need no line (-v shows those inside archives
            // and layers); failed files given are on stderr; files of no
            // supported format inside archives are summed by kind.
            let show = match row.outcome {
                Outcome::Equivalent { .. } | Outcome::Differ { .. } => true,
                Outcome::Failed(_) => row.nested,
                Outcome::Identical => {
                    if row.nested {
                        self.identical_inside += 1;
                    }
                    row.nested && args.verbose
                }
                Outcome::Skipped => {
                    if row.nested {
                        *self.kept.entry(kind_of_label(&row.label)).or_default() += 1;
                    }
                    row.nested && args.verbose
                }
            };
            if show && !args.quiet {
                let _ = writeln!(text, "{line}");
            }
        }
        (text, errors)
    }

    /// The edits of the schema's places no file before this one holds.
    fn claim(&mut self, rows: &mut [Row]) {
        for row in rows {
            let Some(mut pending) = row.edits.take() else {
                continue;
            };
            let schema = pending.schema;
            self.numbers
                .entry(schema)
                .or_default()
                .add_file(std::mem::take(&mut pending.numbers), &pending.suspects);
            pending
                .sites
                .retain(|s| self.claimed.insert((schema, s.place)));
            if !pending.sites.is_empty() {
                self.jobs.push(Job {
                    label: row.label.clone(),
                    pending,
                });
            }
        }
    }
}

/// The kind of a file of no supported format, from its line's label: the
/// extension of its name in the archive, else its first bytes.
fn kind_of_label(label: &str) -> String {
    let last = label.rsplit(" ▸ ").next().unwrap_or(label);
    let file = last.rsplit('/').next().unwrap_or(last);
    match file.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() => ext.to_ascii_lowercase(),
        _ => file.to_owned(),
    }
}

impl Tally {
    fn counted(&self) -> usize {
        self.identical + self.equivalent + self.differ + self.failed
    }
}

/// The lines after every file's: what was skipped or kept, the run's
/// throughput, and the summary (the last line, for scripts).
fn summary(s: &Stream, args: &CheckArgs, meter: &inputs::Throughput) -> String {
    let t = &s.tally;
    let counted = t.counted();
    let mut text = String::new();
    if args.json {
        let (seconds, files_per_s, mb_per_s) = meter.rates(counted);
        let _ = writeln!(
            text,
            "{}",
            serde_json::json!({"summary": {"checked": counted, "identical": t.identical,
                "equivalent": t.equivalent, "differ": t.differ, "failed": t.failed,
                "skipped": t.skipped, "edits_tried": t.edits_tried, "edits_held": t.edits_held,
                "edits_refused": t.edits_refused,
                "edits_not_held": s.probed.as_ref().map(|(reports, _)| reports.iter()
                    .flat_map(|(label, r)| r.refused.iter().map(|f| (f, true))
                        .chain(r.failed.iter().map(|f| (f, false)))
                        .map(move |(f, refused)| serde_json::json!({"file": label,
                            "path": f.path, "edit": f.edit, "why": f.why, "refused": refused})))
                    .collect::<Vec<_>>()).unwrap_or_default(),
                "seconds": seconds, "files_per_s": files_per_s,
                "mb_per_s": mb_per_s, "threads": rayon::current_num_threads()}})
        );
        return text;
    }
    if !args.quiet {
        let kept: usize = s.kept.values().sum();
        let top_skipped = t.skipped - kept;
        if top_skipped > 0 {
            let _ = writeln!(text, "skipped {top_skipped} files of no supported format");
        }
        if kept > 0 {
            let mut kinds: Vec<(&String, &usize)> = s.kept.iter().collect();
            kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let _ = writeln!(
                text,
                "kept as bytes inside archives and layers (no supported format): {}",
                kinds.join(", ")
            );
        }
        if s.identical_inside > 0 && !args.verbose {
            let _ = writeln!(
                text,
                "{} files inside archives and layers identical (-v lists them)",
                s.identical_inside
            );
        }
        // The run's throughput goes just before the summary.
        if counted > 1 {
            text.push_str(&meter.line(counted));
        }
        if let Some((reports, took)) = s.probed.as_ref().filter(|(r, _)| !r.is_empty()) {
            if args.verbose {
                for (label, r) in reports {
                    for e in &r.held_edits {
                        let _ = writeln!(text, "{label}: edit {e}: held");
                    }
                }
            }
            let failed = reports.iter().flat_map(|(label, r)| {
                r.refused
                    .iter()
                    .map(move |f| {
                        (
                            label,
                            f,
                            " (what the format forbids: not counted as failed)",
                        )
                    })
                    .chain(r.failed.iter().map(move |f| (label, f, "")))
            });
            let mut shown = 0;
            for (label, f, note) in failed {
                shown += 1;
                if shown <= MAX_EDIT_LINES || args.verbose {
                    let _ = writeln!(text, "{label}: edit {f}{note}");
                }
            }
            if shown > MAX_EDIT_LINES && !args.verbose {
                let _ = writeln!(
                    text,
                    "… and {} more edit(s) that did not hold (-v or --json lists them all)",
                    shown - MAX_EDIT_LINES
                );
            }
            let _ = writeln!(
                text,
                "edits: {} tried, {} held, {} refused by the writer, on {} file(s) (each place \
                 of the schema edited once, on the first file that holds it{}), {:.2} s",
                t.edits_tried,
                t.edits_held,
                t.edits_refused,
                t.edits_files,
                if args.schema.is_some() {
                    "; --no-edits skips the probe"
                } else {
                    "; by the interpreter, with the schemas the codecs are generated from"
                },
                took.as_secs_f64()
            );
        }
    }
    // The summary keeps its first words for scripts; equivalent files are
    // counted at the end when there are any.
    let _ = write!(
        text,
        "checked {counted} files: {} identical, {} differ, {} failed",
        t.identical, t.differ, t.failed
    );
    if t.equivalent > 0 {
        let _ = write!(text, ", {} equivalent", t.equivalent);
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn first_difference_finds_the_offset_or_the_shorter_length() {
        assert_eq!(first_difference(b"abcd", b"abxd"), 2);
        assert_eq!(first_difference(b"abc", b"abcd"), 3);
        assert_eq!(first_difference(b"abcd", b"ab"), 2);
        assert_eq!(first_difference(b"", b""), 0);
    }
}
