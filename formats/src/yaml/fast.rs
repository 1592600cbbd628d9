//! A fast reader for the YAML that tools write: block mappings and
//! sequences by indentation, one-line flow collections, plain and quoted
//! one-line scalars, tags, comments. It gives the events saphyr-parser
//! gives for the same text, with the same start positions, or `None` as
//! soon as the text holds anything else (anchors, block scalars, multi-line
//! scalars or flow collections, directives, explicit keys, tabs, CRLF, ...).
//! Then `read::Events` reads the text with saphyr-parser from the
//! start, so every text reads exactly as before and every error comes from
//! the full parser.
//!
//! Why: saphyr-parser is a complete YAML 1.2 parser, and it costs. Reading
//! a text oead or `codec to-text` wrote spent about 70 % of AAMP's
//! from-text in it (a token queue, a `String` per scalar and tag, several
//! passes over each character). The texts modders edit are in this subset;
//! this reader takes them in one pass, borrowing every scalar that has no
//! escape, and giving common tags from a shared table.
//!
//! Its one rule: for any text it accepts, the events and their start
//! positions are saphyr-parser's (tested on every corpus text and fuzzed,
//! `fuzz/fuzz_targets/yaml_fast.rs`). One exception, on purpose: a plain
//! scalar with a `-` after a blank and before a flow indicator (`[a -]`),
//! which YAML 1.2 allows and libyaml (so oead) writes, and which
//! saphyr-parser refuses; the fast reader reads it (`a -`).

use saphyr_parser::{Event, Marker, ScalarStyle, Span, Tag};
use std::borrow::Cow;
use std::cell::Cell;
use std::sync::LazyLock;

/// The events of a text as the fast reader keeps them: a few words each
/// (a scalar as a range of the text, a position as three `u32`s) rather
/// than saphyr-parser's `(Event, Span)` of 136 bytes, which made a long
/// list of numbers cost 45 times the text. [`Events::next`] gives each
/// event back as saphyr-parser's, the same as it was pushed.
pub(crate) struct Events<'a> {
    text: &'a str,
    items: std::vec::IntoIter<Item>,
    /// Scalars that are not a slice of the text (their escapes resolved).
    owned: Vec<Option<String>>,
    /// Tags, for the events that have one.
    tags: Vec<Option<Cow<'a, Tag>>>,
}

/// One event: its kind, a scalar's style, its position, and a scalar's
/// range in the text or index in `owned`, and a tag's index in `tags`.
#[derive(Clone, Copy)]
struct Item {
    kind: ItemKind,
    style: ScalarStyle,
    at: [u32; 3],
    start: u32,
    len: u32,
    tag: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    StreamStart,
    StreamEnd,
    DocumentStart {
        explicit: bool,
    },
    DocumentEnd,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
    /// A scalar, a slice of the text.
    Borrowed,
    /// A scalar in `owned`.
    Owned,
}

const NO_TAG: u32 = u32::MAX;

/// Events being written: what [`Scanner`] pushes to.
struct Store<'a> {
    text: &'a str,
    items: Vec<Item>,
    owned: Vec<Option<String>>,
    tags: Vec<Option<Cow<'a, Tag>>>,
}

impl<'a> Store<'a> {
    fn new(text: &'a str) -> Self {
        Store {
            text,
            items: Vec::with_capacity(text.len() / 16 + 8),
            owned: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn tag(&mut self, tag: Option<Cow<'a, Tag>>) -> u32 {
        match tag {
            None => NO_TAG,
            Some(t) => {
                self.tags.push(Some(t));
                (self.tags.len() - 1) as u32
            }
        }
    }

    /// Keeps `ev` at `m`; `None` when the text is too long for the compact
    /// form (4 GiB), which the reader then leaves to saphyr-parser.
    fn push(&mut self, ev: Event<'a>, m: Marker) -> Option<()> {
        let word = |v: usize| u32::try_from(v).ok();
        let at = [word(m.index())?, word(m.line())?, word(m.col())?];
        let mut item = Item {
            kind: ItemKind::StreamStart,
            style: ScalarStyle::Plain,
            at,
            start: 0,
            len: 0,
            tag: NO_TAG,
        };
        item.kind = match ev {
            Event::StreamStart => ItemKind::StreamStart,
            Event::StreamEnd => ItemKind::StreamEnd,
            Event::DocumentStart(explicit) => ItemKind::DocumentStart { explicit },
            Event::DocumentEnd => ItemKind::DocumentEnd,
            Event::SequenceStart(_, tag) => {
                item.tag = self.tag(tag);
                ItemKind::SequenceStart
            }
            Event::SequenceEnd => ItemKind::SequenceEnd,
            Event::MappingStart(_, tag) => {
                item.tag = self.tag(tag);
                ItemKind::MappingStart
            }
            Event::MappingEnd => ItemKind::MappingEnd,
            Event::Scalar(value, style, _, tag) => {
                item.style = style;
                item.tag = self.tag(tag);
                let base = self.text.as_ptr() as usize;
                let inside = |s: &str| {
                    let p = s.as_ptr() as usize;
                    (p >= base && p + s.len() <= base + self.text.len()).then(|| p - base)
                };
                match value {
                    Cow::Borrowed(s) if inside(s).is_some() => {
                        item.start = word(inside(s)?)?;
                        item.len = word(s.len())?;
                        ItemKind::Borrowed
                    }
                    other => {
                        self.owned.push(Some(other.into_owned()));
                        item.start = word(self.owned.len() - 1)?;
                        ItemKind::Owned
                    }
                }
            }
            // The fast reader makes no other event.
            _ => return None,
        };
        self.items.push(item);
        Some(())
    }

    fn finish(self) -> Events<'a> {
        Events {
            text: self.text,
            items: self.items.into_iter(),
            owned: self.owned,
            tags: self.tags,
        }
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = (Event<'a>, Span);

    fn next(&mut self) -> Option<(Event<'a>, Span)> {
        let it = self.items.next()?;
        let m = Marker::new(it.at[0] as usize, it.at[1] as usize, it.at[2] as usize);
        let mut tag = || {
            (it.tag != NO_TAG)
                .then(|| self.tags.get_mut(it.tag as usize).and_then(Option::take))
                .flatten()
        };
        let ev = match it.kind {
            ItemKind::StreamStart => Event::StreamStart,
            ItemKind::StreamEnd => Event::StreamEnd,
            ItemKind::DocumentStart { explicit } => Event::DocumentStart(explicit),
            ItemKind::DocumentEnd => Event::DocumentEnd,
            ItemKind::SequenceStart => Event::SequenceStart(0, tag()),
            ItemKind::SequenceEnd => Event::SequenceEnd,
            ItemKind::MappingStart => Event::MappingStart(0, tag()),
            ItemKind::MappingEnd => Event::MappingEnd,
            ItemKind::Borrowed => {
                let s = &self.text[it.start as usize..(it.start + it.len) as usize];
                Event::Scalar(Cow::Borrowed(s), it.style, 0, tag())
            }
            ItemKind::Owned => {
                let s = self.owned.get_mut(it.start as usize).and_then(Option::take);
                Event::Scalar(Cow::Owned(s.unwrap_or_default()), it.style, 0, tag())
            }
        };
        Some((ev, Span::new(m, m)))
    }
}

/// Events with their start positions (line, column), for comparing.
type Positioned<'a> = Vec<(Event<'a>, (usize, usize))>;

/// The events of `text` with their spans, or `None` when the text leaves
/// the subset (see the module's doc).
pub(crate) fn scan(text: &str) -> Option<Events<'_>> {
    scan_keeping_dashes(text).map(|(events, _)| events)
}

/// [`scan`], and where the text holds a `-` saphyr-parser refuses (see
/// [`DASH_REFUSAL`]).
fn scan_keeping_dashes(text: &str) -> Option<(Events<'_>, Vec<usize>)> {
    let b = text.as_bytes();
    // saphyr-parser places what follows a last line without a break on a
    // line of its own; such texts are left to it.
    if b.starts_with(b"\xEF\xBB\xBF")
        || !b.ends_with(b"\n")
        || !printable(text)
        || later_document_marker(b)
    {
        return None;
    }
    let mut s = Scanner {
        text,
        b,
        pos: 0,
        line: 1,
        line_start: 0,
        line_start_chars: 0,
        indent: -1,
        depth: 0,
        col_at: Cell::new((0, 0)),
        refused_dashes: Vec::new(),
        out: Store::new(text),
        full: false,
    };
    s.document()?;
    if s.full {
        return None;
    }
    Some((s.out.finish(), s.refused_dashes))
}

/// How many characters `b` holds (UTF-8: the bytes that start one).
fn chars(b: &[u8]) -> usize {
    if b.is_ascii() {
        b.len()
    } else {
        b.iter().filter(|&&c| (c as i8) >= -0x40).count()
    }
}

/// Whether a line after the first starts with `---` or `...` as a
/// document marker (followed by a blank or the line's end).
fn later_document_marker(b: &[u8]) -> bool {
    ["\n---", "\n..."].iter().any(|m| {
        memchr::memmem::find_iter(b, m.as_bytes())
            .any(|at| matches!(b.get(at + 4).copied().unwrap_or(b'\n'), b' ' | b'\n'))
    })
}

/// Whether every character is one YAML lets a text hold, and neither a
/// tab nor a carriage return (left to saphyr-parser, with their rules).
fn printable(text: &str) -> bool {
    let ok_ascii = |c: u8| (0x20..0x7F).contains(&c) || c == b'\n';
    if text.is_ascii() {
        return text.bytes().all(ok_ascii);
    }
    text.chars().all(|c| match c as u32 {
        0..=0x7F => ok_ascii(c as u8),
        0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000.. => c != '\u{FEFF}',
        _ => false,
    })
}

/// Tags the dialects use, shared, so that reading one allocates nothing.
static COMMON_TAGS: LazyLock<Vec<Tag>> = LazyLock::new(|| {
    let local = [
        "io",
        "list",
        "obj",
        "u",
        "l",
        "ul",
        "f64",
        "h",
        "vh",
        "str32",
        "str64",
        "str256",
        "vec2",
        "vec3",
        "vec4",
        "color",
        "quat",
        "curve",
        "buffer_int",
        "buffer_f32",
        "buffer_u32",
        "buffer_binary",
    ];
    let core = [
        "binary", "file", "map", "seq", "str", "int", "float", "bool", "null",
    ];
    local
        .iter()
        .map(|s| Tag {
            handle: "!".into(),
            suffix: (*s).into(),
        })
        .chain(core.iter().map(|s| Tag {
            handle: CORE.into(),
            suffix: (*s).into(),
        }))
        .collect()
});

/// The handle `!!` stands for.
const CORE: &str = "tag:yaml.org,2002:";

/// Where a block node sits, which decides what may follow it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    MapValue,
    SeqEntry,
}

struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// The current line (from 1), where it starts (byte), and how many
    /// characters come before it.
    line: usize,
    line_start: usize,
    line_start_chars: usize,
    /// The indentation of the content line `pos` is on, once a block node
    /// has ended (-1 at the end of the input).
    indent: isize,
    /// A position on the current line and how many characters lie
    /// before it on the line (see `marker`).
    col_at: Cell<(usize, usize)>,
    /// Where a `-` that saphyr-parser refuses lies (see [`DASH_REFUSAL`]).
    refused_dashes: Vec<usize>,
    /// Nodes open around `pos`: the reader recurses, so it leaves deeper
    /// texts to saphyr-parser, which does not.
    depth: usize,
    out: Store<'a>,
    /// An event the compact form cannot keep (never, in practice): the
    /// text is left to saphyr-parser.
    full: bool,
}

/// The deepest nesting the fast reader takes (real texts stay far below;
/// each level costs a few hundred bytes of stack).
const MAX_DEPTH: usize = 100;

/// Keys this long or longer are left to saphyr-parser (it refuses a key
/// of more than 1024 characters; bytes are at least as many).
const MAX_KEY: usize = 1000;

impl<'a> Scanner<'a> {
    fn peek(&self) -> u8 {
        self.b.get(self.pos).copied().unwrap_or(0)
    }

    fn peek_at(&self, p: usize) -> u8 {
        self.b.get(p).copied().unwrap_or(0)
    }

    /// The marker of byte `p` on the current line (saphyr counts in
    /// characters).
    fn marker(&self, p: usize) -> Marker {
        // Counted on from the last marker of the line, so that the many
        // markers of a long line (a flow sequence) cost one pass over it.
        let (mut from, mut col) = self.col_at.get();
        if from < self.line_start || from > p {
            (from, col) = (self.line_start, 0);
        }
        col += chars(&self.b[from..p]);
        self.col_at.set((p, col));
        Marker::new(self.line_start_chars + col, self.line, col)
    }

    /// The marker of `pos`.
    fn mark(&self) -> Marker {
        self.marker(self.pos)
    }

    fn push(&mut self, ev: Event<'a>, m: Marker) {
        if self.out.push(ev, m).is_none() {
            self.full = true;
        }
    }

    fn skip_spaces(&mut self) {
        while self.peek() == b' ' {
            self.pos += 1;
        }
    }

    /// At the end of the line, or at a comment (`#` after a space or at
    /// the line's start), spaces skipped.
    fn at_line_end(&mut self) -> bool {
        self.skip_spaces();
        match self.peek() {
            0 | b'\n' => self.pos >= self.b.len() || self.b[self.pos] == b'\n',
            b'#' => self.pos == self.line_start || self.b[self.pos - 1] == b' ',
            _ => false,
        }
    }

    /// From the end of a line (or a comment), on to the next line with
    /// content: `pos` at its first non-space byte, `indent` its column;
    /// -1 at the end of the input.
    fn next_content_line(&mut self) {
        loop {
            if !self.advance_line() {
                self.indent = -1;
                return;
            }
            self.skip_spaces();
            match self.peek() {
                b'\n' => continue,
                b'#' => continue,
                0 if self.pos >= self.b.len() => {
                    self.indent = -1;
                    return;
                }
                _ => {
                    self.indent = (self.pos - self.line_start) as isize;
                    return;
                }
            }
        }
    }

    /// Moves `pos` to the start of the next line; at the end of the input
    /// when there is none (and `false`).
    fn advance_line(&mut self) -> bool {
        match memchr::memchr(b'\n', &self.b[self.pos..]) {
            None => {
                self.pos = self.b.len();
                false
            }
            Some(n) => {
                let end = self.pos + n + 1;
                self.line_start_chars += chars(&self.b[self.line_start..end]);
                self.line += 1;
                self.line_start = end;
                self.pos = end;
                true
            }
        }
    }

    /// Spaces and line breaks inside a flow collection; each new line must
    /// be indented deeper than the block holding the collection (`parent`).
    fn flow_space(&mut self, parent: isize) -> Option<()> {
        loop {
            self.skip_spaces();
            match self.peek() {
                b'\n' => {
                    self.advance_line();
                    self.skip_spaces();
                    let col = (self.pos - self.line_start) as isize;
                    if col <= parent || matches!(self.peek(), b'\n' | b'#' | 0) {
                        return None;
                    }
                }
                b'#' => return None,
                _ => return Some(()),
            }
        }
    }

    /// Ends the line a node ended on: only spaces and a comment may
    /// follow; then on to the next content line.
    fn end_line(&mut self) -> Option<()> {
        if !self.at_line_end() {
            return None;
        }
        self.next_content_line();
        Some(())
    }

    fn document(&mut self) -> Option<()> {
        self.push(Event::StreamStart, self.mark());
        // Leading blank and comment lines.
        self.skip_spaces();
        if self.at_line_end() {
            self.next_content_line();
        } else {
            self.indent = (self.pos - self.line_start) as isize;
        }
        if self.indent < 0 {
            return None;
        }
        match self.peek() {
            b'%' => return None,
            b'-' if self.b[self.pos..].starts_with(b"---") => {
                let after = self.peek_at(self.pos + 3);
                if !matches!(after, b' ' | b'\n' | 0) || self.indent != 0 {
                    return None;
                }
                self.push(Event::DocumentStart(true), self.mark());
                self.pos += 3;
                self.end_line()?;
                if self.indent < 0 {
                    return None;
                }
            }
            b'.' if self.b[self.pos..].starts_with(b"...") => return None,
            // A block scalar as the whole document: saphyr-parser places
            // the document at its content.
            b'|' => return None,
            _ => self.push(Event::DocumentStart(false), self.mark()),
        }
        self.node(-1, Ctx::Root)?;
        if self.indent >= 0 {
            // A second document, a `...`, or content that does not belong.
            return None;
        }
        let end = self.mark();
        self.push(Event::DocumentEnd, end);
        self.push(Event::StreamEnd, end);
        Some(())
    }

    /// A tag at `pos` (`!x` or `!!x`), `pos` after it.
    fn tag(&mut self) -> Option<Cow<'a, Tag>> {
        let b = self.b;
        let (handle, start) = if self.peek_at(self.pos + 1) == b'!' {
            (CORE, self.pos + 2)
        } else {
            ("!", self.pos + 1)
        };
        let mut p = start;
        while p < b.len() && (b[p].is_ascii_alphanumeric() || matches!(b[p], b'_' | b'-' | b'.')) {
            p += 1;
        }
        if p == start || !matches!(self.peek_at(p), b' ' | b'\n' | 0) {
            return None;
        }
        let suffix = &self.text[start..p];
        self.pos = p;
        let common = COMMON_TAGS
            .iter()
            .find(|t| t.suffix == suffix && t.handle == handle);
        Some(match common {
            Some(t) => Cow::Borrowed(t),
            None => Cow::Owned(Tag {
                handle: handle.into(),
                suffix: suffix.into(),
            }),
        })
    }

    /// The block node at `pos` (content on this line), or on the lines
    /// below when this line ends here; `parent` is the indentation of
    /// the collection holding it.
    fn node(&mut self, parent: isize, ctx: Ctx) -> Option<()> {
        self.nested(|s| s.node_here(parent, ctx))
    }

    /// Runs `read` one level deeper, or leaves the text past `MAX_DEPTH`.
    fn nested(&mut self, read: impl FnOnce(&mut Self) -> Option<()>) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let done = read(self);
        self.depth -= 1;
        done
    }

    /// Where a node starts, and its tag if it has one (`pos` then after
    /// the tag and its spaces).
    fn properties(&mut self) -> Option<(Marker, Option<Cow<'a, Tag>>)> {
        let start = self.mark();
        if self.peek() != b'!' {
            return Some((start, None));
        }
        let tag = self.tag()?;
        self.skip_spaces();
        Some((start, Some(tag)))
    }

    fn node_here(&mut self, parent: isize, ctx: Ctx) -> Option<()> {
        let (start, tag) = self.properties()?;
        if self.at_line_end() {
            // The content is on the lines below: a block collection.
            self.next_content_line();
            let seq = self.peek() == b'-' && matches!(self.peek_at(self.pos + 1), b' ' | b'\n' | 0);
            let deeper = self.indent > parent
                || (seq && ctx == Ctx::MapValue && self.indent == parent && parent >= 0);
            if self.indent < 0 || !deeper {
                return None;
            }
            let mut at = if tag.is_some() { start } else { self.mark() };
            let indent = self.indent;
            if seq && indent == parent {
                // A sequence at its key's indentation starts, for
                // saphyr-parser, where its first entry's content does.
                let mut p = self.pos + 1;
                while self.peek_at(p) == b' ' {
                    p += 1;
                }
                if tag.is_some() || matches!(self.peek_at(p), b'\n' | b'#' | 0) {
                    return None;
                }
                at = self.marker(p);
            }
            return if seq {
                self.block_seq(indent, tag, at)
            } else {
                self.block_map(indent, tag, at)
            };
        }
        let col = (self.pos - self.line_start) as isize;
        match self.peek() {
            b'-' if matches!(self.peek_at(self.pos + 1), b' ' | b'\n' | 0) => {
                // `- - x`: a sequence in a sequence's entry (or at the root).
                if ctx == Ctx::MapValue || tag.is_some() {
                    return None;
                }
                let at = self.mark();
                self.block_seq(col, None, at)
            }
            b'|' => {
                let (text, first) = self.literal(parent)?;
                // Untagged, saphyr-parser places it at its first line.
                let at = if tag.is_some() { start } else { first };
                self.push(Event::Scalar(text, ScalarStyle::Literal, 0, tag), at);
                self.check_block_end(parent)
            }
            b'[' | b'{' => {
                let at = if tag.is_some() { start } else { self.mark() };
                self.flow_collection(tag, at, parent)?;
                self.end_line()?;
                self.check_block_end(parent)
            }
            _ => {
                let at = self.mark();
                let from = self.pos;
                let (text, style) = self.scalar(false)?;
                if self.is_value_indicator(from) {
                    // A key: a mapping starts here (`- a: 1`, or the root's).
                    if ctx == Ctx::MapValue || tag.is_some() {
                        return None;
                    }
                    return self.block_map_from(None, at, at, text, style);
                }
                let at = if tag.is_some() { start } else { at };
                self.push(Event::Scalar(text, style, 0, tag), at);
                self.end_line()?;
                self.check_block_end(parent)
            }
        }
    }

    /// After a node that ended with its line: the next content must not
    /// be deeper than its holder (that would continue a plain scalar, or
    /// be an error saphyr-parser should report).
    fn check_block_end(&self, parent: isize) -> Option<()> {
        (self.indent <= parent || self.indent < 0).then_some(())
    }

    /// `:` followed by a space or the line's end, at `pos`, after a key
    /// that started at `key_from`; `pos` after it when so.
    fn is_value_indicator(&mut self, key_from: usize) -> bool {
        if self.peek() == b':'
            && matches!(self.peek_at(self.pos + 1), b' ' | b'\n' | 0)
            && self.pos - key_from < MAX_KEY
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A block mapping whose first key starts at `pos`, at column `indent`.
    fn block_map(&mut self, indent: isize, tag: Option<Cow<'a, Tag>>, at: Marker) -> Option<()> {
        debug_assert_eq!(indent, (self.pos - self.line_start) as isize);
        let key_at = self.mark();
        let from = self.pos;
        let (text, style) = self.scalar(false)?;
        if !self.is_value_indicator(from) {
            return None;
        }
        self.block_map_from(tag, at, key_at, text, style)
    }

    /// A block mapping at column `indent` whose first key was read.
    fn block_map_from(
        &mut self,
        tag: Option<Cow<'a, Tag>>,
        at: Marker,
        key_at: Marker,
        key: Cow<'a, str>,
        style: ScalarStyle,
    ) -> Option<()> {
        // Only spaces and `- ` come before a block key: columns are bytes.
        let indent = key_at.col() as isize;
        self.push(Event::MappingStart(0, tag), at);
        self.push(Event::Scalar(key, style, 0, None), key_at);
        loop {
            self.skip_spaces();
            self.node(indent, Ctx::MapValue)?;
            if self.indent != indent {
                if self.indent > indent {
                    return None;
                }
                break;
            }
            // The next key, on a line of this mapping.
            if self.peek() == b'-' && matches!(self.peek_at(self.pos + 1), b' ' | b'\n' | 0) {
                return None;
            }
            let key_at = self.mark();
            let from = self.pos;
            let (text, style) = self.scalar(false)?;
            if !self.is_value_indicator(from) {
                return None;
            }
            self.push(Event::Scalar(text, style, 0, None), key_at);
        }
        let end = self.mark();
        self.push(Event::MappingEnd, end);
        Some(())
    }

    /// A block sequence whose first `-` is at `pos`, column `indent`.
    fn block_seq(&mut self, indent: isize, tag: Option<Cow<'a, Tag>>, at: Marker) -> Option<()> {
        self.push(Event::SequenceStart(0, tag), at);
        loop {
            // `pos` at a `-` followed by a space or the line's end.
            self.pos += 1;
            self.skip_spaces();
            self.node(indent, Ctx::SeqEntry)?;
            if self.indent != indent {
                if self.indent > indent {
                    return None;
                }
                break;
            }
            if !(self.peek() == b'-' && matches!(self.peek_at(self.pos + 1), b' ' | b'\n' | 0)) {
                // The holder mapping's next key (a sequence at its keys'
                // indentation).
                break;
            }
        }
        let end = self.mark();
        self.push(Event::SequenceEnd, end);
        Some(())
    }

    /// A literal block scalar at `pos` (`|` or `|-`, the indentation
    /// found from its first line, which must not be blank); on to the
    /// next content line after it. Also where its first line's content
    /// starts.
    fn literal(&mut self, parent: isize) -> Option<(Cow<'a, str>, Marker)> {
        self.pos += 1;
        let keep_last = match self.peek() {
            b'-' => {
                self.pos += 1;
                false
            }
            _ => true,
        };
        if !self.at_line_end() || !self.advance_line() {
            return None;
        }
        self.skip_spaces();
        let indent = self.pos - self.line_start;
        let first = self.mark();
        if indent as isize <= parent || matches!(self.peek(), b'\n' | 0) {
            return None;
        }
        let mut text = String::new();
        loop {
            // `pos` after the indentation of a content line.
            let from = self.pos;
            let to = memchr::memchr(b'\n', &self.b[from..]).map_or(self.b.len(), |n| from + n);
            text.push_str(&self.text[from..to]);
            // saphyr-parser ends the last line with a break even at the
            // input's end without one.
            text.push('\n');
            if !self.advance_line() {
                // The input ends without a line break: saphyr-parser's
                // positions after it are its own.
                return None;
            }
            self.skip_spaces();
            let col = self.pos - self.line_start;
            match self.peek() {
                // Spaces beyond the indentation are content.
                b'\n' if col > indent => self.pos = self.line_start + indent,
                // An empty line: the scalar's end, unless more of it
                // follows (left to saphyr-parser).
                b'\n' | 0 => {
                    if self.literal_goes_on(indent) {
                        return None;
                    }
                    self.next_content_line();
                    break;
                }
                _ if col >= indent => self.pos = self.line_start + indent,
                b'#' => {
                    // A comment after the scalar, less indented.
                    self.next_content_line();
                    break;
                }
                _ => {
                    self.indent = col as isize;
                    break;
                }
            }
        }
        if !keep_last {
            text.pop();
        }
        Some((Cow::Owned(text), first))
    }

    /// Whether a literal scalar indented by `indent` goes on after the
    /// empty line at `pos`: a later line holds spaces beyond the
    /// indentation, or content at least that indented.
    fn literal_goes_on(&self, indent: usize) -> bool {
        let mut p = self.line_start;
        loop {
            let mut n = 0;
            while self.peek_at(p + n) == b' ' {
                n += 1;
            }
            match self.peek_at(p + n) {
                b'\n' if n > indent => return true,
                b'\n' => p += n + 1,
                0 if p + n >= self.b.len() => return false,
                _ => return n >= indent,
            }
        }
    }

    /// A one-line flow collection at `pos` (`[` or `{`).
    fn flow_collection(
        &mut self,
        tag: Option<Cow<'a, Tag>>,
        at: Marker,
        parent: isize,
    ) -> Option<()> {
        let map = self.peek() == b'{';
        let close = if map { b'}' } else { b']' };
        self.push(
            if map {
                Event::MappingStart(0, tag)
            } else {
                Event::SequenceStart(0, tag)
            },
            at,
        );
        self.pos += 1;
        self.flow_space(parent)?;
        if self.peek() == close {
            self.close_flow(map);
            return Some(());
        }
        loop {
            if map {
                let key_at = self.mark();
                if matches!(self.peek(), b'[' | b'{' | b'!') {
                    return None;
                }
                let from = self.pos;
                let (text, style) = self.scalar(true)?;
                if self.peek() != b':' || self.pos - from >= MAX_KEY {
                    return None;
                }
                self.pos += 1;
                if !matches!(self.peek(), b' ') {
                    return None;
                }
                self.push(Event::Scalar(text, style, 0, None), key_at);
                self.flow_space(parent)?;
                self.flow_node(parent)?;
            } else {
                self.flow_node(parent)?;
                self.skip_spaces();
                if self.peek() == b':' {
                    // `[a: b]`: a one-pair mapping.
                    return None;
                }
            }
            self.flow_space(parent)?;
            match self.peek() {
                b',' => {
                    self.pos += 1;
                    self.flow_space(parent)?;
                    if matches!(self.peek(), b']' | b'}' | b',') {
                        return None;
                    }
                }
                c if c == close => {
                    self.close_flow(map);
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The end of a flow collection, at its `]` or `}`.
    fn close_flow(&mut self, map: bool) {
        let end = self.mark();
        self.pos += 1;
        let ev = if map {
            Event::MappingEnd
        } else {
            Event::SequenceEnd
        };
        self.push(ev, end);
    }

    /// A node inside a flow collection.
    fn flow_node(&mut self, parent: isize) -> Option<()> {
        self.nested(|s| s.flow_node_here(parent))
    }

    fn flow_node_here(&mut self, parent: isize) -> Option<()> {
        let (start, tag) = self.properties()?;
        match self.peek() {
            b'[' | b'{' => {
                let at = if tag.is_some() { start } else { self.mark() };
                self.flow_collection(tag, at, parent)
            }
            _ => {
                let at = if tag.is_some() { start } else { self.mark() };
                let (text, style) = self.scalar(true)?;
                self.push(Event::Scalar(text, style, 0, tag), at);
                Some(())
            }
        }
    }

    /// A one-line scalar at `pos`: quoted, or plain (`flow`: inside a flow
    /// collection, where `,[]{}` end it). `pos` after it.
    fn scalar(&mut self, flow: bool) -> Option<(Cow<'a, str>, ScalarStyle)> {
        match self.peek() {
            b'\'' => self.quoted(b'\'').map(|t| (t, ScalarStyle::SingleQuoted)),
            b'"' => self.quoted(b'"').map(|t| (t, ScalarStyle::DoubleQuoted)),
            _ => self.plain(flow).map(|t| (t, ScalarStyle::Plain)),
        }
    }

    fn plain(&mut self, flow: bool) -> Option<Cow<'a, str>> {
        let b = self.b;
        let start = self.pos;
        let c = self.peek();
        let next = self.peek_at(start + 1);
        let flow_char = |c: u8| matches!(c, b',' | b'[' | b']' | b'{' | b'}');
        match c {
            0 | b'\n' | b' ' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!'
            | b'|' | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => return None,
            b'-' | b'?' | b':' if matches!(next, b' ' | b'\n' | 0) || (flow && flow_char(next)) => {
                return None;
            }
            _ => {}
        }
        let mut p = start;
        let mut end = start;
        while p < b.len() {
            let c = b[p];
            match c {
                b'\n' => break,
                b':' => {
                    let n = self.peek_at(p + 1);
                    if matches!(n, b' ' | b'\n' | 0) || (flow && flow_char(n)) {
                        break;
                    }
                }
                b' ' => {
                    if self.peek_at(p + 1) == b'#' {
                        break;
                    }
                    p += 1;
                    continue;
                }
                c if flow && flow_char(c) => break,
                b'-' if flow && b[p - 1] == b' ' && flow_char(self.peek_at(p + 1)) => {
                    self.refused_dashes.push(p);
                }
                _ => {}
            }
            p += 1;
            end = p;
        }
        self.pos = end;
        Some(Cow::Borrowed(&self.text[start..end]))
    }

    /// A one-line quoted scalar at `pos` (`quote` is `'` or `"`), its
    /// escapes (`''`, or a backslash) resolved; borrowed when it has none.
    fn quoted(&mut self, quote: u8) -> Option<Cow<'a, str>> {
        let b = self.b;
        let start = self.pos + 1;
        let mut p = start;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            let c = *b.get(p)?;
            if c == b'\n' {
                return None;
            }
            let (ch, len) = if c == quote && quote == b'\'' && self.peek_at(p + 1) == b'\'' {
                ('\'', 2)
            } else if c == quote {
                break;
            } else if c == b'\\' && quote == b'"' {
                let (ch, len) = escape(&b[p + 1..])?;
                (ch, 1 + len)
            } else {
                p += 1;
                continue;
            };
            let s = owned.get_or_insert_with(String::new);
            s.push_str(&self.text[run..p]);
            s.push(ch);
            p += len;
            run = p;
        }
        self.pos = p + 1;
        Some(match owned {
            None => Cow::Borrowed(&self.text[start..p]),
            Some(mut s) => {
                s.push_str(&self.text[run..p]);
                Cow::Owned(s)
            }
        })
    }
}

/// The character a double-quoted escape stands for (`rest` follows the
/// backslash) and how many bytes it takes; `None` for a line break or an
/// escape saphyr-parser would refuse.
fn escape(rest: &[u8]) -> Option<(char, usize)> {
    let hex = |n: usize| -> Option<(char, usize)> {
        let digits = std::str::from_utf8(rest.get(1..1 + n)?).ok()?;
        if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(digits, 16).ok()?;
        Some((char::from_u32(v)?, 1 + n))
    };
    let simple = |c: char| Some((c, 1));
    match *rest.first()? {
        b'0' => simple('\0'),
        b'a' => simple('\x07'),
        b'b' => simple('\x08'),
        b't' => simple('\t'),
        b'n' => simple('\n'),
        b'v' => simple('\x0b'),
        b'f' => simple('\x0c'),
        b'r' => simple('\r'),
        b'e' => simple('\x1b'),
        b' ' => simple(' '),
        b'"' => simple('"'),
        b'/' => simple('/'),
        b'\\' => simple('\\'),
        b'N' => simple('\u{85}'),
        b'_' => simple('\u{a0}'),
        b'L' => simple('\u{2028}'),
        b'P' => simple('\u{2029}'),
        b'x' => hex(2),
        b'u' => hex(4),
        b'U' => hex(8),
        _ => None,
    }
}

/// saphyr-parser's events and start positions (line, column) for `text`,
/// or its error message.
fn full_events(text: &str) -> Result<Positioned<'_>, String> {
    let mut p = saphyr_parser::Parser::new_from_str(text);
    let mut out = Vec::new();
    loop {
        match p.next_event() {
            Some(Ok((ev, span))) => {
                let end = ev == Event::StreamEnd;
                out.push((ev, (span.start.line(), span.start.col())));
                if end {
                    return Ok(out);
                }
            }
            Some(Err(e)) => return Err(e.info().to_owned()),
            None => return Err("no end of stream".into()),
        }
    }
}

/// saphyr-parser's message for a plain scalar in a flow collection with a
/// `-` after a blank and before a flow indicator (`[a -]`). YAML 1.2
/// allows it (the scalar is `a -`), libyaml writes and reads it, and so
/// oead; the fast reader reads it too.
const DASH_REFUSAL: &str = "plain scalar cannot start with '-' followed by";

/// `text` with the `-` at each of `dashes` made a `_`: the text
/// saphyr-parser then reads as the fast reader reads the original, but for
/// those characters.
fn without_dashes(text: &str, dashes: &[usize]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &i in dashes {
        b[i] = b'_';
    }
    String::from_utf8(b).expect("only ASCII bytes changed")
}

/// Where the fast reader's reading of `text` differs from saphyr-parser's:
/// `Ok(true)` when it took the text and gave the same events at the same
/// start positions, `Ok(false)` when it left the text to saphyr-parser,
/// and the first difference otherwise. For tests and the fuzz target.
///
/// Where saphyr-parser refuses a `-` that YAML allows (see
/// [`DASH_REFUSAL`]), the fast reader's events are compared with
/// saphyr-parser's on the text with those dashes made `_`, a scalar's `-`
/// and `_` taken as equal.
pub fn compare_with_full_parser(text: &str) -> Result<bool, String> {
    let Some((fast, refused_dashes)) = scan_keeping_dashes(text) else {
        return Ok(false);
    };
    let patched;
    let (full, dashes) = match full_events(text) {
        Ok(full) => (full, false),
        Err(e) if e.contains(DASH_REFUSAL) => {
            patched = without_dashes(text, &refused_dashes);
            let full = full_events(&patched).map_err(|e| {
                format!("saphyr-parser refuses a text the fast reader took, dashes aside: {e}")
            })?;
            (full, true)
        }
        Err(e) => {
            return Err(format!(
                "saphyr-parser refuses a text the fast reader took: {e}"
            ))
        }
    };
    let same = |a: &Event<'_>, b: &Event<'_>| match (a, b) {
        (Event::Scalar(x, sx, ax, tx), Event::Scalar(y, sy, ay, ty)) if dashes => {
            x.replace('_', "-") == y.replace('_', "-") && (sx, ax, tx) == (sy, ay, ty)
        }
        _ => a == b,
    };
    let fast: Vec<(Event<'_>, Span)> = fast.collect();
    for (i, ((ev, span), (full_ev, at))) in fast.iter().zip(&full).enumerate() {
        let here = (span.start.line(), span.start.col());
        if !same(ev, full_ev) || here != *at {
            return Err(format!(
                "event {i}: fast {ev:?} at {here:?}, saphyr-parser {full_ev:?} at {at:?}"
            ));
        }
    }
    if fast.len() != full.len() {
        return Err(format!(
            "{} events, saphyr-parser {}",
            fast.len(),
            full.len()
        ));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the fast reader took `text`; a reading that differs from
    /// saphyr-parser's fails the test.
    fn agrees(text: &str) -> bool {
        compare_with_full_parser(text).unwrap_or_else(|e| panic!("{e} in:\n{text}"))
    }

    /// A text of one long line is read in one pass: positions along the
    /// line are counted on, not from the line's start each time (which took
    /// minutes on this text).
    #[test]
    fn a_long_line_is_read_in_linear_time() {
        let items: Vec<String> = (0..200_000).map(|i| format!("é{i}")).collect();
        let text = format!("a: [{}]\n", items.join(", "));
        let events: Vec<(Event<'_>, Span)> = scan(&text).expect("taken").collect();
        assert_eq!(events.len(), 200_000 + 9);
        let (last, span) = &events[200_000 + 4];
        assert_eq!(
            last,
            &Event::Scalar("é199999".into(), ScalarStyle::Plain, 0, None)
        );
        assert_eq!(
            span.start.col(),
            text.chars().count() - "é199999]\n".chars().count()
        );
    }

    /// libyaml (and so oead) writes `[a -]` for the string `a -`;
    /// saphyr-parser refuses it, the fast reader reads it as YAML says.
    #[test]
    fn a_dash_before_a_flow_indicator_ends_a_plain_scalar() {
        let text = "a: [x -, y -  ]\n";
        assert!(saphyr_parser::Parser::new_from_str(text).any(|e| e.is_err()));
        let scalars: Vec<_> = scan(text)
            .expect("taken")
            .filter_map(|(ev, _)| match ev {
                Event::Scalar(s, ..) => Some(s.into_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(scalars, ["a", "x -", "y -"]);
    }

    #[test]
    fn small_texts_read_as_saphyr_reads_them() {
        let taken = [
            "a: 1\n",
            "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects: {}\n  lists: {}\n",
            "a:\n- 1\n- 2\nb: x\n",
            "a:\n  - 1\n  - 2\nb: x\n",
            "- a: 1\n  b: [1, 2, 3]\n- c: {x: 1, y: 'q''s'}\n",
            "- - 1\n  - 2\n- 3\n",
            "# c\n\na: \"x\\ty\\u00e9\" # c\nb: !vec3 [1.0, 2.0, 3.0]\n",
            "k: é ü\nl: ü\n",
            "---\na: 1\n",
            "a: !!binary AAEC\n",
            "a: [!u 1, !l -2, !!binary AA==]\n",
            "a: [[1, 2], {}, []]\n",
            "'quoted key': 1\n\"dq\": 2\n",
            "a: b:c\nd: -1\ne: :x\n",
            "a: 1\n\n\n# trailing\n",
            "a: [1, 2,\n  3, {b: 1,\n    c: 2}]\nd: 1\n",
            "- [1,\n  2]\n- 3\n",
            "a: !!binary |\n  AAAA\n    BBBB\n  CC\n# c\nb: 1\n",
            "a: |-\n  x\n  y\n",
            "a: |\n  x\n\n\nb: |\n  y\n",
            "- |\n  x\n- 1\n",
            "a: |\n  x\n     \n  y\n\nb: 1\n",
            "a: ---x\nb: ...\n",
            "a: [x -, y -  ]\nb: {k: x -}\n",
            "- - [0& -5z -,0.]\n",
            &format!("{}: {{{}: 2}}\n", "k".repeat(999), "j".repeat(999)),
        ];
        for t in taken {
            assert!(
                agrees(t),
                "the fast reader leaves this to saphyr-parser:\n{t}"
            );
        }
        let left = [
            "a: &x 1\nb: *x\n",
            "a: x\n  y\n",
            "a:\tx\n",
            "a: 1\r\n",
            "%YAML 1.2\n---\na: 1\n",
            "? a\n: b\n",
            "a: 1\n---\nb: 2\n",
            "",
            "a: 'x\n  y'\n",
            "a: b: c\n",
            "a: |\n\n  x\n",
            "a: |\n  x\n\n  y\n",
            "a: >\n  x\n",
            "a: |2\n   x\n",
            "a: [1,\n2]\n",
            "a: [1, # c\n  2]\n",
            "a: |\n  x",
            &"[".repeat(MAX_DEPTH + 1),
            "a: 1",
            &format!(
                "{}1{}",
                "[".repeat(MAX_DEPTH + 1),
                "]".repeat(MAX_DEPTH + 1)
            ),
        ];
        for t in left {
            assert!(!agrees(t), "the fast reader took:\n{t}");
        }
    }
}
