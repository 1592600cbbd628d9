//! The schema model as written in RON. Every item carries a name, a type and
//! a doc line, in file order, so a schema reads like the wiki table it
//! replaces. See `docs/schema-language.md` for the language with examples.

use serde::Deserialize;
use std::collections::BTreeMap;

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
    /// Switches that variants turn on or off; fields and union variants name
    /// them in `when`.
    #[serde(default)]
    pub features: Vec<FeatureDef>,
    /// Numbers that variants may change; construct slots name them with
    /// `Param("name")`.
    #[serde(default)]
    pub params: Vec<ParamDef>,
    /// The variants of the format (games, versions), each an overlay on the
    /// schema as written; the first one is the default.
    #[serde(default)]
    pub variants: Vec<VariantDef>,
}

/// A feature: a switch a variant turns on.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FeatureDef {
    pub name: String,
    #[serde(default)]
    pub doc: String,
}

/// A named number with its default value.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ParamDef {
    pub name: String,
    pub value: u64,
    #[serde(default)]
    pub doc: String,
}

/// One variant: an overlay on the schema as written (or on the variant it
/// `extends`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VariantDef {
    /// An identifier; also the name of the generated `Variant` enum's variant.
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// Start from this variant's overlay instead of the schema as written.
    #[serde(default)]
    pub extends: Option<String>,
    /// The byte order, when it differs.
    #[serde(default)]
    pub endian: Option<Endian>,
    /// Features turned on.
    #[serde(default)]
    pub enable: Vec<String>,
    /// Features turned off (inherited from `extends`).
    #[serde(default)]
    pub disable: Vec<String>,
    /// Params given another value.
    #[serde(default)]
    pub params: BTreeMap<String, u64>,
    /// Layout values of sections, by section name.
    #[serde(default)]
    pub sections: BTreeMap<String, SectionPatch>,
}

/// New layout values for a section; unset keys keep theirs.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SectionPatch {
    #[serde(default)]
    pub align: Option<u64>,
    #[serde(default)]
    pub item_align: Option<u64>,
    #[serde(default)]
    pub pad: Option<u64>,
    #[serde(default)]
    pub end_align: Option<u64>,
}

/// A number written literally or as a param (`Param("row_align")`), whose
/// value the variant decides.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Num {
    Lit(u64),
    Param(ParamRef),
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub enum ParamRef {
    Param(String),
}

impl Num {
    /// The literal value (params are replaced by their values in a variant's
    /// concrete schema, so every `Num` a checked schema holds is literal).
    pub fn value(&self) -> u64 {
        match self {
            Num::Lit(n) => *n,
            Num::Param(_) => 0,
        }
    }
}

/// A yes/no written literally or as a feature condition (`"feature"`,
/// `"!feature"`) that the variant decides.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Flag {
    Lit(bool),
    When(String),
}

impl Flag {
    /// The literal value (resolved in a variant's concrete schema).
    pub fn value(&self) -> bool {
        matches!(self, Flag::Lit(true))
    }
}

/// How a struct lays itself out as a unit: a self-contained block with its
/// own sections, whose offsets count from its start (`Base::Unit`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// The unit's sections, in file order, after the struct's own record.
    pub sections: Vec<Section>,
    /// The unit's length is padded to a multiple of this.
    #[serde(default = "one")]
    pub end_align: u64,
    /// Glue that turns the unit's stored bytes into plain ones and back.
    #[serde(default)]
    pub transform: Option<Transform>,
}

/// A pair of glue functions applied to a unit's bytes: `decode` before the
/// unit is read (descrambling, say), `encode` after it is laid out.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Transform {
    pub decode: String,
    pub encode: String,
}

fn one() -> u64 {
    1
}

fn num_one() -> Num {
    Num::Lit(1)
}

impl Default for Flag {
    fn default() -> Self {
        Flag::Lit(false)
    }
}

/// How a string's characters are stored.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// One to four bytes a character; ended by a zero byte.
    #[default]
    Utf8,
    /// Two-byte units in the file's byte order (surrogate pairs past
    /// U+FFFF); ended by a zero unit.
    Utf16,
    /// One four-byte unit a character, in the file's byte order; ended by
    /// a zero unit.
    Utf32,
}

impl Encoding {
    /// The width of one code unit, in bytes.
    pub fn unit(self) -> u64 {
        match self {
            Encoding::Utf8 => 1,
            Encoding::Utf16 => 2,
            Encoding::Utf32 => 4,
        }
    }
}

/// A schema's byte order is the runtime's ([`codec_runtime::Endian`]).
pub use codec_runtime::Endian;

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
    /// The section's length is padded to a multiple of this, counted from
    /// its start.
    #[serde(default = "one")]
    pub pad: u64,
    /// Then its end is padded to a multiple of this (from the file's or the
    /// unit's start).
    #[serde(default = "one")]
    pub end_align: u64,
    /// The section's values (strings, one form) are laid out again in this
    /// order once the walk that places them ends, and every offset to them
    /// follows (`codec_runtime::sorted_values`).
    #[serde(default)]
    pub sort: Option<SortRule>,
}

/// The order of a sorted section's strings.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum SortRule {
    /// By their bytes.
    Bytes,
    /// From the last byte towards the first, each byte from its lowest bit
    /// (NintendoWare's string pools; the empty string first).
    ReversedBits,
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
    /// Depth first: at each record, for each of its offsets in turn (in
    /// field order, list elements in the value's order), place the target
    /// and at once visit it, before the next offset.
    DepthFirst,
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
    /// Records equal as whole subtrees (their fields, and what their offsets
    /// lead to, compared by value) are written once: the first is placed,
    /// the others point at it, and no walk descends into them again.
    Shared,
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
    /// The struct is a unit with its own sections.
    #[serde(default)]
    pub layout: Option<Layout>,
    /// The order the writer places what this record's fields lead to, when
    /// it is not field order: these fields first, in this order, then the
    /// others in field order (an event flow's switch places its case table
    /// before its parameters, though the parameters' offset comes first).
    #[serde(default)]
    pub place: Vec<String>,
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
    /// The field exists only in variants where this feature condition holds
    /// (`"feature"` or `"!feature"`).
    #[serde(default)]
    pub when: Option<String>,
    /// What the field means to a row region (`Rows`).
    #[serde(default)]
    pub role: Option<Role>,
    /// For a derived field: does decode reject a file whose stored value
    /// differs from the real one? Only the file size is verified.
    #[serde(default = "yes")]
    pub verify: bool,
    /// While the record's offsets are followed on decode, the field's value
    /// is in the context that `Select` hooks see (an unsigned integer).
    #[serde(default)]
    pub context: bool,
    /// For a list field: on encode, the elements are written in the order
    /// of this field of theirs, smallest first: a derived `KeyHash`, an
    /// `Index` (by its string's bytes) or a stored unsigned integer. Equal
    /// keys keep the document's order. Decode keeps the file's order.
    #[serde(default)]
    pub sort_by: Option<String>,
    /// The bytes this field leads to are a file of another format (an
    /// archive's member): the research tools and `codec` open them by magic.
    #[serde(default)]
    pub embedded: bool,
    /// The field's `Bytes(n)` hold a value of this Rust type (a path), read
    /// and written by its `codec_runtime::External` implementation: a
    /// hand-written or deku-derived type standing in the schema.
    #[serde(default)]
    pub external: Option<String>,
    /// For a field inside a record: it starts at a multiple of this, counted
    /// from the record's start (zeros before it).
    #[serde(default)]
    pub align: Option<u64>,
    /// For a field inside a record placed behind an offset: the record is
    /// placed so that this field starts at a multiple of the value of the
    /// record's integer field named here (a stored alignment).
    #[serde(default)]
    pub align_by: Option<String>,
    /// For a sorted list (`sort_by`): in what order the elements' targets
    /// are placed. `Written` (the default) follows the sorted order;
    /// `Document` follows the order the value holds, which decode recovers
    /// from where the targets lie in the file.
    #[serde(default)]
    pub visit: Visit,
    /// For a field holding a unit (a struct with a `layout`) inline: the
    /// sibling field named here holds the unit's length in bytes (`derive:
    /// Size(<this field>)`). Decode reads the unit within those bytes (its
    /// lists up to the next target end at its end); encode lays it out and
    /// stores its length. A block of a chain of sized blocks (MSBT's LBL1,
    /// TXT2) is such a field.
    #[serde(default)]
    pub size: Option<String>,
    /// For a list of a union's values (`List(of: Switch(..))`): a list of at
    /// most four elements, each one of the union's word-sized leaves (a
    /// 32-bit integer or float, a `Bool32`, a 4-byte `Magic`), is held in
    /// the list itself, without an allocation (`codec_runtime::InlineList`).
    /// For documents of many small containers; the file is the same.
    #[serde(default)]
    pub inline: bool,
}

/// The order in which a sorted list's targets are placed.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
pub enum Visit {
    #[default]
    Written,
    Document,
}

fn yes() -> bool {
    true
}

/// The part a column record's field plays in describing a row's cells.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum Role {
    /// The cell type: the tag of the cell union's variant.
    CellType,
    /// How many cells of the type follow each other (an array column).
    CellCount,
}

impl Field {
    /// Does the schema declare this field's meaning unknown? Explicitly with
    /// `unknown: true`, or by name: `unknown`, `unk`, or a name starting with
    /// `unknown_` or `unk_` (`unknown_0x2c`), unless `unknown: false`.
    pub fn is_unknown(&self) -> bool {
        self.unknown.unwrap_or_else(|| {
            is_unknown_name(&self.name) || (self.doc.trim().is_empty() && is_blob(&self.ty))
        })
    }
}

/// Bytes kept as they are (`Bytes`, a list or array of `u8`, or an offset
/// to one): unknown unless a doc says what they hold, whatever the field's
/// name (a blob named `tail` explains nothing).
fn is_blob(t: &Type) -> bool {
    match t {
        Type::Bytes(_) => true,
        Type::List { of, .. } | Type::Array { of, .. } => matches!(**of, Type::U8),
        Type::Ptr(p) => is_blob(&p.to),
        _ => false,
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
    /// Padding up to the next multiple of `align` bytes from the record's
    /// start, every byte the same. Held as that byte (a `u8`): decode keeps
    /// the byte it finds (`fill` when there is no padding), so a file padded
    /// with another byte is written back as it was; bytes that differ from
    /// each other are an error.
    Pad {
        align: u64,
        #[serde(default)]
        fill: u8,
    },
    /// A NUL-terminated string; `max` bounds it (NUL included); the
    /// bytes after the NUL are padded to `pad` when the string is written
    /// (both in bytes). With `lossless`, bytes that are not UTF-8 are kept
    /// as bytes. `encoding`: UTF-8 (the default), or UTF-16 or UTF-32 in
    /// the file's byte order, ended by a zero unit of the same width.
    /// `size`: the string fills a field of that many bytes, zeros after its
    /// end (a value of fixed size, unlike the others).
    CString {
        #[serde(default)]
        size: Option<u64>,
        #[serde(default)]
        max: Option<u64>,
        #[serde(default)]
        pad: Option<u64>,
        #[serde(default)]
        lossless: bool,
        #[serde(default)]
        encoding: Encoding,
    },
    /// Text with control records inside: code units in `encoding` (the
    /// file's byte order) up to the next position an offset leads to (or
    /// the unit's end), the last one a zero unit. A unit equal to the tag
    /// of a variant of `tags` (a union with `inline_tag`, its tag as wide
    /// as a unit) opens that variant's record; every other unit is text.
    /// Held as a list of parts: runs of text (strings) and records (the
    /// union's values), the final zero left out. MSBT's messages. With
    /// `lossless`, a run whose units are no text is kept as its bytes (the
    /// part `Text::Bytes`), not refused.
    Text {
        #[serde(default)]
        tags: Option<String>,
        #[serde(default)]
        encoding: Encoding,
        #[serde(default)]
        lossless: bool,
    },
    /// A table of hash slots, a record's field: `slots` (a sibling integer
    /// field) pairs of (count, offset), both `width`, each offset (from
    /// `base`) leading to its slot's records of struct `of`, back to back
    /// in section `section`; a record sits in slot `hash(key) mod slots`.
    /// Held as the records in the file's order; encode groups them by slot
    /// (keeping their order within a slot) and derives the pairs; decode
    /// refuses a record in a slot its key does not name. MSBT's LBL1.
    HashSlots {
        of: String,
        key: String,
        slots: String,
        hash: SlotHash,
        #[serde(default = "u32_type")]
        width: Box<Type>,
        #[serde(default)]
        base: Base,
        section: String,
        /// How many slots a document that does not say gets (its slot
        /// count left out of the generic form); without a rule the count
        /// must be given.
        #[serde(default)]
        rule: Option<SlotRule>,
    },
    /// A string stored as its length in bytes (`len`, an unsigned integer)
    /// then its code units in `encoding` (the file's byte order), with no
    /// end mark. MSBT's labels: `PString(len: U8)`. With `nul: true`, a
    /// NUL unit follows the counted ones (NintendoWare's string pools).
    PString {
        len: Box<Type>,
        #[serde(default)]
        encoding: Encoding,
        #[serde(default)]
        nul: bool,
    },
    /// A fixed-point number, kept as its raw integer: value = raw / 2^frac.
    Fixed {
        raw: Box<Type>,
        frac: u32,
    },
    /// An offset to a record of struct `to` that the unit holds elsewhere;
    /// the value is that record's ordinal among the unit's `to` records.
    Ref {
        width: Box<Type>,
        #[serde(default)]
        base: Base,
        #[serde(default = "one")]
        scale: u64,
        to: String,
    },
    /// A hash index over the records of struct `of` (only behind an offset,
    /// which is then not kept): `slots` heads (the sibling field `slots`
    /// holds their number), each the offset of the first record whose key
    /// field hashes (glue `hook`) to it, chained through each record's
    /// `next` field.
    Hash {
        of: String,
        key: String,
        next: String,
        slots: String,
        hook: String,
        width: Box<Type>,
        #[serde(default)]
        base: Base,
        /// Does a record become its chain's head (else it is appended)?
        #[serde(default)]
        prepend: Flag,
    },
    /// Rows whose cells are described by column records (only behind an
    /// offset): each record with a `CellOffset` field gives a cell type
    /// (`role: CellType`), a count (`role: CellCount`) and an offset in the
    /// row; the union `cells` reads a cell of a type.
    Rows {
        cells: String,
        count: Box<Count>,
        #[serde(default = "num_one")]
        stride_align: Num,
    },
    /// A target without a stored offset: it starts where the target of the
    /// sibling offset field `after` ends, in the same section.
    Follows {
        after: String,
        to: Box<Type>,
        section: String,
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
    /// One variant of a union held as a value word whose tag is stored
    /// apart: `tag` names a sibling field (`derive: Tag`), or a sibling list
    /// of tags for a list of Switch words (`derive: Tags`), or, written
    /// `"types[i]"`, element *i* of the list `types` of the record holding
    /// this one in its list (see [`held_tag_list`]).
    Switch {
        union: String,
        tag: String,
    },
    /// One variant of a union, chosen on decode by the glue function `hook`
    /// from the decoding context (`codec_runtime::SelectCx`: the enclosing
    /// records' context fields, the element's group and position, the bytes
    /// up to the next offset target); only behind an offset. Encode writes
    /// the variant the value holds.
    Select {
        union: String,
        hook: String,
    },
    /// A string held as its text, stored as an offset from the start of the
    /// string pool placed in section `pool`.
    Str {
        pool: String,
        #[serde(default = "u32_type")]
        width: Box<Type>,
    },
    /// A string pool: NUL-terminated strings back to back, up to the next
    /// offset target (or the end of the data); only behind an offset. Held
    /// as the ordered list of its strings (`codec_runtime::StringPool`).
    Pool {},
    /// `groups` lists stored as `groups` (count, base) pairs followed by all
    /// their elements back to back; a struct field. The pairs are derived:
    /// each base is the number of elements of the groups before it.
    Groups {
        of: Box<Type>,
        groups: u64,
        count: Box<Type>,
        base: Box<Type>,
    },
    /// A string held as its text, stored as its index in the sorted string
    /// table the root's field `table` leads to (that field has
    /// `derive: Interned`).
    Index {
        table: String,
        #[serde(default = "u32_type")]
        width: Box<Type>,
    },
    /// A choice of the file's writer, found on decode and kept in the
    /// document; it takes no bytes. Held as a `bool`: does the writer write
    /// each group of equal records of `section` (a `dedup: Shared` section)
    /// once? Decode says yes when the file points twice at one record of the
    /// section; encode shares equal records only when it is true. A file
    /// without equal records comes back the same either way, so the only
    /// files that tell are those that store equal records apart (TotK's
    /// `.bgyml` files) or point twice at one. A field of the root struct,
    /// after its offsets.
    SharesEqual {
        section: String,
    },
    /// A sorted string table's body, a record's field: `count + 1` offsets
    /// (the sibling field `count` holds `count`) counted from the record's
    /// start, the last one where the strings end, then the strings,
    /// NUL-terminated, sorted by their bytes. Held as the list of strings.
    Table {
        count: String,
        #[serde(default = "u32_type")]
        offsets: Box<Type>,
    },
}

fn u32_type() -> Box<Type> {
    Box::new(Type::U32)
}

/// The bytes a `Magic` literal stands for: each character one byte, so that
/// `"\u{FE}\u{FF}"` is the two bytes FE FF (a byte-order mark). Characters
/// above U+00FF are refused by the checker.
/// For a `Switch` tag written `"types[i]"`: the holder's list of tags
/// (`types`). `None` for a sibling tag field.
pub fn held_tag_list(tag: &str) -> Option<&str> {
    tag.strip_suffix("[i]")
}

/// For `derive: Tags(...)`: the sibling list whose tags the field holds and,
/// for `"entries.value"`, the `Switch` field of its elements.
pub fn tags_source(of: &str) -> (&str, Option<&str>) {
    match of.split_once('.') {
        Some((list, field)) => (list, Some(field)),
        None => (of, None),
    }
}

pub fn magic_bytes(m: &str) -> Vec<u8> {
    m.chars().map(|c| c as u32 as u8).collect()
}

/// A magic as text: quoted when ASCII (`"SARC"`), else its bytes in hex
/// (`FF FE`, a byte-order mark).
pub fn magic_label(m: &str) -> String {
    if is_readable_magic(m) {
        format!("{m:?}")
    } else {
        let hex: Vec<String> = magic_bytes(m).iter().map(|b| format!("{b:02X}")).collect();
        hex.join(" ")
    }
}

/// Is magic `m` best shown as text (printable ASCII, not only blanks), or
/// else as its bytes in hex?
pub fn is_readable_magic(m: &str) -> bool {
    m.bytes().all(|b| b.is_ascii_graphic() || b == b' ') && m.bytes().any(|b| b.is_ascii_graphic())
}

/// A piece of a layout root, for finding where its first section starts
/// (see `Checked::first_section_parts`).
#[derive(Debug, Clone, PartialEq)]
pub enum RootPart {
    Fixed(u64),
    Counted {
        count_at: u64,
        width: Type,
        elem: u64,
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
    /// The range holds an offset into the string pool placed in this
    /// section, and is held as the string's text.
    #[serde(default)]
    pub str: Option<String>,
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
    /// A stored 0 means "no target" (`Option` in Rust).
    #[serde(default)]
    pub optional: bool,
    /// `Kept(hook: "h")`: each target's alignment is kept in the document
    /// (`codec_runtime::Aligned`), found on decode from its position; a
    /// value without one (0) gets glue `h`'s choice on encode.
    #[serde(default)]
    pub align: Option<KeptAlign>,
}

impl Ptr {
    /// Where an offset held in a union payload counts from: there is no
    /// record around it, so every base but an absolute one is the file's
    /// start (the checker refuses `Record` and `Section` there).
    pub fn payload_base(&self) -> u64 {
        match self.base {
            Base::Absolute(n) => n,
            _ => 0,
        }
    }
}

/// The hash of a `HashSlots` table's keys.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum SlotHash {
    /// `h = h × m + byte` over the key's bytes, modulo 2^32 (MSBT's labels:
    /// `MulAdd(0x492)`).
    MulAdd(u64),
}

/// The slot count of a new table of hash slots, from its number of records.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub enum SlotRule {
    /// The smallest prime `p` with `ratio × p` above the number of records,
    /// at most `max` (MSBT: `PrimeAbove(ratio: 2, max: 101)`).
    PrimeAbove { ratio: u64, max: u64 },
}

impl SlotRule {
    /// The slot count for `records` records.
    pub fn slots(self, records: u64) -> u64 {
        match self {
            SlotRule::PrimeAbove { ratio, max } => {
                codec_runtime::slots::prime_slots(records, ratio, max)
            }
        }
    }
}

/// Where a target's alignment comes from when it is kept per value.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum KeptAlign {
    /// Found on decode, written back on encode; glue `hook` chooses one for a
    /// value that has none (a new value).
    Kept { hook: String },
}

impl KeptAlign {
    pub fn hook(&self) -> &str {
        match self {
            KeptAlign::Kept { hook } => hook,
        }
    }
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
    /// The start of the unit (a struct with a `layout`) that holds the record.
    Unit,
    /// The start of a section of the layout: found on decode from the root's
    /// `SectionStart` field, or, for the layout's first section, where the
    /// root record ends.
    Section(String),
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum Count {
    /// A sibling field holds the count (derived on encode).
    Field(String),
    /// The count is stored just before the address the offset points to.
    Before(Type),
    /// The count is stored at the address, followed by the elements.
    Prefix(Type),
    /// Elements follow each other up to the next position an offset of the
    /// unit leads to (or the end of the unit).
    ToNext,
    /// The sum of several earlier fields of the record (paths such as
    /// `header.count`); for lists inline in a record.
    Sum(Vec<String>),
    /// The list runs to the position the sibling field holds (same base and
    /// scale as the offset; the field has `derive: End(<offset field>)`): a
    /// (start, end) pair.
    End(String),
}

/// How a derived field is computed on encode.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub enum Derive {
    /// The number of elements of a sibling `Vec` offset field.
    Count(String),
    /// The number of elements of the list field `of` summed over the
    /// elements of the sibling list `list` (an event flow's action count:
    /// every actor's actions together).
    Total { list: String, of: String },
    /// The tag of the union variant held by a sibling `Switch` field.
    Tag(String),
    /// A list of tags, one per element of the sibling list of `Switch`
    /// values: the tags stored apart from their values. Written
    /// `"entries.value"`, the tags of the `Switch` field `value` of each
    /// element of the sibling list `entries` (whose `Switch` names this list
    /// as `tag: "types[i]"`).
    Tags(String),
    /// The offset of a sorted string table built on encode from every
    /// `Index` that names this field (0 when there is none); not kept in
    /// the typed value. Decode reads the table to resolve the indices.
    Interned,
    /// The length of the output.
    FileSize,
    /// How many records of a type the file holds.
    RecordCount(String),
    /// The length of a section.
    SectionSize(String),
    /// Where a section ends (its end padding included), counted from the
    /// start of the file (of the unit, in a unit).
    SectionEnd(String),
    /// How many strings a sorted section holds, the empty one not counted
    /// (a NintendoWare pool's count).
    SortedStrings(String),
    /// Where a section starts.
    SectionStart(String),
    /// A glue function's checksum of the laid-out bytes from `from` to the
    /// end of section `to`, computed before the unit's transform.
    Checksum { hook: String, from: u64, to: String },
    /// The row length of the sibling `Rows` offset field.
    Stride(String),
    /// The offset in a row of the cells this column record describes;
    /// `cells` is the cell union (for the cells' sizes).
    CellOffset(String),
    /// The offset of the next record in this record's hash chain.
    HashNext,
    /// Where the target of the sibling offset field ends, counted like the
    /// offset (the end of a (start, end) pair).
    End(String),
    /// The length in bytes of the sibling field that names this one as its
    /// `size` (a unit laid out inline).
    Size(String),
    /// Where the record holding this field ends: its start plus its size
    /// (a record of fixed size), counted from the start of the file (of the
    /// unit, in a unit), as offsets of `base: File` are. A block's stored
    /// "end of this block" pointer (AINB's attachment parameter blocks).
    RecordEnd,
    /// Glue `hook(key bytes, seed) -> u64` over the record's string field
    /// `key`; `seed` is a stored integer field of the record that holds the
    /// list of these records. Written by that list (see `sort_by`).
    KeyHash {
        hook: String,
        key: String,
        seed: String,
    },
}

/// A tagged union: the tag value chooses the payload.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UnionDef {
    pub name: String,
    #[serde(default)]
    pub doc: String,
    /// The tag is stored in front of the payload, so the union can stand
    /// wherever a struct can (a field, a target, an element).
    #[serde(default)]
    pub inline_tag: bool,
    /// The tag is not stored apart: it is the first bytes of each variant's
    /// payload (a struct that starts with the tag as its `Magic`), so the
    /// union can stand wherever a struct can and the variants are told apart
    /// by their magics.
    #[serde(default)]
    pub peek: bool,
    /// The tag's type: `U8`, `U16`, `U24`, `U32` or `U64`; the sibling tag
    /// field of every `Switch` on this union has the same type width.
    pub tag: Type,
    pub variants: Vec<Variant>,
    /// Tags known to exist whose payload this schema does not read: decode
    /// refuses them by name, with the reason, rather than as unknown tags
    /// (`codec_runtime::error::unknown_tag`), and the docs list them.
    #[serde(default)]
    pub reserved: Vec<Reserved>,
    /// For a `peek` union: the variant read when the tag names no other
    /// (and no reserved one). Its payload keeps the tag's bytes, so a block
    /// of a kind the schema does not know is kept, in its place.
    #[serde(default)]
    pub other: Option<String>,
}

impl UnionDef {
    /// The variant `tag` selects: the one with that tag, else the `other`
    /// variant of a peek union unless the tag is reserved. The one place
    /// this choice is made for the interpreter, the generator and the views.
    pub fn variant_for(&self, tag: u64) -> Option<&Variant> {
        self.variants.iter().find(|v| v.tag == tag).or_else(|| {
            let other = self.other.as_deref()?;
            if self.reserved.iter().any(|r| r.tag == tag) {
                return None;
            }
            self.variants.iter().find(|v| v.name == other)
        })
    }
}

/// A union tag that is known but not read (see [`UnionDef::reserved`]).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reserved {
    pub tag: u64,
    pub name: String,
    /// Why it is not read (what is unknown or unsettled about it).
    #[serde(default)]
    pub doc: String,
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
    /// The variant exists only where this feature condition holds.
    #[serde(default)]
    pub when: Option<String>,
}
