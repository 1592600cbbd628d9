//! Row regions whose cells are described by column records (the `Rows`
//! construct): the columns give each cell's type tag, repeat count and offset
//! in the row; the cell union ([`Cells`]) reads and writes one cell of a type.
//!
//! A row is kept as its cells in layout order (a column of `count` cells
//! contributes `count` consecutive cells).

use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind, PathSeg};
use crate::reader::{align_up, Reader};
use crate::scope::CellSlot;
use crate::writer::Writer;

/// The cell union of a row region, as generated for variant `V` of a schema.
pub trait Cells<const V: usize>: Sized {
    /// The union's name (for errors).
    const NAME: &'static str;

    /// Bytes of one cell of this tag, or `None` when no cell has it.
    fn cell_size(tag: u64) -> Option<u64>;

    /// Reads one cell of type `tag` at `pos`.
    fn decode_cell(r: &mut Reader<'_>, tag: u64, pos: u64) -> DecodeResult<Self>;

    /// The tag of this cell's type.
    fn cell_tag(&self) -> u64;

    /// Writes the cell inline (offsets as zeros).
    fn write_cell(&self, w: &mut Writer) -> EncodeResult<()>;

    /// Can a cell place a target in section `sec`?
    fn places_in(sec: usize) -> bool;

    /// Places this cell's target when it belongs to `sec`, and patches the
    /// offset at `at`.
    fn place_cell(&self, w: &mut Writer, sec: usize, at: u64) -> EncodeResult<()>;
}

/// Reads `count` rows of `stride` bytes from `start`, laid out as the column
/// records read so far describe them. `field_pos` is where the offset to the
/// rows was read.
pub fn decode_rows<C: Cells<V>, const V: usize>(
    r: &mut Reader<'_>,
    start: u64,
    count: u64,
    stride: u64,
    field_pos: u64,
) -> DecodeResult<Vec<Vec<C>>> {
    let mut slots: Vec<CellSlot> = r.cells().to_vec();
    let mut per_row = 0u64;
    for (ci, s) in slots.iter_mut().enumerate() {
        let Some(size) = C::cell_size(s.tag) else {
            return Err(DecodeError::new(
                s.tag_pos,
                ErrorKind::UnknownTag {
                    union: C::NAME,
                    tag: s.tag,
                },
            )
            .within(PathSeg::Index(ci)));
        };
        s.size = size;
        let end = s
            .count
            .checked_mul(size)
            .and_then(|n| n.checked_add(s.offset));
        if end.is_none_or(|e| e > stride) {
            return Err(DecodeError::new(
                s.tag_pos,
                ErrorKind::Invalid(format!(
                    "column {ci}: {} cell(s) of {size} byte(s) at offset {} do not fit in rows of {stride} byte(s)",
                    s.count, s.offset
                )),
            ));
        }
        per_row += s.count;
    }
    r.check_count(field_pos, start, count, stride)?;
    if count == 0 {
        return Ok(Vec::new());
    }
    r.enter(field_pos, start, count.saturating_mul(stride.max(1)))?;
    let mut rows = Vec::with_capacity(count as usize);
    for i in 0..count {
        let row_pos = start + i * stride;
        let mut row = Vec::with_capacity(per_row as usize);
        for s in &slots {
            for k in 0..s.count {
                let at = row_pos + s.offset + k * s.size;
                match C::decode_cell(r, s.tag, at) {
                    Ok(c) => row.push(c),
                    Err(e) => {
                        return Err(e
                            .within(PathSeg::Index(row.len()))
                            .within(PathSeg::Index(i as usize)))
                    }
                }
            }
        }
        rows.push(row);
    }
    r.leave();
    Ok(rows)
}

/// The number of cells a row holds under the layout written so far.
fn cells_per_row(w: &Writer) -> u64 {
    w.cells().iter().map(|s| s.count).sum()
}

/// Writes the rows at the current position, each `stride` bytes (the cells
/// packed in layout order, zero padding after them).
pub fn write_rows<C: Cells<V>, const V: usize>(
    w: &mut Writer,
    rows: &[Vec<C>],
    stride: u64,
    what: &'static str,
) -> EncodeResult<()> {
    let per_row = cells_per_row(w);
    let slots: Vec<CellSlot> = w.cells().to_vec();
    for (i, row) in rows.iter().enumerate() {
        if row.len() as u64 != per_row {
            return Err(EncodeError::new(
                what,
                format!(
                    "row {i} has {} cell(s), but the columns describe {per_row}",
                    row.len()
                ),
            ));
        }
        let start = w.pos();
        let mut cells = row.iter();
        for (ci, s) in slots.iter().enumerate() {
            for _ in 0..s.count {
                let Some(c) = cells.next() else { break };
                if c.cell_tag() != s.tag {
                    return Err(EncodeError::new(
                        what,
                        format!(
                            "row {i}, column {ci}: a cell of type {} where the column holds type {}",
                            c.cell_tag(),
                            s.tag
                        ),
                    ));
                }
                c.write_cell(w)?;
            }
        }
        let end = start + stride;
        let pos = w.pos();
        if pos > end {
            return Err(EncodeError::new(
                what,
                format!(
                    "row {i} takes {} bytes, more than the row length {stride}",
                    pos - start
                ),
            ));
        }
        w.put_bytes(&vec![0u8; (end - pos) as usize]);
    }
    Ok(())
}

/// Places the cells' targets that belong to section `sec`, rows in order,
/// cells in layout order; the rows start at `start`, each `stride` bytes.
pub fn place_rows<C: Cells<V>, const V: usize>(
    w: &mut Writer,
    rows: &[Vec<C>],
    sec: usize,
    start: u64,
    stride: u64,
) -> EncodeResult<()> {
    if !C::places_in(sec) {
        return Ok(());
    }
    let slots: Vec<CellSlot> = w.cells().to_vec();
    for (i, row) in rows.iter().enumerate() {
        let row_pos = start + i as u64 * stride;
        let mut cells = row.iter();
        for s in &slots {
            for k in 0..s.count {
                let Some(c) = cells.next() else { break };
                c.place_cell(w, sec, row_pos + s.offset + k * s.size)?;
            }
        }
    }
    Ok(())
}

/// The row length for cells ending at `end`, rounded to `align`.
pub fn stride_for(end: u64, align: u64) -> u64 {
    align_up(end, align)
}
