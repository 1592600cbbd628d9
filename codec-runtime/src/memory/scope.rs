//! What one layout unit remembers while it is decoded or encoded (behaviour: `scope.rs`).

use crate::base::Width;
use rustc_hash::FxHashMap;

/// One column's cells in a row: `count` cells of type `tag`, each `size`
/// bytes, from `offset` in the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSlot {
    pub tag: u64,
    pub count: u64,
    pub offset: u64,
    /// Bytes per cell (filled in by the row decoder from the cell union).
    pub size: u64,
    /// Where the tag was read (for errors); 0 on encode.
    pub tag_pos: u64,
}

/// Decode-side memory of a unit.
#[derive(Debug, Default, Clone)]
pub struct ReadScope {
    /// Per type id, the positions of its records in decode order.
    pub(crate) positions: Vec<Vec<u64>>,
    /// Targets of the unit root's offsets, sorted.
    pub(crate) bounds: Vec<u64>,
    pub(crate) cells: Vec<CellSlot>,
}

/// An offset to a record known by its ordinal, patched once the unit is laid out.
#[derive(Debug, Clone)]
pub(crate) struct PendingRef {
    pub(crate) at: u64,
    pub(crate) width: Width,
    pub(crate) base: u64,
    pub(crate) scale: u64,
    pub(crate) type_id: usize,
    pub(crate) index: u64,
    pub(crate) what: &'static str,
}

/// A target placed before its record: (record identity, type id, field
/// offset).
pub(crate) type DeferredKey = (usize, usize, u64);

/// Targets placed before their record, until the record is written and
/// takes them. A field's target is placed once per record.
///
/// The targets of one field (a type and an offset in it) are nearly always
/// taken in the order they were placed: a walk over a section places them
/// record after record, and the records are written later in the same
/// order. So each field's targets wait in a queue of their own and each is
/// found at its queue's head: no hashing, and memory touched in order. The
/// first one asked for out of order moves all that still wait to a map,
/// which serves the rest of the unit (each target moves once, so the cost
/// stays linear).
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    pub(crate) queues: Vec<FieldQueue>,
    /// Used once a queue's order was left (then every queue is empty).
    pub(crate) map: FxHashMap<DeferredKey, u64>,
}

/// The targets of one field waiting for their records, in placing order.
#[derive(Debug)]
pub(crate) struct FieldQueue {
    pub(crate) type_id: usize,
    pub(crate) field_off: u64,
    /// (record identity, target); `items[..head]` were taken.
    pub(crate) items: Vec<(usize, u64)>,
    pub(crate) head: usize,
}

/// Encode-side memory of a unit.
#[derive(Debug, Default)]
pub struct WriteScope {
    /// Targets placed before their record.
    pub(crate) deferred: Deferred,
    /// Per type id, the positions of its records in write order.
    pub(crate) ordinals: Vec<Vec<u64>>,
    pub(crate) refs: Vec<PendingRef>,
    /// Per type id, (record position, hash of its key) in write order.
    pub(crate) hashed: Vec<Vec<(u64, u64)>>,
    pub(crate) cells: Vec<CellSlot>,
    pub(crate) cells_end: u64,
}
