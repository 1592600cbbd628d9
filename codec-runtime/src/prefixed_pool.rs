//! Pools of length-prefixed strings: each distinct string once, as its
//! byte length, its bytes, a NUL and padding to the pool's alignment, the
//! references to it absolute offsets patched once the pool is laid out.
//! NintendoWare binaries keep every name this way (the `STR ` block of
//! event flows, `_STR` of BFRES), with the empty string first and in no
//! count.
//!
//! The pool is built from the strings a writer meets ([`PrefixedPool::add`]);
//! its order is the pool's own rule, not the order they were met
//! ([`PoolOrder`]). Event flows sort by [`reversed_bits`]: the tools read a
//! string's bytes as one big-endian number, write it in binary with no
//! leading zeros, reverse that text and sort the texts, which is comparing
//! from the last byte towards the first, each byte from its lowest bit.
//! The order gives the 15 pools of the event-flow corpus
//! (`formats/tests/nintendoware_constructs.rs`).

use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// The order of a pool's strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolOrder {
    /// As first added.
    Added,
    /// By their bytes.
    Bytes,
    /// By [`reversed_bits`].
    ReversedBits,
}

/// How a pool lays out each string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolLayout {
    /// Bytes of the length before the string (1, 2 or 4; little or big
    /// endian as `big`).
    pub prefix: usize,
    pub big: bool,
    /// A NUL after the bytes.
    pub nul: bool,
    /// Each entry starts at a multiple of this (1 for none).
    pub align: usize,
    /// The empty string is the pool's first entry, whether or not anything
    /// refers to it.
    pub empty_first: bool,
    pub order: PoolOrder,
}

/// The strings of a pool, each once.
#[derive(Debug, Default, Clone)]
pub struct PrefixedPool {
    strings: Vec<Box<[u8]>>,
    ids: FxHashMap<Box<[u8]>, u32>,
}

/// A pool laid out: its bytes and where each string's entry starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaidPool {
    pub bytes: Vec<u8>,
    /// By the id [`PrefixedPool::add`] gave: the entry's offset in `bytes`
    /// (at its length prefix).
    pub at: Vec<u64>,
    /// Entries, the empty string a layout puts first left out.
    pub count: usize,
}

/// Why a pool cannot be laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLong {
    pub len: usize,
    pub prefix: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a string of {} bytes does not fit a {}-byte length",
            self.len, self.prefix
        )
    }
}

impl std::error::Error for TooLong {}

impl PrefixedPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, added if new.
    pub fn add(&mut self, s: &[u8]) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.strings.len() as u32;
        self.strings.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// The pool's bytes and each string's place, as `layout` says.
    pub fn lay_out(&mut self, layout: &PoolLayout) -> Result<LaidPool, TooLong> {
        let empty = layout.empty_first.then(|| self.add(b""));
        let mut order: Vec<u32> = (0..self.strings.len() as u32)
            .filter(|&i| Some(i) != empty)
            .collect();
        let s = &self.strings;
        match layout.order {
            PoolOrder::Added => {}
            PoolOrder::Bytes => order.sort_by(|&a, &b| s[a as usize].cmp(&s[b as usize])),
            PoolOrder::ReversedBits => {
                order.sort_by(|&a, &b| reversed_bits(&s[a as usize], &s[b as usize]))
            }
        }
        let count = order.len();
        let mut bytes = Vec::new();
        let mut at = vec![0u64; s.len()];
        for id in empty.into_iter().chain(order) {
            let text = &s[id as usize];
            let len = text.len();
            if layout.prefix < 8 && len as u64 >= 1u64 << (8 * layout.prefix) {
                return Err(TooLong {
                    len,
                    prefix: layout.prefix,
                });
            }
            let align = layout.align.max(1);
            bytes.resize(bytes.len().div_ceil(align) * align, 0);
            at[id as usize] = bytes.len() as u64;
            let n = (len as u64).to_le_bytes();
            let prefix = &n[..layout.prefix];
            if layout.big {
                bytes.extend(prefix.iter().rev());
            } else {
                bytes.extend_from_slice(prefix);
            }
            bytes.extend_from_slice(text);
            if layout.nul {
                bytes.push(0);
            }
        }
        let align = layout.align.max(1);
        bytes.resize(bytes.len().div_ceil(align) * align, 0);
        Ok(LaidPool { bytes, at, count })
    }
}

/// The bits of `s` read as a big-endian number, lowest first, up to its
/// highest set bit (one 0 bit for a number that is 0).
fn bits_low_first(s: &[u8]) -> impl Iterator<Item = bool> + '_ {
    let first = s.iter().position(|&b| b != 0);
    let len = match first {
        None => 1,
        Some(i) => (s.len() - i - 1) * 8 + (8 - s[i].leading_zeros() as usize),
    };
    (0..len).map(move |k| {
        let byte = s.len().checked_sub(1 + k / 8).map_or(0, |j| s[j]);
        (byte >> (k % 8)) & 1 == 1
    })
}

/// The event-flow pool's order: `a` and `b` as the reversed binary texts
/// of their big-endian numbers, compared as text (`0` before `1`, a text
/// that runs out first before a longer one).
pub fn reversed_bits(a: &[u8], b: &[u8]) -> Ordering {
    bits_low_first(a).cmp(bits_low_first(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STR: PoolLayout = PoolLayout {
        prefix: 2,
        big: false,
        nul: true,
        align: 2,
        empty_first: true,
        order: PoolOrder::ReversedBits,
    };

    #[test]
    fn strings_compare_from_the_last_byte_lowest_bit_first() {
        // 'a' = 0x61 (bit 0 set), 'b' = 0x62 (bit 0 clear): b first.
        assert_eq!(reversed_bits(b"a", b"b"), Ordering::Greater);
        // Same last byte: the shorter text runs out first.
        assert_eq!(reversed_bits(b"a", b"xa"), Ordering::Less);
        // The first byte counts from its highest set bit: "\x01" is one bit.
        assert_eq!(reversed_bits(b"\x01", b"\x03"), Ordering::Less);
        assert_eq!(reversed_bits(b"", b""), Ordering::Equal);
        let mut v = vec!["Talk", "Near", "EntryPoint0", "A", "B"];
        v.sort_by(|a, b| reversed_bits(a.as_bytes(), b.as_bytes()));
        // Last bytes '0' 0x30 (bits from the lowest: 0000 1100), 'B' 0x42
        // (0100 0010), 'r' 0x72 (0100 1110), 'A' 0x41 (1000 0010), 'k'
        // 0x6b (1101 0110).
        assert_eq!(v, ["EntryPoint0", "B", "Near", "A", "Talk"]);
    }

    #[test]
    fn a_pool_lays_out_each_string_once_empty_first_padded_to_two() {
        let mut p = PrefixedPool::new();
        let a = p.add(b"abc");
        let b = p.add(b"de");
        assert_eq!(p.add(b"abc"), a);
        let laid = p.lay_out(&STR).unwrap();
        assert_eq!(laid.count, 2);
        // The empty string, then "de" before "abc": 'e' 0x65 and 'c' 0x63
        // differ first at bit 1 (0 in 'e').
        assert_eq!(reversed_bits(b"de", b"abc"), Ordering::Less);
        assert_eq!(&laid.bytes[..4], b"\0\0\0\0");
        assert_eq!(laid.at[b as usize], 4);
        // "de": 2-byte length, 2 bytes, NUL, a pad to 2: "abc" at 10.
        assert_eq!(&laid.bytes[4..10], b"\x02\0de\0\0");
        assert_eq!(laid.at[a as usize], 10);
        assert_eq!(&laid.bytes[10..], b"\x03\0abc\0");
        assert_eq!(laid.at.len(), 3, "the empty string has an id too");
    }

    #[test]
    fn a_string_too_long_for_its_prefix_is_refused() {
        let mut p = PrefixedPool::new();
        p.add(&[b'x'; 300]);
        let one = PoolLayout { prefix: 1, ..STR };
        assert_eq!(
            p.lay_out(&one),
            Err(TooLong {
                len: 300,
                prefix: 1
            })
        );
    }
}
