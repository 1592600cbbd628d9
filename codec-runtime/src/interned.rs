//! Sorted string tables whose strings are stored elsewhere as indices
//! (`Type::Index`, `Type::Table`, `derive: Interned` in the schema language).
//!
//! The document holds every string as its text. On encode the writer
//! collects the texts of each table from the whole value ([`Collect`]),
//! sorts them by their bytes and drops repeats; an index is then a string's
//! rank. On decode the table is read first (the root's field leads to it)
//! and each index is looked up in it.
//!
//! A table's body ([`read_table`], [`write_table`]) is `count + 1` offsets
//! counted from the start of the record that holds the body, the last one
//! where the strings end, then the strings, NUL-terminated.

use crate::base::Str;
use crate::base::Width;
use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind};
use crate::memory::interned::TableIds;
pub use crate::memory::interned::{ReadTables, StringIds, WriteTables};
use crate::reader::Reader;
use crate::shared::Shapes;
use crate::span_index::{ShortKey, SpanIndex};
use crate::writer::Writer;

/// What a value contributes to the interned tables: generated for every
/// struct and union of a schema with interned strings. A record of a shared
/// section contributes by building its shape, which holds its strings.
pub trait Collect {
    fn collect(&self, c: &mut Collector<'_>);
}

impl<T: Collect> Collect for Vec<T> {
    fn collect(&self, c: &mut Collector<'_>) {
        for e in self {
            e.collect(c);
        }
    }
}

impl<T: Collect> Collect for Option<T> {
    fn collect(&self, c: &mut Collector<'_>) {
        if let Some(v) = self {
            v.collect(c);
        }
    }
}

impl<T: Collect> Collect for Box<T> {
    fn collect(&self, c: &mut Collector<'_>) {
        (**self).collect(c);
    }
}

/// Where the short string of key `k` is kept among the [`RECENT`].
#[inline]
fn recent_slot(k: &ShortKey) -> usize {
    let h = (k.head ^ k.mid.rotate_left(19) ^ k.tail.rotate_left(29) ^ u64::from(k.len))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - RECENT_BITS)) as usize
}

const RECENT_BITS: u32 = 10;
const RECENT: usize = 1 << RECENT_BITS;

impl TableIds {
    fn text(&self, id: usize) -> &[u8] {
        let (start, len) = self.spans[id];
        &self.text.as_bytes()[start..start + len]
    }

    fn str(&self, id: usize) -> &str {
        let (start, len) = self.spans[id];
        self.text.get(start..start + len).unwrap_or_default()
    }
}

impl StringIds {
    /// Forgets every string, keeping the memory.
    pub(crate) fn clear(&mut self) {
        for t in &mut self.tables {
            t.text.clear();
            t.index.clear();
            t.spans.clear();
            t.recent.clear();
        }
    }

    /// The id of `s` in table `table`, given the first time it is met.
    #[inline]
    pub fn id(&mut self, table: usize, s: &str) -> u32 {
        if self.tables.len() <= table {
            self.tables.resize_with(table + 1, TableIds::default);
        }
        let t = &mut self.tables[table];
        let short = ShortKey::of(s.as_bytes());
        if let Some(k) = short {
            if t.recent.is_empty() {
                t.recent.resize(RECENT, (ShortKey::NONE, 0));
            }
            let (seen, id) = t.recent[recent_slot(&k)];
            if seen == k {
                return id;
            }
        }
        let hash = SpanIndex::hash(s.as_bytes());
        let new_id = t.spans.len();
        let id = match t.index.get_or_file(
            t.text.as_bytes(),
            s.as_bytes(),
            hash,
            t.text.len(),
            new_id as u64,
        ) {
            Some(id) => id as u32,
            None => {
                t.spans.push((t.text.len(), s.len()));
                t.text.push_str(s);
                new_id as u32
            }
        };
        if let Some(k) = short {
            t.recent[recent_slot(&k)] = (k, id);
        }
        id
    }

    /// The id of `s` in table `table`, if it was met.
    #[inline]
    fn get(&self, table: usize, s: &str) -> Option<u32> {
        let t = self.tables.get(table)?;
        if let Some(k) = ShortKey::of(s.as_bytes()) {
            if let Some(&(seen, id)) = t.recent.get(recent_slot(&k)) {
                if seen == k {
                    return Some(id);
                }
            }
        }
        t.index
            .get(
                t.text.as_bytes(),
                s.as_bytes(),
                SpanIndex::hash(s.as_bytes()),
            )
            .map(|id| id as u32)
    }

    /// Each table sorted by bytes, and each id's rank (its index).
    fn sorted(&self, tables: usize, out: &mut WriteTables) {
        out.tables.clear();
        out.ranks.resize_with(tables, Vec::new);
        let mut by_bytes: Vec<(u128, u32)> = Vec::new();
        for table in 0..tables {
            let Some(t) = self.tables.get(table) else {
                out.tables.push(Vec::new());
                out.ranks[table].clear();
                continue;
            };
            // Sorted by the first 16 bytes as a number (zero-padded, so the
            // order agrees with the bytes'), then by the rest: most
            // comparisons are one integer comparison, names that share a
            // long start (`Enemy_Bokoblin_...`) included.
            by_bytes.clear();
            by_bytes.extend((0..t.spans.len()).map(|id| (prefix(t.text(id)), id as u32)));
            by_bytes.sort_unstable_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| t.text(a.1 as usize).cmp(t.text(b.1 as usize)))
            });
            let rank = &mut out.ranks[table];
            rank.clear();
            rank.resize(t.spans.len(), 0);
            for (i, &(_, id)) in by_bytes.iter().enumerate() {
                rank[id as usize] = i as u32;
            }
            out.tables.push(
                by_bytes
                    .iter()
                    .map(|&(_, id)| Str::from(t.str(id as usize)))
                    .collect(),
            );
        }
    }
}

/// The first 16 bytes of `b` as a big-endian number, zero-padded: `a < b`
/// as bytes implies `prefix(a) <= prefix(b)`.
#[inline]
fn prefix(b: &[u8]) -> u128 {
    let mut p = [0u8; 16];
    let n = b.len().min(16);
    p[..n].copy_from_slice(&b[..n]);
    u128::from_be_bytes(p)
}

/// Gathers the strings of each table from a value before it is written
/// (see [`Writer::intern_all`]).
#[derive(Debug)]
pub struct Collector<'w> {
    shapes: &'w mut Shapes,
}

impl Collector<'_> {
    #[inline]
    pub fn add(&mut self, table: usize, s: &str) {
        self.shapes.strings.id(table, s);
    }

    /// The shapes, for a record of a shared section: building its shape
    /// gathers its strings.
    #[inline]
    pub fn shapes(&mut self) -> &mut Shapes {
        self.shapes
    }
}

impl WriteTables {
    /// Empties the tables for another encode, keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.tables.clear();
        self.ranks.iter_mut().for_each(Vec::clear);
        self.hint = None;
    }
}

/// The interned tables of an encode, as the writer asks for them.
#[derive(Debug, Clone, Copy)]
pub struct Interned<'w> {
    tables: &'w WriteTables,
    ids: &'w StringIds,
}

impl<'w> Interned<'w> {
    pub fn strings(&self, table: usize) -> &'w [Str] {
        self.tables.tables.get(table).map_or(&[], |t| t.as_slice())
    }

    /// Each string id's index in table `table` (ids from [`Shapes::string`]).
    #[inline]
    pub fn ranks(&self, table: usize) -> &'w [u32] {
        self.tables.ranks.get(table).map_or(&[], |r| r.as_slice())
    }

    /// The index of `s` in table `table`. Inlined up to the hint, which a
    /// sorted list's elements take their keys from (most lookups).
    #[inline(always)]
    pub fn index(&self, table: usize, s: &str, what: &'static str) -> EncodeResult<u64> {
        if let Some((t, at, len, i)) = self.tables.hint {
            if t == table && at == s.as_ptr() as usize && len == s.len() {
                return Ok(i);
            }
        }
        self.index_looked_up(table, s, what)
    }

    #[inline(never)]
    fn index_looked_up(&self, table: usize, s: &str, what: &'static str) -> EncodeResult<u64> {
        self.ids
            .get(table, s)
            .and_then(|id| self.tables.ranks.get(table)?.get(id as usize))
            .map(|&i| u64::from(i))
            .ok_or_else(|| {
                EncodeError::new(what, format!("`{s}` is missing from its string table"))
            })
    }

    /// The index of the string of id `id` (from [`Shapes::string`]) in
    /// table `table`.
    #[inline]
    pub fn rank(&self, table: usize, id: u32) -> Option<u64> {
        self.tables
            .ranks
            .get(table)?
            .get(id as usize)
            .map(|&i| u64::from(i))
    }
}

impl Reader<'_> {
    /// Keeps a table read from the file, for the indices read after it.
    pub fn set_table(&mut self, table: usize, strings: Vec<Str>) {
        let t = &mut self.tables.tables;
        if t.len() <= table {
            t.resize_with(table + 1, Vec::new);
        }
        t[table] = strings;
    }

    /// The string at `index` of table `table`; `pos` is where the index was read.
    #[inline(always)]
    pub fn interned(&self, table: usize, index: u64, pos: u64, name: &str) -> DecodeResult<Str> {
        let t = self
            .tables
            .tables
            .get(table)
            .map_or(&[][..], |t| t.as_slice());
        match t.get(index as usize) {
            Some(s) => Ok(s.clone()),
            None => Err(index_past_end(pos, index, name, t.len() as u64)),
        }
    }
}

/// Checks that the keys of a list sorted by an interned key (`sort_by` on
/// an `Index` field, as BYML's hash entries) ascend, each once: the list
/// is a map that readers search by halves, and only a list stored in key
/// order keeps the slots decode recovers a document order in (a list
/// stored otherwise would be rewritten in another order and read back
/// differently). Element `i`'s key index is `key(i)`, read at `at(i)`,
/// for the `n` elements; one comparison each, no allocation. The error
/// comes with the index of the element out of order (the caller adds its
/// path).
pub fn ascending_keys(
    n: usize,
    key: impl Fn(usize) -> DecodeResult<u64>,
    at: impl Fn(usize) -> u64,
) -> Result<(), (usize, DecodeError)> {
    ascending(n, key, at, "key index")
}

/// [`ascending_keys`] for keys that are numbers (a sorted list's stored
/// unsigned key, such as a hash); `noun` names them in the error.
pub fn ascending(
    n: usize,
    key: impl Fn(usize) -> DecodeResult<u64>,
    at: impl Fn(usize) -> u64,
    noun: &str,
) -> Result<(), (usize, DecodeError)> {
    let mut prev: Option<u64> = None;
    for i in 0..n {
        let k = key(i).map_err(|e| (i, e))?;
        if let Some(p) = prev.filter(|&p| p >= k) {
            let what = if p == k {
                format!("{noun} {k} is held twice in a row: each key may appear once")
            } else {
                format!("{noun} {k} follows {noun} {p}: the keys ascend")
            };
            return Err((i, DecodeError::new(at(i), ErrorKind::Invalid(what))));
        }
        prev = Some(k);
    }
    Ok(())
}

/// Reads a table body at `pos` in the record that starts at `record`:
/// `count + 1` offsets of `width` from `record`, then the strings. Returns
/// the strings and the position after the last one.
pub fn read_table(
    r: &mut Reader<'_>,
    record: u64,
    pos: u64,
    count: u64,
    width: Width,
) -> DecodeResult<(Vec<Str>, u64)> {
    let w = width.bytes();
    r.check_count(pos, pos, count.saturating_add(1), w)?;
    let mut out = Vec::with_capacity(count as usize);
    let mut last_end = pos + (count + 1) * w;
    for i in 0..count {
        let at = pos + i * w;
        let bytes = table_entry(r.data(), r.endian(), record, pos, i, width)
            .and_then(|start| Ok((start, r.cstr(start, None)?)));
        let (start, bytes) = bytes.map_err(|e| e.at_index(i as usize))?;
        r.charge(at, bytes.len() as u64 + 1)?;
        let s = std::str::from_utf8(bytes).map_err(|_| {
            DecodeError::new(
                start,
                ErrorKind::Invalid("a string that is not UTF-8".into()),
            )
            .at_index(i as usize)
        })?;
        // Sorted by bytes, each once: an index then names one string, and
        // the table is written back in the same order.
        if let Some(p) = out.last().filter(|p: &&Str| p.as_bytes() >= bytes) {
            let what = if p.as_bytes() == bytes {
                format!("the string {s:?} is held twice in a row: each string may appear once")
            } else {
                format!("the string {s:?} follows {p:?}: the strings ascend by their bytes")
            };
            return Err(DecodeError::new(at, ErrorKind::Invalid(what)).at_index(i as usize));
        }
        out.push(Str::from(s));
        last_end = last_end.max(start + bytes.len() as u64 + 1);
    }
    let at = pos + count * w;
    let raw = crate::base::checked::uint(r.data(), at, w, r.endian())?;
    let end = r.target(at, record, raw, 1)?;
    Ok((out, end.max(last_end)))
}

/// Where string `i` of a table body at `pos` starts: its offset (of
/// `width`) counted from `record`, checked to lie in the file. Decode
/// ([`read_table`]) and the views' [`TableView`](crate::view::TableView)
/// both find a table's strings through this, then read up to the NUL.
#[inline]
pub fn table_entry(
    data: &[u8],
    endian: crate::base::Endian,
    record: u64,
    pos: u64,
    i: u64,
    width: Width,
) -> DecodeResult<u64> {
    let at = pos + i * width.bytes();
    let raw = crate::base::checked::uint(data, at, width.bytes(), endian)?;
    crate::base::checked::target(data, at, record, raw, 1)
}

/// The error for an index (read at `pos`) past the end of table `name`,
/// which holds `len` strings.
#[cold]
#[inline(never)]
pub fn index_past_end(pos: u64, index: u64, name: &str, len: u64) -> DecodeError {
    DecodeError::new(
        pos,
        ErrorKind::Invalid(format!(
            "string index {index} is past the end of the {name} table ({len} strings)"
        )),
    )
}

/// Writes a table body: offsets from `record` (where the holding record
/// starts), then the strings, NUL-terminated.
pub fn write_table(
    w: &mut Writer,
    record: u64,
    strings: &[Str],
    width: Width,
    what: &'static str,
) -> EncodeResult<()> {
    let mut at = w.pos() - record + (strings.len() as u64 + 1) * width.bytes();
    for s in strings {
        w.put_uint(width, at, what)?;
        at += s.len() as u64 + 1;
    }
    w.put_uint(width, at, what)?;
    for s in strings {
        w.put_bytes(s.as_bytes());
        w.put_u8(0);
    }
    Ok(())
}

impl Writer {
    /// Gathers the interned strings of `v` (before the root is written).
    /// In a schema with shared sections this is also the pass that builds
    /// every shape, so the later walks find them all.
    ///
    /// Blobs are known by their length in this pass, not copied (a file of
    /// one 32 KiB blob copied it once for this and once more to write it;
    /// issue 51). When two blobs share a length, the pass is made again
    /// with a copy of each distinct blob, so that equal ones get one shape.
    pub fn intern_all<T: Collect>(&mut self, v: &T, tables: usize) {
        self.shapes.lazy_blobs = true;
        self.collect_shapes(v);
        if self.shapes.blob_lengths_repeat {
            self.shapes.restart();
            self.collect_shapes(v);
        }
        self.shapes.lazy_blobs = false;
        self.shapes.strings.sorted(tables, &mut self.tables);
    }

    fn collect_shapes<T: Collect>(&mut self, v: &T) {
        self.shapes.fresh = true;
        let mut c = Collector {
            shapes: &mut self.shapes,
        };
        v.collect(&mut c);
        self.shapes.fresh = false;
    }

    /// Table `table`'s sorted strings, lent to the record that writes them
    /// ([`Writer::restore_table`] gives them back).
    pub fn take_table(&mut self, table: usize) -> Vec<Str> {
        self.tables
            .tables
            .get_mut(table)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub fn restore_table(&mut self, table: usize, strings: Vec<Str>) {
        if let Some(t) = self.tables.tables.get_mut(table) {
            *t = strings;
        }
    }

    #[inline]
    pub fn interned(&self) -> Interned<'_> {
        Interned {
            tables: &self.tables,
            ids: &self.shapes.strings,
        }
    }

    /// Tells the writer that `s` (the string at this address, which the
    /// value being encoded holds) has index `index` in table `table`: a
    /// sorted list's loop has just looked its elements' keys up, and each
    /// element's record asks for its key next. The value is borrowed for
    /// the whole encode, so the address stands for the same string.
    #[inline]
    pub fn hint_index(&mut self, table: usize, s: &str, index: u64) {
        self.tables.hint = Some((table, s.as_ptr() as usize, s.len(), index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Endian;

    /// Tables come out in byte order, whatever the strings share: long
    /// common prefixes (past the 16 bytes compared as a number), one
    /// string a prefix of another, bytes above 0x7F; each string, short
    /// or long (past 24 bytes), has its index.
    #[test]
    fn tables_are_sorted_by_their_bytes() {
        let mut strings: Vec<String> = Vec::new();
        for stem in [
            "",
            "a",
            "abcdefgh",
            "abcdefghij",
            "abcdefghijklmnop",
            "Enemy_Bokoblin_Junior_",
            "Obj_Tree_",
            "é",
        ] {
            for tail in ["", "0", "00", "1", "z", "é", "abcdefghij", "\u{1}"] {
                strings.push(format!("{stem}{tail}"));
            }
        }
        let mut w = Writer::new(Endian::Little, 0, 0);
        let mut c = Collector {
            shapes: &mut w.shapes,
        };
        // Met in reverse, with repeats.
        for s in strings.iter().rev().chain(strings.iter()) {
            c.add(0, s);
        }
        w.shapes.strings.sorted(1, &mut w.tables);
        let mut want: Vec<&str> = strings.iter().map(String::as_str).collect();
        want.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        want.dedup();
        let got: Vec<&str> = w.interned().strings(0).iter().map(|s| s.as_str()).collect();
        assert_eq!(got, want);
        for (i, s) in want.iter().enumerate() {
            assert_eq!(w.interned().index(0, s, "test").unwrap(), i as u64);
        }
    }

    #[test]
    fn a_hinted_index_applies_to_that_string_only() {
        let doc = [String::from("b"), String::from("a"), String::from("b")];
        let mut w = Writer::new(Endian::Little, 0, 0);
        let mut c = Collector {
            shapes: &mut w.shapes,
        };
        for s in &doc {
            c.add(0, s);
        }
        c.add(1, &doc[0]);
        w.shapes.strings.sorted(2, &mut w.tables);
        let index = |w: &Writer, t, s: &str| w.interned().index(t, s, "test").unwrap();
        assert_eq!((index(&w, 0, &doc[0]), index(&w, 0, &doc[1])), (1, 0));
        // A hint (deliberately false here, to see where it applies) is
        // taken for that string in that table, and nowhere else.
        w.hint_index(0, &doc[0], 7);
        assert_eq!(index(&w, 0, &doc[0]), 7);
        assert_eq!(index(&w, 0, &doc[2]), 1, "an equal string elsewhere");
        assert_eq!(index(&w, 1, &doc[0]), 0, "the same string, another table");
        assert!(
            w.interned().index(0, &doc[0][..0], "test").is_err(),
            "a prefix at the same address is another string (and not in the table)"
        );
    }
}
