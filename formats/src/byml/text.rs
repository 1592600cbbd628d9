//! BYML as YAML, in the dialect BotW and TotK modders edit (oead's, also
//! read and written by roead).
//!
//! ```yaml
//! # BYML version 2, little-endian
//! Objs:
//! - HashId: !u 0x00af0d14
//!   Translate: [-4046.61353, 300.584900, -3327.34229]
//!   UnitConfigName: Obj_TreeConiferous_A_Snow_01
//! ```
//!
//! # The dialect
//!
//! - A hash is a mapping, an array a sequence; a container of at most 10
//!   items none of which is a container is written in flow style
//!   (`[1, 2]`, `{X: 0.0, Y: 1.0}`), the others in block style, as oead
//!   does. An empty document is `null`.
//! - Values: `true`/`false`; a plain integer (s32); a plain float (f32,
//!   printed as oead prints it, `%.9g`, which reads back to the same bits);
//!   `!u 0x0000002a` (u32); `!l N` (s64); `!ul N` (u64); `!f64 X` (f64, the
//!   shortest text that reads back to the same bits); a string, quoted when
//!   it would read back as something else; `null`; `!!binary BASE64`
//!   (bytes); `!!file BASE64` (bytes aligned to 0x1000, roead's name for
//!   node 0xA2), `!file/N BASE64` for another alignment N (decimal). A NaN
//!   other than the canonical one is `!f32 0xXXXXXXXX` / `!f64 0x…` (its
//!   bits).
//! - A map keyed by 32-bit hashes (version 7, node 0x20) is a mapping
//!   tagged `!h` whose keys are the hashes in decimal, as roead writes and
//!   reads it (`Flags: !h {1142451046: 3, 2504544215: false}`); reading
//!   also takes hex keys. roead's `!vh` (node 0x21) is refused.
//! - **Key order.** oead and roead list a hash's keys sorted; this writer
//!   lists them in the order the file placed what they lead to, which is
//!   not key order in most BotW files. YAML mappings are unordered, so
//!   oead and roead read the same document either way, and reading this
//!   text back gives the original bytes: the writer places a hash's children
//!   in the order the text lists them.
//! - **Version and byte order** are not part of oead's dialect. The first
//!   line records them as a comment that other readers ignore:
//!   `# BYML version 2, little-endian`. Reading takes them from there,
//!   unless the caller gives them. A document whose writer stored equal
//!   containers apart (`Header::shares_equal` false, TotK's `.bgyml`) adds
//!   `, equal containers apart` to that line, and a version 1 header's
//!   path table offset, when not 0, `, path table 0x…`.
//!
//! Reading accepts the same text, oead's and roead's (keys in any order,
//! `!u` in decimal or hex, roead's `!!file`), the core tags `!!str`,
//! `!!int`, `!!float`, `!!bool`, `!!null`, and resolves plain scalars as
//! oead does. Errors name the line and column and what was expected: an
//! integer out of range for its type (with the tag that fits), an unknown
//! tag, bad base64, a key given twice, a root that is not a container.

use super::schema::{AlignedBinary, HashMap, HashMapEntry};
use super::{Array, Container, Entry, Hash, Header, Node, Variant};
use crate::yaml::emit::{Writer, INDENT, MAX_SIMPLE_KEY};
use crate::yaml::number::{self, FloatText, Plain, CANONICAL_NAN};
use crate::yaml::read::{describe, err, tag_text, Events, Scalar};
use crate::yaml::TextError;
use base64::Engine as _;
use codec_runtime::Str;
use saphyr_parser::{Event, Span};
use std::fmt::Write as _;

/// The tag of a map keyed by 32-bit hashes (node 0x20), roead's.
const HASH_MAP_TAG: &str = "!h";

/// The alignment `!!file` stands for (what roead writes and the known files
/// hold).
const FILE_ALIGNMENT: u32 = 0x1000;

/// The most items a container may have to be written in flow style.
const FLOW_MAX_ITEMS: usize = 10;
// `Emitter::hash` notes its flow keys in a `u32`.
const _: () = assert!(FLOW_MAX_ITEMS <= 32);

/// The deepest nesting read from text (real files nest a few levels; this
/// bounds the recursion): no deeper than decode reads a binary file, so
/// that a text read in comes back from its binary. Decode counts the
/// records it is inside: the root's offset, one per array, and two per
/// hash (the hash and the entry whose value leads on).
const MAX_DEPTH: usize = codec_runtime::reader::DEFAULT_MAX_DEPTH as usize - 1;

/// Version, byte order and the writer's sharing, as the first line of the
/// text records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub version: u16,
    pub big_endian: bool,
    /// `Header::shares_equal`: recorded only when false, as
    /// `, equal containers apart`.
    pub shares_equal: bool,
    /// `Header::path_table` (version 1): recorded only when not 0, as
    /// `, path table 0x…`.
    pub path_table: u32,
}

/// How the first line says that equal containers are written apart.
const APART: &str = "equal containers apart";

/// How the first line gives a version 1 header's path table offset.
const PATH_TABLE: &str = "path table";

impl Layout {
    /// The variant that writes this layout.
    pub fn variant(self) -> Variant {
        match (self.version, self.big_endian) {
            (1, false) => Variant::V1Le,
            (1, true) => Variant::V1Be,
            (_, false) => Variant::Le,
            (_, true) => Variant::Be,
        }
    }

    /// The first line of the text: `# BYML version 2, little-endian`, and
    /// `, equal containers apart` for a document whose writer did not share
    /// them.
    pub fn comment(self) -> String {
        let mut out = format!(
            "# BYML version {}, {}-endian",
            self.version,
            if self.big_endian { "big" } else { "little" },
        );
        if !self.shares_equal {
            out.push_str(", ");
            out.push_str(APART);
        }
        if self.path_table != 0 {
            let _ = write!(out, ", {PATH_TABLE} 0x{:x}", self.path_table);
        }
        out
    }

    /// Reads the comment line [`Layout::comment`] writes, if the text
    /// starts with one: the version and byte order when it gives them;
    /// whether equal containers are shared (yes unless it says otherwise)
    /// and the path table offset (0 unless it gives one).
    pub fn from_comment(text: &str) -> Said {
        let mut said = Said {
            version: None,
            big_endian: None,
            shares_equal: true,
            path_table: 0,
        };
        let first = text.trim_start_matches('\u{FEFF}').lines().next();
        let Some(rest) = first.and_then(|l| l.trim().strip_prefix('#')) else {
            return said;
        };
        let Some(rest) = rest.trim_start().strip_prefix("BYML") else {
            return said;
        };
        for part in rest.split(',') {
            let part = part.trim();
            if let Some(v) = part.strip_prefix("version") {
                said.version = v.trim().parse().ok();
            } else if part == "little-endian" {
                said.big_endian = Some(false);
            } else if part == "big-endian" {
                said.big_endian = Some(true);
            } else if part == APART {
                said.shares_equal = false;
            } else if let Some(hex) = part
                .strip_prefix(PATH_TABLE)
                .and_then(|v| v.trim().strip_prefix("0x"))
            {
                said.path_table = u32::from_str_radix(hex, 16).unwrap_or(0);
            }
        }
        said
    }
}

/// What the first line of a BYML text says (see [`Layout::from_comment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Said {
    pub version: Option<u16>,
    pub big_endian: Option<bool>,
    pub shares_equal: bool,
    pub path_table: u32,
}

/// Whether `text` starts with the comment line that [`to_yaml`] writes.
pub fn looks_like_byml_text(text: &str) -> bool {
    text.trim_start_matches('\u{FEFF}')
        .lines()
        .next()
        .is_some_and(|l| l.trim().starts_with("# BYML version"))
}

/// Writes `doc` as YAML in oead's dialect, its version and byte order in
/// the first line.
///
/// ```
/// use formats::byml::{text, Container, Entry, Hash, Header, Node, Variant};
/// let doc = Header {
///     version: 2,
///     path_table: 0,
///     shares_equal: true,
///     root: Some(Container::Hash(Hash {
///         entries: vec![
///             Entry { key: "Speed".into(), value: Node::Float(1.5) },
///             Entry { key: "Id".into(), value: Node::UInt(42) },
///         ],
///     })),
/// };
/// let yaml = text::to_yaml(&doc, Variant::Le);
/// // A short container of leaves is written in flow style, the root too (as oead does).
/// assert_eq!(yaml, "# BYML version 2, little-endian\n{Speed: 1.5, Id: !u 0x0000002a}\n");
/// assert_eq!(text::from_yaml(&yaml, None, None).unwrap(), (Variant::Le, doc));
/// ```
pub fn to_yaml(doc: &Header, variant: Variant) -> String {
    let layout = Layout {
        version: doc.version,
        big_endian: matches!(variant, Variant::Be | Variant::V1Be),
        shares_equal: doc.shares_equal,
        path_table: doc.path_table,
    };
    let mut e = Emitter {
        w: Writer::new(4096),
        scratch: String::new(),
    };
    e.w.out.extend_from_slice(layout.comment().as_bytes());
    e.w.put_break();
    match &doc.root {
        None => e.w.plain("null"),
        Some(Container::Array(a)) => e.array(a, 0, Context::Root),
        Some(Container::Hash(h)) => e.hash(h, 0, Context::Root),
        Some(Container::HashMap(m)) => e.hash_map(m, 0, Context::Root),
    }
    e.w.write_indent(0);
    e.w.into_string()
}

/// Where a container is written: libyaml indents by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Root,
    /// The value of a block mapping's key.
    Value,
    /// An item of a block sequence.
    Item,
}

fn is_leaf(n: &Node) -> bool {
    !matches!(n, Node::Array(_) | Node::Hash(_) | Node::HashMap(_))
}

/// A key written as itself in a flow mapping (see [`crate::yaml::emit::is_plain_word`]).
fn is_word(k: &str) -> bool {
    k.len() <= MAX_SIMPLE_KEY && crate::yaml::emit::is_plain_word(k)
}

/// A key libyaml writes as a simple key (`key: value`).
fn is_simple_key(k: &str) -> bool {
    // The line breaks are `\n`, `\r` or begin with 0xC2 or 0xE2 in UTF-8:
    // the exact search runs only where such a byte is.
    k.len() <= MAX_SIMPLE_KEY
        && (!k.bytes().any(|b| matches!(b, b'\n' | b'\r' | 0xC2 | 0xE2))
            || !k.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']))
}

struct Emitter {
    w: Writer,
    scratch: String,
}

impl Emitter {
    /// The indentation of a block collection's entries, from its parent's.
    fn block_indent(parent: usize, ctx: Context, sequence: bool) -> usize {
        match ctx {
            Context::Root => 0,
            // A sequence under a key is not indented (libyaml's "indentless").
            Context::Value if sequence => parent,
            Context::Value | Context::Item => parent + INDENT,
        }
    }

    fn flow_indent(parent: usize, ctx: Context) -> usize {
        match ctx {
            Context::Root => INDENT,
            _ => parent + INDENT,
        }
    }

    fn array(&mut self, a: &Array, parent: usize, ctx: Context) {
        if a.items.len() <= FLOW_MAX_ITEMS && a.items.is_inline()
            || a.items.iter().all(|n| is_leaf(&n))
        {
            let indent = Self::flow_indent(parent, ctx);
            self.w.flow_start("[");
            for (i, item) in a.items.iter().enumerate() {
                self.w.flow_item(i == 0, indent);
                self.scalar(&item, indent, true);
            }
            self.w.flow_end("]");
            return;
        }
        let indent = Self::block_indent(parent, ctx, true);
        for item in &a.items {
            self.w.block_item(indent);
            self.node(&item, indent, Context::Item);
        }
    }

    fn hash(&mut self, h: &Hash, parent: usize, ctx: Context) {
        // Flow style when every value is a leaf and every key simple; the
        // keys that are plain words are noted so that they are not scanned
        // again when written.
        let mut words = 0u32;
        let flow = h.entries.len() <= FLOW_MAX_ITEMS
            && h.entries.iter().enumerate().all(|(i, e)| {
                is_leaf(&e.value)
                    && if is_word(&e.key) {
                        words |= 1 << i;
                        true
                    } else {
                        is_simple_key(&e.key)
                    }
            });
        if flow {
            let indent = Self::flow_indent(parent, ctx);
            self.w.flow_start("{");
            for (i, e) in h.entries.iter().enumerate() {
                self.w.flow_item(i == 0, indent);
                if words & (1 << i) != 0 {
                    self.w.flow_key_word(&e.key);
                } else {
                    self.w.flow_key(&e.key, indent);
                }
                self.scalar(&e.value, indent, true);
            }
            self.w.flow_end("}");
            return;
        }
        let indent = Self::block_indent(parent, ctx, false);
        for e in &h.entries {
            self.w.block_key(&e.key, indent);
            self.node(&e.value, indent, Context::Value);
        }
    }

    /// A map keyed by hashes (version 7, node 0x20): a mapping tagged
    /// `!h` whose keys are the hashes in decimal, as roead writes and reads
    /// it; flow style on the rule for hashes.
    fn hash_map(&mut self, m: &HashMap, parent: usize, ctx: Context) {
        self.w.write_tag(HASH_MAP_TAG);
        let mut key = String::new();
        let mut key_of = |e: &HashMapEntry| {
            key.clear();
            let _ = write!(key, "{}", e.hash);
            key.clone()
        };
        if m.entries.len() <= FLOW_MAX_ITEMS && m.entries.iter().all(|e| is_leaf(&e.value)) {
            let indent = Self::flow_indent(parent, ctx);
            self.w.flow_start("{");
            for (i, e) in m.entries.iter().enumerate() {
                self.w.flow_item(i == 0, indent);
                self.w.flow_key_word(&key_of(e));
                self.scalar(&e.value, indent, true);
            }
            self.w.flow_end("}");
            return;
        }
        let indent = Self::block_indent(parent, ctx, false);
        for e in &m.entries {
            self.w.key_word(&key_of(e), indent);
            self.node(&e.value, indent, Context::Value);
        }
    }

    /// A node inside a block collection whose entries are at `indent`.
    fn node(&mut self, n: &Node, indent: usize, ctx: Context) {
        match n {
            Node::Array(a) => self.array(a, indent, ctx),
            Node::Hash(h) => self.hash(h, indent, ctx),
            Node::HashMap(m) => self.hash_map(m, indent, ctx),
            leaf => self.scalar(leaf, indent, false),
        }
    }

    /// A leaf inside a collection at `indent` (long strings continue one
    /// level deeper, as libyaml does).
    fn scalar(&mut self, n: &Node, indent: usize, flow: bool) {
        let fold = indent + INDENT;
        self.scratch.clear();
        match n {
            Node::String(s) => self.w.string(s, None, flow, fold),
            Node::Binary(data) => {
                let text = base64::engine::general_purpose::STANDARD.encode(data);
                self.w.string(&text, Some("!!binary"), flow, fold);
            }
            Node::File(f) => {
                let text = base64::engine::general_purpose::STANDARD.encode(&f.data);
                let tag = if f.alignment == FILE_ALIGNMENT {
                    "!!file".to_owned()
                } else {
                    format!("!file/{}", f.alignment)
                };
                self.w.string(&text, Some(&tag), flow, fold);
            }
            Node::Bool(b) => self.w.plain(if *b { "true" } else { "false" }),
            Node::Int(v) => self.w.int(i64::from(*v)),
            Node::Float(v) => {
                if let FloatText::Bits(bits) = self.w.float(*v) {
                    self.w.write_tag("!f32");
                    self.w.hex32(bits);
                }
            }
            Node::UInt(v) => {
                self.w.write_tag("!u");
                self.w.hex32(*v);
            }
            Node::Int64(v) => {
                self.w.write_tag("!l");
                self.w.int(*v);
            }
            Node::UInt64(v) => {
                self.w.write_tag("!ul");
                self.w.uint(*v);
            }
            Node::Double(v) => {
                self.w.write_tag("!f64");
                push_f64(&mut self.scratch, *v);
                self.w.plain(&self.scratch);
            }
            Node::Null(()) => self.w.plain("null"),
            Node::Array(_) | Node::Hash(_) | Node::HashMap(_) => {
                unreachable!("containers are not leaves")
            }
        }
    }
}

/// The quiet NaN that `.nan` stands for in f64.
const CANONICAL_NAN_64: u64 = 0x7FF8_0000_0000_0000;

/// Appends `v` as the shortest text that reads back to the same bits
/// (`.0` added to integers), `.inf`, `-.inf`, `.nan`, or for another NaN
/// its bits in hex.
fn push_f64(out: &mut String, v: f64) {
    if v.is_nan() {
        if v.to_bits() == CANONICAL_NAN_64 {
            out.push_str(".nan");
        } else {
            let _ = write!(out, "0x{:016x}", v.to_bits());
        }
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { ".inf" } else { "-.inf" });
    } else {
        let start = out.len();
        let _ = write!(out, "{v:?}");
        if !out[start..].contains(['.', 'e', 'E']) {
            out.push_str(".0");
        }
    }
}

/// Reads a BYML YAML document (oead's or roead's dialect, or this
/// module's). The version and byte order come from `version` and
/// `big_endian` when given, else from the text's first line; it is an
/// error when neither says.
pub fn from_yaml(
    text: &str,
    version: Option<u16>,
    big_endian: Option<bool>,
) -> Result<(Variant, Header), TextError> {
    let said = Layout::from_comment(text);
    let (said_version, said_big) = (said.version, said.big_endian);
    let (shares_equal, path_table) = (said.shares_equal, said.path_table);
    let at_start = |message: String| TextError {
        line: 1,
        column: 1,
        message,
    };
    let version = version.or(said_version).ok_or_else(|| {
        at_start("the text does not say which BYML version to write (no `# BYML version N, little-endian` first line); give it (BotW: 2, TotK: 7)".into())
    })?;
    if !(1..=7).contains(&version) {
        return Err(at_start(format!(
            "BYML version {version} is not one of 1 to 7"
        )));
    }
    let big_endian = big_endian.or(said_big).ok_or_else(|| {
        at_start("the text does not say the byte order (no `# BYML version N, little-endian` first line); give it (Switch: little, Wii U: big)".into())
    })?;
    let layout = Layout {
        version,
        big_endian,
        shares_equal,
        path_table,
    };
    let mut r = Reader {
        events: Events::new(text),
        depth: 0,
        max_items: MAX_ITEMS,
    };
    r.events
        .document_start("empty input: expected a BYML document (a mapping, a sequence or null)")?;
    let (ev, span) = r.events.next()?;
    let root = match ev {
        Event::MappingStart(..) if is_hash_map(&ev) => Some(Container::HashMap(r.hash_map(span)?)),
        Event::MappingStart(..) => Some(Container::Hash(r.hash(&ev, span)?)),
        Event::SequenceStart(..) => Some(Container::Array(r.array(&ev, span)?)),
        Event::Scalar(text, style, _, tag)
            if tag.is_none()
                && style == saphyr_parser::ScalarStyle::Plain
                && matches!(&*text, "null" | "~" | "") =>
        {
            None
        }
        other => {
            return Err(err(
                span,
                format!(
                    "expected the root: a mapping (hash), a sequence (array) or null, found {}",
                    describe(&other)
                ),
            ))
        }
    };
    r.events.document_end("a BYML text holds exactly one")?;
    Ok((
        layout.variant(),
        Header {
            version,
            path_table,
            root,
            shares_equal,
        },
    ))
}

struct Reader<'a> {
    events: Events<'a>,
    depth: usize,
    /// The most items one container may list ([`MAX_ITEMS`]; smaller in
    /// tests).
    max_items: usize,
}

impl<'a> Reader<'a> {
    /// Goes one container deeper; `levels` is what decode counts for it
    /// (see [`MAX_DEPTH`]).
    fn enter(&mut self, span: Span, levels: usize) -> Result<(), TextError> {
        self.depth += levels;
        if self.depth > MAX_DEPTH {
            return Err(err(
                span,
                format!(
                    "containers nested deeper than a binary file may hold ({MAX_DEPTH} levels, a hash counting two)"
                ),
            ));
        }
        Ok(())
    }

    /// A container's tag must be absent (`!h` is read before this, by
    /// [`Reader::hash_map`]; roead's `!vh` is refused).
    fn plain_container(ev: &Event<'_>, span: Span) -> Result<(), TextError> {
        let tag = match ev {
            Event::MappingStart(_, tag) | Event::SequenceStart(_, tag) => tag.as_deref(),
            _ => None,
        };
        match tag {
            None => Ok(()),
            Some(t) if t.is_yaml_core_schema() && matches!(t.suffix.as_str(), "map" | "seq") => {
                Ok(())
            }
            Some(t) => Err(err(
                span,
                format!(
                    "unknown container tag {}{}",
                    tag_text(t),
                    if t.suffix == "vh" {
                        " (node 0x21 is not supported: roead reads its entries as a value, a hash and a word, BymlLibrary as a 64-bit hash and a value, and no file is known to settle it)"
                    } else {
                        ""
                    }
                ),
            )),
        }
    }

    /// The entries of a mapping whose start was just read: each key read by
    /// `key` from its event, once, then its value. A hash and a hash-keyed
    /// map both count two levels, as decode does.
    fn entries<K>(
        &mut self,
        span: Span,
        mut key: impl FnMut(Event<'a>, Span) -> Result<K, TextError>,
    ) -> Result<Vec<(K, Node)>, TextError>
    where
        K: Eq + std::hash::Hash + Clone + std::fmt::Display,
    {
        self.enter(span, 2)?;
        let start = span;
        let mut entries = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        loop {
            let (ev, span) = self.events.next()?;
            if matches!(ev, Event::MappingEnd) {
                break;
            }
            if entries.len() == self.max_items {
                return Err(too_many(start, "hash", self.max_items));
            }
            let k = key(ev, span)?;
            if !seen.insert(k.clone()) {
                return Err(err(span, format!("the key `{k}` appears twice")));
            }
            entries.push((k, self.node()?));
        }
        self.depth -= 2;
        Ok(entries)
    }

    fn hash(&mut self, ev: &Event<'_>, span: Span) -> Result<Hash, TextError> {
        Self::plain_container(ev, span)?;
        let entries = self.entries(span, |ev, span| match ev {
            Event::Scalar(text, ..) => Ok(text),
            other => Err(err(
                span,
                format!(
                    "expected a key (a string), found {} (BYML keys are strings)",
                    describe(&other)
                ),
            )),
        })?;
        Ok(Hash {
            entries: entries
                .into_iter()
                .map(|(key, value)| Entry {
                    key: Str::from(&*key),
                    value,
                })
                .collect(),
        })
    }

    /// A mapping tagged `!h`: a map keyed by 32-bit hashes, its keys
    /// integers (decimal as roead writes them, or hex).
    fn hash_map(&mut self, span: Span) -> Result<HashMap, TextError> {
        let entries = self.entries(span, |ev, span| {
            let what = "expected a key (a 32-bit hash, as an integer) of the `!h` map";
            match Scalar::of(ev, span) {
                Ok(key) => Ok(int_in(&key, 0, i128::from(u32::MAX), "a u32 key hash")? as u32),
                Err(other) => Err(err(span, format!("{what}, found {}", describe(&other)))),
            }
        })?;
        Ok(HashMap {
            entries: entries
                .into_iter()
                .map(|(hash, value)| HashMapEntry { hash, value })
                .collect(),
        })
    }

    fn array(&mut self, ev: &Event<'_>, span: Span) -> Result<Array, TextError> {
        Self::plain_container(ev, span)?;
        self.enter(span, 1)?;
        let start = span;
        let mut items = Vec::new();
        loop {
            let (ev, span) = self.events.next()?;
            let item = match ev {
                Event::SequenceEnd => break,
                _ if items.len() == self.max_items => {
                    return Err(too_many(start, "array", self.max_items))
                }
                ev => self.node_from(ev, span)?,
            };
            items.push(item);
        }
        self.depth -= 1;
        Ok(Array {
            items: items.into(),
        })
    }

    fn node(&mut self) -> Result<Node, TextError> {
        let (ev, span) = self.events.next()?;
        self.node_from(ev, span)
    }

    fn node_from(&mut self, ev: Event<'a>, span: Span) -> Result<Node, TextError> {
        match ev {
            Event::MappingStart(..) if is_hash_map(&ev) => Ok(Node::HashMap(self.hash_map(span)?)),
            Event::MappingStart(..) => Ok(Node::Hash(self.hash(&ev, span)?)),
            Event::SequenceStart(..) => Ok(Node::Array(self.array(&ev, span)?)),
            other => match Scalar::of(other, span) {
                Ok(s) => scalar_node(s),
                Err(other) => Err(err(
                    span,
                    format!("expected a value, found {}", describe(&other)),
                )),
            },
        }
    }
}

/// Is `ev` the start of a mapping tagged `!h`?
fn is_hash_map(ev: &Event<'_>) -> bool {
    matches!(ev, Event::MappingStart(_, Some(t)) if t.handle == "!" && t.suffix == "h")
}

const TAGS: &str =
    "!u, !l, !ul, !f64, !f32, !!binary, !!file, !file/N, !!str, !!int, !!float, !!bool, !!null";

/// The most items a BYML container holds: its count is 24 bits. A text
/// that lists more is refused where the container starts, as soon as the
/// count is passed (not after the whole list is in memory).
const MAX_ITEMS: usize = 0xff_ffff;

fn too_many(start: Span, what: &str, max: usize) -> TextError {
    err(
        start,
        format!("this {what} holds more than {max} items, the most a BYML container can count (24 bits)"),
    )
}

/// An integer within `min..=max` (`what` names the type for the error).
fn int_in(s: &Scalar<'_>, min: i128, max: i128, what: &str) -> Result<i128, TextError> {
    s.int_in(min, max, what)
}

fn float_of(s: &Scalar<'_>) -> Result<f64, TextError> {
    let t = s.text.trim();
    let v = number::parse_float(t)
        .or_else(|| number::parse_int(t).map(|n| n as f64))
        .ok_or_else(|| err(s.span, format!("expected a number, found `{}`", s.text)))?;
    if v.is_infinite() && !number::is_inf_literal(t) {
        return Err(err(
            s.span,
            format!(
                "{} is out of range for a double (write .inf for infinity)",
                s.text
            ),
        ));
    }
    Ok(v)
}

/// An f64 rounded to f32; a finite value beyond f32's range is an error.
fn to_f32(v: f64, s: &Scalar<'_>) -> Result<f32, TextError> {
    let f = v as f32;
    if f.is_infinite() && (v.is_finite() || !number::is_inf_literal(&s.text)) {
        return Err(err(
            s.span,
            format!(
                "{} is out of range for an f32; write `!f64 {}` for a double",
                s.text, s.text
            ),
        ));
    }
    Ok(f)
}

/// A hex integer written where a float's bits are meant (`!f32 0x7fc00001`).
fn float_bits(s: &Scalar<'_>) -> Option<u64> {
    let t = s.text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    u64::from_str_radix(hex, 16).ok()
}

fn base64_of(s: &Scalar<'_>) -> Result<Vec<u8>, TextError> {
    let compact: String = s.text.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| err(s.span, format!("invalid base64: {e}")))
}

fn scalar_node(s: Scalar<'_>) -> Result<Node, TextError> {
    let Some(tag) = s.tag.as_deref() else {
        if s.quoted() {
            return Ok(Node::String(Str::from(&*s.text)));
        }
        return Ok(match number::resolve_plain(&s.text) {
            Plain::Bool(b) => Node::Bool(b),
            Plain::Int(n) => {
                if !(i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(&n) {
                    return Err(err(
                        s.span,
                        format!(
                            "{} is out of range for an s32 (-2147483648 to 2147483647); write `!u`, `!l` or `!ul` before it for a u32, s64 or u64",
                            s.text
                        ),
                    ));
                }
                Node::Int(n as i32)
            }
            Plain::Float(v) => Node::Float(if v.is_nan() {
                f32::from_bits(CANONICAL_NAN)
            } else {
                to_f32(v, &s)?
            }),
            Plain::Null => Node::Null(()),
            Plain::Str => Node::String(Str::from(&*s.text)),
        });
    };
    let local = tag.handle == "!";
    let core = tag.is_yaml_core_schema();
    let suffix = tag.suffix.as_str();
    Ok(match (local, core, suffix) {
        (true, _, "u") => Node::UInt(int_in(&s, 0, i128::from(u32::MAX), "a u32")? as u32),
        (true, _, "l") => {
            Node::Int64(int_in(&s, i128::from(i64::MIN), i128::from(i64::MAX), "an s64")? as i64)
        }
        (true, _, "ul") => Node::UInt64(int_in(&s, 0, i128::from(u64::MAX), "a u64")? as u64),
        (true, _, "f64") => Node::Double(match float_bits(&s) {
            Some(bits) => f64::from_bits(bits),
            None => {
                let v = float_of(&s)?;
                if v.is_nan() {
                    f64::from_bits(CANONICAL_NAN_64)
                } else {
                    v
                }
            }
        }),
        (true, _, "f32") => Node::Float(match float_bits(&s) {
            Some(bits) => f32::from_bits(u32::try_from(bits).map_err(|_| {
                err(
                    s.span,
                    format!("{} does not fit the 32 bits of an f32", s.text),
                )
            })?),
            None => to_f32(float_of(&s)?, &s)?,
        }),
        (_, true, "binary") => Node::Binary(base64_of(&s)?.into()),
        (_, true, "file") => Node::File(AlignedBinary {
            alignment: FILE_ALIGNMENT,
            data: base64_of(&s)?.into(),
        }),
        (true, _, f) if f.starts_with("file/") => {
            let alignment = f["file/".len()..].parse::<u32>().map_err(|_| {
                err(
                    s.span,
                    format!("!{f}: expected !file/N with N the alignment in decimal"),
                )
            })?;
            Node::File(AlignedBinary {
                alignment,
                data: base64_of(&s)?.into(),
            })
        }
        (_, true, "str") => Node::String(Str::from(&*s.text)),
        (_, true, "int") => {
            Node::Int(int_in(&s, i128::from(i32::MIN), i128::from(i32::MAX), "an s32")? as i32)
        }
        (_, true, "float") => Node::Float(to_f32(float_of(&s)?, &s)?),
        (_, true, "bool") => match s.text.trim() {
            "true" | "True" | "TRUE" => Node::Bool(true),
            "false" | "False" | "FALSE" => Node::Bool(false),
            other => {
                return Err(err(
                    s.span,
                    format!("expected true or false, found `{other}`"),
                ))
            }
        },
        (_, true, "null") => Node::Null(()),
        _ => {
            return Err(err(
                s.span,
                format!("unknown tag {}; expected {TAGS}", tag_text(tag)),
            ))
        }
    })
}

#[cfg(test)]
mod limits {
    use super::*;

    /// Reads `text`'s root container with at most `max` items per container.
    fn read(text: &str, max: usize) -> Result<(), TextError> {
        let mut r = Reader {
            events: Events::new(text),
            depth: 0,
            max_items: max,
        };
        r.events.document_start("empty")?;
        let (ev, span) = r.events.next()?;
        match ev {
            Event::SequenceStart(..) => r.array(&ev, span).map(|_| ()),
            _ => r.hash(&ev, span).map(|_| ()),
        }
    }

    #[test]
    fn a_container_past_its_count_is_refused_where_it_starts() {
        let list = format!("[{}]\n", ["1"; 11].join(", "));
        assert!(read(&list, 11).is_ok());
        let e = read(&list, 10).unwrap_err();
        assert_eq!((e.line, e.column), (1, 1), "{e}");
        assert!(e.message.contains("more than 10 items"), "{e}");
        let hash = "a: 1\nb: 2\nc: 3\n";
        assert!(read(hash, 3).is_ok());
        let e = read(hash, 2).unwrap_err();
        assert!(e.message.contains("hash holds more than 2"), "{e}");
    }
}
