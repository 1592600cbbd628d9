//! String pools, offset targets and context (behaviour: `layout.rs`).

use crate::span_index::SpanIndex;
use std::borrow::Cow;
use std::collections::BTreeSet;

/// Decode-side state.
#[derive(Debug, Default, Clone)]
pub struct ReadLayout {
    /// Start of each pool, by pool (section) id.
    pub(crate) pools: Vec<Option<u64>>,
    /// The offsets each pool's references hold.
    pub(crate) refs: Vec<BTreeSet<u64>>,
    /// (target, rank, position of the offset that leads there).
    pub(crate) bounds: BTreeSet<(u64, u64, u64)>,
    /// Context values of the records whose offsets are being followed.
    pub(crate) context: Vec<(Cow<'static, str>, u64)>,
    /// The group, index and length of the list element being decoded.
    pub(crate) element: (usize, usize, usize),
    /// Where each section of the current layout starts, by section id, once
    /// known (`placement.rs`).
    pub(crate) section_starts: Vec<Option<u64>>,
}

/// Encode-side state.
#[derive(Debug, Default)]
pub struct WriteLayout {
    pub(crate) pools: Vec<WritePool>,
    /// The largest kept alignment of the values noted per section id
    /// (`placement.rs`).
    pub(crate) kept_aligns: Vec<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct WritePool {
    pub(crate) buf: Vec<u8>,
    /// String bytes -> offset of their first copy (in `buf`).
    pub(crate) index: SpanIndex,
    /// Where the pool was written, once it was.
    pub(crate) placed: Option<u64>,
    /// A reference points at the end of the seeded strings: a new string
    /// first writes the empty string there.
    pub(crate) end_ref: Option<u64>,
}
