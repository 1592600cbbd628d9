//! Diagnostics: every mistake of a schema file at once, each with the file's
//! path, line and column, the schema path of the item and a hint.

use crate::locate::{Locations, Pos, Step};
use std::fmt;

/// One mistake in a schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where in the schema, by names: `types/ParameterList/fields/2`.
    pub item: String,
    pub pos: Pos,
    pub message: String,
    pub hint: Option<String>,
}

/// All mistakes of one schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    pub file: String,
    pub items: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.items.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{}:{}: ", self.file, d.pos.line, d.pos.col)?;
            if !d.item.is_empty() {
                write!(f, "{}: ", d.item)?;
            }
            f.write_str(&d.message)?;
            if let Some(h) = &d.hint {
                write!(f, "\n  hint: {h}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Collects diagnostics during a check; `item` names use type names where the
/// locator path uses list indices.
#[derive(Debug)]
pub(crate) struct Ctxt<'a> {
    locs: &'a Locations,
    items: Vec<Diagnostic>,
}

impl<'a> Ctxt<'a> {
    pub fn new(locs: &'a Locations) -> Self {
        Ctxt {
            locs,
            items: Vec::new(),
        }
    }

    /// Records a mistake. `at` is the locator path; `item` the readable one.
    pub fn error(
        &mut self,
        at: &[Step],
        item: impl Into<String>,
        message: impl Into<String>,
        hint: Option<String>,
    ) {
        self.items.push(Diagnostic {
            item: item.into(),
            pos: self.locs.find(at),
            message: message.into(),
            hint,
        });
    }

    pub fn finish(mut self) -> Vec<Diagnostic> {
        self.items.sort_by_key(|d| (d.pos.line, d.pos.col));
        self.items
    }
}
