//! Sorted sections (`Section(sort: ...)`): what a section's values are
//! and how each reads its string, decided once here for the checker, the
//! generated encoder and the interpreter; the sorting itself is
//! `codec_runtime::sorted_values`.

use crate::{Schema, Section, SortRule, Type, TypeDef};
use codec_runtime::sorted_values::{SortedValues, ValueForm, ValueOrder};
use codec_runtime::Width;

/// The types placed in section `section`: the targets of the offsets that
/// name it, and the union variants that name it.
pub(crate) fn placed_in<'s>(s: &'s Schema, section: &str) -> Vec<&'s Type> {
    fn walk<'s>(t: &'s Type, section: &str, out: &mut Vec<&'s Type>) {
        match t {
            Type::Ptr(p) => {
                if p.section.as_deref() == Some(section) {
                    out.push(&p.to);
                }
                walk(&p.to, section, out);
            }
            Type::Array { of, .. } | Type::List { of, .. } => walk(of, section, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for t in &s.types {
        match t {
            TypeDef::Struct(st) => st
                .fields
                .iter()
                .for_each(|f| walk(&f.ty, section, &mut out)),
            TypeDef::Union(u) => {
                for v in &u.variants {
                    if v.section.as_deref() == Some(section) {
                        out.push(&v.ty);
                    }
                    walk(&v.ty, section, &mut out);
                }
            }
        }
    }
    out
}

/// How a value of type `t` holds its string, when it is one a sorted
/// section can hold.
pub(crate) fn value_form(t: &Type) -> Option<ValueForm> {
    match t {
        Type::CString {
            encoding,
            size: None,
            pad: None,
            ..
        } if encoding.unit() == 1 => Some(ValueForm::CString),
        // A string of 1-byte units: the sort reads its bytes.
        Type::PString { len, encoding, nul } if encoding.unit() == 1 => Some(ValueForm::Prefixed {
            prefix: match **len {
                Type::U8 => Width::U8,
                Type::U16 => Width::U16,
                Type::U32 => Width::U32,
                _ => return None,
            },
            nul: *nul,
        }),
        _ => None,
    }
}

/// What sorting section `sec` needs, when it is sorted and its values are
/// strings of one form (the checker says so otherwise).
pub(crate) fn sorted_values(s: &Schema, sec: &Section) -> Option<SortedValues> {
    let order = match sec.sort? {
        SortRule::Bytes => ValueOrder::Bytes,
        SortRule::ReversedBits => ValueOrder::ReversedBits,
    };
    let placed = placed_in(s, &sec.name);
    let form = value_form(placed.first()?)?;
    placed
        .iter()
        .all(|t| value_form(t) == Some(form))
        .then_some(SortedValues {
            order,
            form,
            item_align: sec.item_align,
        })
}

/// Why sorted section `sec` cannot be sorted, if it cannot.
pub(crate) fn refusal(s: &Schema, sec: &Section) -> Option<(String, String)> {
    sec.sort?;
    let placed = placed_in(s, &sec.name);
    let Some(first) = placed.first() else {
        return Some((
            format!("sorted section `{}` holds nothing", sec.name),
            "no offset names it as its target's section".into(),
        ));
    };
    if let Some(t) = placed.iter().find(|t| value_form(t).is_none()) {
        return Some((
            format!(
                "sorted section `{}` holds {}, which is not a string",
                sec.name,
                crate::docs::type_label(t)
            ),
            "a sorted section holds strings (CString or PString), laid out again in order once placed".into(),
        ));
    }
    if placed.iter().any(|t| value_form(t) != value_form(first)) {
        return Some((
            format!("sorted section `{}` holds strings of more than one form", sec.name),
            "its strings are read back by one form to be sorted: make them all CString or all PString of one length".into(),
        ));
    }
    if matches!(sec.order, crate::Order::Hook { .. }) {
        return Some((
            format!("sorted section `{}` is ordered by a hook", sec.name),
            "its values are sorted by `sort`; leave the walk's order (PreOrder)".into(),
        ));
    }
    None
}

impl crate::Checked {
    /// What sorting section `section` needs (`None`: it is not sorted).
    pub fn sorted_values(&self, section: usize) -> Option<SortedValues> {
        sorted_values(&self.schema, self.section(section))
    }
}
