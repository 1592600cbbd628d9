//! The placement constructs of schema language v2, for the generated code
//! and the interpreter alike:
//!
//! - **section bases** (`base: Section("data")`): an offset counted from the
//!   start of a section of its layout. On decode the start comes from the
//!   root's `SectionStart` field or, for the first section, from where the
//!   root record ends; on encode from the section's span.
//! - **kept alignment** (`align: Kept(hook: "h")`): each target's alignment
//!   is a value of the document ([`Aligned`]), found on decode from where the
//!   target lies, written back on encode, chosen by glue for a new value.
//! - **sorted lists** (`sort_by: "key"`): a list field written in the order
//!   of a key derived from each element ([`sorted_order`]).

use crate::memory::placement::LastSorted;
use crate::reader::Reader;
use crate::writer::Writer;

/// A value whose alignment in its section is part of the document: an
/// archive member that must land where the game's packer put it.
/// `align == 0` means "none yet": the schema's glue chooses one on encode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Aligned<T> {
    pub align: u64,
    pub value: T,
}

impl<T> Aligned<T> {
    /// A value with no alignment yet (glue chooses it on encode).
    pub fn new(value: T) -> Self {
        Aligned { align: 0, value }
    }

    pub fn with_align(value: T, align: u64) -> Self {
        Aligned { align, value }
    }
}

impl<T> std::ops::Deref for Aligned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> std::ops::DerefMut for Aligned<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

/// The largest power of two dividing `n` (`None` for 0, which every power
/// divides).
fn pow2_dividing(n: u64) -> Option<u64> {
    (n != 0).then(|| 1u64 << n.trailing_zeros())
}

/// The most a kept alignment is taken to be (a value at the very start of a
/// section that itself starts at 0 would otherwise have no bound).
pub const MAX_KEPT_ALIGN: u64 = 1 << 16;

/// The alignment to keep for a value found at `target` in a section that
/// starts at `section_start`: the largest power of two that divides both
/// its distance from the section's start and the section's start itself.
///
/// Why this is exact: a writer that aligns each value to `a` within a
/// section starting at a multiple of every such `a` leaves each value at a
/// multiple of `a` and less than `a` bytes after the previous one's end. The
/// kept value is at least `a`, and still divides the value's position, so
/// aligning to it from the previous end lands on the same position; and
/// the section start is a multiple of the largest kept value, so it lands
/// where it was too (see `begin_section_kept`).
pub fn kept_align(target: u64, section_start: u64) -> u64 {
    let within = pow2_dividing(target.saturating_sub(section_start));
    let start = pow2_dividing(section_start);
    let a = match (within, start) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => MAX_KEPT_ALIGN,
    };
    a.min(MAX_KEPT_ALIGN)
}

impl crate::reader::Reader<'_> {
    /// Checks an alignment a record stores for one of its fields
    /// (`align_by`), read at `at`. A file that holds the field at a
    /// multiple of it cannot store one larger than itself (the field would
    /// lie past its end); refusing those keeps encode from padding a
    /// decoded document by gigabytes.
    pub fn stored_align(&self, at: u64, align: u64) -> crate::error::DecodeResult<()> {
        crate::base::checked::stored_align(self.len(), at, align)
    }
}

/// The alignment a value is placed with: its kept one, or glue's choice for
/// a value without one. Anything that is not a power of two is rounded up
/// to one (an edited document cannot break the writer).
pub fn effective_align(kept: u64, choose: impl FnOnce() -> u64) -> u64 {
    let a = if kept == 0 { choose() } else { kept };
    a.clamp(1, MAX_KEPT_ALIGN).next_power_of_two()
}

impl Reader<'_> {
    /// Notes where section `id` of the current layout starts (read from a
    /// `SectionStart` field, or where the root record ends).
    pub fn set_section_start(&mut self, id: usize, start: u64) {
        let starts = &mut self.layout.section_starts;
        if starts.len() <= id {
            starts.resize(id + 1, None);
        }
        starts[id] = Some(start);
    }

    /// The base of an offset counted from section `id`: its start, or
    /// u64::MAX (outside every file, so the target is refused) while it is
    /// not known.
    pub fn section_base(&self, id: usize) -> u64 {
        self.layout
            .section_starts
            .get(id)
            .copied()
            .flatten()
            .unwrap_or(u64::MAX)
    }

    /// Where section `id` starts, for an offset counted from it
    /// (`field_pos` is the offset's position, for the error).
    pub fn section_start(&self, id: usize, field_pos: u64) -> crate::error::DecodeResult<u64> {
        self.layout
            .section_starts
            .get(id)
            .copied()
            .flatten()
            .ok_or_else(|| {
                crate::error::DecodeError::new(
                    field_pos,
                    crate::error::ErrorKind::Invalid(
                        "an offset counts from a section whose start is not known yet".into(),
                    ),
                )
            })
    }
}

/// A piece of a layout root whose size decides where its first section
/// starts (see [`Reader::note_first_section`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootPart {
    /// A field of this many bytes.
    Fixed(u64),
    /// A list of `elem`-byte elements counted by the unsigned integer of
    /// `width` at `count_at` bytes from the root's start.
    Counted {
        count_at: u64,
        width: crate::base::Width,
        elem: u64,
    },
}

impl Reader<'_> {
    /// Notes that section `id` starts where the root record at `pos` ends
    /// (rounded up to `align`), its size being the sum of `parts`: what an
    /// offset counted from the first section needs when no field stores its
    /// start (SARC's names follow the file table). A count that cannot be
    /// read counts 0: the field's own read reports it.
    pub fn note_first_section(&mut self, id: usize, pos: u64, parts: &[RootPart], align: u64) {
        let start = first_section_start(pos, parts, align, |at, width| {
            crate::base::checked::uint(self.data(), at, width.bytes(), self.endian()).ok()
        });
        self.set_section_start(id, start);
    }
}

/// Where the first section starts after the root record at `pos` whose
/// size is the sum of `parts` (rounded up to `align`); `count(at, width)`
/// reads a count, and one that cannot be read counts 0 (the field's own
/// read reports it). Decode and the views both place it so.
pub fn first_section_start(
    pos: u64,
    parts: &[RootPart],
    align: u64,
    count: impl Fn(u64, crate::base::Width) -> Option<u64>,
) -> u64 {
    let mut end = pos;
    for part in parts {
        end = end.saturating_add(match *part {
            RootPart::Fixed(n) => n,
            RootPart::Counted {
                count_at,
                width,
                elem,
            } => count(pos.saturating_add(count_at), width)
                .unwrap_or(0)
                .saturating_mul(elem),
        });
    }
    crate::base::align_up(end, align.max(1))
}

impl Writer {
    /// Notes that a value with kept alignment `align` goes to section `id`
    /// (called as the record holding its offset is written, before the
    /// section begins), so that the section starts at a multiple of the
    /// largest.
    pub fn note_kept_align(&mut self, id: usize, align: u64) {
        let k = &mut self.layout.kept_aligns;
        if k.len() <= id {
            k.resize(id + 1, 1);
        }
        k[id] = k[id].max(align);
    }

    /// The alignment section `id` starts at: its declared `align`, or the
    /// largest kept alignment of the values noted for it.
    pub fn section_align(&self, id: usize, declared: u64) -> u64 {
        declared.max(self.layout.kept_aligns.get(id).copied().unwrap_or(1))
    }
}

/// The order in which to write a list's elements, by their keys: the
/// indices of `keys` sorted by key, equal keys in their document order.
pub fn sorted_order(keys: &[u64]) -> Vec<usize> {
    let mut order = Vec::new();
    fill_sorted_order(keys, &mut order, &mut Vec::new());
    order
}

/// [`sorted_order`] into `order`, with `scratch` for the packed keys: a
/// key and its index below 2^32 each sort as one number (the index breaks
/// ties, so equal keys keep their document order), without the stable
/// sort's buffer.
fn fill_sorted_order(keys: &[u64], order: &mut Vec<usize>, scratch: &mut Vec<u64>) {
    order.clear();
    // Often already in key order (a map whose values are all inline reads
    // back that way).
    if keys.windows(2).all(|p| p[0] < p[1]) {
        order.extend(0..keys.len());
        return;
    }
    let narrow =
        u32::try_from(keys.len()).is_ok() && keys.iter().all(|&k| k <= u64::from(u32::MAX));
    if narrow {
        scratch.clear();
        scratch.extend(keys.iter().enumerate().map(|(i, &k)| k << 32 | i as u64));
        scratch.sort_unstable();
        order.extend(scratch.iter().map(|&p| (p & 0xFFFF_FFFF) as usize));
    } else {
        order.extend(0..keys.len());
        order.sort_by_key(|&i| keys[i]);
    }
}

/// Refuses a list written in key `order` (from [`sorted_order`]) that holds
/// one key twice: a map read by halves holds each key once (decode refuses
/// such a file). `what` names the list.
pub fn unique_keys(keys: &[u64], order: &[usize], what: &str) -> crate::error::EncodeResult<()> {
    for pair in order.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if keys[a] == keys[b] {
            return Err(crate::error::EncodeError::new(
                what,
                format!(
                    "elements {} and {} have the same key: each key may appear once",
                    a.min(b),
                    a.max(b)
                ),
            ));
        }
    }
    Ok(())
}

/// Each element's slot when a list is written by [`sorted_order`]: the
/// inverse of that order (element `i` is written `slots[i]`-th).
pub fn sorted_slots(keys: &[u64]) -> Vec<usize> {
    let mut slots = vec![0; keys.len()];
    for (slot, i) in sorted_order(keys).into_iter().enumerate() {
        slots[i] = slot;
    }
    slots
}

impl LastSorted {
    pub(crate) fn clear(&mut self) {
        self.of = None;
    }
}

impl Writer {
    /// An empty buffer for a sorted list's keys; [`Writer::give_keys`]
    /// hands it back.
    #[inline]
    pub fn take_keys(&mut self) -> Vec<u64> {
        let mut v = self.sorted.spare_keys.pop().unwrap_or_default();
        v.clear();
        v
    }

    #[inline]
    pub fn give_keys(&mut self, keys: Vec<u64>) {
        self.sorted.spare_keys.push(keys);
    }

    /// [`sorted_order`] in a spare buffer; [`Writer::give_order`] hands it
    /// back (or [`Writer::note_sorted`] keeps it).
    #[inline]
    pub fn sorted_order(&mut self, keys: &[u64]) -> Vec<usize> {
        let mut order = self.sorted.spare_orders.pop().unwrap_or_default();
        fill_sorted_order(keys, &mut order, &mut self.sorted.packed);
        order
    }

    #[inline]
    pub fn give_order(&mut self, order: Vec<usize>) {
        self.sorted.spare_orders.push(order);
    }

    /// Keeps the write `order` of list `field` of the record at `record`,
    /// which was just written.
    pub fn note_sorted(
        &mut self,
        record: usize,
        type_id: usize,
        field: &'static str,
        order: Vec<usize>,
    ) {
        self.sorted.of = Some((record, type_id, field));
        let old = std::mem::replace(&mut self.sorted.order, order);
        self.sorted.spare_orders.push(old);
    }

    /// Each element's slot ([`sorted_slots`]) of that list, when it is the
    /// one written last; [`Writer::give_order`] hands the buffer back.
    pub fn last_sorted_slots(
        &mut self,
        record: usize,
        type_id: usize,
        field: &'static str,
    ) -> Option<Vec<usize>> {
        if self.sorted.of != Some((record, type_id, field)) {
            return None;
        }
        let mut slots = self.sorted.spare_orders.pop().unwrap_or_default();
        slots.clear();
        slots.resize(self.sorted.order.len(), 0);
        for (slot, &i) in self.sorted.order.iter().enumerate() {
            slots[i] = slot;
        }
        Some(slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal keys keep their document order, narrow keys or wide.
    #[test]
    fn sorted_order_is_stable_for_any_key_width() {
        let narrow = [5u64, 1, 5, 0, 1, 7];
        assert_eq!(sorted_order(&narrow), [3, 1, 4, 0, 2, 5]);
        assert_eq!(sorted_order(&[1, 2, 9]), [0, 1, 2]);
        assert_eq!(sorted_order(&[1, 1, 0]), [2, 0, 1]);
        let wide = [5u64 << 40, 1, 5 << 40, 0, 1, u64::MAX];
        assert_eq!(sorted_order(&wide), [3, 1, 4, 0, 2, 5]);
        let mut w = Writer::new(crate::base::Endian::Little, 0, 0);
        assert_eq!(w.sorted_order(&narrow), [3, 1, 4, 0, 2, 5]);
    }

    #[test]
    fn kept_alignment_reproduces_an_aligning_writer() {
        // Section at 0x800 (aligned to 0x800), values aligned to 4, 8, 0x800.
        assert_eq!(kept_align(0x800, 0x800), 0x800);
        assert_eq!(kept_align(0x800 + 0x594, 0x800), 4);
        assert_eq!(kept_align(0x800 + 0x658, 0x800), 8);
        assert_eq!(kept_align(0x800 + 0x1f000, 0x800), 0x800);
        // A section at 0xe8 caps every value at 8.
        assert_eq!(kept_align(0xe8, 0xe8), 8);
        assert_eq!(kept_align(0xe8 + 0x1b4, 0xe8), 4);
        assert_eq!(kept_align(0, 0), MAX_KEPT_ALIGN);
    }

    #[test]
    fn effective_alignment_is_a_power_of_two() {
        assert_eq!(effective_align(0, || 8), 8);
        assert_eq!(effective_align(12, || 8), 16);
        assert_eq!(effective_align(0, || 0), 1);
        assert_eq!(effective_align(1 << 40, || 0), MAX_KEPT_ALIGN);
    }

    #[test]
    fn sorting_is_stable() {
        assert_eq!(sorted_order(&[5, 1, 5, 0]), vec![3, 1, 0, 2]);
    }

    #[test]
    fn slots_invert_the_written_order() {
        // Written 3, 1, 0, 2: element 0 goes third, element 3 first.
        assert_eq!(sorted_slots(&[5, 1, 5, 0]), vec![2, 1, 3, 0]);
    }
}
