//! Dedup pools: how a section lets a new value reuse bytes already written.
//! Neither pool copies the bytes it indexes: both look at the output itself.

use crate::span_index::same_bytes;
use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use std::collections::hash_map::Entry;
use std::hash::Hasher;

const NONE: u32 = u32::MAX;

/// Empties a map kept for its memory. Clearing writes every control byte of
/// the table, so a map left empty (a section that placed nothing) is not
/// cleared again.
#[inline]
pub(crate) fn clear_map<K, V>(map: &mut FxHashMap<K, V>) {
    if !map.is_empty() {
        map.clear();
    }
}

/// Byte-level reuse at aligned positions of a section, as Nintendo's AAMP
/// writer does: a value may start inside, or straddle, earlier values, and
/// the first (lowest) aligned position whose bytes equal the value wins.
///
/// For each value length in use (rounded down to whole 4-byte words), the
/// pool keeps a chain index of every aligned window of that length, keyed by
/// a rolling hash of the window's words: the first position per hash in a
/// map, the next one in a flat array. A lookup then visits only windows with
/// the same hash (almost always true matches), in increasing order. Windows
/// are hashed incrementally as the section grows, so building an index costs
/// O(1) per aligned position and allocates nothing per word.
#[derive(Debug, Default)]
pub struct ByteSearchPool {
    /// Single words (most values): word -> first aligned position. The first
    /// occurrence of a word always fits, so no chain is needed.
    first_word: FxHashMap<u32, u32>,
    /// Next aligned position to enter into `first_word`.
    words_indexed: usize,
    /// One index per longer window length in words, created when first needed.
    by_len: Vec<WindowIndex>,
    /// Candidate positions compared in full so far (to prove lookups stay
    /// near-constant; see the tests).
    compared: u64,
    /// Indexes of earlier sections, kept for their memory.
    spare: Vec<WindowIndex>,
}

/// Window lengths beyond this many distinct ones share the one-word index
/// (keeps the work per appended word bounded on hostile documents).
const MAX_INDEXES: usize = 16;

/// Multiplier of the rolling hash (odd, so that it is invertible mod 2^64).
const HASH_BASE: u64 = 0x9E37_79B9_7F4A_7C15;

#[derive(Debug)]
struct WindowIndex {
    /// Window length in 4-byte words.
    words: usize,
    /// `HASH_BASE^(words - 1)`, to remove the outgoing word when rolling.
    top: u64,
    /// Hash -> (first, last) window position with it.
    heads: FxHashMap<u64, (u32, u32)>,
    /// `next[p / 4]`: the next window position with the same hash.
    next: Vec<u32>,
    /// The next window position to index.
    indexed: usize,
    /// The hash of the window at `indexed - 4` (valid when `indexed > 0`).
    hash: u64,
}

/// The little-endian word at `p` (callers only ask for words inside `hay`).
#[inline(always)]
fn word_at(hay: &[u8], p: usize) -> u64 {
    hay.get(p..)
        .and_then(<[u8]>::first_chunk::<4>)
        .map_or(0, |w| u64::from(u32::from_le_bytes(*w)))
}

impl WindowIndex {
    /// An empty index of windows of `words` words, in `reuse`'s memory.
    fn new(words: usize, reuse: Option<WindowIndex>) -> Self {
        let top = (1..words).fold(1u64, |t, _| t.wrapping_mul(HASH_BASE));
        let (mut heads, mut next) = match reuse {
            Some(ix) => (ix.heads, ix.next),
            None => (FxHashMap::default(), Vec::new()),
        };
        clear_map(&mut heads);
        next.clear();
        WindowIndex {
            words,
            top,
            heads,
            next,
            indexed: 0,
            hash: 0,
        }
    }

    fn hash_of(words: &[u8]) -> u64 {
        words.chunks_exact(4).fold(0u64, |h, w| {
            h.wrapping_mul(HASH_BASE)
                .wrapping_add(u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64)
        })
    }

    /// Indexes every window that now fits in `hay`.
    fn extend(&mut self, hay: &[u8]) {
        let span = self.words * 4;
        while self.indexed + span <= hay.len() {
            let p = self.indexed;
            self.hash = if p == 0 {
                Self::hash_of(&hay[..span])
            } else {
                // Roll: drop the word at p - 4, take in the word at p + span - 4.
                let out = word_at(hay, p - 4).wrapping_mul(self.top);
                self.hash
                    .wrapping_sub(out)
                    .wrapping_mul(HASH_BASE)
                    .wrapping_add(word_at(hay, p + span - 4))
            };
            self.next.push(NONE);
            match self.heads.entry(self.hash) {
                Entry::Occupied(mut e) => {
                    let (_, last) = e.get_mut();
                    self.next[*last as usize / 4] = p as u32;
                    *last = p as u32;
                }
                Entry::Vacant(e) => {
                    e.insert((p as u32, p as u32));
                }
            }
            self.indexed += 4;
        }
    }

    /// The first window position whose bytes start with `needle` (checked
    /// in full, beyond the hashed words too).
    fn find(&self, hay: &[u8], needle: &[u8], compared: &mut u64) -> Option<u64> {
        let key = Self::hash_of(&needle[..self.words * 4]);
        let mut p = self.heads.get(&key)?.0;
        loop {
            *compared += 1;
            let end = p as usize + needle.len();
            if end <= hay.len() && same_bytes(&hay[p as usize..end], needle) {
                return Some(p as u64);
            }
            p = self.next[p as usize / 4];
            if p == NONE {
                return None;
            }
        }
    }
}

impl ByteSearchPool {
    pub fn reset(&mut self) {
        self.compared = 0;
        clear_map(&mut self.first_word);
        self.words_indexed = 0;
        self.spare.append(&mut self.by_len);
    }

    /// The first aligned position in `hay` where `needle` occurs whole.
    pub fn find(&mut self, hay: &[u8], align: u64, needle: &[u8]) -> Option<u64> {
        let align = align.max(1);
        if needle.is_empty() {
            return Some(0);
        }
        if align != 4 || needle.len() < 4 || hay.len() >= NONE as usize {
            // Unusual alignments and tiny values: a plain scan.
            let mut p = 0;
            while p + needle.len() as u64 <= hay.len() as u64 {
                if same_bytes(&hay[p as usize..p as usize + needle.len()], needle) {
                    return Some(p);
                }
                p += align;
            }
            return None;
        }
        if needle.len() == 4 {
            self.index_words(hay, hay.len());
            let word = u32::from_le_bytes([needle[0], needle[1], needle[2], needle[3]]);
            return self.first_word.get(&word).map(|&p| p as u64);
        }
        let mut words = needle.len() / 4;
        let slot = match self.by_len.iter().position(|ix| ix.words == words) {
            Some(i) => i,
            None if self.by_len.len() < MAX_INDEXES => {
                let reuse = self.spare.pop();
                self.by_len.push(WindowIndex::new(words, reuse));
                self.by_len.len() - 1
            }
            None => {
                words = 1;
                match self.by_len.iter().position(|ix| ix.words == 1) {
                    Some(i) => i,
                    None => {
                        let reuse = self.spare.pop();
                        self.by_len.push(WindowIndex::new(1, reuse));
                        self.by_len.len() - 1
                    }
                }
            }
        };
        let index = &mut self.by_len[slot];
        debug_assert_eq!(index.words, words);
        index.extend(hay);
        index.find(hay, needle, &mut self.compared)
    }

    /// Enters the aligned words of `hay` that end at or before `upto` into
    /// `first_word`.
    #[inline(always)]
    fn index_words(&mut self, hay: &[u8], upto: usize) {
        while self.words_indexed + 4 <= upto {
            let p = self.words_indexed;
            self.first_word
                .entry(word_at(hay, p) as u32)
                .or_insert(p as u32);
            self.words_indexed += 4;
        }
    }

    /// A one-word value just written at `at` (a multiple of 4) in `hay`, the
    /// section so far: the first aligned position of an earlier copy of its
    /// word, or else `None`, and the value is then indexed where it stands
    /// (the caller keeps it there). One hash lookup for most values, where
    /// [`ByteSearchPool::find`] followed by appending takes two.
    #[inline]
    pub fn find_word_or_keep(&mut self, hay: &[u8], at: usize) -> Option<u64> {
        debug_assert!(at % 4 == 0 && at + 4 == hay.len());
        self.index_words(hay, at);
        match self.first_word.entry(word_at(hay, at) as u32) {
            Entry::Occupied(e) => Some(u64::from(*e.get())),
            Entry::Vacant(e) => {
                e.insert(at as u32);
                self.words_indexed = at + 4;
                None
            }
        }
    }

    /// [`ByteSearchPool::find_word_or_keep`] for a word not written yet:
    /// `hay` is the section so far, and the caller appends `word` (as its
    /// little-endian bytes) at its end when this returns `None`.
    #[inline(always)]
    pub fn find_or_keep_word(&mut self, hay: &[u8], word: u32) -> Option<u64> {
        let at = hay.len();
        debug_assert!(at % 4 == 0);
        self.index_words(hay, at);
        // A lookup, then an insert when new: most words are found, and a
        // plain lookup runs fewer instructions than the entry API's.
        if let Some(&p) = self.first_word.get(&word) {
            return Some(u64::from(p));
        }
        self.first_word.insert(word, at as u32);
        self.words_indexed = at + 4;
        None
    }

    /// How many candidate positions lookups have compared in full.
    pub fn compared(&self) -> u64 {
        self.compared
    }
}

/// Reuse of whole values with identical bytes (string pools). Remembers a
/// hash, a place and a length per value; equality is checked against the
/// output.
///
/// A value's hash covers its bytes up to its trailing zeros, and its length.
/// A NUL-terminated string padded with zeros therefore hashes the same
/// whether it is read back from the output or taken from the document
/// before it is written (see [`ExactPool::find_or_remember_cstring`]): its
/// bytes up to the terminator are the string's own.
#[derive(Debug, Default)]
pub struct ExactPool {
    /// (hash, position, length) of the first copy of each distinct value.
    /// Values with equal hashes are separate entries, told apart by content.
    first: HashTable<(u64, u32, u32)>,
}

impl ExactPool {
    pub fn reset(&mut self) {
        // Clearing writes every control byte of the table: skip it when
        // nothing was remembered (a section that placed nothing).
        if !self.first.is_empty() {
            self.first.clear();
        }
    }

    fn key(prefix: &[u8], len: usize) -> u64 {
        let mut h = FxHasher::default();
        h.write(prefix);
        h.write_usize(len);
        h.finish()
    }

    fn hash(value: &[u8]) -> u64 {
        let end = value.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        Self::key(&value[..end], value.len())
    }

    /// The first remembered copy with hash `h` for which `same` holds.
    #[inline]
    fn lookup(&self, h: u64, same: impl Fn(u32, u32) -> bool) -> Option<u64> {
        self.first
            .find(h, |&(eh, pos, len)| eh == h && same(pos, len))
            .map(|&(_, pos, _)| u64::from(pos))
    }

    fn remember(&mut self, h: u64, pos: usize, len: usize) {
        self.first
            .insert_unique(h, (h, pos as u32, len as u32), |&(eh, _, _)| eh);
    }

    /// The position of an earlier copy of `value` in `out` (the whole output).
    pub fn find(&self, out: &[u8], value: &[u8]) -> Option<u64> {
        self.lookup(Self::hash(value), |pos, len| {
            len as usize == value.len()
                && out
                    .get(pos as usize..pos as usize + len as usize)
                    .is_some_and(|o| same_bytes(o, value))
        })
    }

    /// The position of an earlier copy of the value at `out[start..]`, or
    /// else remembers it there (one hash for both).
    pub fn find_or_insert(&mut self, out: &[u8], start: usize) -> Option<u64> {
        let value = &out[start..];
        let h = Self::hash(value);
        let found = self.lookup(h, |pos, len| {
            len as usize == value.len()
                && out
                    .get(pos as usize..pos as usize + len as usize)
                    .is_some_and(|o| same_bytes(o, value))
        });
        if found.is_none() {
            self.remember(h, start, value.len());
        }
        found
    }

    /// The position of an earlier copy of the NUL-terminated string `s`,
    /// padded with zeros to `len` bytes, in `out`; or else `None`, having
    /// remembered it at `at`, where the caller writes it next. It is looked
    /// up by the document's bytes rather than bytes just stored, which
    /// keeps the lookup from waiting on those stores, and a string found is
    /// never written at all. One probe of the table does both.
    #[inline]
    pub fn find_or_remember_cstring(
        &mut self,
        out: &[u8],
        s: &[u8],
        len: usize,
        at: usize,
    ) -> Option<u64> {
        debug_assert!(!s.contains(&0) && len > s.len());
        let h = Self::key(s, len);
        let same = |&(eh, pos, l): &(u64, u32, u32)| {
            let pos = pos as usize;
            eh == h
                && l as usize == len
                && out
                    .get(pos..pos + s.len())
                    .is_some_and(|o| same_bytes(o, s))
                && out
                    .get(pos + s.len()..pos + len)
                    .is_some_and(|tail| tail.iter().all(|&b| b == 0))
        };
        match self.first.entry(h, same, |&(eh, _, _)| eh) {
            hashbrown::hash_table::Entry::Occupied(e) => Some(u64::from(e.get().1)),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert((h, at as u32, len as u32));
                None
            }
        }
    }

    /// Remembers `value`, written at `pos`.
    pub fn insert(&mut self, value: &[u8], pos: u64) {
        self.remember(Self::hash(value), pos as usize, value.len());
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
    fn byte_search_agrees_with_a_scan_while_the_section_grows() {
        // A deterministic pseudo-random section over a tiny alphabet of
        // words, so equal windows of every length are common; the pool sees
        // it grow word by word, as a writer's data section does.
        let mut state = 0x1234_5678u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let words: Vec<u32> = (0..400).map(|_| next() % 3).collect();
        let hay: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut pool = ByteSearchPool::default();
        for end in (0..=hay.len()).step_by(4) {
            let section = &hay[..end];
            // More than MAX_INDEXES distinct lengths, some not whole words.
            for len in (1..=80).step_by(3) {
                let at = (next() as usize % hay.len().max(1)) & !3;
                if at + len > hay.len() {
                    continue;
                }
                let needle = &hay[at..at + len];
                assert_eq!(
                    pool.find(section, 4, needle),
                    scan(section, 4, needle),
                    "section of {end} bytes, needle of {len} bytes from {at}"
                );
            }
        }
    }

    /// Reuse must not be quadratic in the section's size: with many
    /// distinct multi-word values (and a few repeats), each lookup compares
    /// about one candidate, however large the section has grown.
    #[test]
    fn byte_search_lookups_stay_constant_as_the_section_grows() {
        let mut pool = ByteSearchPool::default();
        let mut section: Vec<u8> = Vec::new();
        let n = 20_000u32;
        for i in 0..n {
            // Values share their first words (0, 1) like real vectors do.
            let value: Vec<u8> = [0u32, 1, i].iter().flat_map(|w| w.to_le_bytes()).collect();
            match pool.find(&section, 4, &value) {
                Some(_) => unreachable!("every value is new"),
                None => section.extend_from_slice(&value),
            }
            if i % 100 == 0 {
                let again: Vec<u8> = [0u32, 1, i / 2]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                assert!(pool.find(&section, 4, &again).is_some());
            }
        }
        let lookups = u64::from(n + n / 100);
        assert!(
            pool.compared() <= 2 * lookups,
            "{} full comparisons for {lookups} lookups",
            pool.compared()
        );
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

    /// A string looked up before it is written finds exactly what the
    /// same bytes looked up in the output find: the hash of its bytes up
    /// to the padding and of its length agrees with the hash of the value
    /// as written, and a padded copy of a shorter string is not taken for
    /// a longer one of the same length.
    #[test]
    fn a_string_looked_up_before_writing_agrees_with_its_written_bytes() {
        let mut out = Vec::new();
        let mut pool = ExactPool::default();
        // Written and remembered as bytes (the path of any other value).
        for v in [&b"ab\0\0"[..], b"abc\0", b"hello\0\0\0"] {
            let at = out.len();
            out.extend_from_slice(v);
            assert_eq!(pool.find_or_insert(&out, at), None);
        }
        let at = out.len();
        let mut string = |out: &[u8], s: &[u8], len| pool.find_or_remember_cstring(out, s, len, at);
        assert_eq!(string(&out, b"ab", 4), Some(0));
        assert_eq!(string(&out, b"abc", 4), Some(4));
        assert_eq!(string(&out, b"hello", 8), Some(8));
        // Remembered from the string, written, then found again by its
        // bytes and as a string.
        assert_eq!(string(&out, b"new", 4), None);
        out.extend_from_slice(b"new\0");
        assert_eq!(pool.find(&out, b"new\0"), Some(at as u64));
        // Found, so the place offered for a new copy is not taken.
        let unused = out.len();
        assert_eq!(
            pool.find_or_remember_cstring(&out, b"new", 4, unused),
            Some(at as u64)
        );
        // Same bytes, other lengths: not the same value.
        let end = out.len();
        assert_eq!(pool.find_or_remember_cstring(&out, b"ab", 3, end), None);
        out.extend_from_slice(b"ab\0");
        let later = out.len();
        assert_eq!(
            pool.find_or_remember_cstring(&out, b"hello", 6, later),
            None
        );
        assert_eq!(pool.find(&out, b"ab\0"), Some(end as u64));
    }

    /// Values whose hashes collide are kept apart by their content.
    #[test]
    fn exact_pool_keeps_colliding_values_apart() {
        let out = b"aaaabbbb";
        let mut pool = ExactPool::default();
        // Two different values remembered under one hash.
        pool.remember(7, 0, 4);
        pool.remember(7, 4, 4);
        let equal_to = |v: &'static [u8]| {
            move |pos: u32, len: u32| out[pos as usize..(pos + len) as usize] == *v
        };
        assert_eq!(pool.lookup(7, equal_to(b"bbbb")), Some(4));
        assert_eq!(pool.lookup(7, equal_to(b"aaaa")), Some(0));
        assert_eq!(pool.lookup(7, equal_to(b"cccc")), None);
        assert_eq!(pool.lookup(8, equal_to(b"aaaa")), None);
    }
}
