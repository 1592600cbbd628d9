//! Shared records met on decode, and the shapes of an encode (behaviour: `shared.rs`).

use super::interned::StringIds;
use crate::span_index::SpanIndex;
use rustc_hash::{FxHashMap, FxHashSet};

/// What decode learns of the writer's sharing (`SharesEqual` in the
/// schema language): the records of shared sections met so far, and the
/// sections where one was pointed at twice.
///
/// The records met are bits by position, one per byte of the file from
/// the nearest record met to the furthest (an eighth of the input at
/// most): a record of a shared section is met once per reference, tens of
/// thousands of times in a file of small arrays, where a hash set spent
/// more on inserting and growing than the rest of reading the record
/// (issue 51). The bits start at the first 64-byte word holding a record
/// (`base`), so that a file whose records follow a large blob does not
/// clear a bit for every byte of the blob.
#[derive(Debug, Default)]
pub struct ReadShared {
    pub(crate) seen: Vec<u64>,
    /// The 64-byte word of the file `seen[0]` stands for.
    pub(crate) base: usize,
    pub(crate) twice: u64,
    /// The buffers of a list's document order, used by each list in turn
    /// (`Reader::put_in_document_order`).
    pub(crate) order: DocumentOrder,
}

/// A list's document order (behaviour: `shared.rs`), in buffers kept for
/// the next list: a corpus decode recovered 9,000 orders, each with three
/// allocations, a sixth of the decode's allocations (issue 51).
#[derive(Debug, Default)]
pub struct DocumentOrder {
    /// Element `k` of the list in document order is element `order[k]`
    /// as stored.
    pub(crate) order: Vec<usize>,
    /// The placed elements as (section, target, element).
    pub(crate) placed: Vec<(usize, u64, usize)>,
    /// The same, sorted by section and target.
    pub(crate) by_target: Vec<(usize, u64, usize)>,
}

/// A record met by the shapes: its address and type, its shape, where its
/// subtree ends in [`Shapes::met`], and where the ids of its sorted list's
/// keys are in [`Shapes::sort_ids`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Met {
    pub(crate) key: usize,
    pub(crate) type_id: usize,
    pub(crate) id: u32,
    pub(crate) end: u32,
    pub(crate) sort_at: u32,
    pub(crate) sort_len: u32,
}

/// The shapes of one encode: interned keys, the shape of each record met
/// (by address and type), and where the first record of each shape went.
#[derive(Debug, Default)]
pub struct Shapes {
    /// Every distinct key, back to back; `ids` finds a key's shape by its
    /// hash and its span here (one buffer, no allocation per shape).
    pub(crate) keys: Vec<u8>,
    pub(crate) ids: SpanIndex,
    /// Key buffers to reuse (shapes are built recursively, one buffer per
    /// level), so that a record whose shape exists allocates nothing.
    pub(crate) spare: Vec<Vec<u8>>,
    /// Every record met, in the order first asked for: the first walk asks
    /// for the root's shape, which asks for its children's, so this is the
    /// tree in preorder, the order every later walk goes through it too.
    pub(crate) met: Vec<Met>,
    /// The next record a walk is expected to ask for (an index into
    /// `met`): asked in that order, a shape is found without hashing.
    pub(crate) next: usize,
    /// Where each record (address and type) is in `met`: whether a record
    /// is new, and where it is for a walk that leaves the order.
    /// Filed lazily: `met[..of_filed]` are in it (a walk that keeps to the
    /// order never needs it).
    pub(crate) of: FxHashMap<(usize, usize), u32>,
    pub(crate) of_filed: usize,
    /// Every record asked for is new: the first pass over the document
    /// (`Writer::intern_all`), which asks for each record of the owned tree
    /// once, from its holder's shape.
    pub(crate) fresh: bool,
    /// By shape: the section and position its first record was placed at
    /// (a shape is of one type, nearly always placed in one section; a
    /// type placed in several keeps the other sections in `placed_far`).
    pub(crate) placed: Vec<Option<(usize, u64)>>,
    pub(crate) placed_far: FxHashMap<(usize, u32), u64>,
    /// By shape: the walks (bit `i` for section `i`) that descended into
    /// it; past the 64th section, `visited_far`.
    pub(crate) visited: Vec<u64>,
    pub(crate) visited_far: FxHashSet<(usize, u32)>,
    /// By shape: the sections its subtree places something in (bit `i`
    /// for section `i`), so that a walk over a section skips the subtrees
    /// that hold nothing for it.
    pub(crate) reach: Vec<u64>,
    /// The sections marked while the current shape is built.
    pub(crate) marked: u64,
    /// The shared sections whose equal records are written apart, as the
    /// document's writer did (`SharesEqual` false): each record is placed
    /// and visited wherever it is met.
    pub(crate) apart: u64,
    /// By record, back to back: the string ids of the keys its sorted list
    /// is sorted by, in the document's order (see `Writer::sort_key_ranks`).
    pub(crate) sort_ids: Vec<u32>,
    /// The sort keys of the records whose shapes are being built.
    pub(crate) sort_stack: Vec<u32>,
    /// The interned strings met so far, by table: a record's shape holds
    /// each of its strings as its id here, and the first pass over the
    /// document (`Writer::intern_all`) gathers the tables while it builds
    /// the shapes.
    pub(crate) strings: StringIds,
    /// The blobs met ([`BLOB_RUN`] bytes or more), back to back, each once;
    /// `blob_spans[id]` is blob `id`'s place there, and `blobs_of_len` the
    /// ids of the blobs of each length: a blob is found by its length and
    /// compared whole, never hashed.
    pub(crate) blob_bytes: Vec<u8>,
    pub(crate) blob_spans: Vec<(usize, usize)>,
    pub(crate) blobs_of_len: FxHashMap<usize, Vec<u32>>,
    /// The first pass over a document knows a blob by its length alone
    /// (no copy of its bytes): each blob gets an id of its own, and a
    /// second blob of a length already met is noted (`blob_lengths_repeat`)
    /// so that the pass is made again with copies (`Writer::intern_all`).
    pub(crate) lazy_blobs: bool,
    pub(crate) blob_lengths_repeat: bool,
}
