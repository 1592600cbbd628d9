//! Checks of the schema language v2 placement keys where they stand: a
//! field's `external`, `sort_by` and `embedded`, an offset's `align: Kept`,
//! `base: Section` and `count: End`.

use super::{int_width, Checker};
use crate::diag::Ctxt;
use crate::locate::Step;
use crate::{Base, Count, Derive, Field, StructDef, Type, TypeDef};

impl Checker<'_> {
    pub(super) fn check_placement_keys(
        &self,
        cx: &mut Ctxt<'_>,
        fat: &[Step],
        item: &str,
        st: &StructDef,
        f: &Field,
    ) {
        if f.external.is_some() && !matches!(f.ty, Type::Bytes(_)) {
            cx.error(
                fat,
                item,
                format!(
                    "external field `{}` must be `Bytes(n)`: its size in the file",
                    f.name
                ),
                Some("write `type: Bytes(8), external: \"path::Type\"`".into()),
            );
        }
        let byte_list = |t: &Type| matches!(t, Type::List { of, .. } if **of == Type::U8);
        if f.embedded && !matches!(&f.ty, Type::Ptr(p) if byte_list(&p.to)) {
            cx.error(
                fat,
                item,
                format!(
                    "embedded field `{}` must be an offset to a list of U8: the bytes of a file",
                    f.name
                ),
                None,
            );
        }
        if let Some(by) = &f.sort_by {
            let key = match &f.ty {
                Type::List { of, .. } => match &**of {
                    Type::Named(n) => match self.types.get(n.as_str()).map(|&i| &self.s.types[i]) {
                        Some(TypeDef::Struct(es)) => es.fields.iter().find(|g| &g.name == by),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            };
            match key.and_then(|k| k.derive.as_ref()) {
                // Sorted by an interned string: by its rank in the table.
                None if matches!(key.map(|k| &k.ty), Some(Type::Index { .. })) => {}
                // Sorted by a stored number (a key hash the document holds).
                None if key.is_some_and(|k| int_width(&k.ty).is_some()) => {}
                Some(Derive::KeyHash { seed, .. }) => {
                    let stored = st
                        .fields
                        .iter()
                        .any(|g| &g.name == seed && int_width(&g.ty).is_some() && g.derive.is_none());
                    if !stored {
                        cx.error(
                            fat,
                            item,
                            format!(
                                "the sort key's seed `{seed}` must be a stored unsigned integer of `{}`, the record holding the list",
                                st.name
                            ),
                            None,
                        );
                    }
                }
                _ => cx.error(
                    fat,
                    item,
                    format!("`{}` is sorted by `{by}`, which is neither a `KeyHash`, an `Index` nor a stored unsigned integer field of its elements", f.name),
                    Some("the elements are records with a field `derive: KeyHash(hook: .., key: .., seed: ..)`, of type `Index(...)` or of an unsigned integer type".into()),
                ),
            }
        }
        if f.inline {
            let union = match &f.ty {
                Type::List { of, .. } => match &**of {
                    Type::Switch { union, .. } => Some(union.as_str()),
                    _ => None,
                },
                _ => None,
            };
            let leaves =
                union.is_some_and(|u| match self.types.get(u).map(|&i| &self.s.types[i]) {
                    Some(TypeDef::Union(ud)) => {
                        ud.variants.iter().any(crate::Checked::is_leaf_variant)
                    }
                    _ => false,
                });
            if !leaves {
                cx.error(
                    fat,
                    item,
                    format!(
                        "inline field `{}` must be a list of a union with word-sized leaves (`I32`, `U32`, `F32`, `Bool32` or a 4-byte `Magic`)",
                        f.name
                    ),
                    Some("write `type: List(of: Switch(union: .., tag: ..), ..), inline: true`".into()),
                );
            }
        }
        let Type::Ptr(p) = &f.ty else { return };
        if let Base::Section(s) = &p.base {
            if !self.s.sections.iter().any(|x| &x.name == s) {
                cx.error(
                    fat,
                    item,
                    format!("offset counts from unknown section `{s}`"),
                    None,
                );
            }
        }
        if p.align.is_some() {
            if p.optional {
                cx.error(
                    fat,
                    item,
                    "an optional offset cannot keep its target's alignment",
                    None,
                );
            }
            if !matches!(&p.base, Base::Section(s) if Some(s) == p.section.as_ref()) {
                cx.error(
                    fat,
                    item,
                    "an offset that keeps its target's alignment counts from the start of the section it places the target in",
                    Some("add `base: Section(\"<its section>\")`".into()),
                );
            }
        }
        if let Type::List { count, .. } = &p.to {
            if let Count::End(e) = &**count {
                let ok = st
                    .fields
                    .iter()
                    .any(|g| &g.name == e && g.derive == Some(Derive::End(f.name.clone())));
                if !ok {
                    cx.error(
                        fat,
                        item,
                        format!(
                            "the end of `{}` must be a sibling field with `derive: End(\"{}\")`",
                            f.name, f.name
                        ),
                        None,
                    );
                }
            }
        }
    }
}
