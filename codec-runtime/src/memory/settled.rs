//! Numbers known once the layout is done, waiting in the records that hold
//! them (see `settled.rs`).

use crate::base::Width;

/// A number a record holds that only the finished layout knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The length of the output (of the unit, in a unit).
    FileSize,
    /// How many records of the type with this id were written.
    RecordCount(usize),
    /// The length of the section with this id, its end padding included.
    SectionSize(usize),
    /// Where the section with this id ends, its end padding included.
    SectionEnd(usize),
    /// How many strings the sorted section with this id holds, the empty
    /// one not counted (NintendoWare's pools count so).
    SortedStrings(usize),
}

/// Zeros written for a settled number, to patch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub at: u64,
    pub width: Width,
    pub value: Settled,
    pub what: &'static str,
}
