//! MSBT as Python values: the shape of the editors' text
//! (`formats::msbt::text`), each message by its label with its tags inline
//! (`<3 Type='0' Data='0x0B00'/>`), in message order. The document's dict:
//! `schema` (`"msbt"`), `messages` (label to text) and `settings` (the
//! text's `$msbt` entry: where the file departs from TotK's defaults, empty
//! where it does not).
//!
//! A file whose messages by label would not give back its bytes (a layout
//! no known writer produces) is refused with the way to read it (the
//! generic form of `codec.Schema`), as `codec to-text` refuses it.

use crate::form::{type_name, FormError};
use formats::msbt::{self, text::Messages};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// Reads an MSBT file into its dict; the GIL is released while it is
/// decoded and checked.
pub fn read<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let m = py
        .allow_threads(|| msbt::messages(data))
        .map_err(|message| {
            // A file that does not decode: its offset and field path.
            match msbt::decode_located(data) {
                Err(e) => crate::decode_error(py, &e),
                Ok(_) => crate::plain_error(py, message),
            }
        })?;
    let d = PyDict::new(py);
    d.set_item("schema", "msbt")?;
    let settings = serde_json::Value::Object(m.settings).to_string();
    d.set_item("settings", crate::from_json_text(py, &settings)?)?;
    let messages = PyDict::new(py);
    for (label, text) in &m.messages {
        messages.set_item(PyString::new(py, label), PyString::new(py, text))?;
    }
    d.set_item("messages", messages)?;
    Ok(d)
}

/// Writes a dict of [`read`]'s shape (`settings` may be left out: TotK's
/// defaults).
pub fn write(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let m = from_py(doc).map_err(|e| crate::form_error(py, &e))?;
    py.allow_threads(|| msbt::from_messages(m))
        .map_err(|message| crate::plain_error(py, message))
}

fn from_py(doc: &Bound<'_, PyAny>) -> Result<Messages, FormError> {
    let settings = match doc.get_item("settings").ok() {
        None => serde_json::Map::new(),
        Some(s) => {
            let text: String = doc
                .py()
                .import("json")?
                .call_method1("dumps", (s,))?
                .extract()?;
            match serde_json::from_str(&text) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => return Err(FormError::new("expected a dict of settings").at_key("settings")),
            }
        }
    };
    let messages = doc
        .get_item("messages")
        .map_err(|_| FormError::new("the dict has no `messages` (label to text)"))?;
    let messages = messages.downcast::<PyDict>().map_err(|_| {
        FormError::new(format!(
            "a {}: expected a dict of label to text",
            type_name(&messages)
        ))
        .at_key("messages")
    })?;
    let mut out = Vec::with_capacity(messages.len());
    for (label, text) in messages.iter() {
        let label: String = label.extract().map_err(|_| {
            FormError::new(format!(
                "a label of type {}: expected a str",
                type_name(&label)
            ))
            .at_key("messages")
        })?;
        let text: String = text.extract().map_err(|_| {
            FormError::new(format!(
                "a {}: expected the message's text (a str)",
                type_name(&text)
            ))
            .at_key(&label)
            .at_key("messages")
        })?;
        out.push((label, text));
    }
    Ok(Messages {
        settings,
        messages: out,
    })
}
