//! `import codec`: the workspace's formats and schemas for Python tools.
//!
//! A document crosses into Python as plain values, in one of two shapes:
//!
//! - **The text form's shape** for the formats modders edit: BYML as the
//!   dicts and lists of its YAML (`byml.rs`), AAMP as its `!io` / `!list` /
//!   `!obj` mappings with names as keys (`aamp.rs`), AINB as its JSON
//!   (`ainb.rs`), MSBT as its messages by label with the tags inline
//!   (`msbt.rs`), and a SARC archive as a dict of member names and bytes
//!   (`sarc.rs`). Values whose binary type Python's own types do not carry
//!   take a class named by the text form's tag (`kinds.rs`: `codec.U32`,
//!   `codec.Vec3`, ...). BYML, AAMP and SARC convert straight between the
//!   compiled codec's document and Python objects, with no text in
//!   between; MSBT through the text's model of messages
//!   (`formats::msbt::text::Messages`), AINB through its JSON text, which
//!   `json.loads` reads.
//! - **The generic form** of `docs/generic-text.md` (what `codec to-text
//!   --schema` writes) for the others (BDAT, RSTB) and for any schema
//!   given at run time: a dict of `schema`, `variant` and `document`, the
//!   records as dicts in field order. Reading goes through the compiled
//!   codec, writing through the schema interpreter, which lays out every
//!   corpus file as the compiled codec does.
//!
//! Layers (Yaz0, zstd with the game's dictionaries) are peeled on reading
//! and put back on writing. The GIL is released while bytes are decoded
//! and encoded. Errors are `codec.CodecError`, carrying `offset` (the byte
//! offset, or `None`) and `path` (the field path, or `None`).

mod aamp;
mod ainb;
mod byml;
mod form;
mod kinds;
mod msbt;
mod sarc;

use codec_interp as interp;
use codec_schema::Checked;
use formats::layer::{self, Dictionaries, Layer};
use formats::registry::{self, Entry, FORMATS};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

pyo3::create_exception!(
    codec,
    CodecError,
    PyException,
    "A file or document that does not read or write: `offset` is the byte offset where the file departs from its format (or None), `path` the field path (or None)."
);

/// A `CodecError` with its message, offset and path.
fn codec_error(
    py: Python<'_>,
    message: String,
    offset: Option<u64>,
    path: Option<String>,
) -> PyErr {
    let e = CodecError::new_err(message);
    let v = e.value(py);
    let _ = v.setattr("offset", offset);
    let _ = v.setattr("path", path);
    e
}

fn plain_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    codec_error(py, message.into(), None, None)
}

/// A document value that does not fit its format: the error names its path.
fn form_error(py: Python<'_>, e: &form::FormError) -> PyErr {
    let path = e.path();
    codec_error(py, format!("{path}: {}", e.message), None, Some(path))
}

fn decode_error(py: Python<'_>, e: &codec_runtime::DecodeError) -> PyErr {
    let path = e.path();
    codec_error(
        py,
        e.to_string(),
        Some(e.offset()),
        (!path.is_empty()).then(|| path.to_string()),
    )
}

/// The game's zstd dictionaries, from bytes or paths (a raw dictionary, or
/// an archive of them such as `Pack/ZsDic.pack.zs`).
fn dictionaries(py: Python<'_>, dicts: Option<&Bound<'_, PyList>>) -> PyResult<Dictionaries> {
    let mut out = Dictionaries::default();
    let Some(list) = dicts else {
        return Ok(out);
    };
    for item in list.iter() {
        let bytes: Vec<u8> = if let Ok(b) = item.downcast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            let path: std::path::PathBuf = item.extract()?;
            std::fs::read(&path).map_err(|e| plain_error(py, format!("{}: {e}", path.display())))?
        };
        out.add_file(&bytes).map_err(|e| plain_error(py, e))?;
    }
    Ok(out)
}

/// `data`'s Yaz0 and zstd layers (outermost first) and the bytes inside
/// them (`data` itself, uncopied, when it has none), the GIL released while
/// they are decompressed.
fn peeled<'a>(
    py: Python<'_>,
    data: &'a [u8],
    dicts: Option<&Bound<'_, PyList>>,
) -> PyResult<(Vec<Layer>, std::borrow::Cow<'a, [u8]>)> {
    if Layer::detect(data).is_none() {
        return Ok((Vec::new(), std::borrow::Cow::Borrowed(data)));
    }
    let dicts = dictionaries(py, dicts)?;
    py.allow_threads(|| layer::peel(data, &dicts))
        .map(|(layers, inner)| (layers, std::borrow::Cow::Owned(inner)))
        .map_err(|e| plain_error(py, e))
}

/// The format named (`byml`, `msbt`, ...), or the one `data` is in.
fn entry_for(py: Python<'_>, format: Option<&str>, data: &[u8]) -> PyResult<&'static Entry> {
    match format {
        Some(name) => FORMATS
            .iter()
            .find(|e| e.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let names: Vec<&str> = FORMATS.iter().map(|e| e.name).collect();
                plain_error(
                    py,
                    format!("no format `{name}` (formats: {})", names.join(", ")),
                )
            }),
        None => FORMATS
            .iter()
            .find(|e| (e.detect)(data).is_some())
            .ok_or_else(|| codec_error(py, "not a file of a known format".into(), Some(0), None)),
    }
}

/// The checked schema of a format's variant (the format's own schema when
/// it has no variants).
fn variant_schema(py: Python<'_>, e: &Entry, variant: Option<&str>) -> PyResult<&'static Checked> {
    let c = registry::checked(e.format)
        .ok_or_else(|| plain_error(py, format!("{}: the built-in schema does not load", e.name)))?;
    match variant {
        Some(v) => c
            .variant(v)
            .ok_or_else(|| plain_error(py, format!("{}: no variant `{v}`", e.name))),
        None => Ok(c),
    }
}

fn json_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("json")
}

/// A generic-form JSON text as Python values (dicts keep the text's order).
fn from_json_text<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    json_module(py)?.call_method1("loads", (text,))
}

/// Python values as a JSON value.
fn to_json_value(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text: String = json_module(py)?.call_method1("dumps", (doc,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| plain_error(py, format!("the document: {e}")))
}

fn layers_to_py(py: Python<'_>, layers: &[Layer]) -> PyResult<Py<PyList>> {
    let out = PyList::empty(py);
    for l in layers {
        let d = PyDict::new(py);
        match *l {
            Layer::Yaz0 { alignment } => {
                d.set_item("kind", "yaz0")?;
                d.set_item("alignment", alignment)?;
            }
            Layer::Zstd { dictionary } => {
                d.set_item("kind", "zstd")?;
                d.set_item("dictionary", dictionary)?;
            }
        }
        out.append(d)?;
    }
    Ok(out.unbind())
}

fn layers_from_py(py: Python<'_>, layers: Option<Bound<'_, PyAny>>) -> PyResult<Vec<Layer>> {
    let Some(layers) = layers else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for l in layers.try_iter()? {
        let l = l?;
        let kind: String = l.get_item("kind")?.extract()?;
        out.push(match kind.as_str() {
            "yaz0" => Layer::Yaz0 {
                alignment: l.get_item("alignment")?.extract()?,
            },
            "zstd" => Layer::Zstd {
                dictionary: l.get_item("dictionary")?.extract()?,
            },
            other => {
                return Err(plain_error(
                    py,
                    format!("no layer kind `{other}` (yaz0, zstd)"),
                ))
            }
        });
    }
    Ok(out)
}

/// The names of the built-in formats.
#[pyfunction(name = "formats")]
fn format_names() -> Vec<&'static str> {
    FORMATS.iter().map(|e| e.name).collect()
}

/// The format and variant of `data` (its layers peeled first, with `dicts`),
/// or None.
#[pyfunction]
#[pyo3(signature = (data, dicts=None))]
fn detect(
    py: Python<'_>,
    data: &[u8],
    dicts: Option<&Bound<'_, PyList>>,
) -> PyResult<Option<(&'static str, Option<&'static str>)>> {
    let (_, inner) = peeled(py, data, dicts)?;
    Ok(FORMATS
        .iter()
        .find_map(|e| (e.detect)(&inner).map(|v| (e.name, v))))
}

/// The bytes inside `data`'s Yaz0 and zstd layers (`data` itself when it
/// has none).
#[pyfunction]
#[pyo3(signature = (data, dicts=None))]
fn decompress<'py>(
    py: Python<'py>,
    data: &[u8],
    dicts: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (_, inner) = peeled(py, data, dicts)?;
    Ok(PyBytes::new(py, &inner))
}

/// `data` in `layers` (outermost first, as `read` lists them:
/// `[{"kind": "yaz0", "alignment": 0}]`, `[{"kind": "zstd", "dictionary":
/// None}]`), compressed as the game's tools compress; zstd with a
/// dictionary takes it from `dicts`.
#[pyfunction]
#[pyo3(signature = (data, layers, dicts=None))]
fn compress<'py>(
    py: Python<'py>,
    data: &[u8],
    layers: Bound<'py, PyAny>,
    dicts: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let dicts = dictionaries(py, dicts)?;
    let layers = layers_from_py(py, Some(layers))?;
    let bytes = py
        .allow_threads(|| layer::wrap(data.to_vec(), &layers, &dicts))
        .map_err(|m| plain_error(py, m))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Adds AAMP names (strings) to the table `read` names keys from, for the
/// rest of the process: how many were new. The table starts with the files
/// `AAMP_NAMES` and `AAMP_NUMBERED_NAMES` name, as `codec to-text`'s.
#[pyfunction]
fn add_aamp_names(names: &Bound<'_, PyAny>) -> PyResult<usize> {
    aamp::add_names(names.try_iter()?.collect::<PyResult<Vec<_>>>()?.into_iter())
}

/// The text the community's tools read of a file (inside its layers):
/// `(form, text)`, the form one of the registry's text forms
/// (`aamp-yaml`, `byml-yaml`, `ainb-json`, `rstb-json`, `msbt-yaml`: the
/// forms `codec to-text` writes), given only when the text gives back the
/// file's bytes.
#[pyfunction]
#[pyo3(signature = (data, dicts=None))]
fn to_text(
    py: Python<'_>,
    data: &[u8],
    dicts: Option<&Bound<'_, PyList>>,
) -> PyResult<(&'static str, String)> {
    let (_, inner) = peeled(py, data, dicts)?;
    // The module's table (read once, with the names a tool added), as
    // `read` names AAMP keys.
    let names = aamp::names();
    py.allow_threads(|| formats::sarc::folder::text_form(&inner, &names))
        .map(|(form, _, text)| (form, text))
        .ok_or_else(|| {
            plain_error(
                py,
                "no text form gives back these bytes (text forms: AAMP, BYML, AINB, RSTB, MSBT)",
            )
        })
}

/// The bytes a text of `form` (as `to_text` names it) describes.
#[pyfunction]
fn from_text<'py>(py: Python<'py>, text: &str, form: &str) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py
        .allow_threads(|| formats::sarc::folder::bytes_of_text(form, text))
        .map_err(|e| match e.at {
            Some((line, column)) => plain_error(py, format!("{line}:{column}: {}", e.message)),
            None => plain_error(py, e.message),
        })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The dict of a format with a native form (the shape of its text form),
/// or None for the formats read in the generic form.
fn native_read<'py>(
    py: Python<'py>,
    format: &str,
    inner: &[u8],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    Ok(match format {
        "aamp" => Some(aamp::read(py, inner)?),
        "ainb" => Some(ainb::read(py, inner)?),
        "byml" => Some(byml::read(py, inner)?),
        "msbt" => Some(msbt::read(py, inner)?),
        "sarc" => Some(sarc::read(py, inner, None)?),
        _ => None,
    })
}

/// The bytes of a document in a native form, or None for the others.
fn native_write(
    py: Python<'_>,
    format: Option<&str>,
    doc: &Bound<'_, PyAny>,
) -> PyResult<Option<Vec<u8>>> {
    Ok(match format {
        Some("aamp") => Some(aamp::write(py, doc)?),
        Some("ainb") => Some(ainb::write(py, doc)?),
        Some("byml") => Some(byml::write(py, doc)?),
        Some("msbt") => Some(msbt::write(py, doc)?),
        Some("sarc") => Some(sarc::write(py, doc)?),
        _ => None,
    })
}

/// Reads a file of a built-in format (detected unless `format` names it),
/// through its Yaz0 and zstd layers: a dict of `schema` (the format),
/// `layers` (the layers it was in, outermost first) and the document.
///
/// BYML: `document` is the root (dicts and lists; `codec.U32`, `S64`,
/// `U64`, `F64`, `File`, `HashMap` where a plain int or float would lose
/// the node's type), with `variant`, `version`, `shares_equal` and
/// `path_table`. AAMP: `version`, `type` and `param_root`, a dict of
/// `objects` and `lists` keyed by name (or by hash where no name is known).
/// SARC: `files` (name to bytes) and `alignments`. MSBT: `messages`
/// (label to text, tags inline) and `settings`. AINB: `document`, its JSON
/// object. BDAT and RSTB: `variant` and `document` in the generic form.
///
/// `copy=False` gives a SARC's members as `memoryview`s of one buffer (the
/// file's bytes, or its bytes out of their layers) instead of a `bytes`
/// each: reading costs no copy of the members, and the buffer lives as
/// long as one of them does.
#[pyfunction]
#[pyo3(signature = (data, format=None, dicts=None, copy=true))]
fn read<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    format: Option<&str>,
    dicts: Option<&Bound<'py, PyList>>,
    copy: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (layers, inner) = peeled(py, data.as_bytes(), dicts)?;
    let e = entry_for(py, format, &inner)?;
    if e.name == "sarc" && !copy {
        // The members' buffer: the file itself, or its inside once.
        let owner = match &inner {
            std::borrow::Cow::Borrowed(_) => data.clone(),
            std::borrow::Cow::Owned(v) => PyBytes::new(py, v),
        };
        let doc = sarc::read(py, owner.as_bytes(), Some(&owner))?;
        doc.set_item("layers", layers_to_py(py, &layers)?)?;
        return Ok(doc.into_any());
    }
    if let Some(doc) = native_read(py, e.name, &inner)? {
        doc.set_item("layers", layers_to_py(py, &layers)?)?;
        return Ok(doc.into_any());
    }
    let variant = (e.detect)(&inner)
        .ok_or_else(|| codec_error(py, format!("not a {} file", e.name), Some(0), None))?;
    let cv = variant_schema(py, e, variant)?;
    let value = py.allow_threads(|| (e.to_value)(&inner));
    let text = match value {
        Ok(value) => interp::json::to_json(cv, &value, &[]),
        // The codec's located error: where the file breaks, and the field.
        Err(m) => {
            return Err(match (e.round_trip)(None, &inner) {
                Err(formats::RoundTripError::Decode(d)) => decode_error(py, &d),
                _ => plain_error(py, m),
            })
        }
    };
    let doc = from_json_text(py, &text)?;
    doc.set_item("layers", layers_to_py(py, &layers)?)?;
    Ok(doc)
}

/// Writes a document as `read` gives it (its `schema` names the format),
/// laid out as `codec from-text` lays it out, in its `layers`. Keys that
/// are left out take the usual values (BYML version 2 little-endian, AAMP
/// type `xml`, a SARC member's alignment from its siblings); a value that
/// does not fit is a `CodecError` whose `path` names it
/// (`document.Objs[3].Translate[1]`).
#[pyfunction]
#[pyo3(signature = (doc, dicts=None))]
fn write<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyAny>,
    dicts: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let dicts = dictionaries(py, dicts)?;
    let layers = layers_from_py(py, doc.get_item("layers").ok())?;
    let format: Option<String> = doc.get_item("schema").ok().and_then(|s| s.extract().ok());
    if let Some(inner) = native_write(py, format.as_deref(), doc)? {
        let bytes = py
            .allow_threads(|| layer::wrap(inner, &layers, &dicts))
            .map_err(|m| plain_error(py, m))?;
        return Ok(PyBytes::new(py, &bytes));
    }
    let mut json = to_json_value(py, doc)?;
    if let serde_json::Value::Object(m) = &mut json {
        m.remove("layers");
    }
    let schema = json
        .get("schema")
        .and_then(|s| s.as_str())
        .ok_or_else(|| plain_error(py, "the document has no `schema` naming its format"))?;
    let e = registry::for_schema(schema).ok_or_else(|| {
        plain_error(
            py,
            format!("`{schema}` is no built-in format; use codec.Schema"),
        )
    })?;
    let c = variant_schema(py, e, None)?;
    let bytes = py
        .allow_threads(|| -> Result<Vec<u8>, String> {
            let (cv, read) = interp::json::from_json_value(c, json)?;
            let inner = interp::encode(&cv, &read.document, &formats::interp_hooks::Glue)
                .map_err(|e| e.to_string())?;
            layer::wrap(inner, &layers, &dicts)
        })
        .map_err(|m| plain_error(py, m))?;
    Ok(PyBytes::new(py, &bytes))
}

/// A RON schema, from a path or from its text: reads and writes files of
/// the format it describes with the schema interpreter.
#[pyclass(module = "codec", frozen)]
struct Schema {
    checked: Checked,
}

#[pymethods]
impl Schema {
    /// `source`: the path of a `.ron` file, or the schema's text.
    #[new]
    fn new(py: Python<'_>, source: &str) -> PyResult<Schema> {
        let (text, name) = if source.trim_start().starts_with("Schema(") {
            (source.to_owned(), "<text>".to_owned())
        } else {
            let text = std::fs::read_to_string(source)
                .map_err(|e| plain_error(py, format!("{source}: {e}")))?;
            (text, source.to_owned())
        };
        let checked = codec_schema::parse_str(&text, &name)
            .map_err(|d| plain_error(py, format!("schema errors:\n{d}")))?;
        Ok(Schema { checked })
    }

    /// The schema's name.
    #[getter]
    fn name(&self) -> &str {
        &self.checked.schema.name
    }

    /// The names of its variants (empty when it has none).
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.checked
            .variants()
            .iter()
            .filter_map(|v| v.variant_name().map(str::to_owned))
            .collect()
    }

    /// Reads `data`: a dict of `schema`, `variant` and `document`. The first
    /// variant that reads the whole file, unless `variant` names one.
    #[pyo3(signature = (data, variant=None))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        variant: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (cv, decoded) = self.decode(py, data, variant)?;
        if let Some(e) = &decoded.error {
            return Err(decode_error(py, e));
        }
        let text = interp::json::to_json(cv, &decoded.root.to_value(), &[]);
        from_json_text(py, &text)
    }

    /// Writes a document as `read` gives it.
    fn write<'py>(
        &self,
        py: Python<'py>,
        doc: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let json = to_json_value(py, doc)?;
        let bytes = py
            .allow_threads(|| -> Result<Vec<u8>, String> {
                let (cv, read) = interp::json::from_json_value(&self.checked, json)?;
                interp::encode(&cv, &read.document, &formats::interp_hooks::Glue)
                    .map_err(|e| e.to_string())
            })
            .map_err(|m| plain_error(py, m))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Reads `data` and writes it back: a dict of `identical` (the same
    /// bytes), `variant`, `first_difference` (the offset where the bytes
    /// part, or None) and, unless `edits=False`, `edits`: what the edit
    /// probe of `codec check --schema` found (each string made longer, each
    /// list one element shorter, each number changed, written and read
    /// back): `tried`, `held`, and the edits `refused` by the format and
    /// `failed` (written, but not read back as made), each as `path`,
    /// `edit` and `why`.
    #[pyo3(signature = (data, edits=true))]
    fn check<'py>(
        &self,
        py: Python<'py>,
        data: &[u8],
        edits: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (cv, decoded) = self.decode(py, data, None)?;
        if let Some(e) = &decoded.error {
            return Err(decode_error(py, e));
        }
        let doc = decoded.root.to_value();
        let glue = formats::interp_hooks::Glue;
        let out = py
            .allow_threads(|| interp::encode(cv, &doc, &glue))
            .map_err(|e| plain_error(py, e.to_string()))?;
        let first = (out != data).then(|| {
            out.iter()
                .zip(data)
                .position(|(a, b)| a != b)
                .unwrap_or(out.len().min(data.len()))
        });
        let d = PyDict::new(py);
        d.set_item("identical", first.is_none())?;
        d.set_item("variant", cv.variant_name())?;
        d.set_item("first_difference", first)?;
        if edits {
            let report = py.allow_threads(|| interp::edits::probe(cv, &decoded.root, &glue));
            let failures = |list: &[interp::edits::Failure]| -> PyResult<Bound<'py, PyList>> {
                let out = PyList::empty(py);
                for f in list {
                    let e = PyDict::new(py);
                    e.set_item("path", &f.path)?;
                    e.set_item("edit", &f.edit)?;
                    e.set_item("why", &f.why)?;
                    out.append(e)?;
                }
                Ok(out)
            };
            let e = PyDict::new(py);
            e.set_item("tried", report.tried)?;
            e.set_item("held", report.held)?;
            e.set_item("refused", failures(&report.refused)?)?;
            e.set_item("failed", failures(&report.failed)?)?;
            d.set_item("edits", e)?;
        }
        Ok(d)
    }

    /// Every field with its offset, size and value, as `codec dump` prints it.
    fn dump(&self, py: Python<'_>, data: &[u8]) -> PyResult<String> {
        let (_, decoded) = self.decode(py, data, None)?;
        let text = interp::render::dump(&decoded.root, data, Default::default());
        match &decoded.error {
            None => Ok(text),
            Some(e) => Err(decode_error(py, e)),
        }
    }

    fn __repr__(&self) -> String {
        format!("codec.Schema({:?})", self.checked.schema.name)
    }
}

impl Schema {
    fn decode<'s>(
        &'s self,
        py: Python<'_>,
        data: &[u8],
        variant: Option<&str>,
    ) -> PyResult<(&'s Checked, interp::Decoded)> {
        let glue = formats::interp_hooks::Glue;
        let limits = codec_runtime::Limits::default();
        match variant {
            Some(v) => {
                let cv = self
                    .checked
                    .variant(v)
                    .ok_or_else(|| plain_error(py, format!("no variant `{v}`")))?;
                Ok((
                    cv,
                    py.allow_threads(|| interp::decode_partial_with(cv, data, limits, &glue)),
                ))
            }
            None => Ok(
                py.allow_threads(|| interp::decode_variants(&self.checked, data, limits, &glue))
            ),
        }
    }
}

/// Nintendo's file formats (AAMP, AINB, legacy BDAT, BYML, MSBT, RSTB,
/// SARC; Yaz0 and zstd) and any RON schema, read and written byte for byte.
#[pymodule]
fn codec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CodecError", m.py().get_type::<CodecError>())?;
    m.add_function(wrap_pyfunction!(format_names, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(decompress, m)?)?;
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(add_aamp_names, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(to_text, m)?)?;
    m.add_function(wrap_pyfunction!(from_text, m)?)?;
    m.add_function(wrap_pyfunction!(write, m)?)?;
    m.add_class::<Schema>()?;
    kinds::install(m)?;
    Ok(())
}
