//! Every format the project reads, listed once: how a file is recognised
//! and which variant it is written in, the names `--variant` takes, the
//! schema built into the binary, what `codec formats` says of it, and the
//! round trip `check` runs. The command line, detection, `dump`, `docs`
//! and the formats table read this list; adding a format is its schema,
//! its glue, a [`Format`] variant and one [`Entry`] here.
//!
//! Each format's text form (its community's own dialect, written by hand
//! per format) is a [`TextForm`] of its entry: `to-text`, `from-text`, an
//! archive's folder and `import codec` find the form, how a text is
//! recognised, where a compressed file's layers are noted and which
//! options it takes there, not in a `match` of their own. Legacy BDAT's
//! tables (a folder of JSON or CSV per file, read through a `.bschema`)
//! keep a command-line path of their own.

use crate::{aamp, ainb, bdat, byml, msbt, rstb, sarc, Format, RoundTripError};
use codec_interp::Value;

/// Decodes a file and encodes it again, as a named variant or its own.
pub type RoundTrip = fn(Option<&str>, &[u8]) -> Result<Vec<u8>, RoundTripError>;

/// One format as the tools see it.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub format: Format,
    /// Its name on the command line (`--format`) and in reports.
    pub name: &'static str,
    /// One line for `--help` and `codec formats`.
    pub summary: &'static str,
    /// How its magic reads, for `codec formats`.
    pub magic: &'static str,
    /// The extensions its files usually have, for `codec formats`.
    pub extensions: &'static str,
    /// Its text form, for `codec formats`.
    pub text: &'static str,
    /// The schema's path in the repository (what diagnostics print).
    pub schema_file: &'static str,
    /// The schema's source, built into the binary.
    pub schema_source: &'static str,
    /// The names `--variant` takes, for messages (`None`: the schema has
    /// no variants).
    pub variants: Option<&'static str>,
    /// Recognises a file of the format: `Some(variant)` when it is one
    /// (`Some(None)` for a format without variants).
    pub detect: fn(&[u8]) -> Option<Option<&'static str>>,
    /// The schema variant a name as a user types it means (its own name in
    /// any case, a game, a version).
    pub variant_named: fn(&str) -> Option<&'static str>,
    /// Decodes and encodes with the compiled codec, as the variant given
    /// (a name [`Entry::variant_named`] gave) or the file's own.
    pub round_trip: RoundTrip,
    /// Whether two files decode to the same document.
    pub same_document: fn(&[u8], &[u8]) -> Result<bool, RoundTripError>,
    /// The fields its zero-copy views leave out (`docs/views.md`), and the
    /// variant that count is of.
    pub views_skipped: fn() -> Vec<(&'static str, usize)>,
    /// The document decoded by the compiled codec, in the generic form the
    /// research tools show ([`Value`], the shape the interpreter gives).
    pub to_value: fn(&[u8]) -> Result<Value, String>,
    /// A document in that form (an edited one) encoded by the compiled
    /// codec, as the variant of `original`, the file it came from.
    pub from_value: fn(original: &[u8], Value) -> Result<Vec<u8>, String>,
    /// The text a modder edits, where the archive commands and `import
    /// codec` take it from this list (`None`: no text form of its own
    /// there; the command line's `to-text` adds options some forms take).
    pub text_form: Option<TextForm>,
}

/// A format's text form: the text of a file and the file of a text, and
/// what the command line, an archive's folder and `import codec` need to
/// know of it (they dispatch on this, not on the format).
#[derive(Debug, Clone, Copy)]
pub struct TextForm {
    /// Its name in an unpacked archive's manifest and in `import codec`
    /// (`aamp-yaml`).
    pub name: &'static str,
    /// The extension its text takes (`yml`).
    pub ext: &'static str,
    /// The text of a file (its bytes out of their layers).
    pub to_text: fn(&[u8], &TextContext) -> Result<String, String>,
    /// The file a text describes, with the line and column of a mistake.
    pub from_text: fn(&str, &TextOptions) -> Result<TextFile, TextError>,
    /// `to_text` refuses a text that would not give the bytes back, so
    /// nobody need write it back to see.
    pub checks_itself: bool,
    /// Does a text read as this form? (`from-text` without `--format`.)
    pub looks_like: fn(&str) -> bool,
    /// How a text of this form is recognised, for a message about one
    /// that is not (`AAMP YAML starts with the !io tag`).
    pub recognised_by: &'static str,
    /// Where the text of a compressed file names its layers.
    pub layers: LayersNote,
    /// The text of an archive's member may name the member it was made
    /// from (`# codec source:`), for `from-text`'s type check.
    pub records_source: bool,
    /// AAMP keys are named from a table (`--names`).
    pub uses_names: bool,
    /// The extensions of the files an archive's folder always holds as
    /// this text, so that a new file named like one's text (`X.ainb.json`)
    /// must be that text.
    pub always_of: &'static [&'static str],
}

/// What a text form's writer is given besides the bytes.
#[derive(Debug)]
pub struct TextContext<'a> {
    /// AAMP key names.
    pub names: &'a aamp::names::NameTable,
    /// The layers the file was inside (for a form that records them in
    /// its text, [`LayersNote::InText`]).
    pub layers: &'a [crate::layer::Layer],
}

/// What a text form's reader is told besides the text: what a text that
/// does not say it needs (a BYML text with no first line).
#[derive(Debug, Clone, Copy, Default)]
pub struct TextOptions {
    pub byml_version: Option<u16>,
    pub big_endian: Option<bool>,
}

/// The file a text describes: its bytes, and the layers the text itself
/// names (a form that records them in its text; `None` otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    pub bytes: Vec<u8>,
    pub layers: Option<Vec<crate::layer::Layer>>,
}

impl TextFile {
    fn bytes(bytes: Vec<u8>) -> Self {
        TextFile {
            bytes,
            layers: None,
        }
    }
}

/// Where the text of a compressed file names its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayersNote {
    /// A comment line first.
    Comment,
    /// A comment line after the first, which stays the form's own (BYML's
    /// version line).
    CommentAfterFirstLine,
    /// In the text's own fields (RSTB's `layers`).
    InText,
    /// Nowhere: the form's text of a compressed file is refused.
    Refused,
}

/// Why a text gives no file: the message, at a line and column when the
/// text's reader knows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((line, column)) => write!(f, "{line}:{column}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl TextForm {
    /// The text of `bytes` when it gives them back (`None` otherwise: the
    /// file is kept as bytes).
    pub fn faithful_text(&self, bytes: &[u8], names: &aamp::names::NameTable) -> Option<String> {
        let cx = TextContext { names, layers: &[] };
        let text = (self.to_text)(bytes, &cx).ok()?;
        if self.checks_itself
            || (self.from_text)(&text, &TextOptions::default()).ok()?.bytes == bytes
        {
            Some(text)
        } else {
            None
        }
    }
}

/// A text's error at its line and column.
fn at_line(line: usize, column: usize, message: impl ToString) -> TextError {
    TextError {
        at: Some((line, column)),
        message: message.to_string(),
    }
}

/// A text's error with no place in it.
fn text_error(message: impl ToString) -> TextError {
    TextError {
        at: None,
        message: message.to_string(),
    }
}

/// The built-in format whose text form is named `name` (`aamp-yaml`).
pub fn text_form_named(name: &str) -> Option<&'static TextForm> {
    FORMATS
        .iter()
        .find_map(|e| e.text_form.as_ref().filter(|t| t.name == name))
}

/// The names of the text forms, for messages.
pub fn text_form_names() -> Vec<&'static str> {
    FORMATS
        .iter()
        .filter_map(|e| e.text_form.map(|t| t.name))
        .collect()
}

/// A typed document in the generic form.
fn generic<T: serde::Serialize, E: std::fmt::Display>(doc: Result<T, E>) -> Result<Value, String> {
    let doc = doc.map_err(|e| e.to_string())?;
    codec_interp::to_value(&doc).map_err(|e| e.to_string())
}

/// The typed document a generic value is the form of.
fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
    codec_interp::from_value(v).map_err(|e| format!("the edited document: {e}"))
}

/// A variant of a schema with variants, named in any case.
fn own_name<V: Copy>(
    all: &[V],
    name_of: fn(V) -> &'static str,
    name: &str,
) -> Option<&'static str> {
    all.iter()
        .copied()
        .map(name_of)
        .find(|n| n.eq_ignore_ascii_case(name))
}

/// For formats whose files name their variant (`own`, read at `at`): a
/// variant asked for must be that one.
fn asked_is_own(asked: Option<&str>, own: &str, at: u64) -> Result<(), RoundTripError> {
    match asked {
        Some(asked) if asked != own => {
            Err(RoundTripError::Decode(codec_runtime::DecodeError::new(
                at,
                codec_runtime::ErrorKind::Invalid(format!(
                    "the file is of the variant {own}, not the variant {asked} asked for"
                )),
            )))
        }
        _ => Ok(()),
    }
}

fn ainb_version(data: &[u8]) -> Option<u32> {
    let v = data.get(4..8)?;
    Some(u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
}

/// The built-in format whose schema is named `schema` (a schema's `name`,
/// the stem of its file): an edited copy of a built-in schema keeps its
/// name, and with it the format's detection of files and variants.
pub fn for_schema(schema: &str) -> Option<&'static Entry> {
    FORMATS.iter().find(|e| {
        std::path::Path::new(e.schema_file)
            .file_stem()
            .is_some_and(|s| s == schema)
    })
}

/// The checked schema a built-in format's codec is generated from (parsed
/// once, on first use): the schema interpreter's for the format, as the
/// edit probe, the generic text and the Python module use it.
pub fn checked(format: Format) -> Option<&'static codec_schema::Checked> {
    static SCHEMAS: std::sync::OnceLock<Vec<Option<codec_schema::Checked>>> =
        std::sync::OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        FORMATS
            .iter()
            .map(|e| codec_schema::parse_str(e.schema_source, e.schema_file).ok())
            .collect()
    });
    schemas.get(format as usize)?.as_ref()
}

/// Every format, in the order detection tries them (legacy BDAT has no
/// magic of its own and is tried before the formats whose magic is short).
pub static FORMATS: [Entry; 7] = [
    Entry {
        format: Format::Aamp,
        name: "aamp",
        summary: "AAMP v2 parameter archives (.bxml, .bgparamlist, .baiprog, ...)",
        magic: "AAMP",
        extensions: ".bxml .bgparamlist .baiprog .bdrop .bphysics …",
        text: "YAML (oead's dialect)",
        schema_file: "schemas/aamp.ron",
        schema_source: aamp::schema::SCHEMA_SOURCE,
        variants: None,
        detect: |d| d.starts_with(aamp::MAGIC).then_some(None),
        variant_named: |_| None,
        round_trip: |_, data| {
            let doc = aamp::decode(data).map_err(RoundTripError::Decode)?;
            aamp::encode(&doc).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(aamp::decode(a).map_err(d)? == aamp::decode(b).map_err(d)?)
        },
        views_skipped: || vec![("", aamp::schema::view::SKIPPED.len())],
        to_value: |d| generic(aamp::decode(d)),
        from_value: |_, v| aamp::encode(&typed(v)?).map_err(|e| e.to_string()),
        text_form: Some(TextForm {
            name: "aamp-yaml",
            ext: "yml",
            to_text: |b, cx| {
                let doc = aamp::decode(b).map_err(|e| format!("decode error {e}"))?;
                Ok(aamp::text::to_yaml(&doc, cx.names))
            },
            from_text: |t, _| {
                let doc =
                    aamp::text::from_yaml(t).map_err(|e| at_line(e.line, e.column, e.message))?;
                aamp::encode(&doc)
                    .map(TextFile::bytes)
                    .map_err(|e| text_error(format!("encode error: {e}")))
            },
            checks_itself: false,
            looks_like: aamp::text::looks_like_aamp_text,
            recognised_by: "AAMP YAML starts with the !io tag",
            layers: LayersNote::Comment,
            records_source: true,
            uses_names: true,
            always_of: &[],
        }),
    },
    Entry {
        format: Format::Bdat,
        name: "bdat",
        summary: "Legacy BDAT tables (Xenoblade before XC3; the game is detected)",
        magic: "(table list)",
        extensions: ".bdat (XC1 Wii/3DS, XCX, XC2, XC1 DE)",
        text: "JSON/CSV (bdat-toolset's)",
        schema_file: "schemas/bdat_legacy.ron",
        schema_source: bdat::schema::SCHEMA_SOURCE,
        variants: Some("switch (xc2, xc1de), x (xcx), wii (xc1), new3ds (3ds, xc3d)"),
        detect: |d| bdat::looks_like(d).then(|| bdat::detect(d).map(|v| v.name())),
        variant_named: |name| {
            bdat::Variant::from_game(name)
                .map(bdat::Variant::name)
                .or_else(|| own_name(&bdat::Variant::ALL, bdat::Variant::name, name))
        },
        round_trip: |variant, data| {
            let asked = variant.and_then(|n| bdat::Variant::ALL.iter().find(|v| v.name() == n));
            let (variant, doc) = match asked {
                // The game is not always told by the bytes: read as asked.
                Some(v) => (
                    *v,
                    bdat::decode_as(data, *v).map_err(RoundTripError::Decode)?,
                ),
                None => bdat::decode(data).map_err(RoundTripError::Decode)?,
            };
            bdat::encode(&doc, variant).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(bdat::decode(a).map_err(d)? == bdat::decode(b).map_err(d)?)
        },
        views_skipped: || {
            vec![
                ("XC2", bdat::schema::view::switch::SKIPPED.len()),
                ("XC1", bdat::schema::view::wii::SKIPPED.len()),
            ]
        },
        to_value: |d| generic(bdat::decode(d).map(|(_, doc)| doc)),
        from_value: |original, v| {
            let (variant, _) = bdat::decode(original).map_err(|e| e.to_string())?;
            bdat::encode(&typed(v)?, variant).map_err(|e| e.to_string())
        },
        text_form: None,
    },
    Entry {
        format: Format::Ainb,
        name: "ainb",
        summary: "AI node binaries (0x404, 0x407, 0x408; the version is detected)",
        magic: "AIB",
        extensions: ".ainb",
        text: "JSON (dt-12345/AINB's)",
        schema_file: "schemas/ainb.ron",
        schema_source: ainb::schema::SCHEMA_SOURCE,
        variants: Some("0x404, 0x407, 0x408 (the version; a file names its own)"),
        detect: |d| {
            d.starts_with(ainb::MAGIC)
                .then(|| ainb::variant_of(ainb_version(d)?).map(|v| v.name()))
        },
        variant_named: |name| {
            let digits = name.trim_start_matches(['v', 'V']);
            let digits = digits.trim_start_matches("0x");
            u32::from_str_radix(digits, 16)
                .ok()
                .and_then(ainb::variant_of)
                .map(ainb::Variant::name)
        },
        round_trip: |variant, data| {
            if let Some(own) = ainb_version(data).and_then(ainb::variant_of) {
                asked_is_own(variant, own.name(), 4)?;
            }
            let doc = ainb::decode(data).map_err(RoundTripError::Decode)?;
            ainb::encode(&doc).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(ainb::decode(a).map_err(d)? == ainb::decode(b).map_err(d)?)
        },
        views_skipped: || vec![("0x407", ainb::schema::view::v407::SKIPPED.len())],
        to_value: |d| generic(ainb::decode(d)),
        from_value: |_, v| ainb::encode(&typed(v)?).map_err(|e| e.to_string()),
        text_form: Some(TextForm {
            name: "ainb-json",
            ext: "json",
            to_text: |b, _| {
                let doc = ainb::decode(b).map_err(|e| format!("decode error {e}"))?;
                ainb::text::to_json(&doc).map_err(|e| e.to_string())
            },
            from_text: |t, _| {
                let doc = ainb::text::from_json(t).map_err(text_error)?;
                ainb::encode(&doc)
                    .map(TextFile::bytes)
                    .map_err(|e| text_error(format!("encode error: {e}")))
            },
            checks_itself: false,
            looks_like: ainb::text::looks_like_ainb_json,
            recognised_by: "AINB JSON has `Nodes` and `Version`",
            layers: LayersNote::Refused,
            records_source: false,
            uses_names: false,
            always_of: &["ainb"],
        }),
    },
    Entry {
        format: Format::Sarc,
        name: "sarc",
        summary: "SARC archives (.sarc, .pack, .bactorpack, ...; both byte orders)",
        magic: "SARC",
        extensions: ".sarc .pack .bactorpack …",
        text: "a folder + manifest",
        schema_file: "schemas/sarc.ron",
        schema_source: sarc::schema::SCHEMA_SOURCE,
        variants: Some("little, big (the byte order; a file's mark names its own)"),
        detect: |d| sarc::looks_like(d).then(|| sarc::Variant::detect(d).map(|v| v.name())),
        variant_named: |name| own_name(&sarc::Variant::ALL, sarc::Variant::name, name),
        round_trip: |variant, data| {
            let (v, doc) = sarc::decode(data).map_err(RoundTripError::Decode)?;
            asked_is_own(variant, v.name(), 6)?;
            sarc::encode(&doc, v).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(sarc::decode(a).map_err(d)? == sarc::decode(b).map_err(d)?)
        },
        views_skipped: || vec![("", sarc::schema::view::little::SKIPPED.len())],
        to_value: |d| generic(sarc::decode(d).map(|(_, doc)| doc)),
        from_value: |original, v| {
            let variant = sarc::Variant::detect(original).ok_or("not a SARC archive")?;
            sarc::encode(&typed(v)?, variant).map_err(|e| e.to_string())
        },
        text_form: None,
    },
    Entry {
        format: Format::Byml,
        name: "byml",
        summary:
            "BYML documents (.byml, .bgyml, .bcett, .product, ...; versions 1-7, both byte orders)",
        magic: "YB / BY",
        extensions: ".byml .bgyml .bcett .product … (v1-v7)",
        text: "YAML (oead's dialect)",
        schema_file: "schemas/byml.ron",
        schema_source: byml::schema::SCHEMA_SOURCE,
        variants: Some("le, be, v1le, v1be (a file's magic and version name its own)"),
        detect: |d| byml::detect(d).map(|v| Some(v.name())),
        variant_named: |name| own_name(&byml::Variant::ALL, byml::Variant::name, name),
        round_trip: |variant, data| {
            let (v, doc) = byml::decode(data).map_err(RoundTripError::Decode)?;
            asked_is_own(variant, v.name(), 0)?;
            byml::encode(&doc, v).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(byml::decode(a).map_err(d)? == byml::decode(b).map_err(d)?)
        },
        views_skipped: || vec![("", byml::schema::view::le::SKIPPED.len())],
        to_value: |d| generic(byml::decode(d).map(|(_, doc)| doc)),
        from_value: |original, v| {
            let variant = byml::detect(original).ok_or("not a BYML document")?;
            byml::encode(&typed(v)?, variant).map_err(|e| e.to_string())
        },
        text_form: Some(TextForm {
            name: "byml-yaml",
            ext: "yml",
            to_text: |b, _| {
                let (variant, doc) = byml::decode(b).map_err(|e| format!("decode error {e}"))?;
                Ok(byml::text::to_yaml(&doc, variant))
            },
            // The first line names the version and byte order, else the
            // options do.
            from_text: |t, o| {
                let (variant, doc) = byml::text::from_yaml(t, o.byml_version, o.big_endian)
                    .map_err(|e| at_line(e.line, e.column, e.message))?;
                byml::encode(&doc, variant)
                    .map(TextFile::bytes)
                    .map_err(|e| text_error(format!("encode error: {e}")))
            },
            checks_itself: false,
            looks_like: byml::text::looks_like_byml_text,
            recognised_by:
                "BYML YAML starts with `# BYML version N, little-endian` or `big-endian`",
            layers: LayersNote::CommentAfterFirstLine,
            records_source: true,
            uses_names: false,
            always_of: &[],
        }),
    },
    Entry {
        format: Format::Rstb,
        name: "rstb",
        summary: "BotW's resource size table (.rsizetable, .srsizetable; both byte orders)",
        magic: "RSTB",
        extensions: ".rsizetable .srsizetable (in Yaz0)",
        text: "JSON (one entry a line)",
        schema_file: "schemas/rstb.ron",
        schema_source: rstb::schema::SCHEMA_SOURCE,
        variants: Some("le, be (the byte order; the counts name a file's own)"),
        detect: |d| rstb::looks_like(d).then(|| rstb::detect(d).map(|v| v.name())),
        variant_named: |name| own_name(&rstb::Variant::ALL, rstb::Variant::name, name),
        round_trip: |variant, data| {
            let (v, doc) = rstb::decode(data).map_err(RoundTripError::Decode)?;
            asked_is_own(variant, v.name(), 4)?;
            rstb::encode(&doc, v).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(rstb::decode(a).map_err(d)? == rstb::decode(b).map_err(d)?)
        },
        views_skipped: || vec![("", rstb::schema::view::le::SKIPPED.len())],
        to_value: |d| generic(rstb::decode(d).map(|(_, doc)| doc)),
        from_value: |original, v| {
            let variant = rstb::detect(original).ok_or("not a resource size table")?;
            rstb::encode(&typed(v)?, variant).map_err(|e| e.to_string())
        },
        text_form: Some(TextForm {
            name: "rstb-json",
            ext: "json",
            to_text: |b, cx| {
                let (variant, doc) = rstb::decode(b).map_err(|e| format!("decode error {e}"))?;
                Ok(rstb::text::to_json(&doc, variant, cx.layers))
            },
            from_text: |t, _| {
                let (variant, doc, layers) =
                    rstb::text::from_json(t).map_err(|e| at_line(e.line, e.column, e.message))?;
                let bytes = rstb::encode(&doc, variant)
                    .map_err(|e| text_error(format!("encode error: {e}")))?;
                Ok(TextFile {
                    bytes,
                    layers: Some(layers),
                })
            },
            checks_itself: false,
            looks_like: rstb::text::looks_like_rstb_text,
            recognised_by: "RSTB JSON has `crcs` and `names`",
            layers: LayersNote::InText,
            records_source: false,
            uses_names: false,
            always_of: &["rsizetable"],
        }),
    },
    Entry {
        format: Format::Msbt,
        name: "msbt",
        summary: "LMS message text (.msbt; both byte orders, UTF-8/16/32)",
        magic: "MsgStdBn",
        extensions: ".msbt",
        text: "YAML: the TotK editors' form (label: message, tags inline; docs/msbt-text.md)",
        schema_file: "schemas/msbt.ron",
        schema_source: msbt::SCHEMA_SOURCE,
        variants: Some("le, be, leutf8, beutf8, leutf32, beutf32 (the header names a file's own)"),
        detect: |d| msbt::detect(d).map(Some),
        variant_named: msbt::variant_named,
        round_trip: |variant, data| {
            let (own, doc) = msbt::decode_typed(data).map_err(RoundTripError::Decode)?;
            asked_is_own(variant, own, 8)?;
            msbt::encode_typed(&doc, own).map_err(RoundTripError::Encode)
        },
        same_document: |a, b| {
            let d = RoundTripError::Decode;
            Ok(msbt::decode_typed(a).map_err(d)? == msbt::decode_typed(b).map_err(d)?)
        },
        views_skipped: || vec![("", msbt::compiled::view::le::SKIPPED.len())],
        to_value: |d| msbt::decode(d).map(|(_, doc)| doc),
        from_value: |original, v| {
            let own = msbt::detect(original).ok_or("not an MSBT file")?;
            msbt::encode(&v, own)
        },
        text_form: Some(TextForm {
            name: "msbt-yaml",
            ext: "yml",
            to_text: |b, _| msbt::to_text(b),
            from_text: |t, _| msbt::from_text(t).map(TextFile::bytes).map_err(text_error),
            checks_itself: true,
            // The editors' text (`Label: |-`); a file named `X.msbt.yml`
            // is one whatever it holds (the command line asks the name).
            looks_like: msbt::looks_like_editor_text,
            recognised_by: "MSBT text starts with `$msbt:` or a label and a `|-` message",
            layers: LayersNote::Comment,
            // The editors would read the comment as a label.
            records_source: false,
            uses_names: false,
            always_of: &[],
        }),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `Format::entry` indexes the list by the enum's value.
    #[test]
    fn entries_are_in_the_enums_order_and_named_once() {
        for (i, e) in FORMATS.iter().enumerate() {
            assert_eq!(e.format as usize, i, "{}", e.name);
            assert_eq!(e.format.entry().name, e.name);
        }
        let mut names: Vec<&str> = FORMATS.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FORMATS.len());
    }

    /// Every entry's schema checks, and is the schema its codec was
    /// generated from (the file named is where the source came from).
    #[test]
    fn every_schema_checks() {
        for e in &FORMATS {
            let checked = codec_schema::parse_str(e.schema_source, e.schema_file)
                .unwrap_or_else(|d| panic!("{}: {d}", e.schema_file));
            let on_disk = std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("..")
                    .join(e.schema_file),
            )
            .expect("the schema file");
            assert_eq!(on_disk, e.schema_source, "{}", e.schema_file);
            // Found again by the schema's own name (`--schema` files).
            assert_eq!(
                for_schema(&checked.base().name).map(|f| f.format),
                Some(e.format),
                "{}",
                e.schema_file
            );
            // A schema with variants lists names for `--variant`.
            assert_eq!(
                checked.base().variants.is_empty(),
                e.variants.is_none(),
                "{}",
                e.name
            );
        }
    }

    /// Each variant a schema declares is a name `--variant` takes, in any
    /// case, and means itself.
    #[test]
    fn every_declared_variant_is_named() {
        for e in &FORMATS {
            let checked = codec_schema::parse_str(e.schema_source, e.schema_file).unwrap();
            for v in &checked.base().variants {
                let named = (e.variant_named)(&v.name.to_lowercase());
                assert_eq!(named, Some(v.name.as_str()), "{}: {}", e.name, v.name);
            }
        }
    }

    /// Each text form is found by its name, gives a sample's bytes back,
    /// and a mistake in a text has its line and column; a form no entry
    /// has is named with the ones there are.
    #[test]
    fn text_forms_give_their_files_back() {
        let names = aamp::names::NameTable::new();
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for (sample, form) in [
            ("samples/aamp/actor.bxml", "aamp-yaml"),
            ("samples/byml/sample_v7.byml", "byml-yaml"),
        ] {
            let bytes = std::fs::read(repo.join(sample)).unwrap();
            let (name, ext, text) = crate::sarc::folder::text_form(&bytes, &names).unwrap();
            assert_eq!((name, ext), (form, "yml"));
            let f = text_form_named(form).unwrap();
            let read = |t: &str| (f.from_text)(t, &TextOptions::default());
            assert_eq!(read(&text).unwrap().bytes, bytes, "{sample}");
            assert!((f.looks_like)(&text), "{sample}");
            let broken = read(&text.replacen(':', "", 1)).unwrap_err();
            assert!(broken.at.is_some(), "{sample}: {broken}");
        }
        let e = crate::sarc::folder::bytes_of_text("yaml", "").unwrap_err();
        assert_eq!(
            e.message,
            "form \"yaml\" is not one of bytes, aamp-yaml, ainb-json, byml-yaml, rstb-json, msbt-yaml"
        );
    }
}
