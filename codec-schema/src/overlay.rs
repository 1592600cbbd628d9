//! Variants: each one an overlay on the schema as written. A variant turns
//! features on or off (fields and union variants say `when: "feature"` or
//! `when: "!feature"`), gives params other values (construct slots written
//! `Param("name")`), changes the byte order and the layout values of
//! sections, and may start from another variant (`extends`).
//!
//! Applying a variant gives a *concrete* schema: the fields and union
//! variants whose condition fails are gone, params and conditions are
//! replaced by their values, sections carry the variant's layout values.
//! Each concrete schema is checked like a schema without variants, at the
//! positions of the items as written.

use crate::diag::Ctxt;
use crate::locate::{Locations, Step};
use crate::model::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What a variant decides.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub features: HashSet<String>,
    pub params: HashMap<String, u64>,
    pub endian: Endian,
    pub sections: BTreeMap<String, SectionPatch>,
}

/// Does a feature condition (`"a"`, `"!a"`) hold?
pub fn eval_when(cond: &str, features: &HashSet<String>) -> bool {
    match cond.trim().strip_prefix('!') {
        Some(f) => !features.contains(f.trim()),
        None => features.contains(cond.trim()),
    }
}

/// The feature a condition names.
fn cond_feature(cond: &str) -> &str {
    let c = cond.trim();
    c.strip_prefix('!').unwrap_or(c).trim()
}

/// The decisions of variant `vi` (None: the schema as written, all features
/// off, every param at its default).
pub(crate) fn resolve(s: &Schema, vi: Option<usize>) -> Resolved {
    let mut chain = Vec::new();
    let mut cur = vi;
    while let Some(i) = cur {
        if chain.contains(&i) || chain.len() > s.variants.len() {
            break;
        }
        chain.push(i);
        cur = s.variants[i]
            .extends
            .as_deref()
            .and_then(|e| s.variants.iter().position(|v| v.name == e));
    }
    let mut r = Resolved {
        features: HashSet::new(),
        params: s.params.iter().map(|p| (p.name.clone(), p.value)).collect(),
        endian: s.endian,
        sections: BTreeMap::new(),
    };
    for &i in chain.iter().rev() {
        let v = &s.variants[i];
        if let Some(e) = v.endian {
            r.endian = e;
        }
        for f in &v.enable {
            r.features.insert(f.clone());
        }
        for f in &v.disable {
            r.features.remove(f);
        }
        for (k, n) in &v.params {
            r.params.insert(k.clone(), *n);
        }
        for (k, p) in &v.sections {
            let e = r.sections.entry(k.clone()).or_default();
            e.align = p.align.or(e.align);
            e.item_align = p.item_align.or(e.item_align);
            e.pad = p.pad.or(e.pad);
            e.end_align = p.end_align.or(e.end_align);
        }
    }
    r
}

fn patch_section(sec: &mut Section, r: &Resolved) {
    if let Some(p) = r.sections.get(&sec.name) {
        sec.align = p.align.unwrap_or(sec.align);
        sec.item_align = p.item_align.unwrap_or(sec.item_align);
        sec.pad = p.pad.unwrap_or(sec.pad);
        sec.end_align = p.end_align.unwrap_or(sec.end_align);
    }
}

fn resolve_type(t: &mut Type, r: &Resolved) {
    match t {
        Type::Array { of, .. } | Type::List { of, .. } => resolve_type(of, r),
        Type::Ptr(p) => resolve_type(&mut p.to, r),
        Type::Follows { to, .. } => resolve_type(to, r),
        Type::Rows { stride_align, .. } => {
            if let Num::Param(ParamRef::Param(n)) = stride_align {
                *stride_align = Num::Lit(r.params.get(n.as_str()).copied().unwrap_or(1));
            }
        }
        Type::Hash { prepend, .. } => {
            if let Flag::When(c) = prepend {
                *prepend = Flag::Lit(eval_when(c, &r.features));
            }
        }
        _ => {}
    }
}

/// The concrete schema of a variant, and the positions of its items.
pub(crate) fn concrete(s: &Schema, locs: &Locations, r: &Resolved) -> (Schema, Locations) {
    let mut out = s.clone();
    out.endian = r.endian;
    for sec in &mut out.sections {
        patch_section(sec, r);
    }
    // Per type: the written index of each kept field / union variant.
    let mut kept: HashMap<usize, Vec<usize>> = HashMap::new();
    for (ti, t) in out.types.iter_mut().enumerate() {
        let keep = |w: &Option<String>| w.as_deref().is_none_or(|c| eval_when(c, &r.features));
        match t {
            TypeDef::Struct(st) => {
                let idx: Vec<usize> = (0..st.fields.len())
                    .filter(|&i| keep(&st.fields[i].when))
                    .collect();
                let fields = std::mem::take(&mut st.fields);
                st.fields = fields
                    .into_iter()
                    .filter(|f| keep(&f.when))
                    .map(|mut f| {
                        f.when = None;
                        resolve_type(&mut f.ty, r);
                        f
                    })
                    .collect();
                if let Some(l) = &mut st.layout {
                    for sec in &mut l.sections {
                        patch_section(sec, r);
                    }
                }
                kept.insert(ti, idx);
            }
            TypeDef::Union(u) => {
                let idx: Vec<usize> = (0..u.variants.len())
                    .filter(|&i| keep(&u.variants[i].when))
                    .collect();
                let vs = std::mem::take(&mut u.variants);
                u.variants = vs
                    .into_iter()
                    .filter(|v| keep(&v.when))
                    .map(|mut v| {
                        v.when = None;
                        resolve_type(&mut v.ty, r);
                        v
                    })
                    .collect();
                kept.insert(ti, idx);
            }
        }
    }
    let locs = locs.remap(|path| {
        if let [Step::Key(t), Step::Index(ti), Step::Key(k), Step::Index(i), rest @ ..] = path {
            if t == "types" && (k == "fields" || k == "variants") {
                let idx = kept.get(ti)?;
                let ni = idx.iter().position(|x| x == i)?;
                let mut p = vec![
                    Step::Key(t.clone()),
                    Step::Index(*ti),
                    Step::Key(k.clone()),
                    Step::Index(ni),
                ];
                p.extend_from_slice(rest);
                return Some(p);
            }
        }
        Some(path.to_vec())
    });
    (out, locs)
}

/// Checks what only the schema as written can tell: the variants, features
/// and params it declares, and every condition and param it uses.
pub(crate) fn check(s: &Schema, cx: &mut Ctxt<'_>) {
    let features: HashSet<&str> = s.features.iter().map(|f| f.name.as_str()).collect();
    let params: HashSet<&str> = s.params.iter().map(|p| p.name.as_str()).collect();
    let mut seen = HashSet::new();
    for (i, f) in s.features.iter().enumerate() {
        let at = [Step::from("features"), Step::Index(i)];
        if !seen.insert(f.name.as_str()) {
            cx.error(
                &at,
                "features",
                format!("duplicate feature `{}`", f.name),
                None,
            );
        }
        ident(cx, &at, "features", &f.name);
    }
    let mut seen = HashSet::new();
    for (i, p) in s.params.iter().enumerate() {
        let at = [Step::from("params"), Step::Index(i)];
        if !seen.insert(p.name.as_str()) {
            cx.error(&at, "params", format!("duplicate param `{}`", p.name), None);
        }
        ident(cx, &at, "params", &p.name);
    }
    let all_sections: HashSet<&str> = all_sections(s)
        .into_iter()
        .map(|x| x.name.as_str())
        .collect();
    let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
    let mut seen = HashSet::new();
    for (i, v) in s.variants.iter().enumerate() {
        let at = vec![Step::from("variants"), Step::Index(i)];
        let item = format!("variants/{}", v.name);
        if !seen.insert(v.name.as_str()) {
            cx.error(&at, &item, format!("duplicate variant `{}`", v.name), None);
        }
        ident(cx, &at, &item, &v.name);
        if let Some(e) = &v.extends {
            if !names.contains(&e.as_str()) {
                cx.error(
                    &at_key(&at, "extends"),
                    &item,
                    format!("`{e}` is not a variant of this schema"),
                    Some(format!("variants are: {}", names.join(", "))),
                );
            } else {
                // A cycle never ends in the schema as written.
                let mut cur = Some(e.as_str());
                let mut steps = 0;
                while let Some(c) = cur {
                    if c == v.name || steps > s.variants.len() {
                        cx.error(
                            &at_key(&at, "extends"),
                            &item,
                            format!("variant `{}` extends itself (through `{e}`)", v.name),
                            None,
                        );
                        break;
                    }
                    steps += 1;
                    cur = s
                        .variants
                        .iter()
                        .find(|w| w.name == c)
                        .and_then(|w| w.extends.as_deref());
                }
            }
        }
        for (key, list) in [("enable", &v.enable), ("disable", &v.disable)] {
            for f in list {
                if !features.contains(f.as_str()) {
                    cx.error(
                        &at_key(&at, key),
                        &item,
                        format!("`{f}` is not a feature of this schema"),
                        Some(declared("features", &features)),
                    );
                }
            }
        }
        for k in v.params.keys() {
            if !params.contains(k.as_str()) {
                cx.error(
                    &at_key(&at, "params"),
                    &item,
                    format!("`{k}` is not a param of this schema"),
                    Some(declared("params", &params)),
                );
            }
        }
        for k in v.sections.keys() {
            if !all_sections.contains(k.as_str()) {
                cx.error(
                    &at_key(&at, "sections"),
                    &item,
                    format!("`{k}` is not a section of this schema"),
                    None,
                );
            }
        }
    }
    // Conditions and params where they are used.
    let check_cond = |cx: &mut Ctxt<'_>, at: &[Step], item: &str, c: &str| {
        let f = cond_feature(c);
        let well_formed =
            !f.is_empty() && f.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if !well_formed {
            cx.error(
                at,
                item,
                format!("`{c}` is not a feature condition"),
                Some("write a feature's name, or `!` and a feature's name".into()),
            );
        } else if !features.contains(f) {
            cx.error(
                at,
                item,
                format!("`{f}` is not a feature of this schema"),
                Some(declared("features", &features)),
            );
        }
    };
    let variant_features: Vec<HashSet<String>> = if s.variants.is_empty() {
        vec![HashSet::new()]
    } else {
        (0..s.variants.len())
            .map(|i| resolve(s, Some(i)).features)
            .collect()
    };
    for (ti, t) in s.types.iter().enumerate() {
        let tat = vec![Step::from("types"), Step::Index(ti)];
        match t {
            TypeDef::Struct(st) => {
                for (fi, f) in st.fields.iter().enumerate() {
                    let fat = [tat.clone(), vec![Step::from("fields"), Step::Index(fi)]].concat();
                    let item = format!("types/{}/fields/{fi}", st.name);
                    if let Some(c) = &f.when {
                        check_cond(cx, &at_key(&fat, "when"), &item, c);
                    }
                    uses(&f.ty, &mut |u| match u {
                        Use::Param(p) if !params.contains(p) => cx.error(
                            &at_key(&fat, "type"),
                            &item,
                            format!("`{p}` is not a param of this schema"),
                            Some(declared("params", &params)),
                        ),
                        Use::Cond(c) => check_cond(cx, &at_key(&fat, "type"), &item, c),
                        _ => {}
                    });
                }
                check_merged_fields(cx, &tat, st, &variant_features);
            }
            TypeDef::Union(u) => {
                for (vi, v) in u.variants.iter().enumerate() {
                    let vat = [tat.clone(), vec![Step::from("variants"), Step::Index(vi)]].concat();
                    let item = format!("types/{}/variants/{vi}", u.name);
                    if let Some(c) = &v.when {
                        check_cond(cx, &at_key(&vat, "when"), &item, c);
                    }
                }
            }
        }
    }
}

enum Use<'a> {
    Param(&'a str),
    Cond(&'a str),
}

fn uses<'a>(t: &'a Type, f: &mut dyn FnMut(Use<'a>)) {
    match t {
        Type::Array { of, .. } | Type::List { of, .. } => uses(of, f),
        Type::Ptr(p) => uses(&p.to, f),
        Type::Follows { to, .. } => uses(to, f),
        Type::Rows {
            stride_align: Num::Param(ParamRef::Param(p)),
            ..
        } => f(Use::Param(p)),
        Type::Hash {
            prepend: Flag::When(c),
            ..
        } => f(Use::Cond(c)),
        _ => {}
    }
}

/// Fields that share a name (one per variant) become one Rust field: they
/// must hold the same kind of value. A field that some variants lack holds
/// its default there, so its type must have one.
fn check_merged_fields(
    cx: &mut Ctxt<'_>,
    tat: &[Step],
    st: &StructDef,
    variants: &[HashSet<String>],
) {
    let mut first: HashMap<&str, (usize, String)> = HashMap::new();
    for (fi, f) in st.fields.iter().enumerate() {
        let stored = f.derive.is_none() && !matches!(f.ty, Type::Magic(_) | Type::Hash { .. });
        let shape = if stored {
            value_shape(&f.ty)
        } else {
            "-".into()
        };
        let fat = [tat.to_vec(), vec![Step::from("fields"), Step::Index(fi)]].concat();
        let item = format!("types/{}/fields/{fi}", st.name);
        match first.get(f.name.as_str()) {
            // Fields that always coexist are duplicates: reported per variant.
            Some((prev, s))
                if *s != shape && (f.when.is_some() || st.fields[*prev].when.is_some()) =>
            {
                cx.error(
                &at_key(&fat, "type"),
                &item,
                format!(
                    "field `{}` of `{}` holds a different kind of value than field {prev} of the same name",
                    f.name, st.name
                ),
                Some(format!(
                    "fields of one name are one Rust field across variants: {} here, {} there",
                    shape, s
                )),
                )
            }
            Some(_) => {}
            None => {
                first.insert(&f.name, (fi, shape.clone()));
            }
        }
        let in_some_only = f.when.is_some()
            && variants.iter().any(|feats| {
                !st.fields.iter().any(|g| {
                    g.name == f.name && g.when.as_deref().is_none_or(|c| eval_when(c, feats))
                })
            });
        if stored && in_some_only && !has_default(&f.ty) {
            cx.error(
                &at_key(&fat, "when"),
                &item,
                format!(
                    "field `{}` exists only in some variants, and its type has no default value to hold in the others",
                    f.name
                ),
                Some("give it a number, bytes (at most 32), a string or a list type, or give the other variants a field of the same name".into()),
            );
        }
    }
}

/// The kind of Rust value a field type holds (offsets hold their targets).
fn value_shape(t: &Type) -> String {
    match t {
        Type::Ptr(p) => value_shape(&p.to),
        Type::Follows { to, .. } => value_shape(to),
        Type::PString { .. } => "string".into(),
        Type::CString { lossless, .. } => {
            format!("string{}", if *lossless { " (any bytes)" } else { "" })
        }
        Type::List { of, .. } => format!("list of {}", value_shape(of)),
        Type::Array { of, len } => format!("{} × {len}", value_shape(of)),
        Type::Fixed { raw, .. } => value_shape(raw),
        Type::Ref { .. } => "reference".into(),
        Type::Rows { cells, .. } => format!("rows of {cells}"),
        Type::Switch { union, .. } | Type::Select { union, .. } => union.clone(),
        Type::Str { .. } => "string".into(),
        Type::Named(n) => n.clone(),
        Type::Bits { .. } => "bitfield".into(),
        Type::Bool8 | Type::Bool32 => "bool".into(),
        Type::U24 => "U32".into(),
        other => format!("{other:?}"),
    }
}

fn has_default(t: &Type) -> bool {
    match t {
        Type::Bytes(n) => *n <= 32,
        Type::Array { of, len } => *len <= 32 && has_default(of),
        // An optional offset holds `None` where it is absent.
        Type::Ptr(p) => p.optional || has_default(&p.to),
        Type::Follows { to, .. } => has_default(to),
        Type::Named(_) | Type::Switch { .. } | Type::Select { .. } | Type::Magic(_) => false,
        _ => true,
    }
}

fn ident(cx: &mut Ctxt<'_>, at: &[Step], item: &str, name: &str) {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        cx.error(
            at,
            item,
            format!("`{name}` is not a usable name"),
            Some("names are ASCII letters, digits and `_`, starting with a letter or `_`".into()),
        );
    }
}

fn at_key(at: &[Step], key: &str) -> Vec<Step> {
    let mut v = at.to_vec();
    v.push(Step::from(key));
    v
}

fn declared(what: &str, set: &HashSet<&str>) -> String {
    if set.is_empty() {
        return format!("the schema declares no {what}");
    }
    let mut v: Vec<&str> = set.iter().copied().collect();
    v.sort_unstable();
    format!("{what} are: {}", v.join(", "))
}

/// Every section of the schema: its own, then each unit's, in type order.
pub fn all_sections(s: &Schema) -> Vec<&Section> {
    let mut v: Vec<&Section> = s.sections.iter().collect();
    for t in &s.types {
        if let TypeDef::Struct(st) = t {
            if let Some(l) = &st.layout {
                v.extend(l.sections.iter());
            }
        }
    }
    v
}
