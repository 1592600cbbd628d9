//! Zero-copy views: borrowed, read-only access to a file's records in place.
//!
//! The generated `view` module of a schema holds one `FooView<'s>` per
//! struct and union. Opening a file checks its root record only; each
//! accessor reads its field where it lies, and following an offset checks
//! the target the way decode does ([`checked`]):
//! the same bounds, the same located errors. Lists are [`ListView`]s, read
//! element by element as they are iterated, without allocation.
//!
//! Guards. A view can be followed again and again, so cycles cannot be
//! refused by remembering the records being read, as decode does. Instead,
//! every offset followed is charged to the read budget of the
//! [`ViewSource`] (the decoder's: [`Limits::read_factor`] times the file's
//! size), and every view knows how many offsets lie between it and the root
//! ([`Limits::max_depth`]). A cyclic file or a hostile fan-out runs out of
//! budget with an error; it cannot make a visitor hang.
//!
//! Units. A record laid out on its own (a unit), whose bytes may need a
//! transform before they can be read (legacy BDAT's scrambled tables), is
//! read from a source of its own ([`ViewSource::unit`]): its bytes after
//! the transform, borrowed from the file when the transform leaves them as
//! they are. Offsets inside count from the unit's start; every error a view
//! makes passes through [`ViewCx::loc`], which moves its offset into the
//! file, so a unit's errors name the same bytes as decode's.

use crate::base::Endian;
use crate::base::{checked, field};
use crate::error::{DecodeError, DecodeResult, ErrorKind};
use crate::reader::{Limits, Reader};
use std::cell::Cell;
use std::marker::PhantomData;

mod rows;
mod table;
mod tagged;

pub use rows::{RowView, RowsIter, RowsView, ViewCell};
pub use table::{TableIter, TableView};
pub use tagged::{HeldListIter, HeldListView, HeldTag, SwitchListIter, SwitchListView, ViewUnion};

/// The bytes the views of one file read, and the budget they share.
pub struct ViewSource<'a> {
    data: &'a [u8],
    endian: Endian,
    limits: Limits,
    budget: Cell<u64>,
    budget_limit: u64,
    /// Where each section starts, for offsets counted from one
    /// (`base: Section`): set when the file is opened.
    sections: [Cell<u64>; MAX_VIEW_SECTIONS],
    /// Where each interned string table lies (`derive: Interned`), for
    /// the indices into it: set when the file is opened.
    tables: [Cell<Option<table::TableAt>>; MAX_VIEW_TABLES],
    /// Where `data` starts in the file: 0 for a file's own bytes; a
    /// unit's start for the bytes of a unit read on their own (after its
    /// transform), so that errors name offsets in the file.
    origin: u64,
}

/// The most interned string tables a schema with views may have.
pub const MAX_VIEW_TABLES: usize = 8;

/// The most sections a schema with views may count offsets from.
pub const MAX_VIEW_SECTIONS: usize = 32;

/// A section start not known yet: outside every file, so an offset
/// counted from it is refused (as decode refuses it).
const UNKNOWN: u64 = u64::MAX;

impl<'a> ViewSource<'a> {
    pub fn new(data: &'a [u8], endian: Endian, limits: Limits) -> Self {
        let budget_limit = limits.budget(data.len());
        ViewSource {
            data,
            endian,
            limits,
            budget: Cell::new(budget_limit),
            budget_limit,
            sections: std::array::from_fn(|_| Cell::new(UNKNOWN)),
            tables: std::array::from_fn(|_| Cell::new(None)),
            origin: 0,
        }
    }

    /// The source of a unit's bytes (`data`, after the unit's transform),
    /// which start at `origin` in the file: offsets inside read from
    /// `data`, errors name offsets in the file. The endian and limits are
    /// the file's.
    pub fn unit(data: &'a [u8], endian: Endian, limits: Limits, origin: u64) -> Self {
        ViewSource {
            origin,
            ..ViewSource::new(data, endian, limits)
        }
    }

    /// Where the source's bytes start in the file (0 but for a unit's).
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// `e`, its offset moved from the source's bytes into the file.
    #[cold]
    #[inline(never)]
    fn locate(&self, e: DecodeError) -> DecodeError {
        e.shifted(self.origin)
    }

    /// The context of the root record's view.
    pub fn cx(&self) -> ViewCx<'_> {
        ViewCx {
            src: self,
            depth: 0,
        }
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// What is left of the read budget.
    pub fn budget_left(&self) -> u64 {
        self.budget.get()
    }
}

impl std::fmt::Debug for ViewSource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewSource")
            .field("len", &self.data.len())
            .field("endian", &self.endian)
            .field("budget_left", &self.budget.get())
            .finish()
    }
}

/// What every view carries: the source and its depth below the root.
#[derive(Clone, Copy)]
pub struct ViewCx<'s> {
    src: &'s ViewSource<'s>,
    depth: u32,
}

impl std::fmt::Debug for ViewCx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewCx")
            .field("depth", &self.depth)
            .finish()
    }
}

impl<'s> ViewCx<'s> {
    #[inline]
    pub fn endian(&self) -> Endian {
        self.src.endian
    }

    #[inline]
    pub fn data(&self) -> &'s [u8] {
        self.src.data
    }

    /// How many offsets were followed from the root to this view.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The source of a unit's bytes (`bytes`, after its transform), the
    /// unit lying at `at` in this source: the same byte order and limits,
    /// and errors that name offsets in the file.
    pub fn unit_source<'b>(&self, bytes: &'b [u8], at: u64) -> ViewSource<'b> {
        ViewSource::unit(
            bytes,
            self.src.endian,
            self.src.limits,
            self.src.origin + at,
        )
    }

    /// A decoder over the same bytes and limits, for turning a view into
    /// the owned value (the generated `to_owned` calls `decode_at`).
    ///
    /// A record decoded on its own needs what the file's opening found:
    /// the section starts its offsets count from, and the interned string
    /// tables its indices name (read here as decode reads them, so a bad
    /// table gives decode's error).
    pub fn reader(&self) -> DecodeResult<Reader<'s>> {
        self.loc(self.reader_here())
    }

    fn reader_here(&self) -> DecodeResult<Reader<'s>> {
        let mut r = Reader::with_limits(self.src.data, self.src.endian, self.src.limits);
        for (id, start) in self.src.sections.iter().enumerate() {
            if start.get() != UNKNOWN {
                r.set_section_start(id, start.get());
            }
        }
        for (id, t) in self.src.tables.iter().enumerate() {
            if let Some(t) = t.get() {
                let (strings, _) =
                    crate::interned::read_table(&mut r, t.record, t.at, t.count, t.width)?;
                r.set_table(id, strings);
            }
        }
        Ok(r)
    }

    /// The `len` bytes of a record at `at`, checked to lie in the file.
    #[inline]
    pub fn record(&self, at: u64, len: u64) -> DecodeResult<&'s [u8]> {
        self.loc(checked::bytes(self.src.data, at, len))
    }

    /// `r`, its error's offset moved into the file: the generated views
    /// and the runtime's pass every error they make through this, so a
    /// unit's views (see [`ViewSource::unit`]) name offsets in the file.
    #[inline(always)]
    pub fn loc<T>(&self, r: DecodeResult<T>) -> DecodeResult<T> {
        match r {
            Ok(v) => Ok(v),
            Err(e) => Err(self.locate(e)),
        }
    }

    /// `e`, its offset moved into the file (see [`ViewCx::loc`]).
    #[inline]
    pub fn locate(&self, e: DecodeError) -> DecodeError {
        self.src.locate(e)
    }

    /// Where the source's bytes start in the file (see [`ViewSource::unit`]).
    #[inline]
    pub fn origin(&self) -> u64 {
        self.src.origin
    }

    /// The source this view reads.
    pub fn source(&self) -> &'s ViewSource<'s> {
        self.src
    }

    /// Follows an offset read at `field_pos`: resolves the target, checks
    /// that it lies in the file and charges `bytes` (what will be read
    /// there) to the budget. Returns the context one level deeper.
    #[inline]
    pub fn follow(
        &self,
        field_pos: u64,
        base: u64,
        raw: u64,
        scale: u64,
        bytes: u64,
    ) -> DecodeResult<(ViewCx<'s>, u64)> {
        let followed = crate::base::run_inline(
            #[inline(always)]
            || {
                let t = checked::target(self.src.data, field_pos, base, raw, scale)?;
                checked::depth(self.depth, self.src.limits.max_depth, field_pos)?;
                self.charge_here(field_pos, bytes.max(1))?;
                Ok(t)
            },
        );
        let t = self.loc(followed)?;
        Ok((
            ViewCx {
                src: self.src,
                depth: self.depth + 1,
            },
            t,
        ))
    }

    /// Charges `n` bytes to the budget (values read through offsets).
    #[inline]
    pub fn charge(&self, field_pos: u64, n: u64) -> DecodeResult<()> {
        self.loc(self.charge_here(field_pos, n))
    }

    #[inline(always)]
    pub(crate) fn charge_here(&self, field_pos: u64, n: u64) -> DecodeResult<()> {
        let left = self.src.budget.get();
        let left = checked::spend(left, n, self.src.budget_limit, field_pos)?;
        self.src.budget.set(left);
        Ok(())
    }

    /// `count` elements of `T` from `at`, checked to fit in the file; an
    /// error names `field_pos`, where the count or offset was read.
    #[inline]
    pub fn list<T: ViewElem<'s>>(
        &self,
        field_pos: u64,
        at: u64,
        count: u64,
    ) -> DecodeResult<ListView<'s, T>> {
        let bytes = crate::base::run_inline(
            #[inline(always)]
            || {
                checked::count(self.src.data, field_pos, at, count, T::SIZE)?;
                let len = count * T::SIZE;
                self.charge_here(field_pos, len)?;
                checked::bytes(self.src.data, at, len)
            },
        );
        let bytes = self.loc(bytes)?;
        Ok(ListView {
            cx: *self,
            at,
            bytes,
            _elem: PhantomData,
        })
    }

    /// An unsigned count of `width` bytes stored just before `t` (a list
    /// whose count sits before its first element).
    #[inline]
    pub fn count_before(&self, field_pos: u64, t: u64, width: u64) -> DecodeResult<u64> {
        let read = checked::count_before(self.src.data, field_pos, t, width, self.src.endian);
        self.loc(read.map(|(n, _)| n))
    }

    /// An unsigned integer of `width` (1, 2, 3, 4 or 8) bytes at `pos`.
    #[inline]
    pub fn uint(&self, pos: u64, width: u64) -> DecodeResult<u64> {
        self.loc(checked::uint(self.src.data, pos, width, self.src.endian))
    }

    /// A string of UTF-8 bytes stored as its length (`width` bytes) then
    /// its bytes, and a NUL after them when `nul` (a NintendoWare pool's
    /// entry); the same checks and errors as decode's
    /// (`Reader::prefixed_string_at`), its UTF-8 checked when it is asked
    /// for as text.
    #[inline]
    pub fn pstr(&self, pos: u64, width: u64, nul: bool) -> DecodeResult<ViewStr<'s>> {
        let data = self.src.data;
        let len = self.uint(pos, width)?;
        let at = pos + width;
        let bytes = self.loc(checked::bytes(data, at, len))?;
        if nul {
            let mark = self.loc(checked::bytes(data, at + len, 1))?;
            if mark[0] != 0 {
                return self.loc(Err(crate::error::DecodeError::new(
                    at + len,
                    crate::error::ErrorKind::Invalid(format!(
                        "the string of {len} bytes is not followed by its NUL (found {mark:02x?})"
                    )),
                )));
            }
        }
        Ok(ViewStr {
            bytes,
            at: self.src.origin + at,
        })
    }

    /// A NUL-terminated string at `pos`; `max` bounds it, NUL included.
    /// Its UTF-8 is checked when it is asked for as text
    /// ([`ViewStr::to_str`]), not when it is found.
    #[inline]
    pub fn str(&self, pos: u64, max: Option<u64>) -> DecodeResult<ViewStr<'s>> {
        let bytes = self.cstr(pos, max)?;
        Ok(ViewStr {
            bytes,
            at: self.src.origin + pos,
        })
    }

    /// The bytes of a NUL-terminated string at `pos` (without the NUL);
    /// `max` bounds it, NUL included. The same checks and errors as
    /// decode's, with a search suited to short strings.
    #[inline]
    pub fn cstr(&self, pos: u64, max: Option<u64>) -> DecodeResult<&'s [u8]> {
        let data = self.src.data;
        let rest = data
            .get(pos as usize..)
            .filter(|_| pos <= data.len() as u64);
        let Some(rest) = rest else {
            return self.loc(checked::cstr(data, pos, max));
        };
        let window = match max {
            Some(c) => rest.get(..c as usize).unwrap_or(rest),
            None => rest,
        };
        match find_nul(window) {
            Some(n) => Ok(&window[..n]),
            None => self.loc(checked::cstr(data, pos, max)),
        }
    }

    /// The string at offset `raw` (read at `field_pos`) of the string pool
    /// whose start the file's opening noted as section `id` (`Str`), as
    /// decode reads it: an offset just past the file is an empty string;
    /// a missing NUL is reported at `field_pos`.
    #[inline]
    pub fn pool_str(&self, id: usize, field_pos: u64, raw: u64) -> DecodeResult<ViewStr<'s>> {
        let base = Some(self.section_start(id)).filter(|&b| b != UNKNOWN);
        let data = self.src.data;
        let target = checked::pool_target(base, raw, data.len() as u64, field_pos);
        match self.loc(target)? {
            None => Ok(ViewStr {
                bytes: &[],
                at: self.src.origin + data.len() as u64,
            }),
            Some(pos) => {
                let bytes = match checked::cstr(data, pos, None) {
                    Ok(b) => b,
                    Err(e) => {
                        return Err(self.locate(DecodeError::new(field_pos, e.kind().clone())))
                    }
                };
                self.charge(pos, bytes.len() as u64 + 1)?;
                Ok(ViewStr {
                    bytes,
                    at: self.src.origin + pos,
                })
            }
        }
    }

    /// A value of `T` at `pos`, checked to lie in the file.
    #[inline]
    pub fn read<T: ViewElem<'s>>(&self, pos: u64) -> DecodeResult<T> {
        let bytes = self.record(pos, T::SIZE)?;
        T::from_bytes(*self, pos, bytes).ok_or_else(|| {
            self.locate(DecodeError::new(
                pos,
                ErrorKind::Invalid("the record cannot be viewed".into()),
            ))
        })
    }

    /// A bool stored as an integer: 0 or 1, anything else is an error.
    #[inline]
    pub fn bool_from(&self, pos: u64, v: u64) -> DecodeResult<bool> {
        self.loc(checked::bool(pos, v))
    }

    /// Where section `id` starts: set when the file is opened; until then
    /// u64::MAX, outside every file, so an offset counted from it is
    /// refused.
    #[inline]
    pub fn section_start(&self, id: usize) -> u64 {
        self.src.sections.get(id).map_or(UNKNOWN, Cell::get)
    }

    /// Sets where section `id` starts: the root's view does, when the file
    /// is opened (a stored section start, or the end of the root record).
    pub fn set_section_start(&self, id: usize, start: u64) {
        if let Some(c) = self.src.sections.get(id) {
            c.set(start);
        }
    }

    /// Where an offset read at `field_pos` leads (`checked::target`), without
    /// following it: what opening a file notes of a pool's offset.
    #[inline]
    pub fn target(&self, field_pos: u64, base: u64, raw: u64, scale: u64) -> DecodeResult<u64> {
        self.loc(checked::target(self.src.data, field_pos, base, raw, scale))
    }

    /// Where the first section starts after the root record at `pos` (see
    /// [`crate::placement::first_section_start`]).
    pub fn first_section_start(
        &self,
        pos: u64,
        parts: &[crate::placement::RootPart],
        align: u64,
    ) -> u64 {
        crate::placement::first_section_start(pos, parts, align, |at, w| {
            self.uint(at, w.bytes()).ok()
        })
    }

    /// The number of `elem`-byte elements from `t` up to an end stored as
    /// an offset (`raw`, read at `end_pos`, counted like the start's): what
    /// decode reads for a list counted by `End`.
    #[inline]
    pub fn count_to_end(
        &self,
        end_pos: u64,
        base: u64,
        raw: u64,
        scale: u64,
        t: u64,
        elem: u64,
    ) -> DecodeResult<u64> {
        self.loc(checked::count_to_end(
            self.src.data,
            end_pos,
            base,
            raw,
            scale,
            t,
            elem,
        ))
    }
}

/// A NUL-terminated string in place: its bytes (without the NUL), found
/// and bounded when the view was made. Comparing it with text or reading
/// its bytes needs no UTF-8 check; [`ViewStr::to_str`] makes that check,
/// with decode's error (the offset of the first bad byte).
///
/// Two strings are equal when their bytes are, wherever they lie.
#[derive(Clone, Copy)]
pub struct ViewStr<'s> {
    bytes: &'s [u8],
    at: u64,
}

impl PartialEq for ViewStr<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for ViewStr<'_> {}

impl std::hash::Hash for ViewStr<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.bytes.hash(state);
    }
}

impl<'s> ViewStr<'s> {
    /// The string as text, or decode's error where its UTF-8 breaks.
    #[inline]
    pub fn to_str(&self) -> DecodeResult<&'s str> {
        checked::utf8(self.bytes, self.at)
    }

    /// The bytes before the NUL.
    #[inline]
    pub fn as_bytes(&self) -> &'s [u8] {
        self.bytes
    }

    /// Where the string starts in the file.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// Length in bytes, without the NUL.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl PartialEq<str> for ViewStr<'_> {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for ViewStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl std::fmt::Debug for ViewStr<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&String::from_utf8_lossy(self.bytes), f)
    }
}

impl std::fmt::Display for ViewStr<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&String::from_utf8_lossy(self.bytes), f)
    }
}

/// The first NUL byte of `bytes`: eight bytes at a time (a zero byte is
/// found by the carry trick), the long tail by `memchr`. Strings in
/// parameter files are mostly short, where `memchr`'s setup dominates.
#[inline]
fn find_nul(bytes: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let head = bytes.len().min(64);
    let mut chunks = bytes[..head].chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let zero = w.wrapping_sub(LOW) & !w & HIGH;
        if zero != 0 {
            return Some(base + (zero.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    if let Some(i) = chunks.remainder().iter().position(|&b| b == 0) {
        return Some(base + i);
    }
    memchr::memchr(0, &bytes[head..]).map(|i| head + i)
}

/// What a [`ListView`] holds: a value of fixed size read from its bytes
/// (numbers, and the views of fixed-size records).
pub trait ViewElem<'s>: Sized {
    /// Bytes per element.
    const SIZE: u64;
    /// The element whose `SIZE` bytes are `bytes`, at `at` in the file.
    /// `None` only if `bytes` is shorter than `SIZE`, which a list never
    /// gives.
    fn from_bytes(cx: ViewCx<'s>, at: u64, bytes: &'s [u8]) -> Option<Self>;
}

macro_rules! number_elem {
    ($t:ty, $n:expr, $read:ident) => {
        impl<'s> ViewElem<'s> for $t {
            const SIZE: u64 = $n;
            #[inline(always)]
            fn from_bytes(cx: ViewCx<'s>, _at: u64, bytes: &'s [u8]) -> Option<Self> {
                Some(field::$read(bytes.get(..$n)?, cx.endian()))
            }
        }
    };
}

number_elem!(u8, 1, u8);
number_elem!(i8, 1, i8);
number_elem!(u16, 2, u16);
number_elem!(i16, 2, i16);
number_elem!(u32, 4, u32);
number_elem!(i32, 4, i32);
number_elem!(u64, 8, u64);
number_elem!(i64, 8, i64);
number_elem!(f32, 4, f32);
number_elem!(f64, 8, f64);

/// Elements of fixed size back to back, read as they are asked for.
pub struct ListView<'s, T> {
    cx: ViewCx<'s>,
    at: u64,
    bytes: &'s [u8],
    _elem: PhantomData<fn() -> T>,
}

impl<T> Clone for ListView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ListView<'_, T> {}

impl<'s, T: ViewElem<'s>> ListView<'s, T> {
    /// The elements in `bytes`, which start at `at` in the file (bytes
    /// already checked, such as an array inside a record's own bytes).
    #[inline]
    pub fn new(cx: ViewCx<'s>, at: u64, bytes: &'s [u8]) -> Self {
        ListView {
            cx,
            at,
            bytes,
            _elem: PhantomData,
        }
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        (self.bytes.len() as u64 / T::SIZE.max(1)) as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Where the first element lies in the file.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// The elements' bytes.
    pub fn bytes(&self) -> &'s [u8] {
        self.bytes
    }

    /// Element `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let size = T::SIZE as usize;
        let start = i.checked_mul(size)?;
        let bytes = self.bytes.get(start..start.checked_add(size)?)?;
        T::from_bytes(self.cx, self.at + start as u64, bytes)
    }

    #[inline]
    pub fn iter(&self) -> ListIter<'s, T> {
        ListIter {
            cx: self.cx,
            at: self.at,
            chunks: self.bytes.chunks_exact(T::SIZE.max(1) as usize),
            _elem: PhantomData,
        }
    }

    /// The elements as an owned `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }
}

impl<'s, T: ViewElem<'s>> IntoIterator for ListView<'s, T> {
    type Item = T;
    type IntoIter = ListIter<'s, T>;
    fn into_iter(self) -> ListIter<'s, T> {
        self.iter()
    }
}

impl<'s, T: ViewElem<'s> + std::fmt::Debug> std::fmt::Debug for ListView<'s, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The iterator of a [`ListView`].
#[derive(Debug)]
pub struct ListIter<'s, T> {
    cx: ViewCx<'s>,
    at: u64,
    chunks: std::slice::ChunksExact<'s, u8>,
    _elem: PhantomData<fn() -> T>,
}

impl<'s, T: ViewElem<'s>> Iterator for ListIter<'s, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let bytes = self.chunks.next()?;
        let at = self.at;
        self.at += T::SIZE;
        T::from_bytes(self.cx, at, bytes)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<'s, T: ViewElem<'s>> ExactSizeIterator for ListIter<'s, T> {}

/// Reading the fields of a record already checked to lie in the file: the
/// generated accessors call these with the record's bytes and the field's
/// constant offset. The record's length was checked when its view was
/// made, so the fallback value is never read.
pub mod at {
    use crate::base::field;
    use crate::base::Endian;

    macro_rules! at {
        ($name:ident, $t:ty, $n:expr) => {
            #[inline(always)]
            pub fn $name(rec: &[u8], off: usize, e: Endian) -> $t {
                match rec.get(off..off + $n) {
                    Some(b) => field::$name(b, e),
                    None => <$t>::default(),
                }
            }
        };
    }

    at!(u8, u8, 1);
    at!(i8, i8, 1);
    at!(u16, u16, 2);
    at!(i16, i16, 2);
    at!(u24, u32, 3);
    at!(u32, u32, 4);
    at!(i32, i32, 4);
    at!(u64, u64, 8);
    at!(i64, i64, 8);
    at!(f32, f32, 4);
    at!(f64, f64, 8);

    /// `len` bytes of the record from `off`.
    #[inline(always)]
    pub fn bytes(rec: &[u8], off: usize, len: usize) -> &[u8] {
        rec.get(off..off + len).unwrap_or_default()
    }

    /// The record's bytes from `off` (an inline record's).
    #[inline(always)]
    pub fn rest(rec: &[u8], off: usize) -> &[u8] {
        rec.get(off..).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_checked_once_and_read_in_place() {
        let data = [1u8, 0, 2, 0, 3, 0];
        let src = ViewSource::new(&data, Endian::Little, Limits::default());
        let list: ListView<u16> = src.cx().list(0, 0, 3).unwrap();
        assert_eq!(list.to_vec(), [1, 2, 3]);
        assert_eq!(list.get(2), Some(3));
        assert_eq!(list.get(3), None);
        let err = src.cx().list::<u16>(0, 2, 3).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::CountTooLarge { count: 3, .. }
        ));
        let err = src.cx().list::<u32>(0, 0, u64::MAX).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::CountTooLarge { .. }));
    }

    #[test]
    fn following_in_a_cycle_runs_out_of_budget_or_depth() {
        // An offset to itself: each follow is charged, so a visitor that
        // keeps following ends with an error, not a hang.
        let data = [0u8; 16];
        let limits = Limits {
            max_depth: 1000,
            read_factor: 4,
            min_budget: 0,
        };
        let src = ViewSource::new(&data, Endian::Little, limits);
        let mut cx = src.cx();
        let mut steps = 0;
        let err = loop {
            match cx.follow(0, 0, 0, 1, 16) {
                Ok((next, _)) => cx = next,
                Err(e) => break e,
            }
            steps += 1;
        };
        assert_eq!(steps, 4);
        assert_eq!(err.kind(), &ErrorKind::BudgetExhausted { limit: 64 });

        let limits = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let src = ViewSource::new(&data, Endian::Little, limits);
        let mut cx = src.cx();
        for _ in 0..3 {
            cx = cx.follow(0, 0, 0, 1, 1).unwrap().0;
        }
        let err = cx.follow(4, 0, 0, 1, 1).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::TooDeep { limit: 3 });
        assert_eq!(err.offset(), 4);
    }

    #[test]
    fn strings_are_equal_by_their_bytes_wherever_they_lie() {
        let data = b"ab\0ab\0ac\0";
        let src = ViewSource::new(data, Endian::Little, Limits::default());
        let (a, b, c) = (
            src.cx().str(0, None).unwrap(),
            src.cx().str(3, None).unwrap(),
            src.cx().str(6, None).unwrap(),
        );
        assert_eq!(a, b);
        assert_ne!(a.at(), b.at());
        assert_ne!(a, c);
        assert_eq!(a, "ab");
    }

    #[test]
    fn the_nul_search_agrees_with_memchr() {
        let mut bytes = vec![b'a'; 200];
        for len in 0..200 {
            for nul in [0, 1, 7, 8, 9, 63, 64, 65, 100, 199] {
                let mut b = bytes[..len].to_vec();
                if nul < len {
                    b[nul] = 0;
                }
                // A byte 0x80 before the NUL must not look like one.
                if len > 3 {
                    b[len / 2 % len.max(1)] = if b[len / 2] == 0 { 0 } else { 0x80 };
                }
                assert_eq!(find_nul(&b), memchr::memchr(0, &b), "len {len} nul {nul}");
            }
        }
        bytes[150] = 0;
        assert_eq!(find_nul(&bytes), Some(150));
    }

    #[test]
    fn an_offset_outside_the_file_is_the_decoders_error() {
        let data = [0u8; 8];
        let src = ViewSource::new(&data, Endian::Little, Limits::default());
        let view_err = src.cx().follow(4, 0, 3, 4, 1).map(|_| ()).unwrap_err();
        let reader_err = Reader::new(&data, Endian::Little)
            .target(4, 0, 3, 4)
            .unwrap_err();
        assert_eq!(view_err.kind(), reader_err.kind());
        assert_eq!(view_err.offset(), reader_err.offset());
    }
}
