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

use super::number;
use rustc_hash::FxHashMap;

const SPACES: &str = "                                                                ";

/// Appends a decimal integer.
pub fn push_int(out: &mut String, v: i64) {
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
    // Only ASCII digits: the conversion cannot fail.
    out.push_str(std::str::from_utf8(&buf[pos..]).unwrap_or_default());
}

/// Appends `0x` and `v` as 8 lowercase hex digits (`printf("0x%08x")`).
pub fn push_hex32(out: &mut String, v: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut buf = *b"0x00000000";
    for (i, d) in buf[2..].iter_mut().enumerate() {
        *d = HEX[((v >> (28 - 4 * i)) & 0xF) as usize];
    }
    out.push_str(std::str::from_utf8(&buf).unwrap_or_default());
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
    pub out: String,
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
            out: String::with_capacity(capacity),
            column: 0,
            whitespace: true,
            indention: true,
            key_styles: FxHashMap::default(),
        }
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
        if !self.whitespace {
            self.put(' ');
        }
        self.out.push_str(s);
        self.column += s.len();
        self.whitespace = false;
        self.indention = false;
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
        let style = self.key_style(key).flow;
        self.write_scalar(key, style, false, indent);
        self.write_indicator(":", false, false, false);
    }

    /// A key inside a flow mapping that is a fixed ASCII word (a number),
    /// then its `:`.
    pub fn flow_key_word(&mut self, key: &str) {
        self.word(key);
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
        self.out.push(c);
        self.column += 1;
    }

    #[inline]
    pub fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    #[inline]
    pub fn write(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
    }

    pub fn write_indent(&mut self, indent: usize) {
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
            self.out.push(c);
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
            let mut out = String::from("!u ");
            push_hex32(&mut out, v);
            assert_eq!(out, format!("!u {text}"));
            assert_eq!(format!("0x{v:08x}"), text);
        }
        for v in [0, 7, -7, 1_000_000_007, i64::MIN, i64::MAX] {
            let mut out = String::new();
            push_int(&mut out, v);
            assert_eq!(out, v.to_string());
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
