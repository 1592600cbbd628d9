//! AAMP v2 (Breath of the Wild parameter archives).
//!
//! The binary layout is generated from `schemas/aamp.ron`; this module adds
//! the document model (ordered maps keyed by name hash) and the one ordering
//! rule the schema cannot declare ([`glue::data_order`]).

pub mod glue;

/// The codec generated from `schemas/aamp.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/aamp.ron", hooks = super::glue);
}

use codec_runtime::{DecodeError, EncodeError, ErrorKind, PathSeg};
use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use std::fmt;

pub use schema::{Curve, ParameterValue as Parameter};

/// The magic at offset 0.
pub const MAGIC: &[u8; 4] = b"AAMP";

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

/// An ordered map keyed by name hash; file order is insertion order.
pub type NameMap<V> = IndexMap<Name, V, FxBuildHasher>;

/// The whole file: the parameter IO.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterIO {
    /// The parameter IO's own version (not the format's).
    pub version: u32,
    /// The parameter IO's type (`xml`, `aglenv`, ...).
    pub data_type: String,
    /// The root list, `param_root`.
    pub root: ParameterList,
}

/// A list: child lists and objects, each in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterList {
    pub lists: NameMap<ParameterList>,
    pub objects: NameMap<ParameterObject>,
}

/// An object: parameters in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParameterObject(pub NameMap<Parameter>);

/// The name hash of the root list.
pub const ROOT_NAME: Name = Name(0xA4F6_CB6C);

/// Format version written in the header.
const FORMAT_VERSION: u32 = 2;
/// Header flags: little endian | UTF-8.
const FLAGS_LE_UTF8: u32 = 3;

/// Decodes an AAMP v2 file.
pub fn decode(data: &[u8]) -> Result<ParameterIO, DecodeError> {
    let file = schema::decode(data)?;
    if file.version != FORMAT_VERSION {
        return Err(DecodeError::new(
            4,
            ErrorKind::Invalid(format!("expected AAMP version 2, found {}", file.version)),
        )
        .within(PathSeg::Field("version"))
        .within(PathSeg::Type("File")));
    }
    if file.flags != FLAGS_LE_UTF8 {
        return Err(DecodeError::new(
            8,
            ErrorKind::Invalid(format!(
                "expected flags 3 (little endian, UTF-8), found {}",
                file.flags
            )),
        )
        .within(PathSeg::Field("flags"))
        .within(PathSeg::Type("File")));
    }
    let root = list_from(file.root).map_err(|e| {
        e.within(PathSeg::Field("root"))
            .within(PathSeg::Type("File"))
    })?;
    Ok(ParameterIO {
        version: file.pio_version,
        data_type: file.type_name,
        root,
    })
}

/// Encodes a parameter IO the way Nintendo's tools lay it out.
pub fn encode(pio: &ParameterIO) -> Result<Vec<u8>, EncodeError> {
    let file = schema::File {
        version: FORMAT_VERSION,
        flags: FLAGS_LE_UTF8,
        pio_version: pio.version,
        root: list_to(ROOT_NAME, &pio.root),
        unknown_section_size: 0,
        type_name: pio.data_type.clone(),
    };
    schema::encode(&file)
}

fn duplicate(kind: &'static str, name: u32) -> DecodeError {
    DecodeError::new(
        0,
        ErrorKind::Invalid(format!(
            "two {kind} share the name hash {name}; the document keeps one entry per name"
        )),
    )
}

fn list_from(l: schema::ParameterList) -> Result<ParameterList, DecodeError> {
    let mut out = ParameterList {
        lists: NameMap::with_capacity_and_hasher(l.lists.len(), FxBuildHasher),
        objects: NameMap::with_capacity_and_hasher(l.objects.len(), FxBuildHasher),
    };
    for (i, c) in l.lists.into_iter().enumerate() {
        let name = c.name;
        let child = list_from(c).map_err(|e| e.at_index(i).in_field("lists"))?;
        if out.lists.insert(Name(name), child).is_some() {
            return Err(duplicate("lists", name).at_index(i).in_field("lists"));
        }
    }
    for (i, o) in l.objects.into_iter().enumerate() {
        let mut params = NameMap::with_capacity_and_hasher(o.params.len(), FxBuildHasher);
        for (j, p) in o.params.into_iter().enumerate() {
            if params.insert(Name(p.name), p.value).is_some() {
                return Err(duplicate("parameters", p.name)
                    .at_index(j)
                    .in_field("params")
                    .at_index(i)
                    .in_field("objects"));
            }
        }
        if out
            .objects
            .insert(Name(o.name), ParameterObject(params))
            .is_some()
        {
            return Err(duplicate("objects", o.name).at_index(i).in_field("objects"));
        }
    }
    Ok(out)
}

fn list_to(name: Name, l: &ParameterList) -> schema::ParameterList {
    schema::ParameterList {
        name: name.0,
        lists: l.lists.iter().map(|(n, c)| list_to(*n, c)).collect(),
        objects: l
            .objects
            .iter()
            .map(|(n, o)| schema::ParameterObject {
                name: n.0,
                params: o
                    .0
                    .iter()
                    .map(|(pn, v)| schema::Parameter {
                        name: pn.0,
                        value: v.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}
