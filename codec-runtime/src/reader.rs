//! A bounds-checked reader over a byte slice. Reads are unaligned and take an
//! explicit position, so an error always knows its offset and nothing seeks.

use crate::error::{DecodeError, DecodeResult, ErrorKind};
use std::cell::Cell;

/// Byte order, rounding and the bounds checks on bytes live in the base
/// module; they stay reachable here, where readers of the API look.
pub use crate::base::{align_up, checked, field, Endian};

/// Default limits; see [`Limits`].
pub const DEFAULT_MAX_DEPTH: u32 = 256;

/// Bounds that keep a hostile file from making the decoder hang or allocate
/// far beyond the file's size.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How deeply offsets may nest.
    pub max_depth: u32,
    /// How many bytes the decoder may read through offsets, in multiples of
    /// the input length. A value shared by many offsets is read (and owned)
    /// once per offset, so this bounds the amplification a file can cause.
    pub read_factor: u64,
    /// A floor for that budget, so that tiny files may still share values.
    /// Kept small: a record read is charged its size in the file, but its
    /// decoded form takes several times that in memory.
    pub min_budget: u64,
}

impl Limits {
    /// The read budget for an input of `len` bytes: `read_factor` times its
    /// length, and at least `min_budget`.
    pub fn budget(&self, len: usize) -> u64 {
        (len as u64)
            .saturating_mul(self.read_factor)
            .max(self.min_budget)
    }
}

impl Default for Limits {
    /// The read budget is 256 times the input. No file of the corpora
    /// (AAMP, AINB, legacy BDAT: 314 files) needs more than 2 (measured by
    /// decoding them all with smaller factors), but a document whose values
    /// are shared by many parameters legitimately needs more, and what the
    /// encoder writes must decode (`tests/tests/aamp_props.rs`: 100 × one
    /// 20 KB string needs about 100). A hostile file can then make the
    /// decoder allocate at most about 6 × 256 bytes per input byte
    /// (`tests/tests/bounded_alloc.rs`).
    fn default() -> Self {
        Limits {
            max_depth: DEFAULT_MAX_DEPTH,
            read_factor: 256,
            min_budget: 64 << 10,
        }
    }
}

/// The decoding context the generated code threads through: the bytes, the
/// byte order, and the guards against cycles, depth and amplification.
#[derive(Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    endian: Endian,
    /// Byte ranges of the offset targets currently being followed, outermost first.
    active: Vec<Active>,
    max_depth: u32,
    budget: u64,
    budget_limit: u64,
    limits: Limits,
    /// What the unit being decoded remembers (see `scope.rs`).
    pub(crate) scope: crate::memory::scope::ReadScope,
    /// Pools, offset targets and context (see `layout.rs`).
    pub(crate) layout: crate::memory::layout::ReadLayout,
    /// Interned string tables read so far (see `interned.rs`).
    pub(crate) tables: crate::memory::interned::ReadTables,
    /// Records of shared sections met so far (see `shared.rs`).
    pub(crate) shared: crate::memory::shared::ReadShared,
    /// Tags that holders read for their elements (see `held.rs`).
    pub(crate) held: crate::memory::held::HeldTags,
    /// The input buffer `data` lies in, and where in it `data` starts,
    /// when the caller shared it (`decode_shared`): blobs are ranges of it
    /// rather than copies (see `blob.rs`).
    shared_input: Option<(&'a crate::blob::SharedInput, usize)>,
}

thread_local! {
    /// The two buffers every decode grows, emptied, from the last reader
    /// dropped on this thread: the stack of ranges being followed and the
    /// bits of the shared records met. A small file (a 716-byte TotK
    /// document, a file of one blob) otherwise pays an allocation and a
    /// free for each, a fifth of its decode (issue 51).
    static KEPT: Cell<Option<(Vec<Active>, Vec<u64>)>> = const { Cell::new(None) };
}

/// The most words of shared-record bits a dropped reader leaves for the
/// next one (32 KiB: the bits of a 2 MiB file), so that one large file
/// does not pin its memory.
const KEEP_SEEN_WORDS: usize = 1 << 12;

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        let mut active = std::mem::take(&mut self.active);
        let mut seen = std::mem::take(&mut self.shared.seen);
        if seen.capacity() > KEEP_SEEN_WORDS {
            seen = Vec::new();
        }
        active.clear();
        seen.clear();
        let _ = KEPT.try_with(|k| k.set(Some((active, seen))));
    }
}

/// The error of a magic that does not match: out of line, so that the
/// check inlined where each record is read stays a compare and a branch.
#[cold]
#[inline(never)]
fn bad_magic(pos: u64, expected: &[u8], found: &[u8]) -> DecodeError {
    DecodeError::new(
        pos,
        ErrorKind::BadMagic {
            expected: expected.to_vec(),
            found: found.to_vec(),
        },
    )
}

macro_rules! read_int {
    ($name:ident, $t:ty, $n:expr) => {
        #[inline]
        pub fn $name(&self, pos: u64) -> DecodeResult<$t> {
            let b: [u8; $n] = self.array(pos)?;
            Ok(match self.endian {
                Endian::Little => <$t>::from_le_bytes(b),
                Endian::Big => <$t>::from_be_bytes(b),
            })
        }
    };
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Self::with_limits(data, endian, Limits::default())
    }

    pub fn with_limits(data: &'a [u8], endian: Endian, limits: Limits) -> Self {
        let budget_limit = limits.budget(data.len());
        let kept = KEPT.try_with(Cell::take).ok().flatten();
        // Every decode follows offsets: room for a few levels at once,
        // rather than growing from nothing on the first.
        let (active, seen) = kept.unwrap_or_else(|| (Vec::with_capacity(8), Vec::new()));
        Reader {
            data,
            endian,
            active,
            max_depth: limits.max_depth,
            budget: budget_limit,
            budget_limit,
            limits,
            scope: Default::default(),
            layout: Default::default(),
            tables: Default::default(),
            shared: crate::memory::shared::ReadShared {
                seen,
                ..Default::default()
            },
            held: Default::default(),
            shared_input: None,
        }
    }

    /// A reader of `input`, whose blobs are ranges of it rather than
    /// copies (see `blob.rs`).
    pub fn shared(input: &'a crate::blob::SharedInput, endian: Endian, limits: Limits) -> Self {
        let mut r = Self::with_limits(input, endian, limits);
        r.shared_input = Some((input, 0));
        r
    }

    /// `len` bytes at `pos` as a blob: a range of the shared input when
    /// the reader has one (no copy), else a copy. Out of line: a blob is
    /// rare and costs its copy or its count more than a call, and each
    /// union's payload read (BYML's hash entries) need not carry it.
    #[inline(never)]
    pub fn blob(&self, pos: u64, len: u64) -> DecodeResult<crate::blob::Blob> {
        let b = self.bytes(pos, len)?;
        let shared = self.shared_input.as_ref().and_then(|(input, base)| {
            crate::blob::Blob::shared(input, base + pos as usize, b.len())
        });
        Ok(shared.unwrap_or_else(|| crate::blob::Blob::from(b)))
    }

    /// The limits this reader was made with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// A reader for a unit's bytes, with this reader's byte order and
    /// limits. It spends this reader's read budget, and [`Reader::end_sub`]
    /// takes back what it left: a file's units share the file's budget.
    /// (A budget of their own, from the unit's size, would give every unit
    /// at least `min_budget`: a file of many small units could read far
    /// more than its size allows, and a unit re-encoded without the junk
    /// around it could get less than it had.)
    pub fn sub<'b>(&self, bytes: &'b [u8]) -> Reader<'b>
    where
        'a: 'b,
    {
        let mut sub = Reader::with_limits(bytes, self.endian(), self.limits());
        sub.budget = self.budget;
        sub.budget_limit = self.budget_limit;
        // A unit that lies in the shared input (not a decompressed copy)
        // shares it too.
        sub.shared_input = self.shared_input.as_ref().and_then(|(input, _)| {
            let from = (bytes.as_ptr() as usize).checked_sub(input.as_ptr() as usize)?;
            (from + bytes.len() <= input.len()).then_some((*input, from))
        });
        sub
    }

    /// Takes back the read budget a unit's reader (see [`Reader::sub`])
    /// left.
    pub fn end_sub(&mut self, sub: &Reader<'_>) {
        self.budget = sub.budget;
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    pub fn len(&self) -> u64 {
        self.data.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    pub fn set_endian(&mut self, endian: Endian) {
        self.endian = endian;
    }

    /// `len` bytes at `pos`, or an end-of-file error at `pos`.
    #[inline]
    pub fn bytes(&self, pos: u64, len: u64) -> DecodeResult<&'a [u8]> {
        checked::bytes(self.data, pos, len)
    }

    #[inline]
    pub fn array<const N: usize>(&self, pos: u64) -> DecodeResult<[u8; N]> {
        let s = self.bytes(pos, N as u64)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    #[inline]
    pub fn u8(&self, pos: u64) -> DecodeResult<u8> {
        match self.data.get(pos as usize) {
            Some(b) if pos <= usize::MAX as u64 => Ok(*b),
            _ => checked::bytes(self.data, pos, 1).map(|b| b[0]),
        }
    }

    #[inline]
    pub fn i8(&self, pos: u64) -> DecodeResult<i8> {
        Ok(self.u8(pos)? as i8)
    }

    read_int!(u16, u16, 2);
    read_int!(i16, i16, 2);
    read_int!(u32, u32, 4);
    read_int!(i32, i32, 4);
    read_int!(u64, u64, 8);
    read_int!(i64, i64, 8);

    /// An unsigned integer of `width` (1, 2, 3, 4 or 8) bytes at `pos`, in
    /// the reader's byte order: a stored number whose width the schema
    /// gives.
    #[inline]
    pub fn uint(&self, pos: u64, width: u64) -> DecodeResult<u64> {
        checked::uint(self.data, pos, width, self.endian)
    }

    /// The count of a list stored just before it (`Count::Before`): `width`
    /// bytes ending where the offset read at `field_pos` leads (`target`).
    /// Returns the count and where it was read.
    pub fn count_before(
        &self,
        field_pos: u64,
        target: u64,
        width: u64,
    ) -> DecodeResult<(u64, u64)> {
        checked::count_before(self.data, field_pos, target, width, self.endian)
    }

    /// The count of a list stored first at `target` (`Count::Prefix`):
    /// returns the count and where the elements start, after it.
    #[inline]
    pub fn count_prefix(&self, target: u64, width: u64) -> DecodeResult<(u64, u64)> {
        Ok((self.uint(target, width)?, target + width))
    }

    /// A 24-bit unsigned integer in the reader's byte order.
    #[inline]
    pub fn u24(&self, pos: u64) -> DecodeResult<u32> {
        let b: [u8; 3] = self.array(pos)?;
        Ok(match self.endian {
            Endian::Little => u32::from_le_bytes([b[0], b[1], b[2], 0]),
            Endian::Big => u32::from_be_bytes([0, b[0], b[1], b[2]]),
        })
    }

    #[inline]
    pub fn f32(&self, pos: u64) -> DecodeResult<f32> {
        Ok(f32::from_bits(self.u32(pos)?))
    }

    #[inline]
    pub fn f64(&self, pos: u64) -> DecodeResult<f64> {
        Ok(f64::from_bits(self.u64(pos)?))
    }

    /// Checks a file size read at `at` against the input's length: one
    /// that disagrees means a cut or padded file, which is said rather than
    /// decoded in part.
    pub fn check_file_size(&self, at: u64, declared: u64) -> DecodeResult<()> {
        if declared == self.len() {
            return Ok(());
        }
        Err(DecodeError::new(
            at,
            ErrorKind::Invalid(format!(
                "the header gives the file size as {declared} bytes, but the file has {}",
                self.len()
            )),
        ))
    }

    /// Checks magic bytes at `pos`.
    #[inline]
    pub fn magic(&self, pos: u64, expected: &[u8]) -> DecodeResult<()> {
        let found = self.bytes(pos, expected.len() as u64)?;
        // A one-byte magic (a record's kind byte, read once per record) is
        // compared without a call to `memcmp`.
        let same = match expected {
            [e] => found.first() == Some(e),
            _ => found == expected,
        };
        if same {
            Ok(())
        } else {
            Err(bad_magic(pos, expected, found))
        }
    }

    /// The bytes of a NUL-terminated string at `pos` (without the NUL). With a
    /// capacity, the NUL must lie within `capacity` bytes.
    pub fn cstr(&self, pos: u64, capacity: Option<u64>) -> DecodeResult<&'a [u8]> {
        checked::cstr(self.data, pos, capacity)
    }

    /// A NUL-terminated UTF-8 string.
    pub fn cstring(&self, pos: u64, capacity: Option<u64>) -> DecodeResult<String> {
        let bytes = self.cstr(pos, capacity)?;
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(DecodeError::new(
                pos + e.valid_up_to() as u64,
                ErrorKind::InvalidUtf8,
            )),
        }
    }

    /// A NUL-terminated UTF-8 string at `pos`, charged to the read budget;
    /// returns it and the position after its NUL (aligned up to `pad`).
    pub fn cstring_at(
        &mut self,
        pos: u64,
        max: Option<u64>,
        pad: Option<u64>,
    ) -> DecodeResult<(crate::base::Str, u64)> {
        let bytes = self.cstr(pos, max)?;
        self.charge(pos, bytes.len() as u64 + 1)?;
        let s = match std::str::from_utf8(bytes) {
            Ok(s) => crate::base::Str::new(s),
            Err(e) => {
                return Err(DecodeError::new(
                    pos + e.valid_up_to() as u64,
                    ErrorKind::InvalidUtf8,
                ))
            }
        };
        let mut end = pos + bytes.len() as u64 + 1;
        if let Some(a) = pad {
            end = align_up(end, a);
        }
        Ok((s, end))
    }

    /// Charges `n` bytes to the read budget (values read through offsets).
    #[inline]
    pub fn charge(&mut self, field_pos: u64, n: u64) -> DecodeResult<()> {
        self.budget = checked::spend(self.budget, n, self.budget_limit, field_pos)?;
        Ok(())
    }

    /// A bool stored as an integer: 0 or 1, anything else is an error.
    #[inline]
    pub fn bool_from(&self, pos: u64, v: u64) -> DecodeResult<bool> {
        checked::bool(pos, v)
    }

    /// Resolves a scaled offset relative to `base` and checks that the target
    /// lies inside the file. `field_pos` is where the offset itself was read.
    #[inline]
    pub fn target(&self, field_pos: u64, base: u64, raw: u64, scale: u64) -> DecodeResult<u64> {
        checked::target(self.data, field_pos, base, raw, scale)
    }

    /// Checks that `count` elements of `elem_size` bytes fit between `pos` and
    /// the end of the file, before anything is allocated for them.
    #[inline]
    pub fn check_count(
        &self,
        field_pos: u64,
        pos: u64,
        count: u64,
        elem_size: u64,
    ) -> DecodeResult<()> {
        checked::count(self.data, field_pos, pos, count, elem_size)
    }

    /// Enters the target of an offset: refuses cycles, excessive depth and
    /// reads beyond the budget. Pair with [`Reader::leave`].
    ///
    /// A list read in place (`target` is where its field is: a counted
    /// list inline in its record) is entered too, for the depth and the
    /// budget, but it was reached through no offset, so it cannot lead
    /// back into a record being read: it is not checked for a cycle (it
    /// lies inside the list around it when its record is an element of a
    /// list read up to the next target, which was reported as a cycle).
    /// An offset that points at itself still ends at the depth limit.
    ///
    /// Each range entered carries the span of all the ranges open with
    /// it, so a target outside that span (a child laid out after its
    /// parents, as writers place them) is cleared without a scan of the
    /// stack: on files of many small containers the scan was an eighth
    /// of the decode (issue 51, `perf annotate`). Inlined, for the same
    /// files: called, its saving and restoring of registers cost as much.
    #[inline(always)]
    pub fn enter(&mut self, field_pos: u64, target: u64, bytes: u64) -> DecodeResult<()> {
        checked::depth(self.active.len() as u32, self.max_depth, field_pos)?;
        let end = target.saturating_add(bytes).max(target.saturating_add(1));
        let (lo, hi) = match self.active.last() {
            Some(a) => {
                if target != field_pos
                    && target >= a.lo
                    && target < a.hi
                    && self.inside_active(target)
                {
                    return Err(cyclic(field_pos, target));
                }
                (a.lo.min(target), a.hi.max(end))
            }
            None => (target, end),
        };
        self.budget = checked::spend(self.budget, bytes, self.budget_limit, field_pos)?;
        self.active.push(Active {
            from: field_pos,
            start: target,
            end,
            lo,
            hi,
        });
        Ok(())
    }

    /// Whether `target` lies in a range being followed (each range at
    /// least one byte long, so an empty record still counts).
    #[inline(never)]
    fn inside_active(&self, target: u64) -> bool {
        self.active
            .iter()
            .any(|a| target >= a.start && target < a.end)
    }

    #[inline]
    pub fn leave(&mut self) {
        self.active.pop();
    }

    /// The offset that led to the innermost record being read, when that
    /// record starts at `start`: where the offset lies.
    pub(crate) fn entered_at(&self, start: u64) -> Option<u64> {
        self.active
            .last()
            .filter(|a| a.start == start && a.from != start)
            .map(|a| a.from)
    }
}

/// A range [`Reader::enter`] opened: its bytes, and the span of it and
/// every range open around it.
#[derive(Debug, Clone, Copy)]
struct Active {
    /// Where the offset that led here lies (`start` itself for a list
    /// read in place).
    from: u64,
    start: u64,
    /// The end, at least one byte past the start.
    end: u64,
    lo: u64,
    hi: u64,
}

#[cold]
#[inline(never)]
fn cyclic(field_pos: u64, target: u64) -> DecodeError {
    DecodeError::new(field_pos, ErrorKind::CyclicOffset { target })
}

/// Integers from bytes already bounds-checked as one record, so generated
/// code reads a fixed-size record with a single check.
/// Lists of numbers read as runs: the generated decoder checks a list's
/// bounds once, then converts the whole run here (issue 51: a 32 KiB blob
/// read a byte at a time ran at a fifth of the speed of copying it).
pub mod numbers {
    /// Each `size`-byte element of `rec` converted by `read` (a
    /// [`super::field`] function with the byte order fixed).
    #[inline]
    pub fn each<T>(rec: &[u8], size: u64, read: impl Fn(&[u8]) -> T) -> Vec<T> {
        rec.chunks_exact(size as usize).map(read).collect()
    }
}

/// Pushes `v` onto `out`. A list's decode makes room for all its elements
/// first, so the growth is out of line: on the path taken there is no call
/// between building the value and storing it, and the value goes from the
/// registers it was built in to the list. With the growth inline, the
/// value was kept on the stack across it and copied to the list sixteen
/// bytes at a time, loads wider than its stores that stalled on every
/// element of BYML's lists (issue 51, `perf annotate` of the element
/// decode: a quarter of its samples on that copy).
#[inline(always)]
pub fn push_in_room<T>(out: &mut Vec<T>, v: T) {
    if out.len() < out.capacity() {
        out.push(v);
    } else {
        push_growing(out, v);
    }
}

#[cold]
#[inline(never)]
fn push_growing<T>(out: &mut Vec<T>, v: T) {
    out.push(v);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader takes the buffers the last one dropped left (`KEPT`), and
    /// must find them empty: a range left open by an error, or a record
    /// met once, belongs to that reader's file alone.
    #[test]
    fn a_new_reader_remembers_nothing_of_the_last_one() {
        let file = vec![0u8; 1000];
        {
            let mut r = Reader::new(&file, Endian::Little);
            r.enter(0, 100, 50).unwrap();
            r.enter(104, 300, 10).unwrap();
            r.note_shared(0, 4);
            r.note_shared(0, 128);
            r.note_shared(0, 640);
            // Dropped with its ranges open, as after an error.
        }
        let mut r = Reader::new(&file, Endian::Little);
        r.enter(0, 120, 4).unwrap();
        r.leave();
        r.enter(0, 300, 4).unwrap();
        r.leave();
        r.note_shared(0, 128);
        r.note_shared(0, 640);
        assert!(
            !r.shares_equal(0),
            "a record met once in each file counts as met twice"
        );
        r.note_shared(0, 640);
        assert!(r.shares_equal(0));
    }

    /// A target inside any range being followed is a cycle, the outermost
    /// as much as the innermost, and an empty record counts as one byte;
    /// a target before, between or after the open ranges is not. The
    /// span carried with each range must not clear a target that lies
    /// inside an outer range but outside the inner one, and must be
    /// restored when a range is left.
    #[test]
    fn a_target_inside_any_open_range_is_a_cycle() {
        let file = vec![0u8; 1000];
        let mut r = Reader::new(&file, Endian::Little);
        r.enter(0, 100, 50).unwrap(); // 100..150
        r.enter(104, 300, 0).unwrap(); // 300, empty
        r.enter(300, 200, 10).unwrap(); // 200..210
        for target in [100, 149, 300, 205] {
            let e = r.enter(900, target, 4).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::CyclicOffset { target: t } if *t == target),
                "{target}: {e}"
            );
            assert_eq!(e.offset(), 900, "the error names the offset's position");
        }
        for target in [99, 150, 199, 210, 299, 301, 800] {
            r.enter(900, target, 4).unwrap();
            r.leave();
        }
        r.leave();
        r.leave();
        // Only 100..150 is open now: what lay in the ranges left is free.
        for target in [205, 300] {
            r.enter(900, target, 4).unwrap();
            r.leave();
        }
        assert!(r.enter(900, 120, 4).is_err());
    }

    /// A unit's reader spends the file's budget and hands back the rest: two
    /// units of 40 KB fit a 100 KB budget one after the other, a third does
    /// not, and its error names the file's limit, not one of its own.
    #[test]
    fn units_spend_the_files_read_budget() {
        let file = vec![0u8; 400];
        let limits = Limits {
            read_factor: 250,
            ..Limits::default()
        };
        let mut r = Reader::with_limits(&file, Endian::Little, limits);
        let unit = [0u8; 8];
        for _ in 0..2 {
            let mut sub = r.sub(&unit);
            sub.charge(0, 40_000).unwrap();
            r.end_sub(&sub);
        }
        let mut sub = r.sub(&unit);
        let e = sub.charge(3, 40_000).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::BudgetExhausted { limit: 100_000 }),
            "{e}"
        );
    }

    #[test]
    fn a_count_before_or_in_front_of_its_list_is_read_where_it_lies() {
        // A u16 count of 2, then two elements.
        let data = [0x02, 0x00, 0xAA, 0xBB];
        let r = Reader::new(&data, Endian::Little);
        assert_eq!(r.count_before(0x40, 2, 2).unwrap(), (2, 0));
        assert_eq!(r.count_prefix(0, 2).unwrap(), (2, 2));
        // A list at 1 cannot have 2 bytes of count before it: the offset
        // (read at 0x40) is what is wrong.
        let e = r.count_before(0x40, 1, 2).unwrap_err();
        assert_eq!(e.offset(), 0x40);
        assert!(matches!(
            e.kind(),
            ErrorKind::OffsetOutOfRange { target: 1, .. }
        ));
        assert_eq!(r.count_prefix(3, 2).unwrap_err().offset(), 3);
    }

    #[test]
    fn the_read_budget_is_the_larger_of_the_factor_and_the_floor() {
        let data = [0u8; 10];
        // 10 bytes x 4 = 40, below the floor of 1000: the floor applies.
        let limits = Limits {
            max_depth: 8,
            read_factor: 4,
            min_budget: 1000,
        };
        let mut r = Reader::with_limits(&data, Endian::Little, limits);
        assert!(r.charge(0, 900).is_ok());
        let err = r.charge(0, 200).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::BudgetExhausted { limit: 1000 });
        // Above the floor, the factor applies.
        let limits = Limits {
            max_depth: 8,
            read_factor: 200,
            min_budget: 1000,
        };
        let mut r = Reader::with_limits(&data, Endian::Little, limits);
        assert!(r.charge(0, 2000).is_ok());
        assert!(r.charge(0, 1).is_err());
    }

    /// A unit's reader over bytes inside the shared input shares it, at
    /// the unit's place; one over bytes elsewhere (a decompressed copy)
    /// copies, and so does a reader made from a slice.
    #[test]
    fn a_unit_inside_the_shared_input_shares_it_and_one_outside_copies() {
        let input: crate::blob::SharedInput = std::sync::Arc::new((0u8..64).collect());
        let r = Reader::shared(&input, Endian::Little, Limits::default());
        let whole = r.blob(8, 4).unwrap();
        assert!(whole.is_shared());
        assert_eq!(whole.as_ptr(), input[8..].as_ptr());
        let unit = r.sub(&input[16..32]);
        let b = unit.blob(2, 3).unwrap();
        assert!(b.is_shared());
        assert_eq!(b.as_ptr(), input[18..].as_ptr(), "at the unit's place");
        assert_eq!(b, [18u8, 19, 20]);
        let elsewhere: Vec<u8> = input[16..32].to_vec();
        let copy = r.sub(&elsewhere).blob(2, 3).unwrap();
        assert!(!copy.is_shared());
        assert_eq!(copy, [18u8, 19, 20]);
        let plain = Reader::new(&input, Endian::Little).blob(8, 4).unwrap();
        assert!(!plain.is_shared());
        assert!(r.blob(62, 4).is_err(), "past the end");
    }

    /// Pushing keeps the order whether the list had room or grew.
    #[test]
    fn a_push_in_room_or_growing_keeps_the_order() {
        let mut v: Vec<u32> = Vec::with_capacity(2);
        for i in 0..5 {
            push_in_room(&mut v, i);
        }
        assert_eq!(v, [0, 1, 2, 3, 4]);
    }
}
