//! AINB as JSON: `codec to-text` / `codec from-text`.
//!
//! The shape and the names are those of the dt-12345/AINB dump
//! (`AINB.to_json()`), so that its users can read it: `Version`, `Filename`,
//! `Category`, `Commands`, `Nodes` with their `Properties`, `Parameters`
//! (`Inputs`, `Outputs`), `Plugs` by group, `Blackboard` by type,
//! `Expressions`, `Replacement Table`, `Modules`, …
//!
//! What that dump loses is kept under keys that start with `$`, so that
//! binary → JSON → binary gives the same bytes:
//!
//! - `$codec` of the file: the string pool's order (with the strings no
//!   offset uses), the query table, the attachment table and the attachment
//!   ids (nodes name their entries by index, so shared entries stay shared),
//!   the XLink action list, the blackboard's headers and file references,
//!   the transition table, the enum relocations, the EXB's memory sizes,
//!   instruction positions, signatures, constants and string pool, and the
//!   header's counts and unknown words;
//! - `$codec` of a node: its raw flag byte, query and attachment windows,
//!   attachment indices, expression count and I/O size, multi count, name
//!   hash, unknown words and the bytes after its plug table;
//! - on a parameter, `$Flag Word` when the named flags do not say all of the
//!   word; on a multi-input, `$Multi Index` (where its sources start); on a
//!   plug, `$Layout` when its layout is not the one the node type, the
//!   group, the position and the input's type give, and `$…` raw words.
//!
//! Reading JSON without a `$` key derives the fact instead, as the original
//! writer does: windows follow each other in node order, the pool is
//! written in first-use order, counts and hashes are computed (see
//! docs/ainb-design.md).

mod emit;
pub mod exb;
mod json;
pub mod names;
mod read;

pub use emit::to_json;
pub use read::from_json;

use super::schema::{File, Node, Plug};
use names::*;
use std::fmt;

/// Where a JSON document is wrong: the path of the value and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub path: String,
    pub message: String,
}

impl TextError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        TextError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TextError {}

/// Does this text look like an AINB JSON document?
pub fn looks_like_ainb_json(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{') && t.contains("\"Nodes\"") && t.contains("\"Version\"")
}

/// The type (index into `names::PARAM_TYPES`) of the input, or else the
/// output, of node `n` called `name`.
pub(crate) fn param_type(f: &File, n: &Node, name: &str) -> Option<usize> {
    let io = &f.io;
    let w = &n.params.io;
    let hit = |names: Vec<&str>, base: u32, count: u32| -> bool {
        names
            .get(base as usize..base as usize + count as usize)
            .is_some_and(|s| s.contains(&name))
    };
    fn names_of<T>(v: &Option<Vec<T>>, f: impl Fn(&T) -> &str) -> Vec<&str> {
        v.as_ref()
            .map_or_else(Vec::new, |v| v.iter().map(f).collect())
    }
    let inputs = [
        names_of(&io.int_inputs, |x| &x.name),
        names_of(&io.bool_inputs, |x| &x.name),
        names_of(&io.float_inputs, |x| &x.name),
        names_of(&io.string_inputs, |x| &x.name),
        names_of(&io.vec3_inputs, |x| &x.name),
        names_of(&io.pointer_inputs, |x| &x.name),
    ];
    if let Some(k) = (0..6).find(|&k| hit(inputs[k].clone(), w[k].input_base, w[k].input_count)) {
        return Some(k);
    }
    let outputs = [
        names_of(&io.int_outputs, |x| &x.word.name),
        names_of(&io.bool_outputs, |x| &x.word.name),
        names_of(&io.float_outputs, |x| &x.word.name),
        names_of(&io.string_outputs, |x| &x.word.name),
        names_of(&io.vec3_outputs, |x| &x.word.name),
        names_of(&io.pointer_outputs, |x| &x.word.name),
    ];
    (0..6).find(|&k| hit(outputs[k].clone(), w[k].output_base, w[k].output_count))
}

/// The layout (the `Plug` union's tag) a plug body has, from the node type,
/// the plug group, the position (the last child of a selector is its default
/// case) and the type of the input or output the plug feeds (research/ainb.md
/// §4.3). A document built without layouts gets these.
pub(crate) fn layout_of(f: &File, n: &Node, group: usize, last: bool, name: Option<&str>) -> u64 {
    let ty = n.r#type;
    let v407 = f.version >= 0x407;
    let typed = |name: Option<&str>| match name.and_then(|s| param_type(f, n, s)) {
        Some(4) => Plug::TAG_VEC3_INPUT,
        Some(3) => Plug::TAG_STRING_INPUT,
        _ => Plug::TAG_INPUT,
    };
    match group {
        3 => Plug::TAG_TRANSITION,
        2 => match ty {
            S32_SELECTOR | RANDOM_SELECTOR => Plug::TAG_CASE,
            F32_SELECTOR if last => Plug::TAG_RANGE_DEFAULT,
            F32_SELECTOR => Plug::TAG_RANGE_CASE,
            STRING_SELECTOR => Plug::TAG_STRING_CASE,
            _ if BSA_UPDATERS.contains(&n.name.as_str()) => Plug::TAG_CASE,
            _ => Plug::TAG_LINK,
        },
        4 if v407 && matches!(ty, STRING_SELECTOR | EXPRESSION | ALERT | 203) => {
            Plug::TAG_STRING_INPUT
        }
        5 if v407 && matches!(ty, S32_SELECTOR | EXPRESSION | 200) => Plug::TAG_INPUT,
        0 => match ty {
            BOOL_SELECTOR | F32_SELECTOR => Plug::TAG_INPUT,
            EXPRESSION | ALERT | 200..=205 => typed(name),
            _ => Plug::TAG_LINK,
        },
        _ => Plug::TAG_LINK,
    }
}

/// The property and I/O tables whose offset is 0 (other editors write 0 for
/// an empty table), by name (`Properties.Int`, `Inputs.Bool`, ...).
pub(crate) fn null_tables(f: &File) -> Vec<String> {
    let p = &f.properties;
    let io = &f.io;
    let props = [
        p.int.is_none(),
        p.bool.is_none(),
        p.float.is_none(),
        p.string.is_none(),
        p.vec3.is_none(),
        p.pointer.is_none(),
    ];
    let inputs = [
        io.int_inputs.is_none(),
        io.bool_inputs.is_none(),
        io.float_inputs.is_none(),
        io.string_inputs.is_none(),
        io.vec3_inputs.is_none(),
        io.pointer_inputs.is_none(),
    ];
    let outputs = [
        io.int_outputs.is_none(),
        io.bool_outputs.is_none(),
        io.float_outputs.is_none(),
        io.string_outputs.is_none(),
        io.vec3_outputs.is_none(),
        io.pointer_outputs.is_none(),
    ];
    let mut out = Vec::new();
    for (group, set) in [
        ("Properties", props),
        ("Inputs", inputs),
        ("Outputs", outputs),
    ] {
        for (k, null) in set.iter().enumerate() {
            if *null {
                out.push(format!("{group}.{}", PARAM_TYPES[k]));
            }
        }
    }
    out
}

/// Sets the tables named by [`null_tables`] to "no offset" (they must be empty).
pub(crate) fn set_null_tables(f: &mut File, names: &[String]) -> Result<(), TextError> {
    for name in names {
        let (group, ty) = name.split_once('.').unwrap_or((name, ""));
        let k = PARAM_TYPES.iter().position(|t| *t == ty);
        let p = &mut f.properties;
        let io = &mut f.io;
        let empty = match (group, k) {
            ("Properties", Some(0)) => p.int.take().is_none_or(|v| v.is_empty()),
            ("Properties", Some(1)) => p.bool.take().is_none_or(|v| v.is_empty()),
            ("Properties", Some(2)) => p.float.take().is_none_or(|v| v.is_empty()),
            ("Properties", Some(3)) => p.string.take().is_none_or(|v| v.is_empty()),
            ("Properties", Some(4)) => p.vec3.take().is_none_or(|v| v.is_empty()),
            ("Properties", Some(5)) => p.pointer.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(0)) => io.int_inputs.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(1)) => io.bool_inputs.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(2)) => io.float_inputs.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(3)) => io.string_inputs.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(4)) => io.vec3_inputs.take().is_none_or(|v| v.is_empty()),
            ("Inputs", Some(5)) => io.pointer_inputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(0)) => io.int_outputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(1)) => io.bool_outputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(2)) => io.float_outputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(3)) => io.string_outputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(4)) => io.vec3_outputs.take().is_none_or(|v| v.is_empty()),
            ("Outputs", Some(5)) => io.pointer_outputs.take().is_none_or(|v| v.is_empty()),
            _ => {
                return Err(TextError::new(
                    "$codec.Null Offsets",
                    format!("`{name}` names no table"),
                ))
            }
        };
        if !empty {
            return Err(TextError::new(
                "$codec.Null Offsets",
                format!("`{name}` has an offset of 0 but holds elements"),
            ));
        }
    }
    Ok(())
}

/// The sources of every input, type by type.
pub(crate) fn input_sources(f: &File) -> Vec<&super::schema::Source> {
    fn src<T>(
        v: &Option<Vec<T>>,
        f: impl Fn(&T) -> &super::schema::Source,
    ) -> Vec<&super::schema::Source> {
        v.as_ref()
            .map_or_else(Vec::new, |v| v.iter().map(f).collect())
    }
    let io = &f.io;
    let mut out = src(&io.int_inputs, |x| &x.source);
    out.extend(src(&io.bool_inputs, |x| &x.source));
    out.extend(src(&io.float_inputs, |x| &x.source));
    out.extend(src(&io.string_inputs, |x| &x.source));
    out.extend(src(&io.vec3_inputs, |x| &x.source));
    out.extend(src(&io.pointer_inputs, |x| &x.source));
    out
}
