//! Dedup pools: how a section lets a new value reuse bytes already written.

use rustc_hash::FxHashMap;

/// Byte-level reuse at aligned positions of a section, as Nintendo's AAMP
/// writer does: a value may start inside, or straddle, earlier values.
///
/// Aligned positions are indexed by their first word (and first two words),
/// so a lookup costs the candidates that share the value's first bytes, not a
/// scan of the whole section.
#[derive(Debug, Default)]
pub struct ByteSearchPool {
    /// First 4 bytes at an aligned position -> positions, ascending.
    words: FxHashMap<u32, Vec<u32>>,
    /// First 8 bytes at an aligned position -> positions, ascending.
    pairs: FxHashMap<u64, Vec<u32>>,
    words_upto: u64,
    pairs_upto: u64,
}

impl ByteSearchPool {
    pub fn reset(&mut self) {
        self.words.clear();
        self.pairs.clear();
        self.words_upto = 0;
        self.pairs_upto = 0;
    }

    fn index(&mut self, hay: &[u8], align: u64) {
        let len = hay.len() as u64;
        while self.words_upto + 4 <= len {
            let p = self.words_upto as usize;
            let w = u32::from_le_bytes(hay[p..p + 4].try_into().unwrap_or_default());
            self.words.entry(w).or_default().push(p as u32);
            self.words_upto += align;
        }
        while self.pairs_upto + 8 <= len {
            let p = self.pairs_upto as usize;
            let w = u64::from_le_bytes(hay[p..p + 8].try_into().unwrap_or_default());
            self.pairs.entry(w).or_default().push(p as u32);
            self.pairs_upto += align;
        }
    }

    /// The first aligned position in `hay` where `needle` occurs whole.
    pub fn find(&mut self, hay: &[u8], align: u64, needle: &[u8]) -> Option<u64> {
        let align = align.max(1);
        if needle.is_empty() {
            return Some(0);
        }
        let fits = |p: u64| p + needle.len() as u64 <= hay.len() as u64;
        let matches = |p: u64| fits(p) && &hay[p as usize..p as usize + needle.len()] == needle;
        if align % 4 != 0 || needle.len() < 4 {
            let mut p = 0;
            while fits(p) {
                if matches(p) {
                    return Some(p);
                }
                p += align;
            }
            return None;
        }
        self.index(hay, align);
        let candidates = if needle.len() >= 8 {
            let key = u64::from_le_bytes(needle[..8].try_into().ok()?);
            self.pairs.get(&key)
        } else {
            let key = u32::from_le_bytes(needle[..4].try_into().ok()?);
            self.words.get(&key)
        }?;
        candidates.iter().map(|&p| p as u64).find(|&p| matches(p))
    }
}

/// Reuse of whole values with identical bytes (string pools).
#[derive(Debug, Default)]
pub struct ExactPool {
    seen: FxHashMap<Vec<u8>, u64>,
}

impl ExactPool {
    pub fn reset(&mut self) {
        self.seen.clear();
    }

    pub fn find(&self, bytes: &[u8]) -> Option<u64> {
        self.seen.get(bytes).copied()
    }

    pub fn insert(&mut self, bytes: &[u8], pos: u64) {
        self.seen.entry(bytes.to_vec()).or_insert(pos);
    }
}
