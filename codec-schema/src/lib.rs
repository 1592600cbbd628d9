//! The schema language's front end: RON → model → checked IR.
//!
//! `codec-derive` emits Rust from the [`Checked`] IR; the dump, coverage and
//! docs tools read the same IR at run time. The semantics live here, not in
//! the proc-macro.

mod check;
pub mod diag;
pub mod docs;
pub mod locate;
pub mod model;
pub mod names;
mod overlay;
pub mod plan;
mod sorted;
mod trees;

pub use check::{bit_ranges, int_width, is_number};
pub use codec_runtime::settled::Settled;
pub use codec_runtime::sorted_values::{SortedValues, ValueForm, ValueOrder};
pub use codec_runtime::OffsetBase;
/// An integer's width as the runtime writes it (a sorted value's length prefix).
pub use codec_runtime::Width;
pub use diag::{Diagnostic, Diagnostics};
pub use model::*;
pub use overlay::{all_sections, eval_when};
pub use plan::{FieldRead, FieldWrite, Follow, Settle};

use check::{Facts, Lookup};
use locate::{Locations, Pos, Step};
use std::collections::HashMap;
use std::path::Path;

/// A schema that passed every check, with the facts codegen and the
/// run-time tools need precomputed.
#[derive(Debug, Clone)]
pub struct Checked {
    pub schema: Schema,
    /// The file name diagnostics print.
    file: String,
    /// Where each item of the schema text starts.
    locs: Locations,
    type_index: HashMap<String, usize>,
    section_index: HashMap<String, usize>,
    /// Sizes and reachability (`reaches[type][section]`: can a value of
    /// this type lead, through fields and offsets, to something placed in
    /// that section?).
    facts: Facts,
    /// The schema as written, when it declares variants (`schema` is then
    /// the concrete schema of one variant).
    base: Option<Box<Schema>>,
    /// Which variant `schema` is (an index into `base.variants`).
    variant: Option<usize>,
    /// The concrete schema of every variant, in declared order (empty for a
    /// schema without variants, and in the members themselves).
    variants: Vec<Checked>,
    /// The types some `Ref` points at, found in one walk of the schema
    /// (asked per type, a walk each was quadratic in the schema).
    ref_targets: std::collections::HashSet<String>,
}

/// Parses and checks schema text. `file` is the name diagnostics print.
pub fn parse_str(src: &str, file: &str) -> Result<Checked, Diagnostics> {
    let opts = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let schema: Schema = match opts.from_str(src) {
        Ok(s) => s,
        Err(e) => {
            let pos = Pos {
                line: e.span.start.line,
                col: e.span.start.col,
            };
            return Err(Diagnostics {
                file: file.to_owned(),
                items: vec![Diagnostic {
                    item: String::new(),
                    pos,
                    message: format!("RON syntax: {}", e.code),
                    hint: None,
                }],
            });
        }
    };
    let locs = Locations::scan(src);
    let mut cx = diag::Ctxt::new(&locs);
    overlay::check(&schema, &mut cx);
    let items = cx.finish();
    if !items.is_empty() {
        return Err(Diagnostics {
            file: file.to_owned(),
            items,
        });
    }
    // Each variant's concrete schema is checked on its own; a mistake that
    // only some variants make says which.
    let picks: Vec<Option<usize>> = if schema.variants.is_empty() {
        vec![None]
    } else {
        (0..schema.variants.len()).map(Some).collect()
    };
    let mut found: Vec<(Diagnostic, Vec<usize>)> = Vec::new();
    let mut members = Vec::new();
    for (k, &vi) in picks.iter().enumerate() {
        let r = overlay::resolve(&schema, vi);
        let (cs, clocs) = overlay::concrete(&schema, &locs, &r);
        let mut cx = diag::Ctxt::new(&clocs);
        check::check(&cs, &mut cx);
        for d in cx.finish() {
            match found.iter_mut().find(|(e, _)| *e == d) {
                Some((_, ks)) => ks.push(k),
                None => found.push((d, vec![k])),
            }
        }
        members.push((cs, clocs, vi));
    }
    if !found.is_empty() {
        let items = found
            .into_iter()
            .map(|(mut d, ks)| {
                if ks.len() < picks.len() {
                    let names: Vec<&str> = ks
                        .iter()
                        .filter_map(|&k| picks[k].map(|i| schema.variants[i].name.as_str()))
                        .collect();
                    d.message = format!("{} (variant {})", d.message, names.join(", "));
                }
                d
            })
            .collect();
        return Err(Diagnostics {
            file: file.to_owned(),
            items,
        });
    }
    if schema.variants.is_empty() {
        let (cs, clocs, _) = members.pop().expect("one member");
        return Ok(Checked::new(cs, clocs, file));
    }
    let variants: Vec<Checked> = members
        .into_iter()
        .map(|(cs, clocs, vi)| {
            let mut c = Checked::new(cs, clocs, file);
            c.variant = vi;
            c
        })
        .collect();
    let mut first = variants[0].clone();
    first.base = Some(Box::new(schema));
    first.variants = variants;
    for v in &mut first.variants {
        v.base = first.base.clone();
    }
    Ok(first)
}

/// Reads, parses and checks a schema file; `display` is the name diagnostics print.
pub fn load(path: &Path, display: &str) -> Result<Checked, Diagnostics> {
    match std::fs::read_to_string(path) {
        Ok(src) => parse_str(&src, display),
        Err(e) => Err(Diagnostics {
            file: display.to_owned(),
            items: vec![Diagnostic {
                item: String::new(),
                pos: Pos { line: 1, col: 1 },
                message: format!("cannot read the schema file: {e}"),
                hint: None,
            }],
        }),
    }
}

impl Checked {
    fn new(schema: Schema, locs: Locations, file: &str) -> Self {
        let type_index: HashMap<String, usize> = schema
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        let section_index: HashMap<String, usize> = all_sections(&schema)
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        let facts = Facts::compute(
            &schema,
            &|n: &str| type_index.get(n).copied(),
            &|n: &str| section_index.get(n).copied(),
        );
        let mut ref_targets = std::collections::HashSet::new();
        any_type_of(&schema, |t| {
            if let Type::Ref { to, .. } = t {
                ref_targets.insert(to.clone());
            }
            false
        });
        Checked {
            ref_targets,
            schema,
            file: file.to_owned(),
            locs,
            type_index,
            section_index,
            facts,
            base: None,
            variant: None,
            variants: Vec::new(),
        }
    }

    /// The schema as written (with its `when` conditions and params); the
    /// same as [`Checked::schema`] for a schema without variants.
    pub fn base(&self) -> &Schema {
        self.base.as_deref().unwrap_or(&self.schema)
    }

    /// The concrete schema of every variant, in declared order; empty for a
    /// schema without variants. The first one is `self`'s own.
    pub fn variants(&self) -> &[Checked] {
        &self.variants
    }

    /// The name of the variant this concrete schema is, if any.
    pub fn variant_name(&self) -> Option<&str> {
        let i = self.variant?;
        self.base().variants.get(i).map(|v| v.name.as_str())
    }

    /// The concrete schema of the variant named `name`.
    pub fn variant(&self, name: &str) -> Option<&Checked> {
        self.variants
            .iter()
            .find(|v| v.variant_name() == Some(name))
    }

    /// Every section, the units' included, by global index.
    pub fn all_sections(&self) -> Vec<&Section> {
        all_sections(&self.schema)
    }

    /// The section with this global index.
    pub fn section(&self, id: usize) -> &Section {
        all_sections(&self.schema)[id]
    }

    /// The file name diagnostics print (as given to [`parse_str`] or [`load`]).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Where the item at `path` (`["sections", 2, "order"]`) starts in the
    /// schema text, or its nearest located ancestor; for diagnostics found
    /// after the check (by codegen), rendered with [`Diagnostics`].
    pub fn position(&self, path: &[Step]) -> Pos {
        self.locs.find(path)
    }

    /// The positions of the schema text's items.
    pub fn locations(&self) -> &Locations {
        &self.locs
    }

    pub fn type_id(&self, name: &str) -> Option<usize> {
        self.type_index.get(name).copied()
    }

    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.type_id(name).map(|i| &self.schema.types[i])
    }

    pub fn section_id(&self, name: &str) -> Option<usize> {
        self.section_index.get(name).copied()
    }

    /// The rank of the targets of offset field `fi` of `s`, by which
    /// `Reader::add_bound` orders targets that share a position: the
    /// section they are placed in, then the field's index in its record
    /// (of two lists starting at one position, the one placed first is
    /// empty). Decode and the interpreter both ask here.
    pub fn target_rank(&self, s: &StructDef, fi: usize) -> u64 {
        let sec = match &s.fields[fi].ty {
            Type::Ptr(p) => p.section.as_deref(),
            Type::Follows { section, .. } => Some(section.as_str()),
            _ => None,
        };
        let sec = sec.and_then(|n| self.section_id(n)).unwrap_or(0) as u64;
        sec * 1024 + fi as u64
    }

    /// The variants of union `union` whose payload is a record written in
    /// place (not behind an offset) that leads to placed data of section
    /// `section`: a writer visits that record where the payload lies, as it
    /// visits a record field, to place its offsets' targets (an event
    /// flow's event, whose type chooses which of its slots lead where).
    /// The generated encoder and the interpreter's writer both ask here.
    pub fn payload_records(&self, union: &str, section: usize) -> Vec<(&Variant, &StructDef)> {
        let Some(TypeDef::Union(u)) = self.get(union) else {
            return Vec::new();
        };
        u.variants
            .iter()
            .filter_map(|v| match &v.ty {
                Type::Named(n) => match self.get(n) {
                    Some(TypeDef::Struct(st))
                        if st.layout.is_none() && self.type_reaches(&v.ty, section) =>
                    {
                        Some((v, st))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// Where a union's variant `v`, led to by offset `p`, is placed: the
    /// variant's own section, else the offset's, and its alignment there
    /// (its own, else the section's item alignment); `None` when neither
    /// names a section. The generated encoder and the interpreter's writer
    /// both ask here.
    pub fn variant_placement(&self, p: &Ptr, v: &Variant) -> Option<(usize, u64)> {
        let si = v
            .section
            .as_deref()
            .or(p.section.as_deref())
            .and_then(|n| self.section_id(n))?;
        Some((si, v.align.unwrap_or(self.section(si).item_align)))
    }

    /// The sections unit `st` lays out itself, in its layout's order.
    pub fn unit_sections(&self, st: &StructDef) -> Vec<usize> {
        st.layout
            .iter()
            .flat_map(|l| &l.sections)
            .filter_map(|x| self.section_id(&x.name))
            .collect()
    }

    /// What list field `f` is sorted by (`sort_by`), asked once for every
    /// back end: an interned string its elements hold (its rank in its
    /// table), an unsigned integer they store, or a key glue hashes and
    /// the writer patches in. `None` for a list not sorted, or sorted by a
    /// field no rule covers (the checker refuses those).
    pub fn sort_key<'a>(&'a self, f: &'a Field) -> Option<SortKey<'a>> {
        let by = f.sort_by.as_deref()?;
        if let Some(k) = self.key_hash_sort(f) {
            return Some(SortKey::Hashed(k));
        }
        let Type::List { of, .. } = &f.ty else {
            return None;
        };
        let Type::Named(n) = &**of else { return None };
        let Some(TypeDef::Struct(elem)) = self.get(n) else {
            return None;
        };
        let key = elem.fields.iter().find(|g| g.name == by)?;
        match &key.ty {
            Type::Index { table, .. } => Some(SortKey::Interned {
                elem,
                key: by,
                table: self.table_id(table),
            }),
            t if key.derive.is_none() && int_width(t).is_some() => {
                Some(SortKey::Stored { elem, key: by })
            }
            _ => None,
        }
    }

    /// For list field `f` written sorted by a key glue hashes (`sort_by`
    /// naming a `KeyHash` field of its elements): the element struct, the
    /// key field's index there and its place in an element (`None` when
    /// that is not fixed), the hook, the key field and the seed field.
    pub fn key_hash_sort<'a>(&'a self, f: &'a Field) -> Option<KeyHashSort<'a>> {
        let by = f.sort_by.as_deref()?;
        let Type::List { of, .. } = &f.ty else {
            return None;
        };
        let Type::Named(n) = &**of else { return None };
        let Some(TypeDef::Struct(elem)) = self.get(n) else {
            return None;
        };
        let ki = elem.fields.iter().position(|g| g.name == by)?;
        let Some(Derive::KeyHash { hook, key, seed }) = &elem.fields[ki].derive else {
            return None;
        };
        Some(KeyHashSort {
            elem,
            key_field: ki,
            key_offset: self.field_offsets(elem)[ki],
            hook,
            key,
            seed,
        })
    }

    /// For an offset field of `st` whose target `to` is a list counted by
    /// `End(e)` (a start and end pair): where `e` is in the record, its
    /// type, and the size of one element; the error when `e` is not at a
    /// fixed place. `None` for any other target.
    pub fn end_pair<'a>(
        &'a self,
        st: &'a StructDef,
        to: &Type,
    ) -> Option<Result<(u64, &'a Type, u64), String>> {
        let Type::List { of, count } = to else {
            return None;
        };
        let Count::End(e) = &**count else {
            return None;
        };
        let ei = st.fields.iter().position(|g| &g.name == e);
        let offsets = self.field_offsets(st);
        Some(match ei.and_then(|i| offsets[i].map(|o| (i, o))) {
            Some((i, o)) => Ok((o, &st.fields[i].ty, self.fixed_size(of).unwrap_or(1))),
            None => Err(format!(
                "end field `{}.{e}` must be at a fixed offset",
                st.name
            )),
        })
    }

    pub fn root(&self) -> &StructDef {
        match self.get(&self.schema.root) {
            Some(TypeDef::Struct(s)) => s,
            _ => unreachable!("checked: the root is a struct"),
        }
    }

    fn type_lookup(&self) -> impl Fn(&str) -> Option<usize> + '_ {
        |n: &str| self.type_id(n)
    }

    fn section_lookup(&self) -> impl Fn(&str) -> Option<usize> + '_ {
        |n: &str| self.section_id(n)
    }

    /// The fields of column record `st` that describe its cells: the one
    /// holding their type (`role: CellType`) and the one holding their
    /// number (`role: CellCount`; one cell without it).
    pub fn cell_fields<'a>(&self, st: &'a StructDef) -> (Option<&'a Field>, Option<&'a Field>) {
        let role = |r: Role| st.fields.iter().find(|f| f.role == Some(r));
        (role(Role::CellType), role(Role::CellCount))
    }

    /// The multiple a row's length is rounded up to, for the rows field
    /// `rows` of `st` (`Rows { stride_align }`; 1 when it is no rows field).
    pub fn stride_align(&self, st: &StructDef, rows: &str) -> u64 {
        st.fields
            .iter()
            .find(|f| f.name == rows)
            .and_then(|f| match &f.ty {
                Type::Ptr(p) => match &p.to {
                    Type::Rows { stride_align, .. } => Some(stride_align.value()),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or(1)
    }

    /// The bytes one cell of type `tag` takes in a row of cell union
    /// `union` (an offset cell: its offset's width); `None` when no
    /// variant has the tag.
    pub fn cell_size(&self, union: &UnionDef, tag: u64) -> Option<u64> {
        let v = union.variants.iter().find(|v| v.tag == tag)?;
        match &v.ty {
            Type::Ptr(p) => int_width(&p.width),
            t => self.fixed_size(t),
        }
    }

    /// The size of a type when it does not depend on the data.
    pub fn fixed_size(&self, t: &Type) -> Option<u64> {
        self.facts.size(t, &self.type_lookup()).fixed()
    }

    /// The indices of `st`'s fields in the order the writer places what
    /// they lead to and visits them: the fields of its `place` list first,
    /// in that order, then the others in field order. The generated encoder
    /// and the interpreter's writer both walk a record's fields in this
    /// order (checked: each name in `place` is a field, once).
    pub fn placing_order(&self, st: &StructDef) -> Vec<usize> {
        let mut order: Vec<usize> = st
            .place
            .iter()
            .filter_map(|n| st.fields.iter().position(|f| &f.name == n))
            .collect();
        for fi in 0..st.fields.len() {
            if !order.contains(&fi) {
                order.push(fi);
            }
        }
        order
    }

    /// Offsets of a struct's fields, as far as they are fixed.
    pub fn field_offsets(&self, st: &StructDef) -> Vec<Option<u64>> {
        let mut out = Vec::with_capacity(st.fields.len());
        let mut o = Some(0u64);
        for f in &st.fields {
            if let (Some(a), Some(cur)) = (f.align, o) {
                o = Some(cur.next_multiple_of(a.max(1)));
            }
            out.push(o);
            o = match (o, self.fixed_size(&f.ty)) {
                (Some(a), Some(b)) => a.checked_add(b),
                _ => None,
            };
        }
        out
    }

    /// Is the field kept in the typed value (not magic, not derived, not an
    /// offset to a hash index, which is derived from the records it indexes)?
    /// The interned string tables (`Index`, `Table`): the root's fields
    /// with `derive: Interned`, in order. A table's id, in the generated
    /// code and the interpreter alike, is its position here.
    pub fn interned_tables(&self) -> Vec<&str> {
        self.root()
            .fields
            .iter()
            .filter(|f| f.derive == Some(Derive::Interned))
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The root's `SharesEqual` fields, each with the id of its section.
    pub fn shares_equal_fields(&self) -> Vec<(&str, usize)> {
        self.root()
            .fields
            .iter()
            .filter_map(|f| match &f.ty {
                Type::SharesEqual { section } => Some((f.name.as_str(), self.section_id(section)?)),
                _ => None,
            })
            .collect()
    }

    /// The shared section whose sharing the document keeps (`SharesEqual`)
    /// that offset `p` leads into, if it does: decode notes each target
    /// there (`Reader::note_shared`).
    pub fn kept_sharing(&self, p: &crate::Ptr) -> Option<usize> {
        let si = p.section.as_deref().and_then(|s| self.section_id(s))?;
        self.shares_equal_fields()
            .iter()
            .any(|&(_, k)| k == si)
            .then_some(si)
    }

    /// The id of the interned table the root field `table` leads to.
    pub fn table_id(&self, table: &str) -> usize {
        self.interned_tables()
            .iter()
            .position(|t| *t == table)
            .unwrap_or(0)
    }

    /// The variants of `union` an `inline` list holds in a word, with the
    /// kind each is packed as (its rank among them): those whose payload
    /// is a 32-bit integer or float, a `Bool32` or a 4-byte `Magic`, the
    /// first 15. Asked by the checker, the generator and the docs.
    pub fn leaf_variants<'a>(&'a self, union: &str) -> Vec<(u8, &'a Variant)> {
        let Some(TypeDef::Union(u)) = self.get(union) else {
            return Vec::new();
        };
        u.variants
            .iter()
            .filter(|v| Self::is_leaf_variant(v))
            .take(15)
            .enumerate()
            .map(|(k, v)| (k as u8, v))
            .collect()
    }

    /// A variant an `inline` list holds in a word: its payload is one word
    /// whole, and it exists in every variant of the format (no `when`).
    /// The checker asks it before a `Checked` exists, so it takes the
    /// variant alone.
    pub fn is_leaf_variant(v: &Variant) -> bool {
        Self::is_word_leaf(&v.ty) && v.when.is_none()
    }

    /// A payload one 32-bit word holds whole.
    pub fn is_word_leaf(t: &Type) -> bool {
        match t {
            Type::I32 | Type::U32 | Type::F32 | Type::Bool32 => true,
            Type::Magic(m) => magic_bytes(m).len() == 4,
            _ => false,
        }
    }

    pub fn is_stored(f: &Field) -> bool {
        f.derive.is_none()
            && !matches!(f.ty, Type::Magic(_))
            && !matches!(&f.ty, Type::Ptr(p) if matches!(p.to, Type::Hash { .. }))
    }

    /// The sections a pointer's target can be placed in.
    pub fn target_sections(&self, p: &Ptr) -> Vec<usize> {
        let (t, s): (Lookup<'_>, Lookup<'_>) = (&self.type_lookup(), &self.section_lookup());
        check::target_sections(&self.schema, p, t, s)
    }

    /// Does anything in the schema end where the next offset target begins
    /// (a `ToNext` list or rows, a string `Pool`, a `Select` union, which
    /// sees the bytes up to the next target)? Only then must a decoder note
    /// the target of every offset it reads.
    pub fn ends_at_next_target(&self) -> bool {
        self.any_type(|t| match t {
            Type::List { count, .. } | Type::Rows { count, .. } => {
                matches!(**count, Count::ToNext)
            }
            Type::Select { .. } | Type::Pool {} | Type::Text { .. } => true,
            _ => false,
        })
    }

    /// Does any list or text of the schema run to the next offset target
    /// (`ToNext`, `Text`)?
    pub fn uses_to_next(&self) -> bool {
        self.any_type(|t| match t {
            Type::List { count, .. } => matches!(**count, Count::ToNext),
            Type::Text { .. } => true,
            _ => false,
        })
    }

    /// Does a `Ref` anywhere in the schema point at records of `name` (so
    /// that their positions must be noted when they are read)?
    pub fn is_ref_target(&self, name: &str) -> bool {
        self.ref_targets.contains(name)
    }

    /// Does `pred` hold for any type the schema's fields and variants hold,
    /// nested ones included (what a list, an array, groups, an offset or a
    /// `Follows` holds or leads to)? The one walk behind every "does the
    /// schema use X" question, for the generator and the interpreter alike.
    pub fn any_type(&self, pred: impl FnMut(&Type) -> bool) -> bool {
        any_type_of(&self.schema, pred)
    }

    /// When an offset counts from the layout's first section and no field of
    /// the root stores its start, the section starts where the root record
    /// ends: (section id, the root's pieces, the section's alignment), for
    /// `Reader::note_first_section`. `None` when not needed, or when the
    /// root's size is not known before its fields are read (fixed fields,
    /// and lists counted by a field at a fixed offset, are).
    pub fn first_section_parts(&self, s: &StructDef) -> Option<(usize, Vec<RootPart>, u64)> {
        if s.name != self.schema.root || s.layout.is_some() {
            return None;
        }
        let first = self.schema.sections.first()?;
        let stored = s
            .fields
            .iter()
            .any(|f| f.derive == Some(Derive::SectionStart(first.name.clone())));
        if stored || !self.section_based(&first.name) {
            return None;
        }
        let offsets = self.field_offsets(s);
        let mut parts = Vec::new();
        for f in &s.fields {
            if let Some(n) = self.fixed_size(&f.ty) {
                parts.push(RootPart::Fixed(n));
                continue;
            }
            let Type::List { of, count } = &f.ty else {
                return None;
            };
            let (Count::Field(c), Some(elem)) = (&**count, self.fixed_size(of)) else {
                return None;
            };
            let ci = s.fields.iter().position(|g| &g.name == c)?;
            parts.push(RootPart::Counted {
                count_at: offsets[ci]?,
                width: s.fields[ci].ty.clone(),
                elem,
            });
        }
        Some((self.section_id(&first.name)?, parts, first.align))
    }

    /// Where an offset of base `b` counts from, resolved for the back ends
    /// (the one place a `Base` becomes a number's rule).
    pub fn offset_base(&self, b: &Base) -> OffsetBase {
        match b {
            Base::File | Base::Unit => OffsetBase::Zero,
            Base::Absolute(n) => OffsetBase::Absolute(*n),
            Base::Record => OffsetBase::Record,
            Base::Section(s) => OffsetBase::Section(self.section_id(s).unwrap_or(0)),
        }
    }

    /// Does any offset of the schema count from section `name`
    /// (`base: Section(name)`)?
    pub fn section_based(&self, name: &str) -> bool {
        self.any_type(
            |t| matches!(t, Type::Ptr(p) if matches!(&p.base, Base::Section(s) if s == name)),
        )
    }

    /// Can a value of type `type_id` lead to something placed in `section`?
    pub fn reaches(&self, type_id: usize, section: usize) -> bool {
        self.facts.reaches(type_id, section)
    }

    /// Can a value of this field type lead to something placed in `section`?
    pub fn type_reaches(&self, t: &Type, section: usize) -> bool {
        self.facts.type_reaches(
            &self.schema,
            t,
            section,
            &self.type_lookup(),
            &self.section_lookup(),
        )
    }
}

/// What a sorted list is sorted by ([`Checked::sort_key`]).
#[derive(Debug, Clone, Copy)]
pub enum SortKey<'a> {
    /// By an interned string the elements hold (`Index`): its index in
    /// table `table`, which is its rank, the tables being sorted.
    Interned {
        elem: &'a StructDef,
        key: &'a str,
        table: usize,
    },
    /// By an unsigned integer the elements store.
    Stored { elem: &'a StructDef, key: &'a str },
    /// By a key glue hashes, derived and patched into each element.
    Hashed(KeyHashSort<'a>),
}

/// A list field written sorted by a key glue hashes
/// ([`Checked::key_hash_sort`]).
#[derive(Debug, Clone, Copy)]
pub struct KeyHashSort<'a> {
    /// The element struct.
    pub elem: &'a StructDef,
    /// The index of the key's field (the `KeyHash` one) in `elem`.
    pub key_field: usize,
    /// Where that field is in an element, when fixed.
    pub key_offset: Option<u64>,
    /// The glue hashing the key.
    pub hook: &'a str,
    /// The element's field the hash is of.
    pub key: &'a str,
    /// The holder's field seeding the hash.
    pub seed: &'a str,
}

/// [`Checked::any_type`] over a schema not yet checked.
fn any_type_of(schema: &Schema, mut pred: impl FnMut(&Type) -> bool) -> bool {
    fn walk(t: &Type, pred: &mut impl FnMut(&Type) -> bool) -> bool {
        pred(t)
            || match t {
                Type::List { of, .. } | Type::Array { of, .. } | Type::Groups { of, .. } => {
                    walk(of, pred)
                }
                Type::Ptr(p) => walk(&p.to, pred),
                Type::Follows { to, .. } => walk(to, pred),
                _ => false,
            }
    }
    schema.types.iter().any(|d| match d {
        TypeDef::Struct(s) => s.fields.iter().any(|f| walk(&f.ty, &mut pred)),
        TypeDef::Union(u) => u.variants.iter().any(|v| walk(&v.ty, &mut pred)),
    })
}
