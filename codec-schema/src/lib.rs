//! The schema language's front end: RON → model → checked IR.
//!
//! `codec-derive` emits Rust from the [`Checked`] IR; the dump, coverage and
//! docs tools read the same IR at run time. The semantics live here, not in
//! the proc-macro.

mod check;
pub mod diag;
pub mod docs;
pub mod interp;
pub mod locate;
pub mod model;

pub use check::int_width;
pub use diag::{Diagnostic, Diagnostics};
pub use model::*;

use check::{Facts, Lookup};
use locate::{Locations, Pos, Step};
use std::collections::HashMap;
use std::path::Path;

/// A schema that passed every check, with the facts codegen and the
/// run-time tools need precomputed.
#[derive(Debug, Clone)]
pub struct Checked {
    pub schema: Schema,
    /// The file name diagnostics print.
    file: String,
    /// Where each item of the schema text starts.
    locs: Locations,
    type_index: HashMap<String, usize>,
    section_index: HashMap<String, usize>,
    /// Sizes and reachability (`reaches[type][section]`: can a value of
    /// this type lead, through fields and offsets, to something placed in
    /// that section?).
    facts: Facts,
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
    Ok(Checked::new(schema, locs, file))
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
    fn new(schema: Schema, locs: Locations, file: &str) -> Self {
        let type_index: HashMap<String, usize> = schema
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        let section_index: HashMap<String, usize> = schema
            .sections
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        let facts = Facts::compute(
            &schema,
            &|n: &str| type_index.get(n).copied(),
            &|n: &str| section_index.get(n).copied(),
        );
        Checked {
            schema,
            file: file.to_owned(),
            locs,
            type_index,
            section_index,
            facts,
        }
    }

    /// The file name diagnostics print (as given to [`parse_str`] or [`load`]).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Where the item at `path` (`["sections", 2, "order"]`) starts in the
    /// schema text, or its nearest located ancestor; for diagnostics found
    /// after the check (by codegen), rendered with [`Diagnostics`].
    pub fn position(&self, path: &[Step]) -> Pos {
        self.locs.find(path)
    }

    /// The positions of the schema text's items.
    pub fn locations(&self) -> &Locations {
        &self.locs
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

    fn type_lookup(&self) -> impl Fn(&str) -> Option<usize> + '_ {
        |n: &str| self.type_id(n)
    }

    fn section_lookup(&self) -> impl Fn(&str) -> Option<usize> + '_ {
        |n: &str| self.section_id(n)
    }

    /// The size of a type when it does not depend on the data.
    pub fn fixed_size(&self, t: &Type) -> Option<u64> {
        self.facts.size(t, &self.type_lookup()).fixed()
    }

    /// Offsets of a struct's fields, as far as they are fixed.
    pub fn field_offsets(&self, st: &StructDef) -> Vec<Option<u64>> {
        let mut out = Vec::with_capacity(st.fields.len());
        let mut o = Some(0u64);
        for f in &st.fields {
            out.push(o);
            o = match (o, self.fixed_size(&f.ty)) {
                (Some(a), Some(b)) => a.checked_add(b),
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
        let (t, s): (Lookup<'_>, Lookup<'_>) = (&self.type_lookup(), &self.section_lookup());
        check::target_sections(&self.schema, p, t, s)
    }

    /// Can a value of type `type_id` lead to something placed in `section`?
    pub fn reaches(&self, type_id: usize, section: usize) -> bool {
        self.facts.reaches(type_id, section)
    }

    /// Can a value of this field type lead to something placed in `section`?
    pub fn type_reaches(&self, t: &Type, section: usize) -> bool {
        self.facts.type_reaches(
            &self.schema,
            t,
            section,
            &self.type_lookup(),
            &self.section_lookup(),
        )
    }
}
