//! Interned string tables in place (`Type::Table`, `Type::Index`): a
//! table's strings read as they are asked for, and the indices stored
//! elsewhere looked up in the table the file's opening noted.

use super::{ViewCx, ViewStr, MAX_VIEW_TABLES};
use crate::base::checked;
use crate::base::Width;
use crate::error::DecodeResult;
use crate::interned::{index_past_end, table_entry};

/// Where a table body lies: `count + 1` offsets of `width` at `at`,
/// counted from `record`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableAt {
    pub(crate) record: u64,
    pub(crate) at: u64,
    pub(crate) count: u64,
    pub(crate) width: Width,
}

/// A sorted string table's body in place: its offsets, checked to lie in
/// the file when the view was made, and each string found when asked for.
///
/// Decode also checks that the strings ascend; a view does not (it reads
/// one string, not the table), so a view of a file decode refuses for its
/// order still reads the strings as they are.
#[derive(Clone, Copy)]
pub struct TableView<'s> {
    cx: ViewCx<'s>,
    t: TableAt,
}

impl<'s> TableView<'s> {
    /// Number of strings.
    #[inline]
    pub fn len(&self) -> usize {
        self.t.count as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.t.count == 0
    }

    /// Where the offsets start in the file.
    pub fn at(&self) -> u64 {
        self.t.at
    }

    /// String `i`, with decode's errors for a bad offset or a missing NUL;
    /// `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<DecodeResult<ViewStr<'s>>> {
        (i < self.len()).then(|| self.string(i as u64).map_err(|e| e.at_index(i)))
    }

    #[inline]
    fn string(&self, i: u64) -> DecodeResult<ViewStr<'s>> {
        let t = &self.t;
        let start = table_entry(self.cx.data(), self.cx.endian(), t.record, t.at, i, t.width);
        let start = self.cx.loc(start)?;
        let bytes = self.cx.cstr(start, None)?;
        self.cx
            .charge(t.at + i * t.width.bytes(), bytes.len() as u64 + 1)?;
        Ok(ViewStr {
            bytes,
            at: self.cx.origin() + start,
        })
    }

    pub fn iter(&self) -> TableIter<'s> {
        TableIter { table: *self, i: 0 }
    }
}

impl std::fmt::Debug for TableView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableView")
            .field("at", &self.t.at)
            .field("len", &self.t.count)
            .finish()
    }
}

/// The strings of a [`TableView`], each a result (its offset may be bad).
#[derive(Debug)]
pub struct TableIter<'s> {
    table: TableView<'s>,
    i: usize,
}

impl<'s> Iterator for TableIter<'s> {
    type Item = DecodeResult<ViewStr<'s>>;

    fn next(&mut self) -> Option<Self::Item> {
        let s = self.table.get(self.i)?;
        self.i += 1;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.table.len() - self.i;
        (n, Some(n))
    }
}

impl ExactSizeIterator for TableIter<'_> {}

impl<'s> ViewCx<'s> {
    /// The body of a table in the record at `record`: `count + 1` offsets
    /// of `width` from `at` (what decode's `read_table` reads), checked to
    /// lie in the file.
    #[inline]
    pub fn table(
        &self,
        record: u64,
        at: u64,
        count: u64,
        width: Width,
    ) -> DecodeResult<TableView<'s>> {
        self.loc(checked::count(
            self.data(),
            at,
            at,
            count.saturating_add(1),
            width.bytes(),
        ))?;
        Ok(TableView {
            cx: *self,
            t: TableAt {
                record,
                at,
                count,
                width,
            },
        })
    }

    /// Notes interned table `id` (when the file is opened), for the
    /// indices into it.
    pub fn set_table(&self, id: usize, table: &TableView<'_>) {
        if let Some(c) = self.src.tables.get(id) {
            c.set(Some(table.t));
        }
    }

    /// The string at `index` of interned table `id`, read at `pos`, as
    /// decode looks it up: an index past the end (or into a table the file
    /// does not have) is decode's error, naming the table `name`.
    #[inline]
    pub fn interned(
        &self,
        id: usize,
        index: u64,
        pos: u64,
        name: &str,
    ) -> DecodeResult<ViewStr<'s>> {
        debug_assert!(id < MAX_VIEW_TABLES);
        let t = self.src.tables.get(id).and_then(|c| c.get());
        match t {
            Some(t) if index < t.count => TableView { cx: *self, t }.string(index),
            _ => Err(self.locate(index_past_end(pos, index, name, t.map_or(0, |t| t.count)))),
        }
    }
}

impl<'s> ViewCx<'s> {
    /// Looks a key up in a hash index of `slots` heads of `width` bytes at
    /// `heads_at`, as the file's reader does: the head of slot `hash %
    /// slots`, then each record's next offset (counted from `base`, times
    /// `scale`; 0 ends the chain). `step` views the record at a position
    /// and says whether its key is the one looked for, and where its next
    /// offset lies and what it holds. Each record followed is charged to
    /// the read budget (`size` bytes), so a chain that loops ends in an
    /// error.
    #[allow(clippy::too_many_arguments)]
    pub fn hash_find<T>(
        &self,
        heads_at: u64,
        slots: u64,
        width: u64,
        hash: u64,
        base: u64,
        scale: u64,
        size: u64,
        mut step: impl FnMut(ViewCx<'s>, u64) -> DecodeResult<(Option<T>, u64, u64)>,
    ) -> DecodeResult<Option<T>> {
        if slots == 0 {
            return Ok(None);
        }
        let mut field_pos = heads_at + (hash % slots) * width;
        let mut raw = self.uint(field_pos, width)?;
        while raw != 0 {
            let (cx, t) = self.follow(field_pos, base, raw, scale, size)?;
            let (hit, next_pos, next) = step(cx, t)?;
            if hit.is_some() {
                return Ok(hit);
            }
            (field_pos, raw) = (next_pos, next);
        }
        Ok(None)
    }
}
