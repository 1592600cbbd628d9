//! A YAML writer that takes libyaml's decisions (what oead's text is made
//! of): the same line width, indentation, quoting and folding.
//!
//! No Rust YAML library reproduces libyaml's emitter choices (which
//! strings are quoted and how, where long flow collections and long strings
//! continue on the next line), so [`Writer`] keeps libyaml's emitter state
//! (column, "last write was whitespace", "at indentation", flow depth) and
//! the format modules drive it with the few shapes their dialect needs.

/// libyaml's preferred line width as oead sets it: past this column, flow
/// sequences and strings with spaces continue on the next line.
pub const BEST_WIDTH: usize = 120;
/// Indentation step.
pub const INDENT: usize = 2;
/// libyaml writes longer keys as explicit `? key` entries.
pub const MAX_SIMPLE_KEY: usize = 128;

use super::number::{self, FloatText, NumText, CANONICAL_NAN};
use rustc_hash::FxHashMap;

/// Bytes of a string that is a plain scalar anywhere, block or flow, as a
/// key or a value, and reads back as a string: bit 0 where the byte may be
/// anywhere, bit 1 where it may come first. A letter or `_` first rules out
/// every number and indicator; `true`, `false` and `null` are checked
/// apart. Names and paths (`Obj_<Kind>-02/Lod`) are the common case.
const WORD: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphabetic() || b == b'_' {
            t[c] = 3;
        } else if b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'<' | b'>' | b'-') {
            t[c] = 1;
        }
        c += 1;
    }
    t
};

/// Appends `s` to `out`. Keys and names are mostly 8 to 32 bytes: those go
/// in by two fixed-size copies (8 or 16 bytes, the second overlapping the
/// first) into 32 zeroed bytes that are then cut back, which takes no call
/// to `memcpy`.
#[inline(always)]
fn append(out: &mut Vec<u8>, s: &[u8]) {
    let n = s.len();
    if !(8..=32).contains(&n) {
        out.extend_from_slice(s);
        return;
    }
    let start = out.len();
    out.extend_from_slice(&[0u8; 32]);
    let dst = &mut out[start..start + 32];
    if n <= 16 {
        dst[..8].copy_from_slice(&s[..8]);
        dst[n - 8..n].copy_from_slice(&s[n - 8..]);
    } else {
        dst[..16].copy_from_slice(&s[..16]);
        dst[n - 16..n].copy_from_slice(&s[n - 16..]);
    }
    out.truncate(start + n);
}

/// Whether `s` is written as itself in every place (see [`WORD`]): no
/// analysis, no quoting, no folding, one byte per column.
#[inline]
pub fn is_plain_word(s: &str) -> bool {
    let b = s.as_bytes();
    match b.first() {
        Some(&c) if WORD[c as usize] & 2 != 0 => {}
        _ => return false,
    }
    b.iter().all(|&c| WORD[c as usize] & 1 != 0) && !matches!(b, b"true" | b"false" | b"null")
}

/// How a string scalar is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Single,
    Double,
}

/// What libyaml's scalar analysis finds in a string (the parts that matter
/// in flow collections and outside).
#[derive(Debug, Clone, Copy)]
pub struct Analysis {
    pub multiline: bool,
    /// Contains U+2028 or U+2029.
    pub unicode_breaks: bool,
    pub block_plain_allowed: bool,
    /// Plain inside a flow collection: no `,[]{}?` and no `:` anywhere.
    pub flow_plain_allowed: bool,
    pub single_quoted_allowed: bool,
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

pub fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            unicode_breaks: false,
            block_plain_allowed: true,
            flow_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    // Fast path: identifier-like ASCII needs none of the checks below;
    // so do names and paths such as `Obj_<Kind>-02/Lod`: `<` and `/`
    // are indicators nowhere, `-` and `>` only as the first character.
    let b = s.as_bytes();
    let plain_char = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'<');
    if plain_char(b[0])
        && b[1..]
            .iter()
            .all(|&c| plain_char(c) || c == b'-' || c == b'>')
        && !s.starts_with("...")
    {
        return Analysis {
            multiline: false,
            unicode_breaks: false,
            block_plain_allowed: true,
            flow_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let mut flow_indicators = block_indicators;
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
                flow_indicators = true;
            }
            if matches!(c, '?' | ':') {
                flow_indicators = true;
            }
            if matches!(c, '?' | ':' | '-') && followed_by_whitespace {
                block_indicators = true;
                flow_indicators = true;
            }
        } else {
            if matches!(c, ',' | '?' | '[' | ']' | '{' | '}' | ':') {
                flow_indicators = true;
            }
            if c == ':' && followed_by_whitespace {
                block_indicators = true;
            }
            if c == '#' && preceded_by_whitespace {
                block_indicators = true;
                flow_indicators = true;
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
    // libyaml writes `[a -]`, and oead reads it, but saphyr-parser (our
    // reader for texts the fast reader leaves to it) takes the `-` after a
    // blank at the end of a plain scalar in a flow collection for the start
    // of another scalar, and refuses it: such a string is quoted there (as
    // libyaml would for `a -,`), so that either reader reads our text.
    let b = s.as_bytes();
    if b.len() >= 2 && b[b.len() - 1] == b'-' && matches!(b[b.len() - 2], b' ' | b'\t') {
        flow_indicators = true;
    }
    let no_plain = leading_space
        || leading_break
        || trailing_space
        || trailing_break
        || break_space
        || space_break
        || special
        || line_breaks;
    Analysis {
        multiline: line_breaks,
        unicode_breaks: s.contains(['\u{2028}', '\u{2029}']),
        block_plain_allowed: !(no_plain || block_indicators),
        flow_plain_allowed: !(no_plain || flow_indicators),
        single_quoted_allowed: !(break_space || space_break || special),
    }
}

/// libyaml's choice for a string, inside a flow collection (`flow`) or
/// outside. `plain_implicit` is false when a plain scalar would read back
/// as something else (only relevant without a tag).
pub fn select_style(
    s: &str,
    a: &Analysis,
    flow: bool,
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
    let plain_allowed = if flow {
        a.flow_plain_allowed
    } else {
        a.block_plain_allowed
    };
    if style == Style::Plain && (!plain_allowed || (!tagged && !plain_implicit)) {
        style = Style::Single;
    }
    if style == Style::Single && !a.single_quoted_allowed {
        style = Style::Double;
    }
    style
}

/// libyaml's emitter state, over the text written so far.
pub struct Writer {
    /// The text so far: UTF-8 by construction (it is made of `str`s and
    /// ASCII), kept as bytes so that numbers go in without a check.
    pub out: Vec<u8>,
    /// Characters (not bytes) on the current line.
    pub column: usize,
    /// The last thing written was whitespace (no space needed before the
    /// next token).
    pub whitespace: bool,
    /// Only indentation has been written on the current line.
    pub indention: bool,
    /// How each key seen so far is written. A text repeats its keys (the
    /// hashes or objects of one kind hold the same ones), and choosing a
    /// key's style scans it character by character and tries it as a
    /// number: a quarter of BYML's to-YAML time before this memo.
    key_styles: FxHashMap<Box<str>, KeyStyle>,
}

/// The styles of one key, chosen as libyaml chooses them.
#[derive(Clone, Copy)]
struct KeyStyle {
    /// A simple key (`key: value`): short enough and on one line.
    simple: bool,
    /// In a block mapping: for a simple key, or an explicit one (`? key`).
    block: Style,
    /// In a flow mapping.
    flow: Style,
}

/// Keys beyond this many distinct ones are styled afresh each time (the
/// memo's memory stays bounded on texts of unique keys).
const MAX_MEMO_KEYS: usize = 1 << 16;

impl KeyStyle {
    fn of(key: &str) -> Self {
        let a = analyze(key);
        let plain_implicit = !number::needs_quotes(key);
        let simple = key.len() <= MAX_SIMPLE_KEY && !a.multiline;
        KeyStyle {
            simple,
            block: select_style(key, &a, false, simple, false, plain_implicit),
            flow: select_style(key, &a, true, true, false, plain_implicit),
        }
    }
}

impl Writer {
    pub fn new(capacity: usize) -> Self {
        Writer {
            out: Vec::with_capacity(capacity),
            column: 0,
            whitespace: true,
            indention: true,
            key_styles: FxHashMap::default(),
        }
    }

    /// The text written.
    pub fn into_string(self) -> String {
        String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// The styles of `key`, from the memo when it was seen before.
    fn key_style(&mut self, key: &str) -> KeyStyle {
        if let Some(k) = self.key_styles.get(key) {
            return *k;
        }
        let k = KeyStyle::of(key);
        if self.key_styles.len() < MAX_MEMO_KEYS {
            self.key_styles.insert(key.into(), k);
        }
        k
    }

    /// Text that needs no quoting and holds no space (a number, `true`,
    /// `null`) as a plain scalar.
    pub fn plain(&mut self, s: &str) {
        self.plain_ascii(s.as_bytes());
    }

    /// [`Self::plain`] for ASCII bytes.
    #[inline]
    fn plain_ascii(&mut self, s: &[u8]) {
        if !self.whitespace {
            self.put(' ');
        }
        append(&mut self.out, s);
        self.column += s.len();
        self.whitespace = false;
        self.indention = false;
    }

    /// A number as a plain scalar, formed by `form` in place: 32 bytes
    /// are added to the text, the digits written into them, and what is
    /// left over cut off. (Formed in a buffer of its own, the fixed-size
    /// copy into the text waited on the digits' narrow stores.)
    #[inline]
    fn plain_number<R>(&mut self, form: impl FnOnce(&mut NumText) -> R) -> R {
        if !self.whitespace {
            self.put(' ');
        }
        let start = self.out.len();
        self.out.extend_from_slice(&[0u8; number::CAPACITY]);
        let (r, len) = match self.out[start..].first_chunk_mut::<{ number::CAPACITY }>() {
            Some(buf) => {
                let mut t = NumText::new(buf);
                (form(&mut t), t.len())
            }
            // Not reached: the 32 bytes were just added.
            None => (form(&mut NumText::new(&mut [0; number::CAPACITY])), 0),
        };
        self.out.truncate(start + len);
        self.column += len;
        self.whitespace = false;
        self.indention = false;
        r
    }

    /// A decimal integer as a plain scalar.
    pub fn int(&mut self, v: i64) {
        self.plain_number(|t| t.int(v));
    }

    /// A decimal unsigned integer as a plain scalar.
    pub fn uint(&mut self, v: u64) {
        self.plain_number(|t| t.uint(v));
    }

    /// `0x` and 8 hex digits as a plain scalar.
    pub fn hex32(&mut self, v: u32) {
        self.plain_number(|t| t.hex32(v));
    }

    /// An f32 as oead prints it ([`NumText::f32`]); for a NaN other than
    /// `.nan`, nothing is written and its bits are returned.
    pub fn float(&mut self, v: f32) -> FloatText {
        if v.is_nan() && v.to_bits() != CANONICAL_NAN {
            return FloatText::Bits(v.to_bits());
        }
        self.plain_number(|t| t.f32(v))
    }

    /// A mapping key that is a fixed ASCII word (`version`, `objects`, ...).
    pub fn key_word(&mut self, key: &str, indent: usize) {
        self.write_indent(indent);
        self.word(key);
        self.write_indicator(":", false, false, false);
    }

    /// A block mapping key that is any string (quoted when it would read
    /// back as something else; past [`MAX_SIMPLE_KEY`] characters or over
    /// several lines, an explicit `? key` entry), then its `:`.
    pub fn block_key(&mut self, key: &str, indent: usize) {
        self.write_indent(indent);
        if self.word_key(key) {
            return;
        }
        let k = self.key_style(key);
        if k.simple {
            self.write_scalar(key, k.block, false, indent + INDENT);
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indicator("?", true, false, true);
            self.write_scalar(key, k.block, true, indent + INDENT);
            self.write_indent(indent);
            self.write_indicator(":", true, false, true);
        }
    }

    /// A string value (untagged unless `tag` is given) inside a flow
    /// collection or not; `indent` is where folded lines continue.
    pub fn string(&mut self, s: &str, tag: Option<&str>, flow: bool, indent: usize) {
        if tag.is_none() && is_plain_word(s) {
            self.plain_ascii(s.as_bytes());
            return;
        }
        if let Some(tag) = tag {
            self.write_tag(tag);
        }
        let a = analyze(s);
        let plain_implicit = tag.is_some() || !number::needs_quotes(s);
        let style = select_style(s, &a, flow, false, tag.is_some(), plain_implicit);
        self.write_scalar(s, style, true, indent);
    }

    /// `{}` or `[]`: an empty collection.
    pub fn empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    /// Opens a flow collection (`[` or `{`).
    pub fn flow_start(&mut self, open: &str) {
        self.write_indicator(open, true, true, false);
    }

    /// Before an item of a flow collection whose entries continue at
    /// `indent` when the line is full.
    #[inline]
    pub fn flow_item(&mut self, first: bool, indent: usize) {
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > BEST_WIDTH {
            self.write_indent(indent);
        }
    }

    /// A simple key inside a flow mapping, then its `:`.
    pub fn flow_key(&mut self, key: &str, indent: usize) {
        if self.word_key(key) {
            return;
        }
        let style = self.key_style(key).flow;
        self.write_scalar(key, style, false, indent);
        self.write_indicator(":", false, false, false);
    }

    /// `key` and its `:` when the key is a simple key that [`is_plain_word`]
    /// accepts (written alike in a block and in a flow mapping); false,
    /// with nothing written, otherwise.
    #[inline]
    fn word_key(&mut self, key: &str) -> bool {
        let word = key.len() <= MAX_SIMPLE_KEY && is_plain_word(key);
        if word {
            self.flow_key_word(key);
        }
        word
    }

    /// A key inside a flow mapping that is written as itself and is ASCII
    /// (a number, or a word that [`is_plain_word`] accepts), then its `:`.
    pub fn flow_key_word(&mut self, key: &str) {
        self.plain_ascii(key.as_bytes());
        self.write_indicator(":", false, false, false);
    }

    /// Closes a flow collection (`]` or `}`).
    pub fn flow_end(&mut self, close: &str) {
        self.write_indicator(close, false, false, false);
    }

    /// A block sequence's `- ` at `indent`.
    pub fn block_item(&mut self, indent: usize) {
        self.write_indent(indent);
        self.write_indicator("-", true, false, true);
    }

    #[inline]
    pub fn put(&mut self, c: char) {
        self.push_char(c);
        self.column += 1;
    }

    #[inline]
    fn push_char(&mut self, c: char) {
        if c.is_ascii() {
            self.out.push(c as u8);
        } else {
            self.out
                .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }

    #[inline]
    pub fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
    }

    #[inline]
    pub fn write(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
    }

    pub fn write_indent(&mut self, indent: usize) {
        // A line break and the indent go in as one fixed-size copy, cut
        // back to their width: no call to `memset` or `memcpy`.
        const BREAK_AND_SPACES: &[u8; 33] = b"\n                                ";
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            if indent < BREAK_AND_SPACES.len() {
                let start = self.out.len();
                self.out.extend_from_slice(BREAK_AND_SPACES);
                self.out.truncate(start + 1 + indent);
                self.column = indent;
            } else {
                self.put_break();
            }
        }
        let spaces = &BREAK_AND_SPACES[1..];
        while self.column < indent {
            let n = (indent - self.column).min(spaces.len());
            let start = self.out.len();
            self.out.extend_from_slice(spaces);
            self.out.truncate(start + n);
            self.column += n;
        }
        self.whitespace = true;
        self.indention = true;
    }

    #[inline]
    pub fn write_indicator(
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

    pub fn write_tag(&mut self, tag: &str) {
        self.word(tag);
    }

    /// Text that needs no quoting (a tag, a word key), after a space
    /// unless one is there.
    fn word(&mut self, s: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        self.write(s);
        self.whitespace = false;
        self.indention = false;
    }

    /// A plain scalar; with `allow_breaks`, a space past the width becomes a
    /// line break indented to `indent`.
    pub fn write_plain(&mut self, s: &str, allow_breaks: bool, indent: usize) {
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

    pub fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.push_char(c);
            self.column = 0;
        }
    }

    pub fn write_single_quoted(&mut self, s: &str, allow_breaks: bool, indent: usize) {
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

    pub fn write_double_quoted(&mut self, s: &str, allow_breaks: bool, indent: usize) {
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

    pub fn write_scalar(&mut self, s: &str, style: Style, allow_breaks: bool, indent: usize) {
        match style {
            Style::Plain => self.write_plain(s, allow_breaks, indent),
            Style::Single => self.write_single_quoted(s, allow_breaks, indent),
            Style::Double => self.write_double_quoted(s, allow_breaks, indent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styled(s: &str, flow: bool, tagged: bool) -> Style {
        let a = analyze(s);
        select_style(s, &a, flow, false, tagged, !number::needs_quotes(s))
    }

    #[test]
    fn integers_print_as_printf_does() {
        for (v, text) in [
            (0u32, "0x00000000"),
            (0x00af_0d14, "0x00af0d14"),
            (u32::MAX, "0xffffffff"),
        ] {
            let mut buf = [0; number::CAPACITY];
            let mut t = NumText::new(&mut buf);
            t.hex32(v);
            assert_eq!(t.as_str(), text);
            assert_eq!(format!("0x{v:08x}"), text);
        }
        for v in [
            0,
            7,
            -7,
            10,
            99,
            100,
            -100,
            1_000_000_007,
            i64::MIN,
            i64::MAX,
        ] {
            let mut buf = [0; number::CAPACITY];
            let mut t = NumText::new(&mut buf);
            t.int(v);
            assert_eq!(t.as_str(), v.to_string());
        }
        for v in [0, 9, 10, 99, 100, 101, 999, 1000, u64::MAX] {
            let mut buf = [0; number::CAPACITY];
            let mut t = NumText::new(&mut buf);
            t.uint(v);
            assert_eq!(t.as_str(), v.to_string());
        }
    }

    /// The shortcut for words agrees with libyaml's analysis wherever it is
    /// taken: plain in a block and in a flow collection, as a key and as a
    /// value; strings made of the characters that matter (indicators,
    /// digits, spaces, the three words) from a fixed pseudo-random walk.
    #[test]
    fn plain_words_are_what_the_analysis_finds() {
        const ALPHABET: &[&str] = &[
            "a", "Z", "_", "0", "9", ".", "/", "<", ">", "-", ":", ",", "#", " ", "[", "{", "?",
            "'", "true", "false", "null", "e", "x", "é",
        ];
        let mut x: u32 = 0x9E37_79B9;
        let mut taken = 0;
        for _ in 0..200_000 {
            let mut s = String::new();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let len = 1 + (x % 6) as usize;
            for i in 0..len {
                let pick = (x.rotate_left(5 * i as u32) as usize) % ALPHABET.len();
                s.push_str(ALPHABET[pick]);
            }
            if !is_plain_word(&s) {
                continue;
            }
            taken += 1;
            let a = analyze(&s);
            let quotes = number::needs_quotes(&s);
            for flow in [false, true] {
                for key in [false, true] {
                    assert_eq!(
                        select_style(&s, &a, flow, key, false, !quotes),
                        Style::Plain,
                        "{s:?} flow {flow} key {key}"
                    );
                }
            }
            assert!(!s.contains(' ') && !a.multiline, "{s:?}");
        }
        assert!(taken > 1000, "only {taken} words took the shortcut");
        for word in [
            "true", "false", "null", "1abc", ".x", "-x", "", "a b", "a:b",
        ] {
            assert!(!is_plain_word(word), "{word:?}");
        }
        assert!(is_plain_word("Obj_<Kind>-02/Lod"));
    }

    /// A break and an indent of any width, within the 33 bytes copied at
    /// once and beyond them.
    #[test]
    fn indents_of_any_width() {
        for indent in [0, 1, 2, 31, 32, 33, 34, 64, 65, 100] {
            let mut w = Writer::new(0);
            w.plain("x");
            w.write_indent(indent);
            w.write_indent(indent);
            w.plain("y");
            assert_eq!(w.column, indent + 1);
            assert_eq!(w.into_string(), format!("x\n{}y", " ".repeat(indent)));
        }
    }

    #[test]
    fn string_styles_follow_libyaml() {
        let block = |s| styled(s, false, false);
        assert_eq!(block("plain"), Style::Plain);
        assert_eq!(block("with space"), Style::Plain);
        assert_eq!(block(""), Style::Single);
        assert_eq!(block("123"), Style::Single);
        assert_eq!(styled("123", false, true), Style::Plain);
        assert_eq!(block("true"), Style::Single);
        assert_eq!(block("a: b"), Style::Single);
        assert_eq!(block("a:b"), Style::Plain);
        assert_eq!(block("-x"), Style::Plain);
        assert_eq!(block("- x"), Style::Single);
        assert_eq!(block("#x"), Style::Single);
        assert_eq!(block("a #x"), Style::Single);
        assert_eq!(block(" lead"), Style::Single);
        assert_eq!(block("tab\there"), Style::Double);
        assert_eq!(block("two\nlines"), Style::Single);
        assert_eq!(block("テスト"), Style::Plain);
        assert_eq!(block("emoji 😀"), Style::Double);
    }

    /// Inside `[...]` and `{...}` the flow indicators and any `:` need quotes.
    #[test]
    fn flow_collections_quote_their_indicators() {
        let flow = |s| styled(s, true, false);
        assert_eq!(flow("plain"), Style::Plain);
        assert_eq!(flow("with space"), Style::Plain);
        assert_eq!(flow("a,b"), Style::Single);
        assert_eq!(styled("a,b", false, false), Style::Plain);
        assert_eq!(flow("a:b"), Style::Single);
        assert_eq!(flow("x[0]"), Style::Single);
        assert_eq!(flow("{x}"), Style::Single);
        assert_eq!(flow("a?"), Style::Single);
        assert_eq!(flow("-x"), Style::Plain);
        assert_eq!(flow("a#b"), Style::Plain);
        assert_eq!(flow(""), Style::Single);
    }
}
