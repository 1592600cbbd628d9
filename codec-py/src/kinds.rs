//! The Python classes that carry a value's binary type where Python's own
//! types cannot (a BYML `!u` against a plain int, an AAMP `!vec3` against
//! a `!color`), one per tag of the text forms and named as the tag is.
//!
//! Each is a plain subclass of `int`, `float`, `str`, `bytes`, `list` or
//! `dict`: a document reads and compares as plain values (`U32(5) == 5`,
//! `json.dumps` takes it) and a value written without its class gets the
//! text form's default (an int is BYML's `Int`, AAMP's `Int`). They are
//! defined in Python, once, when the module loads: the classes are what
//! a Python tool subclasses, pickles and prints, and PyO3 cannot derive
//! from variable-size built-ins.

use pyo3::ffi::c_str;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyType};

/// The classes' source: their docstrings are the API's documentation.
const SOURCE: &std::ffi::CStr = c_str!(
    r#"
def _kind(base, name, doc):
    def r(self): return f"{name}({base.__repr__(self)})"
    return type(name, (base,), {"__slots__": (), "__doc__": doc, "__repr__": r})

U32 = _kind(int, "U32", "An unsigned 32-bit integer (BYML and AAMP `!u`).")
S64 = _kind(int, "S64", "A signed 64-bit integer (BYML `!l`).")
U64 = _kind(int, "U64", "An unsigned 64-bit integer (BYML `!ul`).")
F64 = _kind(float, "F64", "A 64-bit float (BYML `!f64`); a plain float is 32 bits.")
HashMap = _kind(dict, "HashMap", "A BYML version 7 map keyed by 32-bit hashes (`!h`, node 0x20).")
Str32 = _kind(str, "Str32", "An AAMP string in a 32-byte field (`!str32`).")
Str64 = _kind(str, "Str64", "An AAMP string in a 64-byte field (`!str64`).")
Str256 = _kind(str, "Str256", "An AAMP string in a 256-byte field (`!str256`).")
Vec2 = _kind(list, "Vec2", "Two AAMP floats (`!vec2`).")
Vec3 = _kind(list, "Vec3", "Three AAMP floats (`!vec3`).")
Vec4 = _kind(list, "Vec4", "Four AAMP floats (`!vec4`).")
Color = _kind(list, "Color", "An AAMP colour, four floats (`!color`).")
Quat = _kind(list, "Quat", "An AAMP quaternion, four floats (`!quat`).")
Curve = _kind(list, "Curve", "One to four AAMP curves (`!curve`), flat as the text writes them: per curve two ints and 30 floats.")
BufferInt = _kind(list, "BufferInt", "An AAMP buffer of s32 (`!buffer_int`).")
BufferF32 = _kind(list, "BufferF32", "An AAMP buffer of f32 (`!buffer_f32`).")
BufferU32 = _kind(list, "BufferU32", "An AAMP buffer of u32 (`!buffer_u32`).")
BufferBinary = _kind(list, "BufferBinary", "An AAMP buffer of bytes, as ints (`!buffer_binary`).")

class File(bytes):
    """Bytes placed at a multiple of `alignment` (BYML `!!file`, node 0xA2)."""
    def __new__(cls, data=b"", alignment=0x1000):
        o = super().__new__(cls, data)
        o.alignment = alignment
        return o
    def __repr__(self): return f"File({bytes(self)!r}, alignment={self.alignment:#x})"
"#
);

/// A class, by the tag it stands for (its Python name is the variant's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    U32,
    S64,
    U64,
    F64,
    File,
    HashMap,
    Str32,
    Str64,
    Str256,
    Vec2,
    Vec3,
    Vec4,
    Color,
    Quat,
    Curve,
    BufferInt,
    BufferF32,
    BufferU32,
    BufferBinary,
}

impl Kind {
    /// Every class, in the order of [`Kinds`].
    pub const ALL: [Kind; 19] = [
        Kind::U32,
        Kind::S64,
        Kind::U64,
        Kind::F64,
        Kind::File,
        Kind::HashMap,
        Kind::Str32,
        Kind::Str64,
        Kind::Str256,
        Kind::Vec2,
        Kind::Vec3,
        Kind::Vec4,
        Kind::Color,
        Kind::Quat,
        Kind::Curve,
        Kind::BufferInt,
        Kind::BufferF32,
        Kind::BufferU32,
        Kind::BufferBinary,
    ];

    /// The class's Python name.
    pub fn name(self) -> String {
        format!("{self:?}")
    }
}

/// The classes, indexed by [`Kind`].
pub struct Kinds([Py<PyType>; 19]);

impl Kinds {
    /// The class of `kind`.
    pub fn class<'py>(&self, py: Python<'py>, kind: Kind) -> &Bound<'py, PyType> {
        self.0[kind as usize].bind(py)
    }

    /// A value of class `kind` made from `value`.
    pub fn make<'py>(
        &self,
        py: Python<'py>,
        kind: Kind,
        value: impl IntoPyObject<'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.class(py, kind).call1((value,))
    }

    /// The kind whose class `value` is exactly (not a subclass of one).
    pub fn kind_of(&self, value: &Bound<'_, PyAny>) -> Option<Kind> {
        let t = value.get_type();
        Kind::ALL
            .into_iter()
            .find(|&k| t.is(self.0[k as usize].bind(value.py())))
    }
}

static KINDS: GILOnceCell<Kinds> = GILOnceCell::new();

/// Defines the classes (once) and adds them to `module`.
pub fn install(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let kinds = get(py)?;
    for k in Kind::ALL {
        module.add(k.name(), kinds.class(py, k))?;
    }
    Ok(())
}

/// The classes.
pub fn get(py: Python<'_>) -> PyResult<&Kinds> {
    KINDS.get_or_try_init(py, || {
        let globals = PyDict::new(py);
        globals.set_item("__name__", "codec")?;
        py.run(SOURCE, Some(&globals), None)?;
        let mut classes = Vec::with_capacity(Kind::ALL.len());
        for k in Kind::ALL {
            let name = k.name();
            classes.push(
                globals
                    .get_item(&name)?
                    .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err(name))?
                    .downcast_into::<PyType>()?
                    .unbind(),
            );
        }
        Ok(Kinds(classes.try_into().map_err(|_| {
            pyo3::exceptions::PyRuntimeError::new_err("the classes")
        })?))
    })
}
