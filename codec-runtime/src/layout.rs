//! What tables of back-to-back records need at run time:
//!
//! - string pools: on decode, where each pool starts, so that a string
//!   reference (an offset from the pool's start) reads its text; on encode,
//!   the pool's bytes, seeded with the document's strings in their order and
//!   grown as references are written ([`Writer::intern`]);
//! - offset targets seen so far, which end lists that run "to the next
//!   target" (`ToNext`, together with the unit root's targets, see
//!   `scope.rs`) and give a selected union the room it has;
//! - the context that `Select` hooks choose a variant from ([`SelectCx`]).

use crate::base::Str;
use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind};
use crate::memory::layout::WritePool;
pub use crate::memory::layout::{ReadLayout, WriteLayout};
use crate::reader::Reader;
use crate::span_index::SpanIndex;
use crate::writer::Writer;
use std::borrow::Cow;

/// A string pool as decoded: its strings in order (those no offset uses
/// included), and the offsets that some reference holds but that are not the
/// start of one of the strings (the middle of one, or the end of the pool:
/// other editors write such offsets), each with the text read there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringPool {
    pub strings: Vec<Str>,
    pub odd: Vec<(u64, Str)>,
}

impl StringPool {
    /// A pool of these strings, in this order.
    pub fn new(strings: Vec<Str>) -> Self {
        StringPool {
            strings,
            odd: Vec::new(),
        }
    }
}

impl WritePool {
    /// Empties the pool for another output, keeping its memory.
    fn clear(&mut self) {
        self.buf.clear();
        self.index.clear();
        self.placed = None;
        self.end_ref = None;
    }

    /// Files the string at `buf[at..at + len]` unless an equal one is
    /// filed already (the first copy wins).
    fn file(&mut self, at: usize, len: usize) {
        let bytes = &self.buf[at..at + len];
        let hash = SpanIndex::hash(bytes);
        if self.index.get(&self.buf, bytes, hash).is_none() {
            self.index.insert_new(hash, at, len, at as u64);
        }
    }
}

impl WriteLayout {
    /// Empties the layout state for another output, keeping its memory.
    pub(crate) fn clear(&mut self) {
        for p in &mut self.pools {
            p.clear();
        }
        self.kept_aligns.clear();
    }
}

/// What a `Select` hook sees when it chooses the variant of a union.
#[derive(Debug, Clone, Copy)]
pub struct SelectCx<'a> {
    /// Context values of the enclosing records (`context: true` fields),
    /// outermost first.
    pub context: &'a [(Cow<'static, str>, u64)],
    /// The group of the list element that holds the offset (`Groups`), or 0.
    pub group: usize,
    /// The element's index in its list or group.
    pub index: usize,
    /// The length of that list or group.
    pub len: usize,
    /// The bytes from the target up to the next offset target (or the end
    /// of the data).
    pub bytes: &'a [u8],
}

impl SelectCx<'_> {
    /// The innermost context value named `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.context
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|&(_, v)| v)
    }

    /// The number of bytes up to the next offset target.
    pub fn room(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Is the element the last of its list or group?
    pub fn is_last(&self) -> bool {
        self.index + 1 == self.len
    }
}

/// Element `i` of a table indexed by a small id (a type, a pool, a
/// section), the table grown with defaults to reach it.
pub(crate) fn slot<T: Default>(v: &mut Vec<T>, i: usize) -> &mut T {
    if v.len() <= i {
        v.resize_with(i + 1, T::default);
    }
    &mut v[i]
}

impl Reader<'_> {
    /// Pool `id` starts at `base`.
    pub fn set_pool(&mut self, id: usize, base: u64) {
        *slot(&mut self.layout.pools, id) = Some(base);
    }

    /// The string at offset `raw` of pool `id`; `field_pos` is where the
    /// offset was read.
    pub fn pool_str(&mut self, id: usize, field_pos: u64, raw: u64) -> DecodeResult<Str> {
        let base = self.layout.pools.get(id).copied().flatten();
        let target = crate::base::checked::pool_target(base, raw, self.len(), field_pos)?;
        slot(&mut self.layout.refs, id).insert(raw);
        let Some(pos) = target else {
            return Ok(Str::default());
        };
        let (s, _) = self
            .cstring_at(pos, None, None)
            .map_err(|e| DecodeError::new(field_pos, e.kind().clone()))?;
        Ok(s)
    }

    /// The strings of a pool from `start` up to `end`, in order. The last
    /// string must end with a NUL at `end`.
    pub fn pool_strings(
        &mut self,
        field_pos: u64,
        start: u64,
        end: u64,
    ) -> DecodeResult<StringPool> {
        let bytes = self.bytes(start, end.saturating_sub(start))?;
        self.charge(field_pos, bytes.len() as u64)?;
        if !bytes.is_empty() && bytes[bytes.len() - 1] != 0 {
            return Err(DecodeError::new(
                end - 1,
                ErrorKind::Invalid("the string pool does not end with a NUL".into()),
            ));
        }
        let mut out = Vec::new();
        let mut p = 0usize;
        while p < bytes.len() {
            let n = memchr::memchr(0, &bytes[p..]).unwrap_or(bytes.len() - p);
            match std::str::from_utf8(&bytes[p..p + n]) {
                Ok(s) => out.push(Str::new(s)),
                Err(e) => {
                    return Err(DecodeError::new(
                        start + (p + e.valid_up_to()) as u64,
                        ErrorKind::InvalidUtf8,
                    ))
                }
            }
            p += n + 1;
        }
        Ok(StringPool::new(out))
    }

    /// The references of pool `id` that do not point at the start of one of
    /// `strings` (call once the whole unit is decoded).
    pub fn odd_refs(&self, id: usize, strings: &[Str]) -> Vec<(u64, Str)> {
        let Some(refs) = self.layout.refs.get(id) else {
            return Vec::new();
        };
        let mut starts = Vec::with_capacity(strings.len());
        let mut off = 0u64;
        for s in strings {
            starts.push(off);
            off += s.len() as u64 + 1;
        }
        let total = off;
        let mut bytes = Vec::with_capacity(total as usize);
        for s in strings {
            bytes.extend_from_slice(s.as_bytes());
            bytes.push(0);
        }
        refs.iter()
            .filter(|r| starts.binary_search(r).is_err())
            .filter_map(|&r| {
                if r >= total {
                    return Some((r, Str::default()));
                }
                let rest = &bytes[r as usize..];
                let n = memchr::memchr(0, rest).unwrap_or(rest.len());
                std::str::from_utf8(&rest[..n])
                    .ok()
                    .map(|t| (r, Str::new(t)))
            })
            .collect()
    }

    /// Remembers that the offset at `field_pos` leads to `target`. `rank`
    /// orders targets that share a position: the schema's section index
    /// (times 1024, plus the offset field's index in its record), so that of
    /// two lists starting at one position, the one placed first is empty.
    #[inline]
    pub fn add_bound(&mut self, target: u64, rank: u64, field_pos: u64) {
        self.layout.bounds.insert((target, rank, field_pos));
    }

    /// Where a list starting at `start` ends when it runs to the next
    /// target: the first target after `start`, or `start` itself when
    /// another offset leads there whose target is placed after this list's.
    /// `own` is this list's rank and the position of the offset that led to
    /// it (`None` for an inline list, which any target at its start ends).
    /// Of two offsets of one rank (two elements of one list of offsets, or
    /// one field of two records of a list) leading to one position, the one
    /// read first leads to the empty list: an empty slot of a table points
    /// where the next slot's entries start. The end of the data when there
    /// is no target after `start`.
    pub fn list_end(&self, start: u64, own: Option<(u64, u64)>) -> u64 {
        // The unit root's targets (`set_bounds`) end it too.
        let root = self.next_bound(start);
        for &(t, rank, field_pos) in self.layout.bounds.range((start, 0, 0)..) {
            if t >= root {
                break;
            }
            let ends = t > start
                || match own {
                    Some(mine) => (rank, field_pos) > mine,
                    None => true,
                };
            if ends {
                return t.min(self.len());
            }
        }
        root
    }

    /// The rank of an inline list starting at `start`: when it opens the
    /// record an offset led to, it starts where that offset leads, and that
    /// target is the record holding it, not a later one, so the list takes
    /// the offset's rank (a BFEVFL flowchart's events read as none before:
    /// issue 72). `None` otherwise: any target at its start ends it.
    pub fn inline_list_rank(&self, start: u64) -> Option<(u64, u64)> {
        let from = self.entered_at(start)?;
        self.layout
            .bounds
            .range((start, 0, 0)..(start.saturating_add(1), 0, 0))
            .find(|&&(_, _, field_pos)| field_pos == from)
            .map(|&(_, rank, field_pos)| (rank, field_pos))
    }

    /// The first target strictly after `pos`, or the end of the data.
    pub fn bound_after(&self, pos: u64) -> u64 {
        self.layout
            .bounds
            .range((pos.saturating_add(1), 0, 0)..)
            .next()
            .map_or(self.len(), |&(t, _, _)| t.min(self.len()))
    }

    /// Adds a context value while a record's offsets are followed.
    #[inline]
    pub fn push_context(&mut self, name: impl Into<Cow<'static, str>>, value: u64) {
        self.layout.context.push((name.into(), value));
    }

    #[inline]
    pub fn pop_context(&mut self) {
        self.layout.context.pop();
    }

    /// The list element being decoded: its group, index and list length.
    #[inline]
    pub fn set_element(&mut self, group: usize, index: usize, len: usize) {
        self.layout.element = (group, index, len);
    }

    /// The context a `Select` hook sees for a target at `target`.
    pub fn select_cx(&self, target: u64) -> SelectCx<'_> {
        let end = self.bound_after(target).max(target);
        let bytes = self.bytes(target, end - target).unwrap_or(&[]);
        let (group, index, len) = self.layout.element;
        SelectCx {
            context: &self.layout.context,
            group,
            index,
            len,
            bytes,
        }
    }

    /// The error for a `Select` hook that chose no variant.
    pub fn no_variant(&self, field_pos: u64, union: &str, target: u64) -> DecodeError {
        let room = self.bound_after(target).saturating_sub(target);
        DecodeError::new(
            field_pos,
            ErrorKind::Invalid(format!(
                "no variant of {union} fits the target at 0x{target:x} ({room} bytes to the next target)"
            )),
        )
    }
}

impl Writer {
    /// Starts pool `id` with the document's strings, in their order (each
    /// one written, so the pool's bytes come back as they were).
    pub fn seed_pool(&mut self, id: usize, seed: &StringPool) -> EncodeResult<()> {
        let pool = slot(&mut self.layout.pools, id);
        pool.clear();
        for s in &seed.strings {
            let off = pool.buf.len();
            pool.buf.extend_from_slice(s.as_bytes());
            pool.buf.push(0);
            pool.file(off, s.len());
        }
        // Odd references come back where they were, when the text there
        // still matches (a whole string of the same text wins).
        let len = pool.buf.len() as u64;
        for (off, text) in &seed.odd {
            let at = *off as usize;
            let fits = if *off == len {
                text.is_empty()
            } else {
                pool.buf.get(at..at + text.len()) == Some(text.as_bytes())
                    && pool.buf.get(at + text.len()) == Some(&0)
            };
            if fits {
                pool.file(at, text.len());
                if *off == len {
                    pool.end_ref = Some(len);
                }
            }
        }
        Ok(())
    }

    /// The offset of `s` in pool `id`, appending it when it is new.
    pub fn intern(&mut self, id: usize, s: &[u8], what: &'static str) -> EncodeResult<u64> {
        let pool = slot(&mut self.layout.pools, id);
        let hash = SpanIndex::hash(s);
        if let Some(off) = pool.index.get(&pool.buf, s, hash) {
            return Ok(off);
        }
        if s.contains(&0) {
            return Err(EncodeError::new(
                what,
                "a pool string cannot contain a NUL byte",
            ));
        }
        if pool.placed.is_some() {
            return Err(EncodeError::new(
                what,
                "a new string is written after its pool was placed; place the pool's section after every record that refers to it",
            ));
        }
        if pool.end_ref.take() == Some(pool.buf.len() as u64) {
            pool.buf.push(0);
        }
        let off = pool.buf.len();
        pool.buf.extend_from_slice(s);
        pool.buf.push(0);
        pool.index.insert_new(hash, off, s.len(), off as u64);
        Ok(off as u64)
    }

    /// Writes pool `id` at the current position; returns where it starts.
    pub fn place_pool(&mut self, id: usize) -> u64 {
        let start = self.pos();
        let pool = slot(&mut self.layout.pools, id);
        pool.placed = Some(start);
        let buf = std::mem::take(&mut pool.buf);
        self.put_bytes(&buf);
        slot(&mut self.layout.pools, id).buf = buf;
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Endian;

    #[test]
    fn seeded_pool_keeps_order_and_appends() {
        let mut w = Writer::new(Endian::Little, 0, 1);
        let seed = StringPool::new(vec![Str::new("b"), Str::new("orphan"), Str::new("a")]);
        w.seed_pool(0, &seed).unwrap();
        assert_eq!(w.intern(0, b"a", "t").unwrap(), 9);
        assert_eq!(w.intern(0, b"b", "t").unwrap(), 0);
        assert_eq!(w.intern(0, b"new", "t").unwrap(), 11);
        assert_eq!(w.place_pool(0), 0);
        assert_eq!(w.bytes(), b"b\0orphan\0a\0new\0");
        assert!(w.intern(0, b"late", "t").is_err());
    }

    #[test]
    fn odd_references_come_back() {
        let mut w = Writer::new(Endian::Little, 0, 1);
        let seed = StringPool {
            strings: vec![Str::new("ab")],
            odd: vec![(1, Str::new("b")), (3, Str::default())],
        };
        w.seed_pool(0, &seed).unwrap();
        assert_eq!(w.intern(0, b"b", "t").unwrap(), 1);
        assert_eq!(w.intern(0, b"", "t").unwrap(), 3);
        assert_eq!(
            w.intern(0, b"c", "t").unwrap(),
            4,
            "the empty string is written first"
        );
        w.place_pool(0);
        assert_eq!(w.bytes(), b"ab\0\0c\0");
    }

    #[test]
    fn bounds_end_lists() {
        let data = [0u8; 64];
        let mut r = Reader::new(&data, Endian::Little);
        r.add_bound(16, 1, 0);
        r.add_bound(16, 2, 4);
        r.add_bound(32, 3, 8);
        assert_eq!(
            r.list_end(16, Some((1, 0))),
            16,
            "a later list starts here: empty"
        );
        assert_eq!(
            r.list_end(16, Some((2, 4))),
            32,
            "an earlier list starts here: that one is empty"
        );
        assert_eq!(r.list_end(8, None), 16);
        assert_eq!(r.list_end(33, None), 64);
        assert_eq!(r.bound_after(16), 32);
        // Two offsets of one rank (slots of one table) to one position:
        // the one read first leads to the empty list (schema-repros case 1).
        r.add_bound(40, 5, 0x0c);
        r.add_bound(40, 5, 0x14);
        r.add_bound(48, 5, 0x1c);
        assert_eq!(
            r.list_end(40, Some((5, 0x0c))),
            40,
            "the first slot is empty"
        );
        assert_eq!(r.list_end(40, Some((5, 0x14))), 48, "the second runs on");
    }
}
