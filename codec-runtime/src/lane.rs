//! Lanes: a section filled in the same walk as the section before it.
//!
//! Two sections that a schema orders by the same glue hook (AAMP's `data`
//! and `strings`) would otherwise each need a walk of their own: the hook's
//! traversal, a lookup of every yielded record's position and a visit of
//! every record it leads to, twice. Instead the generated encoder walks
//! once and writes the second section into a lane: a buffer of its own,
//! with its own dedup pool, appended after the first section when the walk
//! ends. The bytes and their order are exactly those of two walks.
//!
//! While values go into a lane, positions are lane-relative and carry the
//! [`LANE`] bit, so that the generated code (which only sees positions) needs
//! no second path: an offset whose target carries the bit is kept and
//! patched when the lane is closed and its start is known. Lanes hold
//! values only (no records whose own offsets would need patching); the
//! macro opens a lane only for such a section.

pub use crate::base::LANE;
use crate::base::{offset_value, put_uint_at, Dedup, Endian, SectionSpan, Width};
use crate::error::EncodeResult;

use crate::memory::lane::{KeptOffset, KeptOffsets, Lanes, OffsetKind};
use crate::writer::Writer;

impl KeptOffsets {
    /// Keeps an offset of `kind` at `at`, from `base` to the lane-relative
    /// `target`.
    #[inline(always)]
    pub(crate) fn keep(&mut self, at: u64, base: u64, target: u64, kind: OffsetKind) {
        let same = self.runs.last().is_some_and(|(_, k)| {
            k.width == kind.width && k.scale == kind.scale && std::ptr::eq(k.what, kind.what)
        });
        if !same {
            self.runs.push((self.spots.len(), kind));
        }
        self.spots.push(KeptOffset { at, base, target });
    }

    fn clear(&mut self) {
        self.spots.clear();
        self.runs.clear();
    }

    /// Patches every kept offset for a lane that starts at `start`,
    /// stopping at the first that does not fit.
    fn patch(&self, buf: &mut [u8], endian: Endian, start: u64) -> EncodeResult<()> {
        for (i, &(first, kind)) in self.runs.iter().enumerate() {
            let end = self.runs.get(i + 1).map_or(self.spots.len(), |r| r.0);
            let spots = &self.spots[first..end];
            match kind.width {
                Width::U8 => patch_run::<1>(buf, endian, start, kind, spots)?,
                Width::U16 => patch_run::<2>(buf, endian, start, kind, spots)?,
                Width::U24 => patch_run::<3>(buf, endian, start, kind, spots)?,
                Width::U32 => patch_run::<4>(buf, endian, start, kind, spots)?,
                Width::U64 => patch_run::<8>(buf, endian, start, kind, spots)?,
            }
        }
        Ok(())
    }
}

impl Lanes {
    pub(crate) fn entered(&self) -> bool {
        self.saved.is_some()
    }
}

impl Writer {
    /// Opens section `id` as a lane beside the current section: it starts
    /// empty, aligned to `align`, with its own dedup pool.
    pub fn open_lane(&mut self, id: usize, align: u64, dedup: Dedup) {
        let lane = &mut self.lanes.lane;
        lane.section = id;
        lane.align = align.max(1);
        lane.dedup = Some(dedup);
        lane.buf.clear();
        lane.exact.reset();
        lane.search.reset();
        lane.kept.clear();
        self.lanes.open = true;
        self.set_section_span(id, SectionSpan::default());
    }

    /// Is section `id` the open lane, not entered (so that a walk of the
    /// section before it places `id`'s values too)?
    #[inline(always)]
    pub fn lane_is(&self, id: usize) -> bool {
        self.lanes.open && self.lanes.lane.section == id && self.lane_tag == 0
    }

    /// Sends what is written next to the open lane.
    #[inline]
    pub fn enter_lane(&mut self) {
        debug_assert!(self.lanes.open && !self.lanes.entered());
        let dedup = self.lanes.lane.dedup.unwrap_or(Dedup::None);
        let saved = self.swap_section(self.lanes.lane.section, dedup);
        self.lanes.saved = Some(saved);
        self.swap_lane_storage();
    }

    /// Sends what is written next back to the current section.
    #[inline]
    pub fn leave_lane(&mut self) {
        if let Some((id, dedup)) = self.lanes.saved.take() {
            self.swap_lane_storage();
            self.swap_section(id, dedup);
        }
    }

    #[inline(always)]
    fn swap_lane_storage(&mut self) {
        std::mem::swap(&mut self.buf, &mut self.lanes.lane.buf);
        self.lane_tag = if self.lanes.entered() { LANE } else { 0 };
        self.refresh_word_base();
    }

    /// Appends the open lane after the current position (aligned), records
    /// its section's span and patches the offsets into it.
    pub fn close_lane(&mut self) -> EncodeResult<()> {
        self.leave_lane();
        if !self.lanes.open {
            return Ok(());
        }
        self.lanes.open = false;
        let align = self.lanes.lane.align;
        self.align(align);
        let start = self.pos();
        let bytes = std::mem::take(&mut self.lanes.lane.buf);
        self.put_bytes(&bytes);
        self.lanes.lane.buf = bytes;
        self.align(align);
        let end = self.pos();
        self.set_section_span(self.lanes.lane.section, SectionSpan { start, end });
        self.lanes
            .lane
            .kept
            .patch(&mut self.buf, self.endian, start)
    }
}

/// Patches a run of kept offsets `N` bytes wide. A loop of its own rather
/// than a call of [`Writer::patch_offset`] per offset: that one is built for
/// widths and scales known where it is inlined, and these are known only
/// here, once per run. The checks are folded into one branch, and the error
/// (with its message) is made apart, by the same code as `patch_offset`'s.
fn patch_run<const N: usize>(
    buf: &mut [u8],
    endian: Endian,
    start: u64,
    kind: OffsetKind,
    spots: &[KeptOffset],
) -> EncodeResult<()> {
    let shift = kind.scale.trailing_zeros();
    let exact = kind.scale.is_power_of_two();
    let max = kind.width.max();
    for p in spots {
        let target = start + p.target;
        let delta = target.wrapping_sub(p.base);
        let v = delta >> shift;
        let fits = target >= p.base && exact && delta & (kind.scale - 1) == 0 && v <= max;
        let at = p.at as usize;
        match buf.get_mut(at..at + N) {
            Some(dst) if fits => match endian {
                Endian::Little => dst.copy_from_slice(&v.to_le_bytes()[..N]),
                Endian::Big => dst.copy_from_slice(&v.to_be_bytes()[8 - N..]),
            },
            _ => patch_slowly(buf, endian, target, kind, p)?,
        }
    }
    Ok(())
}

/// A kept offset that [`patch_run`] did not write: patched here if its
/// scale is not a power of two, else refused with the error
/// `patch_offset` would give.
#[cold]
#[inline(never)]
fn patch_slowly(
    buf: &mut [u8],
    endian: Endian,
    target: u64,
    kind: OffsetKind,
    p: &KeptOffset,
) -> EncodeResult<()> {
    let v = offset_value(kind.width, p.base, kind.scale, target, kind.what)?;
    put_uint_at(buf, p.at, kind.width, v, endian, kind.what)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One walk filling section 0 and, through a lane, section 1 gives the
    /// bytes of two walks: section 1 after section 0, its values deduped
    /// among themselves, and offsets into it patched once its start is known.
    #[test]
    fn a_lane_is_appended_and_its_offsets_patched() {
        let mut w = Writer::new(Endian::Little, 1, 2);
        // A record with two u32 offsets: to a data value and to a string.
        w.put_bytes(&[0u8; 8]);
        w.begin_section(0, 4, Dedup::None);
        w.open_lane(1, 4, Dedup::Exact);
        for (i, s) in ["ab", "cd", "ab"].iter().enumerate() {
            let t = w.begin_value(4);
            w.put_u32(i as u32 + 10);
            let t = w.end_value(t, 4);
            if i == 0 {
                w.patch_offset(0, Width::U32, 0, 1, t, Endian::Little, "data")
                    .unwrap();
            }
            assert!(w.lane_is(1));
            w.enter_lane();
            let start = w.begin_value(4);
            w.put_cstring(s, None, None, "s").unwrap();
            let t = w.end_value(start, 4);
            w.leave_lane();
            assert_ne!(t & LANE, 0, "a lane position carries the bit");
            if i == 2 {
                w.patch_offset(4, Width::U32, 0, 1, t, Endian::Little, "string")
                    .unwrap();
            }
        }
        w.end_section(4);
        w.close_lane().unwrap();
        let out = w.into_bytes();
        // Header (8), data 10, 11, 12 (12), strings "ab\0\0" "cd\0\0" (8).
        assert_eq!(out.len(), 28);
        assert_eq!(&out[0..4], &8u32.to_le_bytes(), "first data value");
        // The third string equals the first: it points at the lane's start.
        assert_eq!(&out[4..8], &20u32.to_le_bytes(), "string offset");
        assert_eq!(&out[20..28], b"ab\0\0cd\0\0");
    }

    /// Offsets into a lane of several widths, scales and bases, kept
    /// interleaved, are each patched as its own call asked, and one that
    /// does not fit is refused with its own field's name.
    #[test]
    fn kept_offsets_of_several_kinds_are_patched_as_asked() {
        let mut w = Writer::new(Endian::Big, 1, 2);
        w.put_bytes(&[0u8; 16]);
        w.begin_section(0, 4, Dedup::None);
        w.open_lane(1, 4, Dedup::Exact);
        let mut targets = Vec::new();
        for s in ["abc", "defgh", "ij"] {
            w.enter_lane();
            let start = w.begin_value(4);
            w.put_cstring(s, None, None, "s").unwrap();
            targets.push(w.end_value(start, 4));
            w.leave_lane();
        }
        // u16 in 4-byte units from 0, u32 in bytes from 4, u24 in 4-byte
        // units from 8, then u16 again.
        w.patch_offset(0, Width::U16, 0, 4, targets[0], Endian::Big, "a")
            .unwrap();
        w.patch_offset(4, Width::U32, 4, 1, targets[1], Endian::Big, "b")
            .unwrap();
        w.patch_offset(8, Width::U24, 8, 4, targets[2], Endian::Big, "c")
            .unwrap();
        w.patch_offset(12, Width::U16, 0, 4, targets[1], Endian::Big, "a")
            .unwrap();
        w.end_section(4);
        w.close_lane().unwrap();
        let out = w.into_bytes();
        // The lane starts at 16: "abc\0" at 16, "defgh\0" at 20, "ij\0" at 28.
        assert_eq!(&out[16..], b"abc\0defgh\0\0\0ij\0\0");
        assert_eq!(&out[0..2], &(16u16 / 4).to_be_bytes());
        assert_eq!(&out[4..8], &(20u32 - 4).to_be_bytes());
        assert_eq!(&out[8..11], &[0, 0, (28 - 8) / 4]);
        assert_eq!(&out[12..14], &(20u16 / 4).to_be_bytes());

        // A target too far for its width names its field.
        let mut w = Writer::new(Endian::Little, 1, 2);
        w.put_bytes(&[0u8; 4]);
        w.begin_section(0, 4, Dedup::None);
        w.open_lane(1, 4, Dedup::Exact);
        w.enter_lane();
        w.put_bytes(&[1u8; 300]);
        let start = w.begin_value(4);
        w.put_u32(7);
        let t = w.end_value(start, 4);
        w.leave_lane();
        w.patch_offset(0, Width::U16, 0, 4, t, Endian::Little, "near")
            .unwrap();
        w.patch_offset(2, Width::U8, 0, 1, t, Endian::Little, "far")
            .unwrap();
        w.end_section(4);
        let err = w.close_lane().expect_err("304 bytes do not fit in a u8");
        assert_eq!(err.path, "far");
    }

    /// A kept offset whose scale is not a power of two takes the slow path
    /// and the patches after it are still written; an inexact distance is
    /// refused with its field's name.
    #[test]
    fn a_kept_offset_of_any_scale_is_patched_and_the_rest_follow() {
        let kept = |scale: u64| {
            let mut w = Writer::new(Endian::Little, 1, 2);
            w.put_bytes(&[0u8; 8]);
            w.begin_section(0, 4, Dedup::None);
            w.open_lane(1, 4, Dedup::Exact);
            let mut targets = Vec::new();
            for s in ["abcde", "xy"] {
                w.enter_lane();
                let start = w.begin_value(4);
                w.put_cstring(s, None, None, "s").unwrap();
                targets.push(w.end_value(start, 4));
                w.leave_lane();
            }
            w.patch_offset(0, Width::U16, 1, scale, targets[1], Endian::Little, "odd")
                .unwrap();
            w.patch_offset(4, Width::U24, 4, 4, targets[1], Endian::Little, "after")
                .unwrap();
            w.end_section(4);
            w.close_lane().map(|()| w.into_bytes())
        };
        // The lane starts at 8: "abcde\0\0\0" at 8, "xy\0\0" at 16.
        let out = kept(3).unwrap();
        assert_eq!(&out[0..2], &((16u16 - 1) / 3).to_le_bytes());
        assert_eq!(&out[4..7], &[(16 - 4) / 4, 0, 0], "the patch after it");
        let err = kept(7).expect_err("15 is not a multiple of 7");
        assert_eq!(err.path, "odd");
    }

    /// The lane and the section beside it dedup each in its own pool: equal
    /// bytes on the other side are never reused, in either direction, while
    /// equal bytes on the same side are.
    #[test]
    fn a_lane_and_its_section_keep_separate_pools() {
        let mut w = Writer::new(Endian::Little, 1, 2);
        // Both sides dedup exact values, so one shared pool would match.
        w.begin_section(0, 4, Dedup::Exact);
        w.open_lane(1, 4, Dedup::Exact);
        let put_word = |w: &mut Writer, v: u32| {
            let t = w.begin_value(4);
            w.put_u32(v);
            w.end_value(t, 4)
        };
        let put_string = |w: &mut Writer| {
            w.enter_lane();
            let t = w.begin_value(4);
            w.put_cstring("ab", None, Some(4), "s").unwrap();
            let t = w.end_value(t, 4);
            w.leave_lane();
            t
        };
        let ab = u32::from_le_bytes(*b"ab\0\0");
        assert_eq!(put_word(&mut w, 7), 0);
        assert_eq!(put_word(&mut w, ab), 4);
        assert_eq!(
            put_string(&mut w),
            LANE,
            "the string is not found among the data"
        );
        assert_eq!(put_word(&mut w, ab), 4, "data reuses data");
        assert_eq!(put_string(&mut w), LANE, "strings reuse strings");
        w.end_section(4);
        w.close_lane().unwrap();
        assert_eq!(w.into_bytes(), b"\x07\0\0\0ab\0\0ab\0\0");
    }

    /// An output abandoned while a lane is entered (an encode error) leaves
    /// nothing behind in the next output of the thread's writer.
    #[test]
    fn an_output_abandoned_inside_a_lane_does_not_leak() {
        let mut w = Writer::new(Endian::Little, 1, 2);
        w.put_bytes(b"main");
        w.begin_section(0, 4, Dedup::None);
        w.open_lane(1, 4, Dedup::Exact);
        w.enter_lane();
        w.put_bytes(b"lane");
        drop(w);
        let w = Writer::new(Endian::Little, 1, 2);
        assert_eq!(w.pos(), 0);
        assert!(w.bytes().is_empty());
        assert!(!w.lane_is(1));
    }
}
