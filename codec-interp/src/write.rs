//! The interpreter's writer: encodes a document in its generic form
//! ([`Value`], what [`Node::to_value`](super::Node::to_value) gives) by
//! walking a [`Checked`] schema at run time, so that a researcher proves a
//! schema writes real files back (`codec check --schema`) with no build.
//!
//! It takes the generated encoder's steps (`codec-derive`'s `encode.rs`) in
//! the same order and through the same [`Writer`] calls, so it writes the
//! same bytes: the root record first, zeros where offsets and derived
//! fields go; then each section in turn, filled by one walk of the
//! document (pre- or post-order), placing each offset's target and
//! patching the offset; then the root's derived sizes, counts and starts.
//!
//! Trees of tagged nodes (interned tables, union words, depth-first
//! sections, shared subtrees) are written by the `tree` module; tables of
//! records (rows, hash indexes, references by ordinal, checksums, units
//! transformed by glue) by the `table` module. An external type is the
//! bytes it was read from. What it does not write yet (shared subtrees
//! outside a depth-first section, some lists of offsets) is refused before
//! a byte is written, naming the field and the construct: [`writable`]
//! says so for a whole schema.
//!
//! Where the generated encoder knows a record's position from its type's
//! fixed size, the interpreter remembers where it wrote each record's
//! value (by the value's address, stable while the document is borrowed).

use super::{Hooks, Value};
use codec_runtime::{EncodeError, EncodeResult, Endian, Width, Writer};
use codec_schema::{
    int_width, magic_bytes, Base, Checked, Count, Dedup, Derive, Order, Ptr, StructDef,
};
use codec_schema::{FieldWrite, SortKey, Type, TypeDef};
use std::collections::HashMap;

mod table;
mod tree;

/// Encodes the document `v` (the root record's generic form) as schema `c`
/// lays it out, with glue from `hooks` (a sort key's hash, the alignment
/// of a new kept-aligned value).
pub fn encode(c: &Checked, v: &Value, hooks: &dyn Hooks) -> EncodeResult<Vec<u8>> {
    writable(c)?;
    let endian = c.schema.endian;
    let mut e = Enc {
        c,
        hooks,
        endian,
        w: Box::new(Writer::new(
            endian,
            c.schema.types.len(),
            c.all_sections().len(),
        )),
        at: HashMap::new(),
        sorted: HashMap::new(),
        depth_first: c.has_depth_first(),
        facts: std::rc::Rc::new(tree::Facts::of(c)),
        notes: std::rc::Rc::new(table::Notes::of(c)),
        record_start: 0,
    };
    let root = c.root();
    let sections: Vec<usize> = (0..c.schema.sections.len()).collect();
    e.prepare_tree(root, v)?;
    e.layout(root, v, &sections, c.schema.end_align)?;
    Ok(e.w.into_bytes())
}

/// Can the interpreter write every file of schema `c`? The first field
/// whose construct it does not write yet, as an error naming both.
pub fn writable(c: &Checked) -> EncodeResult<()> {
    let refuse = |path: String, what: &str| {
        Err(EncodeError::new(
            path,
            format!(
                "the schema interpreter does not write {what} yet (the compiled codec does: \
                 `codec check` without --schema, for a built-in format)"
            ),
        ))
    };
    for (i, sec) in c.all_sections().iter().enumerate() {
        if sec.dedup == Dedup::Shared && sec.order != Order::DepthFirst {
            return refuse(
                format!("section `{}` (#{i})", sec.name),
                "shared subtrees outside a depth-first section",
            );
        }
    }
    for t in &c.schema.types {
        let st = match t {
            TypeDef::Struct(st) => st,
            // Checked where a field holds one.
            TypeDef::Union(_) => continue,
        };
        for f in &st.fields {
            let path = format!("{}.{}", st.name, f.name);
            if let Some(what) = unwritten(c, &f.ty, 0) {
                return refuse(path, what);
            }
        }
    }
    Ok(())
}

/// The construct in `t` the interpreter does not write, if any.
fn unwritten(c: &Checked, t: &Type, depth: usize) -> Option<&'static str> {
    if depth > 8 {
        return None;
    }
    match t {
        Type::Follows { to, .. } => unwritten(c, to, depth + 1),
        // A word's offset is placed by a depth-first walk only.
        Type::Switch { union, .. } => match c.get(union) {
            Some(TypeDef::Union(u)) => u.variants.iter().find_map(|v| match &v.ty {
                Type::Ptr(p) => {
                    let depth_first = p
                        .section
                        .as_deref()
                        .and_then(|s| c.section_id(s))
                        .is_some_and(|si| c.section(si).order == Order::DepthFirst);
                    if depth_first {
                        unwritten(c, &p.to, depth + 1)
                    } else {
                        Some("offsets in a union's word outside a depth-first section")
                    }
                }
                t => unwritten(c, t, depth + 1),
            }),
            _ => None,
        },
        Type::Select { .. } => Some("unions chosen by glue, held in their record"),
        Type::Str { .. } | Type::Pool {} => None,
        Type::Groups { of, .. } => unwritten(c, of, depth + 1),
        Type::Index { .. } | Type::Table { .. } | Type::SharesEqual { .. } => None,
        Type::Ptr(p) => match &p.to {
            Type::List { of, .. } if matches!(**of, Type::Ptr(_)) => {
                Some("offsets to lists of offsets")
            }
            // An offset to a union: each variant placed in its section.
            Type::Switch { union, .. } | Type::Select { union, .. } => match c.get(union) {
                Some(TypeDef::Union(u)) if !u.inline_tag && !u.peek => u
                    .variants
                    .iter()
                    .find_map(|v| unwritten(c, &v.ty, depth + 1)),
                _ => Some("unions with their tag inside"),
            },
            to => unwritten(c, to, depth + 1),
        },
        Type::List { of, .. } => match &**of {
            Type::Ptr(p) if p.align.is_some() => Some("lists of offsets with kept alignment"),
            Type::Ptr(p) if matches!(p.to, Type::Switch { .. } | Type::Select { .. }) => {
                Some("lists of offsets to unions")
            }
            Type::Ptr(p) if p.optional => Some("lists of optional offsets"),
            Type::Ptr(p) => unwritten(c, &p.to, depth + 1),
            of => unwritten(c, of, depth + 1),
        },
        Type::Array { of, .. } => unwritten(c, of, depth + 1),
        Type::Fixed { raw, .. } => unwritten(c, raw, depth + 1),
        _ => None,
    }
}

fn runtime_dedup(d: &Dedup) -> codec_runtime::Dedup {
    match d {
        Dedup::None | Dedup::Shared => codec_runtime::Dedup::None,
        Dedup::Exact => codec_runtime::Dedup::Exact,
        Dedup::ByteSearch { align } => codec_runtime::Dedup::ByteSearch { align: *align },
    }
}

/// The runtime's width of an unsigned integer type.
fn width(t: &Type) -> Width {
    match t {
        Type::U8 => Width::U8,
        Type::U16 => Width::U16,
        Type::U24 => Width::U24,
        Type::U64 => Width::U64,
        _ => Width::U32,
    }
}

/// Gives a runtime error raised with no path (the interpreter passes none:
/// its paths are built at run time) the field's path.
fn at(path: &str) -> impl Fn(EncodeError) -> EncodeError + '_ {
    move |mut e| {
        if e.path.is_empty() {
            e.path = path.to_owned();
        }
        e
    }
}

fn wrong(path: &str, want: &str, v: &Value) -> EncodeError {
    EncodeError::new(path, format!("expected {want}, found {}", v.kind_name()))
}

/// The value of field `name` of a record's generic form.
fn field<'v>(v: &'v Value, name: &str, path: &str) -> EncodeResult<&'v Value> {
    match v {
        Value::Struct { fields, .. } => fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, x)| x)
            .ok_or_else(|| EncodeError::new(path, "the record has no such field")),
        other => Err(wrong(path, "a record", other)),
    }
}

/// How many elements a list's generic form has (bytes count as elements).
fn length(v: &Value, path: &str) -> EncodeResult<usize> {
    match v {
        Value::Bytes(b) => Ok(b.len()),
        other => elements(other, path).map(<[Value]>::len),
    }
}

/// The elements of a list's or array's generic form.
fn elements<'v>(v: &'v Value, path: &str) -> EncodeResult<&'v [Value]> {
    match v {
        Value::Seq(s) => Ok(s),
        other => Err(wrong(path, "a list", other)),
    }
}

/// Bytes: a byte string (the interpreter's form) or a list of `u8`.
fn octets<'v>(v: &'v Value, path: &str) -> EncodeResult<std::borrow::Cow<'v, [u8]>> {
    match v {
        Value::Bytes(b) => Ok(std::borrow::Cow::Borrowed(b)),
        Value::Seq(s) => s
            .iter()
            .map(|x| match x {
                Value::U8(b) => Ok(*b),
                other => Err(wrong(path, "a byte", other)),
            })
            .collect::<EncodeResult<Vec<u8>>>()
            .map(std::borrow::Cow::Owned),
        other => Err(wrong(path, "bytes", other)),
    }
}

/// An integer of any width, as `i128` (so every `u64` and `i64` fits).
fn integer(v: &Value, path: &str) -> EncodeResult<i128> {
    Ok(match *v {
        Value::U8(x) => x.into(),
        Value::U16(x) => x.into(),
        Value::U32(x) => x.into(),
        Value::U64(x) => x.into(),
        Value::I8(x) => x.into(),
        Value::I16(x) => x.into(),
        Value::I32(x) => x.into(),
        Value::I64(x) => x.into(),
        Value::Bool(b) => b.into(),
        ref other => return Err(wrong(path, "an integer", other)),
    })
}

/// A string pool's generic form (`strings`, and the `odd` references into
/// the middle of one) as the runtime's pool.
fn string_pool(v: &Value, path: &str) -> EncodeResult<codec_runtime::StringPool> {
    let text = |x: &Value| match x {
        Value::Str(s) => Ok(codec_runtime::Str::from(s.as_str())),
        other => Err(wrong(path, "a string", other)),
    };
    let strings = elements(field(v, "strings", path)?, path)?
        .iter()
        .map(text)
        .collect::<EncodeResult<Vec<_>>>()?;
    let mut pool = codec_runtime::StringPool::new(strings);
    if let Ok(odd) = field(v, "odd", path) {
        for pair in elements(odd, path)? {
            match elements(pair, path)? {
                [at, s] => pool.odd.push((integer(at, path)? as u64, text(s)?)),
                _ => return Err(EncodeError::new(path, "an odd reference is (offset, text)")),
            }
        }
    }
    Ok(pool)
}

/// The walk of one encode.
struct Enc<'c, 'h> {
    c: &'c Checked,
    hooks: &'h dyn Hooks,
    endian: Endian,
    w: Box<Writer>,
    /// Where each record was written, by the address of its value.
    at: HashMap<*const Value, u64>,
    /// The order a list written sorted was written in (its elements are
    /// visited in that order too), by the address of its value.
    sorted: HashMap<*const Value, Vec<usize>>,
    /// Does the schema place a section depth first (then an offset's
    /// target may be placed before the record holding the offset)?
    depth_first: bool,
    /// What the tree walks ask of the schema, answered once.
    facts: std::rc::Rc<tree::Facts<'c>>,
    /// What each type's records note for references and hash indexes.
    notes: std::rc::Rc<table::Notes<'c>>,
    /// Where the record being written starts (an inline reference's base).
    record_start: u64,
}

impl<'c> Enc<'c, '_> {
    /// Lays out record `v` of struct `st` and the given sections: the
    /// file's root, or a unit's (`codec-derive`'s `layout_body`).
    fn layout(
        &mut self,
        st: &'c StructDef,
        v: &Value,
        sections: &[usize],
        end_align: u64,
    ) -> EncodeResult<()> {
        self.write_record(st, v, &st.name)?;
        for &i in sections {
            let sec = self.c.section(i);
            let a = self.w.section_align(i, sec.align);
            self.w.begin_section(i, a, runtime_dedup(&sec.dedup));
            let sorted = self.c.sorted_values(i);
            if let Some(sv) = sorted {
                self.w.begin_sorted_values(sv);
            }
            match &sec.order {
                Order::PreOrder | Order::PostOrder => {
                    self.visit(i, sec.order == Order::PostOrder, st, v, &st.name)?
                }
                Order::Hook { name, visits } => {
                    let what = format!("section `{}`", sec.name);
                    let vst = self.struct_def(visits, &what)?;
                    let order = self
                        .hooks
                        .visit_order(name, v)
                        .ok_or_else(|| {
                            EncodeError::new(
                                &what,
                                format!("no glue named `{name}` orders a section"),
                            )
                        })?
                        .map_err(|m| EncodeError::new(&what, m))?;
                    for o in order {
                        if !self.at.contains_key(&(o as *const Value)) {
                            return Err(EncodeError::new(
                                visits.as_str(),
                                format!("glue `{name}` gave a record that is not in the document"),
                            ));
                        }
                        self.visit(i, false, vst, o, visits)?;
                    }
                }
                Order::DepthFirst => self.visit_df_record(i, st, v, &st.name)?,
            }
            if sorted.is_some() {
                self.w.end_sorted_values()?;
            }
            if sec.pad > 1 || sec.end_align > 1 {
                self.w
                    .end_section_padded(i, sec.align, sec.pad, sec.end_align);
            } else {
                self.w.end_section(sec.align);
            }
        }
        self.w.align(end_align);
        self.w.resolve_refs()?;
        self.patch_root(st)
    }

    /// Writes unit `st` (a struct with its own layout): laid out on its
    /// own, offsets from its start, then appended.
    fn unit(&mut self, st: &'c StructDef, v: &Value, path: &str) -> EncodeResult<()> {
        let Some(layout) = &st.layout else {
            return Err(EncodeError::new(path, "internal: not a unit"));
        };
        let sections = self.c.unit_sections(st);
        let w = self.w.take_unit_writer(
            self.endian,
            self.c.schema.types.len(),
            self.c.all_sections().len(),
        );
        let mut sub = Enc {
            c: self.c,
            hooks: self.hooks,
            endian: self.endian,
            w,
            at: HashMap::new(),
            sorted: HashMap::new(),
            depth_first: self.depth_first,
            facts: self.facts.clone(),
            notes: self.notes.clone(),
            record_start: 0,
        };
        let done = sub
            .layout(st, v, &sections, layout.end_align)
            .and_then(|()| sub.transform(st, path));
        self.w.put_unit(sub.w.bytes());
        self.w.give_unit_writer(sub.w);
        done
    }

    fn is_unit(&self, t: &Type) -> bool {
        matches!(t, Type::Named(n) if matches!(self.c.get(n), Some(TypeDef::Struct(s)) if s.layout.is_some()))
    }

    fn struct_def(&self, name: &str, path: &str) -> EncodeResult<&'c StructDef> {
        match self.c.get(name) {
            Some(TypeDef::Struct(s)) => Ok(s),
            _ => Err(EncodeError::new(path, format!("`{name}` is not a record"))),
        }
    }

    /// Writes record `st` at the writer's position: its fields in order,
    /// zeros where an offset or a derived value goes.
    fn write_record(&mut self, st: &'c StructDef, v: &Value, path: &str) -> EncodeResult<()> {
        // A document nests as deeply as its reader allowed
        // (`interp::MAX_NESTING`) or its text holds: the stack grows on
        // the heap rather than overflow.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.write_record_here(st, v, path)
        })
    }

    /// [`Enc::write_record`] on a stack with room.
    fn write_record_here(&mut self, st: &'c StructDef, v: &Value, path: &str) -> EncodeResult<()> {
        let start = self.w.pos();
        self.at.insert(v as *const Value, start);
        if let Some(id) = self.c.type_id(&st.name) {
            self.w.count_record(id);
            self.note_record(id, v, start, path)?;
        }
        let outer = std::mem::replace(&mut self.record_start, start);
        let done = self.record_fields(st, v, start, path);
        self.record_start = outer;
        done
    }

    /// The fields of record `st` (started at `start`), in order.
    fn record_fields(
        &mut self,
        st: &'c StructDef,
        v: &Value,
        start: u64,
        path: &str,
    ) -> EncodeResult<()> {
        // The pools this record locates start with the document's strings,
        // before any of its strings is written.
        for f in &st.fields {
            let Type::Ptr(p) = &f.ty else { continue };
            let (Type::Pool {}, Some(sec)) = (&p.to, p.section.as_deref()) else {
                continue;
            };
            let fpath = format!("{path}.{}", f.name);
            let pv = match field(v, &f.name, &fpath)? {
                Value::Option(None) => continue,
                Value::Option(Some(x)) => x,
                x => x,
            };
            let pool = string_pool(pv, &fpath)?;
            let id = self.c.section_id(sec).unwrap_or(0);
            self.w.seed_pool(id, &pool).map_err(at(&fpath))?;
        }
        // Where each field was written (for the size of a sized unit).
        let mut written: Vec<u64> = Vec::with_capacity(st.fields.len());
        for f in &st.fields {
            let fpath = format!("{path}.{}", f.name);
            if let Some(a) = f.align.filter(|&a| a > 1) {
                let rel = self.w.pos() - start;
                self.w.put_zeros((rel.next_multiple_of(a) - rel) as usize);
            }
            written.push(self.w.pos());
            match self.c.field_write(st, f) {
                FieldWrite::SizedUnit { unit, size } => {
                    let unit = self.struct_def(unit, &fpath)?;
                    let here = self.w.pos();
                    self.unit(unit, field(v, &f.name, &fpath)?, &fpath)?;
                    let j = st.fields.iter().position(|g| g.name == size);
                    let (Some(j), Some(sf)) = (j, j.and_then(|j| st.fields.get(j))) else {
                        return Err(EncodeError::new(fpath, format!("no size field `{size}`")));
                    };
                    let at_size = written.get(j).copied().ok_or_else(|| {
                        EncodeError::new(
                            &fpath,
                            format!("the size field `{size}` must come before"),
                        )
                    })?;
                    codec_runtime::pad::patch_size(&mut self.w, at_size, width(&sf.ty), here, "")
                        .map_err(at(&fpath))?;
                }
                FieldWrite::HashSlots { slots, width: sw } => {
                    let n = integer(field(v, slots, &fpath)?, &fpath)?;
                    let records = length(field(v, &f.name, &fpath)?, &fpath)?;
                    codec_runtime::slots::check_slot_count(n.max(0) as u64, records)
                        .map_err(|m| EncodeError::new(format!("{path}.{slots}"), m))?;
                    let w = int_width(sw).unwrap_or(4) as usize;
                    self.w.put_zeros(n.max(0) as usize * 2 * w);
                }
                FieldWrite::Pad { align } => {
                    let byte = match field(v, &f.name, &fpath)? {
                        Value::U8(b) => *b,
                        other => return Err(wrong(&fpath, "a padding byte (u8)", other)),
                    };
                    let rel = self.w.pos() - start;
                    codec_runtime::pad::put_pad(&mut self.w, rel, align, byte);
                }
                FieldWrite::Offsets { ptr } => {
                    let w = int_width(&ptr.width).unwrap_or(4) as usize;
                    if !self.depth_first {
                        let n = length(field(v, &f.name, &fpath)?, &fpath)?;
                        self.w.put_zeros(n * w);
                        continue;
                    }
                    // Each element as an offset field: a depth-first walk
                    // may have placed its target first (`tree::df_place`).
                    for e in elements(field(v, &f.name, &fpath)?, &fpath)? {
                        self.at.insert(e as *const Value, self.w.pos());
                        match self.w.take_deferred(e as *const Value as usize, 0, 0) {
                            Some(t) => {
                                let base = self.base(&ptr.base, start);
                                self.w
                                    .put_offset(width(&ptr.width), base, ptr.scale, t, "")
                                    .map_err(at(&fpath))?
                            }
                            None => self.w.put_zeros(w),
                        }
                    }
                }
                FieldWrite::Count { of, width: t } => {
                    let n = match field(v, of, &fpath)? {
                        Value::Option(o) => o.as_deref().map_or(Ok(0), |x| length(x, &fpath))?,
                        x => length(x, &fpath)?,
                    };
                    self.w
                        .put_uint(width(t), n as u64, "")
                        .map_err(at(&fpath))?;
                }
                FieldWrite::Total { list, of, width: t } => {
                    fn present(x: &Value) -> Option<&Value> {
                        match x {
                            Value::Option(o) => o.as_deref(),
                            x => Some(x),
                        }
                    }
                    let lpath = format!("{path}.{list}");
                    let mut n = 0usize;
                    if let Some(l) = present(field(v, list, &lpath)?) {
                        for (i, e) in elements(l, &lpath)?.iter().enumerate() {
                            let epath = format!("{lpath}[{i}].{of}");
                            if let Some(x) = present(field(e, of, &epath)?) {
                                n += length(x, &epath)?;
                            }
                        }
                    }
                    self.w
                        .put_uint(width(t), n as u64, "")
                        .map_err(at(&fpath))?;
                }
                FieldWrite::Tag { of, width: t } => {
                    let tag = self.tag_of(st, of, field(v, of, &fpath)?, &fpath)?;
                    self.w.put_uint(width(t), tag, "").map_err(at(&fpath))?;
                }
                FieldWrite::Tags { source, width: t } => self.tags(st, v, source, t, &fpath)?,
                FieldWrite::RecordEnd { width: t, size } => self
                    .w
                    .put_uint(width(t), start + size, "")
                    .map_err(at(&fpath))?,
                FieldWrite::Settled { width: t, value } => {
                    self.w.put_settled(width(t), self.c.settled(value), "");
                }
                FieldWrite::Size { width: t } | FieldWrite::Later { width: t } => {
                    let n = int_width(t).unwrap_or(4) as usize;
                    self.w.put_zeros(n);
                }
                FieldWrite::InternedTable { ptr } => {
                    let n = int_width(&ptr.width).unwrap_or(4) as usize;
                    self.w.put_zeros(n);
                }
                FieldWrite::Magic(m) => self.w.put_bytes(&m),
                FieldWrite::TableBody { offsets } => {
                    self.table_body(start, offsets, field(v, &f.name, &fpath)?, &fpath)?
                }
                // No bytes: applied before anything is placed (`prepare_tree`).
                FieldWrite::SharesEqual => {}
                FieldWrite::Word { union } => {
                    self.word(union, field(v, &f.name, &fpath)?, &fpath)?
                }
                FieldWrite::Words { union } => {
                    for (i, e) in elements(field(v, &f.name, &fpath)?, &fpath)?
                        .iter()
                        .enumerate()
                    {
                        self.word(union, e, &format!("{fpath}[{i}]"))?;
                    }
                }
                // An offset to what the document does not hold (a hash
                // index): zeros, patched when the index is placed.
                FieldWrite::Offset { ptr: p } if !Checked::is_stored(f) => {
                    self.w.put_zeros(int_width(&p.width).unwrap_or(4) as usize);
                }
                FieldWrite::Offset { ptr: p } => {
                    let n = int_width(&p.width).unwrap_or(4) as usize;
                    let fv = field(v, &f.name, &fpath)?;
                    // A depth-first walk may have placed the target before
                    // this record (`tree::df_place`); else zeros, patched.
                    // So may a record's walk that met the record before it
                    // was written (`place_own`).
                    if self.depth_first {
                        self.at.insert(fv as *const Value, self.w.pos());
                    }
                    let placed = self.w.take_deferred(fv as *const Value as usize, 0, 0);
                    match placed {
                        Some(t) => {
                            let base = self.base(&p.base, start);
                            self.w
                                .put_offset(width(&p.width), base, p.scale, t, "")
                                .map_err(at(&fpath))?
                        }
                        None => self.w.put_zeros(n),
                    }
                    if let Some(kept) = &p.align {
                        let align = self.kept_align(fv, kept, &fpath)?;
                        let sid = self.target_section(p);
                        self.w.note_kept_align(sid, align);
                    }
                }
                FieldWrite::Sorted { of, count, key } => {
                    let list = field(v, &f.name, &fpath)?;
                    self.count_check(st, v, count, list, &fpath)?;
                    self.sorted_list(f, of, key, v, list, &fpath)?;
                }
                FieldWrite::List { of, count } => {
                    let list = field(v, &f.name, &fpath)?;
                    self.count_check(st, v, count, list, &fpath)?;
                    self.list(of, list, &fpath)?;
                }
                // Placed with the section it follows (`place_own`).
                FieldWrite::Follows { .. } => {}
                FieldWrite::CellOffset { cells, width: t } => {
                    self.cell_offset(st, v, cells, t, &fpath)?
                }
                // The generic form holds an external type's bytes as read
                // (the Rust type that gives them meaning is the compiled
                // codec's): written back as they are.
                FieldWrite::External { len } => {
                    let b = octets(field(v, &f.name, &fpath)?, &fpath)?;
                    if b.len() as u64 != len {
                        return Err(EncodeError::new(
                            fpath,
                            format!("{} bytes where the external type takes {len}", b.len()),
                        ));
                    }
                    self.w.put_bytes(&b);
                }
                FieldWrite::Inline(t) => self.inline(t, field(v, &f.name, &fpath)?, &fpath)?,
            }
        }
        Ok(())
    }

    /// Writes a list in the order of its elements' keys (see
    /// [`codec_schema::SortKey`]): a key they store is checked to be once in the
    /// list; a key glue hashes is patched into each element.
    fn sorted_list(
        &mut self,
        f: &codec_schema::Field,
        of: &'c Type,
        key: SortKey<'_>,
        v: &Value,
        list: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let elems = elements(list, path)?;
        let order = match key {
            SortKey::Interned { .. } | SortKey::Stored { .. } => {
                let keys = self.stored_sort_keys(f, list, path)?.unwrap_or_default();
                let order = codec_runtime::placement::sorted_order(&keys);
                codec_runtime::placement::unique_keys(&keys, &order, path)?;
                for &i in &order {
                    self.inline(of, &elems[i], &format!("{path}[{i}]"))?;
                }
                order
            }
            SortKey::Hashed(sort) => {
                let (keys, koff, kw) = self.hashed_sort_keys(f, &sort, v, path)?;
                let order = codec_runtime::placement::sorted_order(&keys);
                for &i in &order {
                    let here = self.w.pos();
                    self.inline(of, &elems[i], &format!("{path}[{i}]"))?;
                    self.w
                        .patch_uint(here + koff, kw, keys[i], "")
                        .map_err(at(path))?;
                }
                order
            }
        };
        self.sorted.insert(list as *const Value, order);
        Ok(())
    }

    /// A list's stored count, when another field holds it, must agree with
    /// the list (a count derived from the list is written from it).
    fn count_check(
        &self,
        st: &StructDef,
        v: &Value,
        count: &Count,
        list: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let Count::Field(p) = count else {
            return Ok(());
        };
        let first = p.split('.').next().unwrap_or_default();
        if st
            .fields
            .iter()
            .any(|g| g.name == first && g.derive.is_some())
        {
            return Ok(());
        }
        let mut said = v;
        for part in p.split('.') {
            said = field(said, part, path)?;
        }
        let said = integer(said, path)?;
        let len = length(list, path)?;
        if said != len as i128 {
            return Err(EncodeError::new(
                path,
                format!("the list has {len} element(s), but {p} says {said}"),
            ));
        }
        Ok(())
    }

    /// For a list written sorted by a key hashed by glue (`sort_by` on a
    /// `KeyHash` field of its elements): each element's key in document
    /// order, where the key goes in an element, and its width.
    fn hashed_sort_keys(
        &self,
        f: &codec_schema::Field,
        sort: &codec_schema::KeyHashSort<'_>,
        v: &Value,
        path: &str,
    ) -> EncodeResult<(Vec<u64>, u64, Width)> {
        let Some(koff) = sort.key_offset else {
            return Err(EncodeError::new(
                path,
                "the sort key must be at a fixed offset of its elements",
            ));
        };
        let seed = integer(field(v, sort.seed, path)?, path)? as u64;
        let mut keys = Vec::new();
        for (i, e) in elements(field(v, &f.name, path)?, path)?.iter().enumerate() {
            let epath = format!("{path}[{i}].{}", sort.key);
            let k = match field(e, sort.key, &epath)? {
                Value::Str(s) => s.as_bytes().to_vec(),
                other => octets(other, &epath)?.into_owned(),
            };
            let hook = sort.hook;
            let h = self.hooks.key_hash(hook, &k, seed).ok_or_else(|| {
                EncodeError::new(&epath, format!("no glue named `{hook}` hashes keys"))
            })?;
            keys.push(h);
        }
        let kw = width(&sort.elem.fields[sort.key_field].ty);
        Ok((keys, koff, kw))
    }

    /// The alignment a kept-aligned target is placed with: its own, or
    /// glue's choice for a value without one.
    fn kept_align(
        &self,
        v: &Value,
        kept: &codec_schema::KeptAlign,
        path: &str,
    ) -> EncodeResult<u64> {
        let align = integer(field(v, "align", path)?, path)? as u64;
        let value = field(v, "value", path)?;
        let hook = kept.hook();
        Ok(codec_runtime::placement::effective_align(align, || {
            self.hooks.kept_align(hook, value).unwrap_or(1)
        }))
    }

    /// The union a field holds (directly or through an offset).
    fn union_of(
        &self,
        st: &StructDef,
        name: &str,
        path: &str,
    ) -> EncodeResult<&'c codec_schema::UnionDef> {
        let f = st.fields.iter().find(|g| g.name == name);
        let ty = f.map(|g| match &g.ty {
            Type::Ptr(p) => &p.to,
            t => t,
        });
        match ty {
            Some(Type::Switch { union, .. }) => match self.c.get(union) {
                Some(TypeDef::Union(u)) => Ok(u),
                _ => Err(EncodeError::new(path, format!("`{union}` is not a union"))),
            },
            _ => Err(EncodeError::new(
                path,
                format!("`{name}` does not hold a union"),
            )),
        }
    }

    /// The variant of union `u` a value is, by its name.
    fn variant_of<'v>(
        &self,
        u: &'c codec_schema::UnionDef,
        v: &'v Value,
        path: &str,
    ) -> EncodeResult<(&'c codec_schema::Variant, &'v Value)> {
        let Value::Variant { variant, value, .. } = v else {
            return Err(wrong(path, "a variant", v));
        };
        let def = u
            .variants
            .iter()
            .find(|x| &x.name == variant)
            .ok_or_else(|| {
                EncodeError::new(path, format!("`{}` has no variant `{variant}`", u.name))
            })?;
        Ok((def, value))
    }

    /// The tag of the variant field `of` of record `st` holds (`v`).
    fn tag_of(&self, st: &StructDef, of: &str, v: &Value, path: &str) -> EncodeResult<u64> {
        let u = self.union_of(st, of, path)?;
        let v = match v {
            Value::Option(Some(x)) => x,
            x => x,
        };
        Ok(self.variant_of(u, v, path)?.0.tag)
    }

    fn target_section(&self, p: &Ptr) -> usize {
        p.section
            .as_deref()
            .and_then(|n| self.c.section_id(n))
            .unwrap_or(0)
    }

    /// Writes every element of a list inline.
    fn list(&mut self, of: &'c Type, v: &Value, path: &str) -> EncodeResult<()> {
        if matches!(of, Type::U8) {
            let b = octets(v, path)?;
            self.w.put_bytes(&b);
            return Ok(());
        }
        for (i, e) in elements(v, path)?.iter().enumerate() {
            self.inline(of, e, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    /// Writes `v` of type `t` at the writer's position.
    fn inline(&mut self, t: &'c Type, v: &Value, path: &str) -> EncodeResult<()> {
        let e = self.endian;
        match t {
            Type::U8 | Type::U16 | Type::U24 | Type::U32 | Type::U64 => {
                let x = integer(v, path)?;
                let x = u64::try_from(x).map_err(|_| {
                    EncodeError::new(path, format!("{x} is negative; the field is unsigned"))
                })?;
                self.w.put_uint(width(t), x, "").map_err(at(path))?;
            }
            Type::I8 | Type::I16 | Type::I32 | Type::I64 => {
                let x = integer(v, path)?;
                let bits: u32 = match t {
                    Type::I8 => 8,
                    Type::I16 => 16,
                    Type::I64 => 64,
                    _ => 32,
                };
                let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
                if x < lo || x > hi {
                    return Err(EncodeError::new(
                        path,
                        format!("{x} does not fit a signed {bits}-bit field"),
                    ));
                }
                let raw = (x as i64 as u64) & (u64::MAX >> (64 - bits));
                let w = match bits {
                    8 => Width::U8,
                    16 => Width::U16,
                    64 => Width::U64,
                    _ => Width::U32,
                };
                self.w.put_uint(w, raw, "").map_err(at(path))?;
            }
            Type::F32 => match *v {
                Value::F32(x) => self.w.put_as(x, e),
                ref other => return Err(wrong(path, "an f32", other)),
            },
            Type::F64 => match *v {
                Value::F64(x) => self.w.put_as(x, e),
                ref other => return Err(wrong(path, "an f64", other)),
            },
            Type::Bool8 | Type::Bool32 => {
                let Value::Bool(b) = *v else {
                    return Err(wrong(path, "a bool", v));
                };
                let w = if matches!(t, Type::Bool8) {
                    Width::U8
                } else {
                    Width::U32
                };
                self.w.put_uint(w, u64::from(b), "").map_err(at(path))?;
            }
            Type::Magic(m) => self.w.put_bytes(&magic_bytes(m)),
            Type::Bytes(n) => {
                let b = octets(v, path)?;
                if b.len() as u64 != *n {
                    return Err(EncodeError::new(
                        path,
                        format!("{} bytes where the field holds {n}", b.len()),
                    ));
                }
                self.w.put_bytes(&b);
            }
            Type::Text { tags, encoding, .. } => self.text(tags.as_deref(), *encoding, v, path)?,
            Type::PString { len, encoding, nul } => {
                let Value::Str(s) = v else {
                    return Err(wrong(path, "a string", v));
                };
                self.w
                    .put_prefixed_string(s, width(len), encoding.unit(), *nul, "")
                    .map_err(at(path))?;
            }
            Type::CString {
                max,
                pad,
                lossless,
                encoding,
                size,
            } => {
                // Lossless text that is no UTF-8 was read as its bytes.
                if let (true, Value::Bytes(b)) = (*lossless, v) {
                    self.w.put_cbytes(b, *max, *pad, "").map_err(at(path))?;
                    return Ok(());
                }
                let Value::Str(s) = v else {
                    return Err(wrong(path, "a string", v));
                };
                let unit = encoding.unit();
                let r = if let Some(n) = size {
                    self.w.put_cstring_sized(s, *n, unit, "")
                } else if unit > 1 {
                    self.w.put_cstring_units(s, unit, *max, *pad, "")
                } else if *lossless {
                    self.w.put_cbytes(s.as_bytes(), *max, *pad, "")
                } else {
                    self.w.put_cstring(s, *max, *pad, "")
                };
                r.map_err(at(path))?;
            }
            Type::Fixed { raw, .. } => self.inline(raw, v, path)?,
            Type::Named(n) => match self.c.get(n) {
                // A union told apart by its payloads' magics: the payload.
                Some(TypeDef::Union(u)) if u.peek => {
                    let (var, value) = self.variant_of(u, v, path)?;
                    self.inline(&var.ty, value, &format!("{path}::{}", var.name))?;
                }
                // A union whose tag comes first: the tag, then the payload.
                Some(TypeDef::Union(u)) if u.inline_tag => {
                    let (var, value) = self.variant_of(u, v, path)?;
                    self.w
                        .put_uint(width(&u.tag), var.tag, "")
                        .map_err(at(path))?;
                    self.inline(&var.ty, value, &format!("{path}::{}", var.name))?;
                }
                _ => {
                    let st = self.struct_def(n, path)?;
                    self.write_record(st, v, path)?;
                }
            },
            // Written by its record, which knows where it starts.
            Type::Pad { .. } | Type::HashSlots { .. } => {
                return Err(EncodeError::new(
                    path,
                    "padding stands only in a record (it pads from the record's start)",
                ))
            }
            Type::Array { of, len } => {
                let got = length(v, path)? as u64;
                if got != *len {
                    return Err(EncodeError::new(
                        path,
                        format!("{got} element(s) where the array holds {len}"),
                    ));
                }
                self.list(of, v, path)?;
            }
            Type::List { of, .. } => self.list(of, v, path)?,
            Type::Str { pool, width: sw } => {
                let Value::Str(text) = v else {
                    return Err(wrong(path, "a string", v));
                };
                let id = self.c.section_id(pool).unwrap_or(0);
                let off = self.w.intern(id, text.as_bytes(), "").map_err(at(path))?;
                self.w.put_uint(width(sw), off, "").map_err(at(path))?;
            }
            Type::Groups {
                of, count, base, ..
            } => {
                let groups = elements(v, path)?;
                let mut based: u64 = 0;
                for (g, group) in groups.iter().enumerate() {
                    let n = length(group, &format!("{path}[{g}]"))? as u64;
                    self.w.put_uint(width(count), n, "").map_err(at(path))?;
                    self.w.put_uint(width(base), based, "").map_err(at(path))?;
                    based += n;
                }
                for (g, group) in groups.iter().enumerate() {
                    self.list(of, group, &format!("{path}[{g}]"))?;
                }
            }
            // Placed with the section it follows (`place_own`).
            Type::Follows { .. } => {}
            Type::Bits { word, fields } => {
                let mut bits: u64 = 0;
                for (b, shift, mask) in codec_schema::bit_ranges(fields) {
                    let bpath = format!("{path}.{}", b.name);
                    let part = match (&b.str, field(v, &b.name, &bpath)?) {
                        (Some(pool), Value::Str(text)) => {
                            let id = self.c.section_id(pool).unwrap_or(0);
                            self.w
                                .intern(id, text.as_bytes(), "")
                                .map_err(at(&bpath))?
                                .into()
                        }
                        (Some(_), other) => return Err(wrong(&bpath, "a string", other)),
                        (None, x) => integer(x, &bpath)?,
                    };
                    if part < 0 || part as u128 > u128::from(mask) {
                        return Err(EncodeError::new(
                            bpath,
                            format!("{part} does not fit in the bit range"),
                        ));
                    }
                    bits |= (part as u64) << shift;
                }
                self.w.put_uint(width(word), bits, "").map_err(at(path))?;
            }
            // Written where their record is placed (zeros until patched).
            Type::Ptr(_) | Type::Pool {} => {}
            Type::Switch { union, .. } => self.word(union, v, path)?,
            Type::Index { table, width: iw } => self.index(table, iw, v, path)?,
            Type::Ref {
                width: rw,
                base,
                scale,
                to,
            } => self.reference(rw, base, *scale, to, v, path)?,
            // Refused by `writable` before anything is written.
            Type::Hash { .. }
            | Type::Rows { .. }
            | Type::Select { .. }
            | Type::SharesEqual { .. }
            | Type::Table { .. } => {
                return Err(EncodeError::new(
                    path,
                    "internal: the interpreter reached a construct it does not write",
                ))
            }
        }
        Ok(())
    }

    /// Places what record `v` (of struct `st`) and everything it holds put
    /// in section `sec`: its own offsets' targets before (pre-order) or
    /// after (post-order) what its fields lead to.
    fn visit(
        &mut self,
        sec: usize,
        post: bool,
        st: &'c StructDef,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        if !post {
            self.place_own(sec, st, v, path)?;
        }
        for fi in self.c.placing_order(st) {
            let f = &st.fields[fi];
            if f.derive.is_some() || !Checked::is_stored(f) {
                continue;
            }
            let inner: &Type = match &f.ty {
                Type::Ptr(p) => &p.to,
                Type::Follows { to, .. } => to,
                t => t,
            };
            // A unit lays out its own sections: nothing of it is visited
            // from outside.
            if !self.c.type_reaches(inner, sec) || self.is_unit(inner) {
                continue;
            }
            let fpath = format!("{path}.{}", f.name);
            let mut fv = field(v, &f.name, &fpath)?;
            if let Type::Ptr(p) = &f.ty {
                if p.optional {
                    match fv {
                        Value::Option(Some(x)) => fv = x,
                        Value::Option(None) => continue,
                        other => return Err(wrong(&fpath, "an optional value", other)),
                    }
                }
                if p.align.is_some() {
                    fv = field(fv, "value", &fpath)?;
                }
            }
            self.descend(sec, post, inner, fv, &fpath)?;
        }
        if post {
            self.place_own(sec, st, v, path)?;
        }
        Ok(())
    }

    /// Visits the records value `v` of type `t` holds.
    fn descend(
        &mut self,
        sec: usize,
        post: bool,
        t: &'c Type,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        match t {
            Type::Named(_) if self.is_unit(t) => Ok(()),
            Type::Named(n) if matches!(self.c.get(n), Some(TypeDef::Union(u)) if u.peek) => {
                let Some(TypeDef::Union(u)) = self.c.get(n) else {
                    unreachable!()
                };
                let (var, value) = self.variant_of(u, v, path)?;
                self.descend(sec, post, &var.ty, value, path)
            }
            Type::Ptr(p) if !p.optional && p.align.is_none() => {
                self.descend(sec, post, &p.to, v, path)
            }
            // A payload record written in place (an event whose type
            // chooses its slots) places its offsets' targets as a record
            // field does (`Checked::payload_records`).
            Type::Switch { union, .. } => {
                let records = self.c.payload_records(union, sec);
                let Some(TypeDef::Union(u)) = self.c.get(union) else {
                    return Ok(());
                };
                if records.is_empty() {
                    return Ok(());
                }
                let (var, value) = self.variant_of(u, v, path)?;
                match records.iter().find(|(r, _)| std::ptr::eq(*r, var)) {
                    Some((_, st)) => self.visit(sec, post, st, value, path),
                    None => Ok(()),
                }
            }
            // A record not written yet (its section comes later) places its
            // targets now; its offsets are written from them (`place_own`).
            Type::Named(n) => {
                let st = self.struct_def(n, path)?;
                self.visit(sec, post, st, v, path)
            }
            // Rows not written yet place nothing (their cells are not there).
            Type::Rows { cells, .. } if self.at.contains_key(&(v as *const Value)) => {
                self.place_cells(sec, cells, v, path)
            }
            Type::List { of, .. } | Type::Array { of, .. } if matches!(**of, Type::U8) => Ok(()),
            Type::Groups { of, .. } => {
                for (g, group) in elements(v, path)?.iter().enumerate() {
                    for (i, e) in elements(group, path)?.iter().enumerate() {
                        self.descend(sec, post, of, e, &format!("{path}[{g}][{i}]"))?;
                    }
                }
                Ok(())
            }
            Type::List { of, .. } | Type::Array { of, .. } => {
                let elems = elements(v, path)?;
                // A list written sorted is visited in the order written.
                let order = match self.sorted.get(&(v as *const Value)) {
                    Some(o) => o.clone(),
                    None => (0..elems.len()).collect(),
                };
                for i in order {
                    self.descend(sec, post, of, &elems[i], &format!("{path}[{i}]"))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Writes text with control records (`Text`): each run of characters
    /// in its code units, each record as its union's value (its tag
    /// first), then the zero unit that ends the text. A run holding a
    /// character whose unit opens a record would read back as that record:
    /// it is refused.
    fn text(
        &mut self,
        tags: Option<&str>,
        encoding: codec_schema::Encoding,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let unit = encoding.unit();
        let union = match tags.map(|t| self.c.get(t)) {
            Some(Some(TypeDef::Union(u))) => Some(u),
            _ => None,
        };
        let opens = |u: u64| union.is_some_and(|un| un.variants.iter().any(|x| x.tag == u));
        for (i, part) in elements(v, path)?.iter().enumerate() {
            let ppath = format!("{path}[{i}]");
            match (part, union) {
                (
                    Value::Variant {
                        variant,
                        value,
                        union: un,
                    },
                    _,
                ) if un == "Text" && variant == super::TEXT_BYTES => {
                    let b = octets(value, &ppath)?;
                    self.w.put_bytes(&b);
                }
                (Value::Str(s), _) => {
                    codec_runtime::tagged_text::put_chars(
                        &mut self.w,
                        s,
                        unit,
                        opens,
                        tags.unwrap_or_default(),
                    )
                    .map_err(|m| EncodeError::new(ppath, m))?;
                }
                (Value::Variant { .. }, Some(u)) => {
                    let (var, value) = self.variant_of(u, part, &ppath)?;
                    self.w
                        .put_uint(width(&u.tag), var.tag, "")
                        .map_err(at(&ppath))?;
                    self.inline(&var.ty, value, &ppath)?;
                }
                (other, _) => return Err(wrong(&ppath, "a string or a tag", other)),
            }
        }
        codec_runtime::tagged_text::put_end(&mut self.w, unit, "").map_err(at(path))
    }

    /// Places the targets of a list of offsets (at `rec + off`, one word
    /// an element) in section `sec`, in the list's order, and patches each.
    fn place_offset_list(
        &mut self,
        sec: usize,
        p: &'c Ptr,
        rec: u64,
        off: u64,
        list: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let sd = self.c.section(sec);
        let (dedup, align) = (sd.dedup, sd.item_align);
        let base = self.base(&p.base, rec);
        let w = width(&p.width);
        let step = int_width(&p.width).unwrap_or(4);
        for (i, tv) in elements(list, path)?.iter().enumerate() {
            let epath = format!("{path}[{i}]");
            let target = self.place_value(&p.to, tv, &dedup, align, &epath)?;
            self.w
                .patch_offset(
                    rec + off + i as u64 * step,
                    w,
                    base,
                    p.scale,
                    target,
                    self.endian,
                    "",
                )
                .map_err(at(&epath))?;
        }
        Ok(())
    }

    /// Places the targets of record `v`'s own offsets that belong to
    /// section `sec`, and patches the offsets. A record not written yet
    /// (placed in a later section, as `codec-derive`'s deferrable records)
    /// keeps each target for its offset (`Writer::defer`, by the offset's
    /// value), which `write_record` writes from.
    fn place_own(
        &mut self,
        sec: usize,
        st: &'c StructDef,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let placed = self.at.get(&(v as *const Value)).copied();
        let unplaced = |what: &str| {
            EncodeError::new(
                path,
                format!(
                    "the schema interpreter does not place {what} before its record is written"
                ),
            )
        };
        let offsets = self.c.field_offsets(st);
        for fi in self.c.placing_order(st) {
            let (f, off) = (&st.fields[fi], &offsets[fi]);
            if let Type::Follows { to, section, .. } = &f.ty {
                // Placed right after what the section holds before it.
                if self.c.section_id(section) == Some(sec) {
                    let fpath = format!("{path}.{}", f.name);
                    let sd = self.c.section(sec);
                    let (dedup, align) = (sd.dedup, sd.item_align);
                    self.place_value(to, field(v, &f.name, &fpath)?, &dedup, align, &fpath)?;
                }
                continue;
            }
            if let Type::HashSlots {
                of,
                key,
                slots,
                hash,
                width: sw,
                base,
                section,
                ..
            } = &f.ty
            {
                if self.c.section_id(section) == Some(sec) {
                    let fpath = format!("{path}.{}", f.name);
                    let rec = placed.ok_or_else(|| unplaced("a table of hash slots"))?;
                    let Some(off) = off else {
                        return Err(EncodeError::new(
                            fpath,
                            "a table of hash slots must be at a fixed offset of its record",
                        ));
                    };
                    let n = integer(field(v, slots, &fpath)?, &fpath)?.max(0) as u64;
                    let elems = elements(field(v, &f.name, &fpath)?, &fpath)?;
                    let st_of = self.struct_def(of, &fpath)?;
                    let codec_schema::SlotHash::MulAdd(m) = *hash;
                    let mut hashes = Vec::with_capacity(elems.len());
                    for (i, e) in elems.iter().enumerate() {
                        let Value::Str(k) = field(e, key, &format!("{fpath}[{i}].{key}"))? else {
                            return Err(EncodeError::new(
                                format!("{fpath}[{i}].{key}"),
                                "expected a string",
                            ));
                        };
                        hashes.push(codec_runtime::slots::mul_add_hash(k.as_bytes(), m));
                    }
                    if n == 0 && !elems.is_empty() {
                        return Err(EncodeError::new(
                            fpath,
                            format!(
                                "{} record(s) and no slot to put them in (`{slots}` is 0)",
                                elems.len()
                            ),
                        ));
                    }
                    let base_at = self.base(base, rec);
                    let w = width(sw);
                    let step = int_width(sw).unwrap_or(4);
                    for (i, group) in codec_runtime::slots::group_by_slot(&hashes, n)
                        .iter()
                        .enumerate()
                    {
                        let at_pair = rec + off + i as u64 * 2 * step;
                        let target = self.w.pos();
                        for &j in group {
                            self.write_record(st_of, &elems[j], &format!("{fpath}[{j}]"))?;
                        }
                        self.w
                            .patch_uint(at_pair, w, group.len() as u64, "")
                            .map_err(at(&fpath))?;
                        self.w
                            .patch_offset(at_pair + step, w, base_at, 1, target, self.endian, "")
                            .map_err(at(&fpath))?;
                    }
                }
                continue;
            }
            if let (Some(Derive::Interned), Type::Ptr(p)) = (&f.derive, &f.ty) {
                let fpath = format!("{path}.{}", f.name);
                let rec = placed.ok_or_else(|| unplaced("an interned table"))?;
                self.place_interned(sec, f, p, rec, *off, &fpath)?;
                continue;
            }
            if let (Type::List { of, .. }, None) = (&f.ty, &f.derive) {
                if let Type::Ptr(p) = &**of {
                    if self.target_section(p) == sec {
                        let fpath = format!("{path}.{}", f.name);
                        let Some(off) = off else {
                            return Err(EncodeError::new(
                                fpath,
                                "a list of offsets must be at a fixed offset of its record",
                            ));
                        };
                        let rec = placed.ok_or_else(|| unplaced("a list of offsets"))?;
                        self.place_offset_list(
                            sec,
                            p,
                            rec,
                            *off,
                            field(v, &f.name, &fpath)?,
                            &fpath,
                        )?;
                    }
                }
                continue;
            }
            let Type::Ptr(p) = &f.ty else { continue };
            if f.derive.is_some() {
                continue;
            }
            let fpath = format!("{path}.{}", f.name);
            if let Type::Hash { .. } | Type::Rows { .. } = &p.to {
                if self.target_section(p) != sec {
                    continue;
                }
                let (Some(rec), Some(off)) = (placed, off) else {
                    return Err(unplaced("rows or a hash index"));
                };
                match &p.to {
                    Type::Hash { .. } => self.hash_index(v, p, rec, *off, &fpath)?,
                    _ => self.rows(p, field(v, &f.name, &fpath)?, rec, *off, &fpath)?,
                }
                continue;
            }
            let fv = field(v, &f.name, &fpath)?;
            let mut tv = fv;
            if p.optional {
                match tv {
                    Value::Option(Some(x)) => tv = x,
                    Value::Option(None) => continue,
                    other => return Err(wrong(&fpath, "an optional value", other)),
                }
            }
            // What goes in this section: the target, or the variant a
            // union's target is (each variant has its section).
            let (ty, align, tv): (&'c Type, u64, &Value) = match &p.to {
                Type::Pool {} => {
                    if self.target_section(p) != sec {
                        continue;
                    }
                    let Some(off) = off else {
                        return Err(EncodeError::new(
                            fpath,
                            "an offset field must be at a fixed offset of its record",
                        ));
                    };
                    let rec = placed.ok_or_else(|| unplaced("a string pool"))?;
                    let id = self.c.section_id(p.section.as_deref().unwrap_or_default());
                    let target = self.w.place_pool(id.unwrap_or(0));
                    self.patch_to(p, rec, *off, target, &fpath)?;
                    continue;
                }
                Type::Switch { union, .. } | Type::Select { union, .. } => {
                    let Some(TypeDef::Union(u)) = self.c.get(union) else {
                        return Err(EncodeError::new(fpath, format!("`{union}` is not a union")));
                    };
                    let (var, value) = self.variant_of(u, tv, &fpath)?;
                    match self.c.variant_placement(p, var) {
                        Some((vsec, align)) if vsec == sec => (&var.ty, align, value),
                        _ => continue,
                    }
                }
                to => {
                    if self.target_section(p) != sec {
                        continue;
                    }
                    match &p.align {
                        Some(kept) => (
                            to,
                            self.kept_align(tv, kept, &fpath)?,
                            field(tv, "value", &fpath)?,
                        ),
                        None => (to, self.c.section(sec).item_align, tv),
                    }
                }
            };
            let Some(off) = off else {
                return Err(EncodeError::new(
                    fpath,
                    "an offset field must be at a fixed offset of its record",
                ));
            };
            let dedup = self.c.section(sec).dedup;
            let target = self.place_value(ty, tv, &dedup, align, &fpath)?;
            let Some(rec) = placed else {
                if self.c.end_pair(st, ty).is_some() {
                    return Err(unplaced("a (start, end) pair"));
                }
                self.w.defer(fv as *const Value as usize, 0, 0, target);
                continue;
            };
            self.patch_to(p, rec, *off, target, &fpath)?;
            let base = self.base(&p.base, rec);
            // The end of a (start, end) pair is patched with the start.
            if let Some(pair) = self.c.end_pair(st, ty) {
                let (eoff, ety, esize) = pair.map_err(|m| EncodeError::new(&fpath, m))?;
                let len = length(tv, &fpath)? as u64;
                self.w
                    .patch_offset(
                        rec + eoff,
                        width(ety),
                        base,
                        p.scale,
                        target + len * esize,
                        self.endian,
                        "",
                    )
                    .map_err(at(&fpath))?;
            }
        }
        Ok(())
    }

    /// Writes `v` of type `t` as one value of the current section and
    /// gives the address an offset to it holds.
    fn place_value(
        &mut self,
        t: &'c Type,
        v: &Value,
        dedup: &Dedup,
        item_align: u64,
        path: &str,
    ) -> EncodeResult<u64> {
        if let (
            Type::CString {
                max,
                pad,
                lossless: false,
                encoding: codec_schema::Encoding::Utf8,
                size: None,
            },
            Dedup::Exact,
        ) = (t, dedup)
        {
            let Value::Str(s) = v else {
                return Err(wrong(path, "a string", v));
            };
            return self
                .w
                .place_cstring_exact(s, *max, *pad, item_align, false, "")
                .map_err(at(path));
        }
        let plain = matches!(dedup, Dedup::None);
        let start = if plain {
            self.w.align(item_align);
            self.w.pos()
        } else {
            self.w.begin_value(item_align)
        };
        let mut bias = 0;
        match t {
            Type::List { of, count } => {
                if let Count::Before(ct) | Count::Prefix(ct) = &**count {
                    let n = length(v, path)?;
                    self.w.put_uint(width(ct), n as u64, "").map_err(at(path))?;
                    if matches!(**count, Count::Before(_)) {
                        bias = int_width(ct).unwrap_or(4);
                    }
                }
                self.list(of, v, path)?;
            }
            Type::Named(n) if self.is_unit(t) => {
                let Some(TypeDef::Struct(st)) = self.c.get(n) else {
                    return Err(EncodeError::new(path, "internal: not a unit"));
                };
                self.unit(st, v, path)?
            }
            t => self.inline(t, v, path)?,
        }
        let target = if plain {
            start
        } else {
            self.w.end_value(start, item_align)
        };
        Ok(target + bias)
    }

    /// Patches offset field `p` at `rec + off` (its record at `rec`) to
    /// `target`.
    fn patch_to(
        &mut self,
        p: &Ptr,
        rec: u64,
        off: u64,
        target: u64,
        path: &str,
    ) -> EncodeResult<()> {
        let base = self.base(&p.base, rec);
        self.w
            .patch_offset(
                rec + off,
                width(&p.width),
                base,
                p.scale,
                target,
                self.endian,
                "",
            )
            .map_err(at(path))
    }

    /// The address an offset of base `b` counts from (`rec`: its record's).
    fn base(&self, b: &Base, rec: u64) -> u64 {
        self.c
            .offset_base(b)
            .resolve(rec, |id| self.w.section(id).start)
    }

    /// Patches the numbers of the finished layout (in any record), then
    /// the root's section starts and row strides, now known.
    fn patch_root(&mut self, root: &StructDef) -> EncodeResult<()> {
        self.w.settle()?;
        let offsets = self.c.field_offsets(root);
        for (f, off) in root.fields.iter().zip(&offsets) {
            let path = format!("{}.{}", root.name, f.name);
            let value = match &f.derive {
                Some(Derive::SectionStart(s)) => {
                    self.w.section(self.c.section_id(s).unwrap_or(0)).start
                }
                Some(Derive::Stride(rows)) => self.stride(root, rows),
                _ => continue,
            };
            let Some(off) = off else {
                return Err(EncodeError::new(
                    path,
                    "a derived field must be at a fixed offset of the root",
                ));
            };
            self.w
                .patch_uint(*off, width(&f.ty), value, "")
                .map_err(at(&path))?;
        }
        self.checksums(root)
    }
}
