//! Checks for the constructs that tables of back-to-back records need
//! (AINB brought them): string pools and string references, lists inline in
//! a record, groups of lists, unions chosen by a glue function, optional
//! offsets and context fields.

use super::{at, field_hint, int_width, Checker, Place};
use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;

impl<'s> Checker<'s> {
    /// The sections that hold a string pool (the target of some offset).
    pub(super) fn pool_sections(&self) -> Vec<&'s str> {
        let mut out = Vec::new();
        for t in &self.s.types {
            if let TypeDef::Struct(st) = t {
                for f in &st.fields {
                    if let Type::Ptr(p) = &f.ty {
                        if matches!(p.to, Type::Pool {}) {
                            if let Some(sec) = p.section.as_deref() {
                                out.push(sec);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// A string reference names a section that holds a pool.
    pub(super) fn check_pool_ref(&self, cx: &mut Ctxt<'_>, tat: &[Step], item: &str, pool: &str) {
        let pools = self.pool_sections();
        if !pools.contains(&pool) {
            let hint = if pools.is_empty() {
                "declare one: an offset field `to: Pool(), section: \"strings\"`".to_owned()
            } else {
                format!("pools are in: {}", pools.join(", "))
            };
            cx.error(
                tat,
                item,
                format!("section `{pool}` holds no string pool"),
                Some(hint),
            );
        }
    }

    /// The constructs of this file, at the place `check_type` found them.
    pub(super) fn check_layout_type(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        ty: &Type,
        place: Place,
    ) {
        match ty {
            Type::Str { pool, width } => {
                if !matches!(**width, Type::U8 | Type::U16 | Type::U24 | Type::U32) {
                    cx.error(
                        &at(tat, &[Step::from("width")]),
                        item,
                        "a string reference's width must be U8, U16, U24 or U32",
                        None,
                    );
                }
                self.check_pool_ref(cx, &at(tat, &[Step::from("pool")]), item, pool);
            }
            Type::Pool {} if place != Place::Target => cx.error(
                tat,
                item,
                "a Pool can only stand behind an offset",
                Some("the offset locates the pool: `Ptr(width: U32, to: Pool(), section: \"strings\")`".into()),
            ),
            Type::Groups {
                of,
                groups,
                count,
                base,
            } => {
                if place != Place::Field {
                    cx.error(
                        tat,
                        item,
                        "Groups can only be a field of a struct",
                        None,
                    );
                }
                if *groups == 0 || *groups > 32 {
                    cx.error(
                        &at(tat, &[Step::from("groups")]),
                        item,
                        format!("Groups holds 1 to 32 groups, not {groups}"),
                        None,
                    );
                }
                for (k, t) in [("count", count), ("base", base)] {
                    if int_width(t).is_none() {
                        cx.error(
                            &at(tat, &[Step::from(k)]),
                            item,
                            format!("a group's {k} must be an unsigned integer type"),
                            None,
                        );
                    }
                }
                self.check_type(cx, &at(tat, &[Step::from("of")]), item, of, Place::Elem);
            }
            Type::Select { union, hook } => {
                if place != Place::Target {
                    cx.error(tat, item, "a Select can only stand behind an offset", None);
                }
                self.ident(cx, &at(tat, &[Step::from("hook")]), item, hook, false);
                match self.types.get(union.as_str()).map(|&i| &self.s.types[i]) {
                    Some(TypeDef::Union(_)) => {}
                    Some(TypeDef::Struct(_)) => cx.error(
                        tat,
                        item,
                        format!("`{union}` is a struct, but a Select chooses a variant of a union"),
                        None,
                    ),
                    None => cx.error(
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

    /// A list counted by `Sum` or running `ToNext` is refused where it cannot
    /// stand; `Field` counts of inline lists are checked with their struct.
    pub(super) fn check_list_count(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        count: &Count,
        place: Place,
    ) {
        let cat = at(tat, &[Step::from("count")]);
        match count {
            Count::Sum(_) if place != Place::Field => cx.error(
                &cat,
                item,
                "a Sum count adds fields of the record that holds the list, so the list must be inline (a struct field)",
                None,
            ),
            Count::Sum(paths) if paths.is_empty() => {
                cx.error(&cat, item, "a Sum count needs at least one field", None)
            }
            _ => {}
        }
    }

    /// Context fields are unsigned integers; an inline list counted by
    /// `Sum` names fields read before it.
    pub(super) fn check_inline_fields(&self, cx: &mut Ctxt<'_>, tat: &[Step], st: &StructDef) {
        for (fi, f) in st.fields.iter().enumerate() {
            let fat = at(tat, &[Step::from("fields"), Step::Index(fi)]);
            let item = format!("types/{}/fields/{fi}", st.name);
            if f.context && int_width(&f.ty).is_none() {
                cx.error(
                    &at(&fat, &[Step::from("context")]),
                    &item,
                    format!("context field `{}` must be an unsigned integer", f.name),
                    Some("Select hooks see context values as unsigned integers".into()),
                );
            }
            let Type::List { count, .. } = &f.ty else {
                continue;
            };
            let Count::Sum(paths) = &**count else {
                continue;
            };
            let cat = at(&fat, &[Step::from("type"), Step::from("count")]);
            for p in paths {
                self.check_count_path(cx, &cat, &item, st, fi, p);
            }
        }
    }

    /// A list field's count `path` names an unsigned integer read before
    /// the list (a field, or a field of an inline struct: `header.count`).
    pub(super) fn check_count_path(
        &self,
        cx: &mut Ctxt<'_>,
        cat: &[Step],
        item: &str,
        st: &StructDef,
        fi: usize,
        path: &str,
    ) {
        if let Err(msg) = self.earlier_uint(st, fi, path) {
            // Name the fields when the path names none of them.
            let first = path.split('.').next().unwrap_or(path);
            let hint = (!st.fields.iter().any(|g| g.name == first)).then(|| field_hint(first, st));
            cx.error(cat, item, msg, hint);
        }
    }

    /// `path` (`count` or `header.count`) names an unsigned integer that the
    /// struct's fields before field `fi` hold inline.
    fn earlier_uint(&self, st: &StructDef, fi: usize, path: &str) -> Result<(), String> {
        let mut parts = path.split('.');
        let first = parts.next().unwrap_or_default();
        let Some(pos) = st.fields.iter().position(|g| g.name == first) else {
            return Err(format!("count `{path}` names no field of `{}`", st.name));
        };
        if pos >= fi {
            return Err(format!(
                "count `{path}` is read after the list it counts (field {pos} of `{}`)",
                st.name
            ));
        }
        let mut ty = &st.fields[pos].ty;
        for part in parts {
            let Type::Named(n) = ty else {
                return Err(format!("`{path}`: `{part}` is not inside an inline struct"));
            };
            let Some(inner) = self.struct_def(n) else {
                return Err(format!("`{path}`: `{n}` is not a struct"));
            };
            match inner.fields.iter().find(|g| g.name == part) {
                Some(g) => ty = &g.ty,
                None => {
                    return Err(format!(
                        "`{path}`: `{part}` names no field of `{}`",
                        inner.name
                    ))
                }
            }
        }
        if int_width(ty).is_none() {
            return Err(format!("count `{path}` is not an unsigned integer"));
        }
        Ok(())
    }

    /// The pool a string bit range names exists.
    pub(super) fn check_bits_strings(
        &self,
        cx: &mut Ctxt<'_>,
        tat: &[Step],
        item: &str,
        fields: &[BitField],
    ) {
        for (i, b) in fields.iter().enumerate() {
            if let Some(pool) = &b.str {
                let bat = at(
                    tat,
                    &[Step::from("fields"), Step::Index(i), Step::from("str")],
                );
                self.check_pool_ref(cx, &bat, item, pool);
            }
        }
    }
}
