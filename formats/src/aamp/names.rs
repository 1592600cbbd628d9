//! Name recovery: turning the CRC32 keys of lists, objects and parameters
//! back into the names they were hashed from.
//!
//! AAMP files store only the CRC32 of each name. The text form is far more
//! useful with the names spelled out, so [`to_yaml`](super::text::to_yaml)
//! recovers them from four sources, in the order the community's tools (oead)
//! use, so that the output matches theirs:
//!
//! 1. **A table of known names** ([`NameTable`]), loaded from a names file
//!    that the user supplies (one name per line; the community's
//!    `botw_hashed_names.txt` is such a file). The project ships none.
//! 2. **Strings of the same document**: every string parameter's text is a
//!    candidate name for the document's keys (an actor's list of AI names,
//!    say, names the lists further down).
//! 3. **Guesses from the parent's name and the index**: the children of a
//!    list named `Items` are often `Item_0`, `Item_1`, ...
//! 4. **Numbered patterns** (`Check_%d`, `Item%03d`, ...): printf-style
//!    patterns with one integer conversion, tried with every number from 0 to
//!    the key's index + 1.
//!
//! A key that none of them explains is written as its bare decimal hash.
//!
//! Lookups are hash maps built once. Guesses are cached per document, and
//! the numbered patterns are expanded into a map from CRC32 to (pattern,
//! number) on first need, so a key costs one hash lookup instead of a
//! pattern × number search.
//!
//! ```
//! use formats::aamp::names::NameTable;
//! let mut table = NameTable::new();
//! table.add_names("Item\nItems\n");
//! table.add_patterns("Check_%d\n").unwrap();
//! assert_eq!(table.get(formats::aamp::Name::of("Items").0), Some("Items"));
//! assert_eq!(table.pattern_count(), 1);
//! ```

use super::{ParameterIO, ParameterList, ParameterValue};
use codec_runtime::crc32;
use rustc_hash::FxHashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Environment variable naming the default names file(s) of the `codec`
/// command (several paths are separated like `PATH`).
pub const NAMES_ENV: &str = "CODEC_AAMP_NAMES";

/// Environment variable naming the default numbered-patterns file(s).
pub const NUMBERED_NAMES_ENV: &str = "CODEC_AAMP_NUMBERED_NAMES";

/// The names and numbered patterns available to name recovery.
///
/// Build it once (it holds tens of thousands of names) and pass it by
/// reference to every [`to_yaml`](super::text::to_yaml) call; it may be
/// shared between threads.
#[derive(Debug, Default)]
pub struct NameTable {
    /// All names, back to back.
    arena: String,
    /// CRC32 → (start, end) in `arena`. The first name added for a hash wins.
    names: FxHashMap<u32, (u32, u32)>,
    patterns: Vec<NumberPattern>,
    /// The patterns expanded for the numbers seen so far.
    numbered: RwLock<NumberedIndex>,
}

/// A copy of the names and patterns; the patterns' expansions, a cache,
/// start again empty.
impl Clone for NameTable {
    fn clone(&self) -> Self {
        NameTable {
            arena: self.arena.clone(),
            names: self.names.clone(),
            patterns: self.patterns.clone(),
            numbered: RwLock::default(),
        }
    }
}

/// Why a names or patterns file could not be loaded.
#[derive(Debug)]
pub enum NamesError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A line of a patterns file is not a pattern with exactly one integer
    /// conversion.
    Pattern {
        path: Option<PathBuf>,
        line: usize,
        message: String,
    },
}

impl fmt::Display for NamesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NamesError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            NamesError::Pattern {
                path,
                line,
                message,
            } => {
                if let Some(path) = path {
                    write!(f, "{}:", path.display())?;
                }
                write!(f, "{line}: {message}")
            }
        }
    }
}

impl std::error::Error for NamesError {}

impl NameTable {
    /// An empty table: no names and no patterns (guesses from document
    /// strings still work).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one name. Returns `false` when a name with the same hash is
    /// already known (the first one stays).
    pub fn add_name(&mut self, name: &str) -> bool {
        let hash = crc32(name.as_bytes());
        if self.names.contains_key(&hash) {
            return false;
        }
        let start = self.arena.len() as u32;
        self.arena.push_str(name);
        self.names.insert(hash, (start, self.arena.len() as u32));
        true
    }

    /// Adds every line of `text` as a name (`\n` or `\r\n` line ends; empty
    /// lines are skipped). Returns how many names were new.
    pub fn add_names(&mut self, text: &str) -> usize {
        self.names.reserve(text.len() / 16);
        self.arena.reserve(text.len());
        lines(text).filter(|(_, l)| self.add_name(l)).count()
    }

    /// Adds a numbered pattern such as `Check_%d`, `Item%03d`, `_%02u` (printf
    /// style: one `%d`, `%i` or `%u` with an optional `0` flag and width; `%%`
    /// is a literal percent sign) or `Item{:03}` (Rust style: `{}` or `{:0N}`).
    pub fn add_pattern(&mut self, pattern: &str) -> Result<(), String> {
        self.patterns.push(NumberPattern::parse(pattern)?);
        *self.numbered.get_mut().unwrap_or_else(|e| e.into_inner()) = NumberedIndex::default();
        Ok(())
    }

    /// Adds every line of `text` as a numbered pattern (empty lines are
    /// skipped).
    pub fn add_patterns(&mut self, text: &str) -> Result<usize, NamesError> {
        let mut added = 0;
        for (line, pattern) in lines(text) {
            self.add_pattern(pattern)
                .map_err(|message| NamesError::Pattern {
                    path: None,
                    line,
                    message,
                })?;
            added += 1;
        }
        Ok(added)
    }

    /// Reads a names file (one name per line).
    pub fn load_names_file(&mut self, path: &Path) -> Result<usize, NamesError> {
        let text = read_text(path)?;
        Ok(self.add_names(&text))
    }

    /// Reads a numbered-patterns file (one pattern per line).
    pub fn load_patterns_file(&mut self, path: &Path) -> Result<usize, NamesError> {
        let text = read_text(path)?;
        self.add_patterns(&text).map_err(|e| match e {
            NamesError::Pattern { line, message, .. } => NamesError::Pattern {
                path: Some(path.to_owned()),
                line,
                message,
            },
            other => other,
        })
    }

    /// A table loaded from the files named by [`NAMES_ENV`] and
    /// [`NUMBERED_NAMES_ENV`] (either may be unset; several paths are
    /// separated like `PATH`).
    pub fn from_env() -> Result<NameTable, NamesError> {
        let mut table = NameTable::new();
        if let Some(paths) = std::env::var_os(NAMES_ENV) {
            for path in std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()) {
                table.load_names_file(&path)?;
            }
        }
        if let Some(paths) = std::env::var_os(NUMBERED_NAMES_ENV) {
            for path in std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()) {
                table.load_patterns_file(&path)?;
            }
        }
        Ok(table)
    }

    /// The known name with this hash.
    #[inline]
    pub fn get(&self, hash: u32) -> Option<&str> {
        self.names
            .get(&hash)
            .map(|&(s, e)| &self.arena[s as usize..e as usize])
    }

    /// How many names the table knows.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// How many numbered patterns the table has.
    pub fn pattern_count(&self) -> usize {
        self.patterns.len()
    }

    /// The first (pattern, number) in pattern order, then number order, with
    /// number in `0..limit` whose text hashes to `hash`, formatted into `out`.
    fn numbered_guess(&self, hash: u32, limit: u32, out: &mut String) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        let read = |index: &NumberedIndex| index.best(hash, limit);
        let found = {
            let index = self.numbered.read().unwrap_or_else(|e| e.into_inner());
            if index.upto >= limit {
                Some(read(&index))
            } else {
                None
            }
        };
        let found = match found {
            Some(found) => found,
            None => {
                let mut index = self.numbered.write().unwrap_or_else(|e| e.into_inner());
                let target = limit.max(64).max(index.upto.saturating_mul(3) / 2);
                index.extend(&self.patterns, target);
                read(&index)
            }
        };
        match found {
            Some((p, i)) => {
                out.clear();
                self.patterns[p as usize].format(i, out);
                true
            }
            None => false,
        }
    }
}

/// Non-empty lines with their 1-based numbers; a trailing `\r` is dropped.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.is_empty())
}

fn read_text(path: &Path) -> Result<String, NamesError> {
    std::fs::read_to_string(path).map_err(|error| NamesError::Io {
        path: path.to_owned(),
        error,
    })
}

/// `prefix` + a number (zero- or space-padded to `width`) + `suffix`.
#[derive(Debug, Clone)]
struct NumberPattern {
    prefix: String,
    suffix: String,
    width: u8,
    zero: bool,
    /// The CRC32 state after the prefix.
    prefix_hasher: crc32fast::Hasher,
}

impl NumberPattern {
    fn parse(text: &str) -> Result<NumberPattern, String> {
        let mut prefix = String::new();
        let mut suffix = String::new();
        let mut spec: Option<(u8, bool)> = None;
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let target = if spec.is_some() {
                &mut suffix
            } else {
                &mut prefix
            };
            if let Some(after) = rest.strip_prefix("%%") {
                target.push('%');
                rest = after;
            } else if let Some(after) = rest.strip_prefix('%') {
                let (conv, after) = parse_printf_spec(after)
                    .ok_or_else(|| format!("`{text}`: expected %d, %u or %0Nd after `%`"))?;
                if spec.replace(conv).is_some() {
                    return Err(format!("`{text}`: more than one number conversion"));
                }
                rest = after;
            } else if let Some(after) = rest.strip_prefix('{') {
                let (conv, after) = parse_rust_spec(after)
                    .ok_or_else(|| format!("`{text}`: expected {{}} or {{:0N}} after `{{`"))?;
                if spec.replace(conv).is_some() {
                    return Err(format!("`{text}`: more than one number conversion"));
                }
                rest = after;
            } else {
                target.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        let (width, zero) = spec.ok_or_else(|| {
            format!("`{text}`: no number conversion (%d, %02d, %u, {{}}, {{:02}}, ...)")
        })?;
        let mut prefix_hasher = crc32fast::Hasher::new();
        prefix_hasher.update(prefix.as_bytes());
        Ok(NumberPattern {
            prefix,
            suffix,
            width,
            zero,
            prefix_hasher,
        })
    }

    fn format(&self, n: u32, out: &mut String) {
        out.push_str(&self.prefix);
        let mut digits = Digits::default();
        out.push_str(digits.padded(n, self.width, self.zero));
        out.push_str(&self.suffix);
    }

    fn crc(&self, n: u32, digits: &mut Digits) -> u32 {
        let mut h = self.prefix_hasher.clone();
        h.update(digits.padded(n, self.width, self.zero).as_bytes());
        h.update(self.suffix.as_bytes());
        h.finalize()
    }
}

/// `0`? width? then `d`, `i` or `u`.
fn parse_printf_spec(s: &str) -> Option<((u8, bool), &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    let zero = b.first() == Some(&b'0');
    if zero {
        i += 1;
    }
    let mut width: u32 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        width = width * 10 + u32::from(b[i] - b'0');
        if width > 20 {
            return None;
        }
        i += 1;
    }
    match b.get(i) {
        Some(b'd' | b'i' | b'u') => Some(((width as u8, zero), &s[i + 1..])),
        _ => None,
    }
}

/// `}` or `:0N}` / `:N}`.
fn parse_rust_spec(s: &str) -> Option<((u8, bool), &str)> {
    if let Some(rest) = s.strip_prefix('}') {
        return Some(((0, false), rest));
    }
    let body = s.strip_prefix(':')?;
    let end = body.find('}')?;
    let spec = &body[..end];
    let zero = spec.starts_with('0');
    let width: u8 = spec.parse().ok().filter(|w| *w <= 20)?;
    Some(((width, zero), &body[end + 1..]))
}

/// A small buffer to print a number, padded, without allocating.
#[derive(Default)]
struct Digits {
    buf: [u8; 32],
}

impl Digits {
    fn padded(&mut self, mut n: u32, width: u8, zero: bool) -> &str {
        let mut pos = self.buf.len();
        loop {
            pos -= 1;
            self.buf[pos] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let fill = if zero { b'0' } else { b' ' };
        while self.buf.len() - pos < usize::from(width) {
            pos -= 1;
            self.buf[pos] = fill;
        }
        std::str::from_utf8(&self.buf[pos..]).unwrap_or_default()
    }
}

/// The numbered patterns expanded for the numbers `0..upto`.
#[derive(Debug, Default)]
struct NumberedIndex {
    upto: u32,
    map: FxHashMap<u32, Candidates>,
}

/// The (pattern, number) pairs whose text hashes to one CRC32.
#[derive(Debug)]
enum Candidates {
    One(u16, u32),
    Many(Vec<(u16, u32)>),
}

impl NumberedIndex {
    fn extend(&mut self, patterns: &[NumberPattern], upto: u32) {
        let mut digits = Digits::default();
        self.map
            .reserve(patterns.len() * (upto.saturating_sub(self.upto)) as usize);
        for n in self.upto..upto {
            for (p, pattern) in patterns.iter().enumerate() {
                let p = p as u16;
                let crc = pattern.crc(n, &mut digits);
                self.map
                    .entry(crc)
                    .and_modify(|c| match c {
                        Candidates::One(p0, n0) => *c = Candidates::Many(vec![(*p0, *n0), (p, n)]),
                        Candidates::Many(v) => v.push((p, n)),
                    })
                    .or_insert(Candidates::One(p, n));
            }
        }
        self.upto = self.upto.max(upto);
    }

    /// oead's search order: patterns in file order, and for each the numbers
    /// from 0 up; so the smallest (pattern, number) with number < `limit`.
    fn best(&self, hash: u32, limit: u32) -> Option<(u16, u32)> {
        match self.map.get(&hash)? {
            Candidates::One(p, n) => (*n < limit).then_some((*p, *n)),
            Candidates::Many(v) => v.iter().copied().filter(|&(_, n)| n < limit).min(),
        }
    }
}

/// The name recovery of one document: the shared table plus the document's
/// own strings and the guesses made so far.
#[derive(Debug)]
pub struct Namer<'a> {
    table: &'a NameTable,
    /// Strings of the document's string parameters, by hash (first wins).
    doc: FxHashMap<u32, &'a str>,
    /// Guesses derived from a parent named by a document string.
    doc_guesses: FxHashMap<u32, Box<str>>,
    /// Guesses derived from the table (parent names, numbered patterns).
    guesses: FxHashMap<u32, Box<str>>,
    /// The last parent asked about, with its name in the document's
    /// strings and in the table.
    parent: (u32, Option<&'a str>, Option<&'a str>),
    scratch: String,
}

/// Which suffixes of a plural parent name are dropped to guess a child's
/// prefix (`Items` → `Item`).
const PLURAL_SUFFIXES: [&str; 3] = ["s", "es", "List"];

/// The number formats tried after a prefix: separator and zero-padded width.
const INDEX_FORMATS: [(&str, u8); 6] = [("", 0), ("_", 0), ("", 2), ("_", 2), ("", 3), ("_", 3)];

impl<'a> Namer<'a> {
    /// Name recovery for `pio`, with its strings as extra names.
    pub fn new(table: &'a NameTable, pio: &'a ParameterIO) -> Self {
        let mut namer = Namer {
            table,
            doc: FxHashMap::default(),
            doc_guesses: FxHashMap::default(),
            guesses: FxHashMap::default(),
            parent: (0, None, None),
            scratch: String::new(),
        };
        namer.collect_strings(&pio.root);
        namer.parent = (0, namer.doc.get(&0).copied(), table.get(0));
        namer
    }

    fn collect_strings(&mut self, list: &'a ParameterList) {
        for object in &list.objects {
            for param in &object.params {
                let s = match &param.value {
                    ParameterValue::String32(s)
                    | ParameterValue::String64(s)
                    | ParameterValue::String256(s)
                    | ParameterValue::StringRef(s) => s.as_str(),
                    _ => continue,
                };
                self.doc.entry(crc32(s.as_bytes())).or_insert(s);
            }
        }
        for child in &list.lists {
            self.collect_strings(child);
        }
    }

    /// The name of the key `hash`, the `index`-th child of a structure whose
    /// own key is `parent`; `None` when no source explains it.
    pub fn name(&mut self, hash: u32, index: usize, parent: u32) -> Option<&str> {
        let index = u32::try_from(index).unwrap_or(u32::MAX - 2);
        // Siblings share a parent: look its names up once.
        if self.parent.0 != parent {
            self.parent = (
                parent,
                self.doc.get(&parent).copied(),
                self.table.get(parent),
            );
        }
        let (_, doc_parent, table_parent) = self.parent;
        // The document's strings, then guesses from a parent they name.
        if let Some(&name) = self.doc.get(&hash) {
            return Some(name);
        }
        if !self.doc_guesses.is_empty() && self.doc_guesses.contains_key(&hash) {
            return self.doc_guesses.get(&hash).map(|s| &**s);
        }
        if let Some(parent_name) = doc_parent {
            if guess_from_parent(parent_name, hash, index, &mut self.scratch) {
                let name: Box<str> = self.scratch.as_str().into();
                return Some(&**self.doc_guesses.entry(hash).or_insert(name));
            }
        }
        // The table, then guesses from a parent it names, then patterns.
        let table = self.table;
        if let Some(name) = table.get(hash) {
            return Some(name);
        }
        if self.guesses.contains_key(&hash) {
            return self.guesses.get(&hash).map(|s| &**s);
        }
        let found = match table_parent {
            Some(parent_name) => guess_from_parent(parent_name, hash, index, &mut self.scratch),
            None => false,
        } || table.numbered_guess(hash, index.saturating_add(2), &mut self.scratch);
        if found {
            let name: Box<str> = self.scratch.as_str().into();
            return Some(&**self.guesses.entry(hash).or_insert(name));
        }
        None
    }
}

/// Tries `prefix` + index for the prefixes derived from the parent's name:
/// the name itself, `Children`, `Child`, then the name without a plural
/// suffix; each with the numbers `index` and `index + 1` in the formats of
/// [`INDEX_FORMATS`]. The match is left in `out`.
fn guess_from_parent(parent: &str, hash: u32, index: u32, out: &mut String) -> bool {
    let mut digits = Digits::default();
    let mut try_prefix = |prefix: &str, out: &mut String| -> bool {
        let mut base = crc32fast::Hasher::new();
        base.update(prefix.as_bytes());
        let mut underscore = base.clone();
        underscore.update(b"_");
        for n in [index, index.saturating_add(1)] {
            for (sep, width) in INDEX_FORMATS {
                let mut h = if sep.is_empty() {
                    base.clone()
                } else {
                    underscore.clone()
                };
                let text = digits.padded(n, width, true);
                h.update(text.as_bytes());
                if h.finalize() == hash {
                    out.clear();
                    out.push_str(prefix);
                    out.push_str(sep);
                    out.push_str(text);
                    return true;
                }
            }
        }
        false
    };
    if try_prefix(parent, out) || try_prefix("Children", out) || try_prefix("Child", out) {
        return true;
    }
    for suffix in PLURAL_SUFFIXES {
        if let Some(stem) = parent.strip_suffix(suffix) {
            if try_prefix(stem, out) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_parse_and_format() {
        let cases = [
            ("Check_%d", 7, "Check_7"),
            ("_%02d", 3, "_03"),
            ("Item%03d", 12, "Item012"),
            ("eZl%u", 5, "eZl5"),
            ("Pa_StampBox_00/Pa_Btn_%02u", 4, "Pa_StampBox_00/Pa_Btn_04"),
            ("[%03d]", 1, "[001]"),
            ("100%%_%d", 2, "100%_2"),
            ("Item{:03}", 9, "Item009"),
            ("AI_{}", 11, "AI_11"),
            ("%d", 123, "123"),
        ];
        for (pattern, n, want) in cases {
            let p = NumberPattern::parse(pattern).unwrap();
            let mut s = String::new();
            p.format(n, &mut s);
            assert_eq!(s, want, "{pattern}");
            assert_eq!(p.crc(n, &mut Digits::default()), crc32(want.as_bytes()));
        }
        for bad in ["NoNumber", "%s", "%d_%d", "{x}", "50%"] {
            assert!(NumberPattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbered_guess_prefers_pattern_order_then_number() {
        let mut table = NameTable::new();
        table.add_patterns("A_%d\n%d\n").unwrap();
        let mut out = String::new();
        // "5" needs number 5, so index ≥ 4.
        assert!(!table.numbered_guess(crc32(b"5"), 5, &mut out));
        assert!(table.numbered_guess(crc32(b"5"), 6, &mut out));
        assert_eq!(out, "5");
        assert!(table.numbered_guess(crc32(b"A_0"), 2, &mut out));
        assert_eq!(out, "A_0");
        // Far beyond the first expansion.
        assert!(table.numbered_guess(crc32(b"A_1000"), 1001, &mut out));
        assert_eq!(out, "A_1000");
    }

    #[test]
    fn namer_order() {
        let mut table = NameTable::new();
        table.add_names("Items\nparam_root\n");
        table.add_patterns("Check_%d\n").unwrap();
        let mut pio = ParameterIO::new("xml");
        pio.root.objects.push(
            super::super::ParameterObject::new("Strings")
                .with("a", ParameterValue::StringRef("FromDoc".into())),
        );
        let mut namer = Namer::new(&table, &pio);
        let items = crc32(b"Items");
        assert_eq!(namer.name(crc32(b"FromDoc"), 0, 0), Some("FromDoc"));
        assert_eq!(namer.name(crc32(b"Item_3"), 3, items), Some("Item_3"));
        assert_eq!(namer.name(crc32(b"Item_04"), 3, items), Some("Item_04"));
        assert_eq!(namer.name(crc32(b"Item_05"), 3, items), None);
        assert_eq!(namer.name(crc32(b"Children2"), 1, items), Some("Children2"));
        // Numbered patterns: numbers up to index + 1.
        assert_eq!(namer.name(crc32(b"Check_2"), 0, 0), None);
        assert_eq!(namer.name(crc32(b"Check_2"), 1, 0), Some("Check_2"));
        assert_eq!(namer.name(crc32(b"Check_3"), 1, 0), None);
        // Cached: found again even where it could not be guessed.
        assert_eq!(namer.name(crc32(b"Item_05"), 4, items), Some("Item_05"));
        assert_eq!(namer.name(crc32(b"Item_05"), 0, 0), Some("Item_05"));
        assert_eq!(
            namer.name(crc32(b"FromDoc_1"), 1, crc32(b"FromDoc")),
            Some("FromDoc_1")
        );
    }
}
