//! AAMP as YAML, in the dialect modders already use (oead's, also read and
//! written by roead).
//!
//! ```yaml
//! !io
//! version: 0
//! type: xml
//! param_root: !list
//!   objects:
//!     General: !obj
//!       Life: 40
//!       Speed: 1.5
//!       Mask: !u 255
//!       Model: !str64 Enemy_Bokoblin
//!       Pos: !vec3 [1.0, 2.0, 0.800000012]
//!   lists: {}
//! ```
//!
//! # The dialect
//!
//! - The root is a mapping tagged `!io` with `version`, `type` and
//!   `param_root`. Every list is a mapping tagged `!list` with `objects` (a
//!   mapping of name to `!obj`) then `lists` (name to `!list`); an empty
//!   mapping is `{}`. An `!obj` maps names to values.
//! - Values: `true`/`false` (Bool), a plain float (F32), a plain integer
//!   (Int), `!u N` (U32), `!vec2`/`!vec3`/`!vec4`/`!color`/`!quat` followed by
//!   a flow sequence of floats, `!str32`/`!str64`/`!str256` strings, an
//!   untagged string (StringRef), `!curve` with 32 numbers per curve (two
//!   integers, then 30 floats; 1 to 4 curves), `!buffer_int`,
//!   `!buffer_f32`, `!buffer_u32`, `!buffer_binary` sequences.
//! - Keys are names, or the bare decimal hash when no name is known. On
//!   reading, a bare (plain, unquoted) integer key is the hash itself; any
//!   other key — a quoted number too — is hashed with CRC32.
//! - Floats are written as oead writes them (printf `%.9g`, plus `.0` when
//!   there is neither a `.` nor an exponent): every f32 reads back to the
//!   same bits, `-0.0` included. Infinities are `.inf`/`-.inf` and NaN
//!   `.nan`; a NaN with other bits is `!f32 0xXXXXXXXX` (its bits), so that it
//!   survives too. (oead writes `inf.0` and `nan.0`, which it reads back as
//!   strings.)
//! - Strings are quoted only when needed, as libyaml decides, and untagged
//!   strings also when they would read back as something else (`'123'`,
//!   `'true'`, `''`).
//!
//! Reading also accepts roead's variant (hex `!u 0x309`, hex items in
//! `!buffer_u32` and `!buffer_binary`, floats widened to f64: they are parsed
//! as f64, then rounded to f32), flow or block layout, any order of the
//! `!io` and `!list` keys, missing `objects`/`lists` (empty), `!f32`, and the
//! core tags `!!str`, `!!int`, `!!float`, `!!bool`. Plain scalars resolve as
//! in oead: `true`/`false`; an integer in C's base-0 syntax (decimal, `0x`
//! hex, leading-`0` octal); a float (with a `.` or an exponent, or `.inf`,
//! `-.inf`, `.nan`); `null` (an error as a value); anything else is a
//! string. An empty value (`key:`) is an empty string; a tagged string with
//! no value (`!str64` alone, YAML's null) or `''` is an empty string, and
//! otherwise a tagged string's text is taken literally (`!str32 null` is the
//! four letters).
//!
//! **Repeated keys** are kept, in order, as separate entries: a binary file
//! may repeat a name, its text repeats the key, and reading it back gives
//! the same file. (oead keeps only the first.)
//!
//! Errors name the line and column (1-based) and what was expected: an
//! unknown tag, a curve or vector of the wrong length, a number out of range
//! (Int, U32, buffer items, f32 overflow), a string too long for its
//! capacity (31, 63 or 255 bytes), a missing `!io` key.

mod emit;
mod parse;
mod tags;

pub use crate::yaml::number::{needs_quotes, resolve_plain, Plain};
pub use crate::yaml::TextError;

use super::names::NameTable;
use super::ParameterIO;

/// Writes `pio` as YAML, recovering key names from `names`, the document's
/// own strings and the guessing rules (see [`super::names`]).
///
/// ```
/// use formats::aamp::{names::NameTable, text, ParameterIO, ParameterObject, ParameterValue};
/// let mut pio = ParameterIO::new("xml");
/// pio.root.objects.push(ParameterObject::new("General").with("Speed", ParameterValue::F32(0.8)));
/// let mut names = NameTable::new();
/// names.add_names("General\nSpeed\n");
/// let yaml = text::to_yaml(&pio, &names);
/// assert_eq!(yaml, "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    \
///                   General: !obj\n      Speed: 0.800000012\n  lists: {}\n");
/// assert_eq!(text::from_yaml(&yaml).unwrap(), pio);
/// ```
pub fn to_yaml(pio: &ParameterIO, names: &NameTable) -> String {
    emit::emit(pio, names)
}

/// Reads a YAML document in the oead (or roead) dialect.
pub fn from_yaml(text: &str) -> Result<ParameterIO, TextError> {
    parse::parse(text)
}

/// Whether `text` looks like an AAMP text document: its first content (after
/// blank lines, comments, directives and `---`) is the `!io` tag.
pub fn looks_like_aamp_text(text: &str) -> bool {
    for line in text.lines() {
        let line = line.trim_start_matches('\u{FEFF}').trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            continue;
        }
        let line = line.strip_prefix("---").map_or(line, str::trim_start);
        if line.is_empty() {
            continue;
        }
        return line == "!io" || line.starts_with("!io ") || line.starts_with("!io\t");
    }
    false
}
