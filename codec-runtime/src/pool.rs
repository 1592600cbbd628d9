//! Dedup pools: how a section lets a new value reuse bytes already written.
//! Neither pool copies the bytes it indexes: both look at the output itself.

use rustc_hash::{FxBuildHasher, FxHashMap};
use std::collections::hash_map::Entry;
use std::hash::BuildHasher;

const NONE: u32 = u32::MAX;

/// Byte-level reuse at aligned positions of a section, as Nintendo's AAMP
/// writer does: a value may start inside, or straddle, earlier values.
///
/// Every aligned position is indexed by its first 4-byte word, as a chain
/// (first position per word in a map, the next one in a flat array), so a
/// lookup visits only the positions that start with the value's first word,
/// in increasing order, and indexing allocates nothing per word.
#[derive(Debug, Default)]
pub struct ByteSearchPool {
    /// First word -> (first, last) aligned position with it.
    heads: FxHashMap<u32, (u32, u32)>,
    /// `next[p / align]`: the next aligned position with the same first word.
    next: Vec<u32>,
    /// The next aligned position to index.
    indexed: u64,
}

impl ByteSearchPool {
    pub fn reset(&mut self) {
        self.heads.clear();
        self.next.clear();
        self.indexed = 0;
    }

    fn index(&mut self, hay: &[u8], align: u64) {
        let len = hay.len() as u64;
        while self.indexed + 4 <= len {
            let p = self.indexed as usize;
            let word = u32::from_le_bytes([hay[p], hay[p + 1], hay[p + 2], hay[p + 3]]);
            self.next.push(NONE);
            match self.heads.entry(word) {
                Entry::Occupied(mut e) => {
                    let (_, last) = e.get_mut();
                    self.next[(*last as u64 / align) as usize] = p as u32;
                    *last = p as u32;
                }
                Entry::Vacant(e) => {
                    e.insert((p as u32, p as u32));
                }
            }
            self.indexed += align;
        }
    }

    /// The first aligned position in `hay` where `needle` occurs whole.
    pub fn find(&mut self, hay: &[u8], align: u64, needle: &[u8]) -> Option<u64> {
        let align = align.max(1);
        if needle.is_empty() {
            return Some(0);
        }
        let matches = |p: u64| {
            let end = p as usize + needle.len();
            end <= hay.len() && same_bytes(&hay[p as usize..end], needle)
        };
        if align % 4 != 0 || needle.len() < 4 || hay.len() > u32::MAX as usize {
            let mut p = 0;
            while p + needle.len() as u64 <= hay.len() as u64 {
                if matches(p) {
                    return Some(p);
                }
                p += align;
            }
            return None;
        }
        self.index(hay, align);
        let word = u32::from_le_bytes([needle[0], needle[1], needle[2], needle[3]]);
        let mut p = self.heads.get(&word)?.0;
        loop {
            if matches(p as u64) {
                return Some(p as u64);
            }
            p = self.next[(p as u64 / align) as usize];
            if p == NONE {
                return None;
            }
        }
    }
}

/// Reuse of whole values with identical bytes (string pools). Remembers a
/// hash and a place per value; equality is checked against the output.
#[derive(Debug, Default)]
pub struct ExactPool {
    /// Hash of a value's bytes -> (position, length) of its first copy.
    first: FxHashMap<u64, (u32, u32)>,
    /// Values whose hash collided with a different earlier value.
    collided: Vec<(u64, u32, u32)>,
}

impl ExactPool {
    pub fn reset(&mut self) {
        self.first.clear();
        self.collided.clear();
    }

    fn hash(bytes: &[u8]) -> u64 {
        FxBuildHasher.hash_one(bytes)
    }

    /// The position of an earlier copy of `value` in `out` (the whole output).
    pub fn find(&self, out: &[u8], value: &[u8]) -> Option<u64> {
        let h = Self::hash(value);
        let same = |pos: u32, len: u32| {
            len as usize == value.len()
                && out.get(pos as usize..pos as usize + len as usize) == Some(value)
        };
        match self.first.get(&h) {
            Some(&(pos, len)) if same(pos, len) => Some(pos as u64),
            Some(_) => self
                .collided
                .iter()
                .find(|&&(ch, pos, len)| ch == h && same(pos, len))
                .map(|&(_, pos, _)| pos as u64),
            None => None,
        }
    }

    /// Remembers `value`, written at `pos`.
    pub fn insert(&mut self, value: &[u8], pos: u64) {
        let h = Self::hash(value);
        let entry = (pos as u32, value.len() as u32);
        match self.first.entry(h) {
            Entry::Vacant(e) => {
                e.insert(entry);
            }
            Entry::Occupied(_) => self.collided.push((h, entry.0, entry.1)),
        }
    }
}

/// Slice equality that settles most mismatches on the first 8 bytes without
/// a call into `memcmp` (candidates are short and usually differ early).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() >= 8 {
        let head = |s: &[u8]| u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]);
        head(a) == head(b) && a[8..] == b[8..]
    } else {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: the first aligned position where the needle fits whole.
    fn scan(hay: &[u8], align: usize, needle: &[u8]) -> Option<u64> {
        (0..hay.len())
            .step_by(align)
            .find(|&p| hay[p..].starts_with(needle))
            .map(|p| p as u64)
    }

    #[test]
    fn byte_search_agrees_with_a_plain_scan() {
        // A section of repeating words, so chains are long and matches straddle values.
        let hay: Vec<u8> = (0..64u32).flat_map(|i| (i % 5).to_le_bytes()).collect();
        let mut pool = ByteSearchPool::default();
        for start in (0..hay.len() - 12).step_by(4) {
            for len in [4usize, 8, 12] {
                let needle = &hay[start..start + len];
                assert_eq!(
                    pool.find(&hay, 4, needle),
                    scan(&hay, 4, needle),
                    "needle at {start}, {len} bytes"
                );
            }
        }
        assert_eq!(pool.find(&hay, 4, &7u32.to_le_bytes()), None);
        // Unaligned occurrences do not count.
        let odd = [hay[2], hay[3], hay[4], hay[5]];
        assert_eq!(pool.find(&hay, 4, &odd), scan(&hay, 4, &odd));
    }

    #[test]
    fn byte_search_only_matches_what_fits() {
        let hay = [1u8, 0, 0, 0, 2, 0, 0, 0];
        let mut pool = ByteSearchPool::default();
        // Starts with the last word but runs past the end.
        assert_eq!(pool.find(&hay, 4, &[2, 0, 0, 0, 3, 0, 0, 0]), None);
        assert_eq!(pool.find(&hay, 4, &[2, 0, 0, 0]), Some(4));
    }

    #[test]
    fn exact_pool_checks_content_not_just_hash() {
        let mut out = b"abc\0xyz\0".to_vec();
        let mut pool = ExactPool::default();
        pool.insert(b"abc\0", 0);
        pool.insert(b"xyz\0", 4);
        assert_eq!(pool.find(&out, b"xyz\0"), Some(4));
        assert_eq!(pool.find(&out, b"abd\0"), None);
        // If the output changed under a remembered entry, it no longer matches.
        out[0] = b'q';
        assert_eq!(pool.find(&out, b"abc\0"), None);
    }
}
