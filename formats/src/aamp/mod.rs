//! AAMP v2 (Breath of the Wild parameter archives).
//!
//! The binary layout is generated from `schemas/aamp.ron`, and so is the
//! document model: a [`ParameterIO`] holds the root [`ParameterList`]; lists
//! hold child lists and [`ParameterObject`]s, objects hold [`Parameter`]s,
//! each in file order and keyed by the CRC32 hash of its name. Nothing is
//! converted between decoding and the model, so a file whose names repeat
//! still round-trips. The one ordering rule the schema cannot declare is
//! [`glue::data_order`].
//!
//! ```
//! use formats::aamp::{Name, ParameterIO, ParameterList, ParameterObject, ParameterValue};
//! let mut pio = ParameterIO::new("xml");
//! pio.root.objects.push(ParameterObject::new("General").with("Life", ParameterValue::Int(40)));
//! let bytes = formats::aamp::encode(&pio).unwrap();
//! let back = formats::aamp::decode(&bytes).unwrap();
//! assert_eq!(back.root.object("General").and_then(|o| o.get("Life")), Some(&ParameterValue::Int(40)));
//! ```

pub mod glue;
pub mod names;
pub mod text;
pub mod views;

/// The codec generated from `schemas/aamp.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/aamp.ron", hooks = super::glue, serde);
}

use codec_runtime::{DecodeError, EncodeError, ErrorKind, PathSeg};
use std::fmt;

pub use schema::{
    Curve, File as ParameterIO, Parameter, ParameterList, ParameterObject, ParameterValue,
};

/// The magic at offset 0.
pub const MAGIC: &[u8; 4] = b"AAMP";

/// The format version this codec reads and writes.
pub const FORMAT_VERSION: u32 = 2;

/// Header flags: bit 0 little endian, bit 1 UTF-8.
pub const FLAGS_LE_UTF8: u32 = 3;

/// A CRC32 name hash, the key of lists, objects and parameters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(pub u32);

impl Name {
    /// The hash of a name (CRC32 of its UTF-8 bytes).
    pub fn of(name: &str) -> Self {
        Name(codec_runtime::crc32(name.as_bytes()))
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name::of(s)
    }
}

impl From<u32> for Name {
    fn from(h: u32) -> Self {
        Name(h)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name({})", self.0)
    }
}

/// The name hash of the root list.
pub const ROOT_NAME: Name = Name(0xA4F6_CB6C);

/// Decodes an AAMP v2 file.
pub fn decode(data: &[u8]) -> Result<ParameterIO, DecodeError> {
    let pio = schema::decode(data)?;
    let header_error = |offset: u64, field: &'static str, msg: String| {
        DecodeError::new(offset, ErrorKind::Invalid(msg))
            .within(PathSeg::Field(field.into()))
            .within(PathSeg::Type("File".into()))
    };
    if pio.format_version != FORMAT_VERSION {
        let msg = format!("expected AAMP version 2, found {}", pio.format_version);
        return Err(header_error(4, "format_version", msg));
    }
    if pio.flags & 1 == 0 {
        let msg = format!(
            "expected a little-endian file (flags bit 0), found flags {}",
            pio.flags
        );
        return Err(header_error(8, "flags", msg));
    }
    Ok(pio)
}

/// Encodes a parameter IO the way Nintendo's tools lay it out.
pub fn encode(pio: &ParameterIO) -> Result<Vec<u8>, EncodeError> {
    schema::encode(pio)
}

impl ParameterIO {
    /// An empty parameter IO of the given type (`xml`, `aglenv`, ...).
    pub fn new(data_type: impl Into<String>) -> Self {
        ParameterIO {
            format_version: FORMAT_VERSION,
            flags: FLAGS_LE_UTF8,
            version: 0,
            root: ParameterList::new(ROOT_NAME),
            unknown_section_size: 0,
            data_type: codec_runtime::Str::from(data_type.into()),
        }
    }
}

impl ParameterList {
    /// An empty list.
    pub fn new(name: impl Into<Name>) -> Self {
        ParameterList {
            name: name.into().0,
            lists: Vec::new(),
            objects: Vec::new(),
        }
    }

    /// The first child list with this name.
    pub fn list(&self, name: impl Into<Name>) -> Option<&ParameterList> {
        let n = name.into().0;
        self.lists.iter().find(|l| l.name == n)
    }

    pub fn list_mut(&mut self, name: impl Into<Name>) -> Option<&mut ParameterList> {
        let n = name.into().0;
        self.lists.iter_mut().find(|l| l.name == n)
    }

    /// The first object with this name.
    pub fn object(&self, name: impl Into<Name>) -> Option<&ParameterObject> {
        let n = name.into().0;
        self.objects.iter().find(|o| o.name == n)
    }

    pub fn object_mut(&mut self, name: impl Into<Name>) -> Option<&mut ParameterObject> {
        let n = name.into().0;
        self.objects.iter_mut().find(|o| o.name == n)
    }

    /// Builder: appends a child list.
    pub fn with_list(mut self, list: ParameterList) -> Self {
        self.lists.push(list);
        self
    }

    /// Builder: appends an object.
    pub fn with_object(mut self, object: ParameterObject) -> Self {
        self.objects.push(object);
        self
    }
}

impl ParameterObject {
    /// An empty object.
    pub fn new(name: impl Into<Name>) -> Self {
        ParameterObject {
            name: name.into().0,
            params: Vec::new(),
        }
    }

    /// The value of the first parameter with this name.
    pub fn get(&self, name: impl Into<Name>) -> Option<&ParameterValue> {
        let n = name.into().0;
        self.params.iter().find(|p| p.name == n).map(|p| &p.value)
    }

    pub fn get_mut(&mut self, name: impl Into<Name>) -> Option<&mut ParameterValue> {
        let n = name.into().0;
        self.params
            .iter_mut()
            .find(|p| p.name == n)
            .map(|p| &mut p.value)
    }

    /// Sets a parameter: replaces the value of the first one with this name,
    /// or appends a new one.
    pub fn set(&mut self, name: impl Into<Name>, value: ParameterValue) {
        let n = name.into().0;
        match self.params.iter_mut().find(|p| p.name == n) {
            Some(p) => p.value = value,
            None => self.params.push(Parameter { name: n, value }),
        }
    }

    /// Builder: sets a parameter (see [`ParameterObject::set`]).
    pub fn with(mut self, name: impl Into<Name>, value: ParameterValue) -> Self {
        self.set(name, value);
        self
    }
}
