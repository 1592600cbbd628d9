//! Checks for a type that holds itself: inline (no finite size), without a
//! `Vec` or `Box` between (an infinite Rust type), or in every value, through
//! offsets that cannot be absent (no file can end). Each is a question of
//! the type graph's strongly connected components, found once in linear
//! time: asked type by type with a walk each, the checker took time
//! quadratic in the schema (issue 70: a chain of 8,000 records, 12.5 s), and
//! a schema is input like any file.

use super::{unboxed_refs, Checker};
use crate::diag::Ctxt;
use crate::locate::Step;
use crate::model::*;

/// The strongly connected component of each node of a graph given by its
/// edges (Tarjan's algorithm on a stack of its own, so a chain as long as a
/// schema likes takes no native stack); two nodes share a component number
/// when each reaches the other.
pub(super) fn components(edges: &[Vec<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack = Vec::new();
    let (mut next_index, mut next_comp) = (0, 0);
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, the next edge of it to follow)
        let mut calls = vec![(root, 0usize)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            if let Some(&w) = edges[v].get(*e) {
                *e += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

/// Is node `i` on a cycle: in a component with another node, or its own edge?
fn on_cycle(edges: &[Vec<usize>], comp: &[usize], i: usize) -> bool {
    // Its own edge, or (a component of two or more) an edge that stays inside.
    edges[i].iter().any(|&w| comp[w] == comp[i])
}

/// The types a value of `t` holds inline: named fields and arrays of them.
fn inline_refs<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
    match t {
        Type::Named(n) => out.push(n),
        Type::Array { of, .. } => inline_refs(of, out),
        _ => {}
    }
}

/// The structs every value of `t` holds, whatever the file: inline fields,
/// arrays of at least one element, and the targets of offsets that are
/// never absent. A list, an optional offset or a union's variant may hold
/// none, and ends a chain.
fn always_refs<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
    match t {
        Type::Named(n) => out.push(n),
        Type::Array { of, len } if *len > 0 => always_refs(of, out),
        Type::Ptr(p) if !p.optional => always_refs(&p.to, out),
        Type::Follows { to, .. } => always_refs(to, out),
        _ => {}
    }
}

impl<'s> Checker<'s> {
    /// The edges of the type graph `refs` draws from each type's fields
    /// and variants (`struct_only`: from structs' fields alone).
    fn graph(&self, struct_only: bool, refs: fn(&'s Type, &mut Vec<&'s str>)) -> Vec<Vec<usize>> {
        self.s
            .types
            .iter()
            .map(|t| {
                let mut names = Vec::new();
                match t {
                    TypeDef::Struct(s) => s.fields.iter().for_each(|f| refs(&f.ty, &mut names)),
                    TypeDef::Union(u) if !struct_only => {
                        u.variants.iter().for_each(|v| refs(&v.ty, &mut names))
                    }
                    TypeDef::Union(_) => {}
                }
                let mut out: Vec<usize> = names
                    .into_iter()
                    .filter_map(|n| self.types.get(n).copied())
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect()
    }

    /// Every check of a type that holds itself, each type named once: by
    /// the first of them that finds it.
    pub(super) fn check_cycles(&self, cx: &mut Ctxt<'_>) {
        let mut flagged = self.check_inline_cycles(cx);
        for ti in self.check_offset_array_cycles(cx) {
            flagged[ti] = true;
        }
        self.check_endless(cx, &flagged);
    }

    /// A struct that contains itself inline (not through an offset) has no
    /// size; returns the types found.
    fn check_inline_cycles(&self, cx: &mut Ctxt<'_>) -> Vec<bool> {
        let inline = self.graph(false, inline_refs);
        let comp = components(&inline);
        let mut inline_cycle = vec![false; inline.len()];
        for (ti, t) in self.s.types.iter().enumerate() {
            if !on_cycle(&inline, &comp, ti) {
                continue;
            }
            inline_cycle[ti] = true;
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
        inline_cycle
    }

    /// A struct that holds itself in every value, through offsets that are
    /// never absent, has no end: no file, however long, holds one (unless
    /// `flagged` already names it).
    fn check_endless(&self, cx: &mut Ctxt<'_>, flagged: &[bool]) {
        let always = self.graph(true, always_refs);
        let comp = components(&always);
        // A loop one of whose types is already named is not named again.
        let named: std::collections::HashSet<usize> = (0..comp.len())
            .filter(|&ti| flagged[ti])
            .map(|ti| comp[ti])
            .collect();
        for (ti, t) in self.s.types.iter().enumerate() {
            let TypeDef::Struct(st) = t else { continue };
            if named.contains(&comp[ti]) || !on_cycle(&always, &comp, ti) {
                continue;
            }
            // The field that leads around the loop, for the message.
            let via = st.fields.iter().position(|f| {
                let mut names = Vec::new();
                always_refs(&f.ty, &mut names);
                names
                    .iter()
                    .filter_map(|n| self.types.get(n))
                    .any(|&w| comp[w] == comp[ti])
            });
            let (at, field) = match via {
                Some(fi) => (
                    vec![
                        Step::from("types"),
                        Step::Index(ti),
                        Step::from("fields"),
                        Step::Index(fi),
                    ],
                    format!(" through `{}.{}`", st.name, st.fields[fi].name),
                ),
                None => (vec![Step::from("types"), Step::Index(ti)], String::new()),
            };
            cx.error(
                &at,
                format!("types/{}", st.name),
                format!(
                    "every `{}` holds another `{}`{field}, so no file can end: decoding would follow it forever",
                    st.name, st.name
                ),
                Some(
                    "end the chain: make the offset `optional: true` (a stored 0 is no target), \
                     or hold the records in a `List`"
                        .into(),
                ),
            );
        }
    }

    /// An offset to an inline array of structs that hold the offset's own
    /// struct again, with no `Vec` or `Box` in between (inline fields, other
    /// offsets to inline arrays), makes the generated Rust type infinite;
    /// returns the types found.
    fn check_offset_array_cycles(&self, cx: &mut Ctxt<'_>) -> Vec<usize> {
        let unboxed = self.graph(true, unboxed_refs);
        let comp = components(&unboxed);
        let mut found = Vec::new();
        for (ti, t) in self.s.types.iter().enumerate() {
            let TypeDef::Struct(st) = t else { continue };
            for (fi, f) in st.fields.iter().enumerate() {
                let Type::Ptr(p) = &f.ty else { continue };
                if !matches!(p.to, Type::Array { .. }) {
                    continue;
                }
                let mut targets = Vec::new();
                unboxed_refs(&p.to, &mut targets);
                // The target reaches this struct again exactly when the two
                // share a component: this field leads from one to the other.
                let Some(target) = targets.into_iter().find(|t| {
                    *t == st.name.as_str()
                        || self.types.get(t).is_some_and(|&w| {
                            matches!(self.s.types[w], TypeDef::Struct(_)) && comp[w] == comp[ti]
                        })
                }) else {
                    continue;
                };
                found.push(ti);
                let what = if target == st.name {
                    format!("`{}` itself", st.name)
                } else {
                    format!("`{target}`, which holds `{}` again", st.name)
                };
                cx.error(
                    &[
                        Step::from("types"),
                        Step::Index(ti),
                        Step::from("fields"),
                        Step::Index(fi),
                        Step::from("type"),
                        Step::from("to"),
                    ],
                    format!("types/{}/fields/{fi}", st.name),
                    format!(
                        "offset `{}.{}` points to an inline array of {what}: the generated Rust type would be infinitely large",
                        st.name, f.name
                    ),
                    Some(format!(
                        "use a List, whose elements are kept in a Vec: `to: List(of: Named(\"{target}\"), count: ...)`"
                    )),
                );
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_join_exactly_the_nodes_that_reach_each_other() {
        // 0 -> 1 -> 2 -> 0 is a loop; 3 -> 0 leads into it; 4 loops on itself.
        let edges = vec![vec![1], vec![2], vec![0], vec![0], vec![4]];
        let c = components(&edges);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[3], c[0]);
        assert_ne!(c[4], c[0]);
        assert_ne!(c[4], c[3]);
    }

    #[test]
    fn a_long_chain_takes_no_native_stack() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        let c = components(&edges);
        assert!(c.iter().all(|&x| x == c[0]));
    }
}
