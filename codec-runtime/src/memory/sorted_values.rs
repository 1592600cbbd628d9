//! State of a section whose values are sorted once the walk that places
//! them ends (see `sorted_values.rs`).

use crate::base::{Endian, Width};

/// How a sorted section's values are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueOrder {
    /// By the strings' bytes.
    Bytes,
    /// By [`crate::sorted_values::reversed_bits`]: the NintendoWare pools'
    /// order (from the last byte towards the first, each byte from its
    /// lowest bit).
    ReversedBits,
}

/// How each value of a sorted section holds its string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueForm {
    /// The bytes then a NUL.
    CString,
    /// The length in bytes (`prefix` bytes wide), the bytes, then a NUL
    /// when `nul`.
    Prefixed { prefix: Width, nul: bool },
}

/// What sorting a section needs: the order, how a value reads, and the
/// alignment each value starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortedValues {
    pub order: ValueOrder,
    pub form: ValueForm,
    pub item_align: u64,
}

/// An offset written while the section was open, to a target in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site {
    pub at: u64,
    pub width: Width,
    pub base: u64,
    pub scale: u64,
    pub target: u64,
    pub endian: Endian,
    pub what: &'static str,
}

/// A section sorted already: where each value was, and where it went, so
/// that an offset written later to a value's old place lands on its new
/// one.
#[derive(Debug, Clone, Default)]
pub(crate) struct Moved {
    pub start: u64,
    pub end: u64,
    /// (old start, new start), by old start.
    pub moves: Vec<(u64, u64)>,
}

/// The open sorted section, if any, and the sections sorted so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sorting {
    pub open: Option<(SortedValues, u64)>,
    pub sites: Vec<Site>,
    pub moved: Vec<Moved>,
    /// For each section sorted: its id and how many of its strings are not
    /// empty.
    pub strings: Vec<(usize, u64)>,
}

impl Sorting {
    pub(crate) fn clear(&mut self) {
        self.open = None;
        self.sites.clear();
        self.moved.clear();
        self.strings.clear();
    }

    /// Notes an offset written while a sorted section is open (to a
    /// target in it), or moves a target in a section sorted already.
    /// Returns the target to write now.
    #[inline(never)]
    pub(crate) fn note(&mut self, site: Site) -> u64 {
        let target = site.target;
        if target & crate::base::LANE != 0 {
            return target;
        }
        if let Some((_, start)) = self.open {
            if target >= start {
                self.sites.push(site);
            }
            return target;
        }
        self.moved(target)
    }

    /// `target`'s place once its section was sorted (itself when it lies
    /// in no sorted section, or is no value's start).
    #[inline]
    pub(crate) fn moved(&self, target: u64) -> u64 {
        for m in &self.moved {
            if (m.start..m.end).contains(&target) {
                return match m.moves.binary_search_by_key(&target, |&(old, _)| old) {
                    Ok(i) => m.moves[i].1,
                    Err(_) => target,
                };
            }
        }
        target
    }
}
