//! Sections whose values are sorted: the walk places each string where it
//! comes, as in any section, and when the walk ends the section's values
//! are laid out again in the section's order and every offset to one of
//! them is patched to its new place.
//!
//! Why after the walk: the order depends on every string the file holds
//! (NintendoWare's `STR ` pools sort by [`reversed_bits`], the empty string
//! first), so no value's place is known before the last one is met. The
//! event flows' tools read a string's bytes as one big-endian number, write
//! it in binary with no leading zeros, reverse that text and sort the
//! texts: comparing from the last byte towards the first, each byte from
//! its lowest bit. The 15 pools of the event-flow corpus are rebuilt
//! through a section sorted so (`formats/tests/nintendoware_constructs.rs`). The
//! walk keeps, for each offset written into the open section, where it is
//! and how it counts ([`Writer::patch_offset`] and [`Writer::put_offset`]
//! note it); an offset written after the section was sorted, to a value's
//! old place, is moved to the new one there too. The generated encoder and
//! the interpreter only open and close the section (`begin_sorted_values`,
//! `end_sorted_values`); this module does the rest for both.

use crate::base::{align_up, offset_value, Endian};
use crate::error::{EncodeError, EncodeResult};
use crate::memory::sorted_values::Moved;
pub use crate::memory::sorted_values::{SortedValues, ValueForm, ValueOrder};
use crate::writer::Writer;
use std::cmp::Ordering;

impl ValueForm {
    /// The length of the value at the start of `bytes` (its length prefix
    /// and NUL included), and its string.
    fn read(self, bytes: &[u8], endian: Endian) -> Option<(usize, &[u8])> {
        match self {
            ValueForm::CString => {
                let n = bytes.iter().position(|&b| b == 0)?;
                Some((n + 1, &bytes[..n]))
            }
            ValueForm::Prefixed { prefix, nul } => {
                let w = prefix.bytes() as usize;
                let head = bytes.get(..w)?;
                let mut v = 0u64;
                for (i, &b) in head.iter().enumerate() {
                    let shift = match endian {
                        Endian::Little => 8 * i,
                        Endian::Big => 8 * (w - 1 - i),
                    };
                    v |= (b as u64) << shift;
                }
                let n = usize::try_from(v).ok()?;
                let s = bytes.get(w..w.checked_add(n)?)?;
                Some((w + n + usize::from(nul), s))
            }
        }
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

impl ValueOrder {
    fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            ValueOrder::Bytes => a.cmp(b),
            ValueOrder::ReversedBits => reversed_bits(a, b),
        }
    }
}

impl Writer {
    /// Makes the section just begun a sorted one: what is placed in it
    /// until [`Writer::end_sorted_values`] is laid out again in `spec`'s
    /// order then.
    pub fn begin_sorted_values(&mut self, spec: SortedValues) {
        self.sorting.open = Some((spec, self.buf.len() as u64));
        self.sorting.sites.clear();
        self.sorting_watch = true;
    }

    /// Lays the open sorted section's values out again in its order, and
    /// patches every offset written to them. The section's bytes must be
    /// its values, back to back, each at the section's item alignment.
    pub fn end_sorted_values(&mut self) -> EncodeResult<()> {
        let Some((spec, start)) = self.sorting.open.take() else {
            return Ok(());
        };
        let sites = std::mem::take(&mut self.sorting.sites);
        let a = spec.item_align.max(1);
        let end = self.buf.len() as u64;
        // The values as placed.
        let mut values: Vec<(u64, usize)> = Vec::new();
        let mut p = align_up(start, a);
        while p < end {
            let Some((len, _)) = spec
                .form
                .read(&self.buf[p as usize..end as usize], self.endian)
            else {
                return Err(EncodeError::new(
                    "",
                    format!(
                        "the sorted section's value at 0x{p:x} is not a whole string of its form ({:?})",
                        spec.form
                    ),
                ));
            };
            values.push((p, len));
            p = align_up(p + len as u64, a);
        }
        let endian = self.endian;
        let string = |buf: &[u8], (at, len): (u64, usize)| -> Vec<u8> {
            let bytes = &buf[at as usize..at as usize + len];
            spec.form
                .read(bytes, endian)
                .map(|(_, s)| s.to_vec())
                .unwrap_or_default()
        };
        let keys: Vec<Vec<u8>> = values.iter().map(|&v| string(&self.buf, v)).collect();
        let not_empty = keys.iter().filter(|k| !k.is_empty()).count() as u64;
        let section = self.current_section();
        self.sorting.strings.push((section, not_empty));
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&x, &y| spec.order.compare(&keys[x], &keys[y]));
        // Laid out again, in order, each padded as before.
        let old = self.buf.split_off(start as usize);
        let mut moves: Vec<(u64, u64)> = Vec::with_capacity(values.len());
        for i in order {
            let (at, len) = values[i];
            let q = align_up(self.buf.len() as u64, a);
            self.buf.resize(q as usize, 0);
            moves.push((at, q));
            let from = (at - start) as usize;
            self.buf.extend_from_slice(&old[from..from + len]);
        }
        let q = align_up(self.buf.len() as u64, a);
        self.buf.resize(q as usize, 0);
        moves.sort_unstable();
        let moved = Moved { start, end, moves };
        for s in sites {
            let Ok(i) = moved.moves.binary_search_by_key(&s.target, |&(o, _)| o) else {
                return Err(EncodeError::new(
                    s.what,
                    format!(
                        "an offset into the middle of a value of a sorted section (0x{:x}): each offset must lead to a value's start",
                        s.target
                    ),
                ));
            };
            let v = offset_value(s.width, s.base, s.scale, moved.moves[i].1, s.what)?;
            self.patch_uint_as(s.at, s.width, v, s.endian, s.what)?;
        }
        self.sorting.moved.push(moved);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Dedup, Width};
    use std::cmp::Ordering;

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

    fn spec(order: ValueOrder, form: ValueForm, item_align: u64) -> SortedValues {
        SortedValues {
            order,
            form,
            item_align,
        }
    }

    /// A header of `n` u32 offsets, then a sorted section of C strings
    /// placed in the header's order; an offset written after the sort to a
    /// value's old place lands on its new one.
    #[test]
    fn values_are_laid_out_in_order_and_every_offset_follows() {
        let mut w = Writer::new(Endian::Little, 0, 1);
        let names = ["zeta", "alpha", "", "mid", "alpha"];
        w.put_bytes(&[0; 4 * 5]);
        w.begin_section(0, 4, Dedup::Exact);
        w.begin_sorted_values(spec(ValueOrder::Bytes, ValueForm::CString, 1));
        let mut placed = Vec::new();
        for (i, s) in names.iter().enumerate() {
            let t = w
                .place_cstring_exact(s, None, None, 1, false, "name")
                .unwrap();
            placed.push(t);
            w.patch_offset(4 * i as u64, Width::U32, 0, 1, t, Endian::Little, "name")
                .unwrap();
        }
        w.end_sorted_values().unwrap();
        w.end_section(4);
        // After the sort: an offset to "mid"'s old place.
        let late = placed[3];
        w.put_offset(Width::U32, 0, 1, late, "late").unwrap();
        let b = w.into_bytes();
        assert_eq!(&b[20..36], b"\0alpha\0mid\0zeta\0");
        let at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        assert_eq!([at(0), at(4), at(8), at(12), at(16)], [31, 21, 20, 27, 21]);
        assert_eq!(at(36), 27, "an offset written after the sort follows");
    }

    /// Length-prefixed strings with a NUL, 2-aligned, in the event flows'
    /// order: the empty string first, then by the last byte's bits.
    #[test]
    fn prefixed_strings_sort_by_reversed_bits() {
        let mut w = Writer::new(Endian::Little, 0, 1);
        w.put_bytes(&[0; 12]);
        w.begin_section(0, 8, Dedup::Exact);
        let prefixed = ValueForm::Prefixed {
            prefix: Width::U16,
            nul: true,
        };
        w.begin_sorted_values(spec(ValueOrder::ReversedBits, prefixed, 2));
        for (i, s) in ["ab", "", "b"].iter().enumerate() {
            let t = w.begin_value(2);
            w.put_uint(Width::U16, s.len() as u64, "").unwrap();
            w.put_bytes(s.as_bytes());
            w.put_bytes(&[0]);
            let t = w.end_value(t, 2);
            w.patch_offset(4 * i as u64, Width::U32, 0, 1, t, Endian::Little, "s")
                .unwrap();
        }
        w.end_sorted_values().unwrap();
        let b = w.into_bytes();
        // "" first; "ab" (last byte b = 0x62) before "b"? Both end in 0x62:
        // then the byte before, none for "b" (it runs out first).
        let mut expect = vec![0u8; 16]; // the section starts 8-aligned
        expect.extend_from_slice(&[0, 0, 0, 0]); // "" at 16
        expect.extend_from_slice(&[1, 0, b'b', 0]); // "b" at 20
        expect.extend_from_slice(&[2, 0, b'a', b'b', 0, 0]); // "ab" at 24
        assert_eq!(&b[12..], &expect[12..]);
        let at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        assert_eq!([at(0), at(4), at(8)], [24, 16, 20]);
    }

    #[test]
    fn an_offset_into_a_value_is_refused() {
        let mut w = Writer::new(Endian::Little, 0, 1);
        w.put_bytes(&[0; 4]);
        w.begin_section(0, 4, Dedup::Exact);
        w.begin_sorted_values(spec(ValueOrder::Bytes, ValueForm::CString, 1));
        let t = w
            .place_cstring_exact("name", None, None, 1, false, "n")
            .unwrap();
        w.patch_offset(0, Width::U32, 0, 1, t + 2, Endian::Little, "n")
            .unwrap();
        let e = w.end_sorted_values().unwrap_err().to_string();
        assert!(e.contains("into the middle of a value"), "{e}");
    }
}
