//! Byte strings found by their content, where the bytes themselves live in
//! a buffer the caller owns (a string pool's output, the shape keys). The
//! index keeps only each string's hash, span and value: no copy and no
//! allocation per string, and clearing it keeps its memory for the next
//! encode.
//!
//! The hash table holds 4 bytes per string, its place in `filed`; the
//! hashes, spans and values lie in `filed`, in the order they were filed.
//! A table is probed at a random place for each string, and tens of
//! thousands of new strings (the shapes of a file of small arrays) made a
//! table of 32-byte spans larger than the core's share of the cache, each
//! probe a miss; `filed` grows at its end, which the cache follows (issue
//! 51). An index holds at most 2^32 strings; past them, a string is looked
//! up but not filed, so an equal one met later is not found.

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

/// A string filed: its hash, its span in the caller's buffer, its value.
#[derive(Debug, Clone, Copy)]
struct Filed {
    hash: u64,
    start: usize,
    len: usize,
    value: u64,
}

/// A slot of the table: where its string is in `filed`. The table tells
/// strings apart by 7 bits of their hash first, so a string new to the
/// index (most are) seldom reads `filed` at all.
#[derive(Debug, Clone, Copy)]
struct Slot {
    at: u32,
}

/// Strings of one buffer, each with a value (an offset, an id).
#[derive(Debug, Default, Clone)]
pub(crate) struct SpanIndex {
    table: HashTable<Slot>,
    filed: Vec<Filed>,
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
            .find(hash, filed_as(&self.filed, buf, bytes, hash))
            .map(|s| self.filed[s.at as usize].value)
    }

    /// The value of the string equal to `bytes` (hashed to `hash`), whose
    /// copy lies in `buf`; when there is none, files `bytes` with `value`
    /// as the copy the caller puts at `buf[start..]` next, and gives
    /// `None`. One probe of the table where [`SpanIndex::get`] then
    /// [`SpanIndex::insert_new`] made two (a new shape of an encode, a new
    /// string).
    #[inline]
    pub(crate) fn get_or_file(
        &mut self,
        buf: &[u8],
        bytes: &[u8],
        hash: u64,
        start: usize,
        value: u64,
    ) -> Option<u64> {
        let Ok(at) = u32::try_from(self.filed.len()) else {
            // 2^32 strings filed: the rest are looked up, not filed.
            return self.get(buf, bytes, hash);
        };
        let filed = &self.filed;
        match self
            .table
            .entry(hash, filed_as(filed, buf, bytes, hash), |s| {
                filed[s.at as usize].hash
            }) {
            hashbrown::hash_table::Entry::Occupied(e) => Some(filed[e.get().at as usize].value),
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert(Slot { at });
                self.filed.push(Filed {
                    hash,
                    start,
                    len: bytes.len(),
                    value,
                });
                None
            }
        }
    }

    /// Files `buf[start..start + len]` (hashed to `hash`) with `value`; the
    /// caller has checked that it is not there yet.
    #[inline]
    pub(crate) fn insert_new(&mut self, hash: u64, start: usize, len: usize, value: u64) {
        let Ok(at) = u32::try_from(self.filed.len()) else {
            return;
        };
        let filed = &self.filed;
        self.table
            .insert_unique(hash, Slot { at }, |s| filed[s.at as usize].hash);
        self.filed.push(Filed {
            hash,
            start,
            len,
            value,
        });
    }

    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.filed.clear();
    }
}

/// Whether a slot holds `bytes` (hashed to `hash`), its copy in `buf`.
#[inline]
fn filed_as<'a>(
    filed: &'a [Filed],
    buf: &'a [u8],
    bytes: &'a [u8],
    hash: u64,
) -> impl Fn(&Slot) -> bool + 'a {
    move |s| {
        filed.get(s.at as usize).is_some_and(|f| {
            f.hash == hash
                && f.len == bytes.len()
                && buf
                    .get(f.start..f.start + f.len)
                    .is_some_and(|b| same_bytes(b, bytes))
        })
    }
}

/// A string of at most 24 bytes (an inline [`crate::Str`]: most keys,
/// names and values) as its length and three numbers read from its
/// start, its middle and its end: equal keys are equal strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ShortKey {
    pub(crate) head: u64,
    pub(crate) mid: u64,
    pub(crate) tail: u64,
    pub(crate) len: u32,
}

/// The longest string a [`ShortKey`] stands for.
pub(crate) const SHORT_MAX: usize = 24;

impl ShortKey {
    /// Nothing is filed under it (no string is that long).
    pub(crate) const NONE: ShortKey = ShortKey {
        head: 0,
        mid: 0,
        tail: 0,
        len: u32::MAX,
    };

    #[inline]
    pub(crate) fn of(b: &[u8]) -> Option<ShortKey> {
        // Loads from the start, the middle and the end, overlapping: with
        // the length they cover every byte, so they tell strings apart.
        let n = b.len();
        let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
        let half = |at: usize| {
            u64::from(u32::from_le_bytes(
                b[at..at + 4].try_into().unwrap_or([0; 4]),
            ))
        };
        let (head, mid, tail) = match n {
            0 => (0, 0, 0),
            1..=3 => (
                u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
                0,
                0,
            ),
            4..=7 => (half(0) | half(n - 4) << 32, 0, 0),
            8..=16 => (word(0), 0, word(n - 8)),
            17..=SHORT_MAX => (word(0), word(8), word(n - 8)),
            _ => return None,
        };
        Some(ShortKey {
            head,
            mid,
            tail,
            len: n as u32,
        })
    }
}

/// `a == b`, without a call to `memcmp` for slices of up to 24 bytes (most
/// keys, names and values): their [`ShortKey`]s.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    match (ShortKey::of(a), ShortKey::of(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
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

    /// Strings filed while the table grows (each growth moves every slot
    /// by the hash kept in `filed`) are all found again, each with its own
    /// value, and filing one again gives back the first value.
    #[test]
    fn strings_filed_through_growth_keep_their_values() {
        let mut buf = Vec::new();
        let mut ix = SpanIndex::default();
        for i in 0..5000u64 {
            let s = format!("key{i}");
            let h = SpanIndex::hash(s.as_bytes());
            assert_eq!(
                ix.get_or_file(&buf, s.as_bytes(), h, buf.len(), i * 3),
                None
            );
            buf.extend_from_slice(s.as_bytes());
        }
        for i in (0..5000u64).rev() {
            let s = format!("key{i}");
            let h = SpanIndex::hash(s.as_bytes());
            assert_eq!(ix.get(&buf, s.as_bytes(), h), Some(i * 3), "{s}");
            assert_eq!(ix.get_or_file(&buf, s.as_bytes(), h, 0, 1), Some(i * 3));
        }
        assert_eq!(ix.get(&buf, b"key5000", SpanIndex::hash(b"key5000")), None);
    }

    /// Two short strings have one key only when they are equal: every
    /// length to 24, each byte changed in turn, and lengths that differ.
    #[test]
    fn short_keys_tell_strings_apart() {
        for n in 0..=SHORT_MAX {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i).collect();
            let k = ShortKey::of(&a).unwrap();
            assert_eq!(Some(k), ShortKey::of(&a.clone()));
            for at in 0..n {
                let mut b = a.clone();
                b[at] = b'#';
                assert_ne!(Some(k), ShortKey::of(&b), "length {n}, byte {at}");
            }
            let mut longer = a.clone();
            longer.push(0);
            assert_ne!(Some(k), ShortKey::of(&longer), "length {n} and a NUL");
        }
        assert_eq!(ShortKey::of(&[b'x'; SHORT_MAX + 1]), None);
    }

    /// The short comparison agrees with `==` on every length up to 40,
    /// for equal slices and for slices differing in any one byte.
    #[test]
    fn short_comparison_is_equality() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same_bytes(&a, &a.clone()), "length {n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x40;
                assert!(!same_bytes(&a, &b), "length {n}, byte {at}");
            }
            assert!(!same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
    }
}
