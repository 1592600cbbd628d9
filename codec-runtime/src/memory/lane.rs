//! Sections filled beside the current one (behaviour: `lane.rs`).

use crate::base::{Dedup, Width};
use crate::pool::{ByteSearchPool, ExactPool};

/// A section being filled beside the current one.
#[derive(Debug, Default)]
pub(crate) struct Lane {
    pub(crate) section: usize,
    pub(crate) align: u64,
    pub(crate) dedup: Option<Dedup>,
    /// The lane's bytes; while the lane is entered, the main output.
    pub(crate) buf: Vec<u8>,
    /// The lane's pools. They stay here while the lane is entered:
    /// [`Writer::end_value`] picks the pools of the buffer being written,
    /// so entering a lane (once per value) swaps one buffer and nothing else.
    pub(crate) exact: ExactPool,
    pub(crate) search: ByteSearchPool,
    /// Offsets that point into the lane, patched when it is closed.
    pub(crate) kept: KeptOffsets,
}

/// The offsets into a lane, kept as `patch_offset` was called: each one's
/// place, base and lane-relative target (without the [`LANE`] bit), in runs
/// that share their width, scale and field. A walk keeps many offsets of
/// one field (AAMP: one per string parameter), so a run is usually all of
/// them, and what they share is stored and checked once.
#[derive(Debug, Default)]
pub(crate) struct KeptOffsets {
    pub(crate) spots: Vec<KeptOffset>,
    /// (index of the run's first spot, what the run shares).
    pub(crate) runs: Vec<(usize, OffsetKind)>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptOffset {
    pub(crate) at: u64,
    pub(crate) base: u64,
    pub(crate) target: u64,
}

/// What the offsets of one run share: their width, their scale and the
/// field they belong to (for errors).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OffsetKind {
    pub(crate) width: Width,
    pub(crate) scale: u64,
    pub(crate) what: &'static str,
}

/// The writer's lanes: at most one open at a time (a walk fills one section
/// and one lane), kept with its memory between outputs.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    pub(crate) lane: Lane,
    pub(crate) open: bool,
    /// The section the walk fills besides the lane, and its dedup policy,
    /// while the lane is entered.
    pub(crate) saved: Option<(usize, Dedup)>,
}
