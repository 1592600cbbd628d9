//! Interned string tables (behaviour: `interned.rs`).

use crate::base::Str;
use crate::span_index::{ShortKey, SpanIndex};

/// The distinct strings of each table, each with an id in the order it was
/// first met (a document repeats its keys many times). The bytes are
/// copied once per distinct string, into one buffer per table; the memory
/// is kept for the next encode.
#[derive(Debug, Default)]
pub struct StringIds {
    pub(crate) tables: Vec<TableIds>,
}

#[derive(Debug, Default)]
pub(crate) struct TableIds {
    /// Every distinct string, back to back.
    pub(crate) text: String,
    pub(crate) index: SpanIndex,
    /// By id: where the string lies in `text`.
    pub(crate) spans: Vec<(usize, usize)>,
    /// Short strings met lately, found by their bytes as three numbers
    /// (see [`ShortKey`]): a document repeats a few thousand keys hundreds
    /// of thousands of times, mostly close together.
    pub(crate) recent: Vec<(ShortKey, u32)>,
}

/// The sorted tables an encode writes and looks indices up in.
#[derive(Debug, Default)]
pub struct WriteTables {
    pub(crate) tables: Vec<Vec<Str>>,
    /// By table, by string id ([`StringIds`]): the string's index.
    pub(crate) ranks: Vec<Vec<u32>>,
    /// The index of the string at an address, given by the caller who
    /// looked it up just before ([`Writer::hint_index`]): (table, address,
    /// length, index).
    pub(crate) hint: Option<(usize, usize, usize, u64)>,
}

/// The tables a decode has read, by table id.
#[derive(Debug, Default)]
pub struct ReadTables {
    pub(crate) tables: Vec<Vec<Str>>,
}
