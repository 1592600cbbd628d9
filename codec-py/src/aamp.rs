//! AAMP as Python values, the shape of its YAML text (`formats::aamp::text`,
//! oead's dialect): the document's dict holds `version`, `type` and
//! `param_root`; a list is a dict of `objects` and `lists`, an object a
//! dict of parameters. Keys are names where the names table or the
//! document's own strings explain the hash (as `codec to-text` names
//! them), else the hash as an int; a name written back is hashed (CRC32).
//! Values: `bool`, `int` (s32), `float` (f32) and `str` (a string
//! reference) are themselves; the other types take the class of their tag
//! ([`crate::kinds`]: `U32`, `Str32`, `Vec3`, `Color`, `Curve`,
//! `BufferInt`, ...).
//!
//! A dict holds one value a key: a file with two children of one name
//! under one parent is refused by name (read it with `codec.Schema`)
//! rather than read with one of them lost.

use crate::form::{deeper, int_in, type_name, FormError, FormResult};
use crate::kinds::{self, Kind, Kinds};
use formats::aamp::names::{NameTable, Namer};
use formats::aamp::{
    self, Curve, Parameter, ParameterIO, ParameterList, ParameterObject, ParameterValue, ROOT_NAME,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use std::sync::{Arc, Mutex, OnceLock};

/// Floats in one curve: two ints, then 30 floats.
const CURVE_FLOATS: usize = 30;
const CURVE_ITEMS: usize = 2 + CURVE_FLOATS;

/// The module's names table: the files `AAMP_NAMES`/`AAMP_NUMBERED_NAMES`
/// name, read once, and the names a tool adds ([`add_names`]). Readers take
/// the table (an `Arc`) and let the lock go at once, so that none is held
/// while the GIL is released; adding copies it only while a reader holds it.
fn table() -> &'static Mutex<Arc<NameTable>> {
    static NAMES: OnceLock<Mutex<Arc<NameTable>>> = OnceLock::new();
    NAMES.get_or_init(|| Mutex::new(Arc::new(NameTable::from_env().unwrap_or_default())))
}

/// The names table as it is now.
pub fn names() -> Arc<NameTable> {
    table()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// Adds names to the module's table (the first name of a hash stays):
/// how many were new.
pub fn add_names<'py>(names: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<usize> {
    let mut held = table()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let table = Arc::make_mut(&mut held);
    let mut added = 0;
    for n in names {
        added += usize::from(table.add_name(n.downcast::<PyString>()?.to_str()?));
    }
    Ok(added)
}

/// Reads an AAMP file into its dict, the GIL released while it is decoded.
pub fn read<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyDict>> {
    let pio = py
        .allow_threads(|| aamp::decode(data))
        .map_err(|e| crate::decode_error(py, &e))?;
    let d = PyDict::new(py);
    d.set_item("schema", "aamp")?;
    d.set_item("version", pio.version)?;
    d.set_item("type", pio.data_type.as_str())?;
    // What the text form leaves out, where a file departs from the usual.
    let usual = ParameterIO::new("");
    if pio.format_version != usual.format_version {
        d.set_item("format_version", pio.format_version)?;
    }
    if pio.flags != usual.flags {
        d.set_item("flags", pio.flags)?;
    }
    if pio.unknown_section_size != usual.unknown_section_size {
        d.set_item("unknown_section_size", pio.unknown_section_size)?;
    }
    if pio.root.name != ROOT_NAME.0 {
        d.set_item("root_name", pio.root.name)?;
    }
    let table = names();
    let mut c = ToPy {
        py,
        k: kinds::get(py)?,
        namer: Namer::new(&table, &pio),
    };
    let root = crate::form::without_gc(py, || -> Result<_, Walk> { c.list(&pio.root, ROOT_NAME.0) })
        .map_err(|e| match e {
            Walk::Py(e) => e,
            Walk::Twice(path) => crate::plain_error(
                py,
                format!("{path}: two children of one name; a dict holds one (read the file with codec.Schema(\"schemas/aamp.ron\"))"),
            ),
        })?;
    d.set_item("param_root", root)?;
    Ok(d)
}

enum Walk {
    Py(PyErr),
    /// The path of a key given twice.
    Twice(String),
}

impl From<PyErr> for Walk {
    fn from(e: PyErr) -> Self {
        Walk::Py(e)
    }
}

struct ToPy<'a, 'py> {
    py: Python<'py>,
    k: &'a Kinds,
    namer: Namer<'a>,
}

impl<'py> ToPy<'_, 'py> {
    fn key(&mut self, hash: u32, index: usize, parent: u32) -> Bound<'py, PyAny> {
        match self.namer.name(hash, index, parent) {
            Some(name) => PyString::new(self.py, name).into_any(),
            None => hash
                .into_pyobject(self.py)
                .map(|i| i.into_any())
                .unwrap_or_else(|e| match e {}),
        }
    }

    /// Sets `key` in `d`, or the error when a sibling took it already.
    fn put(
        d: &Bound<'py, PyDict>,
        key: Bound<'py, PyAny>,
        value: Bound<'py, PyAny>,
        count: usize,
    ) -> Result<(), Walk> {
        d.set_item(&key, value)?;
        if d.len() != count {
            return Err(Walk::Twice(
                key.repr().map(|r| r.to_string()).unwrap_or_default(),
            ));
        }
        Ok(())
    }

    fn list(&mut self, list: &ParameterList, name: u32) -> Result<Bound<'py, PyAny>, Walk> {
        let py = self.py;
        let objects = PyDict::new(py);
        for (i, o) in list.objects.iter().enumerate() {
            let key = self.key(o.name, i, name);
            let value = self.object(o).map_err(|e| self.inside(e, &key))?;
            Self::put(&objects, key, value, i + 1)?;
        }
        let lists = PyDict::new(py);
        for (i, l) in list.lists.iter().enumerate() {
            let key = self.key(l.name, i, name);
            let value = self.list(l, l.name).map_err(|e| self.inside(e, &key))?;
            Self::put(&lists, key, value, i + 1)?;
        }
        let d = PyDict::new(py);
        d.set_item("objects", objects)?;
        d.set_item("lists", lists)?;
        Ok(d.into_any())
    }

    fn inside(&self, e: Walk, key: &Bound<'py, PyAny>) -> Walk {
        match e {
            Walk::Twice(path) => Walk::Twice(format!(
                "{}.{path}",
                key.str().map(|s| s.to_string()).unwrap_or_default()
            )),
            other => other,
        }
    }

    fn object(&mut self, o: &ParameterObject) -> Result<Bound<'py, PyAny>, Walk> {
        let d = PyDict::new(self.py);
        for (i, p) in o.params.iter().enumerate() {
            let key = self.key(p.name, i, o.name);
            let value = self.value(&p.value)?;
            Self::put(&d, key, value, i + 1)?;
        }
        Ok(d.into_any())
    }

    fn value(&self, v: &ParameterValue) -> PyResult<Bound<'py, PyAny>> {
        let (py, k) = (self.py, self.k);
        let floats = |kind: Kind, v: &[f32]| -> PyResult<Bound<'py, PyAny>> {
            k.make(py, kind, PyList::new(py, v.iter().map(|&x| f64::from(x)))?)
        };
        Ok(match v {
            ParameterValue::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            ParameterValue::F32(x) => PyFloat::new(py, f64::from(*x)).into_any(),
            ParameterValue::Int(x) => x.into_pyobject(py)?.into_any(),
            ParameterValue::Vec2(x) => floats(Kind::Vec2, x)?,
            ParameterValue::Vec3(x) => floats(Kind::Vec3, x)?,
            ParameterValue::Vec4(x) => floats(Kind::Vec4, x)?,
            ParameterValue::Color(x) => floats(Kind::Color, x)?,
            ParameterValue::Quat(x) => floats(Kind::Quat, x)?,
            ParameterValue::String32(s) => k.make(py, Kind::Str32, s.as_str())?,
            ParameterValue::String64(s) => k.make(py, Kind::Str64, s.as_str())?,
            ParameterValue::String256(s) => k.make(py, Kind::Str256, s.as_str())?,
            ParameterValue::StringRef(s) => PyString::new(py, s).into_any(),
            ParameterValue::Curve1(c) => self.curves(&c[..])?,
            ParameterValue::Curve2(c) => self.curves(&c[..])?,
            ParameterValue::Curve3(c) => self.curves(&c[..])?,
            ParameterValue::Curve4(c) => self.curves(&c[..])?,
            ParameterValue::BufferInt(x) => {
                k.make(py, Kind::BufferInt, PyList::new(py, x.iter())?)?
            }
            ParameterValue::BufferF32(x) => floats(Kind::BufferF32, x)?,
            ParameterValue::U32(x) => k.make(py, Kind::U32, *x)?,
            ParameterValue::BufferU32(x) => {
                k.make(py, Kind::BufferU32, PyList::new(py, x.iter())?)?
            }
            ParameterValue::BufferBinary(x) => {
                k.make(py, Kind::BufferBinary, PyList::new(py, x.iter())?)?
            }
        })
    }

    /// Curves flat, as the text writes them: per curve `a`, `b`, 30 floats.
    fn curves(&self, curves: &[Curve]) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let mut items: Vec<Bound<'py, PyAny>> = Vec::with_capacity(curves.len() * CURVE_ITEMS);
        for c in curves {
            items.push(c.a.into_pyobject(py)?.into_any());
            items.push(c.b.into_pyobject(py)?.into_any());
            for &f in &c.floats {
                items.push(PyFloat::new(py, f64::from(f)).into_any());
            }
        }
        self.k.make(py, Kind::Curve, PyList::new(py, items)?)
    }
}

/// Writes a dict of [`read`]'s shape, the GIL released while it is encoded.
pub fn write(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let pio = from_py(doc).map_err(|e| crate::form_error(py, &e))?;
    py.allow_threads(|| aamp::encode(&pio))
        .map_err(|e| crate::plain_error(py, e.to_string()))
}

/// The document a dict of [`read`]'s shape describes; `version` 0 and
/// `type` `xml` when left out.
pub fn from_py(doc: &Bound<'_, PyAny>) -> FormResult<ParameterIO> {
    let k = kinds::get(doc.py())?;
    let get = |key: &str| doc.get_item(key).ok();
    let mut pio = ParameterIO::new("xml");
    if let Some(v) = get("type") {
        let t: String = v
            .extract()
            .map_err(|_| FormError::new("expected a str (`xml`, `aglenv`, ...)").at_key("type"))?;
        pio.data_type = t.into();
    }
    let number = |key: &str, into: &mut u32| -> FormResult<()> {
        if let Some(v) = get(key) {
            *into = int_in(&v, "a u32").map_err(|e| e.at_key(key))?;
        }
        Ok(())
    };
    number("version", &mut pio.version)?;
    number("format_version", &mut pio.format_version)?;
    number("flags", &mut pio.flags)?;
    number("unknown_section_size", &mut pio.unknown_section_size)?;
    let mut root_name = ROOT_NAME.0;
    number("root_name", &mut root_name)?;
    let root = get("param_root").ok_or_else(|| {
        FormError::new("the dict has no `param_root` (a dict of `objects` and `lists`)")
    })?;
    pio.root = list_from_py(k, &root, root_name, 0).map_err(|e| e.at_key("param_root"))?;
    Ok(pio)
}

/// A key: a name (hashed) or a hash.
fn name_of(key: &Bound<'_, PyAny>) -> FormResult<u32> {
    if let Ok(s) = key.downcast::<PyString>() {
        return Ok(codec_runtime::crc32(s.to_str()?.as_bytes()));
    }
    if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        return int_in(key, "a u32 name hash");
    }
    Err(FormError::new(format!(
        "a key of type {}: expected a name (str) or its hash (int)",
        type_name(key)
    )))
}

fn dict_at<'a, 'py>(v: &'a Bound<'py, PyAny>, what: &str) -> FormResult<&'a Bound<'py, PyDict>> {
    v.downcast::<PyDict>()
        .map_err(|_| FormError::new(format!("a {}: expected {what}", type_name(v))))
}

fn key_text(key: &Bound<'_, PyAny>) -> String {
    key.str().map(|s| s.to_string()).unwrap_or_default()
}

fn list_from_py(
    k: &Kinds,
    v: &Bound<'_, PyAny>,
    name: u32,
    depth: u32,
) -> FormResult<ParameterList> {
    let depth = deeper(depth, 1)?;
    let d = dict_at(v, "a list: a dict of `objects` and `lists`")?;
    let mut list = ParameterList::new(name);
    for (key, value) in d.iter() {
        match key.extract::<String>().ok().as_deref() {
            Some("objects") => {
                let objects =
                    dict_at(&value, "a dict of objects").map_err(|e| e.at_key("objects"))?;
                for (key, o) in objects.iter() {
                    let at = |e: FormError| e.at_key(key_text(&key)).at_key("objects");
                    let name = name_of(&key).map_err(at)?;
                    list.objects.push(object_from_py(k, &o, name).map_err(at)?);
                }
            }
            Some("lists") => {
                let lists = dict_at(&value, "a dict of lists").map_err(|e| e.at_key("lists"))?;
                for (key, l) in lists.iter() {
                    let at = |e: FormError| e.at_key(key_text(&key)).at_key("lists");
                    let name = name_of(&key).map_err(at)?;
                    list.lists
                        .push(list_from_py(k, &l, name, depth).map_err(at)?);
                }
            }
            _ => {
                return Err(FormError::new(format!(
                    "unknown key {} in a list; expected `objects` and `lists`",
                    key.repr().map(|r| r.to_string()).unwrap_or_default()
                )))
            }
        }
    }
    Ok(list)
}

fn object_from_py(k: &Kinds, v: &Bound<'_, PyAny>, name: u32) -> FormResult<ParameterObject> {
    let d = dict_at(v, "an object: a dict of parameters")?;
    let mut object = ParameterObject::new(name);
    for (key, value) in d.iter() {
        let at = |e: FormError| e.at_key(key_text(&key));
        object.params.push(Parameter {
            name: name_of(&key).map_err(at)?,
            value: value_from_py(k, &value).map_err(at)?,
        });
    }
    Ok(object)
}

fn floats<const N: usize>(v: &Bound<'_, PyAny>, what: &str) -> FormResult<[f32; N]> {
    let items: Vec<f64> = v
        .extract()
        .map_err(|_| FormError::new(format!("expected {what}: {N} numbers")))?;
    let items: Vec<f32> = items.into_iter().map(|x| x as f32).collect();
    items.try_into().map_err(|got: Vec<f32>| {
        FormError::new(format!("expected {what}: {N} numbers, found {}", got.len()))
    })
}

fn value_from_py(k: &Kinds, v: &Bound<'_, PyAny>) -> FormResult<ParameterValue> {
    if v.is_exact_instance_of::<PyBool>() {
        return Ok(ParameterValue::Bool(v.is_truthy()?));
    }
    if v.is_exact_instance_of::<PyFloat>() {
        return Ok(ParameterValue::F32(v.extract::<f64>()? as f32));
    }
    if v.is_exact_instance_of::<PyInt>() {
        return Ok(ParameterValue::Int(int_in(
            v,
            "an AAMP Int (s32); use codec.U32",
        )?));
    }
    if v.is_exact_instance_of::<PyString>() {
        return Ok(ParameterValue::StringRef(v.extract::<String>()?.into()));
    }
    let Some(kind) = k.kind_of(v) else {
        return Err(FormError::new(format!(
            "a {} has no AAMP type (bool, int, float, str, or a codec class: U32, Str32, Vec3, Color, Curve, BufferInt, ...)",
            type_name(v)
        )));
    };
    let string = |v: &Bound<'_, PyAny>| -> FormResult<codec_runtime::Str> {
        Ok(v.extract::<String>()?.into())
    };
    Ok(match kind {
        Kind::U32 => ParameterValue::U32(int_in(v, "a U32")?),
        Kind::Str32 => ParameterValue::String32(string(v)?),
        Kind::Str64 => ParameterValue::String64(string(v)?),
        Kind::Str256 => ParameterValue::String256(string(v)?),
        Kind::Vec2 => ParameterValue::Vec2(floats(v, "a Vec2")?),
        Kind::Vec3 => ParameterValue::Vec3(floats(v, "a Vec3")?),
        Kind::Vec4 => ParameterValue::Vec4(floats(v, "a Vec4")?),
        Kind::Color => ParameterValue::Color(floats(v, "a Color")?),
        Kind::Quat => ParameterValue::Quat(floats(v, "a Quat")?),
        Kind::Curve => curves_from_py(v)?,
        Kind::BufferInt => ParameterValue::BufferInt(
            v.extract()
                .map_err(|_| FormError::new("expected a BufferInt of s32"))?,
        ),
        Kind::BufferF32 => ParameterValue::BufferF32(
            v.extract::<Vec<f64>>()
                .map_err(|_| FormError::new("expected a BufferF32 of numbers"))?
                .into_iter()
                .map(|x| x as f32)
                .collect(),
        ),
        Kind::BufferU32 => ParameterValue::BufferU32(
            v.extract()
                .map_err(|_| FormError::new("expected a BufferU32 of u32"))?,
        ),
        Kind::BufferBinary => ParameterValue::BufferBinary(
            v.extract::<Vec<u8>>()
                .map_err(|_| FormError::new("expected a BufferBinary of bytes (ints 0 to 255)"))?
                .into(),
        ),
        other => {
            return Err(FormError::new(format!(
                "codec.{} is a BYML node, not an AAMP value",
                other.name()
            )))
        }
    })
}

fn curves_from_py(v: &Bound<'_, PyAny>) -> FormResult<ParameterValue> {
    let items: Vec<Bound<'_, PyAny>> = v.extract()?;
    let n = items.len() / CURVE_ITEMS;
    if items.len() % CURVE_ITEMS != 0 || !(1..=4).contains(&n) {
        return Err(FormError::new(format!(
            "a Curve of {} items: expected 1 to 4 curves of {CURVE_ITEMS} (two ints, {CURVE_FLOATS} floats)",
            items.len()
        )));
    }
    let mut curves = Vec::with_capacity(n);
    for (i, c) in items.chunks(CURVE_ITEMS).enumerate() {
        let at = |e: FormError| e.at_index(i * CURVE_ITEMS);
        let mut floats = [0f32; CURVE_FLOATS];
        for (j, f) in c[2..].iter().enumerate() {
            floats[j] = f
                .extract::<f64>()
                .map_err(|_| FormError::new("expected a float").at_index(i * CURVE_ITEMS + 2 + j))?
                as f32;
        }
        curves.push(Curve {
            a: int_in(&c[0], "a u32").map_err(at)?,
            b: int_in(&c[1], "a u32").map_err(at)?,
            floats,
        });
    }
    let mut it = curves.into_iter();
    let mut next = || it.next().expect("counted above");
    Ok(match n {
        1 => ParameterValue::Curve1(Box::new([next()])),
        2 => ParameterValue::Curve2(Box::new([next(), next()])),
        3 => ParameterValue::Curve3(Box::new([next(), next(), next()])),
        _ => ParameterValue::Curve4(Box::new([next(), next(), next(), next()])),
    })
}
