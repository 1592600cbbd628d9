//! Checks of tags held by a list's holder: a `Switch` in a list's element
//! written `tag: "types[i]"`, and the holder's `derive: Tags("list.field")`
//! that stores them (see `codec_runtime::held`).

use super::{field_hint, Checker, Size};
use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;

impl Checker<'_> {
    /// `derive: Tags(of)` on field `f` of `st`: `of` names a sibling list of
    /// `Switch` words, or `list.field`, a sibling list of records whose
    /// `Switch` field `field` takes its tag from `f`.
    pub(super) fn check_tags(
        &self,
        cx: &mut Ctxt<'_>,
        dat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        of: &str,
    ) {
        let (list, field) = tags_source(of);
        let Some((li, g)) = st.fields.iter().enumerate().find(|(_, g)| g.name == list) else {
            self.no_field(cx, dat, item, list, st);
            return;
        };
        let Type::List { of: elem, count } = &g.ty else {
            cx.error(
                dat,
                item,
                format!("`{list}` is not a list, so it has no elements to tag"),
                None,
            );
            return;
        };
        let Some(vf) = field else {
            if !matches!(**elem, Type::Switch { .. }) {
                cx.error(
                    dat,
                    item,
                    format!("`{list}` is not a list of Switch values"),
                    Some(format!(
                        "for the Switch field of records, write `Tags(\"{list}.<field>\")`"
                    )),
                );
            }
            return;
        };
        let named = match &**elem {
            Type::Named(n) => match self.types.get(n.as_str()).map(|&i| &self.s.types[i]) {
                Some(TypeDef::Struct(es)) => Some(es),
                _ => None,
            },
            _ => None,
        };
        let Some(es) = named else {
            cx.error(
                dat,
                item,
                format!("`{list}` is not a list of records, so `{of}` names nothing"),
                None,
            );
            return;
        };
        let held = format!("{}[i]", f.name);
        match es.fields.iter().find(|h| h.name == vf).map(|h| &h.ty) {
            None => cx.error(
                dat,
                item,
                format!("`{vf}` names no field of `{}`", es.name),
                Some(field_hint(vf, es)),
            ),
            Some(Type::Switch { tag, .. }) if *tag == held => {}
            Some(_) => cx.error(
                dat,
                item,
                format!(
                    "`{}.{vf}` must be a Switch that takes its tag from this list",
                    es.name
                ),
                Some(format!(
                    "write `type: Switch(union: \"...\", tag: \"{held}\")` there"
                )),
            ),
        }
        if !matches!(&f.ty, Type::List { count: c, .. } if c == count) {
            cx.error(
                dat,
                item,
                format!(
                    "`{}` must have the count of `{list}`, one tag per element",
                    f.name
                ),
                None,
            );
        }
        if self.size(elem) == Size::Variable {
            cx.error(
                dat,
                item,
                format!("the elements of `{list}` must have a fixed size, so that decode finds the tags after them"),
                None,
            );
        }
        if g.visit == Visit::Document {
            cx.error(
                dat,
                item,
                format!("`{list}` cannot keep its document order (`visit: Document`) while its elements' tags are held"),
                Some("decode recovers that order from where the targets lie, which needs each element's tag in the element; drop `visit`".into()),
            );
        }
        let fi = st.fields.iter().position(|h| h.name == f.name).unwrap_or(0);
        if fi != li + 1 {
            cx.error(
                dat,
                item,
                format!("`{}` must directly follow `{list}`", f.name),
                Some("decode reads the tags before the elements, at the end of the list; only `align` may stand between them".into()),
            );
        }
    }

    /// A `Switch` field written `tag: "types[i]"`: its record is an element
    /// of lists only, and every such list's holder derives `types` from it.
    pub(super) fn check_held_switch(
        &self,
        cx: &mut Ctxt<'_>,
        tyat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
        list: &str,
    ) {
        let want = format!("{{list}}.{}", f.name);
        let mut holders = 0;
        for t in &self.s.types {
            let TypeDef::Struct(h) = t else { continue };
            for g in &h.fields {
                let elem_of_list = matches!(&g.ty, Type::List { of, .. } if matches!(&**of, Type::Named(n) if *n == st.name));
                let elsewhere = !elem_of_list && refers_to(&g.ty, &st.name);
                if elsewhere {
                    cx.error(
                        tyat,
                        item,
                        format!("`{}` takes its tag from the list that holds it, but `{}.{}` holds it outside a list", st.name, h.name, g.name),
                        None,
                    );
                }
                if !elem_of_list {
                    continue;
                }
                holders += 1;
                let derived = h.fields.iter().any(|k| {
                    k.name == list
                        && k.derive == Some(Derive::Tags(format!("{}.{}", g.name, f.name)))
                });
                if !derived {
                    cx.error(
                        tyat,
                        item,
                        format!("`{}.{}` takes its tag from `{list}[i]`, but `{}` has no field `{list}` deriving it", st.name, f.name, h.name),
                        Some(format!(
                            "add `(name: \"{list}\", type: List(of: U8, count: ...), derive: Tags(\"{}\"))` right after `{}`",
                            want.replace("{list}", &g.name),
                            g.name
                        )),
                    );
                }
            }
        }
        if holders == 0 {
            cx.error(
                tyat,
                item,
                format!(
                    "`{}` takes its tag from the list that holds it, but no list holds `{}`",
                    f.name, st.name
                ),
                None,
            );
        }
    }
}

/// Does `t` name type `name` (inline, behind an offset or as a list's element)?
fn refers_to(t: &Type, name: &str) -> bool {
    match t {
        Type::Named(n) => n == name,
        Type::Ptr(p) => refers_to(&p.to, name),
        Type::List { of, .. } | Type::Array { of, .. } | Type::Groups { of, .. } => {
            refers_to(of, name)
        }
        Type::Follows { to, .. } => refers_to(to, name),
        _ => false,
    }
}
