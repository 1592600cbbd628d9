//! The schema interpreter: decodes a file by walking a [`Checked`] schema at
//! run time, without generated code, and records where every field lies.
//!
//! It follows the generated decoder step for step (`codec-derive`'s
//! `decode.rs`): a struct reads its fields in file order, then follows its
//! offsets in field order; lists check their counts against the bytes left
//! before anything is allocated; the same [`Reader`] guards refuse cycles,
//! excessive depth and reads beyond the budget. So it accepts and refuses
//! the same files, with the same offsets and field paths in its errors, and
//! its [`Value`] equals the compiled codec's typed value serialized with
//! [`to_value`] (a test proves it on every corpus file).
//!
//! What it adds is the [`Node`] tree: every field with its offset, size,
//! path and type, for `codec dump` ([`render`]) and `codec coverage`
//! ([`coverage`]). When decoding fails, the tree holds everything read up to
//! the failure.

pub mod coverage;
pub mod document;
pub mod edits;
mod ext;
mod from_value;
pub mod json;
pub mod render;
pub mod survey;
mod tree;
mod value;
pub mod write;

pub use ext::{Hooks, NoHooks};
pub use from_value::from_value;
pub use write::{encode, writable};

pub use value::{
    to_value, MapBuilder, SeqBuilder, StructBuilder, Value, ValueError, ValueSerializer,
};

use codec_runtime::{DecodeError, ErrorKind, Limits, PathSeg, Reader};
use codec_schema::docs::{derive_label, type_label};
use codec_schema::{
    int_width, Base, Checked, Count, Derive, FieldRead, Follow, StructDef, Type, TypeDef, UnionDef,
};
use compact_str::{format_compact, CompactString};
use serde::Serialize;
use std::sync::Arc;

/// One field, element, target or payload of a decoded file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    /// The field's name, `[i]` for an element, the type's name for an
    /// offset's target, the variant's name for a union payload (kept inline
    /// up to 24 bytes: no allocation for most).
    pub name: CompactString,
    /// The field path, as decode errors print it (`File.root.lists[2].name`).
    /// A target has the path of its offset field, a payload adds `::Variant`.
    pub path: String,
    /// Position in the file.
    pub offset: u64,
    /// Bytes covered, from `offset`: for a record its inline fields (not what
    /// its offsets point to); for a string its bytes and NUL (see
    /// [`Kind::Str`] for the padding).
    pub size: u64,
    /// The schema type, in words (`u16 offset ×4 from the record`); one
    /// string shared by every node of the same schema type.
    #[serde(rename = "type")]
    pub ty: Arc<str>,
    /// Declared unknown by the schema (this field or one containing it).
    pub unknown: bool,
    /// The schema's doc line of the field, bit range or variant (shared
    /// by every node of the field).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub doc: Arc<str>,
    #[serde(flatten)]
    pub kind: Kind,
    /// Fields of a record, elements of a sequence, the target of an offset
    /// (after its count, when the count is stored beside it), the payload of
    /// a variant, the ranges of a bitfield.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
    /// Ranges `(from, to)` of padding the layout rules require here (a
    /// string's pad, a row's tail after its last cell, a unit's section
    /// alignment and padding) that hold zeros in the bytes this node was
    /// decoded from: a transformed unit's own bytes, not the file's. Padding
    /// that holds anything else is not listed (coverage reports it).
    #[serde(skip)]
    pub padding: Vec<(u64, u64)>,
    /// What a tool knows about the value that the schema does not say (the
    /// name an AAMP hash stands for); `dump` prints it after the value.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// For a list kept in document order (`visit: Document`): the order of
    /// its elements in the typed value, when it is not file order (empty).
    #[serde(skip)]
    pub order: Vec<usize>,
}

/// What a [`Node`] holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// A struct; the children are its fields, in file order.
    Record {
        type_name: String,
        /// The fields of the typed value, in the order of the Rust type
        /// (the schema as written, first of each name), with the value a
        /// field this variant lacks takes; empty: the stored children.
        #[serde(skip)]
        shape: std::sync::Arc<[ShapeField]>,
    },
    /// An inline array or a list of records or arrays; the children are the elements.
    Seq,
    /// An inline array or a list of numbers, kept in one node.
    Numbers { values: Vec<Value> },
    /// A list or array of `u8` numbers, kept as the bytes themselves (a
    /// file's data in an archive is one: a [`Value`] per byte took 56
    /// times its size). Its typed value and its JSON are those of
    /// [`Kind::Numbers`] of `u8`.
    #[serde(rename = "numbers")]
    Octets { values: Vec<u8> },
    /// A number or a bool.
    Number { value: Value },
    /// A fixed-point number: the stored integer, worth `value / 2^frac`.
    Fixed { value: Value, frac: u32 },
    /// Magic bytes, checked against the schema's literal.
    Magic { text: String },
    /// Opaque bytes.
    Bytes { bytes: Vec<u8> },
    /// A NUL-terminated string; `pad` zero bytes follow its NUL.
    Str { value: String, pad: u64 },
    /// A bitfield word; the children are its ranges, low bits first.
    Bits {
        word: u64,
        /// The generated Rust struct (`HeaderFlags`).
        struct_name: String,
    },
    /// One range of a bitfield (no bytes of its own: `size` is 0).
    BitRange { low: u32, bits: u32, value: Value },
    /// An offset: the stored value and the position it leads to (`None`
    /// when that position is outside the file).
    ///
    /// `kept`: the alignment the target was found at, for an offset whose
    /// alignment is kept (`Ptr(align: Kept(..))`): the value is then the
    /// codec's `Aligned { align, value }`.
    Offset {
        raw: u64,
        target: Option<u64>,
        kept: Option<u64>,
    },
    /// A value computed on encode: a count, a tag, a size; also a list's
    /// count stored beside its elements.
    Derived { raw: u64, meaning: String },
    /// The payload of a union, chosen by the tag.
    Variant {
        union: String,
        variant: String,
        tag: u64,
    },
}

impl Node {
    fn new(
        name: impl Into<CompactString>,
        path: String,
        offset: u64,
        ty: impl Into<Arc<str>>,
        unknown: bool,
        kind: Kind,
    ) -> Node {
        Node {
            name: name.into(),
            path,
            offset,
            size: 0,
            ty: ty.into(),
            unknown,
            doc: Arc::from(""),
            kind,
            children: Vec::new(),
            padding: Vec::new(),
            note: String::new(),
            order: Vec::new(),
        }
    }

    /// Is this node part of the typed value (not magic, not derived)?
    pub fn is_stored(&self) -> bool {
        !matches!(self.kind, Kind::Magic { .. } | Kind::Derived { .. })
    }

    /// The value this node holds, in the shape serde gives the generated
    /// Rust types: a struct's stored fields, an offset's target, a
    /// variant's payload; bitfields are structs named like their Rust type.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            Kind::Record { type_name, shape } if !shape.is_empty() => Value::Struct {
                name: type_name.clone(),
                fields: shape
                    .iter()
                    .map(|sf| {
                        let child = self
                            .children
                            .iter()
                            .find(|c| c.name == sf.name && c.is_stored());
                        let v = match child {
                            None => sf.default.clone(),
                            Some(c) if sf.optional => Value::Option(
                                (!c.children.is_empty()).then(|| Box::new(c.to_value())),
                            ),
                            Some(c) => c.to_value(),
                        };
                        (sf.name.clone(), v)
                    })
                    .collect(),
            },
            Kind::Record { type_name, .. } => Value::Struct {
                name: type_name.clone(),
                fields: self
                    .children
                    .iter()
                    .filter(|c| c.is_stored())
                    .map(|c| (c.name.to_string(), c.to_value()))
                    .collect(),
            },
            Kind::Seq if !self.order.is_empty() => Value::Seq(
                self.order
                    .iter()
                    .filter_map(|&i| self.children.get(i))
                    .filter(|c| c.is_stored())
                    .map(Node::to_value)
                    .collect(),
            ),
            Kind::Seq => Value::Seq(
                self.children
                    .iter()
                    .filter(|c| c.is_stored())
                    .map(Node::to_value)
                    .collect(),
            ),
            Kind::Numbers { values } => Value::Seq(values.clone()),
            // One value for the bytes (a file in an archive: a `Value` per
            // byte took 56 times its size); equal to the typed form's list.
            Kind::Octets { values } => Value::Bytes(values.clone()),
            Kind::Number { value } | Kind::BitRange { value, .. } | Kind::Fixed { value, .. } => {
                value.clone()
            }
            Kind::Magic { .. } | Kind::Derived { .. } => Value::Unit,
            Kind::Bytes { bytes } => Value::Bytes(bytes.clone()),
            Kind::Str { value, .. } => Value::Str(value.clone()),
            Kind::Bits { struct_name, .. } => Value::Struct {
                name: struct_name.clone(),
                fields: self
                    .children
                    .iter()
                    .map(|c| (c.name.to_string(), c.to_value()))
                    .collect(),
            },
            // The target is the last child (a stored count comes first).
            Kind::Offset { kept, .. } => {
                let value = self.children.last().map_or(Value::Unit, Node::to_value);
                match kept {
                    None => value,
                    Some(a) => Value::Struct {
                        name: "Aligned".into(),
                        fields: vec![("align".into(), Value::U64(*a)), ("value".into(), value)],
                    },
                }
            }
            Kind::Variant { union, variant, .. } => Value::Variant {
                union: union.clone(),
                variant: variant.clone(),
                value: Box::new(self.children.last().map_or(Value::Unit, Node::to_value)),
            },
        }
    }

    /// Visits this node and every node below it, depth first, in tree order.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Node, usize)) {
        fn go<'a>(n: &'a Node, depth: usize, f: &mut dyn FnMut(&'a Node, usize)) {
            f(n, depth);
            for c in &n.children {
                go(c, depth + 1, f);
            }
        }
        go(self, 0, f)
    }
}

/// One field of a record's typed value (see [`Kind::Record`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeField {
    pub name: String,
    /// The value when the record has no such field (a field of another variant).
    pub default: Value,
    /// An optional offset: the value is an `Option`.
    pub optional: bool,
}

/// The interpreter's errors are the runtime's: the byte offset, the field
/// path (innermost segment first, named by the schema's names) and what was
/// expected, displayed as the generated decoders display theirs.
pub type InterpError = DecodeError;

type R<T> = Result<T, InterpError>;

/// The result of [`decode_partial`]: the tree as far as decoding got, and the
/// error that stopped it.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The root record; complete when `error` is `None`.
    pub root: Node,
    pub error: Option<InterpError>,
}

/// Decodes `data` with the default limits.
pub fn decode(c: &Checked, data: &[u8]) -> Result<Node, InterpError> {
    decode_with(c, data, Limits::default())
}

/// Decodes `data` with explicit limits (the same as the generated `decode_with`).
pub fn decode_with(c: &Checked, data: &[u8], limits: Limits) -> Result<Node, InterpError> {
    let d = decode_partial(c, data, limits);
    match d.error {
        None => Ok(d.root),
        Some(e) => Err(e),
    }
}

/// Decodes `data` and keeps what was read even when decoding fails.
pub fn decode_partial(c: &Checked, data: &[u8], limits: Limits) -> Decoded {
    decode_partial_with(c, data, limits, &NoHooks)
}

/// Decodes `data` with schema `c`: when `c` is a schema with variants as
/// loaded (not one variant picked from it), with each variant in turn until one decodes,
/// as `codec check` does; the variant that read the file and what it read,
/// else the first variant and what it read before it failed (its error is
/// the one said). Every research tool reads a file as `check` does, so a
/// file of the second variant is no magic error in one and fine in another.
pub fn decode_variants<'c>(
    c: &'c Checked,
    data: &[u8],
    limits: Limits,
    hooks: &dyn Hooks,
) -> (&'c Checked, Decoded) {
    // A schema as loaded holds its variants (it is the first one); one
    // variant of it holds none.
    if c.variants().is_empty() {
        return (c, decode_partial_with(c, data, limits, hooks));
    }
    let mut first = None;
    for cv in c.variants() {
        let d = decode_partial_with(cv, data, limits, hooks);
        if d.error.is_none() {
            return (cv, d);
        }
        first.get_or_insert((cv, d));
    }
    first.unwrap_or_else(|| (c, decode_partial_with(c, data, limits, hooks)))
}

/// Decodes `data` with the glue functions `hooks` supplies (a unit's
/// transform, a `Select` chooser), keeping what was read even when
/// decoding fails.
pub fn decode_partial_with(c: &Checked, data: &[u8], limits: Limits, hooks: &dyn Hooks) -> Decoded {
    let endian = c.schema.endian;
    let mut run = Run {
        c,
        r: Reader::with_limits(data, endian, limits),
        stack: Vec::new(),
        done: None,
        hooks,
        facts: std::rc::Rc::new(ext::Facts::of(c)),
        spans: Vec::new(),
        last_table: None,
        memory: TreeMemory::for_input(data.len()),
        labels: Default::default(),
        docs: Default::default(),
    };
    let root = c.root();
    let result = run.record(root, 0, root.name.as_str().into(), root.name.clone(), false);
    // On an error the records being read are still open: close them, so
    // the partial tree keeps its shape.
    // Their sizes cover the fields read so far.
    while let Some(open) = run.stack.last_mut() {
        let n = &mut open.node;
        if matches!(n.kind, Kind::Record { .. } | Kind::Seq) && n.size == 0 {
            let end = n
                .children
                .iter()
                .map(|c| c.offset.saturating_add(c.size))
                .filter(|&e| e >= n.offset)
                .max()
                .unwrap_or(n.offset);
            n.size = end - n.offset;
        }
        run.close();
    }
    let error = result
        .err()
        .map(|e| e.within(PathSeg::Type(root.name.clone().into())));
    let root = run.done.unwrap_or_else(|| {
        Node::new(
            root.name.clone(),
            root.name.clone(),
            0,
            root.name.clone(),
            false,
            Kind::Record {
                type_name: root.name.clone(),
                shape: Vec::new().into(),
            },
        )
    });
    Decoded { root, error }
}

/// A node being built, and where it goes in its parent when finished.
#[derive(Debug)]
struct Open {
    node: Node,
    /// `Some(i)`: replaces the parent's child `i` (an offset reopened to
    /// receive its target); `None`: appended.
    slot: Option<usize>,
}

/// One decoding run (a unit is read by a run of its own, on its bytes).
/// How many values may be open at once while a file is read: records,
/// lists and variants, inline and behind offsets. The corpus's deepest file
/// opens a few dozen; offsets alone may nest 256 deep
/// (`codec_runtime::reader::DEFAULT_MAX_DEPTH`), each through a few values.
pub const MAX_NESTING: usize = 2048;

/// Stack left when a record grows the stack, and the size of each new
/// piece: a record's read takes a few KiB of stack in a release build.
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

struct Run<'c, 'd> {
    c: &'c Checked,
    r: Reader<'d>,
    stack: Vec<Open>,
    done: Option<Node>,
    hooks: &'c dyn Hooks,
    facts: std::rc::Rc<ext::Facts>,
    /// The extent `(start, end)` of what was read of each section (by
    /// section id), in this run's bytes: where a unit's sections lie.
    spans: Vec<Option<(u64, u64)>>,
    /// The strings of the string table read last, until the interned
    /// field that led to it hands them to the reader.
    last_table: Option<Vec<codec_runtime::Str>>,
    /// What the tree built so far takes in memory (see [`TreeMemory`]).
    memory: TreeMemory,
    /// The label of each schema type met and each doc line, made once and
    /// shared by every node of it (keyed by address: the schema outlives
    /// the run, so an address is one type or one line).
    labels: rustc_hash::FxHashMap<usize, Arc<str>>,
    docs: rustc_hash::FxHashMap<(usize, usize), Arc<str>>,
}

/// The memory the decoded tree may take: [`TREE_FACTOR`] times the input,
/// at least [`TREE_FLOOR`]. The factor is what real files need: a node
/// costs a few hundred bytes, and a legacy BDAT table of one-byte cells
/// has a node for every byte or two (the corpus needs up to 500 times its
/// size, as charged here).
///
/// The reader's budget bounds the bytes read through offsets, but the tree
/// costs far more per byte than a typed value does: a node (its name,
/// path, type, children) takes a few hundred bytes and a number in a list
/// one [`Value`], so a file that makes the decoder read every byte of a
/// shared megabyte 200 times, or a 7 KB chain of arrays that point at the
/// next, took gigabytes in `dump`, `coverage` and `survey`. Each node and
/// number is charged here as it is made, and a list of numbers before its
/// values are allocated. With the reader's budget (bytes read through
/// offsets, 256 times the input), this bounds what a hostile file makes the
/// research tools allocate.
#[derive(Debug, Clone, Copy)]
struct TreeMemory {
    used: u64,
    limit: u64,
    /// Where the tree first grew past the limit (reported by the next
    /// check: making a node cannot fail).
    over_at: Option<u64>,
}

/// See [`TreeMemory`].
pub const TREE_FACTOR: u64 = 768;
/// See [`TreeMemory`].
pub const TREE_FLOOR: u64 = 128 << 20;

impl TreeMemory {
    fn for_input(len: usize) -> Self {
        TreeMemory {
            used: 0,
            limit: (len as u64).saturating_mul(TREE_FACTOR).max(TREE_FLOOR),
            over_at: None,
        }
    }

    /// What `node` takes: the node in its parent's list (whose slack
    /// `close` gives back), its strings and its own values.
    fn cost(node: &Node) -> u64 {
        let own = match &node.kind {
            Kind::Numbers { values } => values.capacity() * std::mem::size_of::<Value>(),
            Kind::Bytes { bytes } | Kind::Octets { values: bytes } => bytes.capacity(),
            Kind::Str { value, .. } => value.capacity(),
            _ => 0,
        };
        (std::mem::size_of::<Node>()
            + node.name.capacity()
            + node.path.capacity()
            + node.note.capacity()
            + own) as u64
    }

    fn add(&mut self, at: u64, bytes: u64) {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit && self.over_at.is_none() {
            self.over_at = Some(at);
        }
    }

    /// An error once the tree has grown past the limit.
    fn check(&self) -> Result<(), DecodeError> {
        match self.over_at {
            None => Ok(()),
            Some(at) => Err(self.error(at)),
        }
    }

    /// Charges `bytes` about to be allocated at `at`, refusing them if they
    /// do not fit.
    fn reserve(&mut self, at: u64, bytes: u64) -> Result<(), DecodeError> {
        self.check()?;
        if self.used.saturating_add(bytes) > self.limit {
            return Err(self.error(at));
        }
        self.used += bytes;
        Ok(())
    }

    fn error(&self, at: u64) -> DecodeError {
        DecodeError::new(
            at,
            ErrorKind::Invalid(format!(
                "the decoded tree would take more than {} MiB of memory ({TREE_FACTOR} times \
                 the input, at least {} MiB): the file's offsets or counts repeat or nest \
                 far beyond its size; refusing",
                self.limit >> 20,
                TREE_FLOOR >> 20
            )),
        )
    }
}

/// Where a decoded value goes: its name, path and whether it is unknown.
#[derive(Clone)]
struct Site {
    name: CompactString,
    path: String,
    unknown: bool,
}

impl Site {
    fn field(&self, name: &str, unknown: bool) -> Site {
        Site {
            name: name.into(),
            path: format!("{}.{name}", self.path),
            unknown: self.unknown || unknown,
        }
    }

    fn index(&self, i: usize) -> Site {
        Site {
            name: format_compact!("[{i}]"),
            path: format!("{}[{i}]", self.path),
            unknown: self.unknown,
        }
    }

    fn named(&self, name: &str) -> Site {
        Site {
            name: name.into(),
            path: self.path.clone(),
            unknown: self.unknown,
        }
    }
}

/// The node of variant `v` of union `u` at `pos` (named `name`, with the
/// variant's doc), and the site its payload is read under: the union's path
/// plus `::Variant`. Every place that picks a variant (a sibling tag's
/// payload, a tag in front, a row cell) builds it so, which keeps their
/// paths, type labels and kinds alike in dumps and errors.
fn variant_node(
    u: &UnionDef,
    v: &codec_schema::Variant,
    name: CompactString,
    site: &Site,
    pos: u64,
) -> (Site, Node) {
    let vs = Site {
        name,
        path: format!("{}::{}", site.path, v.name),
        unknown: site.unknown,
    };
    let mut node = Node::new(
        vs.name.clone(),
        vs.path.clone(),
        pos,
        format!("{}::{}", u.name, v.name),
        vs.unknown,
        Kind::Variant {
            union: u.name.clone(),
            variant: v.name.clone(),
            tag: v.tag,
        },
    );
    node.doc = v.doc.clone().into();
    (vs, node)
}

/// The variant name of a part of lossless text (`Text`) whose units are no
/// text: `Value::Variant { union: "Text", variant: "Bytes", value: bytes }`.
pub const TEXT_BYTES: &str = "Bytes";

// The generated bitfield struct's name; its home is `codec_schema::names`, shared
// with the checker and codegen. Also public here, where it was before.
pub use codec_schema::names::bits_struct_name;

/// A number or a bool: what the interpreter shows as a number leaf.
fn is_number(t: &Type) -> bool {
    codec_schema::is_number(t) || matches!(t, Type::Bool8 | Type::Bool32)
}

impl<'c> Run<'c, '_> {
    /// The label of a schema type, shared.
    fn label(&mut self, t: &'c Type) -> Arc<str> {
        let key = t as *const Type as usize;
        self.labels
            .entry(key)
            .or_insert_with(|| type_label(t).into())
            .clone()
    }

    /// A doc line or a name of the schema, shared.
    fn doc(&mut self, d: &'c str) -> Arc<str> {
        let key = (d.as_ptr() as usize, d.len());
        self.docs.entry(key).or_insert_with(|| d.into()).clone()
    }

    fn open(&mut self, node: Node) {
        self.memory.add(node.offset, TreeMemory::cost(&node));
        self.stack.push(Open { node, slot: None });
    }

    /// Reopens child `i` of the innermost open node.
    fn reopen(&mut self, i: usize) {
        let parent = &mut self.stack.last_mut().expect("an open record").node;
        let node = std::mem::replace(
            &mut parent.children[i],
            Node::new("", String::new(), 0, String::new(), false, Kind::Seq),
        );
        self.stack.push(Open {
            node,
            slot: Some(i),
        });
    }

    fn close(&mut self) {
        let Some(Open { mut node, slot }) = self.stack.pop() else {
            return;
        };
        // A finished node's children no longer grow: the slack of their
        // list's doubling (nearly two thirds of the nodes' memory on a
        // table of cells) is given back.
        node.children.shrink_to_fit();
        match self.stack.last_mut() {
            Some(parent) => match slot {
                Some(i) => parent.node.children[i] = node,
                None => parent.node.children.push(node),
            },
            None => self.done = Some(node),
        }
    }

    fn top(&mut self) -> &mut Node {
        &mut self.stack.last_mut().expect("an open node").node
    }

    fn leaf(&mut self, node: Node) {
        self.memory.add(node.offset, TreeMemory::cost(&node));
        match self.stack.last_mut() {
            Some(p) => p.node.children.push(node),
            None => self.done = Some(node),
        }
    }

    fn read_uint(&self, t: &Type, pos: u64) -> Result<u64, DecodeError> {
        match t {
            Type::U8 => self.r.u8(pos).map(u64::from),
            Type::U16 => self.r.u16(pos).map(u64::from),
            Type::U24 => self.r.u24(pos).map(u64::from),
            Type::U64 => self.r.u64(pos),
            _ => self.r.u32(pos).map(u64::from),
        }
    }

    /// A number or bool of type `t` at `pos`, and its size.
    fn number(&self, t: &Type, pos: u64) -> Result<(Value, u64), DecodeError> {
        let r = &self.r;
        Ok(match t {
            Type::U8 => (Value::U8(r.u8(pos)?), 1),
            Type::U16 => (Value::U16(r.u16(pos)?), 2),
            Type::U24 => (Value::U32(r.u24(pos)?), 3),
            Type::U32 => (Value::U32(r.u32(pos)?), 4),
            Type::U64 => (Value::U64(r.u64(pos)?), 8),
            Type::I8 => (Value::I8(r.i8(pos)?), 1),
            Type::I16 => (Value::I16(r.i16(pos)?), 2),
            Type::I32 => (Value::I32(r.i32(pos)?), 4),
            Type::I64 => (Value::I64(r.i64(pos)?), 8),
            Type::F32 => (Value::F32(r.f32(pos)?), 4),
            Type::F64 => (Value::F64(r.f64(pos)?), 8),
            Type::Bool8 => {
                let v = r.u8(pos)?;
                (Value::Bool(r.bool_from(pos, u64::from(v))?), 1)
            }
            Type::Bool32 => {
                let v = r.u32(pos)?;
                (Value::Bool(r.bool_from(pos, u64::from(v))?), 4)
            }
            _ => {
                return Err(DecodeError::new(
                    pos,
                    ErrorKind::Invalid("not a number type".into()),
                ))
            }
        })
    }

    /// A struct record at `pos` and what its offsets lead to; returns the
    /// position after the record. The steps are the generated
    /// `decode_at`'s: pools located, fields read (offsets noted as bounds),
    /// the cell layout and the unit's bounds noted, context pushed, offsets
    /// followed in field order (rows last), pools' odd references, checks.
    fn record(
        &mut self,
        st: &'c StructDef,
        pos: u64,
        name: CompactString,
        path: String,
        unknown: bool,
    ) -> R<u64> {
        // A schema may nest records as deeply as it likes (a chain of inline
        // records, offsets inside them): refused past a depth no real format
        // comes near, and the stack grown on the heap before it runs out, so
        // that neither a schema nor a file ends the process (issue 70: 1,500
        // inline records overflowed the main thread's 8 MiB).
        if self.stack.len() >= MAX_NESTING {
            return Err(InterpError::invalid(
                pos,
                format!(
                    "`{}` would open the {}th nested value (records, lists and variants, inline and behind offsets); refusing past {MAX_NESTING}",
                    st.name,
                    self.stack.len() + 1
                ),
            ));
        }
        stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || {
            self.record_here(st, pos, name, path, unknown)
        })
    }

    /// [`Run::record`] once its depth is known to be allowed.
    fn record_here(
        &mut self,
        st: &'c StructDef,
        pos: u64,
        name: CompactString,
        path: String,
        unknown: bool,
    ) -> R<u64> {
        let site = Site {
            name,
            path,
            unknown,
        };
        let shape = self.shape(&st.name);
        let ty = self.doc(&st.name);
        self.open(Node::new(
            site.name.clone(),
            site.path.clone(),
            pos,
            ty,
            unknown,
            Kind::Record {
                type_name: st.name.clone(),
                shape,
            },
        ));
        self.memory.check()?;
        if self.facts.ref_targets.contains(&st.name) {
            if let Some(id) = self.c.type_id(&st.name) {
                self.r.note_position(id, pos);
            }
        }
        self.pool_prestep(st, pos);
        if let Some((id, parts, align)) = self.c.first_section_parts(st) {
            let parts: Vec<codec_runtime::placement::RootPart> = parts
                .iter()
                .map(|p| match p {
                    codec_schema::RootPart::Fixed(n) => {
                        codec_runtime::placement::RootPart::Fixed(*n)
                    }
                    codec_schema::RootPart::Counted {
                        count_at,
                        width,
                        elem,
                    } => codec_runtime::placement::RootPart::Counted {
                        count_at: *count_at,
                        width: runtime_width(width),
                        elem: *elem,
                    },
                })
                .collect();
            self.r.note_first_section(id, pos, &parts, align);
        }
        // The offsets of the inline records at fixed places are known
        // before any field is read: a list in one that runs to the next
        // target ends where a later one's offset leads (schema-repros
        // case 6).
        if self.facts.ends_at_next_target {
            let offsets = self.c.field_offsets(st);
            for (f, off) in st.fields.iter().zip(&offsets) {
                let Some(off) = off else { break };
                if let Type::Named(n) = &f.ty {
                    if let Some(TypeDef::Struct(s)) = self.c.get(n) {
                        self.note_targets(s, pos + off);
                    }
                }
            }
        }
        let mut p = pos;
        // Where each offset or derived field was read, and its raw value.
        let mut raws: Vec<Option<(u64, u64)>> = vec![None; st.fields.len()];
        // Offsets of a list field of offsets: (where, raw) per element.
        let mut lists: Vec<Vec<(u64, u64)>> = vec![Vec::new(); st.fields.len()];
        for (i, f) in st.fields.iter().enumerate() {
            let fs = site.field(&f.name, f.is_unknown());
            let ty = self.label(&f.ty);
            if let Some(a) = f.align.filter(|&a| a > 1) {
                p = pos + (p - pos).next_multiple_of(a);
            }
            match self.c.field_read(st, f) {
                FieldRead::TableBody { count, offsets } => {
                    p = self
                        .table_field(st, &raws, count, offsets, pos, p, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                }
                FieldRead::Word { union, tag } => {
                    p = self
                        .switch_field(st, &raws, union, tag, p, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                }
                FieldRead::Words {
                    of,
                    union,
                    tag,
                    count,
                } => {
                    p = self
                        .switch_list(st, &raws, of, union, tag, count, p, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                }
                FieldRead::SizedUnit { unit, size } => {
                    // A unit laid out inline, as long as its size field says.
                    let Some(TypeDef::Struct(def)) = self.c.get(unit) else {
                        return Err(InterpError::invalid(p, format!("`{unit}` is not a struct")));
                    };
                    let j = st.fields.iter().position(|g| g.name == size);
                    let (len, size_at) = j
                        .and_then(|j| raws[j])
                        .map(|(at, raw)| (raw, at))
                        .ok_or_else(|| {
                            InterpError::invalid(
                                p,
                                format!("the size field `{size}` was not read before"),
                            )
                        })?;
                    self.unit(def, p, Some(len), size_at, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    let doc = self.doc(&f.doc);
                    if let Some(n) = self.top().children.last_mut() {
                        n.doc = doc;
                    }
                    p += len;
                }
                FieldRead::HashSlots(Type::HashSlots {
                    of,
                    key,
                    slots,
                    hash,
                    width,
                    base,
                    ..
                }) => {
                    let n = self.stored_u64(slots).ok_or_else(|| {
                        InterpError::invalid(
                            p,
                            format!("the slot count `{slots}` was not read before"),
                        )
                    })?;
                    let b = base_of(base, pos, self.c, &self.r);
                    p = self
                        .hash_slots(of, key, n, *hash, width, b, p, &fs, ty, &f.doc)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                }
                FieldRead::HashSlots(_) => {
                    return Err(InterpError::invalid(
                        p,
                        "internal: not a table of hash slots",
                    ))
                }
                FieldRead::Pad { align, fill } => {
                    let (byte, end) =
                        codec_runtime::pad::read_pad(self.r.data(), pos, p, align, fill)
                            .map_err(|e| e.in_field(f.name.clone()))?;
                    let mut n = Node::new(
                        fs.name,
                        fs.path,
                        p,
                        ty,
                        fs.unknown,
                        Kind::Number {
                            value: Value::U8(byte),
                        },
                    );
                    n.size = end - p;
                    n.doc = self.doc(&f.doc);
                    self.leaf(n);
                    p = end;
                }
                // Followed after the fields (`Follow` in the second pass).
                FieldRead::InternedTable { ptr, .. } | FieldRead::Offset { ptr, .. } => {
                    let raw = self
                        .read_uint(&ptr.width, p)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    let w = int_width(&ptr.width).unwrap_or(4);
                    let mut n = Node::new(
                        fs.name,
                        fs.path,
                        p,
                        ty,
                        fs.unknown,
                        Kind::Offset {
                            raw,
                            target: None,
                            kept: None,
                        },
                    );
                    n.size = w;
                    n.doc = self.doc(&f.doc);
                    self.leaf(n);
                    raws[i] = Some((p, raw));
                    if !(ptr.optional && raw == 0) {
                        let base = base_of(&ptr.base, pos, self.c, &self.r);
                        if let Ok(t) = self.r.target(p, base, raw, ptr.scale) {
                            let rank = self.c.target_rank(st, i);
                            self.r.add_bound(t, rank, p);
                        }
                    }
                    p += w;
                }
                FieldRead::SharesEqual { .. } => {
                    // Known once the offsets are followed: a placeholder.
                    let mut n = Node::new(
                        fs.name,
                        fs.path,
                        p,
                        ty,
                        fs.unknown,
                        Kind::Number {
                            value: Value::Bool(true),
                        },
                    );
                    n.doc = self.doc(&f.doc);
                    self.leaf(n);
                }
                FieldRead::Follows { .. } => {
                    // Read once the target it follows is: a placeholder.
                    let mut n = Node::new(fs.name, fs.path, p, ty, fs.unknown, Kind::Seq);
                    n.doc = self.doc(&f.doc);
                    self.leaf(n);
                }
                FieldRead::List { of, count } => {
                    let held = self.hold_element_tags(st, &raws, f, pos, p)?;
                    let read = self.list_field(st, i, of, count, p, &fs, &mut lists[i]);
                    if held {
                        self.r.release_tags();
                    }
                    p = read.map_err(|e| e.in_field(f.name.clone()))?;
                    if let Type::Ptr(ptr) = of {
                        // Every element's target is known before any is
                        // followed (schema-repros case 3).
                        let rank = self.c.target_rank(st, i);
                        for &(at, raw) in &lists[i] {
                            if ptr.optional && raw == 0 {
                                continue;
                            }
                            let base = base_of(&ptr.base, pos, self.c, &self.r);
                            if let Ok(t) = self.r.target(at, base, raw, ptr.scale) {
                                self.r.add_bound(t, rank, at);
                            }
                        }
                    }
                    self.ascending_keys(f, of)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    self.document_order(f.visit);
                    let doc = self.doc(&f.doc);
                    if let Some(n) = self.top().children.last_mut() {
                        n.doc = doc;
                    }
                }
                FieldRead::Groups(_) => {
                    p = self
                        .groups(st, f, p, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    let doc = self.doc(&f.doc);
                    if let Some(n) = self.top().children.last_mut() {
                        n.doc = doc;
                    }
                }
                FieldRead::Derived { width, derive } => {
                    let raw = self
                        .read_uint(width, p)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    let w = int_width(width).unwrap_or(4);
                    let meaning = derive_label(derive);
                    let mut n = Node::new(
                        fs.name,
                        fs.path,
                        p,
                        ty,
                        fs.unknown,
                        Kind::Derived { raw, meaning },
                    );
                    n.size = w;
                    n.doc = self.doc(&f.doc);
                    self.leaf(n);
                    raws[i] = Some((p, raw));
                    if let Derive::SectionStart(s) = derive {
                        if let Some(id) = self.c.section_id(s) {
                            self.r.set_section_start(id, raw);
                        }
                    }
                    p += w;
                }
                // The generic form keeps an external type's bytes.
                FieldRead::External { .. } | FieldRead::Inline(_) => {
                    p = self
                        .inline(&f.ty, p, &fs, &st.name, &f.name)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    let doc = self.doc(&f.doc);
                    if let Some(n) = self.top().children.last_mut() {
                        n.doc = doc;
                    }
                }
            }
        }
        self.post_notes(st, pos, &raws);
        self.stored_aligns(st, pos)?;
        let mut pushed = 0;
        for f in st.fields.iter().filter(|f| f.context) {
            let v = self.stored_u64(&f.name).unwrap_or(0);
            self.r.push_context(f.name.clone(), v);
            pushed += 1;
        }
        // Where each followed target ends (for the `Follows` after it).
        let mut ends: Vec<Option<u64>> = vec![None; st.fields.len()];
        let mut late = Vec::new();
        for (i, f) in st.fields.iter().enumerate() {
            let fs = site.field(&f.name, f.is_unknown());
            let plan = self.c.field_read(st, f);
            match plan {
                FieldRead::InternedTable { ptr, then } | FieldRead::Offset { ptr, then } => {
                    let Some((at, raw)) = raws[i] else { continue };
                    match then {
                        Follow::IfPresent if raw == 0 => continue,
                        Follow::Late => {
                            late.push(i);
                            continue;
                        }
                        Follow::IfPresent | Follow::InOrder | Follow::Ended => {}
                    }
                    self.reopen(i);
                    let end = self
                        .follow(st, i, ptr, pos, at, raw, &raws, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    ends[i] = end;
                    self.note_span(ptr.section.as_deref());
                    self.close();
                    if matches!(plan, FieldRead::InternedTable { .. }) {
                        self.keep_table(&f.name);
                    }
                }
                FieldRead::Follows { after, to, section } => {
                    let j = st.fields.iter().position(|g| g.name == after);
                    let (Some(t), Some((at, _))) =
                        (j.and_then(|j| ends[j]), j.and_then(|j| raws[j]))
                    else {
                        continue;
                    };
                    self.reopen(i);
                    self.follows(st, i, to, t, at, &raws, &fs)
                        .map_err(|e| e.in_field(f.name.clone()))?;
                    self.note_span(Some(section));
                    self.close_filled();
                }
                FieldRead::List { of, .. } => {
                    let Type::Ptr(ptr) = of else { continue };
                    if lists[i].is_empty() {
                        continue;
                    }
                    self.reopen(i);
                    for (k, &(at, raw)) in lists[i].iter().enumerate() {
                        // An optional offset of 0 leads nowhere.
                        if ptr.optional && raw == 0 {
                            continue;
                        }
                        self.reopen(k);
                        let es = fs.index(k);
                        self.follow(st, i, ptr, pos, at, raw, &raws, &es)
                            .map_err(|e| e.at_index(k).in_field(f.name.clone()))?;
                        self.note_span(ptr.section.as_deref());
                        self.close();
                    }
                    self.close();
                }
                // Read whole in the first pass (a `SharesEqual` is set below).
                FieldRead::SizedUnit { .. }
                | FieldRead::SharesEqual { .. }
                | FieldRead::TableBody { .. }
                | FieldRead::Word { .. }
                | FieldRead::Words { .. }
                | FieldRead::Pad { .. }
                | FieldRead::HashSlots(_)
                | FieldRead::Groups(_)
                | FieldRead::Derived { .. }
                | FieldRead::External { .. }
                | FieldRead::Inline(_) => {}
            }
        }
        for i in late {
            let f = &st.fields[i];
            let Type::Ptr(ptr) = &f.ty else { continue };
            let Some((at, raw)) = raws[i] else { continue };
            let fs = site.field(&f.name, f.is_unknown());
            self.reopen(i);
            self.follow(st, i, ptr, pos, at, raw, &raws, &fs)
                .map_err(|e| e.in_field(f.name.clone()))?;
            self.note_span(ptr.section.as_deref());
            self.close();
        }
        for _ in 0..pushed {
            self.r.pop_context();
        }
        for (i, f) in st.fields.iter().enumerate() {
            if let Type::SharesEqual { section } = &f.ty {
                let shares = self
                    .c
                    .section_id(section)
                    .is_some_and(|si| self.r.shares_equal(si));
                self.top().children[i].kind = Kind::Number {
                    value: Value::Bool(shares),
                };
            }
        }
        self.pool_poststep(st);
        for (i, f) in st.fields.iter().enumerate() {
            if f.derive == Some(Derive::FileSize) && f.verify {
                let Some((at, raw)) = raws[i] else { continue };
                self.r
                    .check_file_size(at, raw)
                    .map_err(|e| e.in_field(f.name.clone()))?;
            }
        }
        self.top().size = p - pos;
        self.close();
        Ok(p)
    }

    /// Checks the alignments record `st` (at `pos`, its fields just read
    /// into the open node) stores for its `align_by` fields.
    fn stored_aligns(&mut self, st: &StructDef, pos: u64) -> R<()> {
        for f in &st.fields {
            let Some(by) = f.align_by.as_deref() else {
                continue;
            };
            let Some(j) = st.fields.iter().position(|g| g.name == by) else {
                continue;
            };
            let node = &self.top().children[j];
            let at = node.offset.max(pos);
            let value = match &node.kind {
                Kind::Number { value } => value_u64(value),
                Kind::Derived { raw, .. } => Some(*raw),
                _ => None,
            };
            if let Some(a) = value {
                self.r
                    .stored_align(at, a)
                    .map_err(|e| e.in_field(by.to_owned()))?;
            }
        }
        Ok(())
    }

    /// Follows offset field `fi` of record `st` (at `pos`): the open node
    /// is the offset, and receives the target. Returns where the target
    /// ends, when it is a record or an inline value.
    #[allow(clippy::too_many_arguments)]
    fn follow(
        &mut self,
        st: &'c StructDef,
        fi: usize,
        ptr: &'c codec_schema::Ptr,
        pos: u64,
        at: u64,
        raw: u64,
        raws: &[Option<(u64, u64)>],
        site: &Site,
    ) -> R<Option<u64>> {
        let field = st.fields[fi].name.as_str();
        let base = base_of(&ptr.base, pos, self.c, &self.r);
        let t = self.r.target(at, base, raw, ptr.scale)?;
        if let Some(si) = self.c.kept_sharing(ptr) {
            self.r.note_shared(si, t);
        }
        // A kept alignment: the target's own, found from where it lies in
        // its section, as the codec finds it.
        let found = ptr.align.as_ref().map(|_| {
            let sid = ptr
                .section
                .as_deref()
                .and_then(|n| self.c.section_id(n))
                .unwrap_or(0);
            codec_runtime::placement::kept_align(t, self.r.section_base(sid))
        });
        if let Kind::Offset { target, kept, .. } = &mut self.top().kind {
            *target = Some(t);
            *kept = found;
        }
        let sibling = |name: &str| -> Option<(u64, u64)> {
            st.fields
                .iter()
                .position(|g| g.name == name)
                .and_then(|j| raws[j])
        };
        match &ptr.to {
            Type::Named(n) => match self.c.get(n) {
                Some(TypeDef::Struct(def)) if def.layout.is_some() => {
                    self.unit(def, t, None, at, &site.named(n))?;
                    Ok(None)
                }
                Some(TypeDef::Struct(def)) => {
                    let size = self.c.fixed_size(&ptr.to).unwrap_or(1);
                    self.r.enter(at, t, size)?;
                    let ts = site.named(n);
                    let end = self.record(def, t, ts.name, ts.path, ts.unknown)?;
                    self.r.leave();
                    Ok(Some(end))
                }
                Some(TypeDef::Union(u)) => {
                    let size = self.c.fixed_size(&ptr.to).unwrap_or(1);
                    self.r.enter(at, t, size)?;
                    let end = self.tagged_union(u, t, &site.named(n))?;
                    self.r.leave();
                    Ok(Some(end))
                }
                None => Err(InterpError::invalid(at, format!("`{n}` is not a type"))),
            },
            Type::Hash { slots, width, .. } => {
                // The slot count is a field of the record (the open node's parent).
                let n = self.stored_u64_in(1, slots).unwrap_or(0);
                self.hash_table(t, n, width, site);
                Ok(None)
            }
            Type::Rows { cells, count, .. } => {
                let n = match &**count {
                    Count::Field(c) => sibling(c).map_or(0, |(_, v)| v),
                    _ => 0,
                };
                let stride = st
                    .fields
                    .iter()
                    .position(|g| g.derive == Some(Derive::Stride(field.to_owned())))
                    .and_then(|j| raws[j])
                    .map_or(0, |(_, v)| v);
                self.rows(cells, t, n, stride, at, site)?;
                Ok(None)
            }
            Type::List { of, count } => {
                let (n, start) = match &**count {
                    Count::Field(c) => (sibling(c).map_or(0, |(_, v)| v), t),
                    Count::End(e) => {
                        let (eat, eraw) = sibling(e).unwrap_or((at, 0));
                        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
                        (
                            codec_runtime::base::checked::count_to_end(
                                self.r.data(),
                                eat,
                                base,
                                eraw,
                                ptr.scale,
                                t,
                                esize,
                            )?,
                            t,
                        )
                    }
                    Count::Before(ct) => {
                        let w = int_width(ct).unwrap_or(4);
                        let (n, cpos) = self.r.count_before(at, t, w)?;
                        self.count_leaf(ct, cpos, n, site);
                        (n, t)
                    }
                    Count::Prefix(ct) => {
                        let w = int_width(ct).unwrap_or(4);
                        let (n, start) = self.r.count_prefix(t, w)?;
                        self.count_leaf(ct, t, n, site);
                        (n, start)
                    }
                    Count::Sum(_) => (0, t),
                    Count::ToNext => {
                        let rank = self.c.target_rank(st, fi);
                        let ls = site.named("elements");
                        let end = self.seq(of, t, at, Some(rank), &ls, &st.name, field)?;
                        return Ok(Some(end));
                    }
                };
                let ls = site.named("elements");
                self.list(of, n, start, at, &ls, &st.name, field)?;
                Ok(None)
            }
            Type::Switch { union, tag } => {
                let Some(TypeDef::Union(u)) = self.c.get(union) else {
                    return Err(InterpError::invalid(
                        at,
                        format!("`{union}` is not a union"),
                    ));
                };
                let (tag_pos, tag_raw) = sibling(tag).unwrap_or((at, 0));
                self.payload(u, tag_raw, t, at, tag_pos, site)?;
                Ok(None)
            }
            Type::Select { union, hook } => {
                let Some(TypeDef::Union(u)) = self.c.get(union) else {
                    return Err(InterpError::invalid(
                        at,
                        format!("`{union}` is not a union"),
                    ));
                };
                let tag = match self.hooks.select(hook, &self.r.select_cx(t)) {
                    None => return Err(ext::no_glue(at, hook)),
                    Some(Some(tag)) => tag,
                    Some(None) => return Err(self.r.no_variant(at, union, t)),
                };
                self.payload(u, tag, t, at, at, site)?;
                Ok(None)
            }
            Type::Pool {} => {
                let rank = self.c.target_rank(st, fi);
                let end = self.r.list_end(t, Some((rank, at)));
                let pool = self.r.pool_strings(at, t, end)?;
                self.pool_node(&pool, t, site);
                Ok(None)
            }
            other => {
                let size = self.c.fixed_size(other).unwrap_or(0);
                self.r.charge(at, size)?;
                let ts = site.named("value");
                let end = self.inline(other, t, &ts, &st.name, field)?;
                Ok(Some(end))
            }
        }
    }

    /// The count of a list stored beside its elements (`Before`, `Prefix`).
    fn count_leaf(&mut self, ct: &Type, pos: u64, n: u64, site: &Site) {
        let mut node = Node::new(
            "count",
            format!("{}.count", site.path),
            pos,
            type_label(ct),
            site.unknown,
            Kind::Derived {
                raw: n,
                meaning: "number of elements".into(),
            },
        );
        node.size = int_width(ct).unwrap_or(4);
        self.leaf(node);
    }

    /// `n` elements of `of` from `start`, as one node appended to the open one.
    #[allow(clippy::too_many_arguments)]
    fn list(
        &mut self,
        of: &'c Type,
        n: u64,
        start: u64,
        at: u64,
        site: &Site,
        owner: &str,
        field: &str,
    ) -> R<()> {
        let esize = self.c.fixed_size(of).unwrap_or(1);
        self.r.check_count(at, start, n, esize)?;
        let esize = esize.max(1);
        let ty = format!("{}[{n}]", type_label(of));
        let numbers = is_number(of);
        let kind = if numbers {
            Kind::Numbers { values: Vec::new() }
        } else {
            Kind::Seq
        };
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            start,
            ty,
            site.unknown,
            kind,
        );
        node.size = n * esize;
        self.open(node);
        if n == 0 {
            self.close();
            return Ok(());
        }
        self.r.enter(at, start, n * esize)?;
        let mut q = start;
        if matches!(of, Type::U8) {
            self.memory.reserve(at, n)?;
            let bytes = self.r.bytes(start, n)?.to_vec();
            self.top().kind = Kind::Octets { values: bytes };
        } else if numbers {
            self.memory
                .reserve(at, n.saturating_mul(std::mem::size_of::<Value>() as u64))?;
            let mut values = Vec::with_capacity(n as usize);
            for i in 0..n as usize {
                let (v, w) = self.number(of, q).map_err(|e| e.at_index(i))?;
                values.push(v);
                q += w;
            }
            self.top().kind = Kind::Numbers { values };
        } else {
            for i in 0..n as usize {
                q = self
                    .inline(of, q, &site.index(i), owner, field)
                    .map_err(|e| e.at_index(i))?;
            }
            // Elements that differ in size end where the last one does.
            self.top().size = q - start;
        }
        self.r.leave();
        self.close();
        Ok(())
    }

    /// The payload of union `u` that `tag` selects, at `pos`; appended to the open node.
    fn payload(
        &mut self,
        u: &'c UnionDef,
        tag: u64,
        pos: u64,
        field_pos: u64,
        tag_pos: u64,
        site: &Site,
    ) -> R<()> {
        let v = ext::variant_by_tag(u, tag, tag_pos)?;
        let (vs, mut node) = variant_node(u, v, v.name.as_str().into(), site, pos);
        node.size = self.c.fixed_size(&v.ty).unwrap_or(0);
        self.open(node);
        let result = match &v.ty {
            Type::List { of, count } => {
                let counted = match &**count {
                    // Up to the next target: a payload of bytes kept as they are.
                    Count::ToNext => {
                        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
                        Ok((self.r.bound_after(pos).saturating_sub(pos) / esize, pos))
                    }
                    Count::Sum(_) => Ok((0, pos)),
                    Count::Before(ct) => {
                        let w = int_width(ct).unwrap_or(4);
                        self.r.count_before(field_pos, pos, w).map(|(n, cpos)| {
                            self.count_leaf(ct, cpos, n, &vs);
                            (n, pos)
                        })
                    }
                    Count::Prefix(ct) => {
                        let w = int_width(ct).unwrap_or(4);
                        self.r.count_prefix(pos, w).map(|(n, start)| {
                            self.count_leaf(ct, pos, n, &vs);
                            (n, start)
                        })
                    }
                    Count::Field(_) | Count::End(_) => Ok((0, pos)),
                };
                counted.and_then(|(n, start)| {
                    let ls = vs.named("elements");
                    self.list(of, n, start, field_pos, &ls, &u.name, &v.name)
                })
            }
            Type::Ptr(ptr) => self
                .ptr_in_payload(ptr, pos, &vs.named("value"), &u.name, &v.name)
                .map(|_| ()),
            t => {
                let charged = match self.c.fixed_size(t) {
                    Some(n) => self.r.charge(field_pos, n),
                    None => Ok(()),
                };
                charged.and_then(|()| {
                    let ps = vs.named("value");
                    self.inline(t, pos, &ps, &u.name, &v.name).map(|_| ())
                })
            }
        };
        result.map_err(|e| e.within(PathSeg::Variant(v.name.clone().into())))?;
        // The variant spans its payload (and a count stored before it).
        let top = self.top();
        let lo = top.children.iter().map(|c| c.offset).min().unwrap_or(pos);
        let hi = top
            .children
            .iter()
            .map(|c| c.offset + c.size + str_pad(c))
            .max()
            .unwrap_or(pos);
        top.offset = lo;
        top.size = hi - lo;
        self.close();
        Ok(())
    }

    /// A value of inline type `t` at `pos`, appended to the open node;
    /// returns the position after it. `owner` and `field` name the struct
    /// field it belongs to (for bitfield struct names).
    fn inline(&mut self, t: &'c Type, pos: u64, site: &Site, owner: &str, field: &str) -> R<u64> {
        let ty = self.label(t);
        let mk = |kind: Kind, size: u64| {
            let mut n = Node::new(
                site.name.clone(),
                site.path.clone(),
                pos,
                ty.clone(),
                site.unknown,
                kind,
            );
            n.size = size;
            n
        };
        match t {
            Type::U8
            | Type::U16
            | Type::U24
            | Type::U32
            | Type::U64
            | Type::I8
            | Type::I16
            | Type::I32
            | Type::I64
            | Type::F32
            | Type::F64
            | Type::Bool8
            | Type::Bool32 => {
                let (value, w) = self.number(t, pos)?;
                self.leaf(mk(Kind::Number { value }, w));
                Ok(pos + w)
            }
            Type::Magic(m) => {
                let bytes = codec_schema::magic_bytes(m);
                let n = bytes.len() as u64;
                self.r.magic(pos, &bytes)?;
                self.leaf(mk(Kind::Magic { text: m.clone() }, n));
                Ok(pos + n)
            }
            Type::Bytes(n) => {
                let bytes = self.r.bytes(pos, *n)?.to_vec();
                self.leaf(mk(Kind::Bytes { bytes }, *n));
                Ok(pos + n)
            }
            Type::CString {
                max,
                pad,
                lossless: true,
                encoding: codec_schema::Encoding::Utf8,
                size: None,
            } => {
                let (text, end) = self.r.text_at(pos, *max, *pad)?;
                let kind = match text {
                    codec_runtime::Text::Utf8(s) => Kind::Str {
                        value: s.to_string(),
                        pad: 0,
                    },
                    codec_runtime::Text::Bytes(b) => Kind::Bytes {
                        bytes: b.into_vec(),
                    },
                };
                let used = match &kind {
                    Kind::Str { value, .. } => value.len() as u64 + 1,
                    Kind::Bytes { bytes } => bytes.len() as u64 + 1,
                    _ => 0,
                };
                let mut node = mk(kind, used);
                if let Kind::Str { pad, .. } = &mut node.kind {
                    *pad = end - pos - used;
                }
                self.note_zeros(&mut node, pos + used, end);
                self.leaf(node);
                Ok(end)
            }
            Type::CString {
                max,
                pad,
                encoding,
                size,
                ..
            } => {
                let unit = encoding.unit();
                let units_of = |s: &str| match encoding {
                    codec_schema::Encoding::Utf8 => s.len(),
                    codec_schema::Encoding::Utf16 => s.encode_utf16().count(),
                    codec_schema::Encoding::Utf32 => s.chars().count(),
                } as u64;
                let (s, end, used) = match (encoding, size) {
                    (_, Some(n)) => {
                        let (s, end) = self.r.cstring_sized_at(pos, *n, unit)?;
                        let used = (units_of(&s) + 1) * unit;
                        (s, end, used)
                    }
                    (codec_schema::Encoding::Utf8, None) => {
                        let (s, end) = self.r.cstring_at(pos, *max, *pad)?;
                        let used = s.len() as u64 + 1;
                        (s, end, used)
                    }
                    (_, None) => {
                        let (s, end) = self.r.cstring_units_at(pos, unit, *max, *pad)?;
                        let used = (units_of(&s) + 1) * unit;
                        (s, end, used)
                    }
                };
                let mut node = mk(
                    Kind::Str {
                        value: s.to_string(),
                        pad: end - pos - used,
                    },
                    used,
                );
                self.note_zeros(&mut node, pos + used, end);
                self.leaf(node);
                Ok(end)
            }
            Type::Text {
                tags,
                encoding,
                lossless,
            } => self.text(tags.as_deref(), *encoding, *lossless, pos, site),
            Type::PString { len, encoding, nul } => {
                let w = int_width(len).unwrap_or(1);
                let (s, end) = self.r.prefixed_string_at(pos, w, encoding.unit(), *nul)?;
                let node = mk(
                    Kind::Str {
                        value: s.to_string(),
                        pad: 0,
                    },
                    end - pos,
                );
                self.leaf(node);
                Ok(end)
            }
            Type::Named(n) => match self.c.get(n) {
                Some(TypeDef::Struct(def)) => {
                    self.record(def, pos, site.name.clone(), site.path.clone(), site.unknown)
                }
                Some(TypeDef::Union(u)) => self.tagged_union(u, pos, site),
                None => Err(InterpError::invalid(pos, format!("`{n}` is not a type"))),
            },
            Type::Array { of, len } => {
                let mut node = mk(Kind::Seq, 0);
                // Bytes as one slice; when they run past the end, element
                // by element below, for the compiled codec's error.
                if let (Type::U8, Ok(bytes)) = (&**of, self.r.bytes(pos, *len)) {
                    self.memory.reserve(pos, *len)?;
                    node.kind = Kind::Octets {
                        values: bytes.to_vec(),
                    };
                    node.size = *len;
                    self.leaf(node);
                    return Ok(pos + len);
                }
                if is_number(of) {
                    self.memory
                        .reserve(pos, len.saturating_mul(std::mem::size_of::<Value>() as u64))?;
                    let mut values = Vec::with_capacity(*len as usize);
                    let mut q = pos;
                    for i in 0..*len as usize {
                        let (v, w) = self.number(of, q).map_err(|e| e.at_index(i))?;
                        values.push(v);
                        q += w;
                    }
                    node.kind = Kind::Numbers { values };
                    node.size = q - pos;
                    self.leaf(node);
                    return Ok(q);
                }
                self.open(node);
                let mut q = pos;
                for i in 0..*len as usize {
                    q = self
                        .inline(of, q, &site.index(i), owner, field)
                        .map_err(|e| e.at_index(i))?;
                }
                self.top().size = q - pos;
                self.close();
                Ok(q)
            }
            Type::Bits { word, fields } => {
                let w = int_width(word).unwrap_or(4);
                let raw = self.read_uint(word, pos)?;
                // Ranges that are string offsets, read from their pools.
                let mut strs = Vec::new();
                for (b, shift, mask) in codec_schema::bit_ranges(fields) {
                    if let Some(pool) = &b.str {
                        let id = self.c.section_id(pool).unwrap_or(0);
                        let v = (raw.checked_shr(shift).unwrap_or(0)) & mask;
                        strs.push(Some(self.r.pool_str(id, pos, v)?.to_string()));
                    } else {
                        strs.push(None);
                    }
                }
                let mut node = mk(
                    Kind::Bits {
                        word: raw,
                        struct_name: bits_struct_name(owner, field),
                    },
                    w,
                );
                for (bn_i, (b, low, mask)) in codec_schema::bit_ranges(fields).enumerate() {
                    let v = (raw.checked_shr(low).unwrap_or(0)) & mask;
                    let value = match b.bits {
                        _ if strs[bn_i].is_some() => {
                            Value::Str(strs[bn_i].clone().unwrap_or_default())
                        }
                        1 => Value::Bool(v == 1),
                        2..=8 => Value::U8(v as u8),
                        9..=16 => Value::U16(v as u16),
                        17..=32 => Value::U32(v as u32),
                        _ => Value::U64(v),
                    };
                    let mut bn = Node::new(
                        b.name.clone(),
                        format!("{}.{}", site.path, b.name),
                        pos,
                        format!("bits {}..{}", low, low + b.bits),
                        site.unknown || codec_schema::is_unknown_name(&b.name),
                        Kind::BitRange {
                            low,
                            bits: b.bits,
                            value,
                        },
                    );
                    bn.size = 0;
                    bn.doc = b.doc.clone().into();
                    node.children.push(bn);
                }
                self.leaf(node);
                Ok(pos + w)
            }
            Type::Fixed { raw, frac } if is_number(raw) => {
                let (value, w) = self.number(raw, pos)?;
                self.leaf(mk(Kind::Fixed { value, frac: *frac }, w));
                Ok(pos + w)
            }
            Type::Ref {
                width,
                base,
                scale,
                to,
            } => {
                let w = int_width(width).unwrap_or(4);
                let raw = self.read_uint(width, pos)?;
                let id = self.c.type_id(to).unwrap_or(usize::MAX);
                let i = self.r.resolve_ref(
                    pos,
                    id,
                    to,
                    base_of(base, pos, self.c, &self.r),
                    raw,
                    *scale,
                )?;
                self.leaf(mk(
                    Kind::Number {
                        value: Value::U32(i),
                    },
                    w,
                ));
                Ok(pos + w)
            }
            Type::Str { pool, width } => {
                let w = int_width(width).unwrap_or(4);
                let raw = self.read_uint(width, pos)?;
                let id = self.c.section_id(pool).unwrap_or(0);
                let s = self.r.pool_str(id, pos, raw)?;
                self.leaf(mk(
                    Kind::Str {
                        value: s.to_string(),
                        pad: 0,
                    },
                    w,
                ));
                Ok(pos + w)
            }
            Type::Hash { .. }
            | Type::Rows { .. }
            | Type::Follows { .. }
            | Type::List { .. }
            | Type::Pool { .. }
            | Type::Groups { .. }
            | Type::Select { .. }
            | Type::Ptr(_)
            | Type::Switch { .. } => {
                // The checker keeps these out of inline positions, but
                // for what it does not check yet: named, with where.
                Err(InterpError::invalid(
                    pos,
                    format!(
                        "the schema interpreter does not read {} here (an element, a payload or \
                         an offset's target): only as a record's field",
                        type_label(t)
                    ),
                ))
            }
            Type::Index { table, width } => self.index_inline(table, width, pos, site),
            Type::Table { .. } => Err(InterpError::invalid(
                pos,
                "a string table is read as a record's field (its count is a sibling)",
            )),
            // Read as a record's fields, never inline (the checker keeps
            // them there): padding and hash slots need the record's start,
            // a writer's choice has no bytes.
            Type::Pad { .. } | Type::HashSlots { .. } | Type::SharesEqual { .. } => {
                Err(InterpError::invalid(
                    pos,
                    format!(
                        "{} is read as a record's field only, not as an element, a payload or \
                         an offset's target",
                        type_label(t)
                    ),
                ))
            }
            Type::Fixed { .. } => Err(InterpError::invalid(
                pos,
                "a fixed-point number's raw type is not a number",
            )),
        }
    }
}

/// A number as an unsigned integer (a tag read into a list of numbers).
fn value_u64(v: &Value) -> Option<u64> {
    Some(match *v {
        Value::U8(x) => u64::from(x),
        Value::U16(x) => u64::from(x),
        Value::U32(x) => u64::from(x),
        Value::U64(x) => x,
        Value::I8(x) => x as u64,
        Value::I16(x) => x as u64,
        Value::I32(x) => x as u64,
        Value::I64(x) => x as u64,
        _ => return None,
    })
}

/// The padding after a string's NUL (0 for anything else).
fn str_pad(n: &Node) -> u64 {
    match n.kind {
        Kind::Str { pad, .. } => pad,
        _ => 0,
    }
}

/// The base an offset counts from; `rec` is the record's start. A unit's
/// offsets count from its start, which is 0 in the unit's own bytes (a unit
/// is read on its own, see `ext::Run::unit`).
fn base_of(b: &Base, rec: u64, c: &Checked, r: &Reader<'_>) -> u64 {
    c.offset_base(b).resolve(rec, |id| r.section_base(id))
}

/// The runtime's width of an unsigned integer type (`U32` for others).
fn runtime_width(t: &Type) -> codec_runtime::Width {
    match t {
        Type::U8 => codec_runtime::Width::U8,
        Type::U16 => codec_runtime::Width::U16,
        Type::U24 => codec_runtime::Width::U24,
        Type::U64 => codec_runtime::Width::U64,
        _ => codec_runtime::Width::U32,
    }
}
