//! The YAML writer: oead's text, byte for byte.
//!
//! oead builds its text with libyaml's emitter (width 120, indent 2,
//! unicode output). No Rust YAML library reproduces that emitter's choices
//! (quoting, folding of long flow sequences and long strings), so this module
//! writes the few shapes the AAMP dialect needs directly, keeping the same
//! state as libyaml (column, "last write was whitespace", "at indentation")
//! and taking the same decisions from it.

use super::number::{self, FloatText};
use crate::aamp::names::{NameTable, Namer};
use crate::aamp::{Curve, ParameterIO, ParameterList, ParameterObject, ParameterValue, ROOT_NAME};
use std::fmt::Write as _;

/// libyaml's preferred line width as oead sets it: past this column, flow
/// sequences and strings with spaces continue on the next line.
const BEST_WIDTH: usize = 120;
/// Indentation step.
const INDENT: usize = 2;
/// libyaml writes longer keys as explicit `? key` entries.
const MAX_SIMPLE_KEY: usize = 128;

/// Writes `pio` as oead's YAML.
pub fn emit(pio: &ParameterIO, names: &NameTable) -> String {
    let mut e = Emitter {
        out: String::with_capacity(4096),
        column: 0,
        whitespace: true,
        indention: true,
        namer: Namer::new(names, pio),
        scratch: String::new(),
    };
    e.write_tag("!io");
    e.key_str("version", 0);
    e.scratch.clear();
    push_int(&mut e.scratch, i64::from(pio.version));
    e.plain_scratch();
    e.key_str("type", 0);
    e.untagged_string(&pio.data_type, 0);
    e.key_str("param_root", 0);
    e.list(&pio.root, 0, ROOT_NAME.0);
    e.write_indent(0);
    e.out
}

const SPACES: &str = "                                                                ";

/// Appends a decimal integer.
fn push_int(out: &mut String, v: i64) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut n = v.unsigned_abs();
    loop {
        pos -= 1;
        buf[pos] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    out.extend(buf[pos..].iter().map(|&d| d as char));
}

/// How a string scalar is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// What libyaml's scalar analysis finds in a string (the parts that matter
/// outside flow collections).
#[derive(Debug, Clone, Copy)]
struct Analysis {
    multiline: bool,
    /// Contains U+2028 or U+2029.
    unicode_breaks: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blankz(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => matches!(c, ' ' | '\t' | '\0') || is_break(c),
    }
}

/// libyaml's notion of printable: YAML's, except that it rejects
/// characters outside the basic multilingual plane.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            unicode_breaks: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    // Fast path: identifier-like ASCII needs none of the checks below.
    let b = s.as_bytes();
    if b.iter()
        .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        && !s.starts_with("...")
    {
        return Analysis {
            multiline: false,
            unicode_breaks: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let mut special = false;
    let mut line_breaks = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let mut chars = s.chars().peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let followed_by_whitespace = is_blankz(next);
        let last = next.is_none();
        if first {
            if matches!(
                c,
                '#' | ','
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
            ) {
                block_indicators = true;
            }
            if matches!(c, '?' | ':' | '-') && followed_by_whitespace {
                block_indicators = true;
            }
        } else {
            if c == ':' && followed_by_whitespace {
                block_indicators = true;
            }
            if c == '#' && preceded_by_whitespace {
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(Some(c));
        first = false;
    }
    let no_plain = leading_space
        || leading_break
        || trailing_space
        || trailing_break
        || break_space
        || space_break
        || special
        || line_breaks
        || block_indicators;
    Analysis {
        multiline: line_breaks,
        unicode_breaks: s.contains(['\u{2028}', '\u{2029}']),
        block_plain_allowed: !no_plain,
        single_quoted_allowed: !(break_space || space_break || special),
    }
}

/// libyaml's choice for a string outside flow collections. `plain_implicit`
/// is false when a plain scalar would read back as something else (only
/// relevant without a tag).
fn select_style(
    s: &str,
    a: &Analysis,
    simple_key: bool,
    tagged: bool,
    plain_implicit: bool,
) -> Style {
    // libyaml writes U+2028 and U+2029 raw, as line breaks (YAML 1.1); a
    // YAML 1.2 reader takes them as ordinary characters, so the indentation
    // that follows them would become part of the string. Escaped in double
    // quotes they read back exactly (the only place the text departs from
    // oead's).
    if a.unicode_breaks {
        return Style::Double;
    }
    // oead asks for single quotes for empty strings.
    let mut style = if s.is_empty() {
        Style::Single
    } else {
        Style::Plain
    };
    if simple_key && a.multiline {
        style = Style::Double;
    }
    if style == Style::Plain && (!a.block_plain_allowed || (!tagged && !plain_implicit)) {
        style = Style::Single;
    }
    if style == Style::Single && !a.single_quoted_allowed {
        style = Style::Double;
    }
    style
}

struct Emitter<'a> {
    out: String,
    /// Characters (not bytes) on the current line.
    column: usize,
    /// The last thing written was whitespace (no space needed before the
    /// next token).
    whitespace: bool,
    /// Only indentation has been written on the current line.
    indention: bool,
    namer: Namer<'a>,
    scratch: String,
}

impl Emitter<'_> {
    #[inline]
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    #[inline]
    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    #[inline]
    fn write(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
    }

    fn write_indent(&mut self, indent: usize) {
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            let n = (indent - self.column).min(SPACES.len());
            self.out.push_str(&SPACES[..n]);
            self.column += n;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write(indicator);
        self.whitespace = is_whitespace;
        self.indention &= is_indention;
    }

    fn write_tag(&mut self, tag: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        self.write(tag);
        self.whitespace = false;
        self.indention = false;
    }

    /// A plain scalar; with `allow_breaks`, a space past the width becomes a
    /// line break indented to `indent`.
    fn write_plain(&mut self, s: &str, allow_breaks: bool, indent: usize) {
        if !self.whitespace && !s.is_empty() {
            self.put(' ');
        }
        if !allow_breaks || !s.contains(' ') {
            self.write(s);
        } else {
            let mut spaces = false;
            let mut chars = s.chars().peekable();
            while let Some(c) = chars.next() {
                if c == ' ' {
                    if !spaces && self.column > BEST_WIDTH && chars.peek() != Some(&' ') {
                        self.write_indent(indent);
                    } else {
                        self.put(' ');
                    }
                    spaces = true;
                } else {
                    self.put(c);
                    self.indention = false;
                    spaces = false;
                }
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_single_quoted(&mut self, s: &str, allow_breaks: bool, indent: usize) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut chars = s.char_indices().peekable();
        while let Some((pos, c)) = chars.next() {
            let next = chars.peek().map(|&(_, c)| c);
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && pos != 0
                    && pos + 1 != s.len()
                    && next != Some(' ')
                {
                    self.write_indent(indent);
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent(indent);
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if breaks {
            self.write_indent(indent);
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, s: &str, allow_breaks: bool, indent: usize) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let mut chars = s.char_indices().peekable();
        while let Some((pos, c)) = chars.next() {
            let next = chars.peek().map(|&(_, c)| c);
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let short = match c {
                    '\0' => Some('0'),
                    '\u{7}' => Some('a'),
                    '\u{8}' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\u{B}' => Some('v'),
                    '\u{C}' => Some('f'),
                    '\r' => Some('r'),
                    '\u{1B}' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{A0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match short {
                    Some(e) => self.put(e),
                    None => {
                        let v = u32::from(c);
                        let text = if v <= 0xFF {
                            format!("x{v:02X}")
                        } else if v <= 0xFFFF {
                            format!("u{v:04X}")
                        } else {
                            format!("U{v:08X}")
                        };
                        self.write(&text);
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && pos != 0
                    && pos + 1 != s.len()
                {
                    self.write_indent(indent);
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(' ');
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_scalar(&mut self, s: &str, style: Style, allow_breaks: bool, indent: usize) {
        match style {
            Style::Plain => self.write_plain(s, allow_breaks, indent),
            Style::Single => self.write_single_quoted(s, allow_breaks, indent),
            Style::Double => self.write_double_quoted(s, allow_breaks, indent),
        }
    }

    /// The scratch buffer as a plain scalar (numbers).
    fn plain_scratch(&mut self) {
        if !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(&self.scratch);
        self.column += self.scratch.len();
        self.whitespace = false;
        self.indention = false;
    }

    /// A mapping key that is a fixed ASCII word (`version`, `objects`, ...).
    fn key_str(&mut self, key: &str, indent: usize) {
        self.write_indent(indent);
        self.write(key);
        self.whitespace = false;
        self.indention = false;
        self.write_indicator(":", false, false, false);
    }

    /// A mapping key that is a name (a string, quoted when it would read as
    /// something else) or a bare hash.
    fn key_name(&mut self, hash: u32, index: usize, parent: u32, indent: usize) {
        self.write_indent(indent);
        // Take the name out of the namer so that `self` can be borrowed.
        let name = self.namer.name(hash, index, parent).map(|n| {
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            s.push_str(n);
            s
        });
        match name {
            None => {
                self.scratch.clear();
                push_int(&mut self.scratch, i64::from(hash));
                self.plain_scratch();
                self.write_indicator(":", false, false, false);
            }
            Some(name) => {
                let a = analyze(&name);
                let plain_implicit = !number::needs_quotes(&name);
                if name.len() <= MAX_SIMPLE_KEY && !a.multiline {
                    let style = select_style(&name, &a, true, false, plain_implicit);
                    self.write_scalar(&name, style, false, indent + INDENT);
                    self.write_indicator(":", false, false, false);
                } else {
                    self.write_indicator("?", true, false, true);
                    let style = select_style(&name, &a, false, false, plain_implicit);
                    self.write_scalar(&name, style, true, indent + INDENT);
                    self.write_indent(indent);
                    self.write_indicator(":", true, false, true);
                }
                self.scratch = name;
            }
        }
    }

    /// An untagged string value (StringRef, the type).
    fn untagged_string(&mut self, s: &str, indent: usize) {
        let a = analyze(s);
        let style = select_style(s, &a, false, false, !number::needs_quotes(s));
        self.write_scalar(s, style, true, indent + INDENT);
    }

    fn tagged_string(&mut self, tag: &str, s: &str, indent: usize) {
        self.write_tag(tag);
        let a = analyze(s);
        let style = select_style(s, &a, false, true, false);
        self.write_scalar(s, style, true, indent + INDENT);
    }

    fn empty_mapping(&mut self) {
        self.write_indicator("{", true, true, false);
        self.write_indicator("}", false, false, false);
    }

    /// A list whose own key is `name` (the parent of its children's keys).
    fn list(&mut self, list: &ParameterList, indent: usize, name: u32) {
        self.write_tag("!list");
        let inner = indent + INDENT;
        self.key_str("objects", inner);
        if list.objects.is_empty() {
            self.empty_mapping();
        }
        for (i, object) in list.objects.iter().enumerate() {
            self.key_name(object.name, i, name, inner + INDENT);
            self.object(object, inner + INDENT);
        }
        self.key_str("lists", inner);
        if list.lists.is_empty() {
            self.empty_mapping();
        }
        for (i, child) in list.lists.iter().enumerate() {
            self.key_name(child.name, i, name, inner + INDENT);
            self.list(child, inner + INDENT, child.name);
        }
    }

    fn object(&mut self, object: &ParameterObject, indent: usize) {
        self.write_tag("!obj");
        if object.params.is_empty() {
            self.empty_mapping();
        }
        let inner = indent + INDENT;
        for (i, param) in object.params.iter().enumerate() {
            self.key_name(param.name, i, object.name, inner);
            self.value(&param.value, inner);
        }
    }

    fn value(&mut self, value: &ParameterValue, indent: usize) {
        match value {
            ParameterValue::Bool(b) => {
                self.write_plain(if *b { "true" } else { "false" }, false, 0)
            }
            ParameterValue::F32(v) => {
                self.scratch.clear();
                match number::push_f32(&mut self.scratch, *v) {
                    FloatText::Plain => self.plain_scratch(),
                    FloatText::Bits(bits) => self.nan_bits(bits),
                }
            }
            ParameterValue::Int(v) => {
                self.scratch.clear();
                push_int(&mut self.scratch, i64::from(*v));
                self.plain_scratch();
            }
            ParameterValue::Vec2(v) => self.floats("!vec2", v, indent),
            ParameterValue::Vec3(v) => self.floats("!vec3", v, indent),
            ParameterValue::Vec4(v) => self.floats("!vec4", v, indent),
            ParameterValue::Color(v) => self.floats("!color", v, indent),
            ParameterValue::Quat(v) => self.floats("!quat", v, indent),
            ParameterValue::String32(s) => self.tagged_string("!str32", s, indent),
            ParameterValue::String64(s) => self.tagged_string("!str64", s, indent),
            ParameterValue::String256(s) => self.tagged_string("!str256", s, indent),
            ParameterValue::StringRef(s) => self.untagged_string(s, indent),
            ParameterValue::Curve1(c) => self.curves(&c[..], indent),
            ParameterValue::Curve2(c) => self.curves(&c[..], indent),
            ParameterValue::Curve3(c) => self.curves(&c[..], indent),
            ParameterValue::Curve4(c) => self.curves(&c[..], indent),
            ParameterValue::BufferInt(v) => {
                self.ints("!buffer_int", v.iter().map(|&x| i64::from(x)), indent)
            }
            ParameterValue::BufferF32(v) => self.floats("!buffer_f32", v, indent),
            ParameterValue::U32(v) => {
                self.write_tag("!u");
                self.scratch.clear();
                push_int(&mut self.scratch, i64::from(*v));
                self.plain_scratch();
            }
            ParameterValue::BufferU32(v) => {
                self.ints("!buffer_u32", v.iter().map(|&x| i64::from(x)), indent)
            }
            ParameterValue::BufferBinary(v) => {
                self.ints("!buffer_binary", v.iter().map(|&x| i64::from(x)), indent)
            }
        }
    }

    /// A NaN that `.nan` does not cover: `!f32 0xXXXXXXXX`.
    fn nan_bits(&mut self, bits: u32) {
        self.write_tag("!f32");
        self.scratch.clear();
        let _ = write!(self.scratch, "0x{bits:08x}");
        self.plain_scratch();
    }

    fn seq_start(&mut self, tag: &str) {
        self.write_tag(tag);
        self.write_indicator("[", true, true, false);
    }

    /// Before an item of a flow sequence whose entries continue at `indent`.
    #[inline]
    fn seq_item(&mut self, first: bool, indent: usize) {
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > BEST_WIDTH {
            self.write_indent(indent);
        }
    }

    fn seq_end(&mut self) {
        self.write_indicator("]", false, false, false);
    }

    fn float_item(&mut self, v: f32) {
        self.scratch.clear();
        match number::push_f32(&mut self.scratch, v) {
            FloatText::Plain => self.plain_scratch(),
            FloatText::Bits(bits) => self.nan_bits(bits),
        }
    }

    fn int_item(&mut self, v: i64) {
        self.scratch.clear();
        push_int(&mut self.scratch, v);
        self.plain_scratch();
    }

    fn floats(&mut self, tag: &str, values: &[f32], indent: usize) {
        self.seq_start(tag);
        for (i, &v) in values.iter().enumerate() {
            self.seq_item(i == 0, indent + INDENT);
            self.float_item(v);
        }
        self.seq_end();
    }

    fn ints(&mut self, tag: &str, values: impl Iterator<Item = i64>, indent: usize) {
        self.seq_start(tag);
        for (i, v) in values.enumerate() {
            self.seq_item(i == 0, indent + INDENT);
            self.int_item(v);
        }
        self.seq_end();
    }

    fn curves(&mut self, curves: &[Curve], indent: usize) {
        self.seq_start("!curve");
        let mut first = true;
        for curve in curves {
            for v in [curve.a, curve.b] {
                self.seq_item(first, indent + INDENT);
                first = false;
                self.int_item(i64::from(v));
            }
            for &v in &curve.floats {
                self.seq_item(false, indent + INDENT);
                self.float_item(v);
            }
        }
        self.seq_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styled(s: &str, tagged: bool) -> Style {
        let a = analyze(s);
        select_style(s, &a, false, tagged, !number::needs_quotes(s))
    }

    #[test]
    fn string_styles_follow_libyaml() {
        assert_eq!(styled("plain", false), Style::Plain);
        assert_eq!(styled("with space", false), Style::Plain);
        assert_eq!(styled("", false), Style::Single);
        assert_eq!(styled("123", false), Style::Single);
        assert_eq!(styled("123", true), Style::Plain);
        assert_eq!(styled("true", false), Style::Single);
        assert_eq!(styled("a: b", false), Style::Single);
        assert_eq!(styled("a:b", false), Style::Plain);
        assert_eq!(styled("-x", false), Style::Plain);
        assert_eq!(styled("- x", false), Style::Single);
        assert_eq!(styled("#x", false), Style::Single);
        assert_eq!(styled("a #x", false), Style::Single);
        assert_eq!(styled(" lead", false), Style::Single);
        assert_eq!(styled("tab\there", false), Style::Double);
        assert_eq!(styled("two\nlines", false), Style::Single);
        assert_eq!(styled("テスト", false), Style::Plain);
        assert_eq!(styled("emoji 😀", false), Style::Double);
    }
}
