//! The schema language's front end: RON → model → checked IR.
//!
//! `codec-derive` emits Rust from the [`Checked`] IR; the dump, coverage and
//! docs tools read the same IR at run time. The semantics live here, not in
//! the proc-macro.

mod check;
pub mod diag;
pub mod locate;
pub mod model;

pub use check::int_width;
pub use diag::{Diagnostic, Diagnostics};
pub use model::*;

use locate::{Locations, Pos};
use std::collections::HashMap;
use std::path::Path;

/// A schema that passed every check, with the facts codegen and the
/// run-time tools need precomputed.
#[derive(Debug, Clone)]
pub struct Checked {
    pub schema: Schema,
    type_index: HashMap<String, usize>,
    section_index: HashMap<String, usize>,
    /// `reaches[type][section]`: can a value of this type lead (through
    /// fields and offsets) to something placed in that section?
    reaches: Vec<Vec<bool>>,
}

/// Parses and checks schema text. `file` is the name diagnostics print.
pub fn parse_str(src: &str, file: &str) -> Result<Checked, Diagnostics> {
    let opts = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let schema: Schema = match opts.from_str(src) {
        Ok(s) => s,
        Err(e) => {
            let pos = Pos {
                line: e.span.start.line,
                col: e.span.start.col,
            };
            return Err(Diagnostics {
                file: file.to_owned(),
                items: vec![Diagnostic {
                    item: String::new(),
                    pos,
                    message: format!("RON syntax: {}", e.code),
                    hint: None,
                }],
            });
        }
    };
    let locs = Locations::scan(src);
    let mut cx = diag::Ctxt::new(&locs);
    check::check(&schema, &mut cx);
    let items = cx.finish();
    if !items.is_empty() {
        return Err(Diagnostics {
            file: file.to_owned(),
            items,
        });
    }
    Ok(Checked::new(schema))
}

/// Reads, parses and checks a schema file; `display` is the name diagnostics print.
pub fn load(path: &Path, display: &str) -> Result<Checked, Diagnostics> {
    match std::fs::read_to_string(path) {
        Ok(src) => parse_str(&src, display),
        Err(e) => Err(Diagnostics {
            file: display.to_owned(),
            items: vec![Diagnostic {
                item: String::new(),
                pos: Pos { line: 1, col: 1 },
                message: format!("cannot read the schema file: {e}"),
                hint: None,
            }],
        }),
    }
}

impl Checked {
    fn new(schema: Schema) -> Self {
        let type_index = schema
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        let section_index = schema
            .sections
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        let mut c = Checked {
            schema,
            type_index,
            section_index,
            reaches: Vec::new(),
        };
        c.reaches = c.compute_reaches();
        c
    }

    pub fn type_id(&self, name: &str) -> Option<usize> {
        self.type_index.get(name).copied()
    }

    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.type_id(name).map(|i| &self.schema.types[i])
    }

    pub fn section_id(&self, name: &str) -> Option<usize> {
        self.section_index.get(name).copied()
    }

    pub fn root(&self) -> &StructDef {
        match self.get(&self.schema.root) {
            Some(TypeDef::Struct(s)) => s,
            _ => unreachable!("checked: the root is a struct"),
        }
    }

    /// The size of a type when it does not depend on the data.
    pub fn fixed_size(&self, t: &Type) -> Option<u64> {
        let types: HashMap<&str, usize> = self
            .type_index
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        check::fixed_size_in(&self.schema, &types, t, 0)
    }

    /// Offsets of a struct's fields, as far as they are fixed.
    pub fn field_offsets(&self, st: &StructDef) -> Vec<Option<u64>> {
        let mut out = Vec::with_capacity(st.fields.len());
        let mut o = Some(0u64);
        for f in &st.fields {
            out.push(o);
            o = match (o, self.fixed_size(&f.ty)) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
        }
        out
    }

    /// Is the field kept in the typed value (not magic, not derived)?
    pub fn is_stored(f: &Field) -> bool {
        f.derive.is_none() && !matches!(f.ty, Type::Magic(_))
    }

    /// The sections a pointer's target can be placed in.
    pub fn target_sections(&self, p: &Ptr) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(s) = p.section.as_deref().and_then(|s| self.section_id(s)) {
            out.push(s);
        }
        if let Type::Switch { union, .. } = &p.to {
            if let Some(TypeDef::Union(u)) = self.get(union) {
                for v in &u.variants {
                    if let Some(s) = v.section.as_deref().and_then(|s| self.section_id(s)) {
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                }
            }
        }
        out
    }

    /// Can a value of type `type_id` lead to something placed in `section`?
    pub fn reaches(&self, type_id: usize, section: usize) -> bool {
        self.reaches
            .get(type_id)
            .and_then(|r| r.get(section))
            .copied()
            .unwrap_or(false)
    }

    /// Can a value of this field type lead to something placed in `section`?
    pub fn type_reaches(&self, t: &Type, section: usize) -> bool {
        match t {
            Type::Named(n) => self.type_id(n).is_some_and(|i| self.reaches(i, section)),
            Type::Array { of, .. } => self.type_reaches(of, section),
            Type::Ptr(p) => {
                self.target_sections(p).contains(&section) || self.type_reaches(&p.to, section)
            }
            Type::List { of, .. } => self.type_reaches(of, section),
            _ => false,
        }
    }

    fn compute_reaches(&mut self) -> Vec<Vec<bool>> {
        let n = self.schema.types.len();
        let m = self.schema.sections.len();
        self.reaches = vec![vec![false; m]; n];
        // Fixed point over the type graph.
        loop {
            let mut changed = false;
            for ti in 0..n {
                for si in 0..m {
                    if self.reaches[ti][si] {
                        continue;
                    }
                    let r = match &self.schema.types[ti] {
                        TypeDef::Struct(st) => {
                            st.fields.iter().any(|f| self.type_reaches(&f.ty, si))
                        }
                        TypeDef::Union(u) => {
                            u.variants.iter().any(|v| self.type_reaches(&v.ty, si))
                        }
                    };
                    if r {
                        self.reaches[ti][si] = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        std::mem::take(&mut self.reaches)
    }
}
