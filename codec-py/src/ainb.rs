//! AINB as Python values: the shape of its JSON text (`formats::ainb::text`,
//! the dt-12345 `ainb` library's dump with what it loses kept under keys
//! that start with `$`), as `json.loads` gives it. The document's dict:
//! `schema` (`"ainb"`) and `document`.

use formats::ainb;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Reads an AINB file into its dict; the GIL is released while it is
/// decoded and written as JSON.
pub fn read<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let text = py
        .allow_threads(|| {
            let doc = ainb::decode(data).map_err(Some)?;
            ainb::text::to_json(&doc).map_err(|_| None)
        })
        .map_err(|e| match e {
            Some(d) => crate::decode_error(py, &d),
            // The decoder reads it; its JSON does not say all of it.
            None => crate::plain_error(py, "the file reads, but no JSON text gives its bytes back; read it with codec.Schema(\"schemas/ainb.ron\")"),
        })?;
    let d = PyDict::new(py);
    d.set_item("schema", "ainb")?;
    d.set_item("document", crate::from_json_text(py, &text)?)?;
    Ok(d)
}

/// Writes a dict of [`read`]'s shape.
pub fn write(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let document = doc.get_item("document").map_err(|_| {
        crate::plain_error(py, "the dict has no `document` (the AINB JSON's object)")
    })?;
    let text: String = py
        .import("json")?
        .call_method1("dumps", (document,))?
        .extract()?;
    py.allow_threads(|| {
        let file = ainb::text::from_json(&text).map_err(|e| {
            let path = format!(
                "document{}{}",
                if e.path.is_empty() { "" } else { "." },
                e.path
            );
            (format!("{path}: {}", e.message), Some(path))
        })?;
        ainb::encode(&file).map_err(|e| (e.to_string(), None))
    })
    .map_err(|(m, path)| crate::codec_error(py, m, None, path))
}
