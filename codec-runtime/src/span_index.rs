//! Byte strings found by their content, where the bytes themselves live in
//! a buffer the caller owns (a string pool's output, the shape keys). The
//! index keeps only each string's hash, span and value: no copy and no
//! allocation per string, and clearing it keeps its memory for the next
//! encode.

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

#[derive(Debug, Clone, Copy)]
struct Span {
    hash: u64,
    start: usize,
    len: usize,
    value: u64,
}

/// Strings of one buffer, each with a value (an offset, an id).
#[derive(Debug, Default, Clone)]
pub(crate) struct SpanIndex {
    table: HashTable<Span>,
}

impl SpanIndex {
    /// The hash the index files `bytes` under.
    #[inline]
    pub(crate) fn hash(bytes: &[u8]) -> u64 {
        FxBuildHasher.hash_one(bytes)
    }

    /// The value of the string equal to `bytes` (hashed to `hash`), whose
    /// copy lies in `buf`.
    #[inline]
    pub(crate) fn get(&self, buf: &[u8], bytes: &[u8], hash: u64) -> Option<u64> {
        self.table
            .find(hash, |s| {
                s.hash == hash && buf.get(s.start..s.start + s.len) == Some(bytes)
            })
            .map(|s| s.value)
    }

    /// Files `buf[start..start + len]` (hashed to `hash`) with `value`; the
    /// caller has checked that it is not there yet.
    #[inline]
    pub(crate) fn insert_new(&mut self, hash: u64, start: usize, len: usize, value: u64) {
        let span = Span {
            hash,
            start,
            len,
            value,
        };
        self.table.insert_unique(hash, span, |s| s.hash);
    }

    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_found_by_content_in_the_buffer() {
        let buf = b"abc\0abcd\0".to_vec();
        let mut ix = SpanIndex::default();
        ix.insert_new(SpanIndex::hash(b"abc"), 0, 3, 0);
        ix.insert_new(SpanIndex::hash(b"abcd"), 4, 4, 4);
        assert_eq!(ix.get(&buf, b"abc", SpanIndex::hash(b"abc")), Some(0));
        assert_eq!(ix.get(&buf, b"abcd", SpanIndex::hash(b"abcd")), Some(4));
        // A prefix of a filed string is a different string.
        assert_eq!(ix.get(&buf, b"ab", SpanIndex::hash(b"ab")), None);
        ix.clear();
        assert_eq!(ix.get(&buf, b"abc", SpanIndex::hash(b"abc")), None);
    }
}
