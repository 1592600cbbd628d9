//! The interpreter's writing of trees of tagged nodes (BYML's constructs):
//! interned string tables and the indices into them, unions held as value
//! words with their tags stored apart, lists sorted by an interned or a
//! stored key, the depth-first walks that place sections in the order of
//! first reference, and subtrees shared whole.
//!
//! It takes `codec-derive`'s `tree.rs` steps through the same runtime
//! calls (`codec_runtime::{interned, shared}`), so the bytes are the same:
//! one pass before the root is written gathers every interned string and
//! builds every shape; each depth-first section is one walk of the
//! document from the root, placing each offset's target where the walk
//! meets it, once per shape in a shared section.
//!
//! Where the generated code keys what it remembers by a record's address
//! and a field's offset in it, the interpreter keys it by the address of
//! the value itself (the word, the record): the document is borrowed for
//! the whole encode, so the address stands for the same value. A record
//! is placed when the writer holds its position (`Enc::at`); the
//! generated code's `UNPLACED` is the interpreter's absent position.

use super::{elements, field, integer, wrong, Enc};
use crate::Value;
use codec_runtime::interned::{Collect, Collector};
use codec_runtime::shape::{Shape, ShapeKey};
use codec_runtime::shared::Shapes;
use codec_runtime::{EncodeError, EncodeResult};
use codec_schema::{Checked, Field, Ptr, SortKey, StructDef, Type, TypeDef, UnionDef, Visit};
use std::cell::RefCell;
use std::collections::HashMap;

/// The answers the walks ask for each record and value, worked out once
/// per encode from the schema's questions (`codec-schema/src/trees.rs`):
/// asked per value, they walk the whole schema each time.
pub(super) struct Facts<'c> {
    c: &'c Checked,
    /// For each type id: the shared section its records are placed in,
    /// when it is hash-consed.
    home: Vec<Option<usize>>,
    /// For each field and variant type of the schema: the sections a shape
    /// marks for it.
    direct: HashMap<*const Type, Vec<usize>>,
    /// Whether a type (by address in the schema) reaches a depth-first section.
    depth_first: RefCell<HashMap<*const Type, bool>>,
}

impl<'c> Facts<'c> {
    pub(super) fn of(c: &'c Checked) -> Self {
        let shared = c.has_shared();
        let home = c
            .schema
            .types
            .iter()
            .map(|t| shared.then(|| c.shared_home(t.name())).flatten())
            .collect();
        let mut direct = HashMap::new();
        if shared {
            for t in &c.schema.types {
                match t {
                    TypeDef::Struct(st) => {
                        for f in &st.fields {
                            direct.insert(&f.ty as *const Type, c.direct_sections(&f.ty));
                        }
                    }
                    TypeDef::Union(u) => {
                        for v in &u.variants {
                            direct.insert(&v.ty as *const Type, c.direct_sections(&v.ty));
                        }
                    }
                }
            }
        }
        Facts {
            c,
            home,
            direct,
            depth_first: RefCell::new(HashMap::new()),
        }
    }

    /// The shared section records of type `name` live in, if hash-consed.
    fn home(&self, name: &str) -> Option<usize> {
        self.c
            .type_id(name)
            .and_then(|i| self.home.get(i).copied().flatten())
    }

    fn marks(&self, t: &Type, s: &mut Shapes) {
        if let Some(secs) = self.direct.get(&(t as *const Type)) {
            for &si in secs {
                s.mark(si);
            }
        }
    }

    /// [`Checked::reaches_depth_first`] for a type of the schema.
    fn reaches_depth_first(&self, t: &Type) -> bool {
        *self
            .depth_first
            .borrow_mut()
            .entry(t as *const Type)
            .or_insert_with(|| self.c.reaches_depth_first(t))
    }
}

/// The address that stands for a value of the document.
fn key(v: &Value) -> usize {
    v as *const Value as usize
}

/// The string a value holds (an interned string's text).
fn text<'v>(v: &'v Value, path: &str) -> EncodeResult<&'v str> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(wrong(path, "a string", other)),
    }
}

/// Strips an optional offset's `Option` (an absent one: `None`).
fn present(v: &Value) -> Option<&Value> {
    match v {
        Value::Option(o) => o.as_deref(),
        x => Some(x),
    }
}

/// The gathering pass as the runtime's [`Collect`]: what the document
/// holds, walked by the schema.
struct Gather<'a> {
    f: &'a Facts<'a>,
    root: &'a Type,
    v: &'a Value,
}

impl Collect for Gather<'_> {
    fn collect(&self, col: &mut Collector<'_>) {
        collect(self.f, self.root, self.v, col.shapes());
    }
}

/// Adds the interned strings of `v` (of type `t`) to their tables; a
/// record of a shared section builds its shape instead, which holds them.
fn collect(fx: &Facts<'_>, t: &Type, v: &Value, s: &mut Shapes) {
    let c = fx.c;
    match t {
        Type::Index { table, .. } => {
            if let Value::Str(x) = v {
                s.string(c.table_id(table), x);
            }
        }
        Type::Named(n) | Type::Switch { union: n, .. } => {
            if fx.home(n).is_some() {
                shape_id(fx, n, v, s);
                return;
            }
            match c.get(n) {
                Some(TypeDef::Struct(st)) => {
                    for f in st.fields.iter().filter(|f| Checked::is_stored(f)) {
                        if let Ok(fv) = field(v, &f.name, "") {
                            collect(fx, &f.ty, fv, s);
                        }
                    }
                }
                Some(TypeDef::Union(u)) => {
                    if let Some((var, x)) = variant(u, v) {
                        collect(fx, &var.ty, x, s);
                    }
                }
                None => {}
            }
        }
        Type::List { of, .. } | Type::Array { of, .. } => {
            if let Value::Seq(xs) = v {
                for x in xs {
                    collect(fx, of, x, s);
                }
            }
        }
        Type::Ptr(p) => {
            if let Some(x) = present(v) {
                let x = if p.align.is_some() {
                    field(x, "value", "").unwrap_or(x)
                } else {
                    x
                };
                collect(fx, &p.to, x, s);
            }
        }
        _ => {}
    }
}

/// The variant of union `u` a value is, and its payload.
fn variant<'u, 'v>(
    u: &'u UnionDef,
    v: &'v Value,
) -> Option<(&'u codec_schema::Variant, &'v Value)> {
    let Value::Variant { variant, value, .. } = v else {
        return None;
    };
    Some((u.variants.iter().find(|x| &x.name == variant)?, value))
}

/// The shape of record `v` of type `name` (hash-consed: see
/// `codec_runtime::shared`), built the first time it is asked for.
fn shape_id(fx: &Facts<'_>, name: &str, v: &Value, s: &mut Shapes) -> u32 {
    let tid = fx.c.type_id(name).unwrap_or(0);
    s.id(key(v), tid, |k, s| shape_body(fx, name, v, k, s))
}

/// What the fields (or the variant) of a value of type `name` add to a shape.
fn shape_body(fx: &Facts<'_>, name: &str, v: &Value, k: &mut ShapeKey, s: &mut Shapes) {
    match fx.c.get(name) {
        Some(TypeDef::Struct(st)) => {
            for f in st.fields.iter().filter(|f| Checked::is_stored(f)) {
                fx.marks(&f.ty, s);
                match field(v, &f.name, "") {
                    Ok(fv) => shape_value(fx, &f.ty, fv, k, s),
                    Err(_) => k.byte(0xFF),
                }
            }
        }
        Some(TypeDef::Union(u)) => match variant(u, v) {
            Some((var, x)) => {
                k.int(var.tag);
                fx.marks(&var.ty, s);
                shape_value(fx, &var.ty, x, k, s);
            }
            None => k.byte(0xFF),
        },
        None => {}
    }
}

/// What value `v` of type `t` adds to its holder's shape: equal values,
/// equal bytes; a hash-consed record as its shape's number.
fn shape_value(fx: &Facts<'_>, t: &Type, v: &Value, k: &mut ShapeKey, s: &mut Shapes) {
    match (t, v) {
        (Type::Magic(_), _) => {}
        (Type::Named(n) | Type::Switch { union: n, .. }, _) => {
            if fx.home(n).is_some() {
                k.id(shape_id(fx, n, v, s));
            } else {
                shape_body(fx, n, v, k, s);
            }
        }
        (Type::Index { table, .. }, Value::Str(x)) => k.id(s.string(fx.c.table_id(table), x)),
        (Type::Ptr(p), _) => match (v, p.optional) {
            (Value::Option(None), _) => k.byte(0),
            (Value::Option(Some(x)), true) => {
                k.byte(1);
                shape_target(fx, p, x, k, s);
            }
            (x, _) => shape_target(fx, p, x, k, s),
        },
        (_, Value::Bytes(b)) => {
            // As the compiled codec's `Vec<u8>` and `Blob`: the length, then
            // the run (one id for a long one).
            k.count(b.len());
            <u8 as Shape>::shape_all(b, k, s);
        }
        (Type::List { of, .. } | Type::Array { of, .. }, Value::Seq(xs)) => {
            k.count(xs.len());
            for x in xs {
                shape_value(fx, of, x, k, s);
            }
        }
        (_, x) => shape_leaf(x, k),
    }
}

fn shape_target(fx: &Facts<'_>, p: &Ptr, v: &Value, k: &mut ShapeKey, s: &mut Shapes) {
    match (&p.align, v) {
        (Some(_), Value::Struct { .. }) => {
            if let Ok(x) = field(v, "value", "") {
                shape_value(fx, &p.to, x, k, s);
            }
        }
        _ => shape_value(fx, &p.to, v, k, s),
    }
}

/// A leaf's bytes in a shape: its kind, then its value.
fn shape_leaf(v: &Value, k: &mut ShapeKey) {
    match v {
        Value::Unit => k.byte(0),
        Value::Bool(b) => k.byte(u8::from(*b)),
        Value::F32(x) => k.id(x.to_bits()),
        Value::F64(x) => k.int(x.to_bits()),
        Value::Char(ch) => k.id(u32::from(*ch)),
        Value::Str(x) => k.bytes(x.as_bytes()),
        Value::Option(None) => k.byte(0),
        Value::Option(Some(x)) => {
            k.byte(1);
            shape_leaf(x, k);
        }
        x => match integer(x, "") {
            Ok(n) => k.int(n as u64),
            // Anything else (a map, an untyped list): its text, which is
            // the same for equal values.
            Err(_) => k.bytes(format!("{x:?}").as_bytes()),
        },
    }
}

impl<'c> Enc<'c, '_> {
    /// Before the root is written: the sharing the document keeps, then
    /// every interned string gathered and every shape built (one pass), so
    /// that each index is known and each walk finds the shapes.
    pub(super) fn prepare_tree(&mut self, root: &'c StructDef, v: &Value) -> EncodeResult<()> {
        for (name, si) in self.c.shares_equal_fields() {
            let path = format!("{}.{name}", root.name);
            let shares = match field(v, name, &path)? {
                Value::Bool(b) => *b,
                other => return Err(wrong(&path, "a bool", other)),
            };
            self.w.set_shares_equal(si, shares);
        }
        let tables = self.c.interned_tables().len();
        if tables > 0 || self.c.has_shared() {
            let root_ty = Type::Named(root.name.clone());
            let gather = Gather {
                f: &self.facts,
                root: &root_ty,
                v,
            };
            self.w.intern_all(&gather, tables);
        }
        Ok(())
    }

    /// Places an interned table (the root's field `f`, `derive: Interned`,
    /// an offset at `off` of the root at `rec`) when `sec` is its section:
    /// the sorted strings, written by the table's record; nothing when
    /// the table is empty (the offset stays 0).
    pub(super) fn place_interned(
        &mut self,
        sec: usize,
        f: &Field,
        p: &Ptr,
        rec: u64,
        off: Option<u64>,
        path: &str,
    ) -> EncodeResult<()> {
        if self.target_section(p) != sec {
            return Ok(());
        }
        let Type::Named(tn) = &p.to else {
            return Err(EncodeError::new(path, "an interned table is a record"));
        };
        let st = self.struct_def(tn, path)?;
        let Some(tf) = st
            .fields
            .iter()
            .find(|g| matches!(g.ty, Type::Table { .. }))
        else {
            return Err(EncodeError::new(
                path,
                format!("`{tn}` has no `Table` field"),
            ));
        };
        let Some(off) = off else {
            return Err(EncodeError::new(
                path,
                "an offset field must be at a fixed offset of its record",
            ));
        };
        let id = self.c.table_id(&f.name);
        let strings = self.w.take_table(id);
        if strings.is_empty() {
            return Ok(());
        }
        let table = Value::Struct {
            name: tn.clone(),
            fields: vec![(
                tf.name.clone(),
                Value::Seq(strings.iter().map(|s| Value::Str(s.to_string())).collect()),
            )],
        };
        self.w.restore_table(id, strings);
        self.w.align(self.c.section(sec).item_align);
        let target = self.w.pos();
        self.write_record(st, &table, path)?;
        let base = self.base(&p.base, rec);
        self.w
            .patch_offset(
                rec + off,
                super::width(&p.width),
                base,
                p.scale,
                target,
                self.endian,
                "",
            )
            .map_err(super::at(path))
    }

    /// Writes a table body (`Table`): each string's offset from the
    /// record's start, then the strings.
    pub(super) fn table_body(
        &mut self,
        start: u64,
        offsets: &Type,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let strings = elements(v, path)?
            .iter()
            .map(|x| text(x, path).map(codec_runtime::Str::from))
            .collect::<EncodeResult<Vec<_>>>()?;
        codec_runtime::interned::write_table(
            &mut self.w,
            start,
            &strings,
            super::width(offsets),
            "",
        )
        .map_err(super::at(path))
    }

    /// Writes an interned string as its index in its table.
    pub(super) fn index(
        &mut self,
        table: &str,
        w: &Type,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let s = text(v, path)?;
        let i = self
            .w
            .interned()
            .index(self.c.table_id(table), s, "")
            .map_err(super::at(path))?;
        self.w
            .put_uint(super::width(w), i, "")
            .map_err(super::at(path))
    }

    /// Writes the word of a value of union `union` held with its tag
    /// stored apart: an offset whose target a walk placed already, or
    /// zeros (patched when the target is placed); an interned index; or
    /// the value itself.
    pub(super) fn word(&mut self, union: &str, v: &Value, path: &str) -> EncodeResult<()> {
        let Some(TypeDef::Union(u)) = self.c.get(union) else {
            return Err(EncodeError::new(path, format!("`{union}` is not a union")));
        };
        let (var, x) = self.variant_of(u, v, path)?;
        self.at.insert(v as *const Value, self.w.pos());
        match &var.ty {
            Type::Ptr(p) => match self.w.take_deferred(key(v), 0, 0) {
                Some(t) => self
                    .w
                    .put_offset(super::width(&p.width), p.payload_base(), p.scale, t, "")
                    .map_err(super::at(path))?,
                None => self
                    .w
                    .put_zeros(codec_schema::int_width(&p.width).unwrap_or(4) as usize),
            },
            Type::Index { table, width } => self.index(table, width, x, path)?,
            t => self.inline(t, x, path)?,
        }
        Ok(())
    }

    /// The tags of list `of`'s elements (`derive: Tags`), in the order the
    /// list was written.
    pub(super) fn tags(
        &mut self,
        st: &StructDef,
        v: &Value,
        source: &str,
        t: &Type,
        path: &str,
    ) -> EncodeResult<()> {
        let (list, part) = codec_schema::tags_source(source);
        let lv = field(v, list, path)?;
        let elems = elements(lv, path)?;
        let lf = st.fields.iter().find(|g| g.name == list);
        let union_name = match lf.map(|g| &g.ty) {
            Some(Type::List { of, .. }) => match (&**of, part) {
                (Type::Switch { union, .. }, None) => union.clone(),
                (Type::Named(en), Some(p)) => match self.c.get(en) {
                    Some(TypeDef::Struct(e)) => match e.fields.iter().find(|g| g.name == p) {
                        Some(Field {
                            ty: Type::Switch { union, .. },
                            ..
                        }) => union.clone(),
                        _ => {
                            return Err(EncodeError::new(
                                path,
                                format!("`{source}` is not a union"),
                            ))
                        }
                    },
                    _ => return Err(EncodeError::new(path, format!("`{en}` is not a record"))),
                },
                _ => {
                    return Err(EncodeError::new(
                        path,
                        format!("`{source}` holds no unions"),
                    ))
                }
            },
            _ => return Err(EncodeError::new(path, format!("no list `{list}`"))),
        };
        let Some(TypeDef::Union(u)) = self.c.get(&union_name) else {
            return Err(EncodeError::new(
                path,
                format!("`{union_name}` is not a union"),
            ));
        };
        let order = self
            .sorted
            .get(&(lv as *const Value))
            .cloned()
            .unwrap_or_else(|| (0..elems.len()).collect());
        for i in order {
            let e = &elems[i];
            let x = match part {
                Some(p) => field(e, p, path)?,
                None => e,
            };
            let tag = self.variant_of(u, x, &format!("{path}[{i}]"))?.0.tag;
            self.w
                .put_uint(super::width(t), tag, "")
                .map_err(super::at(path))?;
        }
        Ok(())
    }

    /// The key each element of a list sorted by an interned string or a
    /// stored unsigned integer sorts by: the string's index in its table,
    /// or the number. `None` when the list is not sorted so.
    pub(super) fn stored_sort_keys(
        &self,
        f: &Field,
        list: &Value,
        path: &str,
    ) -> EncodeResult<Option<Vec<u64>>> {
        let (by, table) = match self.c.sort_key(f) {
            Some(SortKey::Interned { key, table, .. }) => (key, Some(table)),
            Some(SortKey::Stored { key, .. }) => (key, None),
            Some(SortKey::Hashed(_)) | None => return Ok(None),
        };
        let mut keys = Vec::new();
        for (i, x) in elements(list, path)?.iter().enumerate() {
            let kpath = format!("{path}[{i}].{by}");
            let kv = field(x, by, &kpath)?;
            keys.push(match table {
                Some(id) => self
                    .w
                    .interned()
                    .index(id, text(kv, &kpath)?, "")
                    .map_err(super::at(&kpath))?,
                None => u64::try_from(integer(kv, &kpath)?)
                    .map_err(|_| EncodeError::new(&kpath, "a sort key is not negative"))?,
            });
        }
        Ok(Some(keys))
    }

    /// The order a sorted list's elements are written in (element indices),
    /// known once the list is written, computed before.
    fn written_order(&self, f: &Field, list: &Value, path: &str) -> EncodeResult<Vec<usize>> {
        if let Some(o) = self.sorted.get(&(list as *const Value)) {
            return Ok(o.clone());
        }
        let n = elements(list, path)?.len();
        Ok(match self.stored_sort_keys(f, list, path)? {
            Some(keys) => codec_runtime::placement::sorted_order(&keys),
            None => (0..n).collect(),
        })
    }

    /// The depth-first walk over section `sec` through value `v` of type
    /// `t` (a named record or union): each offset's target in `sec` is
    /// placed where the walk meets it, and visited at once.
    pub(super) fn visit_df(
        &mut self,
        sec: usize,
        t: &'c Type,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let Type::Named(n) = t else {
            return Ok(());
        };
        match self.c.get(n) {
            Some(TypeDef::Union(u)) => {
                let (var, x) = self.variant_of(u, v, path)?;
                self.visit_df(sec, &var.ty, x, path)
            }
            Some(TypeDef::Struct(st)) => self.visit_df_record(sec, st, v, path),
            None => Err(EncodeError::new(path, format!("no type `{n}`"))),
        }
    }

    /// [`Self::visit_df`] through record `v` of struct `st`.
    pub(super) fn visit_df_record(
        &mut self,
        sec: usize,
        st: &'c StructDef,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let n = st.name.as_str();
        if let Some(home) = self.facts.home(n) {
            let shape = shape_id(&self.facts, n, v, self.w.shapes());
            if !self.w.first_visit(home, sec, shape) {
                return Ok(());
            }
        }
        for fi in self.c.placing_order(st) {
            let f = &st.fields[fi];
            if f.derive.is_some() {
                continue;
            }
            let fpath = format!("{path}.{}", f.name);
            match &f.ty {
                Type::Ptr(p) => {
                    let fv = field(v, &f.name, &fpath)?;
                    if let Some(tv) = present(fv) {
                        self.df_place(sec, p, fv, tv, &fpath)?;
                    }
                }
                Type::Switch { union, .. } if self.facts.reaches_depth_first(&f.ty) => {
                    self.visit_word(sec, union, field(v, &f.name, &fpath)?, &fpath)?;
                }
                Type::List { of, .. } if self.facts.reaches_depth_first(of) => {
                    let list = field(v, &f.name, &fpath)?;
                    let elems = elements(list, &fpath)?;
                    match &**of {
                        Type::Switch { union, .. } => {
                            for (i, e) in elems.iter().enumerate() {
                                self.visit_word(sec, union, e, &format!("{fpath}[{i}]"))?;
                            }
                        }
                        // Each element an offset (a BFEVFL container's
                        // items): its target placed as a field's is.
                        Type::Ptr(p) => {
                            for (i, e) in elems.iter().enumerate() {
                                if let Some(tv) = present(e) {
                                    self.df_place(sec, p, e, tv, &format!("{fpath}[{i}]"))?;
                                }
                            }
                        }
                        Type::Named(_) => {
                            let order = if f.sort_by.is_some() && f.visit == Visit::Written {
                                self.written_order(f, list, &fpath)?
                            } else {
                                (0..elems.len()).collect()
                            };
                            for i in order {
                                self.visit_df(sec, of, &elems[i], &format!("{fpath}[{i}]"))?;
                            }
                        }
                        _ => {}
                    }
                }
                Type::Named(_) if self.facts.reaches_depth_first(&f.ty) => {
                    self.visit_df(sec, &f.ty, field(v, &f.name, &fpath)?, &fpath)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The walk through a union's word: its offset's target placed.
    fn visit_word(&mut self, sec: usize, union: &str, v: &Value, path: &str) -> EncodeResult<()> {
        let Some(TypeDef::Union(u)) = self.c.get(union) else {
            return Err(EncodeError::new(path, format!("`{union}` is not a union")));
        };
        let (var, x) = self.variant_of(u, v, path)?;
        if let (Type::Ptr(p), Some(tv)) = (&var.ty, present(x)) {
            self.df_place(sec, p, v, tv, path)?;
        }
        Ok(())
    }

    /// Places target `tv` of offset `p` (held by value `holder`: the word
    /// or the field) when `sec` is its section, or walks on through it to
    /// what it leads to in `sec`. In a shared section, a target equal to
    /// one placed already is pointed at and not walked again.
    fn df_place(
        &mut self,
        sec: usize,
        p: &'c Ptr,
        holder: &Value,
        tv: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let Some(si) = p.section.as_deref().and_then(|s| self.c.section_id(s)) else {
            return Ok(());
        };
        let named = matches!(p.to, Type::Named(_));
        // A target that is a list of records reaches on through each
        // element (BFEVFL's events, each holding an offset in its union's
        // payload: its target was never placed, and the offset written
        // as 0, before; issue 72).
        let reaches = self.facts.reaches_depth_first(&p.to);
        if si != sec {
            if reaches {
                self.visit_df_target(sec, &p.to, tv, path)?;
            }
            return Ok(());
        }
        let sd = self.c.section(si);
        let (ia, shared) = (sd.item_align, sd.dedup == codec_schema::Dedup::Shared);
        // Where the offset was written, asked before the target is: the
        // offset's value is its target's, and writing the target records
        // the target's place under the same value (the offset of a root
        // record was patched into its own target, and the root's left 0).
        let offset_at = self.at.get(&(holder as *const Value)).copied();
        let (target, fresh) = if shared {
            let Type::Named(n) = &p.to else {
                return Err(EncodeError::new(
                    path,
                    "a shared section holds records (a named struct or union)",
                ));
            };
            let shape = shape_id(&self.facts, n, tv, self.w.shapes());
            match self.w.shared_at(si, shape) {
                Some(t) => (t, false),
                None => {
                    self.w.align(ia);
                    let t = self.w.pos();
                    self.inline(&p.to, tv, path)?;
                    self.w.note_shared(si, shape, t);
                    (t, true)
                }
            }
        } else if named {
            self.w.align(ia);
            self.align_by_pad(&p.to, tv, path)?;
            let t = self.w.pos();
            self.inline(&p.to, tv, path)?;
            (t, true)
        } else {
            let t = self.place_value(&p.to, tv, &codec_schema::Dedup::None, ia, path)?;
            (t, true)
        };
        match offset_at {
            Some(at) => self
                .w
                .patch_offset(
                    at,
                    super::width(&p.width),
                    p.payload_base(),
                    p.scale,
                    target,
                    self.endian,
                    "",
                )
                .map_err(super::at(path))?,
            None => self.w.defer(key(holder), 0, 0, target),
        }
        if fresh && reaches {
            self.visit_df_target(sec, &p.to, tv, path)?;
        }
        Ok(())
    }

    /// [`Self::visit_df`] through an offset's target `v` of type `t`: a
    /// record or union, or a list of them, each element walked in turn.
    fn visit_df_target(
        &mut self,
        sec: usize,
        t: &'c Type,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        match t {
            Type::Named(_) => self.visit_df(sec, t, v, path),
            Type::List { of, .. } | Type::Array { of, .. } => match &**of {
                Type::Named(_) => {
                    for (i, e) in elements(v, path)?.iter().enumerate() {
                        self.visit_df(sec, of, e, &format!("{path}[{i}]"))?;
                    }
                    Ok(())
                }
                Type::Switch { union, .. } => {
                    for (i, e) in elements(v, path)?.iter().enumerate() {
                        self.visit_word(sec, union, e, &format!("{path}[{i}]"))?;
                    }
                    Ok(())
                }
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Zeros that put a record's `align_by` field at a multiple of the
    /// alignment the record stores.
    fn align_by_pad(&mut self, t: &Type, v: &Value, path: &str) -> EncodeResult<()> {
        let Type::Named(n) = t else { return Ok(()) };
        let Some(TypeDef::Struct(st)) = self.c.get(n) else {
            return Ok(());
        };
        let offs = self.c.field_offsets(st);
        let Some((f, o)) = st
            .fields
            .iter()
            .zip(&offs)
            .find(|(f, _)| f.align_by.is_some())
        else {
            return Ok(());
        };
        let (Some(o), Some(by)) = (*o, f.align_by.as_deref()) else {
            return Err(EncodeError::new(
                path,
                "a field aligned by a stored alignment must be at a fixed offset",
            ));
        };
        let a = (integer(field(v, by, path)?, path)?.max(1)) as u64;
        let here = self.w.pos() + o;
        self.w.put_zeros((here.next_multiple_of(a) - here) as usize);
        Ok(())
    }
}
