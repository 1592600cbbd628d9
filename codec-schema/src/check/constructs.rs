//! Checks of the constructs that units, tables and variants brought:
//! layouts (units) and their scopes, lists as fields (tables of offsets),
//! `Follows`, `Ref`, `Hash`, `Rows` with their cell unions and roles,
//! `Fixed`, self-tagged unions, and the derives that go with them.

use super::{at, field_hint, int_width, Checker, Place, Size};
use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;
use std::collections::{HashMap, HashSet};

impl<'s> Checker<'s> {
    /// Facts the other checks need: which unit each struct belongs to, and
    /// which unions are the cells of a row region.
    pub(super) fn prepare(&mut self, cx: &mut Ctxt<'_>) {
        for t in &self.s.types {
            if let TypeDef::Struct(st) = t {
                for f in &st.fields {
                    collect_cells(&f.ty, &mut self.cell_unions);
                    // A `Switch` field is a payload written in place; one
                    // anywhere else (behind an offset) is not.
                    if !matches!(f.ty, Type::Switch { .. }) {
                        collect_switches(&f.ty, &mut self.unions_not_in_place);
                    }
                }
            }
            if let TypeDef::Union(u) = t {
                for v in &u.variants {
                    collect_switches(&v.ty, &mut self.unions_not_in_place);
                }
            }
        }
        // Scopes: walk from the root; a unit starts a scope of its own.
        let mut scope: HashMap<&'s str, Option<&'s str>> = HashMap::new();
        let mut conflicts: Vec<(&'s str, Option<&'s str>, Option<&'s str>)> = Vec::new();
        let mut stack: Vec<(&'s str, Option<&'s str>)> = vec![(self.s.root.as_str(), None)];
        while let Some((name, sc)) = stack.pop() {
            let Some(&ti) = self.types.get(name) else {
                continue;
            };
            let def = &self.s.types[ti];
            let sc = match def {
                TypeDef::Struct(st) if st.layout.is_some() => Some(st.name.as_str()),
                _ => sc,
            };
            match scope.get(name) {
                Some(prev) if *prev == sc => continue,
                Some(prev) => {
                    conflicts.push((name, *prev, sc));
                    continue;
                }
                None => {
                    scope.insert(name, sc);
                }
            }
            let mut refs = Vec::new();
            match def {
                TypeDef::Struct(st) => st.fields.iter().for_each(|f| owned_types(&f.ty, &mut refs)),
                TypeDef::Union(u) => u
                    .variants
                    .iter()
                    .for_each(|v| owned_types(&v.ty, &mut refs)),
            }
            for r in refs {
                stack.push((r, sc));
                // A union reached through a Switch owns its payloads' types.
                if let Some(TypeDef::Union(u)) = self.types.get(r).map(|&i| &self.s.types[i]) {
                    let mut more = Vec::new();
                    u.variants
                        .iter()
                        .for_each(|v| owned_types(&v.ty, &mut more));
                    stack.extend(more.into_iter().map(|m| (m, sc)));
                }
            }
        }
        let label = |s: Option<&str>| match s {
            Some(u) => format!("unit `{u}`"),
            None => "the file".to_owned(),
        };
        for (name, a, b) in conflicts {
            let ti = self.types[name];
            cx.error(
                &[Step::from("types"), Step::Index(ti)],
                format!("types/{name}"),
                format!(
                    "`{name}` is used both in {} and in {}",
                    label(a),
                    label(b)
                ),
                Some("offsets inside a unit count from the unit's start, so a record belongs to one unit: give each its own struct".into()),
            );
        }
        self.scope_of = scope;
    }

    /// Is this struct the root of a layout (the file's root or a unit)?
    pub(super) fn is_layout_root(&self, name: &str) -> bool {
        name == self.s.root || self.struct_def(name).is_some_and(|st| st.layout.is_some())
    }

    /// Refuses derive `what` (the file size, a section start, ...) in a struct
    /// that is not a layout root: the encoder fills such fields in once per
    /// layout, so both derive checks (`check_derive` and `check_new_derive`)
    /// refuse them elsewhere the same way. `also` ends the message where the
    /// derive may stand in a unit's root too.
    pub(super) fn require_layout_root(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        what: &str,
        also: &str,
    ) {
        if !self.is_layout_root(&st.name) {
            cx.error(
                dat,
                item,
                format!(
                    "{what} can only be derived in the root struct `{}`{also}",
                    self.s.root
                ),
                None,
            );
        }
    }

    /// The sections a struct's offsets may place in: its unit's, or the file's.
    fn scope_sections(&self, st: &str) -> Vec<&'s str> {
        match self.scope_of.get(st).copied().flatten() {
            Some(u) => self
                .struct_def(u)
                .and_then(|d| d.layout.as_ref())
                .map(|l| l.sections.iter().map(|x| x.name.as_str()).collect())
                .unwrap_or_default(),
            None => self.s.sections.iter().map(|x| x.name.as_str()).collect(),
        }
    }

    /// A section named by a derived field of `st` must be one of its scope's.
    pub(super) fn check_scoped_section(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        sec: &str,
    ) {
        if !self.sections.contains_key(sec) {
            cx.error(
                dat,
                item,
                format!("unknown section `{sec}`"),
                Some(self.section_list()),
            );
        } else if !self.scope_sections(&st.name).contains(&sec) {
            cx.error(
                dat,
                item,
                format!(
                    "section `{sec}` belongs to another layout than `{}`",
                    st.name
                ),
                Some(format!(
                    "sections here are: {}",
                    self.scope_sections(&st.name).join(", ")
                )),
            );
        }
    }

    /// `align_by: "f"`: the field starts at a multiple of the value of `f`,
    /// which must be read before it, so an unsigned integer field that
    /// comes earlier in the same struct.
    pub(super) fn check_align_by(
        &self,
        cx: &mut Ctxt<'_>,
        fat: &[Step],
        item: &str,
        st: &StructDef,
        fi: usize,
        by: &str,
    ) {
        let aat = at(fat, &[Step::from("align_by")]);
        let me = &st.fields[fi].name;
        match st.fields.iter().position(|g| g.name == by) {
            None => cx.error(
                &aat,
                item,
                format!(
                    "`{me}` is aligned by `{by}`, which is not a field of `{}`",
                    st.name
                ),
                Some(field_hint(by, st)),
            ),
            Some(j) if j >= fi => cx.error(
                &aat,
                item,
                format!("`{me}` is aligned by `{by}`, which comes after it"),
                Some("the alignment is read before the field it aligns; declare it earlier".into()),
            ),
            Some(j)
                if !matches!(
                    st.fields[j].ty,
                    Type::U8 | Type::U16 | Type::U24 | Type::U32 | Type::U64
                ) =>
            {
                cx.error(
                    &aat,
                    item,
                    format!("`{me}` is aligned by `{by}`, which is not an unsigned integer"),
                    Some("an alignment is a U8, U16, U24, U32 or U64 field".into()),
                )
            }
            Some(_) => {}
        }
    }

    /// Field-level rules of the new constructs (those that need the struct).
    pub(super) fn check_field_construct(
        &self,
        cx: &mut Ctxt<'_>,
        fat: &[Step],
        item: &str,
        st: &StructDef,
        fi: usize,
        after_variable: bool,
    ) {
        let f = &st.fields[fi];
        if let Some(by) = &f.align_by {
            self.check_align_by(cx, fat, item, st, fi, by);
        }
        let tyat = at(fat, &[Step::from("type")]);
        let sibling = |n: &str| st.fields.iter().position(|g| g.name == n);
        match &f.ty {
            // A list field: its count is a sibling read before it.
            Type::List { of, count } => {
                // A count held by a stored field (or a field of an inline
                // struct): checked against the list on encode.
                let stored_count = matches!(&**count, Count::Field(n)
                    if n.contains('.') || sibling(n).is_some_and(|j| st.fields[j].derive.is_none()));
                if stored_count {
                    if let Count::Field(n) = &**count {
                        let cat = at(&tyat, &[Step::from("count")]);
                        self.check_count_path(cx, &cat, item, st, fi, n);
                    }
                } else if let Count::Field(n) = &**count {
                    match sibling(n) {
                        None => cx.error(
                            &at(&tyat, &[Step::from("count")]),
                            item,
                            format!("count `{n}` names no field of `{}`", st.name),
                            None,
                        ),
                        Some(j) => {
                            let g = &st.fields[j];
                            if j > fi {
                                cx.error(
                                    &tyat,
                                    item,
                                    format!("count field `{n}` comes after the list `{}`", f.name),
                                    Some("the count is read first: move it before the list".into()),
                                );
                            }
                            if int_width(&g.ty).is_none() {
                                cx.error(
                                    &tyat,
                                    item,
                                    format!("count field `{n}` is not an unsigned integer"),
                                    None,
                                );
                            } else if g.derive != Some(Derive::Count(f.name.clone()))
                                && !crate::check::counts_another_list(st, g)
                            {
                                cx.error(
                                    &tyat,
                                    item,
                                    format!("count field `{n}` must be derived from `{}`", f.name),
                                    Some(format!(
                                        "add `derive: Count(\"{}\")` to field `{n}`",
                                        f.name
                                    )),
                                );
                            }
                        }
                    }
                }
                if let Type::Ptr(p) = &**of {
                    if after_variable {
                        cx.error(
                            &tyat,
                            item,
                            format!(
                                "the offsets of `{}` follow a field of variable size",
                                f.name
                            ),
                            Some("offsets are patched at a fixed position in their record".into()),
                        );
                    }
                    if matches!(p.to, Type::Switch { .. }) {
                        cx.error(&tyat, item, "a list of offsets cannot point at Switch payloads (there is no tag field for each)", None);
                    }
                }
            }
            // A writer's choice kept in the document: read once the root's
            // offsets are followed, about a section that shares records.
            Type::SharesEqual { section } => {
                let sat = at(&tyat, &[Step::from("section")]);
                match self.sections.get(section.as_str()) {
                    None => cx.error(
                        &sat,
                        item,
                        format!("unknown section `{section}`"),
                        Some(self.section_list()),
                    ),
                    Some(&si) if self.all[si].dedup != crate::Dedup::Shared => cx.error(
                        &sat,
                        item,
                        format!("section `{section}` does not share records"),
                        Some(
                            "`SharesEqual` keeps the choice of a section with `dedup: Shared`"
                                .into(),
                        ),
                    ),
                    Some(_) => {}
                }
                if st.name != self.s.root {
                    cx.error(
                        &tyat,
                        item,
                        format!(
                            "`SharesEqual` is a field of the root struct `{}`",
                            self.s.root
                        ),
                        None,
                    );
                }
                if st.fields[fi + 1..]
                    .iter()
                    .any(|g| matches!(g.ty, Type::Ptr(_)))
                {
                    cx.error(
                        &tyat,
                        item,
                        format!("`{}` comes before an offset field of `{}`", f.name, st.name),
                        Some(
                            "it is found once every offset is followed: move it after them".into(),
                        ),
                    );
                }
                if f.derive.is_some() {
                    cx.error(
                        &tyat,
                        item,
                        "`SharesEqual` is kept in the document, not derived",
                        None,
                    );
                }
            }
            Type::Follows { after, section, .. } => match sibling(after) {
                None => cx.error(
                    &tyat,
                    item,
                    format!("`{after}` names no field of `{}`", st.name),
                    None,
                ),
                Some(j) => {
                    let g = &st.fields[j];
                    let ok_target = match &g.ty {
                        Type::Ptr(p) => {
                            if p.section.as_deref() != Some(section.as_str()) {
                                cx.error(
                                    &tyat,
                                    item,
                                    format!("`{}` follows `{after}`, so it goes to the same section (`{}`)", f.name, p.section.as_deref().unwrap_or("?")),
                                    None,
                                );
                            }
                            matches!(&p.to, Type::CString { .. } | Type::Named(_))
                        }
                        _ => false,
                    };
                    if j >= fi || !ok_target {
                        cx.error(
                            &tyat,
                            item,
                            format!("`{}` must follow an earlier offset field to a string or a struct, and `{after}` is not one", f.name),
                            None,
                        );
                    } else if let Some(k) = (j + 1..fi).find(|&k| {
                        matches!(&st.fields[k].ty, Type::Ptr(p) if p.section.as_deref() == Some(section.as_str()))
                    }) {
                        cx.error(
                            &tyat,
                            item,
                            format!("`{}` places into `{section}` between `{after}` and `{}`", st.fields[k].name, f.name),
                            Some("a target that follows another one is placed right after it: nothing may come between".into()),
                        );
                    }
                }
            },
            Type::Ptr(p) => match &p.to {
                Type::Hash {
                    of,
                    key,
                    next,
                    slots,
                    width,
                    ..
                } => self.check_hash(cx, &tyat, item, st, of, key, next, slots, width),
                Type::Rows { count, .. } => {
                    if let Count::Field(n) = &**count {
                        match sibling(n).map(|j| &st.fields[j]) {
                            None => cx.error(
                                &tyat,
                                item,
                                format!("count `{n}` names no field of `{}`", st.name),
                                None,
                            ),
                            Some(g) if g.derive != Some(Derive::Count(f.name.clone())) => cx.error(
                                &tyat,
                                item,
                                format!("count field `{n}` must be derived from `{}`", f.name),
                                Some(format!(
                                    "add `derive: Count(\"{}\")` to field `{n}`",
                                    f.name
                                )),
                            ),
                            _ => {}
                        }
                    } else {
                        cx.error(
                            &tyat,
                            item,
                            "the number of rows is a sibling field: `count: Field(\"n\")`",
                            None,
                        );
                    }
                    if !st
                        .fields
                        .iter()
                        .any(|g| g.derive == Some(Derive::Stride(f.name.clone())))
                    {
                        cx.error(
                            &tyat,
                            item,
                            format!("the rows of `{}` need a row length field", f.name),
                            Some(format!(
                                "add a field with `derive: Stride(\"{}\")` to `{}`",
                                f.name, st.name
                            )),
                        );
                    }
                    if !self.is_layout_root(&st.name) {
                        cx.error(&tyat, item, "rows are laid out by the columns of their unit: the offset to them belongs in the unit's root", None);
                    }
                }
                _ => {}
            },
            _ => {}
        }
        if let Some(role) = f.role {
            if int_width(&f.ty).is_none() {
                cx.error(
                    &at(fat, &[Step::from("role")]),
                    item,
                    format!("a {role:?} field must be an unsigned integer"),
                    None,
                );
            }
            if !st
                .fields
                .iter()
                .any(|g| matches!(g.derive, Some(Derive::CellOffset(_))))
            {
                cx.error(
                    &at(fat, &[Step::from("role")]),
                    item,
                    format!(
                        "`{}` describes cells, but `{}` has no `CellOffset` field",
                        f.name, st.name
                    ),
                    Some(
                        "a column record has a field with `derive: CellOffset(\"<cell union>\")`"
                            .into(),
                    ),
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_hash(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        st: &StructDef,
        of: &str,
        key: &str,
        next: &str,
        slots: &str,
        width: &Type,
    ) {
        match self.struct_def(of) {
            None => cx.error(
                tat,
                item,
                format!("`{of}` is not a struct of this schema"),
                Some(self.suggest(of)),
            ),
            Some(rec) => {
                match rec.fields.iter().find(|g| g.name == key).map(|g| &g.ty) {
                    Some(Type::CString {
                        encoding: crate::Encoding::Utf8,
                        ..
                    }) => {}
                    Some(Type::Ptr(p))
                        if matches!(
                            p.to,
                            Type::CString {
                                encoding: crate::Encoding::Utf8,
                                ..
                            }
                        ) => {}
                    // The UTF-8 ones matched above.
                    Some(Type::CString { .. }) => cx.error(
                        tat,
                        item,
                        format!("the hash key `{of}.{key}` is a UTF-16 or UTF-32 string; hash keys are UTF-8"),
                        None,
                    ),
                    Some(Type::Ptr(p)) if matches!(p.to, Type::CString { .. }) => {
                        cx.error(
                            tat,
                            item,
                            format!("the hash key `{of}.{key}` is a UTF-16 or UTF-32 string; hash keys are UTF-8"),
                            None,
                        )
                    }
                    Some(_) => cx.error(
                        tat,
                        item,
                        format!("the hash key `{of}.{key}` is not a string"),
                        None,
                    ),
                    None => cx.error(tat, item, format!("`{key}` names no field of `{of}`"), None),
                }
                let offsets = self.field_offsets(rec);
                match rec.fields.iter().position(|g| g.name == next) {
                    None => cx.error(
                        tat,
                        item,
                        format!("`{next}` names no field of `{of}`"),
                        None,
                    ),
                    Some(j) => {
                        let g = &rec.fields[j];
                        if g.derive != Some(Derive::HashNext) || int_width(&g.ty).is_none() {
                            cx.error(
                                tat,
                                item,
                                format!("the chain field `{of}.{next}` must be an unsigned integer with `derive: HashNext`"),
                                None,
                            );
                        }
                        if offsets[j].is_none() {
                            cx.error(tat, item, format!("the chain field `{of}.{next}` must be at a fixed offset of its record"), None);
                        }
                    }
                }
            }
        }
        match st.fields.iter().find(|g| g.name == slots) {
            None => cx.error(
                tat,
                item,
                format!("`{slots}` names no field of `{}`", st.name),
                None,
            ),
            Some(g) if int_width(&g.ty).is_none() || g.derive.is_some() => cx.error(
                tat,
                item,
                format!("the slot count `{slots}` must be a stored unsigned integer"),
                None,
            ),
            _ => {}
        }
        if int_width(width).is_none() {
            cx.error(
                tat,
                item,
                "a hash index's width must be U8, U16, U24, U32 or U64",
                None,
            );
        }
    }

    /// Offsets of a struct's fields, as far as they are fixed.
    fn field_offsets(&self, st: &StructDef) -> Vec<Option<u64>> {
        let mut out = Vec::with_capacity(st.fields.len());
        let mut o = Some(0u64);
        for f in &st.fields {
            out.push(o);
            o = match (o, self.size(&f.ty)) {
                (Some(a), Size::Fixed(b)) => a.checked_add(b),
                _ => None,
            };
        }
        out
    }

    /// Type-level rules of the new constructs.
    pub(super) fn check_new_type(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        ty: &Type,
        place: Place,
    ) {
        match ty {
            Type::Fixed { raw, frac } => match raw_bits(raw) {
                None => cx.error(
                    &at(tat, &[Step::from("raw")]),
                    item,
                    "a fixed-point number's raw value is an integer (U8 to U64, I8 to I64)",
                    None,
                ),
                Some(bits) if *frac >= bits => cx.error(
                    tat,
                    item,
                    format!("{frac} fraction bits do not fit a {bits}-bit raw value"),
                    None,
                ),
                _ => {}
            },
            Type::Ref {
                width, scale, to, ..
            } => {
                if int_width(width).is_none() {
                    cx.error(
                        &at(tat, &[Step::from("width")]),
                        item,
                        "a reference's width must be U8, U16, U24, U32 or U64",
                        None,
                    );
                }
                if *scale == 0 {
                    cx.error(
                        &at(tat, &[Step::from("scale")]),
                        item,
                        "scale must be at least 1",
                        None,
                    );
                }
                if self.struct_def(to).is_none() {
                    cx.error(
                        &at(tat, &[Step::from("to")]),
                        item,
                        format!("`{to}` is not a struct of this schema"),
                        Some(self.suggest(to)),
                    );
                }
                if place == Place::Target {
                    cx.error(
                        tat,
                        item,
                        "a reference is a value of its record, not an offset's target",
                        None,
                    );
                }
            }
            Type::Hash { .. } | Type::Rows { .. } => {
                if place != Place::Target {
                    let what = if matches!(ty, Type::Hash { .. }) {
                        "a hash index"
                    } else {
                        "rows"
                    };
                    cx.error(
                        tat,
                        item,
                        format!("{what} can only stand behind an offset"),
                        None,
                    );
                }
                if let Type::Rows { cells, .. } = ty {
                    match self.types.get(cells.as_str()).map(|&i| &self.s.types[i]) {
                        Some(TypeDef::Union(u)) if !u.inline_tag => {}
                        Some(_) => cx.error(
                            tat,
                            item,
                            format!("`{cells}` is not a union whose tag a column gives"),
                            None,
                        ),
                        None => cx.error(
                            tat,
                            item,
                            format!("`{cells}` is not a union of this schema"),
                            Some(self.suggest(cells)),
                        ),
                    }
                }
            }
            Type::Follows { to, section, .. } => {
                if place != Place::Field {
                    cx.error(tat, item, "`Follows` can only be a field of a struct", None);
                }
                if !self.sections.contains_key(section.as_str()) {
                    cx.error(
                        &at(tat, &[Step::from("section")]),
                        item,
                        format!("unknown section `{section}`"),
                        Some(self.section_list()),
                    );
                }
                self.check_type(cx, &at(tat, &[Step::from("to")]), item, to, Place::Target);
            }
            _ => {}
        }
    }

    /// A variant of a row region's cell union: a number, a fixed-point
    /// number, or an offset to a value placed in a section.
    pub(super) fn check_cell(&self, cx: &mut Ctxt<'_>, tat: &[Step], item: &str, ty: &Type) {
        match ty {
            // Any number but a 24-bit one.
            t if crate::check::is_number(t) && !matches!(t, Type::U24) => {}
            Type::Fixed { .. } => self.check_new_type(cx, tat, item, ty, Place::Payload),
            Type::Ptr(p) => {
                self.check_type(cx, tat, item, ty, Place::Field);
                if !matches!(
                    p.to,
                    Type::CString {
                        encoding: crate::Encoding::Utf8,
                        ..
                    }
                ) {
                    cx.error(
                        tat,
                        item,
                        "a cell's offset points at a UTF-8 string",
                        Some("the rows keep the strings their cells point at in one list".into()),
                    );
                }
            }
            _ => cx.error(
                tat,
                item,
                "a cell is a number (not U24 or a bool), a fixed-point number or an offset to a string",
                Some(
                    "cells are read at the offsets their columns give, so each has a fixed size"
                        .into(),
                ),
            ),
        }
    }

    /// The derives that units, tables and hash indexes brought.
    pub(super) fn check_new_derive(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        d: &Derive,
    ) {
        let layout_root = |cx: &mut Ctxt<'_>, what: &str| {
            self.require_layout_root(cx, dat, item, st, what, " or in a unit's root");
        };
        match d {
            Derive::SectionStart(sec) => {
                layout_root(cx, "a section start");
                self.check_scoped_section(cx, dat, item, st, sec);
            }
            Derive::Checksum { hook, to, .. } => {
                layout_root(cx, "a checksum");
                self.check_scoped_section(cx, dat, item, st, to);
                self.ident(cx, dat, item, hook, false);
            }
            Derive::Stride(n) => {
                layout_root(cx, "a row length");
                match st.fields.iter().find(|g| &g.name == n).map(|g| &g.ty) {
                    Some(Type::Ptr(p)) if matches!(p.to, Type::Rows { .. }) => {}
                    _ => cx.error(dat, item, format!("`{n}` is not an offset to rows"), None),
                }
            }
            Derive::CellOffset(u) => {
                if !self.cell_unions.contains(u.as_str()) {
                    cx.error(
                        dat,
                        item,
                        format!("`{u}` is not the cell union of any `Rows`"),
                        None,
                    );
                }
                if !st.fields.iter().any(|g| g.role == Some(Role::CellType)) {
                    cx.error(
                        dat,
                        item,
                        format!("`{}` gives a cell offset but no cell type", st.name),
                        Some("mark the field that holds the type with `role: CellType`".into()),
                    );
                }
            }
            Derive::RecordEnd if self.size(&Type::Named(st.name.clone())).fixed().is_none() => {
                cx.error(
                    dat,
                    item,
                    format!(
                        "`{}` (derive: RecordEnd) is where `{}` ends, but `{}` has no fixed size",
                        f.name, st.name, st.name
                    ),
                    Some("give the record a `size`, or fields of fixed size only".into()),
                );
            }
            Derive::HashNext => {
                let named = self.s.types.iter().any(|t| match t {
                    TypeDef::Struct(s) => s.fields.iter().any(|g| {
                        matches!(&g.ty, Type::Ptr(p) if matches!(&p.to, Type::Hash { of, next, .. } if *of == st.name && *next == f.name))
                    }),
                    _ => false,
                });
                if !named {
                    cx.error(
                        dat,
                        item,
                        format!("no hash index chains through `{}.{}`", st.name, f.name),
                        None,
                    );
                }
            }
            _ => {}
        }
    }

    /// Units: their transforms and end alignment, and offsets that stay
    /// inside the layout they belong to.
    pub(super) fn check_units(&self, cx: &mut Ctxt<'_>) {
        for (ti, t) in self.s.types.iter().enumerate() {
            let TypeDef::Struct(st) = t else { continue };
            let tat = vec![Step::from("types"), Step::Index(ti)];
            if let Some(l) = &st.layout {
                let lat = at(&tat, &[Step::from("layout")]);
                if !l.end_align.is_power_of_two() {
                    cx.error(
                        &lat,
                        format!("types/{}", st.name),
                        format!("end_align must be a power of two, not {}", l.end_align),
                        None,
                    );
                }
                if let Some(tr) = &l.transform {
                    for h in [&tr.decode, &tr.encode] {
                        self.ident(
                            cx,
                            &at(&lat, &[Step::from("transform")]),
                            &format!("types/{}", st.name),
                            h,
                            false,
                        );
                    }
                }
                if st.name == self.s.root {
                    cx.error(
                        &lat,
                        format!("types/{}", st.name),
                        "the root is the file's layout; give its sections to the schema instead",
                        None,
                    );
                }
            }
            let Some(scope) = self.scope_of.get(st.name.as_str()).copied() else {
                continue;
            };
            let allowed = self.scope_sections(&st.name);
            for (fi, f) in st.fields.iter().enumerate() {
                let fat = at(
                    &tat,
                    &[Step::from("fields"), Step::Index(fi), Step::from("type")],
                );
                let item = format!("types/{}/fields/{fi}", st.name);
                let mut ptrs = Vec::new();
                collect_ptrs(&f.ty, &mut ptrs);
                for p in ptrs {
                    if let Some(sec) = p.section.as_deref() {
                        if self.sections.contains_key(sec) && !allowed.contains(&sec) {
                            cx.error(
                                &fat,
                                &item,
                                format!("`{}.{}` places its target in section `{sec}`, outside its layout", st.name, f.name),
                                Some(format!("sections here are: {}", allowed.join(", "))),
                            );
                        }
                    }
                    if p.base == Base::Unit && scope.is_none() {
                        cx.error(&fat, &item, "`base: Unit` counts from a unit's start, but this record is not in a unit", Some("use `base: File`".into()));
                    }
                    if p.base == Base::File && scope.is_some() {
                        cx.error(
                            &fat,
                            &item,
                            "inside a unit, offsets count from the unit or the record",
                            Some("use `base: Unit` (or `Record`)".into()),
                        );
                    }
                }
            }
        }
    }
}

/// The struct/union names a type owns (holds inline or through offsets).
fn owned_types<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
    match t {
        Type::Named(n) => out.push(n),
        Type::Switch { union, .. } => out.push(union),
        Type::Array { of, .. } | Type::List { of, .. } => owned_types(of, out),
        Type::Ptr(p) => owned_types(&p.to, out),
        Type::Follows { to, .. } => owned_types(to, out),
        Type::Rows { cells, .. } => out.push(cells),
        _ => {}
    }
}

fn collect_ptrs<'a>(t: &'a Type, out: &mut Vec<&'a Ptr>) {
    match t {
        Type::Ptr(p) => {
            out.push(p);
            collect_ptrs(&p.to, out);
        }
        Type::Array { of, .. } | Type::List { of, .. } => collect_ptrs(of, out),
        Type::Follows { to, .. } => collect_ptrs(to, out),
        _ => {}
    }
}

fn collect_cells<'a>(t: &'a Type, out: &mut HashSet<&'a str>) {
    match t {
        Type::Rows { cells, .. } => {
            out.insert(cells);
        }
        Type::Ptr(p) => collect_cells(&p.to, out),
        _ => {}
    }
}

/// The unions of every `Switch` within `t`.
fn collect_switches<'a>(t: &'a Type, out: &mut HashSet<&'a str>) {
    match t {
        Type::Switch { union, .. } => {
            out.insert(union);
        }
        Type::Ptr(p) => collect_switches(&p.to, out),
        Type::Array { of, .. } | Type::List { of, .. } => collect_switches(of, out),
        Type::Follows { to, .. } => collect_switches(to, out),
        _ => {}
    }
}

fn raw_bits(t: &Type) -> Option<u32> {
    Some(match t {
        Type::U8 | Type::I8 => 8,
        Type::U16 | Type::I16 => 16,
        Type::U32 | Type::I32 => 32,
        Type::U64 | Type::I64 => 64,
        _ => return None,
    })
}
