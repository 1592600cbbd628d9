//! BYML as Python values, the shape of its YAML text (`formats::byml::text`):
//! a hash is a `dict` (keys in the order the file placed their values, so
//! that an unedited document writes back byte for byte), an array a
//! `list`; `bool`, `int` (s32), `float` (f32), `str`, `None` and `bytes`
//! are themselves; the other nodes take the class of their tag
//! ([`crate::kinds`]: `U32`, `S64`, `U64`, `F64`, `File`, `HashMap`).
//!
//! The document's dict: `schema` (`"byml"`), `variant` (`Le`, `Be`,
//! `V1Le`, `V1Be`: the byte order and the version 1 header), `version`,
//! `shares_equal` (whether the writer stored equal containers once),
//! `path_table` (version 1's offset, kept) and `document`, the root (a
//! dict, a list or None).

use crate::form::{deeper, int_in, type_name, FormError, FormResult};
use crate::kinds::{self, Kind, Kinds};
use formats::byml::schema::{AlignedBinary, HashMap, HashMapEntry};
use formats::byml::{self, Array, Container, Entry, Hash, Header, Node, Variant};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The document's dict (see the module doc).
pub fn to_py<'py>(py: Python<'py>, variant: Variant, doc: &Header) -> PyResult<Bound<'py, PyDict>> {
    let mut c = ToPy {
        py,
        k: kinds::get(py)?,
        strings: Default::default(),
    };
    let d = PyDict::new(py);
    d.set_item("schema", "byml")?;
    d.set_item("variant", format!("{variant:?}"))?;
    d.set_item("version", doc.version)?;
    d.set_item("shares_equal", doc.shares_equal)?;
    d.set_item("path_table", doc.path_table)?;
    let root = crate::form::without_gc(py, || match &doc.root {
        None => Ok(py.None().into_bound(py)),
        Some(Container::Array(a)) => c.array(a),
        Some(Container::Hash(h)) => Ok(c.hash(h)?.into_any()),
        Some(Container::HashMap(m)) => c.hash_map(m),
    })?;
    d.set_item("document", root)?;
    Ok(d)
}

/// The walk from a document to Python values.
struct ToPy<'a, 'py> {
    py: Python<'py>,
    k: &'a Kinds,
    /// Each text once (a file stores each once too): a key made once hashes
    /// once, however many dicts hold it.
    strings: rustc_hash::FxHashMap<Box<str>, Bound<'py, PyString>>,
}

impl<'a, 'py> ToPy<'a, 'py> {
    fn string(&mut self, s: &str) -> Bound<'py, PyString> {
        if let Some(p) = self.strings.get(s) {
            return p.clone();
        }
        let p = PyString::new(self.py, s);
        self.strings.insert(s.into(), p.clone());
        p
    }

    fn array(&mut self, a: &Array) -> PyResult<Bound<'py, PyAny>> {
        let mut items = Vec::with_capacity(a.items.len());
        for n in a.items.iter() {
            items.push(self.node(&n)?);
        }
        Ok(PyList::new(self.py, items)?.into_any())
    }

    fn hash(&mut self, h: &Hash) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(self.py);
        for e in &h.entries {
            d.set_item(self.string(&e.key), self.node(&e.value)?)?;
        }
        Ok(d)
    }

    fn hash_map(&mut self, m: &HashMap) -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(self.py);
        for e in &m.entries {
            d.set_item(e.hash, self.node(&e.value)?)?;
        }
        self.k.make(self.py, Kind::HashMap, d)
    }

    fn node(&mut self, n: &Node) -> PyResult<Bound<'py, PyAny>> {
        let (py, k) = (self.py, self.k);
        Ok(match n {
            Node::String(s) => self.string(s).into_any(),
            Node::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Node::Int(v) => v.into_pyobject(py)?.into_any(),
            Node::Float(v) => PyFloat::new(py, f64::from(*v)).into_any(),
            Node::UInt(v) => k.make(py, Kind::U32, *v)?,
            Node::Int64(v) => k.make(py, Kind::S64, *v)?,
            Node::UInt64(v) => k.make(py, Kind::U64, *v)?,
            Node::Double(v) => k.make(py, Kind::F64, *v)?,
            Node::Null(()) => py.None().into_bound(py),
            Node::Binary(data) => PyBytes::new(py, data.as_ref()).into_any(),
            Node::File(f) => k
                .class(py, Kind::File)
                .call1((PyBytes::new(py, f.data.as_ref()), f.alignment))?,
            Node::Array(a) => self.array(a)?,
            Node::Hash(h) => self.hash(h)?.into_any(),
            Node::HashMap(m) => self.hash_map(m)?,
        })
    }
}

/// The document and variant a dict of [`to_py`]'s shape describes. Keys
/// left out take the usual values: version 2, little-endian, equal
/// containers shared, no path table.
pub fn from_py(doc: &Bound<'_, PyAny>) -> FormResult<(Variant, Header)> {
    let py = doc.py();
    let k = kinds::get(py)?;
    let get = |key: &str| doc.get_item(key).ok();
    let version: u16 = match get("version") {
        Some(v) => int_in(&v, "a BYML version (1 to 7)").map_err(|e| e.at_key("version"))?,
        None => 2,
    };
    if !(1..=7).contains(&version) {
        return Err(
            FormError::new(format!("BYML version {version} is not one of 1 to 7"))
                .at_key("version"),
        );
    }
    let big = match get("variant") {
        None => false,
        Some(v) => match v.extract::<String>().ok().as_deref() {
            Some("Le" | "V1Le") => false,
            Some("Be" | "V1Be") => true,
            _ => {
                return Err(FormError::new(format!(
                    "{}: expected one of Le, Be, V1Le, V1Be",
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
                .at_key("variant"))
            }
        },
    };
    let variant = match (version, big) {
        (1, false) => Variant::V1Le,
        (1, true) => Variant::V1Be,
        (_, false) => Variant::Le,
        (_, true) => Variant::Be,
    };
    let shares_equal = match get("shares_equal") {
        Some(v) => v
            .extract::<bool>()
            .map_err(|_| FormError::new("expected True or False").at_key("shares_equal"))?,
        None => true,
    };
    let path_table: u32 = match get("path_table") {
        Some(v) => int_in(&v, "a u32").map_err(|e| e.at_key("path_table"))?,
        None => 0,
    };
    let root = get("document").ok_or_else(|| {
        FormError::new("the dict has no `document` (the root: a dict, a list or None)")
    })?;
    let root = (|| {
        if root.is_none() {
            return Ok(None);
        }
        Ok(Some(match node_from_py(k, &root, 0)? {
            Node::Array(a) => Container::Array(a),
            Node::Hash(h) => Container::Hash(h),
            Node::HashMap(m) => Container::HashMap(m),
            _ => {
                return Err(FormError::new(format!(
                    "the root is a {}: expected a dict, a list or None",
                    type_name(&root)
                )))
            }
        }))
    })()
    .map_err(|e| e.at_key("document"))?;
    Ok((
        variant,
        Header {
            version,
            path_table,
            root,
            shares_equal,
        },
    ))
}

fn node_from_py(k: &Kinds, v: &Bound<'_, PyAny>, depth: u32) -> FormResult<Node> {
    let py = v.py();
    // The common types first, exactly (bool before int: it is one).
    if v.is_none() {
        return Ok(Node::Null(()));
    }
    if v.is_exact_instance_of::<PyString>() {
        return Ok(Node::String(
            v.downcast::<PyString>()
                .map_err(PyErr::from)?
                .to_str()?
                .into(),
        ));
    }
    if v.is_exact_instance_of::<PyBool>() {
        return Ok(Node::Bool(v.is_truthy()?));
    }
    if v.is_exact_instance_of::<PyFloat>() {
        return Ok(Node::Float(v.extract::<f64>()? as f32));
    }
    if v.is_exact_instance_of::<PyInt>() {
        return Ok(Node::Int(int_in(
            v,
            "a BYML Int (s32); use codec.U32, codec.S64 or codec.U64",
        )?));
    }
    if let Ok(d) = v.downcast_exact::<PyDict>() {
        return hash_from_py(k, d, depth).map(Node::Hash);
    }
    if let Ok(l) = v.downcast_exact::<PyList>() {
        return array_from_py(k, l.iter(), l.len(), depth).map(Node::Array);
    }
    if let Some(kind) = k.kind_of(v) {
        return Ok(match kind {
            Kind::U32 => Node::UInt(int_in(v, "a U32")?),
            Kind::S64 => Node::Int64(int_in(v, "an S64")?),
            Kind::U64 => Node::UInt64(int_in(v, "a U64")?),
            Kind::F64 => Node::Double(v.extract::<f64>()?),
            Kind::File => Node::File(AlignedBinary {
                alignment: int_in(&v.getattr("alignment")?, "a u32 alignment")?,
                data: v.extract::<Vec<u8>>()?.into(),
            }),
            Kind::HashMap => {
                let depth = deeper(depth, 2)?;
                let d = v.downcast::<PyDict>().map_err(PyErr::from)?;
                let mut entries = Vec::with_capacity(d.len());
                for (key, value) in d.iter() {
                    let hash: u32 = int_in(&key, "a u32 hash (a HashMap's keys are 32-bit hashes)")
                        .map_err(|e| e.at_key(key_text(&key)))?;
                    let value = node_from_py(k, &value, depth).map_err(|e| e.at_key(hash))?;
                    entries.push(HashMapEntry { hash, value });
                }
                Node::HashMap(HashMap { entries })
            }
            other => {
                return Err(FormError::new(format!(
                    "codec.{} is an AAMP value, not a BYML node",
                    other.name()
                )))
            }
        });
    }
    // Subclasses of the plain types (an OrderedDict, a str enum, a tuple).
    if v.is_instance_of::<PyBool>() {
        return Ok(Node::Bool(v.is_truthy()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Node::String(v.extract::<String>()?.into()));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(Node::Int(int_in(
            v,
            "a BYML Int (s32); use codec.U32, codec.S64 or codec.U64",
        )?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Node::Float(v.extract::<f64>()? as f32));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        return hash_from_py(k, d, depth).map(Node::Hash);
    }
    if let Ok(l) = v.downcast::<PyList>() {
        return array_from_py(k, l.iter(), l.len(), depth).map(Node::Array);
    }
    if let Ok(t) = v.downcast::<PyTuple>() {
        return array_from_py(k, t.iter(), t.len(), depth).map(Node::Array);
    }
    if let Ok(b) = v.downcast::<PyBytes>() {
        return Ok(Node::Binary(b.as_bytes().to_vec().into()));
    }
    let _ = py;
    Err(FormError::new(format!(
        "a {} has no BYML node (dict, list, str, int, float, bool, None, bytes, or a codec class)",
        type_name(v)
    )))
}

fn key_text(key: &Bound<'_, PyAny>) -> String {
    key.str().map(|s| s.to_string()).unwrap_or_default()
}

fn hash_from_py(k: &Kinds, d: &Bound<'_, PyDict>, depth: u32) -> FormResult<Hash> {
    let depth = deeper(depth, 2)?;
    let mut entries = Vec::with_capacity(d.len());
    for (key, value) in d.iter() {
        let key = key
            .downcast::<PyString>()
            .map_err(|_| {
                FormError::new(format!(
                    "a key {} that is not a str (BYML keys are strings)",
                    key_text(&key)
                ))
            })?
            .to_str()?;
        let value = node_from_py(k, &value, depth).map_err(|e| e.at_key(key))?;
        entries.push(Entry {
            key: key.into(),
            value,
        });
    }
    Ok(Hash { entries })
}

fn array_from_py<'py>(
    k: &Kinds,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    depth: u32,
) -> FormResult<Array> {
    let depth = deeper(depth, 1)?;
    let mut out = Vec::with_capacity(len);
    for (i, item) in items.enumerate() {
        out.push(node_from_py(k, &item, depth).map_err(|e| e.at_index(i))?);
    }
    Ok(Array { items: out.into() })
}

/// Reads a BYML file into its dict, the GIL released while it is decoded.
pub fn read<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let (variant, doc) = py
        .allow_threads(|| byml::decode(data))
        .map_err(|e| crate::decode_error(py, &e))?;
    to_py(py, variant, &doc)
}

/// Writes a dict of [`to_py`]'s shape, the GIL released while it is encoded.
pub fn write(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let (variant, header) = from_py(doc).map_err(|e| crate::form_error(py, &e))?;
    py.allow_threads(|| byml::encode(&header, variant))
        .map_err(|e| crate::plain_error(py, e.to_string()))
}
