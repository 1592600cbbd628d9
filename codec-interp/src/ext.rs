//! The constructs that units, tables and variants brought (BDAT, AINB):
//! units read on their own bytes (through their glue transform), hash
//! indexes, row regions, references, `Follows`, lists inline in a record or
//! up to the next target, groups, string pools and unions chosen by glue.
//! Each step mirrors `codec-derive`'s `constructs.rs` and `layout.rs`.
//!
//! Glue reaches the interpreter through [`Hooks`], which the crate that
//! owns the glue (`formats`) implements, looked up by the names the schema
//! declares.

use super::{
    base_of, variant_node, InterpError, Kind, Node, Open, Run, ShapeField, Site, Value, R,
};
use codec_runtime::{DecodeResult, EncodeResult, Endian, SelectCx, StringPool};
use codec_schema::{int_width, Base, Checked, Count, Derive, Field, StructDef, Type, TypeDef};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The glue functions a schema names, by name.
pub trait Hooks {
    /// Applies the unit transform `name` (a layout's `transform.decode`) to
    /// the bytes from the unit's start to the end of the file; `None` when
    /// no glue has that name.
    fn transform<'a>(
        &self,
        name: &str,
        bytes: &'a [u8],
        endian: Endian,
    ) -> Option<DecodeResult<Cow<'a, [u8]>>>;

    /// Runs the `Select` chooser `name`: the variant's tag, or `Some(None)`
    /// when no variant fits; `None` when no glue has that name.
    fn select(&self, name: &str, cx: &SelectCx<'_>) -> Option<Option<u64>>;

    /// Encode: hashes the sort key `key` of a list's element with glue
    /// `name` (a `KeyHash` field) seeded by `seed`; `None` when no glue has
    /// that name.
    fn key_hash(&self, name: &str, key: &[u8], seed: u64) -> Option<u64> {
        let _ = (name, key, seed);
        None
    }

    /// Encode: applies the unit transform `name` (a layout's
    /// `transform.encode`) to a unit laid out on its own, in place; `None`
    /// when no glue has that name.
    fn transform_encode(
        &self,
        name: &str,
        bytes: &mut [u8],
        endian: Endian,
    ) -> Option<EncodeResult<()>> {
        let _ = (name, bytes, endian);
        None
    }

    /// Encode: the checksum glue `name` computes over `bytes` (a
    /// `Checksum` field's range); `None` when no glue has that name.
    fn checksum(&self, name: &str, bytes: &[u8]) -> Option<u64> {
        let _ = (name, bytes);
        None
    }

    /// Encode: the hash glue `name` gives a record's key in a hash index
    /// (`Hash`, before the modulo by the slot count); `None` when no glue
    /// has that name.
    fn index_hash(&self, name: &str, key: &[u8]) -> Option<u64> {
        let _ = (name, key);
        None
    }

    /// Encode: the alignment glue `name` (a `Kept` alignment) chooses for a
    /// target `value` that has none (a new one); `None` when no glue has
    /// that name.
    fn kept_align(&self, name: &str, value: &super::Value) -> Option<u64> {
        let _ = (name, value);
        None
    }

    /// Encode: the records a section ordered by glue `name` visits, in
    /// that order, found in the document `root` (its generic form); `None`
    /// when no glue has that name.
    fn visit_order<'v>(
        &self,
        name: &str,
        root: &'v super::Value,
    ) -> Option<Result<Vec<&'v super::Value>, String>> {
        let _ = (name, root);
        None
    }
}

/// No glue at all: schemas that name glue are refused where they need it.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {
    fn transform<'a>(
        &self,
        _: &str,
        _: &'a [u8],
        _: Endian,
    ) -> Option<DecodeResult<Cow<'a, [u8]>>> {
        None
    }

    fn select(&self, _: &str, _: &SelectCx<'_>) -> Option<Option<u64>> {
        None
    }
}

/// Facts about the schema a run needs again and again.
#[derive(Debug, Default)]
pub(super) struct Facts {
    /// Types that a `Ref` points at (their records' positions are noted).
    pub ref_targets: HashSet<String>,
    /// Does a list run to the next target anywhere?
    pub uses_to_next: bool,
    /// Does a value end where the next target starts anywhere
    /// ([`Checked::ends_at_next_target`], asked once per run, not per record)?
    pub ends_at_next_target: bool,
    /// The typed value's fields of each struct.
    pub shapes: HashMap<String, std::sync::Arc<[ShapeField]>>,
}

impl Facts {
    pub fn of(c: &Checked) -> Facts {
        let mut f = Facts {
            ref_targets: c
                .schema
                .types
                .iter()
                .filter_map(|t| match t {
                    TypeDef::Struct(s) if c.is_ref_target(&s.name) => Some(s.name.clone()),
                    _ => None,
                })
                .collect(),
            uses_to_next: c.uses_to_next(),
            ends_at_next_target: c.ends_at_next_target(),
            shapes: HashMap::new(),
        };
        // The Rust type's fields: the schema as written, first of each
        // name, stored ones only. A default is built only for a field this
        // variant's record lacks (one whose `when` fails here): the only
        // field `Node::to_value` fills in. Built for every field, a schema's
        // defaults were built before a byte was read, without limit (issue
        // 70: a 64 GiB array of zeros, a self-reference without end, a
        // chain of inline records quadratic in its length); the checker
        // bounds the defaults a variant's missing field takes.
        for t in &c.base().types {
            let TypeDef::Struct(s) = t else { continue };
            let here: HashSet<&str> = match c.get(&s.name) {
                Some(TypeDef::Struct(v)) => v
                    .fields
                    .iter()
                    .filter(|x| Checked::is_stored(x))
                    .map(|x| x.name.as_str())
                    .collect(),
                _ => HashSet::new(),
            };
            let mut seen = HashSet::new();
            let shape = s
                .fields
                .iter()
                .filter(|x| Checked::is_stored(x))
                .filter(|x| seen.insert(x.name.clone()))
                .map(|x| ShapeField {
                    name: x.name.clone(),
                    default: if here.contains(x.name.as_str()) {
                        Value::Unit
                    } else {
                        default_value(c, &x.ty, &s.name, &x.name)
                    },
                    optional: matches!(&x.ty, Type::Ptr(p) if p.optional),
                })
                .collect();
            f.shapes.insert(s.name.clone(), shape);
        }
        f
    }
}

/// The value the generated type's `Default` gives a field of type `t`.
/// The checker lets a field that only some variants hold be only of a type
/// whose default is small (a number, up to 32 bytes, a string, a list).
fn default_value(c: &Checked, t: &Type, owner: &str, field: &str) -> Value {
    match t {
        Type::U8 => Value::U8(0),
        Type::U16 => Value::U16(0),
        Type::U24 | Type::U32 => Value::U32(0),
        Type::U64 => Value::U64(0),
        Type::I8 => Value::I8(0),
        Type::I16 => Value::I16(0),
        Type::I32 => Value::I32(0),
        Type::I64 => Value::I64(0),
        Type::F32 => Value::F32(0.0),
        Type::F64 => Value::F64(0.0),
        Type::Bool8 | Type::Bool32 => Value::Bool(false),
        Type::Fixed { raw, .. } => default_value(c, raw, owner, field),
        Type::Bytes(n) => Value::Seq(vec![Value::U8(0); *n as usize]),
        Type::CString { .. } | Type::PString { .. } | Type::Str { .. } => Value::Str(String::new()),
        Type::Array { of, len } => {
            Value::Seq(vec![default_value(c, of, owner, field); *len as usize])
        }
        Type::List { .. } | Type::Rows { .. } => Value::Seq(Vec::new()),
        Type::Ref { .. } => Value::U32(0),
        Type::Ptr(p) if p.optional => Value::Option(None),
        Type::Ptr(p) => default_value(c, &p.to, owner, field),
        Type::Follows { to, .. } => default_value(c, to, owner, field),
        Type::Pool {} => Value::Struct {
            name: "StringPool".into(),
            fields: vec![
                ("strings".into(), Value::Seq(Vec::new())),
                ("odd".into(), Value::Seq(Vec::new())),
            ],
        },
        Type::Bits { fields, .. } => Value::Struct {
            name: super::bits_struct_name(owner, field),
            fields: fields
                .iter()
                .map(|b| {
                    let v = match b.bits {
                        _ if b.str.is_some() => Value::Str(String::new()),
                        1 => Value::Bool(false),
                        2..=8 => Value::U8(0),
                        9..=16 => Value::U16(0),
                        17..=32 => Value::U32(0),
                        _ => Value::U64(0),
                    };
                    (b.name.clone(), v)
                })
                .collect(),
        },
        Type::Named(n) => match c.get(n) {
            Some(TypeDef::Struct(s)) => Value::Struct {
                name: n.clone(),
                fields: s
                    .fields
                    .iter()
                    .filter(|x| Checked::is_stored(x))
                    .map(|x| (x.name.clone(), default_value(c, &x.ty, n, &x.name)))
                    .collect(),
            },
            _ => Value::Unit,
        },
        _ => Value::Unit,
    }
}

/// The variant of `u` whose tag is `tag`, or the runtime's `UnknownTag`
/// error at `pos`: how a union whose tag the interpreter read itself (a tag
/// in front, a row cell's type) picks its variant, as the generated code does.
pub(super) fn variant_by_tag(
    u: &codec_schema::UnionDef,
    tag: u64,
    pos: u64,
) -> R<&codec_schema::Variant> {
    u.variant_for(tag).ok_or_else(|| {
        let reserved: Vec<(u64, &str, &str)> = u
            .reserved
            .iter()
            .map(|r| (r.tag, r.name.as_str(), r.doc.as_str()))
            .collect();
        codec_runtime::error::unknown_tag(pos, u.name.clone(), tag, &reserved)
    })
}

/// The error for glue the schema names but no hook supplies.
pub(super) fn no_glue(pos: u64, name: &str) -> InterpError {
    InterpError::invalid(
        pos,
        format!("the schema names glue `{name}`, which the interpreter was not given"),
    )
}

/// Moves every offset of `n` and below by `by` (a unit's nodes, read on its own bytes).
fn shift(n: &mut Node, by: u64) {
    n.offset += by;
    if let Kind::Offset {
        target: Some(t), ..
    } = &mut n.kind
    {
        *t += by;
    }
    for p in &mut n.padding {
        *p = (p.0 + by, p.1 + by);
    }
    for c in &mut n.children {
        shift(c, by);
    }
}

/// Widens `span` by what node `n` holds in place: its bytes, its padding
/// and its children's, but not the targets of its offsets (they lie in
/// sections of their own).
fn own_extent(n: &Node, span: &mut Option<(u64, u64)>) {
    let mut add = |a: u64, b: u64| {
        if b > a {
            *span = Some(span.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b))));
        }
    };
    // A string's pad belongs to it, zero or not.
    add(
        n.offset,
        n.offset.saturating_add(n.size + super::str_pad(n)),
    );
    for &(a, b) in &n.padding {
        add(a, b);
    }
    if matches!(n.kind, Kind::Offset { .. }) {
        return;
    }
    for c in &n.children {
        own_extent(c, span);
    }
}

impl<'c> Run<'c, '_> {
    /// Notes `from..to` as padding of `node` when the bytes there, in this
    /// run's data, are all zero.
    pub(super) fn note_zeros(&self, node: &mut Node, from: u64, to: u64) {
        if to > from && self.zeros(from, to) {
            node.padding.push((from, to));
        }
    }

    /// Are the bytes `from..to` of this run's data there and all zero?
    fn zeros(&self, from: u64, to: u64) -> bool {
        self.r
            .data()
            .get(from as usize..to as usize)
            .is_some_and(|b| b.iter().all(|&x| x == 0))
    }

    /// The open node is an offset just followed: what its target holds in
    /// place widens the extent of `section`.
    pub(super) fn note_span(&mut self, section: Option<&str>) {
        let Some(id) = section.and_then(|s| self.c.section_id(s)) else {
            return;
        };
        let Some(open) = self.stack.last() else {
            return;
        };
        let mut span = None;
        for c in &open.node.children {
            own_extent(c, &mut span);
        }
        let Some((a, b)) = span else { return };
        if self.spans.len() <= id {
            self.spans.resize(id + 1, None);
        }
        let s = &mut self.spans[id];
        *s = Some(s.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b))));
    }

    /// The padding a unit's layout requires (in the unit's bytes, the
    /// unit's record ending at `header_end`), as `Layout` lays it out:
    /// each section starts aligned to its `align`, ends aligned to it,
    /// padded to a multiple of `pad` from its start and aligned to its
    /// `end_align`; the unit ends aligned to its `end_align`. Only the
    /// ranges that hold zeros.
    fn unit_padding(&self, layout: &codec_schema::Layout, header_end: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut push = |a: u64, b: u64| {
            if b > a && self.zeros(a, b) {
                out.push((a, b));
            }
        };
        let mut cur = header_end;
        for sec in &layout.sections {
            let aligned = codec_runtime::align_up(cur, sec.align);
            let span = self
                .c
                .section_id(&sec.name)
                .and_then(|id| self.spans.get(id).copied().flatten());
            let (start, end) = span.unwrap_or((aligned, aligned));
            if start < cur {
                // Overlaps what came before: not laid out by these rules.
                cur = cur.max(end);
                continue;
            }
            push(cur, start.min(aligned));
            let mut e = codec_runtime::align_up(end, sec.align);
            if sec.pad > 1 {
                e = start + codec_runtime::align_up(e - start, sec.pad);
            }
            e = codec_runtime::align_up(e, sec.end_align);
            push(end, e);
            cur = e;
        }
        push(cur, codec_runtime::align_up(cur, layout.end_align));
        out
    }

    pub(super) fn shape(&self, name: &str) -> std::sync::Arc<[ShapeField]> {
        self.facts
            .shapes
            .get(name)
            .cloned()
            .unwrap_or_else(|| Vec::new().into())
    }

    /// The value of a stored field of the open record read so far
    /// (`header.count` descends into inline records), as an unsigned integer.
    pub(super) fn stored_u64(&mut self, path: &str) -> Option<u64> {
        self.stored_u64_in(0, path)
    }

    /// [`Run::stored_u64`] of the node `up` levels below the open one.
    pub(super) fn stored_u64_in(&mut self, up: usize, path: &str) -> Option<u64> {
        let i = self.stack.len().checked_sub(1 + up)?;
        let mut node = &self.stack[i].node;
        for part in path.split('.') {
            node = node.children.iter().find(|c| c.name == part)?;
        }
        let v = match &node.kind {
            Kind::Number { value } | Kind::Fixed { value, .. } => value.clone(),
            Kind::Derived { raw, .. } => return Some(*raw),
            _ => return None,
        };
        Some(match v {
            Value::U8(x) => x as u64,
            Value::U16(x) => x as u64,
            Value::U32(x) => x as u64,
            Value::U64(x) => x,
            Value::I8(x) => x as u64,
            Value::I16(x) => x as u64,
            Value::I32(x) => x as u64,
            Value::I64(x) => x as u64,
            Value::Bool(b) => b as u64,
            _ => return None,
        })
    }

    /// Closes a reopened placeholder, replacing it with the one node it received.
    pub(super) fn close_filled(&mut self) {
        if let Some(open) = self.stack.last_mut() {
            if open.node.children.len() == 1 {
                let mut child = open.node.children.pop().expect("one child");
                child.doc = std::mem::take(&mut open.node.doc);
                open.node = child;
            }
        }
        self.close();
    }

    /// Before the fields: every pool the struct locates learns its start.
    pub(super) fn pool_prestep(&mut self, st: &StructDef, pos: u64) {
        let offsets = self.c.field_offsets(st);
        for (f, off) in st.fields.iter().zip(&offsets) {
            let Type::Ptr(p) = &f.ty else { continue };
            if !matches!(p.to, Type::Pool {}) {
                continue;
            }
            let (Some(off), Some(sec)) = (off, p.section.as_deref()) else {
                continue;
            };
            let id = self.c.section_id(sec).unwrap_or(0);
            if let Ok(raw) = self.read_uint(&p.width, pos + off) {
                if let Ok(t) = self.r.target(
                    pos + off,
                    base_of(&p.base, pos, self.c, &self.r),
                    raw,
                    p.scale,
                ) {
                    self.r.set_pool(id, t);
                }
            }
        }
    }

    /// After the offsets were followed: each pool learns the references
    /// that missed its strings' starts.
    pub(super) fn pool_poststep(&mut self, st: &StructDef) {
        for (i, f) in st.fields.iter().enumerate() {
            let Type::Ptr(p) = &f.ty else { continue };
            if !matches!(p.to, Type::Pool {}) {
                continue;
            }
            let Some(sec) = p.section.as_deref() else {
                continue;
            };
            let id = self.c.section_id(sec).unwrap_or(0);
            let Some(open) = self.stack.last_mut() else {
                return;
            };
            let Some(pool) = open
                .node
                .children
                .get_mut(i)
                .and_then(|o| o.children.last_mut())
            else {
                continue;
            };
            let strings: Vec<codec_runtime::Str> = pool
                .children
                .first()
                .map(|s| {
                    s.children
                        .iter()
                        .map(|n| match &n.kind {
                            Kind::Str { value, .. } => codec_runtime::Str::new(value),
                            _ => codec_runtime::Str::default(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let odd = self.r.odd_refs(id, &strings);
            let path = format!("{}.odd", pool.path);
            if let Some(o) = pool.children.get_mut(1) {
                o.children = odd
                    .into_iter()
                    .enumerate()
                    .map(|(k, (off, s))| {
                        let mut n = Node::new(
                            format!("[{k}]"),
                            format!("{path}[{k}]"),
                            o.offset,
                            "(u64, string)",
                            false,
                            Kind::Seq,
                        );
                        n.children = vec![
                            Node::new(
                                "0",
                                n.path.clone(),
                                o.offset,
                                "u64",
                                false,
                                Kind::Number {
                                    value: Value::U64(off),
                                },
                            ),
                            Node::new(
                                "1",
                                n.path.clone(),
                                o.offset,
                                "string",
                                false,
                                Kind::Str {
                                    value: s.to_string(),
                                    pad: 0,
                                },
                            ),
                        ];
                        n
                    })
                    .collect();
            }
        }
    }

    /// A pool's strings, as a `StringPool` record appended to the open node.
    pub(super) fn pool_node(&mut self, pool: &StringPool, start: u64, site: &Site) {
        let mut strings = Node::new(
            "strings",
            format!("{}.strings", site.path),
            start,
            format!("string[{}]", pool.strings.len()),
            site.unknown,
            Kind::Seq,
        );
        let mut q = start;
        for (k, s) in pool.strings.iter().enumerate() {
            let mut n = Node::new(
                format!("[{k}]"),
                format!("{}.strings[{k}]", site.path),
                q,
                "string",
                site.unknown,
                Kind::Str {
                    value: s.to_string(),
                    pad: 0,
                },
            );
            n.size = s.len() as u64 + 1;
            q += n.size;
            strings.children.push(n);
        }
        strings.size = q - start;
        let odd = Node::new(
            "odd",
            format!("{}.odd", site.path),
            q,
            "(u64, string)[]",
            site.unknown,
            Kind::Seq,
        );
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            start,
            "string pool",
            site.unknown,
            Kind::Record {
                type_name: "StringPool".into(),
                shape: Vec::new().into(),
            },
        );
        node.size = q - start;
        node.children = vec![strings, odd];
        self.leaf(node);
    }

    /// After the fields were read: the column's cells join the row layout;
    /// a unit (or the root) learns the targets that end `ToNext` lists.
    pub(super) fn post_notes(&mut self, st: &StructDef, pos: u64, raws: &[Option<(u64, u64)>]) {
        if let Some(oi) = st
            .fields
            .iter()
            .position(|f| matches!(f.derive, Some(Derive::CellOffset(_))))
        {
            let (tag_field, count_field) = self.c.cell_fields(st);
            if let Some(ti) =
                tag_field.and_then(|t| st.fields.iter().position(|f| f.name == t.name))
            {
                let offsets = self.c.field_offsets(st);
                let tag_pos = offsets[ti].map_or(pos, |o| pos + o);
                let tag = self.stored_u64(&st.fields[ti].name).unwrap_or(0);
                let count = match count_field {
                    Some(c) => self.stored_u64(&c.name).unwrap_or(0),
                    None => 1,
                };
                let offset = raws[oi].map_or(0, |(_, v)| v);
                self.r.push_cell(codec_runtime::CellSlot {
                    tag,
                    count,
                    offset,
                    size: 0,
                    tag_pos,
                });
            }
        }
        let layout_root = st.name == self.c.schema.root || st.layout.is_some();
        if layout_root && self.facts.uses_to_next {
            let mut bounds = Vec::new();
            for (f, r) in st.fields.iter().zip(raws) {
                let Some((_, raw)) = r else { continue };
                match (&f.ty, &f.derive) {
                    (Type::Ptr(p), _) => bounds.push(
                        raw.saturating_mul(p.scale)
                            .saturating_add(base_of(&p.base, pos, self.c, &self.r)),
                    ),
                    (_, Some(Derive::SectionStart(_))) => bounds.push(*raw),
                    _ => {}
                }
            }
            self.r.set_bounds(bounds);
        }
    }

    /// Registers the targets of the offsets a record at `pos` holds at
    /// fixed positions (its own and its inline structs').
    pub(super) fn note_targets(&mut self, st: &StructDef, pos: u64) {
        let offsets = self.c.field_offsets(st);
        for (fi, (f, off)) in st.fields.iter().zip(&offsets).enumerate() {
            let Some(off) = off else { break };
            match &f.ty {
                Type::Ptr(p) => {
                    let rank = self.c.target_rank(st, fi);
                    if let Ok(raw) = self.read_uint(&p.width, pos + off) {
                        if !(p.optional && raw == 0) {
                            if let Ok(t) = self.r.target(
                                pos + off,
                                base_of(&p.base, pos, self.c, &self.r),
                                raw,
                                p.scale,
                            ) {
                                self.r.add_bound(t, rank, pos + off);
                            }
                        }
                    }
                }
                Type::Named(n) => {
                    if let Some(TypeDef::Struct(s)) = self.c.get(n) {
                        self.note_targets(s, pos + off);
                    }
                }
                _ => {}
            }
        }
    }

    /// The count of an inline list: a derived sibling's raw value, stored
    /// fields (`a.b` into an inline record), or their sum.
    fn inline_count(&mut self, st: &StructDef, count: &Count) -> u64 {
        let _ = st;
        let one = |run: &mut Self, path: &str| -> u64 { run.stored_u64(path).unwrap_or(0) };
        match count {
            Count::Field(p) => one(self, p),
            Count::Sum(ps) => ps
                .iter()
                .map(|p| one(self, p))
                .fold(0u64, u64::wrapping_add),
            _ => 0,
        }
    }

    /// A list field of record `st` at `p` (one node appended); returns the
    /// position after it. A list of offsets keeps them in `raws` to follow.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn list_field(
        &mut self,
        st: &'c StructDef,
        fi: usize,
        of: &'c Type,
        count: &Count,
        p: u64,
        site: &Site,
        raws: &mut Vec<(u64, u64)>,
    ) -> R<u64> {
        let fname = st.fields[fi].name.as_str();
        if matches!(count, Count::ToNext) {
            return self.seq(of, p, p, None, site, &st.name, fname);
        }
        let n = self.inline_count(st, count);
        if let Type::Ptr(ptr) = of {
            let w = int_width(&ptr.width).unwrap_or(4);
            self.r.check_count(p, p, n, w)?;
            let mut node = Node::new(
                site.name.clone(),
                site.path.clone(),
                p,
                format!("{}[{n}]", codec_schema::docs::type_label(of)),
                site.unknown,
                Kind::Seq,
            );
            for i in 0..n {
                let at = p + i * w;
                let raw = self
                    .read_uint(&ptr.width, at)
                    .map_err(|e| e.at_index(i as usize))?;
                raws.push((at, raw));
                let es = site.index(i as usize);
                let mut e = Node::new(
                    es.name,
                    es.path,
                    at,
                    codec_schema::docs::type_label(of),
                    es.unknown,
                    Kind::Offset {
                        raw,
                        target: None,
                        kept: None,
                    },
                );
                e.size = w;
                node.children.push(e);
            }
            node.size = n * w;
            self.leaf(node);
            return Ok(p + n * w);
        }
        let esize = self.c.fixed_size(of).unwrap_or(1);
        if let Type::Named(name) = of {
            if let Some(TypeDef::Struct(s)) = self.c.get(name) {
                // A record of no bytes has no offsets to note; its count is
                // charged to the read budget below (`list`). Counted here,
                // 2^32 - 1 of them spun for a minute (issue 70).
                if esize > 0 && self.r.check_count(p, p, n, esize).is_ok() {
                    for i in 0..n {
                        self.note_targets(s, p + i * esize);
                    }
                }
            }
        }
        self.list(of, n, p, p, site, &st.name, fname)?;
        Ok(p + n * esize)
    }

    /// Elements of `of` one after the other from `first` up to the next
    /// bound (`own`: the list's rank; `None` inline), as one node appended
    /// to the open one; returns the position after them.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq(
        &mut self,
        of: &'c Type,
        first: u64,
        at: u64,
        own: Option<u64>,
        site: &Site,
        owner: &str,
        field: &str,
    ) -> R<u64> {
        let node = Node::new(
            site.name.clone(),
            site.path.clone(),
            first,
            format!("{}[..]", codec_schema::docs::type_label(of)),
            site.unknown,
            Kind::Seq,
        );
        self.open(node);
        let mut list = codec_runtime::to_next::ToNext::begin(&mut self.r, first, at, own)?;
        while let Some(q) = list.next(&mut self.r) {
            let len = list.len();
            let next = self
                .inline(of, q, &site.index(len), owner, field)
                .map_err(|e| e.at_index(len))?;
            list.advance(&self.r, next)?;
        }
        let len = list.len();
        let q = list.finish(&mut self.r)?;
        let top = self.top();
        top.size = q - first;
        top.ty = format!("{}[{len}]", codec_schema::docs::type_label(of)).into();
        if super::is_number(of) {
            let values = top.children.drain(..).map(|c| c.to_value()).collect();
            top.kind = Kind::Numbers { values };
        }
        self.close();
        Ok(q)
    }

    /// A `Follows` field: its target starts at `t`, where the target of the
    /// field it follows ends; `at` is where that field's offset was read.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn follows(
        &mut self,
        st: &'c StructDef,
        fi: usize,
        to: &'c Type,
        t: u64,
        at: u64,
        raws: &[Option<(u64, u64)>],
        site: &Site,
    ) -> R<()> {
        let fname = st.fields[fi].name.as_str();
        match to {
            Type::List { of, count } => match &**count {
                Count::ToNext => {
                    let rank = self.c.target_rank(st, fi);
                    self.seq(of, t, at, Some(rank), site, &st.name, fname)?;
                }
                Count::Field(c) => {
                    let n = st
                        .fields
                        .iter()
                        .position(|g| &g.name == c)
                        .and_then(|j| raws[j])
                        .map_or(0, |(_, v)| v);
                    self.list(of, n, t, at, site, &st.name, fname)?;
                }
                _ => {
                    return Err(InterpError::invalid(
                        at,
                        "a Follows list counts by field or to the next target",
                    ))
                }
            },
            Type::Named(n) => match self.c.get(n) {
                Some(TypeDef::Struct(def)) => {
                    self.record(def, t, site.name.clone(), site.path.clone(), site.unknown)?;
                }
                _ => {
                    self.inline(to, t, site, &st.name, fname)?;
                }
            },
            other => {
                self.inline(other, t, site, &st.name, fname)?;
            }
        }
        Ok(())
    }

    /// A `Groups` field at `p`: (count, base) pairs, then the groups'
    /// elements one after the other; returns the position after them.
    pub(super) fn groups(
        &mut self,
        st: &'c StructDef,
        f: &'c Field,
        p: u64,
        site: &Site,
    ) -> R<u64> {
        let Type::Groups {
            of,
            groups,
            count,
            base,
        } = &f.ty
        else {
            return Ok(p);
        };
        let cw = int_width(count).unwrap_or(1);
        let bw = int_width(base).unwrap_or(1);
        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            p,
            codec_schema::docs::type_label(&f.ty),
            site.unknown,
            Kind::Seq,
        );
        let mut heads = Vec::new();
        let read = codec_runtime::groups::read_heads(&self.r, p, *groups, cw, bw, |k, hp, c, b| {
            heads.push(c);
            for (name, at, size, ty, raw, meaning) in [
                (
                    "count",
                    hp,
                    cw,
                    count,
                    c,
                    format!("number of elements of group {k}"),
                ),
                (
                    "base",
                    hp + cw,
                    bw,
                    base,
                    b,
                    format!("index of the first element of group {k}"),
                ),
            ] {
                let mut h = Node::new(
                    format!("{name}[{k}]"),
                    format!("{}.{name}[{k}]", site.path),
                    at,
                    codec_schema::docs::type_label(ty),
                    site.unknown,
                    Kind::Derived { raw, meaning },
                );
                h.size = size;
                node.children.push(h);
            }
        });
        let start = p + *groups * (cw + bw);
        node.size = start - p;
        self.open(node);
        let n = read?.total;
        self.r.check_count(start, start, n, esize)?;
        if let Type::Named(name) = &**of {
            if let Some(TypeDef::Struct(s)) = self.c.get(name) {
                for i in 0..n {
                    self.note_targets(s, start + i * esize);
                }
            }
        }
        let mut q = start;
        for (k, &c) in heads.iter().enumerate() {
            let gs = site.index(k);
            let mut g = Node::new(
                gs.name.clone(),
                gs.path.clone(),
                q,
                format!("{}[{c}]", codec_schema::docs::type_label(of)),
                gs.unknown,
                Kind::Seq,
            );
            g.size = c * esize;
            self.open(g);
            for i in 0..c as usize {
                self.r.set_element(k, i, c as usize);
                q = self
                    .inline(of, q, &gs.index(i), &st.name, &f.name)
                    .map_err(|e| e.at_index(i).at_index(k))?;
            }
            self.close();
        }
        self.top().size = q - p;
        self.close();
        Ok(q)
    }

    /// A union whose tag comes first, at `pos` (one node appended); returns
    /// the position after its payload.
    pub(super) fn tagged_union(
        &mut self,
        u: &'c codec_schema::UnionDef,
        pos: u64,
        site: &Site,
    ) -> R<u64> {
        if u.peek {
            return self.peek_union(u, pos, site);
        }
        let w = int_width(&u.tag).unwrap_or(1);
        let tag = self.read_uint(&u.tag, pos)?;
        let v = variant_by_tag(u, tag, pos)?;
        let (vs, mut node) = variant_node(u, v, site.name.clone(), site, pos);
        let mut t = Node::new(
            "tag",
            format!("{}.tag", vs.path),
            pos,
            codec_schema::docs::type_label(&u.tag),
            vs.unknown,
            Kind::Derived {
                raw: tag,
                meaning: format!("variant of {}", u.name),
            },
        );
        t.size = w;
        node.children.push(t);
        self.open(node);
        let end = self
            .inline(&v.ty, pos + w, &vs.named(&v.name), &u.name, &v.name)
            .map_err(|e| e.within(codec_runtime::PathSeg::Variant(v.name.clone().into())))?;
        self.top().size = end - pos;
        self.close();
        Ok(end)
    }

    /// The slots of a hash index at `t` (no value: the encoder rebuilds
    /// them), as a derived node when they lie in the data.
    pub(super) fn hash_table(&mut self, t: u64, slots: u64, width: &Type, site: &Site) {
        let w = int_width(width).unwrap_or(2);
        let size = slots.saturating_mul(w);
        if t.saturating_add(size) > self.r.len() {
            return;
        }
        let mut n = Node::new(
            "slots",
            format!("{}.slots", site.path),
            t,
            format!("{}[{slots}]", codec_schema::docs::type_label(width)),
            site.unknown,
            Kind::Derived {
                raw: slots,
                meaning: "hash index: the first record of each slot's chain".into(),
            },
        );
        n.size = size;
        self.leaf(n);
    }

    /// `count` rows of `stride` bytes from `start`, laid out as the column
    /// records read so far describe (`codec_runtime::rows::decode_rows`).
    pub(super) fn rows(
        &mut self,
        cells: &str,
        start: u64,
        count: u64,
        stride: u64,
        field_pos: u64,
        site: &Site,
    ) -> R<()> {
        let Some(TypeDef::Union(u)) = self.c.get(cells) else {
            return Err(InterpError::invalid(
                field_pos,
                format!("`{cells}` is not a union"),
            ));
        };
        let mut slots: Vec<codec_runtime::CellSlot> = self.r.cells().to_vec();
        let codec_runtime::rows::SizedColumns { per_row, cells_end } =
            codec_runtime::rows::size_columns(&mut slots, stride, &u.name, |tag| {
                self.c.cell_size(u, tag)
            })?;
        self.r.check_count(field_pos, start, count, stride)?;
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            start,
            format!("{cells}[{count}][{per_row}]"),
            site.unknown,
            Kind::Seq,
        );
        node.size = count.saturating_mul(stride);
        self.open(node);
        if count == 0 {
            self.close();
            return Ok(());
        }
        self.r
            .enter(field_pos, start, count.saturating_mul(stride.max(1)))?;
        for i in 0..count {
            let row_pos = start + i * stride;
            let rs = site.index(i as usize);
            let mut row = Node::new(
                rs.name.clone(),
                rs.path.clone(),
                row_pos,
                "row",
                rs.unknown,
                Kind::Seq,
            );
            row.size = stride;
            self.note_zeros(&mut row, row_pos + cells_end, row_pos + stride);
            self.open(row);
            let mut k = 0usize;
            for s in &slots {
                for j in 0..s.count {
                    let at = row_pos + s.offset + j * s.size;
                    self.cell(u, s.tag, at, &rs.index(k))
                        .map_err(|e| e.at_index(k).at_index(i as usize))?;
                    k += 1;
                }
            }
            self.close();
        }
        self.r.leave();
        self.close();
        Ok(())
    }

    /// One cell of type `tag` at `pos` (a variant node appended).
    fn cell(&mut self, u: &'c codec_schema::UnionDef, tag: u64, pos: u64, site: &Site) -> R<()> {
        let v = variant_by_tag(u, tag, pos)?;
        let (vs, node) = variant_node(u, v, site.name.clone(), site, pos);
        self.open(node);
        let result = match &v.ty {
            Type::Ptr(p) => (|| -> R<u64> {
                let w = int_width(&p.width).unwrap_or(4);
                let raw = self.read_uint(&p.width, pos)?;
                let base = match p.base {
                    Base::Absolute(n) => n,
                    _ => 0,
                };
                let t = self.r.target(pos, base, raw, p.scale)?;
                let mut o = Node::new(
                    vs.name.clone(),
                    vs.path.clone(),
                    pos,
                    codec_schema::docs::type_label(&v.ty),
                    vs.unknown,
                    Kind::Offset {
                        raw,
                        target: Some(t),
                        kept: None,
                    },
                );
                o.size = w;
                self.open(o);
                self.inline(&p.to, t, &vs.named("value"), &u.name, &v.name)?;
                self.note_span(p.section.as_deref());
                self.close();
                Ok(pos + w)
            })(),
            t => self.inline(t, pos, &vs.named("value"), &u.name, &v.name),
        };
        let end =
            result.map_err(|e| e.within(codec_runtime::PathSeg::Variant(v.name.clone().into())))?;
        self.top().size = end - pos;
        self.close();
        Ok(())
    }

    /// A unit at `pos` (the target of the offset at `field_pos`): its bytes,
    /// through its transform, read on their own with offsets from its start;
    /// its nodes and errors located in the file.
    /// A table of hash slots (`HashSlots`) at `p`: `n` pairs of (count,
    /// offset from `base`), each slot's records read where its offset
    /// leads, as one list node of the records in slot order; each record's
    /// key must hash to its slot.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hash_slots(
        &mut self,
        of: &'c str,
        key: &str,
        n: u64,
        hash: codec_schema::SlotHash,
        width: &Type,
        base: u64,
        p: u64,
        fs: &Site,
        ty: std::sync::Arc<str>,
        doc: &'c str,
    ) -> R<u64> {
        let Some(TypeDef::Struct(def)) = self.c.get(of) else {
            return Err(InterpError::invalid(p, format!("`{of}` is not a struct")));
        };
        let w = int_width(width).unwrap_or(4);
        self.r.check_count(p, p, n, 2 * w)?;
        let mut node = Node::new(
            fs.name.clone(),
            fs.path.clone(),
            p,
            ty,
            fs.unknown,
            Kind::Seq,
        );
        node.size = n * 2 * w;
        node.doc = self.doc(doc);
        self.open(node);
        let codec_schema::SlotHash::MulAdd(m) = hash;
        let mut k = 0;
        for i in 0..n {
            let at = p + i * 2 * w;
            let count = self.read_uint(width, at)?;
            let raw = self.read_uint(width, at + w)?;
            for (x, raw, meaning) in [
                (at, count, "number of records in the slot"),
                (at + w, raw, "where the slot's records start"),
            ] {
                let mut leaf = Node::new(
                    format!("slot{i}").as_str(),
                    format!("{}.slot{i}", fs.path),
                    x,
                    codec_schema::docs::type_label(width),
                    false,
                    Kind::Derived {
                        raw,
                        meaning: meaning.into(),
                    },
                );
                leaf.size = w;
                self.leaf(leaf);
            }
            let t = self.r.target(at + w, base, raw, 1)?;
            self.r.check_count(at, t, count, 1)?;
            let mut q = t;
            for _ in 0..count {
                let es = fs.index(k);
                q = self
                    .record(def, q, es.name, es.path, es.unknown)
                    .map_err(|e| e.at_index(k))?;
                let text = self
                    .top()
                    .children
                    .last()
                    .and_then(|r| r.children.iter().find(|c| c.name == key))
                    .and_then(|c| match &c.kind {
                        Kind::Str { value, .. } => Some(value.clone()),
                        _ => None,
                    })
                    .ok_or_else(|| InterpError::invalid(t, format!("`{of}.{key}` is no string")))?;
                let h = codec_runtime::slots::mul_add_hash(text.as_bytes(), m);
                if n > 0 && h % n != i {
                    return Err(codec_runtime::slots::misplaced(at, &text, i, h, n));
                }
                k += 1;
            }
        }
        self.close();
        Ok(p + n * 2 * w)
    }

    /// Text with control records (`Text`) at `pos`, up to the next target:
    /// runs of characters and records of union `tags`, as the children of
    /// one list node; the last unit must be a zero, which is left out.
    pub(super) fn text(
        &mut self,
        tags: Option<&str>,
        encoding: codec_schema::Encoding,
        lossless: bool,
        pos: u64,
        site: &Site,
    ) -> R<u64> {
        use codec_runtime::tagged_text::{Part, TextPart};
        let unit = encoding.unit();
        let end = self.r.bound_after(pos);
        let union = match tags.map(|t| self.c.get(t)) {
            Some(Some(TypeDef::Union(u))) => Some(u),
            Some(_) => return Err(InterpError::invalid(pos, "the text's tags are no union")),
            None => None,
        };
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            pos,
            codec_schema::docs::type_label(&Type::Text {
                tags: tags.map(str::to_owned),
                encoding,
                lossless,
            }),
            site.unknown,
            Kind::Seq,
        );
        node.size = end.saturating_sub(pos);
        self.open(node);
        // The parts as the runtime splits them (`codec_runtime::tagged_text`,
        // as the generated codec does), each as a node.
        let opens = |u: u64| union.is_some_and(|un| un.variants.iter().any(|v| v.tag == u));
        let mut scan = codec_runtime::tagged_text::Scan::begin(&self.r, pos, unit);
        let mut k = 0;
        while let Some(part) = scan.next(&self.r, opens)? {
            match part {
                Part::Chars { from, to } => {
                    let es = site.index(k);
                    self.memory.reserve(from, to - from)?;
                    let chars =
                        codec_runtime::tagged_text::chars::<()>(&self.r, from, to, unit, lossless)
                            .map_err(|e| e.at_index(k))?;
                    let mut n = match chars {
                        TextPart::Chars(s) => Node::new(
                            es.name,
                            es.path,
                            from,
                            std::sync::Arc::<str>::from("text"),
                            es.unknown,
                            Kind::Str { value: s, pad: 0 },
                        ),
                        // Kept as its bytes: a `Text::Bytes` part.
                        TextPart::Bytes(bytes) => {
                            let mut b = Node::new(
                                es.name.clone(),
                                format!("{}::Bytes", es.path),
                                from,
                                std::sync::Arc::<str>::from("bytes"),
                                es.unknown,
                                Kind::Bytes { bytes },
                            );
                            b.size = to - from;
                            let mut v = Node::new(
                                es.name,
                                es.path,
                                from,
                                std::sync::Arc::<str>::from("Text::Bytes"),
                                es.unknown,
                                Kind::Variant {
                                    union: "Text".into(),
                                    variant: super::TEXT_BYTES.into(),
                                    tag: 0,
                                },
                            );
                            v.children.push(b);
                            v
                        }
                        TextPart::Record(()) => unreachable!("chars gives no record"),
                    };
                    n.size = to - from;
                    self.leaf(n);
                    k += 1;
                }
                Part::Record { at } => {
                    let un = union.expect("only a union's tags open a record");
                    let next = self.tagged_union(un, at, &site.index(k))?;
                    scan.resume(next);
                    k += 1;
                }
                Part::Zero { at } => {
                    // The zero unit: derived (written back on encode), but explained.
                    let mut zero = Node::new(
                        "end",
                        format!("{}.end", site.path),
                        at,
                        std::sync::Arc::<str>::from("zero unit"),
                        false,
                        Kind::Derived {
                            raw: 0,
                            meaning: "the zero unit that ends the text".into(),
                        },
                    );
                    zero.size = unit;
                    self.leaf(zero);
                }
            }
        }
        self.close();
        Ok(end)
    }

    pub(super) fn unit(
        &mut self,
        def: &'c StructDef,
        pos: u64,
        len: Option<u64>,
        field_pos: u64,
        site: &Site,
    ) -> R<()> {
        let data = self.r.data();
        let tail: &[u8] = match len {
            // A sized unit: its bytes and no more.
            Some(n) => codec_runtime::pad::sized(data, pos, n, field_pos)?,
            None => data.get(pos as usize..).unwrap_or(&[]),
        };
        let transform = def.layout.as_ref().and_then(|l| l.transform.as_ref());
        let bytes: Cow<'_, [u8]> = match transform {
            Some(tr) => match self.hooks.transform(&tr.decode, tail, self.r.endian()) {
                None => return Err(no_glue(pos, &tr.decode)),
                Some(Err(e)) => return Err(e.shifted(pos)),
                Some(Ok(b)) => {
                    self.r.charge(field_pos, b.len() as u64)?;
                    b
                }
            },
            None => {
                self.r.charge(field_pos, 1)?;
                Cow::Borrowed(tail)
            }
        };
        let depth = self.stack.len();
        let mut sub = Run {
            c: self.c,
            r: self.r.sub(&bytes),
            stack: std::mem::take(&mut self.stack),
            done: None,
            hooks: self.hooks,
            facts: self.facts.clone(),
            spans: Vec::new(),
            last_table: None,
            memory: self.memory,
            labels: std::mem::take(&mut self.labels),
            docs: std::mem::take(&mut self.docs),
        };
        let result = sub.record(def, 0, site.name.clone(), site.path.clone(), site.unknown);
        if let (Ok(header_end), Some(layout)) = (&result, def.layout.as_ref()) {
            let padding = sub.unit_padding(layout, *header_end);
            if let Some(n) = sub
                .stack
                .last_mut()
                .and_then(|o| o.node.children.last_mut())
            {
                n.padding.extend(padding);
            }
        }
        self.stack = std::mem::take(&mut sub.stack);
        self.r.end_sub(&sub.r);
        self.memory = sub.memory;
        self.labels = std::mem::take(&mut sub.labels);
        self.docs = std::mem::take(&mut sub.docs);
        for Open { node, .. } in &mut self.stack[depth..] {
            shift(node, pos);
        }
        if result.is_ok() {
            if let Some(n) = self
                .stack
                .last_mut()
                .and_then(|o| o.node.children.last_mut())
            {
                shift(n, pos);
            }
        }
        result.map(|_| ()).map_err(|e| e.shifted(pos))
    }
}
