//! The schema model as written in RON. Every item carries a name, a type and
//! a doc line, in file order, so a schema reads like the wiki table it
//! replaces. See `docs/schema-language.md` for the language with examples.

use serde::Deserialize;

/// One binary format.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    /// Short name (`aamp`); also the name of the generated module's docs.
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// Byte order of the whole file.
    pub endian: Endian,
    /// The type the file starts with, at offset 0.
    pub root: String,
    /// Where out-of-line data goes on encode, in file order.
    #[serde(default)]
    pub sections: Vec<Section>,
    /// The file's length is padded to a multiple of this.
    #[serde(default = "one")]
    pub end_align: u64,
    /// Structs and unions, in any order; referenced by name.
    pub types: Vec<TypeDef>,
}

fn one() -> u64 {
    1
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// A region of the output that the writer fills in one pass.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Section {
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// The section starts at a multiple of this, and ends padded to it.
    #[serde(default = "one")]
    pub align: u64,
    /// Each value placed in the section starts at a multiple of this.
    #[serde(default = "one")]
    pub item_align: u64,
    /// The order in which the writer visits the typed tree to place what
    /// belongs to this section.
    #[serde(default)]
    pub order: Order,
    /// How placed values share bytes.
    #[serde(default)]
    pub dedup: Dedup,
}

/// How the writer walks the tree to fill a section.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub enum Order {
    /// At each record: first place what its own offsets point to (in field
    /// order), then descend into the targets.
    #[default]
    PreOrder,
    /// At each record: first descend into the targets, then place what its
    /// own offsets point to.
    PostOrder,
    /// A named Rust function of the format's glue yields the records of type
    /// `visits` in the order their targets are placed; each is then visited
    /// pre-order.
    Hook { name: String, visits: String },
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
pub enum Dedup {
    #[default]
    None,
    /// Identical values (byte for byte) are written once.
    Exact,
    /// A value reuses equal bytes anywhere at an aligned position.
    ByteSearch { align: u64 },
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum TypeDef {
    Struct(StructDef),
    Union(UnionDef),
}

impl TypeDef {
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct(s) => &s.name,
            TypeDef::Union(u) => &u.name,
        }
    }

    pub fn doc(&self) -> &str {
        match self {
            TypeDef::Struct(s) => &s.doc,
            TypeDef::Union(u) => &u.doc,
        }
    }
}

/// A record: fields in file order.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StructDef {
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// The record's size in bytes, when it is fixed; checked against the fields.
    #[serde(default)]
    pub size: Option<u64>,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Type,
    #[serde(default)]
    pub doc: String,
    /// The value is computed on encode, and not kept in the typed value.
    #[serde(default)]
    pub derive: Option<Derive>,
    /// Is the field's meaning still unknown? `None` follows the naming
    /// convention (see [`Field::is_unknown`]); `true` or `false` overrides it.
    /// Only the research tools read it (coverage, dump, docs).
    #[serde(default)]
    pub unknown: Option<bool>,
}

impl Field {
    /// Does the schema declare this field's meaning unknown? Explicitly with
    /// `unknown: true`, or by name: `unknown`, `unk`, or a name starting with
    /// `unknown_` or `unk_` (`unknown_0x2c`), unless `unknown: false`.
    pub fn is_unknown(&self) -> bool {
        self.unknown.unwrap_or_else(|| is_unknown_name(&self.name))
    }
}

/// The naming convention for fields (and bit ranges) whose meaning is not
/// known yet: `unknown`, `unk`, `unknown_*`, `unk_*`.
pub fn is_unknown_name(name: &str) -> bool {
    name == "unknown" || name == "unk" || name.starts_with("unknown_") || name.starts_with("unk_")
}

/// Field types.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum Type {
    U8,
    U16,
    U24,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    /// A bool stored in one byte (0 or 1).
    Bool8,
    /// A bool stored in a u32 (0 or 1).
    Bool32,
    /// Fixed bytes the file must contain (`Magic("AAMP")`).
    Magic(String),
    /// Opaque bytes of a fixed length, kept verbatim.
    Bytes(u64),
    /// A NUL-terminated UTF-8 string; `max` bounds it (NUL included); the
    /// bytes after the NUL are padded to `pad` when the string is written.
    CString {
        #[serde(default)]
        max: Option<u64>,
        #[serde(default)]
        pad: Option<u64>,
    },
    /// Another struct, inline.
    Named(String),
    /// A fixed number of elements, inline.
    Array {
        of: Box<Type>,
        len: u64,
    },
    /// A word split into named bit ranges, low bits first; only a direct
    /// field of a struct (codegen names its struct `<Owner><Field>`).
    Bits {
        word: Box<Type>,
        fields: Vec<BitField>,
    },
    /// An offset to data placed elsewhere.
    Ptr(Box<Ptr>),
    /// A variable number of elements; only behind an offset or as a union
    /// payload. `count` says where the number is stored.
    List {
        of: Box<Type>,
        count: Box<Count>,
    },
    /// One variant of a union, chosen by a sibling tag field; only behind an
    /// offset.
    Switch {
        union: String,
        tag: String,
    },
}

/// A named range of bits inside a word.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BitField {
    pub name: String,
    pub bits: u32,
    #[serde(default)]
    pub doc: String,
}

/// An offset field and what it points to.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ptr {
    /// The stored integer: `U8`, `U16`, `U24`, `U32` or `U64`.
    pub width: Type,
    /// The stored value is the distance divided by this.
    #[serde(default = "one")]
    pub scale: u64,
    /// What the distance is measured from.
    #[serde(default)]
    pub base: Base,
    pub to: Type,
    /// The section the target is placed in on encode (unions name it per variant).
    #[serde(default)]
    pub section: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub enum Base {
    /// The start of the file.
    #[default]
    File,
    /// A fixed file position (`Absolute(0x30)`).
    Absolute(u64),
    /// The start of the record that holds the offset.
    Record,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum Count {
    /// A sibling field holds the count (derived on encode).
    Field(String),
    /// The count is stored just before the address the offset points to.
    Before(Type),
    /// The count is stored at the address, followed by the elements.
    Prefix(Type),
}

/// How a derived field is computed on encode.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum Derive {
    /// The number of elements of a sibling `Vec` offset field.
    Count(String),
    /// The tag of the union variant held by a sibling `Switch` offset field.
    Tag(String),
    /// The length of the output.
    FileSize,
    /// How many records of a type the file holds.
    RecordCount(String),
    /// The length of a section.
    SectionSize(String),
}

/// A tagged union: the tag value chooses the payload.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UnionDef {
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// The tag's type: `U8`, `U16`, `U24`, `U32` or `U64`; the sibling tag
    /// field of every `Switch` on this union has the same type width.
    pub tag: Type,
    pub variants: Vec<Variant>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub name: String,
    pub tag: u64,
    #[serde(rename = "type")]
    pub ty: Type,
    #[serde(default)]
    pub doc: String,
    /// The section the payload is placed in, when the union is an offset target.
    #[serde(default)]
    pub section: Option<String>,
    /// Each placed payload starts at a multiple of this (overrides the section's).
    #[serde(default)]
    pub align: Option<u64>,
}
