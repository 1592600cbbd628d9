//! Row regions whose cells are described by column records (the `Rows`
//! construct): the columns give each cell's type tag, repeat count and offset
//! in the row; the cell union ([`Cells`]) reads and writes one cell of a type.
//!
//! The rows are kept in one flat vector ([`Rows`]): a row is its cells in
//! layout order (a column of `count` cells contributes `count` consecutive
//! cells), and every row has as many. A cell that points at a string holds
//! the string's index in the rows' string list ([`Rows::strings`], the
//! strings' bytes back to back): each distinct string is read once, and the
//! cells stay small (a row region is walked cell by cell, so their size is
//! what decoding and encoding cost).

use crate::base::align_up;
use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind, PathSeg};
use crate::reader::Reader;
use crate::scope::{CellSlot, UNPLACED};
use crate::text::Text;
use crate::writer::Writer;
use rustc_hash::FxHashMap;

/// Strings kept back to back: each one's bytes (no NUL), by index. Bytes
/// that are not UTF-8 are kept as they are.
#[derive(Debug, Clone)]
pub struct StringList {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// Known to hold no string twice (as the decoder and [`StringList::unique`]
    /// build it): an encoder may then write each without looking for an
    /// earlier copy.
    distinct: bool,
    /// No string holds a NUL byte (so each can be written NUL-terminated as
    /// it is).
    nul_free: bool,
}

impl Default for StringList {
    fn default() -> Self {
        StringList {
            bytes: Vec::new(),
            ends: Vec::new(),
            distinct: false,
            nul_free: true,
        }
    }
}

impl PartialEq for StringList {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes && self.ends == other.ends
    }
}

impl Eq for StringList {}

impl StringList {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of string `id`.
    #[inline]
    pub fn get(&self, id: u32) -> Option<&[u8]> {
        let i = id as usize;
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.bytes.get(start..end)
    }

    /// String `id` as text (UTF-8 or its bytes).
    pub fn text(&self, id: u32) -> Option<Text> {
        self.get(id).map(Text::from_bytes)
    }

    /// Adds a string and returns its index.
    #[inline]
    pub fn push(&mut self, s: &[u8]) -> u32 {
        self.distinct = false;
        self.nul_free &= memchr::memchr(0, s).is_none();
        self.push_new(s)
    }

    #[inline]
    fn push_new(&mut self, s: &[u8]) -> u32 {
        self.bytes.extend_from_slice(s);
        self.ends.push(self.bytes.len() as u32);
        (self.ends.len() - 1) as u32
    }

    /// A list of these strings, known to be distinct when they are.
    pub fn unique<'a>(strings: impl IntoIterator<Item = &'a [u8]>) -> StringList {
        let mut list = StringList::default();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut distinct = true;
        for s in strings {
            distinct &= seen.insert(s);
            list.nul_free &= memchr::memchr(0, s).is_none();
            list.push_new(s);
        }
        list.distinct = distinct;
        list
    }

    /// Does no string hold a NUL byte?
    pub fn is_nul_free(&self) -> bool {
        self.nul_free
    }

    /// Does the list hold no string twice (as far as it is known)?
    pub fn is_distinct(&self) -> bool {
        self.distinct || self.ends.len() < 2
    }

    /// Every string, by index.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.ends.len() as u32).filter_map(|i| self.get(i))
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.distinct = false;
        self.nul_free = true;
    }
}

/// What every cell union tells about its cells, whatever the variant.
pub trait RowCell {
    /// The union's name.
    const UNION: &'static str;

    /// For a cell that points at a string: its variant's index and name in
    /// the union, and the string's index in [`Rows::strings`].
    fn string_ref(&self) -> Option<(u32, &'static str, u32)>;

    /// The cell of the variant named `variant` pointing at string `id`, when
    /// that variant is one that points at a string.
    fn string_cell(variant: &str, id: u32) -> Option<Self>
    where
        Self: Sized;
}

/// Rows of cells, every row as wide as the others, kept in one vector, with
/// the strings their cells point at.
#[derive(Clone)]
pub struct Rows<C> {
    width: usize,
    len: usize,
    cells: Vec<C>,
    strings: StringList,
}

/// Equal rows: the same cells, row for row, a string cell's string compared
/// (not its index); the width of no rows does not matter.
impl<C: PartialEq + RowCell> PartialEq for Rows<C> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && (self.len == 0 || self.width == other.width)
            && self.cells.iter().zip(&other.cells).all(|(a, b)| {
                match (a.string_ref(), b.string_ref()) {
                    (Some((va, _, ia)), Some((vb, _, ib))) => {
                        va == vb && self.strings.get(ia) == other.strings.get(ib)
                    }
                    (None, None) => a == b,
                    _ => false,
                }
            })
    }
}

impl<C> Default for Rows<C> {
    fn default() -> Self {
        Rows::new(0)
    }
}

/// A cell as its row shows it: a string cell with its string's bytes.
pub enum CellView<'a, C> {
    Cell(&'a C),
    Str(&'static str, &'a [u8]),
}

impl<C: std::fmt::Debug> std::fmt::Debug for CellView<'_, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CellView::Cell(c) => c.fmt(f),
            CellView::Str(v, t) => write!(f, "{v}({:?})", Text::from_bytes(t)),
        }
    }
}

impl<C: std::fmt::Debug + RowCell> std::fmt::Debug for Rows<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|row| row.iter().map(|c| self.view(c)).collect::<Vec<_>>()),
            )
            .finish()
    }
}

impl<C> Rows<C> {
    /// No rows, each to be `width` cells wide.
    pub fn new(width: usize) -> Self {
        Rows {
            width,
            len: 0,
            cells: Vec::new(),
            strings: StringList::default(),
        }
    }

    /// The strings the cells point at (by index).
    pub fn strings(&self) -> &StringList {
        &self.strings
    }

    /// The bytes of the string with this index.
    pub fn string(&self, id: u32) -> Option<&[u8]> {
        self.strings.get(id)
    }

    /// Adds a string for cells to point at, and returns its index. (Equal
    /// strings may be added more than once: encoding writes each once.)
    pub fn add_string(&mut self, s: impl AsRef<[u8]>) -> u32 {
        self.strings.push(s.as_ref())
    }

    /// Replaces the strings the cells point at.
    pub fn set_strings(&mut self, strings: StringList) {
        self.strings = strings;
    }

    /// A cell as a row shows it (a string cell with its string).
    pub fn view<'a>(&'a self, c: &'a C) -> CellView<'a, C>
    where
        C: RowCell,
    {
        match c.string_ref() {
            Some((_, name, id)) => match self.strings.get(id) {
                Some(t) => CellView::Str(name, t),
                None => CellView::Cell(c),
            },
            None => CellView::Cell(c),
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of cells of a row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Every cell, row after row.
    pub fn cells(&self) -> &[C] {
        &self.cells
    }

    /// Row `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&[C]> {
        (i < self.len).then(|| &self.cells[i * self.width..(i + 1) * self.width])
    }

    /// Row `i`, if there is one, to change its cells.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut [C]> {
        let w = self.width;
        (i < self.len).then(|| &mut self.cells[i * w..(i + 1) * w])
    }

    /// Appends a row. The first row of an empty region sets the width;
    /// later ones must have it.
    ///
    /// # Panics
    /// When the row's width differs from the others'.
    pub fn push(&mut self, row: impl IntoIterator<Item = C>) {
        let before = self.cells.len();
        self.cells.extend(row);
        let n = self.cells.len() - before;
        if self.len == 0 {
            self.width = n;
        } else if n != self.width {
            self.cells.truncate(before);
            panic!("a row of {n} cells in rows of {} cells", self.width);
        }
        self.len += 1;
    }

    /// Removes every row (and string) and sets the width.
    pub fn clear(&mut self, width: usize) {
        self.cells.clear();
        self.strings.clear();
        self.len = 0;
        self.width = width;
    }

    /// The rows, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[C]> + '_ {
        // Chunks of a non-zero width; rows of no cells are empty slices.
        let w = self.width.max(1);
        let cells = if self.width == 0 {
            &[][..]
        } else {
            &self.cells[..]
        };
        let empty = if self.width == 0 { self.len } else { 0 };
        RowsIter {
            chunks: cells.chunks_exact(w),
            empty,
        }
    }

    /// The rows, in order, to change their cells.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut [C]> + '_ {
        let (w, n) = (self.width, self.len);
        let mut rest: &mut [C] = &mut self.cells;
        (0..n).map(move |_| {
            let (row, tail) = std::mem::take(&mut rest).split_at_mut(w);
            rest = tail;
            row
        })
    }
}

/// The rows of [`Rows::iter`]: chunks of the cells, or empty rows.
struct RowsIter<'a, C> {
    chunks: std::slice::ChunksExact<'a, C>,
    empty: usize,
}

impl<'a, C> Iterator for RowsIter<'a, C> {
    type Item = &'a [C];

    #[inline]
    fn next(&mut self) -> Option<&'a [C]> {
        if self.empty > 0 {
            self.empty -= 1;
            return Some(&[]);
        }
        self.chunks.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.chunks.len() + self.empty;
        (n, Some(n))
    }
}

impl<C> ExactSizeIterator for RowsIter<'_, C> {}

impl<'a, C> IntoIterator for &'a Rows<C> {
    type Item = &'a [C];
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a [C]> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<'a, C> IntoIterator for &'a mut Rows<C> {
    type Item = &'a mut [C];
    type IntoIter = Box<dyn Iterator<Item = &'a mut [C]> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter_mut())
    }
}

impl<C> std::ops::Index<usize> for Rows<C> {
    type Output = [C];

    fn index(&self, i: usize) -> &[C] {
        assert!(i < self.len, "row {i} of {}", self.len);
        &self.cells[i * self.width..(i + 1) * self.width]
    }
}

impl<C> std::ops::IndexMut<usize> for Rows<C> {
    fn index_mut(&mut self, i: usize) -> &mut [C] {
        assert!(i < self.len, "row {i} of {}", self.len);
        let w = self.width;
        &mut self.cells[i * w..(i + 1) * w]
    }
}

/// The cell union of a row region, as generated for variant `V` of a schema.
pub trait Cells<const V: usize>: Sized {
    /// The union's name (for errors).
    const NAME: &'static str;

    /// Bytes of one cell of this tag, or `None` when no cell has it.
    fn cell_size(tag: u64) -> Option<u64>;

    /// Reads one cell of type `tag` at `pos`; a string it points at goes to
    /// `strings` (once per position).
    fn decode_cell<'a>(
        r: &mut Reader<'a>,
        tag: u64,
        pos: u64,
        strings: &mut StringReader<'a>,
    ) -> DecodeResult<Self>;

    /// Is a cell of type `tag` a plain value (a number, no offset)?
    fn is_plain(tag: u64) -> bool;

    /// A cell of type `tag` from its bytes, when the type is a plain value
    /// (no offset); `None` otherwise. `b` holds at least the cell's size.
    fn read_plain(tag: u64, b: &[u8], e: crate::base::Endian) -> Option<Self>;

    /// Writes the cell's bytes at the start of `out` (which starts at the
    /// cell, holds at least its size, and is zeroed beforehand) if its type
    /// is `tag`; an offset stays zero, to be patched. `false` when the cell
    /// is of another type.
    fn write_plain(&self, tag: u64, out: &mut [u8], e: crate::base::Endian) -> bool;

    /// Writes the cells `row[k]` of every `(k, at)` in `cells` at `out[at..]`
    /// as [`Cells::write_plain`] does, all of type `tag`: one dispatch on
    /// the type for the run, not one per cell. `false` when a cell there is
    /// of another type (which one is for the caller to find).
    fn write_plain_run(
        tag: u64,
        row: &[Self],
        cells: &[(u32, u32)],
        out: &mut [u8],
        e: crate::base::Endian,
    ) -> bool;

    /// The tag of this cell's type.
    fn cell_tag(&self) -> u64;

    /// Writes the cell inline (offsets as zeros).
    fn write_cell(&self, w: &mut Writer) -> EncodeResult<()>;

    /// Can a cell place a target in section `sec`?
    fn places_in(sec: usize) -> bool;

    /// Can a cell of type `tag` place a target in section `sec`?
    fn tag_places_in(tag: u64, sec: usize) -> bool;

    /// Places this cell's target when it belongs to `sec`, and patches the
    /// offset at `at`; a string is placed once per index (`placed`).
    fn place_cell(
        &self,
        w: &mut Writer,
        sec: usize,
        at: u64,
        strings: &StringPlacer<'_>,
        placed: &mut [u64],
    ) -> EncodeResult<()>;
}

/// The strings of a row region being read: each position read once, and
/// equal strings at different positions kept once (so the list is distinct).
#[derive(Debug, Default)]
pub struct StringReader<'a> {
    by_pos: FxHashMap<u64, u32>,
    by_bytes: FxHashMap<&'a [u8], u32>,
    list: StringList,
}

impl<'a> StringReader<'a> {
    /// Room for `n` strings.
    pub fn with_capacity(n: usize) -> Self {
        let mut by_pos = FxHashMap::default();
        by_pos.reserve(n);
        let mut by_bytes = FxHashMap::default();
        by_bytes.reserve(n);
        StringReader {
            by_pos,
            by_bytes,
            // Strings read up to their NUL, each once.
            list: StringList {
                bytes: Vec::new(),
                ends: Vec::with_capacity(n),
                distinct: true,
                nul_free: true,
            },
        }
    }

    /// The index of the string at `pos`, reading its bytes with `read` the
    /// first time.
    #[inline]
    pub fn get_or_read(
        &mut self,
        pos: u64,
        read: impl FnOnce() -> DecodeResult<&'a [u8]>,
    ) -> DecodeResult<u32> {
        if let Some(&i) = self.by_pos.get(&pos) {
            return Ok(i);
        }
        let b = read()?;
        let i = match self.by_bytes.get(b) {
            Some(&i) => i,
            None => {
                let i = self.list.push_new(b);
                self.by_bytes.insert(b, i);
                i
            }
        };
        self.by_pos.insert(pos, i);
        Ok(i)
    }
}

/// The strings of a row region being written.
#[derive(Debug)]
pub struct StringPlacer<'a> {
    pub strings: &'a StringList,
    /// No string of the list is another's copy: each may be written
    /// without looking for an earlier one.
    pub distinct: bool,
    /// No string holds a NUL byte.
    pub nul_free: bool,
}

impl StringPlacer<'_> {
    /// The bytes of the string with index `id`, or an error naming `what`.
    #[inline]
    pub fn get(&self, id: u32, what: &'static str) -> EncodeResult<&[u8]> {
        self.strings.get(id).ok_or_else(|| {
            EncodeError::new(
                what,
                format!(
                    "string {id} is not one of the rows' {} strings",
                    self.strings.len()
                ),
            )
        })
    }
}

/// What [`size_columns`] finds of a row's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizedColumns {
    /// Cells per row, over all columns.
    pub per_row: u64,
    /// Where the last cell of a row ends: the rest of the row, up to its
    /// stride, is the padding of its rounded-up length.
    pub cells_end: u64,
}

/// Gives each column slot the size of its cells (`cell_size(tag)`, `None`
/// for a tag that union `union` does not know) and checks that its cells
/// fit in rows of `stride` bytes. Decode and the interpreter both size
/// their columns here.
pub fn size_columns(
    slots: &mut [CellSlot],
    stride: u64,
    union: &str,
    cell_size: impl Fn(u64) -> Option<u64>,
) -> DecodeResult<SizedColumns> {
    let mut out = SizedColumns {
        per_row: 0,
        cells_end: 0,
    };
    for (ci, s) in slots.iter_mut().enumerate() {
        let Some(size) = cell_size(s.tag) else {
            return Err(DecodeError::new(
                s.tag_pos,
                ErrorKind::UnknownTag {
                    union: union.to_owned().into(),
                    tag: s.tag,
                },
            )
            .within(PathSeg::Index(ci)));
        };
        s.size = size;
        let end = s
            .count
            .checked_mul(size)
            .and_then(|n| n.checked_add(s.offset))
            .filter(|&e| e <= stride)
            .ok_or_else(|| {
                DecodeError::new(
                    s.tag_pos,
                    ErrorKind::Invalid(format!(
                        "column {ci}: {} cell(s) of {size} byte(s) at offset {} do not fit in rows of {stride} byte(s)",
                        s.count, s.offset
                    )),
                )
            })?;
        out.per_row += s.count;
        out.cells_end = out.cells_end.max(end);
    }
    Ok(out)
}

/// Reads `count` rows of `stride` bytes from `start`, laid out as the column
/// records read so far describe them. `field_pos` is where the offset to the
/// rows was read.
pub fn decode_rows<'a, C: Cells<V>, const V: usize>(
    r: &mut Reader<'a>,
    start: u64,
    count: u64,
    stride: u64,
    field_pos: u64,
) -> DecodeResult<Rows<C>> {
    let mut slots: Vec<CellSlot> = r.cells().to_vec();
    let SizedColumns { per_row, .. } = size_columns(&mut slots, stride, C::NAME, C::cell_size)?;
    r.check_count(field_pos, start, count, stride)?;
    let mut rows = Rows::new(per_row as usize);
    if count == 0 {
        return Ok(rows);
    }
    r.enter(field_pos, start, count.saturating_mul(stride.max(1)))?;
    rows.cells.reserve_exact((count * per_row) as usize);
    let data = r.data();
    let e = r.endian();
    // Plain cells are read from the row's bytes (checked above as a whole).
    let other_cells: u64 = slots
        .iter()
        .filter(|s| !C::is_plain(s.tag))
        .map(|s| s.count)
        .sum();
    let mut strings = StringReader::with_capacity((other_cells * count).min(1 << 20) as usize);
    let ops = cell_ops(&slots, C::is_plain);
    for i in 0..count {
        let row_pos = start + i * stride;
        let row = &data[row_pos as usize..(row_pos + stride) as usize];
        for (ci, op) in ops.iter().enumerate() {
            if op.plain {
                if let Some(c) = C::read_plain(op.tag, &row[op.at..], e) {
                    rows.cells.push(c);
                    continue;
                }
            }
            match C::decode_cell(r, op.tag, row_pos + op.at as u64, &mut strings) {
                Ok(c) => rows.cells.push(c),
                Err(e) => {
                    return Err(e
                        .within(PathSeg::Index(ci))
                        .within(PathSeg::Index(i as usize)))
                }
            }
        }
        rows.len += 1;
    }
    r.leave();
    rows.strings = strings.list;
    Ok(rows)
}

/// One cell of a row: where it is in the row, its type, and whether it is
/// a plain value.
#[derive(Debug, Clone, Copy)]
struct CellOp {
    at: usize,
    tag: u64,
    plain: bool,
}

/// The cells of a row, one after the other, as the columns lay them out
/// (`plain` tells, per column, whether its cells are plain values).
fn cell_ops(slots: &[CellSlot], plain: impl Fn(u64) -> bool) -> Vec<CellOp> {
    let mut ops = Vec::with_capacity(slots.iter().map(|s| s.count.min(1 << 16) as usize).sum());
    for s in slots {
        let plain = plain(s.tag);
        for k in 0..s.count {
            ops.push(CellOp {
                at: (s.offset + k * s.size) as usize,
                tag: s.tag,
                plain,
            });
        }
    }
    ops
}

/// The number of cells a row holds under the layout written so far.
fn cells_per_row(w: &Writer) -> u64 {
    w.cells().iter().map(|s| s.count).sum()
}

/// The row layout rows are written under, checked: the columns written so
/// far describe `width` cells a row (`len` rows; a region of no rows has
/// any width) and every cell fits in a row of `stride` bytes. Both writers
/// (the generated codec's [`write_rows`] and the schema interpreter) check
/// here, so that both refuse the same rows with the same words.
pub fn row_layout(
    w: &Writer,
    width: usize,
    len: usize,
    stride: u64,
    what: &str,
) -> EncodeResult<Vec<CellSlot>> {
    if len > 0 {
        check_row_width(width, cells_per_row(w), what)?;
    }
    let slots: Vec<CellSlot> = w.cells().to_vec();
    if slots.iter().any(|s| s.offset + s.count * s.size > stride) {
        return Err(EncodeError::new(
            what,
            format!("the cells take more than the row length {stride}"),
        ));
    }
    Ok(slots)
}

/// A row of `width` cells, where the columns describe `per_row`.
pub fn check_row_width(width: usize, per_row: u64, what: &str) -> EncodeResult<()> {
    if width as u64 == per_row {
        return Ok(());
    }
    Err(EncodeError::new(
        what,
        format!("the rows have {width} cell(s) each, but the columns describe {per_row}"),
    ))
}

/// The column cell `k` of a row belongs to, under the layout `slots`.
pub fn column_of(slots: &[CellSlot], k: usize) -> usize {
    slots
        .iter()
        .scan(0u64, |first, s| {
            *first += s.count;
            Some(*first)
        })
        .position(|end| k < end as usize)
        .unwrap_or(0)
}

/// The error for cell `k` of row `i`, of type `cell_tag`, where its column
/// holds another type.
pub fn wrong_cell_type(
    what: &str,
    slots: &[CellSlot],
    i: usize,
    k: usize,
    cell_tag: u64,
) -> EncodeError {
    let column = column_of(slots, k);
    EncodeError::new(
        what,
        format!(
            "row {i}, column {column}: a cell of type {cell_tag} where the column holds type {}",
            slots.get(column).map_or(0, |s| s.tag)
        ),
    )
}

/// Writes the rows at the current position, each `stride` bytes (the cells
/// packed in layout order, zero padding after them).
pub fn write_rows<C: Cells<V>, const V: usize>(
    w: &mut Writer,
    rows: &Rows<C>,
    stride: u64,
    what: &'static str,
) -> EncodeResult<()> {
    let slots = row_layout(w, rows.width(), rows.len(), stride, what)?;
    w.reserve((rows.len() as u64).saturating_mul(stride).min(1 << 30) as usize);
    let e = w.endian();
    let base = w.pos() as usize;
    let len = usize::try_from((rows.len() as u64).saturating_mul(stride))
        .map_err(|_| EncodeError::new(what, "the rows are too large"))?;
    w.put_zeros(len);
    let stride = stride as usize;
    if stride == 0 || rows.is_empty() {
        return Ok(());
    }
    // Where each cell of a row goes and its type, in layout order (the
    // checks above keep every cell inside the row).
    let ops = cell_ops(&slots, |_| true);
    let out = &mut w.bytes_mut()[base..];
    // One loop per byte order, so that the order is a constant inside.
    let done = match e {
        crate::base::Endian::Little => fill_rows::<C, V, false>(rows, out, stride, &ops),
        crate::base::Endian::Big => fill_rows::<C, V, true>(rows, out, stride, &ops),
    };
    done.map_err(|(i, k)| {
        let c = &rows.cells()[i * rows.width() + k];
        wrong_cell_type(what, &slots, i, k, c.cell_tag())
    })
}

/// The cells of a row grouped by type: for each type, in order of first
/// use, the range of its `(cell index, place in the row)` pairs in
/// `cells`, in layout order. `None` when an index or a place does not fit
/// in 32 bits.
struct TypeRuns {
    runs: Vec<(u64, std::ops::Range<usize>)>,
    cells: Vec<(u32, u32)>,
}

impl TypeRuns {
    fn of(ops: &[CellOp]) -> Option<TypeRuns> {
        let mut tags: Vec<u64> = Vec::new();
        for op in ops {
            if !tags.contains(&op.tag) {
                tags.push(op.tag);
            }
        }
        let mut runs = Vec::with_capacity(tags.len());
        let mut cells = Vec::with_capacity(ops.len());
        for tag in tags {
            let first = cells.len();
            for (k, op) in ops.iter().enumerate() {
                if op.tag == tag {
                    cells.push((u32::try_from(k).ok()?, u32::try_from(op.at).ok()?));
                }
            }
            runs.push((tag, first..cells.len()));
        }
        Some(TypeRuns { runs, cells })
    }
}

/// The fewest cells in a row for [`fill_rows`] to write it a type at a
/// time. (Measured on the XC2 files: their message tables, of a few
/// columns, ran no faster grouped; the gimmick tables, of dozens, did.)
const GROUPED_FROM: usize = 12;

/// Writes every row's plain cells into `out` (`stride` bytes per row) at
/// the places `ops` gives, big-endian when `BIG`; the row and cell index
/// of the first cell (rows in order, cells in layout order) whose type is
/// not its column's. A function of its own, so that the loop is compiled
/// apart from its caller's code.
///
/// A long row whose types repeat is written a type at a time
/// ([`Cells::write_plain_run`]): a dispatch on each cell's type, in a row
/// of many columns of mixed types, is a jump the processor mispredicts
/// again and again, where one per type and row repeats a short pattern.
#[inline(never)]
fn fill_rows<C: Cells<V>, const V: usize, const BIG: bool>(
    rows: &Rows<C>,
    out: &mut [u8],
    stride: usize,
    ops: &[CellOp],
) -> Result<(), (usize, usize)> {
    let e = if BIG {
        crate::base::Endian::Big
    } else {
        crate::base::Endian::Little
    };
    let first_bad = |row: &[C], row_out: &mut [u8]| {
        row.iter()
            .zip(ops)
            .position(|(c, op)| !c.write_plain(op.tag, &mut row_out[op.at..], e))
    };
    // Grouping pays in long rows whose types repeat; a short row repeats a
    // short pattern of jumps, which the processor predicts.
    let grouped = if ops.len() >= GROUPED_FROM {
        TypeRuns::of(ops).filter(|t| t.runs.len() * 2 <= ops.len())
    } else {
        None
    };
    let Some(by_type) = grouped else {
        for (i, (row, row_out)) in rows.iter().zip(out.chunks_exact_mut(stride)).enumerate() {
            for (k, (c, op)) in row.iter().zip(ops).enumerate() {
                if !c.write_plain(op.tag, &mut row_out[op.at..], e) {
                    return Err((i, k));
                }
            }
        }
        return Ok(());
    };
    for (i, (row, row_out)) in rows.iter().zip(out.chunks_exact_mut(stride)).enumerate() {
        for (tag, run) in &by_type.runs {
            if !C::write_plain_run(*tag, row, &by_type.cells[run.clone()], row_out, e) {
                return Err((i, first_bad(row, row_out).unwrap_or(0)));
            }
        }
    }
    Ok(())
}

/// Places the cells' targets that belong to section `sec`, rows in order,
/// cells in layout order; the rows start at `start`, each `stride` bytes.
pub fn place_rows<C: Cells<V>, const V: usize>(
    w: &mut Writer,
    rows: &Rows<C>,
    sec: usize,
    start: u64,
    stride: u64,
) -> EncodeResult<()> {
    if !C::places_in(sec) {
        return Ok(());
    }
    // Only the columns whose cells can place here: (first cell, slot).
    let mut active = Vec::new();
    let mut first = 0usize;
    for s in w.cells() {
        if C::tag_places_in(s.tag, sec) {
            active.push((first, *s));
        }
        first += s.count as usize;
    }
    if active.is_empty() {
        return Ok(());
    }
    let strings = StringPlacer {
        strings: &rows.strings,
        distinct: rows.strings.is_distinct(),
        nul_free: rows.strings.is_nul_free(),
    };
    let mut placed = vec![UNPLACED; rows.strings.len()];
    for (i, row) in rows.iter().enumerate() {
        let row_pos = start + i as u64 * stride;
        for &(first, s) in &active {
            for k in 0..s.count {
                let Some(c) = row.get(first + k as usize) else {
                    break;
                };
                c.place_cell(
                    w,
                    sec,
                    row_pos + s.offset + k * s.size,
                    &strings,
                    &mut placed,
                )?;
            }
        }
    }
    Ok(())
}

/// The row length for cells ending at `end`, rounded to `align`.
pub fn stride_for(end: u64, align: u64) -> u64 {
    align_up(end, align)
}

#[cfg(test)]
mod column_tests {
    use super::*;

    fn slot(tag: u64, count: u64, offset: u64) -> CellSlot {
        CellSlot {
            tag,
            count,
            offset,
            size: 0,
            tag_pos: 0x40 + offset,
        }
    }

    /// Tag 1 is a byte, tag 2 a word; nothing else is known.
    fn cell_size(tag: u64) -> Option<u64> {
        match tag {
            1 => Some(1),
            2 => Some(4),
            _ => None,
        }
    }

    /// Cells are grouped by type in order of the types' first use, each
    /// group in layout order, with the place of each cell in the row.
    #[test]
    fn a_rows_cells_are_grouped_by_type_in_layout_order() {
        let op = |tag, at| CellOp {
            at,
            tag,
            plain: true,
        };
        let ops = [op(2, 0), op(1, 4), op(2, 6), op(3, 8), op(1, 12)];
        let by_type = TypeRuns::of(&ops).unwrap();
        assert_eq!(by_type.runs, [(2, 0..2), (1, 2..4), (3, 4..5)]);
        assert_eq!(by_type.cells, [(0, 0), (2, 6), (1, 4), (4, 12), (3, 8)]);
        // A place beyond 32 bits is refused, not cut.
        assert!(TypeRuns::of(&[op(1, 1 << 33)]).is_none());
    }

    #[test]
    fn columns_get_their_sizes_and_the_rows_cells_end() {
        let mut slots = [slot(2, 1, 0), slot(1, 3, 4)];
        let sized = size_columns(&mut slots, 8, "Cell", cell_size).unwrap();
        assert_eq!(
            sized,
            SizedColumns {
                per_row: 4,
                cells_end: 7
            }
        );
        assert_eq!((slots[0].size, slots[1].size), (4, 1));
    }

    #[test]
    fn a_column_past_the_row_or_of_an_unknown_type_is_named() {
        let mut slots = [slot(2, 1, 0), slot(2, 2, 4)];
        let e = size_columns(&mut slots, 8, "Cell", cell_size).unwrap_err();
        assert_eq!(e.offset(), 0x44);
        assert!(
            e.to_string().contains(
                "column 1: 2 cell(s) of 4 byte(s) at offset 4 do not fit in rows of 8 byte(s)"
            ),
            "{e}"
        );
        // A count that overflows is the same error, not a panic.
        let mut slots = [slot(2, u64::MAX, 0)];
        assert!(size_columns(&mut slots, 8, "Cell", cell_size).is_err());
        let mut slots = [slot(1, 1, 0), slot(9, 1, 1)];
        let e = size_columns(&mut slots, 8, "Cell", cell_size).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::UnknownTag { union, tag: 9 } if union == "Cell"
            ),
            "{e}"
        );
        assert_eq!(e.segments(), [PathSeg::Index(1)]);
    }
}
