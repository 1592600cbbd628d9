//! The questions about trees of tagged nodes (BYML's constructs: sections
//! placed depth first, subtrees shared whole, unions held as value words)
//! that the generated encoder and the interpreter's writer both ask. Each
//! is answered here once, so the two back ends cannot disagree on which
//! record is hash-consed or which sections a value marks.

use crate::{Checked, Dedup, Order, Type, TypeDef};

impl Checked {
    /// Does some section share equal subtrees (`dedup: Shared`)?
    pub fn has_shared(&self) -> bool {
        self.all_sections().iter().any(|s| s.dedup == Dedup::Shared)
    }

    /// Is some section placed depth first (`order: DepthFirst`)?
    pub fn has_depth_first(&self) -> bool {
        self.all_sections()
            .iter()
            .any(|s| s.order == Order::DepthFirst)
    }

    /// Can a value of type `t` lead to something a depth-first section holds?
    pub fn reaches_depth_first(&self, t: &Type) -> bool {
        let secs = self.all_sections();
        (0..secs.len()).any(|si| secs[si].order == Order::DepthFirst && self.type_reaches(t, si))
    }

    /// The shared section records of type `name` are placed in (the target
    /// of an offset into one), if any.
    pub fn shared_home(&self, name: &str) -> Option<usize> {
        let mut home = None;
        let mut look = |t: &Type| {
            if let Type::Ptr(p) = t {
                if matches!(&p.to, Type::Named(n) if n == name) {
                    if let Some(si) = p.section.as_deref().and_then(|s| self.section_id(s)) {
                        if self.section(si).dedup == Dedup::Shared {
                            home = Some(si);
                        }
                    }
                }
            }
        };
        for t in &self.schema.types {
            match t {
                TypeDef::Struct(s) => s.fields.iter().for_each(|f| look(&f.ty)),
                TypeDef::Union(u) => u.variants.iter().for_each(|v| look(&v.ty)),
            }
        }
        home
    }

    /// Does type `name` get a shape of its own: a record of a shared
    /// section, whose subtree stands in its holder's shape as one number
    /// (see `codec_runtime::shared`)?
    pub fn hash_consed(&self, name: &str) -> bool {
        self.has_shared() && self.shared_home(name).is_some()
    }

    /// Is union `name` held as a value word (a `Switch` field or element),
    /// its tag stored apart?
    pub fn is_word_union(&self, name: &str) -> bool {
        let word = |t: &Type| match t {
            Type::Switch { union, .. } => union == name,
            Type::List { of, .. } => matches!(&**of, Type::Switch { union, .. } if union == name),
            _ => false,
        };
        self.schema.types.iter().any(|t| match t {
            TypeDef::Struct(s) => s.fields.iter().any(|f| word(&f.ty)),
            TypeDef::Union(_) => false,
        })
    }

    /// The sections a value of type `t` places something in by itself, not
    /// through a named type (whose own shape marks them): the targets of
    /// its offsets. What a shape marks (`Shapes::mark`) for the depth-first
    /// walks to skip subtrees by.
    pub fn direct_sections(&self, t: &Type) -> Vec<usize> {
        let mut out = match t {
            Type::Named(_) | Type::Switch { .. } => Vec::new(),
            Type::Array { of, .. } | Type::List { of, .. } | Type::Groups { of, .. } => {
                self.direct_sections(of)
            }
            Type::Ptr(p) => {
                let mut v = self.target_sections(p);
                v.extend(self.direct_sections(&p.to));
                v
            }
            _ => (0..self.all_sections().len())
                .filter(|&si| self.type_reaches(t, si))
                .collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }
}
