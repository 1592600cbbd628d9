//! What the native forms share: the error of a Python value that does not
//! fit, with the path to it, and the bound on nesting.

use pyo3::prelude::*;

/// A Python value that has no place in the document: where it is (`Objs[3].Translate`) and why.
#[derive(Debug)]
pub struct FormError {
    /// Segments from the document's root, innermost last.
    segments: Vec<String>,
    pub message: String,
}

impl FormError {
    pub fn new(message: impl Into<String>) -> Self {
        FormError {
            segments: Vec::new(),
            message: message.into(),
        }
    }

    /// The error, inside the item `index` of a list.
    pub fn at_index(mut self, index: usize) -> Self {
        self.segments.push(format!("[{index}]"));
        self
    }

    /// The error, inside the value of key `key`.
    pub fn at_key(mut self, key: impl std::fmt::Display) -> Self {
        self.segments.push(format!(".{key}"));
        self
    }

    /// The path from the dict `read` gives: `document.Objs[3].Translate`.
    pub fn path(&self) -> String {
        let mut p = String::new();
        for s in self.segments.iter().rev() {
            p.push_str(s);
        }
        p.strip_prefix('.').map(str::to_owned).unwrap_or(p)
    }
}

impl From<PyErr> for FormError {
    fn from(e: PyErr) -> Self {
        FormError::new(e.to_string())
    }
}

pub type FormResult<T> = Result<T, FormError>;

/// The deepest nesting a document may have: what decode reads of a binary
/// file (a cyclic Python structure, a list inside itself, ends here).
pub const MAX_DEPTH: u32 = codec_runtime::reader::DEFAULT_MAX_DEPTH - 1;

/// One level deeper, or the error that says the document nests too deep.
pub fn deeper(depth: u32, levels: u32) -> FormResult<u32> {
    let d = depth + levels;
    if d > MAX_DEPTH {
        return Err(FormError::new(format!(
            "nested deeper than a file may hold ({MAX_DEPTH} levels); is a list or dict inside itself?"
        )));
    }
    Ok(d)
}

/// A Python type's name, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// An integer in `T`'s range, or the error naming the type it is for.
pub fn int_in<'py, T>(value: &Bound<'py, PyAny>, what: &str) -> FormResult<T>
where
    T: FromPyObject<'py>,
{
    value.extract::<T>().map_err(|_| {
        FormError::new(format!(
            "{} does not fit {what}",
            value
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "the value".into())
        ))
    })
}

/// `f` run with Python's cyclic garbage collector paused: building a
/// document makes hundreds of thousands of containers, none of them in a
/// cycle, and each collection the allocations set off would walk them all
/// (a quarter of a BYML read's time).
pub fn without_gc<T, E: From<PyErr>>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let gc = py.import("gc")?;
    let was = gc.call_method0("isenabled")?.is_truthy()?;
    if was {
        gc.call_method0("disable")?;
    }
    let out = f();
    if was {
        gc.call_method0("enable")?;
    }
    out
}
