//! The order of the sorted list written last (behaviour: `placement.rs`).

/// The write order of the sorted list written last. In a depth-first
/// walk the record holding the list is written and at once visited, and
/// the visit finds each element's slot here instead of looking the keys
/// up and sorting them again.
///
/// Also the spare buffers of the sorted lists' keys, orders and slots: a
/// document holds a sorted list per map, and each would otherwise
/// allocate three of them.
#[derive(Debug, Default)]
pub(crate) struct LastSorted {
    /// The record (address), its type and the list field; `None` when
    /// nothing is kept (a new encode: addresses are reused).
    pub(crate) of: Option<(usize, usize, &'static str)>,
    pub(crate) order: Vec<usize>,
    pub(crate) spare_keys: Vec<Vec<u64>>,
    pub(crate) spare_orders: Vec<Vec<usize>>,
    /// Keys packed with their indices, while an order is sorted.
    pub(crate) packed: Vec<u64>,
}
