//! Semantic checks after parsing: names resolve, counts and tags pair with
//! their offsets, derived fields are computable, sizes add up. Every problem
//! is collected; nothing stops at the first.

use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;
use std::collections::{HashMap, HashSet};

const RESERVED: &[&str] = &["self", "Self", "super", "crate", "_"];

pub(crate) fn check(s: &Schema, cx: &mut Ctxt<'_>) {
    let types: HashMap<&str, usize> = s
        .types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name(), i))
        .collect();
    let sections: HashSet<&str> = s.sections.iter().map(|x| x.name.as_str()).collect();
    let c = Checker { s, types, sections };

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
    for (i, sec) in s.sections.iter().enumerate() {
        let at = [Step::from("sections"), Step::Index(i)];
        let item = format!("sections/{}", sec.name);
        if !seen.insert(sec.name.as_str()) {
            cx.error(
                &at,
                &item,
                format!("duplicate section `{}`", sec.name),
                None,
            );
        }
        for (what, v) in [("align", sec.align), ("item_align", sec.item_align)] {
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
        _ => cx.error(
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
    c.check_inline_cycles(cx);
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
}

struct Checker<'s> {
    s: &'s Schema,
    types: HashMap<&'s str, usize>,
    sections: HashSet<&'s str>,
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
                Some("names are ASCII letters, digits and `_`, starting with a letter".into()),
            );
        }
    }

    fn suggest(&self, name: &str) -> String {
        let lower = name.to_ascii_lowercase();
        let close: Vec<&str> = self
            .types
            .keys()
            .copied()
            .filter(|k| {
                let k = k.to_ascii_lowercase();
                k.contains(&lower) || lower.contains(&k)
            })
            .collect();
        if let Some(c) = close.first() {
            format!("did you mean `{c}`?")
        } else {
            let mut all: Vec<&str> = self.types.keys().copied().collect();
            all.sort_unstable();
            format!("the schema defines: {}", all.join(", "))
        }
    }

    fn check_struct(&self, cx: &mut Ctxt<'_>, tat: &[Step], st: &StructDef) {
        let sname = &st.name;
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut offset = Some(0u64);
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
            self.check_type(cx, &tyat, &item, &f.ty, Place::Field);
            if let Type::Ptr(p) = &f.ty {
                if offset.is_none() {
                    cx.error(&tyat, &item, format!("offset field `{}` follows a field of variable size", f.name),
                        Some("offsets are patched at a fixed position in their record; move variable-size fields after them".into()));
                }
                self.check_ptr_pairing(cx, &tyat, &item, st, f, p);
            }
            if let Some(d) = &f.derive {
                self.check_derive(cx, &at(&fat, &[Step::from("derive")]), &item, st, f, d);
            }
            offset = match (offset, self.fixed_size(&f.ty)) {
                (Some(o), Some(n)) => Some(o + n),
                _ => None,
            };
        }
        if let Some(size) = st.size {
            match offset {
                Some(o) if o == size => {}
                Some(o) => cx.error(
                    &at(tat, &[Step::from("size")]),
                    format!("types/{sname}"),
                    format!("`{sname}` declares size 0x{size:x}, but its fields add up to 0x{o:x}"),
                    None,
                ),
                None => cx.error(
                    &at(tat, &[Step::from("size")]),
                    format!("types/{sname}"),
                    format!("`{sname}` declares size 0x{size:x}, but has fields of variable size"),
                    None,
                ),
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
                    "a union's tag must be an unsigned integer type (U8, U16, U24, U32)",
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
        let mut names = HashSet::new();
        let mut tags = HashMap::new();
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
                if !self.sections.contains(sec.as_str()) {
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
            self.check_type(
                cx,
                &at(&vat, &[Step::from("type")]),
                &vitem,
                &v.ty,
                Place::Payload,
            );
        }
    }

    fn section_list(&self) -> String {
        let mut v: Vec<&str> = self.s.sections.iter().map(|s| s.name.as_str()).collect();
        if v.is_empty() {
            return "the schema declares no sections".into();
        }
        v.dedup();
        format!("sections are: {}", v.join(", "))
    }

    fn check_type(&self, cx: &mut Ctxt<'_>, tat: &[Step], item: &str, ty: &Type, place: Place) {
        match ty {
            Type::Magic(m) => {
                if m.is_empty() || m.len() > 16 || !m.is_ascii() {
                    cx.error(
                        tat,
                        item,
                        format!("bad magic literal {m:?}"),
                        Some("a magic is 1 to 16 ASCII characters, such as \"AAMP\"".into()),
                    );
                }
            }
            Type::Bytes(n) if *n == 0 || *n > 1 << 20 => cx.error(
                tat,
                item,
                format!("Bytes({n}) must hold 1 to 1048576 bytes"),
                None,
            ),
            Type::CString { max, pad } => {
                if place == Place::Elem {
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
                Some(TypeDef::Union(_)) => cx.error(
                    tat,
                    item,
                    format!("union `{n}` must be reached through a Switch on a tag field"),
                    Some(format!(
                        "write `Ptr(..., to: Switch(union: \"{n}\", tag: \"...\"))`"
                    )),
                ),
                Some(TypeDef::Struct(_)) => {
                    if place == Place::Elem && self.fixed_size(ty).is_none() {
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
                self.check_type(cx, &at(tat, &[Step::from("of")]), item, of, Place::Elem);
            }
            Type::Bits { word, fields } => {
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
                if place != Place::Field {
                    cx.error(tat, item, "an offset can only be a field of a struct (not an element, a target or a payload)", None);
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
                    if !self.sections.contains(sec.as_str()) {
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
                if !matches!(place, Place::Target | Place::Payload) {
                    cx.error(
                        tat,
                        item,
                        "a List can only stand behind an offset or as a union payload",
                        None,
                    );
                }
                self.check_type(cx, &at(tat, &[Step::from("of")]), item, of, Place::Elem);
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
                }
            }
            Type::Switch { union, .. } => {
                if place != Place::Target {
                    cx.error(tat, item, "a Switch can only stand behind an offset", None);
                }
                match self.types.get(union.as_str()).map(|&i| &self.s.types[i]) {
                    Some(TypeDef::Union(_)) => {}
                    _ => cx.error(
                        tat,
                        item,
                        format!("`{union}` is not a union of this schema"),
                        Some(self.suggest(union)),
                    ),
                }
            }
            _ => {}
        }
    }

    fn check_ptr_pairing(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        p: &Ptr,
    ) {
        let sibling = |n: &str| st.fields.iter().find(|g| g.name == n);
        match &p.to {
            Type::List { count, .. } if matches!(&**count, Count::Field(_)) => {
                let Count::Field(n) = &**count else { return };
                match sibling(n) {
                    None => cx.error(
                        &at(tat, &[Step::from("to")]),
                        item,
                        format!("count `{n}` names no field of `{}`", st.name),
                        Some(format!(
                            "fields are: {}",
                            st.fields
                                .iter()
                                .map(|g| g.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    ),
                    Some(g) => {
                        if int_width(&g.ty).is_none() {
                            cx.error(
                                tat,
                                item,
                                format!("count field `{n}` is not an unsigned integer"),
                                None,
                            );
                        } else if g.derive != Some(Derive::Count(f.name.clone())) {
                            cx.error(
                                tat,
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
            Type::Switch { tag, .. } => match sibling(tag) {
                None => cx.error(
                    &at(tat, &[Step::from("to")]),
                    item,
                    format!("tag `{tag}` names no field of `{}`", st.name),
                    None,
                ),
                Some(g) => {
                    if int_width(&g.ty).is_none() {
                        cx.error(
                            tat,
                            item,
                            format!("tag field `{tag}` is not an unsigned integer"),
                            None,
                        );
                    } else if g.derive != Some(Derive::Tag(f.name.clone())) {
                        cx.error(
                            tat,
                            item,
                            format!("tag field `{tag}` must be derived from `{}`", f.name),
                            Some(format!(
                                "add `derive: Tag(\"{}\")` to field `{tag}`",
                                f.name
                            )),
                        );
                    }
                }
            },
            _ => {}
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
        if int_width(&f.ty).is_none() {
            cx.error(
                dat,
                item,
                format!("derived field `{}` must be an unsigned integer", f.name),
                None,
            );
        }
        let sibling = |n: &str| st.fields.iter().find(|g| g.name == n);
        let root_only = |cx: &mut Ctxt<'_>, what: &str| {
            if st.name != self.s.root {
                cx.error(
                    dat,
                    item,
                    format!(
                        "{what} can only be derived in the root struct `{}`",
                        self.s.root
                    ),
                    None,
                );
            }
        };
        match d {
            Derive::Count(n) => match sibling(n).map(|g| &g.ty) {
                Some(Type::Ptr(p)) if matches!(&p.to, Type::List { count, .. } if matches!(&**count, Count::Field(c) if c == &f.name)) =>
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
                Some(Type::Ptr(p)) if matches!(&p.to, Type::Switch { tag, .. } if tag == &f.name) =>
                    {}
                _ => cx.error(
                    dat,
                    item,
                    format!("`{n}` is not an offset to a union tagged by `{}`", f.name),
                    None,
                ),
            },
            Derive::FileSize => root_only(cx, "the file size"),
            Derive::RecordCount(t) => {
                root_only(cx, "a record count");
                if !self.types.contains_key(t.as_str()) {
                    cx.error(
                        dat,
                        item,
                        format!("unknown type `{t}`"),
                        Some(self.suggest(t)),
                    );
                }
            }
            Derive::SectionSize(sec) => {
                root_only(cx, "a section size");
                if !self.sections.contains(sec.as_str()) {
                    cx.error(
                        dat,
                        item,
                        format!("unknown section `{sec}`"),
                        Some(self.section_list()),
                    );
                }
            }
        }
    }

    /// A struct that contains itself inline (not through an offset) has no size.
    fn check_inline_cycles(&self, cx: &mut Ctxt<'_>) {
        fn inline_refs<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
            match t {
                Type::Named(n) => out.push(n),
                Type::Array { of, .. } => inline_refs(of, out),
                _ => {}
            }
        }
        for (ti, t) in self.s.types.iter().enumerate() {
            let mut stack = vec![t.name()];
            let mut visited = HashSet::new();
            let mut found = false;
            while let Some(n) = stack.pop() {
                let Some(&i) = self.types.get(n) else {
                    continue;
                };
                let mut refs = Vec::new();
                match &self.s.types[i] {
                    TypeDef::Struct(s) => {
                        s.fields.iter().for_each(|f| inline_refs(&f.ty, &mut refs))
                    }
                    TypeDef::Union(u) => u
                        .variants
                        .iter()
                        .for_each(|v| inline_refs(&v.ty, &mut refs)),
                }
                for r in refs {
                    if r == t.name() {
                        found = true;
                    } else if visited.insert(r) {
                        stack.push(r);
                    }
                }
            }
            if found {
                cx.error(
                    &[Step::from("types"), Step::Index(ti)],
                    format!("types/{}", t.name()),
                    format!(
                        "`{}` contains itself inline, so it would have no finite size",
                        t.name()
                    ),
                    Some("reach it through an offset (`Ptr`) instead".into()),
                );
            }
        }
    }

    pub fn fixed_size(&self, t: &Type) -> Option<u64> {
        fixed_size_in(self.s, &self.types, t, 0)
    }
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

pub(crate) fn fixed_size_in(
    s: &Schema,
    types: &HashMap<&str, usize>,
    t: &Type,
    depth: u32,
) -> Option<u64> {
    if depth > 64 {
        return None;
    }
    Some(match t {
        Type::U8 | Type::I8 | Type::Bool8 => 1,
        Type::U16 | Type::I16 => 2,
        Type::U24 => 3,
        Type::U32 | Type::I32 | Type::F32 | Type::Bool32 => 4,
        Type::U64 | Type::I64 | Type::F64 => 8,
        Type::Magic(m) => m.len() as u64,
        Type::Bytes(n) => *n,
        Type::CString { .. } => return None,
        Type::Named(n) => match &s.types[*types.get(n.as_str())?] {
            TypeDef::Struct(st) => {
                let mut total = 0;
                for f in &st.fields {
                    total += fixed_size_in(s, types, &f.ty, depth + 1)?;
                }
                total
            }
            TypeDef::Union(_) => return None,
        },
        Type::Array { of, len } => fixed_size_in(s, types, of, depth + 1)?.checked_mul(*len)?,
        Type::Bits { word, .. } => int_width(word)?,
        Type::Ptr(p) => int_width(&p.width)?,
        Type::List { .. } | Type::Switch { .. } => return None,
    })
}
