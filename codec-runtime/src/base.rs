//! The small shared vocabulary of reading and writing, below every other
//! module of the runtime: byte order, field widths, section spans and
//! dedup policies, the bounds checks on bytes, and the pure functions that
//! turn a value into the bytes of a field. `Reader`, `Writer` and the
//! per-construct state beside them all use these; none of these uses them,
//! so the runtime's modules form no circle through such small types.

use crate::error::{EncodeError, EncodeResult};

/// The string type of decoded NUL-terminated strings: short ones (up to 24
/// bytes) are stored inline, without a heap allocation.
pub use compact_str::CompactString as Str;

/// Byte order of a file or of one decode call; also the schema's
/// `endian: Little` (codec-schema reads it with the `serde` feature), so
/// the schema, the generator and the interpreter share one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Deserialize))]
pub enum Endian {
    Little,
    Big,
}

/// Rounds `v` up to a multiple of `align` (a power of two, or 0/1 for none).
#[inline]
pub const fn align_up(v: u64, align: u64) -> u64 {
    if align <= 1 {
        v
    } else {
        v.div_ceil(align) * align
    }
}

/// Where an offset counts from, as the schema resolves it once
/// (`Checked::offset_base` in codec-schema) for every back end: decode,
/// encode, the views and the interpreter each give the two positions only
/// they know (the record's start, a section's start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetBase {
    /// The start of the bytes being read: the file, or a unit read on its
    /// own (whose bytes start at 0).
    Zero,
    /// A fixed address.
    Absolute(u64),
    /// The start of the record holding the offset.
    Record,
    /// The start of the section of this id.
    Section(usize),
}

impl OffsetBase {
    /// The address this base stands for, given the record's start and a
    /// way to find a section's start.
    #[inline]
    pub fn resolve(self, record: u64, section_start: impl FnOnce(usize) -> u64) -> u64 {
        match self {
            OffsetBase::Zero => 0,
            OffsetBase::Absolute(n) => n,
            OffsetBase::Record => record,
            OffsetBase::Section(id) => section_start(id),
        }
    }
}

/// Width of an integer field that holds an offset or a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    U8,
    U16,
    U24,
    U32,
    U64,
}

impl Width {
    pub const fn max(self) -> u64 {
        match self {
            Width::U8 => 0xff,
            Width::U16 => 0xffff,
            Width::U24 => 0xff_ffff,
            Width::U32 => 0xffff_ffff,
            Width::U64 => u64::MAX,
        }
    }

    /// The width of `n` bytes (1, 2, 3, 4; anything else: 8).
    pub const fn from_bytes(n: u64) -> Width {
        match n {
            1 => Width::U8,
            2 => Width::U16,
            3 => Width::U24,
            4 => Width::U32,
            _ => Width::U64,
        }
    }

    pub const fn bytes(self) -> u64 {
        match self {
            Width::U8 => 1,
            Width::U16 => 2,
            Width::U24 => 3,
            Width::U32 => 4,
            Width::U64 => 8,
        }
    }
}

/// How values placed in a section share bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dedup {
    /// Every value is appended.
    None,
    /// A value equal to an earlier one (byte for byte) reuses it.
    Exact,
    /// A value reuses any earlier bytes equal to it that start at an aligned
    /// position of the section, even inside or across earlier values.
    ByteSearch { align: u64 },
}

/// Where a section starts and ends in the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectionSpan {
    pub start: u64,
    pub end: u64,
}

/// The bit that marks a position inside the lane being written (bit 62:
/// far above any output the writer accepts, and never set by arithmetic on
/// real positions).
pub const LANE: u64 = 1 << 62;

/// A number written as its bytes in a given order. Generated code passes
/// its schema's byte order as a constant (see [`Writer::put_as`](crate::writer::Writer::put_as)), so that
/// the choice between the two orders is made when it is compiled.
pub trait Primitive: Copy {
    type Bytes: AsRef<[u8]>;
    fn bytes_in(self, endian: Endian) -> Self::Bytes;
}

macro_rules! primitive {
    ($($t:ty),*) => {$(
        impl Primitive for $t {
            type Bytes = [u8; std::mem::size_of::<$t>()];
            #[inline(always)]
            fn bytes_in(self, endian: Endian) -> Self::Bytes {
                match endian {
                    Endian::Little => self.to_le_bytes(),
                    Endian::Big => self.to_be_bytes(),
                }
            }
        }
    )*};
}

primitive!(u16, i16, u32, i32, u64, i64, f32, f64);

/// An unsigned field of `width` holding `v`, in `endian` order: its bytes
/// are the first `n` of the array returned with `n`. Refuses a value the
/// width cannot hold. (Used by the writer and by record buffers alike.)
#[inline(always)]
pub(crate) fn uint_bytes(
    width: Width,
    v: u64,
    endian: Endian,
    what: &'static str,
) -> EncodeResult<([u8; 8], usize)> {
    if v > width.max() {
        return Err(EncodeError::new(
            what,
            format!("{v} does not fit in {} byte(s)", width.bytes()),
        ));
    }
    let n = width.bytes() as usize;
    Ok(match endian {
        Endian::Little => (v.to_le_bytes(), n),
        // The low `n` bytes, most significant first, moved to the front.
        Endian::Big => ((v << ((8 - n) * 8)).to_be_bytes(), n),
    })
}

/// Overwrites the `width` bytes at `at` in `buf` with `v`, refused when `v`
/// does not fit or the bytes lie outside `buf`.
#[inline(always)]
pub(crate) fn put_uint_at(
    buf: &mut [u8],
    at: u64,
    width: Width,
    v: u64,
    endian: Endian,
    what: &'static str,
) -> EncodeResult<()> {
    let (bytes, n) = uint_bytes(width, v, endian, what)?;
    let at = at as usize;
    let Some(dst) = buf.get_mut(at..at + n) else {
        return Err(EncodeError::new(
            what,
            format!("patch at 0x{at:x} is outside the output"),
        ));
    };
    copy_low(dst, &bytes);
    Ok(())
}

/// The value an offset field holds for `target`: `(target - base) / scale`,
/// refused unless exact and within the width. (A lane's targets are not
/// known yet; callers keep those apart.)
#[inline(always)]
pub(crate) fn offset_value(
    width: Width,
    base: u64,
    scale: u64,
    target: u64,
    what: &'static str,
) -> EncodeResult<u64> {
    let Some(delta) = target.checked_sub(base) else {
        return Err(EncodeError::new(
            what,
            format!("target 0x{target:x} lies before the offset's base 0x{base:x}"),
        ));
    };
    // Scales are powers of two in every known format: a shift and a
    // mask, where a division would cost tens of cycles when the scale
    // is not a constant here (the interpreter's, a kept lane offset).
    // A scale of 0 is refused by the schema checks; here it only
    // fails to fit.
    let (v, rem) = if scale.is_power_of_two() {
        (delta >> scale.trailing_zeros(), delta & (scale - 1))
    } else {
        (
            delta.checked_div(scale).unwrap_or(u64::MAX),
            delta.checked_rem(scale).unwrap_or(0),
        )
    };
    if rem != 0 {
        return Err(EncodeError::new(
            what,
            format!("distance 0x{delta:x} is not a multiple of {scale}"),
        ));
    }
    if v > width.max() {
        return Err(EncodeError::new(
            what,
            format!(
                "offset 0x{delta:x} (stored as {v}) does not fit in {} byte(s)",
                width.bytes()
            ),
        ));
    }
    Ok(v)
}

/// Copies the first `dst.len()` bytes of `src` with a copy of fixed size
/// for each width: a copy whose length is known only at run time (a width
/// the interpreter reads from its schema) is a call into `memcpy`.
#[inline(always)]
pub(crate) fn copy_low(dst: &mut [u8], src: &[u8; 8]) {
    match dst.len() {
        1 => dst[0] = src[0],
        2 => dst.copy_from_slice(&src[..2]),
        3 => dst.copy_from_slice(&src[..3]),
        4 => dst.copy_from_slice(&src[..4]),
        n => dst.copy_from_slice(&src[..n]),
    }
}

/// Refuses a string that a NUL terminator cannot end, or that does not fit
/// in `max` bytes with it.
#[inline]
pub(crate) fn check_cstring(s: &[u8], max: Option<u64>, what: &'static str) -> EncodeResult<()> {
    if contains_nul(s) {
        return Err(EncodeError::new(
            what,
            "a NUL-terminated string cannot contain a NUL byte",
        ));
    }
    if let Some(m) = max {
        if s.len() as u64 + 1 > m {
            return Err(EncodeError::new(
                what,
                format!("{} bytes do not fit in {m} (NUL included)", s.len()),
            ));
        }
    }
    Ok(())
}

/// Whether `b` holds a zero byte. Strings are mostly short, where
/// `contains` (a call into `memchr`, byte by byte below 16 bytes) costs more
/// than testing several bytes at a time by the carry trick: below 8 bytes,
/// two overlapping 4-byte words (or the three bytes of a 3-byte string),
/// up to 64 whole 8-byte words and then the last 8 bytes, overlapping.
#[inline]
fn contains_nul(b: &[u8]) -> bool {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |w: &[u8; 8]| {
        let w = u64::from_le_bytes(*w);
        w.wrapping_sub(LOW) & !w & HIGH != 0
    };
    let zero_in_half = |w: &[u8]| {
        let w = u32::from_le_bytes(w.try_into().unwrap_or([1; 4]));
        w.wrapping_sub(LOW as u32) & !w & HIGH as u32 != 0
    };
    let n = b.len();
    match n {
        0 => false,
        1..=3 => b[0] == 0 || b[n / 2] == 0 || b[n - 1] == 0,
        4..=7 => zero_in_half(&b[..4]) || zero_in_half(&b[n - 4..]),
        8..=64 => {
            b.chunks_exact(8)
                .any(|w| w.first_chunk::<8>().is_some_and(zero_in))
                || b.last_chunk::<8>().is_some_and(zero_in)
        }
        _ => b.contains(&0),
    }
}

/// The bounds checks of reading, on the bytes alone: the decoder's
/// [`Reader`](crate::reader::Reader) and the zero-copy views (`crate::view`) both call these, so a
/// bad offset or count gets the same located error from either.
pub mod checked {
    use crate::error::{DecodeError, DecodeResult, ErrorKind};

    #[cold]
    #[inline(never)]
    fn eof(data: &[u8], pos: u64, needed: u64) -> DecodeError {
        let available = (data.len() as u64).saturating_sub(pos);
        DecodeError::new(pos, ErrorKind::UnexpectedEof { needed, available })
    }

    /// `len` bytes at `pos`, or an end-of-file error at `pos`.
    #[inline]
    pub fn bytes(data: &[u8], pos: u64, len: u64) -> DecodeResult<&[u8]> {
        match pos.checked_add(len) {
            Some(end) if end <= data.len() as u64 => Ok(&data[pos as usize..end as usize]),
            _ => Err(eof(data, pos, len)),
        }
    }

    /// Where the string at offset `raw` of a string pool starting at `base`
    /// (`None`: no pool is known) lies, in a file of `len` bytes; `field_pos`
    /// is where the offset was read. `Ok(None)`: the offset points just past
    /// the file, where other editors point at an empty string they did not
    /// write.
    pub fn pool_target(
        base: Option<u64>,
        raw: u64,
        len: u64,
        field_pos: u64,
    ) -> DecodeResult<Option<u64>> {
        let Some(base) = base else {
            return Err(DecodeError::new(
                field_pos,
                ErrorKind::Invalid(
                    "no string pool is known for this string offset (the pool's own offset is past the end of the file or out of range)".into(),
                ),
            ));
        };
        let pos = base.saturating_add(raw);
        if pos == len {
            return Ok(None);
        }
        if pos > len {
            return Err(DecodeError::new(
                field_pos,
                ErrorKind::Invalid(format!(
                    "string offset 0x{raw:x} points to 0x{pos:x}, outside the file (length 0x{len:x})"
                )),
            ));
        }
        Ok(Some(pos))
    }

    /// The bytes of a NUL-terminated string at `pos` (without the NUL). With a
    /// capacity, the NUL must lie within `capacity` bytes.
    pub fn cstr(data: &[u8], pos: u64, capacity: Option<u64>) -> DecodeResult<&[u8]> {
        if pos > data.len() as u64 {
            return Err(eof(data, pos, 1));
        }
        let rest = &data[pos as usize..];
        let window = match capacity {
            Some(c) => &rest[..rest.len().min(c as usize)],
            None => rest,
        };
        match memchr::memchr(0, window) {
            Some(n) => Ok(&window[..n]),
            None => Err(DecodeError::new(
                pos,
                ErrorKind::UnterminatedString { capacity },
            )),
        }
    }

    /// Bytes as UTF-8; the error is at the first byte that is not.
    #[inline]
    pub fn utf8(bytes: &[u8], pos: u64) -> DecodeResult<&str> {
        std::str::from_utf8(bytes)
            .map_err(|e| DecodeError::new(pos + e.valid_up_to() as u64, ErrorKind::InvalidUtf8))
    }

    /// The number of `elem`-byte elements from `t` up to an end stored as
    /// an offset (`raw`, read at `end_pos`, counted from `base` by
    /// `scale`, like the start's): a list counted by `End`.
    #[inline]
    pub fn count_to_end(
        data: &[u8],
        end_pos: u64,
        base: u64,
        raw: u64,
        scale: u64,
        t: u64,
        elem: u64,
    ) -> DecodeResult<u64> {
        let end = target(data, end_pos, base, raw, scale)?;
        let bytes = end.checked_sub(t).ok_or_else(|| {
            DecodeError::new(
                end_pos,
                ErrorKind::Invalid(format!("the end 0x{end:x} lies before the start 0x{t:x}")),
            )
        })?;
        Ok(bytes / elem.max(1))
    }

    /// Resolves a scaled offset relative to `base` and checks that the
    /// target lies inside the data. `field_pos` is where the offset was read.
    #[inline]
    pub fn target(
        data: &[u8],
        field_pos: u64,
        base: u64,
        raw: u64,
        scale: u64,
    ) -> DecodeResult<u64> {
        let t = raw.checked_mul(scale).and_then(|d| d.checked_add(base));
        match t {
            Some(t) if t <= data.len() as u64 => Ok(t),
            _ => Err(out_of_range(data, field_pos, base, raw, scale)),
        }
    }

    /// What is left of a read budget of `limit` with `left` left after
    /// spending `n` more bytes; an error at `field_pos` when it runs out.
    #[inline]
    pub fn spend(left: u64, n: u64, limit: u64, field_pos: u64) -> DecodeResult<u64> {
        match left.checked_sub(n) {
            Some(left) => Ok(left),
            None => Err(exhausted(field_pos, limit)),
        }
    }

    // The errors of the checks above, built apart from them: the checks run
    // on every offset a decoder or a view follows, and stay small.
    #[cold]
    #[inline(never)]
    fn out_of_range(data: &[u8], field_pos: u64, base: u64, raw: u64, scale: u64) -> DecodeError {
        DecodeError::new(
            field_pos,
            ErrorKind::OffsetOutOfRange {
                target: base.saturating_add(raw.saturating_mul(scale)),
                len: data.len() as u64,
            },
        )
    }

    #[cold]
    #[inline(never)]
    fn exhausted(field_pos: u64, limit: u64) -> DecodeError {
        DecodeError::new(field_pos, ErrorKind::BudgetExhausted { limit })
    }

    #[cold]
    #[inline(never)]
    fn too_deep(field_pos: u64, max: u32) -> DecodeError {
        DecodeError::new(field_pos, ErrorKind::TooDeep { limit: max })
    }

    /// Refuses to follow an offset read at `field_pos` from `depth`
    /// offsets below the root when that reaches `max`.
    #[inline]
    pub fn depth(depth: u32, max: u32, field_pos: u64) -> DecodeResult<()> {
        if depth >= max {
            return Err(too_deep(field_pos, max));
        }
        Ok(())
    }

    /// The count of a list stored just before it: `width` bytes ending at
    /// `target`, where the offset read at `field_pos` leads. The count and
    /// where it was read; decode, the interpreter and the views read it so.
    pub fn count_before(
        data: &[u8],
        field_pos: u64,
        target: u64,
        width: u64,
        e: crate::base::Endian,
    ) -> DecodeResult<(u64, u64)> {
        let at = target.checked_sub(width).ok_or_else(|| {
            DecodeError::new(
                field_pos,
                ErrorKind::OffsetOutOfRange {
                    target,
                    len: data.len() as u64,
                },
            )
        })?;
        Ok((uint(data, at, width, e)?, at))
    }

    /// An unsigned integer of `width` (1, 2, 3, 4 or 8) bytes at `pos`.
    #[inline]
    pub fn uint(data: &[u8], pos: u64, width: u64, e: crate::base::Endian) -> DecodeResult<u64> {
        Ok(super::field::uint(bytes(data, pos, width)?, width, e))
    }

    /// A stored alignment (read at `at`) that no file of `len` bytes can
    /// honour is refused: it would make the writer pad past any sane size.
    pub fn stored_align(len: u64, at: u64, align: u64) -> DecodeResult<()> {
        if align > len {
            return Err(DecodeError::new(
                at,
                ErrorKind::Invalid(format!(
                    "a stored alignment of {align} bytes is larger than the file ({len} bytes)"
                )),
            ));
        }
        Ok(())
    }

    /// A bool stored as an integer: 0 or 1, anything else is an error.
    #[inline]
    pub fn bool(pos: u64, v: u64) -> DecodeResult<bool> {
        match v {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(DecodeError::new(
                pos,
                ErrorKind::Invalid(format!("expected a bool (0 or 1), found {v}")),
            )),
        }
    }

    /// Checks that `count` elements of `elem_size` bytes fit between `pos`
    /// and the end of the data, before anything is made of them.
    #[inline]
    pub fn count(
        data: &[u8],
        field_pos: u64,
        pos: u64,
        count: u64,
        elem_size: u64,
    ) -> DecodeResult<()> {
        let available = (data.len() as u64).saturating_sub(pos);
        match count.checked_mul(elem_size) {
            Some(n) if n <= available => Ok(()),
            _ => Err(too_many(field_pos, count, elem_size, available)),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_many(field_pos: u64, count: u64, elem_size: u64, available: u64) -> DecodeError {
        DecodeError::new(
            field_pos,
            ErrorKind::CountTooLarge {
                count,
                elem_size,
                available,
            },
        )
    }
}

pub mod field {
    use super::Endian;

    macro_rules! from_bytes {
        ($name:ident, $t:ty, $n:expr) => {
            #[inline(always)]
            pub fn $name(b: &[u8], e: Endian) -> $t {
                let mut a = [0u8; $n];
                a.copy_from_slice(&b[..$n]);
                match e {
                    Endian::Little => <$t>::from_le_bytes(a),
                    Endian::Big => <$t>::from_be_bytes(a),
                }
            }
        };
    }

    from_bytes!(u16, u16, 2);
    from_bytes!(i16, i16, 2);
    from_bytes!(u32, u32, 4);
    from_bytes!(i32, i32, 4);
    from_bytes!(u64, u64, 8);
    from_bytes!(i64, i64, 8);

    #[inline(always)]
    pub fn u8(b: &[u8], _e: Endian) -> u8 {
        b[0]
    }

    #[inline(always)]
    pub fn i8(b: &[u8], _e: Endian) -> i8 {
        b[0] as i8
    }

    #[inline(always)]
    pub fn u24(b: &[u8], e: Endian) -> u32 {
        match e {
            Endian::Little => u32::from_le_bytes([b[0], b[1], b[2], 0]),
            Endian::Big => u32::from_be_bytes([0, b[0], b[1], b[2]]),
        }
    }

    /// An unsigned integer of `width` (1, 2, 3, 4 or 8) bytes.
    #[inline(always)]
    pub fn uint(b: &[u8], width: u64, e: Endian) -> u64 {
        match width {
            1 => b[0] as u64,
            2 => u16(b, e) as u64,
            3 => u24(b, e) as u64,
            4 => u32(b, e) as u64,
            _ => u64(b, e),
        }
    }

    #[inline(always)]
    pub fn f32(b: &[u8], e: Endian) -> f32 {
        f32::from_bits(u32(b, e))
    }

    #[inline(always)]
    pub fn f64(b: &[u8], e: Endian) -> f64 {
        f64::from_bits(u64(b, e))
    }
}

/// Runs a body of generated code that needs `?` of its own (so that its
/// error can be located once, on the way out) in a closure that is inlined
/// where it is called. The generated code passes the closure with
/// `#[inline(always)]`: a closure called in place (`(|| ...)()`) is a
/// function the optimiser may keep apart, and then every value it builds,
/// such as a view over a 21-variant union, goes back through memory. Inlined,
/// the AAMP view walk takes a third less time.
#[inline(always)]
pub fn run_inline<T, E>(body: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    body()
}

#[cfg(test)]
mod tests {
    use super::contains_nul;

    /// The word-wise NUL test agrees with a byte scan at every length and
    /// every place of the NUL, bytes of 0x80 and 0x01 around it included
    /// (the carry trick's false friends).
    #[test]
    fn a_nul_is_found_wherever_it_is() {
        for len in 0..80 {
            for fill in [b'a', 0x80, 0x01, 0xFF] {
                let clean = vec![fill; len];
                assert!(!contains_nul(&clean), "{len} bytes of {fill:#x}");
                for at in 0..len {
                    let mut s = clean.clone();
                    s[at] = 0;
                    assert!(contains_nul(&s), "{len} bytes of {fill:#x}, NUL at {at}");
                }
            }
        }
    }
}
