//! Where the records a glue hook hands back by reference were written.
//!
//! A hook (AAMP's `data_order`) yields values of the typed tree, and the
//! writer must find where each one's record went. Records are written from
//! slices, element after element, so their addresses and positions advance
//! in step: the writer keeps one *run* per stretch of consecutive elements
//! (first address, first position, how many) instead of one entry per
//! record. A lookup tries the run that answered last (a hook walks a slice
//! in order, so this is nearly always it) and the runs noted just around
//! it (the next slice, or a parent's a few runs back), then scans every
//! run for its first few misses, and only after that sorts the runs by
//! address for a binary search. Nothing is hashed and nothing sized by the
//! largest document is cleared between outputs. The type is part of what
//! is looked up, since a struct and its first field share an address. A
//! record noted twice (no schema writes one twice) may be found at either
//! place.
//!
//! Should a record be noted after the runs were sorted for lookups (no
//! schema does this today), the runs are spread into a hash map once and
//! both go through the map from then on, so no pattern of notes and
//! lookups costs more than a hash map would.

use rustc_hash::FxHashMap;

/// How many runs before the last one a lookup tries before the index.
const NEAR_BEFORE: usize = 8;

/// How many lookups scan every run before the runs are sorted for them.
const SCANS_BEFORE_INDEX: usize = 8;

/// Records of one type from consecutive elements of one slice, written
/// back to back at the same distance from each other.
#[derive(Clone, Copy, Debug)]
struct Run {
    type_id: usize,
    /// Address of the first element.
    key: usize,
    /// Size of an element in memory (the distance between keys).
    stride: usize,
    /// Position of the first element's record.
    pos: u64,
    /// Distance between the records' positions (0 while the run holds one).
    pos_stride: u64,
    len: usize,
}

impl Run {
    /// The position of the record at `key`, if this run holds it.
    #[inline]
    fn find(&self, key: usize, type_id: usize) -> Option<u64> {
        let d = key.wrapping_sub(self.key);
        if self.type_id != type_id || key < self.key || d >= self.len * self.stride.max(1) {
            return None;
        }
        let i = d.checked_div(self.stride).unwrap_or(0);
        if i * self.stride != d {
            return None;
        }
        Some(self.pos + i as u64 * self.pos_stride)
    }
}

/// The records noted for lookup, as runs (see the module's text).
#[derive(Debug, Default)]
pub(crate) struct NotedRecords {
    /// In the order they were noted; the last one may still grow.
    runs: Vec<Run>,
    /// Indexes into `runs`, sorted by (type, address); built at the first
    /// lookup.
    sorted: Vec<u32>,
    /// Whether `sorted` is built.
    indexed: bool,
    /// Lookups answered by scanning every run (before `sorted` is built).
    scans: usize,
    /// The run that answered the last lookup.
    last: usize,
    /// Every record by (address, type), once a note followed a lookup.
    map: Option<FxHashMap<(usize, usize), u64>>,
}

impl NotedRecords {
    pub(crate) fn clear(&mut self) {
        self.runs.clear();
        self.sorted.clear();
        self.indexed = false;
        self.scans = 0;
        self.last = 0;
        self.map = None;
    }

    /// Notes that the record of the value at `key` (a `stride`-byte value
    /// of type `type_id`) was written at `pos`.
    #[inline]
    pub(crate) fn note(&mut self, key: usize, type_id: usize, stride: usize, pos: u64) {
        if let Some(map) = &mut self.map {
            map.entry((key, type_id)).or_insert(pos);
            return;
        }
        if self.indexed {
            self.spread();
            return self.note(key, type_id, stride, pos);
        }
        if let Some(r) = self.runs.last_mut() {
            let next_key = r.key.wrapping_add(r.len.wrapping_mul(r.stride));
            if r.type_id == type_id && r.stride == stride && stride != 0 && key == next_key {
                if r.len == 1 && pos > r.pos && (pos ^ r.pos) & crate::base::LANE == 0 {
                    r.pos_stride = pos - r.pos;
                    r.len = 2;
                    return;
                }
                if r.len > 1 && pos == r.pos + r.len as u64 * r.pos_stride {
                    r.len += 1;
                    return;
                }
            }
        }
        self.runs.push(Run {
            type_id,
            key,
            stride,
            pos,
            pos_stride: 0,
            len: 1,
        });
    }

    /// Where the record of the value at `key` (of type `type_id`) was
    /// written, if it was noted.
    #[inline]
    pub(crate) fn find(&mut self, key: usize, type_id: usize) -> Option<u64> {
        if let Some(p) = self.runs.get(self.last).and_then(|r| r.find(key, type_id)) {
            return Some(p);
        }
        if self.map.is_none() {
            // A walk that leaves a slice mostly goes on with the next one
            // written, or comes back to one a few runs before (the parent
            // of a small subtree).
            let near = self.last.saturating_sub(NEAR_BEFORE)..self.runs.len().min(self.last + 2);
            for i in near.rev() {
                if let Some(p) = self.runs[i].find(key, type_id) {
                    self.last = i;
                    return Some(p);
                }
            }
        }
        self.find_slow(key, type_id)
    }

    fn find_slow(&mut self, key: usize, type_id: usize) -> Option<u64> {
        if let Some(map) = &self.map {
            return map.get(&(key, type_id)).copied();
        }
        if !self.indexed && self.scans < SCANS_BEFORE_INDEX {
            // A few lookups scan the runs: cheaper than sorting them when
            // the walk rarely strays (the first run holding a record is
            // where it was first noted).
            self.scans += 1;
            let (i, p) = self
                .runs
                .iter()
                .enumerate()
                .find_map(|(i, r)| r.find(key, type_id).map(|p| (i, p)))?;
            self.last = i;
            return Some(p);
        }
        if !self.indexed {
            let runs = &self.runs;
            self.sorted.clear();
            self.sorted.extend(0..runs.len() as u32);
            // Stable, then of runs starting at the same address only the
            // first noted is kept: the first note of a record answers.
            self.sorted
                .sort_by_key(|&i| (runs[i as usize].type_id, runs[i as usize].key));
            self.sorted
                .dedup_by_key(|&mut i| (runs[i as usize].type_id, runs[i as usize].key));
            self.indexed = true;
        }
        let runs = &self.runs;
        let after = self.sorted.partition_point(|&i| {
            let r = &runs[i as usize];
            (r.type_id, r.key) <= (type_id, key)
        });
        // Runs of one type cover disjoint addresses, so only the last run
        // starting at or before `key` can hold it.
        let i = *self.sorted.get(after.checked_sub(1)?)? as usize;
        let p = runs[i].find(key, type_id)?;
        self.last = i;
        Some(p)
    }

    /// Moves every noted record into the map (a note came after lookups).
    #[cold]
    fn spread(&mut self) {
        let mut map = FxHashMap::default();
        for r in &self.runs {
            for i in 0..r.len {
                let key = r.key.wrapping_add(i * r.stride);
                map.entry((key, r.type_id))
                    .or_insert(r.pos + i as u64 * r.pos_stride);
            }
        }
        self.map = Some(map);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The straightforward answer: the first note of (key, type) wins.
    fn naive(notes: &[(usize, usize, u64)], key: usize, t: usize) -> Option<u64> {
        notes
            .iter()
            .find(|&&(k, tt, _)| k == key && tt == t)
            .map(|&(_, _, p)| p)
    }

    #[test]
    fn runs_answer_what_a_map_of_every_record_answers() {
        // Three slices of 24-byte values of type 2 written as 8-byte
        // records, one of type 5 sharing the first slice's first address,
        // a lone record, and a slice whose records are not evenly spaced.
        let mut notes = Vec::new();
        let mut pos = 0x40u64;
        for (base, n) in [(0x1000usize, 7usize), (0x5000, 3), (0x2000, 11)] {
            for i in 0..n {
                notes.push((base + 24 * i, 2, pos));
                pos += 8;
            }
        }
        notes.push((0x1000, 5, 0x900));
        notes.push((0x9000, 2, 0x1000));
        for (i, p) in [0x2000u64, 0x2008, 0x2020, 0x2028].into_iter().enumerate() {
            notes.push((0xA000 + 24 * i, 2, p));
        }
        let mut n = NotedRecords::default();
        for &(k, t, p) in &notes {
            n.note(k, t, 24, p);
        }
        assert!(n.runs.len() < notes.len() / 3, "{} runs", n.runs.len());
        let mut keys: Vec<(usize, usize)> = notes.iter().map(|&(k, t, _)| (k, t)).collect();
        // Addresses no record has: inside an element, past a slice's end,
        // before everything, a noted address with another type.
        keys.extend([
            (0x1004, 2),
            (0x1000 + 24 * 7, 2),
            (0x10, 2),
            (0x5000, 5),
            (0x1000, 3),
        ]);
        // Out of order, as a hook asks.
        keys.reverse();
        // Twice: first answered near the last run or by scans until the
        // runs are sorted, then through the sorted runs.
        for round in 0..2 {
            for &(k, t) in &keys {
                assert_eq!(
                    n.find(k, t),
                    naive(&notes, k, t),
                    "key 0x{k:x} type {t}, round {round}"
                );
            }
        }
        assert!(n.indexed);
    }

    #[test]
    fn a_note_after_lookups_began_is_found_too() {
        // Lookups answered near the last run, by a scan, and (after
        // enough misses) through the sorted runs, each followed by notes.
        let mut n = NotedRecords::default();
        n.note(0x100, 1, 16, 0x40);
        n.note(0x110, 1, 16, 0x48);
        assert_eq!(n.find(0x110, 1), Some(0x48));
        n.note(0x120, 1, 16, 0x50);
        n.note(0x110, 1, 16, 0x99);
        assert_eq!(n.find(0x120, 1), Some(0x50));
        assert_eq!(n.find(0x110, 1), Some(0x48), "the first note wins");
        for _ in 0..=SCANS_BEFORE_INDEX {
            assert_eq!(n.find(0x5000, 1), None);
        }
        assert!(
            n.indexed,
            "the runs are sorted after {SCANS_BEFORE_INDEX} scans"
        );
        n.note(0x130, 1, 16, 0x58);
        n.note(0x100, 1, 16, 0x77);
        assert!(n.map.is_some(), "a note after sorting moves to the map");
        assert_eq!(n.find(0x130, 1), Some(0x58));
        assert_eq!(n.find(0x110, 1), Some(0x48));
        assert_eq!(n.find(0x100, 1), Some(0x40), "the first note wins");
        assert_eq!(n.find(0x140, 1), None);
        n.clear();
        assert_eq!(n.find(0x100, 1), None);
        n.note(0x100, 1, 16, 0x40);
        assert_eq!(n.find(0x100, 1), Some(0x40));
        assert!(n.map.is_none() && !n.indexed);
    }

    #[test]
    fn records_in_a_lane_and_in_the_output_are_separate_runs() {
        let lane = crate::base::LANE;
        let mut n = NotedRecords::default();
        n.note(0x100, 1, 8, 0x40);
        n.note(0x108, 1, 8, lane | 0x48);
        n.note(0x110, 1, 8, lane | 0x50);
        assert_eq!(n.find(0x100, 1), Some(0x40));
        assert_eq!(n.find(0x108, 1), Some(lane | 0x48));
        assert_eq!(n.find(0x110, 1), Some(lane | 0x50));
    }
}
