//! Semantic checks after parsing: names resolve, counts and tags pair with
//! their offsets, derived fields are computable, sizes add up (and fit in a
//! u64), every construct stands where codegen supports it, and every target
//! goes to a section the encoder can place it in. Every problem is
//! collected; nothing stops at the first.

use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;
use crate::overlay::all_sections;
use std::collections::{HashMap, HashSet};

mod constructs;
mod cycles;
mod held;
mod layout;
mod placement;

const RESERVED: &[&str] = &["self", "Self", "super", "crate", "_"];

pub(crate) fn check(s: &Schema, cx: &mut Ctxt<'_>) {
    let types: HashMap<&str, usize> = s
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name(), i))
        .collect();
    let all = all_sections(s);
    let sections: HashMap<&str, usize> = all
        .iter()
        .enumerate()
        .map(|(i, x)| (x.name.as_str(), i))
        .collect();
    let facts = Facts::compute(s, &|n: &str| types.get(n).copied(), &|n: &str| {
        sections.get(n).copied()
    });
    let mut c = Checker {
        s,
        types,
        sections,
        facts,
        all,
        scope_of: HashMap::new(),
        cell_unions: HashSet::new(),
        unions_not_in_place: HashSet::new(),
    };
    c.prepare(cx);

    // Duplicates and names.
    let mut seen = HashMap::new();
    for (i, t) in s.types.iter().enumerate() {
        let at = [Step::from("types"), Step::Index(i), Step::from("name")];
        if let Some(first) = seen.insert(t.name(), i) {
            cx.error(
                &at,
                format!("types/{}", t.name()),
                format!("duplicate type `{}`", t.name()),
                Some(format!(
                    "type #{first} has the same name; rename one of them"
                )),
            );
        }
        c.ident(cx, &at, &format!("types/{}", t.name()), t.name(), true);
    }
    let mut seen = HashSet::new();
    for (sec, at) in c.all.iter().zip(section_paths(s)) {
        let item = format!("sections/{}", sec.name);
        if !seen.insert(sec.name.as_str()) {
            cx.error(
                &at,
                &item,
                format!("duplicate section `{}`", sec.name),
                None,
            );
        }
        for (what, v) in [
            ("align", sec.align),
            ("item_align", sec.item_align),
            ("pad", sec.pad),
            ("end_align", sec.end_align),
        ] {
            if !v.is_power_of_two() {
                cx.error(
                    &at,
                    &item,
                    format!("{what} must be a power of two, not {v}"),
                    None,
                );
            }
        }
        if let Dedup::ByteSearch { align } = sec.dedup {
            if !align.is_power_of_two() {
                cx.error(
                    &at,
                    &item,
                    format!("dedup align must be a power of two, not {align}"),
                    None,
                );
            }
        }
        if let Some((msg, hint)) = crate::sorted::refusal(s, sec) {
            cx.error(&at, &item, msg, Some(hint));
        }
        if let Order::Hook { name, visits } = &sec.order {
            c.ident(cx, &at, &item, name, false);
            match c.types.get(visits.as_str()).map(|&i| &s.types[i]) {
                Some(TypeDef::Struct(_)) => {}
                _ => cx.error(
                    &at,
                    &item,
                    format!(
                        "hook `{name}` visits `{visits}`, which is not a struct of this schema"
                    ),
                    None,
                ),
            }
        }
    }
    if !s.end_align.is_power_of_two() {
        cx.error(
            &[Step::from("end_align")],
            "end_align",
            format!("end_align must be a power of two, not {}", s.end_align),
            None,
        );
    }
    match c.types.get(s.root.as_str()).map(|&i| &s.types[i]) {
        Some(TypeDef::Struct(_)) => {}
        Some(TypeDef::Union(_)) => cx.error(
            &[Step::from("root")],
            "root",
            format!(
                "root `{}` is a union, but the root must be a struct",
                s.root
            ),
            Some(
                "the file starts with a record at offset 0: make the root a struct, \
                 and reach the union from it through an offset to a `Switch`"
                    .into(),
            ),
        ),
        None => cx.error(
            &[Step::from("root")],
            "root",
            format!("root `{}` is not a struct of this schema", s.root),
            Some(c.suggest(&s.root)),
        ),
    }

    for (ti, t) in s.types.iter().enumerate() {
        let tat = vec![Step::from("types"), Step::Index(ti)];
        match t {
            TypeDef::Struct(st) => c.check_struct(cx, &tat, st),
            TypeDef::Union(u) => c.check_union(cx, &tat, u),
        }
    }
    c.check_cycles(cx);
    c.check_bits_names(cx);
    c.check_units(cx);
}

/// The locator path of each section of [`all_sections`].
fn section_paths(s: &Schema) -> Vec<Vec<Step>> {
    let mut v: Vec<Vec<Step>> = (0..s.sections.len())
        .map(|i| vec![Step::from("sections"), Step::Index(i)])
        .collect();
    for (ti, t) in s.types.iter().enumerate() {
        if let TypeDef::Struct(st) = t {
            if let Some(l) = &st.layout {
                for j in 0..l.sections.len() {
                    v.push(vec![
                        Step::from("types"),
                        Step::Index(ti),
                        Step::from("layout"),
                        Step::from("sections"),
                        Step::Index(j),
                    ]);
                }
            }
        }
    }
    v
}

/// Where a type stands; some constructs are valid only in some places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A field of a struct.
    Field,
    /// Behind an offset.
    Target,
    /// A union variant's payload.
    Payload,
    /// An element of an array or list.
    Elem,
    /// An element of a list field of offsets (a table of offsets).
    OffsetElem,
    /// An element of a list read one after the other (any size).
    SeqElem,
}

struct Checker<'s> {
    s: &'s Schema,
    types: HashMap<&'s str, usize>,
    sections: HashMap<&'s str, usize>,
    facts: Facts,
    /// Every section, the units' included (see [`all_sections`]).
    all: Vec<&'s Section>,
    /// The unit (a struct with a layout) each struct belongs to; `None`:
    /// the file itself.
    scope_of: HashMap<&'s str, Option<&'s str>>,
    /// The unions that are the cells of a `Rows`.
    cell_unions: HashSet<&'s str>,
    /// The unions reached through a `Switch` that is not a struct's field
    /// (behind an offset, in a list, in another payload).
    unions_not_in_place: HashSet<&'s str>,
}

fn at(base: &[Step], more: &[Step]) -> Vec<Step> {
    let mut v = base.to_vec();
    v.extend_from_slice(more);
    v
}

impl<'s> Checker<'s> {
    fn ident(&self, cx: &mut Ctxt<'_>, at: &[Step], item: &str, name: &str, _ty: bool) {
        let ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !RESERVED.contains(&name);
        if !ok {
            cx.error(
                at,
                item,
                format!("`{name}` is not a usable name"),
                Some(
                    "names are ASCII letters, digits and `_`, starting with a letter or `_`".into(),
                ),
            );
        }
    }

    /// A hint for an unknown type name: the closest type names, or all of them.
    fn suggest(&self, name: &str) -> String {
        let mut all: Vec<&str> = self.s.types.iter().map(|t| t.name()).collect();
        all.sort_unstable();
        all.dedup();
        if all.is_empty() {
            return "the schema defines no types".into();
        }
        suggest_among(name, &all)
            .unwrap_or_else(|| format!("the schema defines: {}", all.join(", ")))
    }

    /// The size of a type, as far as the schema's structs resolve.
    fn size(&self, t: &Type) -> Size {
        self.facts.size(t, &|n: &str| self.types.get(n).copied())
    }

    /// Can a value of this type lead to something placed in section `si`?
    fn type_reaches(&self, t: &Type, si: usize) -> bool {
        self.facts.type_reaches(
            self.s,
            t,
            si,
            &|n: &str| self.types.get(n).copied(),
            &|n: &str| self.sections.get(n).copied(),
        )
    }

    fn struct_def(&self, name: &str) -> Option<&'s StructDef> {
        match self.types.get(name).map(|&i| &self.s.types[i]) {
            Some(TypeDef::Struct(st)) => Some(st),
            _ => None,
        }
    }

    fn check_struct(&self, cx: &mut Ctxt<'_>, tat: &[Step], st: &StructDef) {
        let sname = &st.name;
        self.check_inline_fields(cx, tat, st);
        self.check_place(cx, tat, st);
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut offset = Size::Fixed(0);
        for (fi, f) in st.fields.iter().enumerate() {
            let fat = at(tat, &[Step::from("fields"), Step::Index(fi)]);
            let item = format!("types/{sname}/fields/{fi}");
            if let Some(prev) = names.insert(f.name.as_str(), fi) {
                cx.error(
                    &at(&fat, &[Step::from("name")]),
                    &item,
                    format!("duplicate field `{}` in `{sname}`", f.name),
                    Some(format!(
                        "field {prev} has the same name; every field needs its own name"
                    )),
                );
            }
            self.ident(cx, &at(&fat, &[Step::from("name")]), &item, &f.name, false);
            let tyat = at(&fat, &[Step::from("type")]);
            // A sized unit is laid out on its own bytes, as a target is.
            let place = if f.size.is_some() {
                Place::Target
            } else {
                Place::Field
            };
            self.check_type(cx, &tyat, &item, &f.ty, place);
            self.check_sized(cx, &fat, &item, st, fi);
            self.check_field_construct(cx, &fat, &item, st, fi, offset == Size::Variable);
            self.check_placement_keys(cx, &fat, &item, st, f);
            if let Type::Switch { tag, .. } = &f.ty {
                if let Some(list) = held_tag_list(tag) {
                    self.check_held_switch(cx, &tyat, &item, st, f, list);
                }
            }
            if let Type::Ptr(p) = &f.ty {
                if offset == Size::Variable {
                    cx.error(&tyat, &item, format!("offset field `{}` follows a field of variable size", f.name),
                        Some("offsets are patched at a fixed position in their record; move variable-size fields after them".into()));
                }
                self.check_ptr_pairing(cx, tat, &tyat, &item, st, f, p);
                self.check_placement(cx, &tyat, &item, st, f, p);
            }
            if let Some(d) = &f.derive {
                let dat = at(&fat, &[Step::from("derive")]);
                self.check_derive(cx, &dat, &item, st, f, d);
                // Patched by the root's step at its offset (the settled
                // numbers are patched where their record is).
                let patched = matches!(
                    d,
                    Derive::SectionStart(_) | Derive::Checksum { .. } | Derive::Stride(_)
                );
                if patched && self.is_layout_root(sname) && offset == Size::Variable {
                    cx.error(
                        &dat,
                        &item,
                        format!(
                            "derived field `{}` must be at a fixed offset of the root, but it follows a field of variable size",
                            f.name
                        ),
                        Some("it is patched once the file is laid out; move it before the variable-size fields".into()),
                    );
                }
            }
            offset = match (offset, self.size(&f.ty)) {
                (Size::Fixed(o), Size::Fixed(n)) => match o.checked_add(n) {
                    Some(end) => Size::Fixed(end),
                    None => {
                        cx.error(
                            &tyat,
                            &item,
                            format!(
                                "size overflows: field `{}` of `{sname}` ends past 2^64 bytes (0x{o:x} + 0x{n:x})",
                                f.name
                            ),
                            None,
                        );
                        Size::Overflow
                    }
                },
                // Overflows are reported where they happen, once.
                (Size::Overflow, _) | (_, Size::Overflow) => Size::Overflow,
                _ => Size::Variable,
            };
        }
        if let Some(size) = st.size {
            match offset {
                Size::Fixed(o) if o == size => {}
                Size::Fixed(o) => cx.error(
                    &at(tat, &[Step::from("size")]),
                    format!("types/{sname}"),
                    format!("`{sname}` declares size 0x{size:x}, but its fields add up to 0x{o:x}"),
                    None,
                ),
                Size::Variable => cx.error(
                    &at(tat, &[Step::from("size")]),
                    format!("types/{sname}"),
                    format!("`{sname}` declares size 0x{size:x}, but has fields of variable size"),
                    None,
                ),
                Size::Overflow => {}
            }
        }
    }

    fn check_union(&self, cx: &mut Ctxt<'_>, tat: &[Step], u: &UnionDef) {
        let item = format!("types/{}", u.name);
        let tag_max = match int_width(&u.tag) {
            Some(w) => {
                if w >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (w * 8)) - 1
                }
            }
            None => {
                cx.error(
                    &at(tat, &[Step::from("tag")]),
                    &item,
                    "a union's tag must be an unsigned integer type (U8, U16, U24, U32, U64)",
                    None,
                );
                u64::MAX
            }
        };
        if u.variants.is_empty() {
            cx.error(
                tat,
                &item,
                format!("union `{}` has no variants", u.name),
                None,
            );
        }
        if let Some(other) = &u.other {
            let oat = at(tat, &[Step::from("other")]);
            if !u.peek {
                cx.error(
                    &oat,
                    &item,
                    "`other` applies to a peek union (its payloads keep their tags)",
                    Some("a union whose tag is stored apart would lose the tag it read".into()),
                );
            } else if !u.variants.iter().any(|v| &v.name == other) {
                cx.error(
                    &oat,
                    &item,
                    format!("`other` names no variant of `{}`: `{other}`", u.name),
                    None,
                );
            }
        }
        let mut names = HashSet::new();
        let mut tags = HashMap::new();
        // Tags known but not read: none may be a variant's, or too wide.
        for v in &u.variants {
            tags.insert(v.tag, &v.name);
        }
        for (ri, r) in u.reserved.iter().enumerate() {
            let rat = at(
                tat,
                &[Step::from("reserved"), Step::Index(ri), Step::from("tag")],
            );
            let ritem = format!("{item}/reserved/{ri}");
            if let Some(prev) = tags.get(&r.tag) {
                cx.error(
                    &rat,
                    &ritem,
                    format!("tag {} is already used by `{prev}`", r.tag),
                    None,
                );
            } else if u.reserved[..ri].iter().any(|q| q.tag == r.tag) {
                cx.error(
                    &rat,
                    &ritem,
                    format!("tag {} is reserved twice", r.tag),
                    None,
                );
            }
            if r.tag > tag_max {
                cx.error(
                    &rat,
                    &ritem,
                    format!("tag {} does not fit the union's tag type", r.tag),
                    None,
                );
            }
        }
        tags.clear();
        for (vi, v) in u.variants.iter().enumerate() {
            let vat = at(tat, &[Step::from("variants"), Step::Index(vi)]);
            let vitem = format!("{item}/variants/{vi}");
            if !names.insert(v.name.as_str()) {
                cx.error(
                    &vat,
                    &vitem,
                    format!("duplicate variant `{}`", v.name),
                    None,
                );
            }
            self.ident(cx, &vat, &vitem, &v.name, true);
            if let Some(prev) = tags.insert(v.tag, &v.name) {
                cx.error(
                    &at(&vat, &[Step::from("tag")]),
                    &vitem,
                    format!("tag {} is already used by `{prev}`", v.tag),
                    None,
                );
            }
            if v.tag > tag_max {
                cx.error(
                    &at(&vat, &[Step::from("tag")]),
                    &vitem,
                    format!("tag {} does not fit the union's tag type", v.tag),
                    None,
                );
            }
            if let Some(sec) = &v.section {
                if !self.sections.contains_key(sec.as_str()) {
                    cx.error(
                        &at(&vat, &[Step::from("section")]),
                        &vitem,
                        format!("unknown section `{sec}`"),
                        Some(self.section_list()),
                    );
                }
            }
            if let Some(a) = v.align {
                if !a.is_power_of_two() {
                    cx.error(
                        &at(&vat, &[Step::from("align")]),
                        &vitem,
                        format!("align must be a power of two, not {a}"),
                        None,
                    );
                }
            }
            let tyat = at(&vat, &[Step::from("type")]);
            if self.cell_unions.contains(u.name.as_str()) {
                self.check_cell(cx, &tyat, &vitem, &v.ty);
                continue;
            }
            self.check_type(cx, &tyat, &vitem, &v.ty, Place::Payload);
            // A payload record written in place is visited where it lies
            // and its offsets' targets placed (`Checked::payload_records`);
            // a payload elsewhere is not visited.
            let in_place = matches!(&v.ty, Type::Named(n) if self.struct_def(n).is_some())
                && !self.unions_not_in_place.contains(u.name.as_str());
            if !in_place {
                if let Some(path) = self.inline_offset(&v.ty, &mut HashSet::new()) {
                    cx.error(
                        &tyat,
                        &vitem,
                        "offsets inside this union payload are not placed",
                        Some(format!(
                            "`{path}` is an offset; a payload may hold offsets only when it is a struct and its union is \
                             a `Switch` field of a record (written in place, as an event's slots), not behind an offset \
                             nor a list of records"
                        )),
                    );
                }
            }
        }
    }

    /// `` `n` names no field of `S` ``, with the nearest field names.
    fn no_field(&self, cx: &mut Ctxt<'_>, at: &[Step], item: &str, n: &str, st: &StructDef) {
        cx.error(
            at,
            item,
            format!("`{n}` names no field of `{}`", st.name),
            Some(field_hint(n, st)),
        );
    }

    /// A record's `place` list: each name a field that leads to placed
    /// data, once.
    fn check_place(&self, cx: &mut Ctxt<'_>, tat: &[Step], st: &StructDef) {
        let item = format!("types/{}/place", st.name);
        let mut seen = HashSet::new();
        for (i, n) in st.place.iter().enumerate() {
            let pat = at(tat, &[Step::from("place"), Step::Index(i)]);
            let Some(f) = st.fields.iter().find(|f| &f.name == n) else {
                self.no_field(cx, &pat, &item, n, st);
                continue;
            };
            if !seen.insert(n.as_str()) {
                cx.error(
                    &pat,
                    &item,
                    format!("`{n}` is listed twice"),
                    Some("each field has one place in the order".into()),
                );
                continue;
            }
            let leads = matches!(
                f.ty,
                Type::Ptr(_) | Type::Follows { .. } | Type::HashSlots { .. } | Type::Switch { .. }
            ) || self.inline_offset(&f.ty, &mut HashSet::new()).is_some()
                || matches!(&f.ty, Type::Array { of, .. } | Type::List { of, .. } if matches!(**of, Type::Ptr(_)));
            if !leads {
                cx.error(
                    &pat,
                    &item,
                    format!("`{}.{n}` leads to no placed data", st.name),
                    Some(
                        "`place` orders the fields whose offsets lead to data placed elsewhere"
                            .into(),
                    ),
                );
            }
        }
    }

    /// The first offset field a value of this type holds inline (through
    /// inline structs, arrays and list elements), as `Struct.field`.
    fn inline_offset(&self, t: &Type, seen: &mut HashSet<&'s str>) -> Option<String> {
        match t {
            Type::Named(n) => {
                let st = self.struct_def(n)?;
                // A unit lays out (and places) its own offsets' targets.
                if !seen.insert(st.name.as_str()) || st.layout.is_some() {
                    return None;
                }
                st.fields.iter().find_map(|f| match &f.ty {
                    Type::Ptr(_) => Some(format!("{}.{}", st.name, f.name)),
                    t => self.inline_offset(t, seen),
                })
            }
            Type::Array { of, .. } | Type::List { of, .. } => self.inline_offset(of, seen),
            _ => None,
        }
    }

    fn section_list(&self) -> String {
        let mut v: Vec<&str> = self.all.iter().map(|s| s.name.as_str()).collect();
        if v.is_empty() {
            return "the schema declares no sections".into();
        }
        v.dedup();
        format!("sections are: {}", v.join(", "))
    }

    fn check_type(&self, cx: &mut Ctxt<'_>, tat: &[Step], item: &str, ty: &Type, place: Place) {
        match ty {
            Type::Magic(m)
                if m.is_empty() || m.chars().count() > 16 || m.chars().any(|c| c as u32 > 0xff) =>
            {
                cx.error(
                tat,
                item,
                format!("bad magic literal {m:?}"),
                Some("a magic is 1 to 16 characters up to U+00FF, one byte each, such as \"AAMP\" or \"\\u{FE}\\u{FF}\"".into()),
                )
            }
            Type::Pad { align, .. } if place != Place::Field => cx.error(
                tat,
                item,
                "padding stands only as a field of a struct (it pads from the record's start)",
                Some(format!("make it a field: `(name: \"pad\", type: Pad(align: {align}))`")),
            ),
            Type::Pad { align, .. } if *align < 2 || !align.is_power_of_two() || *align > 1 << 16 => cx.error(
                tat,
                item,
                format!("Pad's align must be a power of two from 2 to 65536, not {align}"),
                None,
            ),
            Type::HashSlots { .. } if place != Place::Field => cx.error(
                tat,
                item,
                "a table of hash slots is a field of a struct (the slot count beside it)",
                None,
            ),
            Type::HashSlots { of, key, section, width, rule, .. } => {
                if let Some(crate::SlotRule::PrimeAbove { ratio, max }) = rule {
                    if *ratio == 0 || *max < 2 {
                        cx.error(tat, item, format!("PrimeAbove(ratio: {ratio}, max: {max}) gives no slot count: the ratio must be at least 1 and the most at least 2"), None);
                    }
                }
                if let Some(path) = self.inline_offset(&Type::Named(of.clone()), &mut HashSet::new()) {
                    cx.error(
                        tat,
                        item,
                        format!("the records of a table of hash slots hold no offsets yet, and `{path}` is one"),
                        Some("they are written in place, slot by slot; hold the data inline".into()),
                    );
                }
                match self.struct_def(of) {
                    None => cx.error(tat, item, format!("`{of}` is not a struct"), Some(self.suggest(of))),
                    Some(st) => match st.fields.iter().find(|g| &g.name == key).map(|g| &g.ty) {
                        Some(Type::PString { .. } | Type::CString { .. }) => {}
                        Some(_) => cx.error(tat, item, format!("the key `{of}.{key}` must be a string (PString or CString)"), None),
                        None => cx.error(tat, item, format!("`{key}` names no field of `{of}`"), Some(field_hint(key, st))),
                    },
                }
                if !self.sections.contains_key(section.as_str()) {
                    cx.error(tat, item, format!("unknown section `{section}`"), Some(self.section_list()));
                }
                if int_width(width).is_none() {
                    cx.error(tat, item, "a slot's count and offset must be an unsigned integer type", None);
                }
            }
            Type::Text { .. } if place != Place::Target => cx.error(
                tat,
                item,
                "Text runs up to the next target, so it stands only behind an offset",
                Some("write `Ptr(width: U32, to: Text(...), section: \"...\")`".into()),
            ),
            Type::Text {
                tags: Some(t),
                encoding,
                ..
            } => match self.types.get(t.as_str()).map(|&i| &self.s.types[i]) {
                Some(TypeDef::Union(u)) if u.inline_tag && int_width(&u.tag) == Some(encoding.unit()) => {}
                Some(TypeDef::Union(u)) if u.inline_tag => cx.error(
                    tat,
                    item,
                    format!(
                        "the tags of {encoding:?} text are {}-byte units, and `{t}`'s tag is {} bytes wide",
                        encoding.unit(),
                        int_width(&u.tag).unwrap_or(0)
                    ),
                    None,
                ),
                Some(_) => cx.error(
                    tat,
                    item,
                    format!("`{t}` must be a union with `inline_tag: true` (its tag is the unit that opens a record)"),
                    None,
                ),
                None => cx.error(tat, item, format!("unknown type `{t}`"), Some(self.suggest(t))),
            },
            Type::PString { len, .. } if int_width(len).is_none() => cx.error(
                tat,
                item,
                "a PString's length must be an unsigned integer type (U8, U16, U24, U32, U64)",
                None,
            ),
            Type::Bytes(n) if *n == 0 || *n > 1 << 20 => cx.error(
                tat,
                item,
                format!("Bytes({n}) must hold 1 to 1048576 bytes"),
                None,
            ),
            Type::CString {
                max,
                pad,
                lossless,
                encoding,
                size,
            } => {
                let unit = encoding.unit();
                if let Some(n) = size {
                    if max.is_some() || pad.is_some() || *lossless {
                        cx.error(
                            tat,
                            item,
                            "a CString with `size` fills its field: `max`, `pad` and `lossless` do not apply",
                            Some("the string with its end takes at most `size` bytes, zeros follow it".into()),
                        );
                    }
                    if *n < unit || n % unit != 0 {
                        cx.error(
                            tat,
                            item,
                            format!("a {encoding:?} CString's size ({n} bytes) must be a whole number of its {unit}-byte units, at least one"),
                            None,
                        );
                    }
                }
                if *lossless && unit > 1 {
                    cx.error(
                        tat,
                        item,
                        "`lossless` keeps bytes that are not UTF-8; a UTF-16 or UTF-32 string cannot be lossless",
                        Some("remove `lossless`: text that its units cannot encode is an error".into()),
                    );
                }
                if let Some(m) = max.filter(|m| m % unit != 0) {
                    cx.error(
                        tat,
                        item,
                        format!("a {encoding:?} CString's max ({m} bytes) must be a multiple of its unit, {unit} bytes"),
                        None,
                    );
                }
                if place == Place::Elem && size.is_none() {
                    cx.error(
                        tat,
                        item,
                        "a CString has no fixed size, so it cannot be an array element",
                        None,
                    );
                }
                if *max == Some(0) {
                    cx.error(
                        tat,
                        item,
                        "a CString's max must be at least 1 (the NUL)",
                        None,
                    );
                }
                if let Some(p) = pad {
                    if !p.is_power_of_two() {
                        cx.error(
                            tat,
                            item,
                            format!("pad must be a power of two, not {p}"),
                            None,
                        );
                    }
                }
            }
            Type::Named(n) => match self.types.get(n.as_str()).map(|&i| &self.s.types[i]) {
                None => cx.error(
                    tat,
                    item,
                    format!("unknown type `{n}`"),
                    Some(self.suggest(n)),
                ),
                Some(TypeDef::Union(u)) if u.inline_tag || u.peek => {
                    if place == Place::Elem && self.size(ty) == Size::Variable {
                        cx.error(
                            tat,
                            item,
                            format!("elements of type `{n}` must have a fixed size"),
                            Some("its variants' payloads differ in size".into()),
                        );
                    }
                }
                Some(TypeDef::Union(_)) => cx.error(
                    tat,
                    item,
                    format!("union `{n}` must be reached through a Switch on a tag field"),
                    Some(format!(
                        "write `Ptr(..., to: Switch(union: \"{n}\", tag: \"...\"))`"
                    )),
                ),
                Some(TypeDef::Struct(st)) => {
                    if st.layout.is_some() && place != Place::Target {
                        cx.error(
                            tat,
                            item,
                            format!("`{n}` is a unit (it has a layout), so it can only stand behind an offset"),
                            Some("a unit is laid out on its own and placed as a whole: reach it through a `Ptr`".into()),
                        );
                    }
                    if place == Place::Elem && self.size(ty) == Size::Variable {
                        cx.error(
                            tat,
                            item,
                            format!("elements of type `{n}` must have a fixed size"),
                            None,
                        );
                    }
                }
            },
            Type::Array { of, len } => {
                if *len == 0 || *len > 1 << 16 {
                    cx.error(
                        tat,
                        item,
                        format!("an inline array holds 1 to 65536 elements, not {len}"),
                        None,
                    );
                }
                if let Size::Fixed(e) = self.size(of) {
                    if e.checked_mul(*len).is_none() {
                        cx.error(
                            tat,
                            item,
                            format!(
                                "size overflows: {len} elements of 0x{e:x} bytes take more than 2^64 bytes"
                            ),
                            None,
                        );
                    }
                }
                self.check_type(cx, &at(tat, &[Step::from("of")]), item, of, Place::Elem);
            }
            Type::Bits { word, fields } => {
                if place != Place::Field {
                    let here = match place {
                        Place::Elem => "an array or list element",
                        Place::Target => "an offset target",
                        _ => "a union payload",
                    };
                    cx.error(
                        tat,
                        item,
                        format!("a bitfield can only be a direct field of a struct, not {here}"),
                        Some(
                            "wrap it in a struct with the `Bits` as its field, and use that struct here"
                                .into(),
                        ),
                    );
                }
                match int_width(word) {
                    Some(w) if w != 3 => {
                        let total: u64 = fields.iter().map(|f| f.bits as u64).sum();
                        if total != w * 8 {
                            cx.error(tat, item,
                                format!("bit widths add up to {total}, but the word has {} bits", w * 8),
                                Some("name every bit: add a reserved range such as (name: \"reserved\", bits: N)".into()));
                        }
                    }
                    _ => cx.error(
                        tat,
                        item,
                        "a bitfield's word must be U8, U16, U32 or U64",
                        None,
                    ),
                }
                self.check_bits_strings(cx, tat, item, fields);
                let mut seen = HashSet::new();
                for (i, b) in fields.iter().enumerate() {
                    let bat = at(tat, &[Step::from("fields"), Step::Index(i)]);
                    if b.bits == 0 {
                        cx.error(
                            &bat,
                            item,
                            format!("bit range `{}` has width 0", b.name),
                            None,
                        );
                    }
                    if !seen.insert(b.name.as_str()) {
                        cx.error(
                            &bat,
                            item,
                            format!("duplicate bit range `{}`", b.name),
                            None,
                        );
                    }
                    self.ident(cx, &bat, item, &b.name, false);
                }
            }
            Type::Ptr(p) => {
                // A payload's offset is a value word of a union (its
                // target is placed like a field's).
                if place != Place::Field && place != Place::OffsetElem && place != Place::Payload {
                    cx.error(tat, item, "an offset can only be a field of a struct or a union's payload (not an element or a target)", None);
                }
                if place == Place::Payload
                    && matches!(p.base, Base::Record | Base::Unit | Base::Section(_))
                {
                    // A payload's word has no record of its own to count from.
                    cx.error(
                        &at(tat, &[Step::from("base")]),
                        item,
                        "an offset held as a union's payload cannot count from a record, a unit or a section",
                        Some("use the default `File` base or `Absolute(n)`: the word is stored apart from any record".into()),
                    );
                }
                if !matches!(
                    p.width,
                    Type::U8 | Type::U16 | Type::U24 | Type::U32 | Type::U64
                ) {
                    cx.error(
                        &at(tat, &[Step::from("width")]),
                        item,
                        "an offset's width must be U8, U16, U24, U32 or U64",
                        None,
                    );
                }
                if p.scale == 0 {
                    cx.error(
                        &at(tat, &[Step::from("scale")]),
                        item,
                        "scale must be at least 1",
                        None,
                    );
                }
                if let Some(sec) = &p.section {
                    if !self.sections.contains_key(sec.as_str()) {
                        cx.error(
                            &at(tat, &[Step::from("section")]),
                            item,
                            format!("unknown section `{sec}`"),
                            Some(self.section_list()),
                        );
                    }
                }
                let toat = at(tat, &[Step::from("to")]);
                self.check_type(cx, &toat, item, &p.to, Place::Target);
                match &p.to {
                    Type::Switch { union, .. } => {
                        if let Some(TypeDef::Union(u)) =
                            self.types.get(union.as_str()).map(|&i| &self.s.types[i])
                        {
                            if p.section.is_none() {
                                if let Some(v) = u.variants.iter().find(|v| v.section.is_none()) {
                                    cx.error(&toat, item,
                                        format!("variant `{}::{}` names no section, and neither does this offset", u.name, v.name),
                                        Some("give the offset a `section` or every variant one".into()));
                                }
                            }
                        }
                    }
                    _ => {
                        if p.section.is_none() {
                            cx.error(
                                tat,
                                item,
                                "an offset must name the section its target is placed in",
                                Some(self.section_list()),
                            );
                        }
                    }
                }
            }
            Type::List { of, count } => {
                if !matches!(place, Place::Target | Place::Payload | Place::Field) {
                    cx.error(
                        tat,
                        item,
                        "a List can only be a field, stand behind an offset or be a union payload",
                        None,
                    );
                }
                let elem = if place == Place::Field && matches!(**of, Type::Ptr(_)) {
                    Place::OffsetElem
                } else if matches!(**count, Count::ToNext) || self.size(of) == Size::Variable {
                    // Read one after the other (up to the bound, or as many
                    // as counted): any size will do.
                    Place::SeqElem
                } else {
                    Place::Elem
                };
                self.check_type(cx, &at(tat, &[Step::from("of")]), item, of, elem);
                match &**count {
                    Count::Before(t) | Count::Prefix(t) => {
                        if int_width(t).is_none() {
                            cx.error(
                                &at(tat, &[Step::from("count")]),
                                item,
                                "a stored count must be an unsigned integer type",
                                None,
                            );
                        }
                    }
                    Count::Field(_) if place == Place::Payload => {
                        cx.error(
                            &at(tat, &[Step::from("count")]),
                            item,
                            "a union payload's count must be stored with it (Before or Prefix)",
                            None,
                        );
                    }
                    Count::Field(_) => {}
                    Count::End(_) if place != Place::Target => cx.error(
                        &at(tat, &[Step::from("count")]),
                        item,
                        "a list that runs to a stored end must stand behind an offset",
                        None,
                    ),
                    Count::End(_) => {}
                    Count::ToNext if !matches!(place, Place::Target | Place::Field | Place::Payload) => cx.error(
                        &at(tat, &[Step::from("count")]),
                        item,
                        "a list that runs to the next target must be a target (of a `Ptr` or `Follows`), a field or a union payload",
                        None,
                    ),
                    Count::ToNext => {}
                    Count::Sum(_) => self.check_list_count(cx, tat, item, count, place),
                }
                if place == Place::Field
                    && !matches!(**count, Count::Field(_) | Count::Sum(_) | Count::ToNext)
                {
                    cx.error(
                        &at(tat, &[Step::from("count")]),
                        item,
                        "a list field's count is a field read before it (`Field(\"n\")`, `Sum([...])`) or `ToNext`",
                        None,
                    );
                }
            }
            Type::Switch { union, tag } => {
                // Inline, a Switch is a value word whose tag is stored apart:
                // a sibling field (`derive: Tag`) or, for a list's elements,
                // a sibling list of tags (`derive: Tags`), or a list of the
                // record's holder (`tag: "types[i]"`).
                if !matches!(place, Place::Target | Place::Field | Place::Elem) {
                    cx.error(tat, item, "a Switch stands behind an offset, as a record's field or as a list's element", None);
                }
                if held_tag_list(tag).is_some() && place != Place::Field {
                    cx.error(
                        tat,
                        item,
                        format!("`tag: \"{tag}\"` takes the tag from the list holding the record, so this Switch must be a field of that record"),
                        None,
                    );
                }
                if place != Place::Target && self.size(ty) == Size::Variable {
                    cx.error(
                        tat,
                        item,
                        format!("a Switch held inline needs `{union}`'s payloads to have one fixed size (a value word)"),
                        None,
                    );
                }
                match self.types.get(union.as_str()).map(|&i| &self.s.types[i]) {
                    Some(TypeDef::Union(u)) if u.inline_tag => cx.error(
                        tat,
                        item,
                        format!("`{union}` stores its tag in front of its payload, so it needs no Switch"),
                        Some(format!("point the offset at it: `to: Named(\"{union}\")`")),
                    ),
                    Some(TypeDef::Union(_)) => {}
                    Some(TypeDef::Struct(_)) => cx.error(
                        tat,
                        item,
                        format!("`{union}` is a struct, but a Switch chooses a variant of a union"),
                        Some(format!(
                            "point the offset at the struct: `to: Named(\"{union}\")`"
                        )),
                    ),
                    None => cx.error(
                        tat,
                        item,
                        format!("`{union}` is not a union of this schema"),
                        Some(self.suggest(union)),
                    ),
                }
            }
            Type::Str { .. } | Type::Pool {} | Type::Groups { .. } | Type::Select { .. } => {
                self.check_layout_type(cx, tat, item, ty, place)
            }
            other => self.check_new_type(cx, tat, item, other, place),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn check_ptr_pairing(
        &self,
        cx: &mut Ctxt<'_>,
        sat: &[Step],
        tat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        p: &Ptr,
    ) {
        match &p.to {
            Type::List { count, .. } if matches!(&**count, Count::Field(_)) => {
                let Count::Field(n) = &**count else { return };
                let paired = Paired {
                    role: "count",
                    derive: "Count",
                    expected: Derive::Count(f.name.clone()),
                };
                check_paired_sibling(cx, tat, item, st, f, n, &paired);
            }
            Type::Switch { union, tag } => {
                let paired = Paired {
                    role: "tag",
                    derive: "Tag",
                    expected: Derive::Tag(f.name.clone()),
                };
                if let Some(g) = check_paired_sibling(cx, tat, item, st, f, tag, &paired) {
                    let u = match self.types.get(union.as_str()).map(|&i| &self.s.types[i]) {
                        Some(TypeDef::Union(u)) => Some(u),
                        _ => None,
                    };
                    if let Some(u) = u {
                        let (gw, uw) = (int_width(&g.ty), int_width(&u.tag));
                        if gw.is_some() && uw.is_some() && gw != uw {
                            let gi = st.fields.iter().position(|h| h.name == g.name).unwrap_or(0);
                            cx.error(
                                &at(
                                    sat,
                                    &[Step::from("fields"), Step::Index(gi), Step::from("type")],
                                ),
                                format!("types/{}/fields/{gi}", st.name),
                                format!(
                                    "tag field `{tag}` is a {:?}, but union `{}` has a {:?} tag",
                                    g.ty, u.name, u.tag
                                ),
                                Some(format!(
                                    "the tag field holds the union's tag: make `{tag}` a {:?}",
                                    u.tag
                                )),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Where an offset's targets go: records never into a dedup section,
    /// and nothing that places into a post-order section into that section.
    fn check_placement(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        p: &Ptr,
    ) {
        let what = format!("{}.{}", st.name, f.name);
        let secat = at(tat, &[Step::from("section")]);
        // (target type, section) pairs this offset places.
        let mut placed: Vec<(&Type, &str)> = Vec::new();
        match &p.to {
            Type::Switch { union, .. } => {
                if let Some(TypeDef::Union(u)) =
                    self.types.get(union.as_str()).map(|&i| &self.s.types[i])
                {
                    for v in &u.variants {
                        if let Some(sec) = v.section.as_deref().or(p.section.as_deref()) {
                            placed.push((&v.ty, sec));
                        }
                    }
                }
            }
            to => {
                if let Some(sec) = p.section.as_deref() {
                    placed.push((to, sec));
                    if let Some(rec) = self.record_type(to) {
                        let si = self.sections.get(sec).copied();
                        let dedup = si.map(|i| self.all[i].dedup);
                        if let Some(d @ (Dedup::Exact | Dedup::ByteSearch { .. })) = dedup {
                            let how = match d {
                                Dedup::Exact => "Exact",
                                _ => "ByteSearch",
                            };
                            cx.error(
                                &secat,
                                item,
                                format!(
                                    "`{what}` places `{rec}` records in section `{sec}`, which deduplicates ({how})"
                                ),
                                Some(
                                    "a dedup section shares equal bytes between values, but records must stay distinct: \
                                     a record's bytes are not final until its offsets are patched, and RecordCount counts each record; \
                                     place the records in a section with `dedup: None`"
                                        .into(),
                                ),
                            );
                        }
                    }
                }
            }
        }
        let mut reported = HashSet::new();
        for (t, sec) in placed {
            let Some(&si) = self.sections.get(sec) else {
                continue;
            };
            if self.all[si].order != Order::PostOrder || !self.type_reaches(t, si) {
                continue;
            }
            if reported.insert(si) {
                cx.error(
                    &secat,
                    item,
                    format!(
                        "`{what}` places its target in post-order section `{sec}`, but the target itself places values in `{sec}`"
                    ),
                    Some(format!(
                        "post-order places what a record leads to before the record itself, so the target's own \
                         targets would be placed (and their offsets patched) before the target is written; \
                         order `{sec}` PreOrder, or send one of the two to another section"
                    )),
                );
            }
        }
    }

    /// The struct whose records a target of this type holds, if any.
    fn record_type<'t>(&self, t: &'t Type) -> Option<&'t str> {
        match t {
            Type::Named(n) => self.struct_def(n).map(|_| n.as_str()),
            Type::Array { of, .. } | Type::List { of, .. } => self.record_type(of),
            _ => None,
        }
    }

    fn check_derive(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        d: &Derive,
    ) {
        let shaped = match d {
            Derive::Interned => matches!(f.ty, Type::Ptr(_)),
            Derive::Tags(_) => matches!(&f.ty, Type::List { of, .. } if int_width(of).is_some()),
            _ => false,
        };
        if int_width(&f.ty).is_none() && !shaped {
            cx.error(
                dat,
                item,
                match d {
                    Derive::Interned => format!(
                        "`{}` (derive: Interned) must be an offset to a string table",
                        f.name
                    ),
                    Derive::Tags(_) => format!(
                        "`{}` (derive: Tags) must be a list of unsigned integers",
                        f.name
                    ),
                    _ => format!("derived field `{}` must be an unsigned integer", f.name),
                },
                None,
            );
        }
        let sibling = |n: &str| st.fields.iter().find(|g| g.name == n);
        match d {
            Derive::Count(n) => match sibling(n).map(|g| &g.ty) {
                None => self.no_field(cx, dat, item, n, st),
                Some(Type::Ptr(p)) if matches!(&p.to, Type::List { count, .. } | Type::Rows { count, .. } if matches!(&**count, Count::Field(c) if c == &f.name)) =>
                    {}
                Some(Type::List { count, .. }) if matches!(&**count, Count::Field(c) if c == &f.name) =>
                    {}
                Some(Type::Table { count, .. }) if count == &f.name => {}
                // The offset's count names no field: reported there, once.
                Some(Type::Ptr(p)) if matches!(&p.to, Type::List { count, .. } if matches!(&**count, Count::Field(c) if sibling(c).is_none())) =>
                    {}
                _ => cx.error(
                    dat,
                    item,
                    format!("`{n}` is not an offset array counted by `{}`", f.name),
                    Some(format!(
                        "the offset field needs `to: List(of: ..., count: Field(\"{}\"))`",
                        f.name
                    )),
                ),
            },
            Derive::Tag(n) => match sibling(n).map(|g| &g.ty) {
                None => self.no_field(cx, dat, item, n, st),
                Some(Type::Ptr(p)) if matches!(&p.to, Type::Switch { tag, .. } if tag == &f.name) =>
                    {}
                Some(Type::Switch { tag, .. }) if tag == &f.name => {}
                // The Switch's tag names no field: reported there, once.
                Some(Type::Ptr(p)) if matches!(&p.to, Type::Switch { tag, .. } if sibling(tag).is_none()) =>
                    {}
                _ => cx.error(
                    dat,
                    item,
                    format!("`{n}` is not an offset to a union tagged by `{}`", f.name),
                    None,
                ),
            },
            Derive::Tags(of) => self.check_tags(cx, dat, item, st, f, of),
            // Settled once the layout is done, in any record.
            Derive::FileSize => {}
            Derive::RecordCount(t) => match self.types.get(t.as_str()).map(|&i| &self.s.types[i]) {
                Some(TypeDef::Struct(_)) => {}
                Some(TypeDef::Union(_)) => cx.error(
                    dat,
                    item,
                    format!("`{t}` is a union, and unions have no records to count"),
                    Some("RecordCount counts the records of a struct".into()),
                ),
                None => cx.error(
                    dat,
                    item,
                    format!("unknown type `{t}`"),
                    Some(self.suggest(t)),
                ),
            },
            Derive::SectionSize(sec) | Derive::SectionEnd(sec) => {
                self.check_scoped_section(cx, dat, item, st, sec);
            }
            Derive::SortedStrings(sec) => {
                self.check_scoped_section(cx, dat, item, st, sec);
                let sorted = self.all.iter().any(|s| &s.name == sec && s.sort.is_some());
                if self.sections.contains_key(sec.as_str()) && !sorted {
                    cx.error(
                        dat,
                        item,
                        format!("section `{sec}` is not sorted, so its strings are not counted"),
                        Some("give the section `sort: ...` (its strings laid out in order, each once)".into()),
                    );
                }
            }
            Derive::Size(n) => match sibling(n) {
                None => self.no_field(cx, dat, item, n, st),
                Some(g) if g.size.as_deref() == Some(f.name.as_str()) => {}
                Some(_) => cx.error(
                    dat,
                    item,
                    format!("`{n}` is not sized by `{}`", f.name),
                    Some(format!("give `{n}` the attribute `size: \"{}\"`", f.name)),
                ),
            },
            Derive::Total { list, of } => self.check_total(cx, dat, item, st, list, of),
            other => self.check_new_derive(cx, dat, item, st, f, other),
        }
    }

    /// `Total { list, of }`: `list` a sibling list of records, `of` a list
    /// field of those records.
    fn check_total(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        list: &str,
        of: &str,
    ) {
        let Some(lf) = st.fields.iter().find(|g| g.name == list) else {
            self.no_field(cx, dat, item, list, st);
            return;
        };
        let elems = match &lf.ty {
            Type::Ptr(p) => &p.to,
            t => t,
        };
        let elem = match elems {
            Type::List { of, .. } | Type::Array { of, .. } => match &**of {
                Type::Named(n) => self.struct_def(n),
                _ => None,
            },
            _ => None,
        };
        let Some(es) = elem else {
            cx.error(
                dat,
                item,
                format!("`{}.{list}` is not a list of records", st.name),
                Some("a total sums a list field of each record of a list".into()),
            );
            return;
        };
        let Some(ef) = es.fields.iter().find(|g| g.name == of) else {
            cx.error(
                dat,
                item,
                format!("`{of}` names no field of `{}`", es.name),
                Some(field_hint(of, es)),
            );
            return;
        };
        let is_list = match &ef.ty {
            Type::Ptr(p) => matches!(p.to, Type::List { .. } | Type::Array { .. }),
            t => matches!(t, Type::List { .. } | Type::Array { .. }),
        };
        if !is_list || ef.derive.is_some() {
            cx.error(
                dat,
                item,
                format!("`{}.{of}` is not a list the document holds", es.name),
                Some("name a list field (an offset to a List, or a List inline)".into()),
            );
        }
    }

    /// A field with `size`: a unit, its size field an unsigned integer before
    /// it that derives its length.
    fn check_sized(&self, cx: &mut Ctxt<'_>, fat: &[Step], item: &str, st: &StructDef, fi: usize) {
        let f = &st.fields[fi];
        let Some(size) = &f.size else { return };
        let sat = at(fat, &[Step::from("size")]);
        let unit = matches!(&f.ty, Type::Named(n) if matches!(self.types.get(n.as_str()).map(|&i| &self.s.types[i]), Some(TypeDef::Struct(s)) if s.layout.is_some()));
        if !unit {
            cx.error(
                &sat,
                item,
                format!("`size` applies to a unit laid out inline, and `{}` is not one", f.name),
                Some("give the struct a `layout` (its own sections), or count a list of bytes with `Field`".into()),
            );
        }
        match st.fields[..fi].iter().find(|g| &g.name == size) {
            Some(g) if g.derive == Some(Derive::Size(f.name.clone())) => {}
            Some(_) => cx.error(
                &sat,
                item,
                format!(
                    "the size field `{size}` must have `derive: Size(\"{}\")`",
                    f.name
                ),
                None,
            ),
            None => cx.error(
                &sat,
                item,
                format!("`{size}` names no field before `{}`", f.name),
                Some("the size is read before the bytes it measures".into()),
            ),
        }
    }

    /// The struct generated for a bitfield is named `<Owner><FieldCamelCase>`:
    /// it must not clash with a type of the schema or another bitfield.
    fn check_bits_names(&self, cx: &mut Ctxt<'_>) {
        let mut generated: HashMap<String, String> = HashMap::new();
        for (ti, t) in self.s.types.iter().enumerate() {
            let TypeDef::Struct(st) = t else { continue };
            for (fi, f) in st.fields.iter().enumerate() {
                if !matches!(f.ty, Type::Bits { .. }) {
                    continue;
                }
                let name = crate::names::bits_struct_name(&st.name, &f.name);
                let what = format!("{}.{}", st.name, f.name);
                let fat = [
                    Step::from("types"),
                    Step::Index(ti),
                    Step::from("fields"),
                    Step::Index(fi),
                    Step::from("name"),
                ];
                let item = format!("types/{}/fields/{fi}", st.name);
                if self.types.contains_key(name.as_str()) {
                    cx.error(
                        &fat,
                        item,
                        format!(
                            "the bitfield `{what}` generates a struct named `{name}`, which is also a type of the schema"
                        ),
                        Some(format!(
                            "rename the field `{}` or the type `{name}`",
                            f.name
                        )),
                    );
                } else if let Some(prev) = generated.get(&name) {
                    cx.error(
                        &fat,
                        item,
                        format!(
                            "the bitfields `{prev}` and `{what}` both generate a struct named `{name}`"
                        ),
                        Some("rename one of the fields".into()),
                    );
                } else {
                    generated.insert(name, what);
                }
            }
        }
    }
}

/// The structs a value of this type holds without a `Vec` or `Box`: inline
/// fields and arrays, and what an offset to an inline array holds.
fn unboxed_refs<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
    match t {
        Type::Named(n) => out.push(n),
        Type::Array { of, .. } => unboxed_refs(of, out),
        Type::Ptr(p) if matches!(p.to, Type::Array { .. }) => unboxed_refs(&p.to, out),
        _ => {}
    }
}

/// The field an offset's target pairs with: the count of a `List(count:
/// Field(..))` or the tag of a `Switch`, and the derive that field must carry.
struct Paired<'a> {
    /// `count` or `tag`, as the errors name it (and the step under `to`).
    role: &'a str,
    /// The derive's name in the schema, for the hints.
    derive: &'a str,
    /// The derive the sibling must carry: from the offset field itself.
    expected: Derive,
}

/// Checks the sibling field `n` that offset field `f` pairs with: it must
/// exist, be an unsigned integer and be derived from `f`. A list's count and
/// a union's tag pair with their offset in the same way (the encoder fills
/// both in from the target), so one check gives both their errors. Returns
/// the sibling when it exists.
///
/// Several inline lists may share one count (an array's tags and values):
/// the count is derived from one of them.
pub(crate) fn counts_another_list(st: &StructDef, count: &Field) -> bool {
    let Some(Derive::Count(x)) = &count.derive else {
        return false;
    };
    st.fields.iter().any(|g| {
        &g.name == x
            && matches!(&g.ty, Type::List { count: c, .. } if matches!(&**c, Count::Field(n) if n == &count.name))
    })
}
fn check_paired_sibling<'s>(
    cx: &mut Ctxt<'_>,
    tat: &[Step],
    item: &str,
    st: &'s StructDef,
    f: &Field,
    n: &str,
    pair: &Paired<'_>,
) -> Option<&'s Field> {
    let Paired {
        role,
        derive,
        expected,
    } = pair;
    let Some(g) = st.fields.iter().find(|g| g.name == n) else {
        let derived = st
            .fields
            .iter()
            .find(|g| g.derive.as_ref() == Some(expected));
        let hint = match derived {
            Some(g) => format!(
                "did you mean `{}`? It is derived with `{derive}(\"{}\")`",
                g.name, f.name
            ),
            None => field_hint(n, st),
        };
        cx.error(
            &at(tat, &[Step::from("to"), Step::from(*role)]),
            item,
            format!("{role} `{n}` names no field of `{}`", st.name),
            Some(hint),
        );
        return None;
    };
    if int_width(&g.ty).is_none() {
        cx.error(
            tat,
            item,
            format!("{role} field `{n}` is not an unsigned integer"),
            None,
        );
    } else if g.derive.as_ref() != Some(expected) && !counts_another_list(st, g) {
        cx.error(
            tat,
            item,
            format!("{role} field `{n}` must be derived from `{}`", f.name),
            Some(format!(
                "add `derive: {derive}(\"{}\")` to field `{n}`",
                f.name
            )),
        );
    }
    Some(g)
}

/// A hint for a name that is not a field of `st`.
fn field_hint(n: &str, st: &StructDef) -> String {
    let names: Vec<&str> = st.fields.iter().map(|g| g.name.as_str()).collect();
    if names.is_empty() {
        return format!("`{}` has no fields", st.name);
    }
    suggest_among(n, &names).unwrap_or_else(|| format!("fields are: {}", names.join(", ")))
}

/// `did you mean ...?` with the candidates close to `name` (case-insensitive
/// edit distance, transpositions counting 1): at most three, nearest first,
/// ties by name. None when nothing is close.
fn suggest_among(name: &str, candidates: &[&str]) -> Option<String> {
    let lname: Vec<char> = name.to_lowercase().chars().collect();
    if lname.len() > 128 {
        return None;
    }
    let mut close: Vec<(usize, &str)> = candidates
        .iter()
        .filter(|&&c| c != name)
        .filter_map(|&c| {
            let lc: Vec<char> = c.to_lowercase().chars().collect();
            let limit = lname.len().max(lc.len()) / 3;
            if lname.len().abs_diff(lc.len()) > limit {
                return None;
            }
            let d = edit_distance(&lname, &lc);
            (d <= limit).then_some((d, c))
        })
        .collect();
    close.sort_unstable();
    close.dedup();
    let names: Vec<String> = close
        .iter()
        .take(3)
        .map(|(_, c)| format!("`{c}`"))
        .collect();
    match names.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [init @ .., last] => Some(format!("did you mean {} or {last}?", init.join(", "))),
    }
}

/// Optimal string alignment distance: insertions, deletions, substitutions
/// and transpositions of neighbours each cost 1.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut d: Vec<Vec<usize>> = (0..=a.len())
        .map(|i| (0..=b.len()).map(|j| if i == 0 { j } else { i }).collect())
        .collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Is `t` an integer or a float (a number stored as itself; not a bool)?
pub fn is_number(t: &Type) -> bool {
    matches!(
        t,
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
    )
}

/// Each range of a bits struct with its shift and mask, low bits first:
/// the one reading of a `Bits` declaration that the generated decoder and
/// encoder, the views and the interpreter all follow.
pub fn bit_ranges(fields: &[BitField]) -> impl Iterator<Item = (&BitField, u32, u64)> {
    let mut shift = 0u32;
    fields.iter().map(move |b| {
        let mask: u64 = if b.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << b.bits) - 1
        };
        let sh = shift;
        shift += b.bits;
        (b, sh, mask)
    })
}

/// The byte width of an unsigned integer type.
pub fn int_width(t: &Type) -> Option<u64> {
    match t {
        Type::U8 => Some(1),
        Type::U16 => Some(2),
        Type::U24 => Some(3),
        Type::U32 => Some(4),
        Type::U64 => Some(8),
        _ => None,
    }
}

/// Whether the size of a value is fixed by the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    Fixed(u64),
    /// Depends on the data (strings, lists, unions), or is unknown (an
    /// unknown type, an inline cycle: reported elsewhere).
    Variable,
    /// Fixed, but more than 2^64 - 1 bytes (reported where it happens).
    Overflow,
}

impl Size {
    pub(crate) fn fixed(self) -> Option<u64> {
        match self {
            Size::Fixed(n) => Some(n),
            _ => None,
        }
    }
}

/// Looks up a type or a section index by name.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<usize>;

/// Facts about the whole type graph, computed once (without recursion over
/// named types, so deep or cyclic schemas cannot blow the stack or loop).
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// The size of each type (unions: variable).
    sizes: Vec<Size>,
    /// `reaches[type][section]`: can a value of this type lead (through
    /// fields and offsets) to something placed in that section?
    reaches: Vec<Vec<bool>>,
}

impl Facts {
    pub(crate) fn compute(s: &Schema, type_id: Lookup<'_>, section_id: Lookup<'_>) -> Facts {
        let n = s.types.len();
        let nsec = all_sections(s).len();
        // Sizes: a fixed point over the structs; what never resolves is in
        // an inline cycle. A union is of variable size, unless it stores its
        // tag inline and every payload has the same size.
        let mut sizes: Vec<Option<Size>> = vec![None; n];
        // Visited in an order where each type comes after the types its
        // size depends on, one pass resolves every size outside a cycle:
        // in the schema's own order, a chain of n inline records took n
        // passes over n types (issue 70: 8,000 records, 12.5 s).
        let order = size_order(s, type_id);
        loop {
            let mut changed = false;
            for &i in &order {
                if sizes[i].is_some() {
                    continue;
                }
                let named = |m: &str| match type_id(m) {
                    Some(j) => sizes[j],
                    None => Some(Size::Variable),
                };
                if let TypeDef::Union(u) = &s.types[i] {
                    let mut one: Option<Option<Size>> = None;
                    for v in &u.variants {
                        let sz = type_size(&v.ty, &named);
                        one = Some(match (one, sz) {
                            (None, x) => x,
                            (Some(Some(a)), Some(b)) if a == b => Some(a),
                            (Some(None), _) | (_, None) => None,
                            _ => Some(Size::Variable),
                        });
                    }
                    let total = match one {
                        None => Some(Size::Variable),
                        Some(None) => None,
                        // A tag stored apart (a `Switch`) adds nothing to the
                        // value's size; a peeked one is inside the payload.
                        Some(Some(p)) if !u.inline_tag => Some(p),
                        Some(Some(p)) => Some(add_sizes(
                            int_width(&u.tag).map_or(Size::Variable, Size::Fixed),
                            p,
                        )),
                    };
                    if total.is_some() {
                        sizes[i] = total;
                        changed = true;
                    }
                    continue;
                }
                let TypeDef::Struct(st) = &s.types[i] else {
                    continue;
                };
                let mut total = Some(Size::Fixed(0));
                for f in &st.fields {
                    total = match (total, type_size(&f.ty, &named)) {
                        (Some(a), Some(b)) => Some(add_sizes(a, b)),
                        _ => None,
                    };
                }
                if total.is_some() {
                    sizes[i] = total;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut facts = Facts {
            sizes: sizes
                .into_iter()
                .map(|s| s.unwrap_or(Size::Variable))
                .collect(),
            reaches: vec![vec![false; nsec]; n],
        };
        // Reachability: what each type places itself, then spread back
        // along the type graph (a type reaches what the types it leads to
        // reach), one walk per section: linear in the schema, where a fixed
        // point over every type took as many passes as the longest chain.
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut led_from: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (ti, t) in s.types.iter().enumerate() {
            let mut leads = Vec::new();
            let types: Vec<&Type> = match t {
                TypeDef::Struct(st) => st.fields.iter().map(|f| &f.ty).collect(),
                TypeDef::Union(u) => u.variants.iter().map(|v| &v.ty).collect(),
            };
            for ty in types {
                places(s, ty, type_id, section_id, &mut direct[ti], &mut leads);
            }
            for to in leads {
                led_from[to].push(ti);
            }
        }
        for (ti, secs) in direct.iter().enumerate() {
            for &si in secs {
                if facts.reaches[ti][si] {
                    continue;
                }
                facts.reaches[ti][si] = true;
                let mut todo = vec![ti];
                while let Some(x) = todo.pop() {
                    for &from in &led_from[x] {
                        if !facts.reaches[from][si] {
                            facts.reaches[from][si] = true;
                            todo.push(from);
                        }
                    }
                }
            }
        }
        facts
    }

    /// The size of a value of this type.
    pub(crate) fn size(&self, t: &Type, type_id: Lookup<'_>) -> Size {
        let named = |n: &str| Some(type_id(n).map_or(Size::Variable, |i| self.sizes[i]));
        type_size(t, &named).unwrap_or(Size::Variable)
    }

    /// Can a value of type `type_id` lead to something placed in `section`?
    pub(crate) fn reaches(&self, type_id: usize, section: usize) -> bool {
        self.reaches
            .get(type_id)
            .and_then(|r| r.get(section))
            .copied()
            .unwrap_or(false)
    }

    /// Can a value of this field type lead to something placed in `section`?
    pub(crate) fn type_reaches(
        &self,
        s: &Schema,
        t: &Type,
        section: usize,
        type_id: Lookup<'_>,
        section_id: Lookup<'_>,
    ) -> bool {
        match t {
            // A union held as a field or element (its tag stored apart)
            // leads wherever its variants do.
            Type::Named(n) | Type::Switch { union: n, .. } => {
                type_id(n).is_some_and(|i| self.reaches(i, section))
            }
            Type::Array { of, .. } | Type::List { of, .. } | Type::Groups { of, .. } => {
                self.type_reaches(s, of, section, type_id, section_id)
            }
            Type::Ptr(p) => {
                target_sections(s, p, type_id, section_id).contains(&section)
                    || self.type_reaches(s, &p.to, section, type_id, section_id)
            }
            Type::Follows {
                to, section: sec, ..
            } => {
                section_id(sec) == Some(section)
                    || self.type_reaches(s, to, section, type_id, section_id)
            }
            // A row region leads to the sections its cells' offsets place in.
            Type::Rows { cells, .. } => match type_id(cells).map(|i| &s.types[i]) {
                Some(TypeDef::Union(u)) => u.variants.iter().any(|v| match &v.ty {
                    Type::Ptr(p) => p.section.as_deref().and_then(section_id) == Some(section),
                    _ => false,
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The sections a pointer's target can be placed in.
pub(crate) fn target_sections(
    s: &Schema,
    p: &Ptr,
    type_id: Lookup<'_>,
    section_id: Lookup<'_>,
) -> Vec<usize> {
    let mut out = Vec::new();
    if let Some(i) = p.section.as_deref().and_then(section_id) {
        out.push(i);
    }
    if let Type::Switch { union, .. } | Type::Select { union, .. } = &p.to {
        if let Some(TypeDef::Union(u)) = type_id(union).map(|i| &s.types[i]) {
            for v in &u.variants {
                if let Some(i) = v.section.as_deref().and_then(section_id) {
                    if !out.contains(&i) {
                        out.push(i);
                    }
                }
            }
        }
    }
    out
}

/// What a value of type `t` places itself (the sections its offsets and
/// `Follows` put targets in, into `direct`) and the named types it leads to
/// (into `leads`): the two halves of [`Facts::type_reaches`], apart.
fn places(
    s: &Schema,
    t: &Type,
    type_id: Lookup<'_>,
    section_id: Lookup<'_>,
    direct: &mut Vec<usize>,
    leads: &mut Vec<usize>,
) {
    let add = |v: &mut Vec<usize>, i: usize| {
        if !v.contains(&i) {
            v.push(i)
        }
    };
    match t {
        Type::Named(n) | Type::Switch { union: n, .. } => {
            if let Some(i) = type_id(n) {
                add(leads, i);
            }
        }
        Type::Array { of, .. } | Type::List { of, .. } | Type::Groups { of, .. } => {
            places(s, of, type_id, section_id, direct, leads)
        }
        Type::Ptr(p) => {
            for i in target_sections(s, p, type_id, section_id) {
                add(direct, i);
            }
            places(s, &p.to, type_id, section_id, direct, leads)
        }
        Type::Follows {
            to, section: sec, ..
        } => {
            if let Some(i) = section_id(sec) {
                add(direct, i);
            }
            places(s, to, type_id, section_id, direct, leads)
        }
        Type::Rows { cells, .. } => {
            if let Some(TypeDef::Union(u)) = type_id(cells).map(|i| &s.types[i]) {
                for v in &u.variants {
                    if let Type::Ptr(p) = &v.ty {
                        if let Some(i) = p.section.as_deref().and_then(section_id) {
                            add(direct, i);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The named types whose sizes the size of `t` is made of (see [`type_size`]).
fn size_deps(t: &Type, type_id: Lookup<'_>, out: &mut Vec<usize>) {
    match t {
        Type::Named(n) | Type::Switch { union: n, .. } => out.extend(type_id(n)),
        Type::Fixed { raw: of, .. } | Type::Array { of, .. } => size_deps(of, type_id, out),
        _ => {}
    }
}

/// The schema's types, each after the types its size is made of (a
/// depth-first post-order, kept on a stack of its own: a schema's chain of
/// records may be as long as it likes); types in a cycle come in any order.
fn size_order(s: &Schema, type_id: Lookup<'_>) -> Vec<usize> {
    let n = s.types.len();
    let deps = |i: usize| {
        let mut out = Vec::new();
        match &s.types[i] {
            TypeDef::Struct(st) => st
                .fields
                .iter()
                .for_each(|f| size_deps(&f.ty, type_id, &mut out)),
            TypeDef::Union(u) => u
                .variants
                .iter()
                .for_each(|v| size_deps(&v.ty, type_id, &mut out)),
        }
        out
    };
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, deps(root), 0usize)];
        while let Some((i, ds, next)) = stack.last_mut() {
            if let Some(&d) = ds.get(*next) {
                *next += 1;
                if !seen[d] {
                    seen[d] = true;
                    let dd = deps(d);
                    stack.push((d, dd, 0));
                }
            } else {
                order.push(*i);
                stack.pop();
            }
        }
    }
    order
}

fn add_sizes(a: Size, b: Size) -> Size {
    match (a, b) {
        (Size::Fixed(a), Size::Fixed(b)) => a.checked_add(b).map_or(Size::Overflow, Size::Fixed),
        (Size::Overflow, _) | (_, Size::Overflow) => Size::Overflow,
        _ => Size::Variable,
    }
}

/// The size of a type, given the sizes of named types (`None`: not known
/// yet, and then neither is this one).
fn type_size(t: &Type, named: &dyn Fn(&str) -> Option<Size>) -> Option<Size> {
    Some(match t {
        Type::U8 | Type::I8 | Type::Bool8 => Size::Fixed(1),
        Type::U16 | Type::I16 => Size::Fixed(2),
        Type::U24 => Size::Fixed(3),
        Type::U32 | Type::I32 | Type::F32 | Type::Bool32 => Size::Fixed(4),
        Type::U64 | Type::I64 | Type::F64 => Size::Fixed(8),
        Type::CString { size: Some(n), .. } => Size::Fixed(*n),
        Type::Magic(m) => Size::Fixed(m.chars().count() as u64),
        Type::Bytes(n) => Size::Fixed(*n),
        // A union's size is its payloads' common size (a value word).
        Type::Switch { union, .. } => named(union)?,
        Type::Index { width, .. } => int_width(width).map_or(Size::Variable, Size::Fixed),
        Type::CString { .. }
        | Type::HashSlots { .. }
        | Type::PString { .. }
        | Type::Text { .. }
        | Type::Pad { .. }
        | Type::List { .. }
        | Type::Table { .. }
        | Type::Hash { .. }
        | Type::Rows { .. }
        | Type::Select { .. }
        | Type::Pool {}
        | Type::Groups { .. } => Size::Variable,
        Type::Str { width, .. } => int_width(width).map_or(Size::Variable, Size::Fixed),
        Type::Fixed { raw, .. } => return type_size(raw, named),
        Type::Ref { width, .. } => int_width(width).map_or(Size::Variable, Size::Fixed),
        // No bytes in the record: the target starts after another one.
        Type::Follows { .. } => Size::Fixed(0),
        // A writer's choice kept in the document: no bytes at all.
        Type::SharesEqual { .. } => Size::Fixed(0),
        Type::Named(n) => named(n)?,
        Type::Array { of, len } => match type_size(of, named)? {
            Size::Fixed(e) => e.checked_mul(*len).map_or(Size::Overflow, Size::Fixed),
            other => other,
        },
        Type::Bits { word, .. } => int_width(word).map_or(Size::Variable, Size::Fixed),
        Type::Ptr(p) => int_width(&p.width).map_or(Size::Variable, Size::Fixed),
    })
}
