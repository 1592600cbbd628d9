//! What one layout unit (a whole file, or a self-contained block of it such
//! as a BDAT table) remembers while it is decoded or encoded:
//!
//! - targets placed before the record that points to them is written
//!   (an earlier section holds what a later record points to);
//! - the positions of the records that references (`Ref`) and hash indexes
//!   (`Hash`) point at, by their ordinal among the records of their type;
//! - the cell layout of a row region (`Rows`) that column records describe;
//! - on decode, the positions the unit root's offsets lead to, which bound
//!   lists that run "to the next target" (`ToNext`).
//!
//! Each unit has its own [`Reader`] or [`Writer`], so none of this leaks from
//! one unit to the next.

use crate::base::{align_up, Width};
use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind};
use crate::layout::slot;
pub use crate::memory::scope::{CellSlot, ReadScope, WriteScope};
use crate::memory::scope::{Deferred, DeferredKey, FieldQueue, PendingRef};
use crate::reader::Reader;
use crate::writer::Writer;

/// The position passed to `visit` for a record that is not written yet: its
/// section comes after the one being filled. Targets placed for it are kept
/// until it is written ([`Writer::defer`]).
pub const UNPLACED: u64 = u64::MAX;

impl Deferred {
    fn clear(&mut self) {
        for q in &mut self.queues {
            q.items.clear();
            q.head = 0;
        }
        crate::pool::clear_map(&mut self.map);
    }

    /// The queue of a field (a schema has few fields that defer).
    #[inline]
    fn queue(&mut self, type_id: usize, field_off: u64) -> Option<&mut FieldQueue> {
        self.queues
            .iter_mut()
            .find(|q| q.type_id == type_id && q.field_off == field_off)
    }

    #[inline]
    fn insert(&mut self, (key, type_id, field_off): DeferredKey, target: u64) {
        if !self.map.is_empty() {
            self.map.insert((key, type_id, field_off), target);
            return;
        }
        match self.queue(type_id, field_off) {
            Some(q) => q.items.push((key, target)),
            None => self.queues.push(FieldQueue {
                type_id,
                field_off,
                items: vec![(key, target)],
                head: 0,
            }),
        }
    }

    /// Moves what waits in the queues to the map.
    #[cold]
    fn spill(&mut self) {
        for q in &mut self.queues {
            let (type_id, field_off) = (q.type_id, q.field_off);
            self.map.extend(
                q.items
                    .drain(q.head..)
                    .map(|(key, t)| ((key, type_id, field_off), t)),
            );
            q.items.clear();
            q.head = 0;
        }
    }

    /// The target waiting for `key`'s field; `take` also removes it.
    #[inline]
    fn find(&mut self, key: DeferredKey, take: bool) -> Option<u64> {
        if self.map.is_empty() {
            let q = self.queue(key.1, key.2)?;
            match q.items.get(q.head) {
                // Nothing waits for this field.
                None => return None,
                Some(&(k, t)) if k == key.0 => {
                    if take {
                        q.head += 1;
                        if q.head == q.items.len() {
                            q.items.clear();
                            q.head = 0;
                        }
                    }
                    return Some(t);
                }
                Some(_) => self.spill(),
            }
        }
        if take {
            self.map.remove(&key)
        } else {
            self.map.get(&key).copied()
        }
    }
}

impl WriteScope {
    /// Forgets everything but the memory (and the spare writer).
    pub(crate) fn clear(&mut self) {
        self.deferred.clear();
        self.ordinals.iter_mut().for_each(Vec::clear);
        self.refs.clear();
        self.hashed.iter_mut().for_each(Vec::clear);
        self.cells.clear();
        self.cells_end = 0;
    }
}

impl<'a> Reader<'a> {
    /// Remembers that a record of `type_id` starts at `pos` (for references).
    #[inline]
    pub fn note_position(&mut self, type_id: usize, pos: u64) {
        slot(&mut self.scope.positions, type_id).push(pos);
    }

    /// Resolves a reference: the ordinal of the record of `type_id` at
    /// `base + raw * scale`, which must have been decoded already.
    pub fn resolve_ref(
        &self,
        field_pos: u64,
        type_id: usize,
        type_name: &str,
        base: u64,
        raw: u64,
        scale: u64,
    ) -> DecodeResult<u32> {
        let target = raw.saturating_mul(scale).saturating_add(base);
        let found = self
            .scope
            .positions
            .get(type_id)
            .and_then(|v| v.iter().position(|&p| p == target));
        match found {
            Some(i) => Ok(i as u32),
            None => Err(DecodeError::new(
                field_pos,
                ErrorKind::Invalid(format!(
                    "reference to 0x{target:x} does not point at a `{type_name}` record (read before it)"
                )),
            )),
        }
    }

    /// Sets the positions that bound lists running to the next target.
    pub fn set_bounds(&mut self, mut bounds: Vec<u64>) {
        bounds.sort_unstable();
        self.scope.bounds = bounds;
    }

    /// The first bound after `pos`, or the end of the data.
    pub fn next_bound(&self, pos: u64) -> u64 {
        self.scope
            .bounds
            .iter()
            .copied()
            .find(|&b| b > pos)
            .unwrap_or(self.len())
            .min(self.len())
    }

    /// Records one column's cells (read from a column record).
    #[inline]
    pub fn push_cell(&mut self, cell: CellSlot) {
        self.scope.cells.push(cell);
    }

    /// The cell layout read so far.
    pub fn cells(&self) -> &[CellSlot] {
        &self.scope.cells
    }
}

impl Writer {
    /// A writer for a unit this output holds: empty, with the memory the
    /// previous unit's writer had. Give it back with [`Writer::give_unit_writer`].
    pub fn take_unit_writer(
        &mut self,
        endian: crate::base::Endian,
        type_count: usize,
        section_count: usize,
    ) -> Box<Writer> {
        // Boxed, and kept boxed between units: a writer is a large struct,
        // and a table file holds hundreds of units.
        match self.spare.take() {
            Some(mut w) => {
                w.reset(endian, type_count, section_count);
                w
            }
            None => Box::new(Writer::new(endian, type_count, section_count)),
        }
    }

    /// Keeps a unit's writer for the next unit.
    pub fn give_unit_writer(&mut self, w: Box<Writer>) {
        self.spare = Some(w);
    }

    /// Remembers a target placed for a record that is not written yet.
    #[inline]
    pub fn defer(&mut self, key: usize, type_id: usize, field_off: u64, target: u64) {
        self.scope
            .deferred
            .insert((key, type_id, field_off), target);
    }

    /// The target placed earlier for this record's field, if any.
    #[inline]
    pub fn take_deferred(&mut self, key: usize, type_id: usize, field_off: u64) -> Option<u64> {
        self.scope.deferred.find((key, type_id, field_off), true)
    }

    /// The target placed earlier for this record's field, kept for it.
    #[inline]
    pub fn peek_deferred(&mut self, key: usize, type_id: usize, field_off: u64) -> Option<u64> {
        self.scope.deferred.find((key, type_id, field_off), false)
    }

    /// Writes the offset from `base` to an earlier-placed `target` (as
    /// [`Writer::patch_offset`] would compute it).
    #[inline]
    pub fn put_offset(
        &mut self,
        width: Width,
        base: u64,
        scale: u64,
        target: u64,
        what: &'static str,
    ) -> EncodeResult<()> {
        let target = if self.sorting_watch {
            self.sorting.note(crate::memory::sorted_values::Site {
                at: self.pos(),
                width,
                base,
                scale,
                target,
                endian: self.endian,
                what,
            })
        } else {
            target
        };
        if target & crate::base::LANE != 0 {
            // Into a lane: zeros now, patched when the lane is closed.
            let at = self.pos();
            self.put_bytes(&[0u8; 8][..width.bytes() as usize]);
            return self.patch_offset(at, width, base, scale, target, self.endian, what);
        }
        let v = crate::base::offset_value(width, base, scale, target, what)?;
        self.put_uint(width, v, what)
    }

    /// Remembers that a record of `type_id` was written at `pos` (its
    /// ordinal is the number of such records before it).
    #[inline]
    pub fn note_ordinal(&mut self, type_id: usize, pos: u64) {
        slot(&mut self.scope.ordinals, type_id).push(pos);
    }

    /// The position of the `index`-th record of `type_id` written so far.
    pub fn ordinal_pos(&self, type_id: usize, index: u64) -> Option<u64> {
        self.scope
            .ordinals
            .get(type_id)
            .and_then(|v| v.get(usize::try_from(index).ok()?))
            .copied()
    }

    /// A reference field at `at` to the `index`-th record of `type_id`, to be
    /// patched by [`Writer::resolve_refs`].
    #[allow(clippy::too_many_arguments)]
    pub fn defer_ref(
        &mut self,
        at: u64,
        width: Width,
        base: u64,
        scale: u64,
        type_id: usize,
        index: u64,
        what: &'static str,
    ) {
        self.scope.refs.push(PendingRef {
            at,
            width,
            base,
            scale,
            type_id,
            index,
            what,
        });
    }

    /// Patches every reference of the unit.
    pub fn resolve_refs(&mut self) -> EncodeResult<()> {
        let refs = std::mem::take(&mut self.scope.refs);
        for r in refs {
            let Some(target) = self.ordinal_pos(r.type_id, r.index) else {
                let n = self.scope.ordinals.get(r.type_id).map_or(0, Vec::len);
                return Err(EncodeError::new(
                    r.what,
                    format!("refers to record {}, but only {n} were written", r.index),
                ));
            };
            self.patch_offset(r.at, r.width, r.base, r.scale, target, self.endian, r.what)?;
        }
        Ok(())
    }

    /// Remembers a hashed record: its position and the hash of its key.
    #[inline]
    pub fn note_hash(&mut self, type_id: usize, pos: u64, hash: u64) {
        slot(&mut self.scope.hashed, type_id).push((pos, hash));
    }

    /// Writes a hash index over the records of `spec.type_id` at the current
    /// position: `slots` heads, each the offset of the first record of its
    /// chain (0 when empty); each record's `next` field is patched with the
    /// offset of the following record of its chain (0 at the end). With
    /// `prepend`, a record becomes the head of its chain (chains run from the
    /// last written record back); otherwise it is appended at the tail.
    /// Returns where the index starts.
    pub fn place_hash_index(&mut self, spec: &HashSpec) -> EncodeResult<u64> {
        let start = self.pos();
        // Lent out of the scope while the index is patched, then put back.
        let entries = self
            .scope
            .hashed
            .get_mut(spec.type_id)
            .map(std::mem::take)
            .unwrap_or_default();
        let placed = self.fill_hash_index(spec, &entries, start);
        if let Some(slot) = self.scope.hashed.get_mut(spec.type_id) {
            *slot = entries;
        }
        placed
    }

    fn fill_hash_index(
        &mut self,
        spec: &HashSpec,
        entries: &[(u64, u64)],
        start: u64,
    ) -> EncodeResult<u64> {
        let wb = spec.width.bytes();
        let slots = spec.slots;
        if slots == 0 {
            if entries.is_empty() {
                return Ok(start);
            }
            return Err(EncodeError::new(
                spec.what,
                format!(
                    "a hash index of 0 slots cannot hold {} records",
                    entries.len()
                ),
            ));
        }
        let table_len = slots
            .checked_mul(wb)
            .filter(|&n| n <= 1 << 32)
            .ok_or_else(|| EncodeError::new(spec.what, "the hash index is too large"))?;
        self.put_zeros(table_len as usize);
        let n = slots as usize;
        let mut head: Vec<Option<usize>> = vec![None; n];
        let mut tail: Vec<Option<usize>> = vec![None; n];
        let mut next: Vec<Option<usize>> = vec![None; entries.len()];
        for (i, &(_, h)) in entries.iter().enumerate() {
            let b = (h % slots) as usize;
            if spec.prepend {
                next[i] = head[b];
                head[b] = Some(i);
            } else {
                match tail[b] {
                    Some(t) => next[t] = Some(i),
                    None => head[b] = Some(i),
                }
                tail[b] = Some(i);
            }
        }
        for (b, h) in head.iter().enumerate() {
            if let Some(i) = *h {
                let at = start + b as u64 * wb;
                self.patch_offset(
                    at,
                    spec.width,
                    spec.base,
                    spec.scale,
                    entries[i].0,
                    self.endian,
                    spec.what,
                )?;
            }
        }
        for (i, nx) in next.iter().enumerate() {
            if let Some(j) = *nx {
                let at = entries[i].0 + spec.next_off;
                self.patch_offset(
                    at,
                    spec.next_width,
                    spec.base,
                    spec.scale,
                    entries[j].0,
                    self.endian,
                    spec.next_what,
                )?;
            }
        }
        Ok(start)
    }

    /// Adds one column's cells to the row layout and returns their offset in
    /// the row: columns are packed in the order they are written.
    pub fn add_cell(
        &mut self,
        tag: u64,
        count: u64,
        size: Option<u64>,
        what: &'static str,
    ) -> EncodeResult<u64> {
        let Some(size) = size else {
            return Err(EncodeError::new(
                what,
                format!("cell type {tag} names no cell of the row layout"),
            ));
        };
        let offset = self.scope.cells_end;
        let len = count
            .checked_mul(size)
            .and_then(|n| n.checked_add(offset))
            .ok_or_else(|| EncodeError::new(what, "the row is too long"))?;
        self.scope.cells.push(CellSlot {
            tag,
            count,
            offset,
            size,
            tag_pos: 0,
        });
        self.scope.cells_end = len;
        Ok(offset)
    }

    /// The row layout written so far.
    pub fn cells(&self) -> &[CellSlot] {
        &self.scope.cells
    }

    /// The length of a row: the cells' bytes, rounded up to `align`.
    pub fn row_stride(&self, align: u64) -> u64 {
        align_up(self.scope.cells_end, align)
    }

    /// Ends section `id`: aligns the end to `align` (from the unit's start),
    /// pads its length to a multiple of `pad` (from the section's start), then
    /// aligns the end to `end_align`.
    pub fn end_section_padded(&mut self, id: usize, align: u64, pad: u64, end_align: u64) {
        self.align(align);
        if pad > 1 {
            let start = self.section(id).start;
            let len = self.pos() - start;
            let want = align_up(len, pad);
            self.put_bytes(&vec![0u8; (want - len) as usize]);
        }
        self.align(end_align);
        self.end_section(1);
    }

    /// Writes bytes known to hold no NUL, NUL-terminated, then pads the
    /// position to `pad`.
    #[inline]
    pub fn put_cbytes_nul_free(&mut self, s: &[u8], pad: Option<u64>) {
        let end = self.pos() + s.len() as u64 + 1;
        let zeros = (align_up(end, pad.unwrap_or(1)) - end + 1) as usize;
        self.put_bytes_then_zeros(s, zeros);
    }

    /// Writes a NUL-terminated string of any bytes (see [`Writer::put_cstring`]).
    pub fn put_cbytes(
        &mut self,
        s: &[u8],
        max: Option<u64>,
        pad: Option<u64>,
        what: &'static str,
    ) -> EncodeResult<()> {
        crate::base::check_cstring(s, max, what)?;
        self.put_bytes(s);
        self.put_u8(0);
        if let Some(a) = pad {
            self.align(a);
        }
        Ok(())
    }
}

/// How [`Writer::place_hash_index`] lays out a hash index.
#[derive(Debug, Clone)]
pub struct HashSpec {
    /// The hashed records' type.
    pub type_id: usize,
    pub slots: u64,
    pub prepend: bool,
    /// Width of a slot and of the records' `next` field's offsets.
    pub width: Width,
    pub base: u64,
    pub scale: u64,
    /// Where the `next` field lies in a record, and its width.
    pub next_off: u64,
    pub next_width: Width,
    pub what: &'static str,
    pub next_what: &'static str,
}

impl Reader<'_> {
    /// A NUL-terminated string of any bytes at `pos` (UTF-8 or not), charged
    /// to the read budget; returns it and the position after its NUL
    /// (aligned up to `pad`).
    pub fn text_at(
        &mut self,
        pos: u64,
        max: Option<u64>,
        pad: Option<u64>,
    ) -> DecodeResult<(crate::text::Text, u64)> {
        let bytes = self.cstr(pos, max)?;
        self.charge(pos, bytes.len() as u64 + 1)?;
        let mut end = pos + bytes.len() as u64 + 1;
        if let Some(a) = pad {
            end = align_up(end, a);
        }
        Ok((crate::text::Text::from_bytes(bytes), end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `put_offset` writes what zeros patched by `patch_offset` hold, in
    /// both byte orders and every width, and refuses what that refuses.
    #[test]
    fn an_offset_put_in_place_equals_one_patched() {
        use crate::base::Endian;
        for endian in [Endian::Little, Endian::Big] {
            for (width, base, scale, target) in [
                (Width::U8, 0, 1, 0x7f),
                (Width::U16, 0x10, 4, 0x1010),
                (Width::U24, 8, 4, 0x3_0008),
                (Width::U32, 0, 2, 0x1234_5678),
            ] {
                let mut put = Writer::new(endian, 1, 1);
                put.put_u8(0xAA);
                put.put_offset(width, base, scale, target, "f").unwrap();
                let mut patched = Writer::new(endian, 1, 1);
                patched.put_u8(0xAA);
                patched.put_zeros(width.bytes() as usize);
                patched
                    .patch_offset(1, width, base, scale, target, endian, "f")
                    .unwrap();
                assert_eq!(put.into_bytes(), patched.into_bytes(), "{width:?}");
            }
            let mut w = Writer::new(endian, 1, 1);
            let before = w.put_offset(Width::U16, 8, 1, 4, "f.before").unwrap_err();
            assert!(before.to_string().contains("lies before"), "{before}");
            let inexact = w.put_offset(Width::U16, 0, 4, 6, "f.inexact").unwrap_err();
            assert!(
                inexact.to_string().contains("not a multiple of 4"),
                "{inexact}"
            );
            let wide = w.put_offset(Width::U8, 0, 1, 0x100, "f.wide").unwrap_err();
            assert!(
                wide.to_string().contains("does not fit in 1 byte"),
                "{wide}"
            );
        }
    }

    /// Two fields of one type, their targets placed field by field and
    /// taken record by record (as BDAT's column records take their info
    /// and name): every target comes back to its own record's field.
    #[test]
    fn deferred_targets_come_back_by_field_in_any_order() {
        let mut d = Deferred::default();
        for record in 0..50usize {
            d.insert((record, 7, 0), 1000 + record as u64);
        }
        for record in 0..50usize {
            d.insert((record, 7, 4), 2000 + record as u64);
        }
        // A record with nothing deferred for another field takes nothing.
        assert_eq!(d.find((3, 7, 8), true), None);
        for record in 0..20usize {
            assert_eq!(d.find((record, 7, 0), false), Some(1000 + record as u64));
            assert_eq!(d.find((record, 7, 0), true), Some(1000 + record as u64));
            assert_eq!(d.find((record, 7, 4), true), Some(2000 + record as u64));
            // Taken once only.
            assert_eq!(d.find((record, 7, 0), true), None);
        }
        // Out of order: the rest move to the map and are still found.
        assert_eq!(d.find((40, 7, 4), true), Some(2040));
        assert!(!d.map.is_empty());
        for record in (20..50usize).rev() {
            assert_eq!(d.find((record, 7, 0), true), Some(1000 + record as u64));
            let name = (record != 40).then(|| 2000 + record as u64);
            assert_eq!(d.find((record, 7, 4), true), name);
        }
        // Placed after the spill: found through the map.
        d.insert((99, 7, 0), 5);
        assert_eq!(d.find((99, 7, 0), true), Some(5));
        // A new unit starts with queues again.
        d.clear();
        d.insert((1, 7, 0), 9);
        assert!(d.map.is_empty());
        assert_eq!(d.find((1, 7, 0), true), Some(9));
        assert_eq!(d.find((1, 7, 0), true), None);
    }
}
