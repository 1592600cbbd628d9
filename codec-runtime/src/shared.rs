//! Records shared as whole subtrees (`dedup: Shared` in the schema
//! language) and the depth-first walk that places them (`order: DepthFirst`).
//!
//! Two records are equal as subtrees when their fields are equal and what
//! their offsets lead to is equal, recursively. Each record of a shared
//! section gets a *shape*: a small number standing for its subtree, equal
//! for equal subtrees (hash-consing). A child's shape is computed once and
//! stands for it inside its parent's, so the cost is linear in the tree.
//!
//! On encode, the first record of a shape is placed where the walk meets
//! it; the others point at it, and no walk descends into them again (so
//! what they lead to is written once too).

use crate::memory::shared::Met;
pub use crate::memory::shared::{DocumentOrder, ReadShared, Shapes};
use crate::shape::ShapeKey;
use crate::writer::Writer;

impl crate::reader::Reader<'_> {
    /// Notes that an offset led to the record at `target` of shared section
    /// `sec`.
    #[inline]
    pub fn note_shared(&mut self, sec: usize, target: u64) {
        // Targets lie in the file (checked when the offset was resolved).
        let abs = (target / 64) as usize;
        let bit = 1u64 << (target % 64);
        let met = &mut self.shared;
        // Inside the bits so far (a target below `base` wraps past them).
        let word = abs.wrapping_sub(met.base);
        if let Some(w) = met.seen.get_mut(word) {
            if *w & bit != 0 {
                met.twice |= section_bit(sec);
            }
            *w |= bit;
            return;
        }
        self.note_shared_outside(sec, abs, bit);
    }

    /// [`Reader::note_shared`] of a record outside the bits so far: the
    /// first one, or one below or past those met. Out of line, so that the
    /// check made once per reference stays a subtraction and a compare.
    #[cold]
    #[inline(never)]
    fn note_shared_outside(&mut self, sec: usize, abs: usize, bit: u64) {
        let words_in_file = self.data().len() / 64 + 1;
        let met = &mut self.shared;
        if met.seen.is_empty() {
            met.base = abs;
        } else if abs < met.base {
            // Below the first record met: the bits move up by at least as
            // many words as they hold, so that records met in descending
            // order cost a move per doubling, not one each.
            let by = (met.base - abs).max(met.seen.len()).min(met.base);
            met.seen.splice(0..0, std::iter::repeat_n(0, by));
            met.base -= by;
        }
        let word = abs - met.base;
        if word >= met.seen.len() {
            let want = (word + 1)
                .max(met.seen.len() * 2)
                .min(words_in_file - met.base);
            met.seen.resize(want.max(word + 1), 0);
        }
        if met.seen[word] & bit != 0 {
            met.twice |= section_bit(sec);
        }
        met.seen[word] |= bit;
    }

    /// Did the file's writer share equal records of section `sec`? Yes when
    /// the file points twice at one of them. A file that does not may hold
    /// no equal records at all; it is written back the same either way.
    pub fn shares_equal(&self, sec: usize) -> bool {
        self.shared.twice & section_bit(sec) != 0
    }

    /// Puts `v`, a list as stored, in the order its elements' targets
    /// were placed ([`DocumentOrder::find`]), with the reader's buffers in
    /// place. `place(i)` reads element `i`'s place from the input, which it
    /// holds apart from the reader ([`Reader::data`]): lending the buffers
    /// out and back moved their 72 bytes twice per list (issue 51, `perf
    /// annotate` of BYML's hash decode).
    #[inline]
    pub fn put_in_document_order<T>(
        &mut self,
        v: &mut [T],
        place: impl Fn(usize) -> Option<(usize, u64)>,
    ) {
        let found = &mut self.shared.order;
        if found.find(v.len(), place) {
            found.apply(v);
        }
    }
}

/// Section `sec`'s bit in a mask of sections (none past the 64th).
#[inline]
fn section_bit(sec: usize) -> u64 {
    1u64.checked_shl(sec as u32).unwrap_or(0)
}

impl Shapes {
    /// Empties the shapes for another encode, keeping their memory.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.ids.clear();
        crate::pool::clear_map(&mut self.of);
        self.of_filed = 0;
        self.fresh = false;
        self.met.clear();
        self.next = 0;
        self.placed.clear();
        crate::pool::clear_map(&mut self.placed_far);
        self.visited.clear();
        if !self.visited_far.is_empty() {
            self.visited_far.clear();
        }
        self.reach.clear();
        self.marked = 0;
        self.apart = 0;
        self.strings.clear();
        self.sort_ids.clear();
        self.sort_stack.clear();
        self.blob_bytes.clear();
        self.blob_spans.clear();
        crate::pool::clear_map(&mut self.blobs_of_len);
        self.lazy_blobs = false;
        self.blob_lengths_repeat = false;
    }

    /// Empties what a pass over the document built (the shapes, the records
    /// met, the strings, the blobs), keeping what the document's settings
    /// put there before it (the sections written apart).
    pub(crate) fn restart(&mut self) {
        let apart = self.apart;
        self.clear();
        self.apart = apart;
    }

    /// A blob's bytes are not kept (`lazy_blobs`): its place in the store.
    const NOT_KEPT: usize = usize::MAX;

    /// The id of blob `b` among the blobs of this encode: equal bytes, equal
    /// id. Looked up by length, then compared byte for byte (a copy of each
    /// distinct blob is kept for that).
    ///
    /// In the first pass over a document (`lazy_blobs`), a blob is known by
    /// its length alone and not copied: a blob whose length is its own
    /// equals no other. A second blob of a length already met gets an id of
    /// its own too, and the pass is made again with copies
    /// (`Writer::intern_all`), so that equal blobs get one id.
    pub fn blob_id(&mut self, b: &[u8]) -> u32 {
        let same_length = self.blobs_of_len.entry(b.len()).or_default();
        let id = self.blob_spans.len() as u32;
        if self.lazy_blobs {
            self.blob_lengths_repeat |= !same_length.is_empty();
            self.blob_spans.push((Self::NOT_KEPT, b.len()));
            same_length.push(id);
            return id;
        }
        for &other in same_length.iter() {
            let (at, len) = self.blob_spans[other as usize];
            // A blob met lazily is compared with nothing (its bytes are
            // not kept): equal or not, it keeps its own id.
            if at != Self::NOT_KEPT && self.blob_bytes[at..at + len] == *b {
                return other;
            }
        }
        self.blob_spans.push((self.blob_bytes.len(), b.len()));
        self.blob_bytes.extend_from_slice(b);
        same_length.push(id);
        id
    }

    /// The shape of the record at `key` (an address) of type `type_id`,
    /// built by `build` the first time it is asked for.
    pub fn id(
        &mut self,
        key: usize,
        type_id: usize,
        build: impl FnOnce(&mut ShapeKey, &mut Shapes),
    ) -> u32 {
        // The record after the last one asked for, or that one again (a
        // walk asks for a child's shape to place it, then to descend), or
        // the root (where each walk starts).
        for at in [self.next, self.next.wrapping_sub(1), 0] {
            if let Some(m) = self.met.get(at) {
                if m.key == key && m.type_id == type_id {
                    self.next = at + 1;
                    self.marked |= self.reach[m.id as usize];
                    return m.id;
                }
            }
        }
        if !self.fresh {
            for (i, m) in self.met.iter().enumerate().skip(self.of_filed) {
                self.of.insert((m.key, m.type_id), i as u32);
            }
            self.of_filed = self.met.len();
            if let Some(&at) = self.of.get(&(key, type_id)) {
                let id = self.met[at as usize].id;
                self.next = at as usize + 1;
                self.marked |= self.reach[id as usize];
                return id;
            }
        }
        let at = self.met.len();
        self.met.push(Met {
            key,
            type_id,
            id: u32::MAX,
            end: 0,
            sort_at: 0,
            sort_len: 0,
        });
        let outer = std::mem::take(&mut self.marked);
        let sort_mark = self.sort_stack.len();
        let mut k = ShapeKey::reusing(self.spare.pop().unwrap_or_default());
        k.id(type_id as u32);
        build(&mut k, self);
        let hash = k.hash();
        let new_id = self.reach.len() as u32;
        let id = match self.ids.get_or_file(
            &self.keys,
            k.as_bytes(),
            hash,
            self.keys.len(),
            u64::from(new_id),
        ) {
            Some(id) => id as u32,
            None => {
                self.keys.extend_from_slice(k.as_bytes());
                self.reach.push(0);
                new_id
            }
        };
        self.spare.push(k.into_bytes());
        let end = self.met.len() as u32;
        self.met[at].id = id;
        self.met[at].end = end;
        // The keys of this record's own sorted list (its children's were
        // moved out when their shapes were built).
        self.met[at].sort_at = self.sort_ids.len() as u32;
        self.met[at].sort_len = (self.sort_stack.len() - sort_mark) as u32;
        self.sort_ids
            .extend_from_slice(&self.sort_stack[sort_mark..]);
        self.sort_stack.truncate(sort_mark);
        self.next = at + 1;
        self.reach[id as usize] |= self.marked;
        self.marked |= outer;
        id
    }

    /// The walk skips the subtree of the record whose shape it asked for
    /// last: the next record it asks for is the one after that subtree.
    #[inline]
    fn skip_subtree(&mut self) {
        if let Some(m) = self.next.checked_sub(1).and_then(|i| self.met.get(i)) {
            self.next = m.end as usize;
        }
    }

    /// Marks shape `shape` visited by the walk over section `walk`; false
    /// when it was already.
    #[inline]
    fn visit(&mut self, walk: usize, shape: u32) -> bool {
        let bit = section_bit(walk);
        if bit == 0 {
            return self.visited_far.insert((walk, shape));
        }
        let i = shape as usize;
        if self.visited.len() <= i {
            self.visited.resize(i + 1, 0);
        }
        let first = self.visited[i] & bit == 0;
        self.visited[i] |= bit;
        first
    }

    /// The id of `s` in interned table `table` (see [`crate::interned`]):
    /// what a string stored as an index adds to its record's shape.
    #[inline]
    pub fn string(&mut self, table: usize, s: &str) -> u32 {
        self.strings.id(table, s)
    }

    /// Notes, while a shape is built, that the string of id `id` is the
    /// key of the next element of the record's sorted list; returns `id`.
    #[inline]
    pub fn sort_key(&mut self, id: u32) -> u32 {
        self.sort_stack.push(id);
        id
    }

    /// The ids of the sort keys of the record at `key` of type `type_id`,
    /// when it is the record whose shape was asked for last (a walk asks
    /// for it just before writing it).
    #[inline]
    fn sort_ids_of(&self, key: usize, type_id: usize) -> Option<&[u32]> {
        let m = self.met.get(self.next.checked_sub(1)?)?;
        if m.key != key || m.type_id != type_id {
            return None;
        }
        let at = m.sort_at as usize;
        self.sort_ids.get(at..at + m.sort_len as usize)
    }

    /// Notes, while a shape is built, that its record holds an offset
    /// whose target goes in section `sec`.
    #[inline]
    pub fn mark(&mut self, sec: usize) {
        // Hidden from the optimizer: with a constant section the OR was
        // made on the one byte the bit lies in, and the 8-byte load of
        // `marked` that starts the next shape could not take that store's
        // value (it waited for the store to reach the cache: a third of
        // the time of a small array's shape, issue 51).
        self.marked |= std::hint::black_box(section_bit(sec));
    }

    /// Does the subtree of shape `shape` place anything in section `sec`?
    /// (Always yes past the 64th section, which the marks do not cover.)
    #[inline]
    pub fn reaches(&self, shape: u32, sec: usize) -> bool {
        sec >= 64
            || self
                .reach
                .get(shape as usize)
                .is_none_or(|m| m & (1 << sec) != 0)
    }
}

impl Writer {
    pub fn shapes(&mut self) -> &mut Shapes {
        &mut self.shapes
    }

    /// Fills `keys` with the indices in table `table` of the keys of the
    /// sorted list (of `n` elements) of the record at `key` of type
    /// `type_id`, as its shape noted them: no key is looked up again. False
    /// (and `keys` untouched) when they were not noted for it.
    #[inline]
    pub fn sort_key_ranks(
        &self,
        key: usize,
        type_id: usize,
        table: usize,
        n: usize,
        keys: &mut Vec<u64>,
    ) -> bool {
        let Some(ids) = self.shapes.sort_ids_of(key, type_id) else {
            return false;
        };
        if ids.len() != n {
            return false;
        }
        let ranks = self.interned().ranks(table);
        if ids.iter().any(|&id| id as usize >= ranks.len()) {
            return false;
        }
        keys.extend(ids.iter().map(|&id| u64::from(ranks[id as usize])));
        true
    }

    /// Does shared section `sec` write equal records once (the default), or
    /// apart, as a writer that does not share them did (`SharesEqual`)?
    pub fn set_shares_equal(&mut self, sec: usize, shares: bool) {
        if shares {
            self.shapes.apart &= !section_bit(sec);
        } else {
            self.shapes.apart |= section_bit(sec);
        }
    }

    /// Where the record of shape `shape` was placed in section `sec`, if it
    /// was and the section shares it.
    ///
    /// A record found placed is pointed at, not written or visited again:
    /// the walk goes on after its subtree.
    #[inline]
    pub fn shared_at(&mut self, sec: usize, shape: u32) -> Option<u64> {
        if self.shapes.apart & section_bit(sec) != 0 {
            return None;
        }
        let at = match self.shapes.placed.get(shape as usize) {
            Some(&Some((s, pos))) if s == sec => Some(pos),
            Some(Some(_)) => self.shapes.placed_far.get(&(sec, shape)).copied(),
            _ => None,
        };
        if at.is_some() {
            self.shapes.skip_subtree();
        }
        at
    }

    /// Notes where the first record of shape `shape` was placed.
    pub fn note_shared(&mut self, sec: usize, shape: u32, pos: u64) {
        let placed = &mut self.shapes.placed;
        if placed.len() <= shape as usize {
            placed.resize(shape as usize + 1, None);
        }
        match placed[shape as usize] {
            Some((s, _)) if s != sec => {
                self.shapes.placed_far.insert((sec, shape), pos);
            }
            _ => placed[shape as usize] = Some((sec, pos)),
        }
    }

    /// Should the walk filling section `walk` descend into a record of
    /// shape `shape` that lives in shared section `home`? Once per shape,
    /// as the file holds it once (every time when `home` writes equal
    /// records apart), and only when its subtree places something in that
    /// section.
    #[inline]
    pub fn first_visit(&mut self, home: usize, walk: usize, shape: u32) -> bool {
        let descend = self.shapes.reaches(shape, walk)
            && (self.shapes.apart & section_bit(home) != 0 || self.shapes.visit(walk, shape));
        if !descend {
            self.shapes.skip_subtree();
        }
        descend
    }
}

/// The document order of a list whose elements' targets were placed in
/// that order, recovered from where the targets lie: element `i` has its
/// target in section `places[i].0` at `places[i].1`, or none. The elements
/// with a target in one section are permuted among their own slots so that
/// their targets ascend; the others keep their slots.
pub fn document_order(places: &[Option<(usize, u64)>]) -> Vec<usize> {
    let placed = places
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|(sec, target)| (sec, target, i)))
        .collect();
    order_of_placed(places.len(), placed)
}

/// [`document_order`] of `n` elements, from the placed ones as (section,
/// target, element) in element order.
fn order_of_placed(n: usize, slots: Vec<(usize, u64, usize)>) -> Vec<usize> {
    let mut found = DocumentOrder {
        placed: slots,
        ..DocumentOrder::default()
    };
    found.order_placed(n);
    found.order
}

impl DocumentOrder {
    /// The order of `n` elements whose places `place(i)` gives, into
    /// `self.order`; false when the list is in document order already:
    /// each section's targets ascend (the common case, checked without
    /// filling anything).
    pub fn find(&mut self, n: usize, place: impl Fn(usize) -> Option<(usize, u64)>) -> bool {
        // The last target seen in each section, for the few sections a
        // list's elements lead to (more are rare: then the general path
        // decides).
        let mut last: [(usize, u64); 4] = [(usize::MAX, 0); 4];
        let mut ascending = true;
        'scan: for i in 0..n {
            let Some((sec, target)) = place(i) else {
                continue;
            };
            for slot in last.iter_mut() {
                if slot.0 == sec {
                    if target < slot.1 {
                        ascending = false;
                        break 'scan;
                    }
                    slot.1 = target;
                    continue 'scan;
                }
                if slot.0 == usize::MAX {
                    *slot = (sec, target);
                    continue 'scan;
                }
            }
            ascending = false;
            break;
        }
        if ascending {
            return false;
        }
        self.placed.clear();
        self.placed
            .extend((0..n).filter_map(|i| place(i).map(|(sec, target)| (sec, target, i))));
        self.order_placed(n);
        !self.order.iter().enumerate().all(|(i, &j)| i == j)
    }

    /// The order from `self.placed`, in element order.
    ///
    /// Sorted by section, the placed elements give each section's slots in
    /// order; sorted by section and target, what goes in them. Both hold
    /// as many elements of each section, so they line up. The elements
    /// are unique and in element order, so sorting by section and element
    /// is the stable sort by section, without its buffer.
    fn order_placed(&mut self, n: usize) {
        self.order.clear();
        self.order.extend(0..n);
        self.by_target.clear();
        self.by_target.extend_from_slice(&self.placed);
        self.placed.sort_unstable_by_key(|p| (p.0, p.2));
        self.by_target.sort_unstable();
        for (slot, elem) in self.placed.iter().zip(&self.by_target) {
            self.order[slot.2] = elem.2;
        }
    }

    /// Reorders `v` by the order [`DocumentOrder::find`] found (see
    /// [`reorder_by`]).
    pub fn apply<T>(&mut self, v: &mut [T]) {
        reorder_by(v, &mut self.order);
    }
}

/// Reorders `v` by `order` (from [`document_order`]), in place: element
/// `k` becomes what was element `order[k]`. The elements are swapped along
/// the permutation's cycles, and `order` is spent marking them done. An
/// `order` of another length leaves `v` as it was; one that is not a
/// permutation moves elements but loses none, and ends.
fn reorder_by<T>(v: &mut [T], order: &mut [usize]) {
    if order.len() != v.len() {
        return;
    }
    for i in 0..v.len() {
        let mut cur = i;
        while order[cur] != i {
            let next = order[cur];
            // Past the end, or at an element already moved: not a
            // permutation, and the walk stops (each step fixes one more).
            if next >= v.len() || next == cur {
                break;
            }
            v.swap(cur, next);
            order[cur] = cur;
            cur = next;
        }
        order[cur] = cur;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Shape, BLOB_RUN};

    /// A record met twice marks its section as shared, in whatever order
    /// the records are met (below the first one met, far above it); the
    /// bits cover only the span of the records met, not the bytes before.
    #[test]
    fn a_record_met_twice_is_found_in_any_order_and_the_bits_span_the_records() {
        let data = vec![0u8; 1 << 20];
        let order: [u64; 9] = [
            900_000, 900_064, 899_000, 500_000, 1_000_000, 4, 640, 900_000, 64,
        ];
        // Index 7 repeats index 0: without it, nothing is met twice.
        for with_repeat in [false, true] {
            let mut r = crate::reader::Reader::new(&data, crate::base::Endian::Little);
            for (i, &t) in order.iter().enumerate() {
                if i == 7 && !with_repeat {
                    continue;
                }
                r.note_shared(1, t);
                assert_eq!(r.shares_equal(1), with_repeat && i >= 7, "after {i}");
            }
            assert!(!r.shares_equal(0), "another section");
        }
        let mut r = crate::reader::Reader::new(&data, crate::base::Endian::Little);
        r.note_shared(0, 1_000_000);
        r.note_shared(0, 1_000_008);
        assert!(
            r.shared.seen.len() <= 2,
            "bits from the first record met on"
        );
        assert!(!r.shares_equal(0));
    }

    /// A key's hash is made from the values added, so each way of adding
    /// the same values (one id at a time or a run of them, a list of
    /// numbers or each number) gives the same bytes and the same hash, and
    /// a value changed changes the hash.
    #[test]
    fn a_key_hashes_its_values_however_they_were_added() {
        let mut s = Shapes::default();
        let mut one = ShapeKey::default();
        for v in [3u32, 0xC0, 7, 0x3F80_0000] {
            one.id(v);
        }
        let mut run = ShapeKey::default();
        run.ids([3u32, 0xC0, 7, 0x3F80_0000]);
        assert_eq!(one.as_bytes(), run.as_bytes());
        assert_eq!(one.hash(), run.hash());
        let mut each = ShapeKey::default();
        for v in [1u16, 2, 0xFFFF] {
            v.shape(&mut each, &mut s);
        }
        let mut list = ShapeKey::default();
        <u16 as Shape>::shape_all(&[1, 2, 0xFFFF], &mut list, &mut s);
        assert_eq!(each.as_bytes(), list.as_bytes());
        assert_eq!(each.hash(), list.hash());
        let hashes: Vec<u64> = (0..64u32)
            .map(|x| {
                let mut k = ShapeKey::default();
                k.ids([3, x, 7]);
                k.hash()
            })
            .collect();
        let mut distinct = hashes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), hashes.len(), "one value changed");
    }

    /// Blobs stand in a shape by an id that equal bytes share and any other
    /// bytes do not, the same length included; a short run stays bytes.
    #[test]
    fn a_blob_is_one_id_of_its_bytes() {
        let mut s = Shapes::default();
        let a = vec![7u8; 100];
        let mut b = a.clone();
        b[99] = 8;
        let key = |v: &Vec<u8>, s: &mut Shapes| {
            let mut k = ShapeKey::default();
            v.shape(&mut k, s);
            k.into_bytes()
        };
        let (ka, kb, ka2) = (key(&a, &mut s), key(&b, &mut s), key(&a.clone(), &mut s));
        assert_eq!(ka, ka2, "equal blobs, equal keys");
        assert_ne!(ka, kb, "a blob that differs in its last byte");
        assert_eq!(ka.len(), 8, "the length and an id, not the bytes");
        let short = vec![7u8; BLOB_RUN - 1];
        assert_eq!(key(&short, &mut s).len(), 4 + BLOB_RUN - 1);
        s.clear();
        assert_eq!(s.blob_id(&b), 0, "ids start again after clear");
    }

    /// The first pass knows a blob by its length: no copy is kept, a blob
    /// of a length of its own gets its id at once, and a second blob of a
    /// length already met is noted, for the pass with copies.
    #[test]
    fn a_lazy_pass_copies_no_blob_and_notes_a_repeated_length() {
        let mut s = Shapes {
            lazy_blobs: true,
            ..Shapes::default()
        };
        let a = vec![1u8; 100];
        let c = vec![2u8; 200];
        assert_eq!((s.blob_id(&a), s.blob_id(&c)), (0, 1));
        assert!(s.blob_bytes.is_empty(), "no bytes copied");
        assert!(!s.blob_lengths_repeat);
        // Equal to the first: in this pass it gets an id of its own, and the
        // pass must be made again.
        assert_eq!(s.blob_id(&a.clone()), 2);
        assert!(s.blob_lengths_repeat);
        s.apart = 0b10;
        s.restart();
        assert_eq!(s.apart, 0b10, "the document's settings stay");
        assert!(!s.lazy_blobs && !s.blob_lengths_repeat);
        assert_eq!((s.blob_id(&a), s.blob_id(&a.clone())), (0, 0));
    }

    #[test]
    fn reorder_moves_each_element_to_its_place() {
        let v: Vec<char> = "abcdef".chars().collect();
        // Two cycles (0 2 4) and (1 5), and 3 in place.
        let order = [2, 5, 4, 3, 0, 1];
        let mut out = v.clone();
        reorder_by(&mut out, &mut order.to_vec());
        let want: Vec<char> = order.iter().map(|&i| v[i]).collect();
        assert_eq!(out, want);
        let mut same = v.clone();
        reorder_by(&mut same, &mut [0, 1, 2, 3, 4, 5]);
        assert_eq!(same, v);
        // Not a permutation: it ends, and every element is still there.
        for bad in [vec![1, 1, 0, 3, 4, 5], vec![5, 5, 5, 5, 5, 5], vec![9; 6]] {
            let mut w = v.clone();
            reorder_by(&mut w, &mut bad.clone());
            let mut sorted = w.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, v, "{bad:?}");
        }
    }

    /// Each section's elements are permuted among their own slots by
    /// target, equal targets keeping their order; unplaced elements stay.
    #[test]
    fn document_order_sorts_each_section_within_its_slots() {
        let places = [
            Some((1, 20)),
            None,
            Some((2, 5)),
            Some((1, 8)),
            Some((2, 1)),
            Some((1, 8)),
        ];
        // Section 1 holds slots 0, 3, 5 (targets 20, 8, 8): 3, 5, 0 go in
        // them. Section 2 holds slots 2, 4 (targets 5, 1): 4, 2.
        assert_eq!(document_order(&places), vec![3, 1, 4, 5, 2, 0]);
        assert_eq!(document_order(&[]), Vec::<usize>::new());
        assert_eq!(document_order(&[None, None]), vec![0, 1]);
    }

    /// The scan without allocation agrees with the general path: `None`
    /// exactly when the general order is the identity.
    #[test]
    fn a_found_order_agrees_with_document_order() {
        let cases: Vec<Vec<Option<(usize, u64)>>> = vec![
            vec![],
            vec![None, Some((1, 8)), None, Some((1, 20))],
            vec![Some((1, 20)), Some((1, 8))],
            vec![Some((2, 5)), Some((1, 9)), Some((2, 1)), Some((1, 10))],
            vec![Some((1, 9)), Some((2, 1)), Some((1, 10)), Some((2, 3))],
            // Five sections: more than the scan keeps, so the general path decides.
            (0..5).map(|s| Some((s, 10 - s as u64))).collect(),
            vec![
                Some((0, 1)),
                Some((1, 1)),
                Some((2, 1)),
                Some((3, 1)),
                Some((4, 0)),
                Some((0, 0)),
            ],
        ];
        // One set of buffers for every list, as a decode lends them: what
        // a longer list left in them changes nothing for the next.
        let mut kept = DocumentOrder::default();
        for places in cases.iter().rev().chain(&cases) {
            let general = document_order(places);
            let identity = general.iter().enumerate().all(|(i, &j)| i == j);
            let mut fresh = DocumentOrder::default();
            let scanned = fresh
                .find(places.len(), |i| places[i])
                .then_some(fresh.order);
            assert_eq!(scanned.is_none(), identity, "{places:?}");
            if let Some(order) = scanned {
                assert_eq!(order, general, "{places:?}");
            }
            assert_eq!(kept.find(places.len(), |i| places[i]), !identity);
            let mut v: Vec<usize> = (0..places.len()).collect();
            if !identity {
                kept.apply(&mut v);
                assert_eq!(v, general, "{places:?}");
            }
        }
    }

    #[test]
    fn a_shape_reaches_the_sections_marked_anywhere_under_it() {
        let mut s = Shapes::default();
        // Addresses 1, 2, 3 stand for three records of type 0.
        let leaf = s.id(1, 0, |k, s| {
            k.int(7);
            s.mark(2);
        });
        let parent = s.id(2, 0, |k, s| {
            k.int(8);
            // Met a second time: the leaf's shape and marks come from the cache.
            let c = s.id(1, 0, |_, _| unreachable!("the shape of address 1 is kept"));
            k.int(u64::from(c));
        });
        let other = s.id(3, 0, |k, _| k.int(9));
        assert!(s.reaches(leaf, 2));
        assert!(
            s.reaches(parent, 2),
            "a mark under a record counts for the record"
        );
        assert!(!s.reaches(parent, 3));
        assert!(
            !s.reaches(other, 2),
            "marks do not leak into the next record"
        );
        // Past the 64 sections the marks cover, every walk descends.
        assert!(s.reaches(other, 64));
    }

    /// A tree of records at addresses 1..=7: 1 holds 2 and 5, 2 holds 3
    /// and 4, 5 holds 6 and 7; leaves 3, 4, 6, 7 are equal two by two.
    fn tree(s: &mut Shapes, addr: usize) -> u32 {
        s.id(addr, 0, |k, s| match addr {
            1 | 2 | 5 => {
                let (a, b) = match addr {
                    1 => (2, 5),
                    2 => (3, 4),
                    _ => (6, 7),
                };
                k.int(0);
                k.int(u64::from(tree(s, a)));
                k.int(u64::from(tree(s, b)));
            }
            leaf => k.int(leaf as u64 % 2),
        })
    }

    #[test]
    fn shapes_are_found_in_any_order_of_asking() {
        let mut s = Shapes::default();
        let root = tree(&mut s, 1);
        let first: Vec<u32> = (1..=7).map(|a| tree(&mut s, a)).collect();
        assert_eq!(first[0], root);
        // Leaves 3 and 7 are equal (odd), and 4 and 6 (even); 2 holds
        // (odd, even) and 5 (even, odd): different.
        assert_eq!(first[2], first[6]);
        assert_eq!(first[3], first[5]);
        assert_ne!(first[1], first[4]);
        // Asked again in preorder, each twice in a row (to place, then to
        // descend), out of order, and after a skipped subtree: the same.
        for order in [
            vec![1, 2, 3, 4, 5, 6, 7],
            vec![1, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7],
            vec![7, 3, 5, 1, 4, 2, 6],
        ] {
            let got: Vec<u32> = order.iter().map(|&a| tree(&mut s, a)).collect();
            let want: Vec<u32> = order.iter().map(|&a| first[a - 1]).collect();
            assert_eq!(got, want, "asked in the order {order:?}");
        }
        // Skipping 2's subtree (2, 3, 4 in preorder) leaves 5 next.
        tree(&mut s, 2);
        s.skip_subtree();
        assert_eq!(s.met[s.next].key, 5);
        assert_eq!(s.id(5, 0, |_, _| unreachable!("kept")), first[4]);
    }

    #[test]
    fn a_shape_placed_in_two_sections_is_found_in_each() {
        let mut w = Writer::new(crate::base::Endian::Little, 1, 3);
        let shape = w.shapes().id(1, 0, |k, _| k.int(5));
        assert_eq!(w.shared_at(1, shape), None);
        w.note_shared(1, shape, 0x40);
        w.note_shared(2, shape, 0x80);
        assert_eq!(w.shared_at(1, shape), Some(0x40));
        assert_eq!(w.shared_at(2, shape), Some(0x80));
        assert_eq!(w.shared_at(0, shape), None);
        // Written apart (`SharesEqual` false): never found.
        w.set_shares_equal(2, false);
        assert_eq!(w.shared_at(2, shape), None);
    }
}
