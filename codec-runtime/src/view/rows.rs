//! Rows in place (the `Rows` construct): `count` rows of `stride` bytes,
//! whose cells the columns lay out. A row view reads a cell when asked for
//! it, given the cell's type tag and offset (from the column records,
//! which the table's views read).

use super::{ViewCx, ViewUnion};
use crate::base::checked;
use crate::error::{DecodeError, DecodeResult, ErrorKind, PathSeg};
use std::marker::PhantomData;

/// A generated view of a cell union (the cells of a `Rows` region): the
/// bytes a cell of each type takes.
pub trait ViewCell<'s>: ViewUnion<'s> {
    /// Bytes of one cell of type `tag`, or `None` when no cell has it.
    fn cell_size(tag: u64) -> Option<u64>;
}

/// The rows of a region, checked to lie in the file when the view was
/// made; each row read when asked for.
pub struct RowsView<'s, C> {
    cx: ViewCx<'s>,
    at: u64,
    stride: u64,
    count: u64,
    /// The record and field holding the rows, for the path of a cell's
    /// error (`Table.rows[3]`).
    path: (&'static str, &'static str),
    _cell: PhantomData<fn() -> C>,
}

impl<C> Clone for RowsView<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for RowsView<'_, C> {}

impl<'s> ViewCx<'s> {
    /// `count` rows of `stride` bytes from `at` (`field_pos` is where the
    /// offset to them was read), checked to lie in the file as decode
    /// checks them; `path` is the record and the field holding them.
    #[inline]
    pub fn rows<C: ViewCell<'s>>(
        &self,
        field_pos: u64,
        at: u64,
        count: u64,
        stride: u64,
        path: (&'static str, &'static str),
    ) -> DecodeResult<RowsView<'s, C>> {
        self.loc(checked::count(self.data(), field_pos, at, count, stride))?;
        self.charge(field_pos, count.saturating_mul(stride.max(1)))?;
        Ok(RowsView {
            cx: *self,
            at,
            stride,
            count,
            path,
            _cell: PhantomData,
        })
    }
}

impl<'s, C: ViewCell<'s>> RowsView<'s, C> {
    #[inline]
    pub fn len(&self) -> usize {
        self.count as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Where the first row lies.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// Bytes of a row.
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// Row `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<RowView<'s, C>> {
        let i = i as u64;
        (i < self.count).then(|| {
            let at = self.at + i * self.stride;
            let bytes = self
                .cx
                .data()
                .get(at as usize..(at + self.stride) as usize)
                .unwrap_or_default();
            RowView {
                cx: self.cx,
                at,
                bytes,
                index: i as usize,
                path: self.path,
                _cell: PhantomData,
            }
        })
    }

    #[inline]
    pub fn iter(&self) -> RowsIter<'s, C> {
        RowsIter { rows: *self, i: 0 }
    }
}

impl<'s, C: ViewCell<'s>> IntoIterator for RowsView<'s, C> {
    type Item = RowView<'s, C>;
    type IntoIter = RowsIter<'s, C>;
    fn into_iter(self) -> RowsIter<'s, C> {
        self.iter()
    }
}

impl<C> std::fmt::Debug for RowsView<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowsView")
            .field("at", &self.at)
            .field("stride", &self.stride)
            .field("len", &self.count)
            .finish()
    }
}

/// The rows of a [`RowsView`].
#[derive(Debug)]
pub struct RowsIter<'s, C> {
    rows: RowsView<'s, C>,
    i: usize,
}

impl<'s, C: ViewCell<'s>> Iterator for RowsIter<'s, C> {
    type Item = RowView<'s, C>;

    #[inline]
    fn next(&mut self) -> Option<RowView<'s, C>> {
        let r = self.rows.get(self.i)?;
        self.i += 1;
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rows.len() - self.i;
        (n, Some(n))
    }
}

impl<'s, C: ViewCell<'s>> ExactSizeIterator for RowsIter<'s, C> {}

/// One row in place.
pub struct RowView<'s, C> {
    cx: ViewCx<'s>,
    at: u64,
    bytes: &'s [u8],
    /// The row's index, and where the rows are held, for errors.
    index: usize,
    path: (&'static str, &'static str),
    _cell: PhantomData<fn() -> C>,
}

impl<C> Clone for RowView<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for RowView<'_, C> {}

impl<'s, C: ViewCell<'s>> RowView<'s, C> {
    /// Where the row lies.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// The row's bytes.
    pub fn bytes(&self) -> &'s [u8] {
        self.bytes
    }

    /// The `k`th cell of type `tag` from `offset` in the row (a column's
    /// type and offset; `k` is 0 but in an array column). `tag_pos` is
    /// where the column stores the type, for errors: an unknown type, or a
    /// cell that does not fit in the row, is decode's refusal.
    #[inline]
    pub fn cell(&self, tag: u64, offset: u64, k: u64, tag_pos: u64) -> DecodeResult<C> {
        self.cell_here(tag, offset, k, tag_pos).map_err(|e| {
            e.at_index(self.index)
                .in_field(self.path.1)
                .within(PathSeg::Type(self.path.0.into()))
        })
    }

    /// Where the row lies among the rows.
    pub fn index(&self) -> usize {
        self.index
    }

    #[inline(always)]
    fn cell_here(&self, tag: u64, offset: u64, k: u64, tag_pos: u64) -> DecodeResult<C> {
        let Some(size) = C::cell_size(tag) else {
            return C::view_payload(self.cx, tag, self.at, self.at, tag_pos);
        };
        let start = k.checked_mul(size).and_then(|n| n.checked_add(offset));
        match start.and_then(|s| s.checked_add(size)) {
            Some(end) if end <= self.bytes.len() as u64 => {
                let pos = self.at + start.unwrap_or(0);
                C::view_payload(self.cx, tag, pos, pos, tag_pos)
            }
            _ => Err(self.cx.locate(DecodeError::new(
                tag_pos,
                ErrorKind::Invalid(format!(
                    "cell {k} of {size} byte(s) at offset {offset} does not fit in rows of {} byte(s)",
                    self.bytes.len()
                )),
            ))),
        }
    }
}

impl<C> std::fmt::Debug for RowView<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowView")
            .field("at", &self.at)
            .field("len", &self.bytes.len())
            .finish()
    }
}
