//! Strings beyond NUL-terminated UTF-8 (`Reader::cstring_at`): strings of
//! two- or four-byte code units (UTF-16, UTF-32) in the file's byte order,
//! ended by a zero unit (`CString(encoding: Utf16)`, `Utf32`), and strings
//! in a field of fixed size, padded with zeros after their end
//! (`CString(size: N)`).
//!
//! Nintendo's message files (MSBT) store their text in UTF-16 or UTF-32,
//! chosen by a byte of the header. A UTF-8 reader pointed at such text reads
//! its first character and stops at the zero high byte, with no error
//! (`"H"` for `"Heat"`); reading by units is the only way to get the text.
//! What the units cannot mean is an error, never a replacement character:
//! an unpaired surrogate, a number past U+10FFFF.
//!
//! BotW's resource size table gives each name a 128-byte field. Such a
//! field is one value of fixed size (it can be a list element, and the
//! fields after it keep fixed offsets); bytes after the end that are not
//! zero would be lost on writing, so they are an error, not dropped.
//!
//! Decode and encode of one string are inverses, so a file is written back
//! as it was read.

use crate::base::align_up;
use crate::base::{checked, Endian};
use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind};
use crate::reader::Reader;
use crate::writer::Writer;

/// Unit `i` (of `unit` bytes) of `b`.
#[inline]
fn unit_at(b: &[u8], i: usize, unit: usize, e: Endian) -> u32 {
    let u = &b[i * unit..i * unit + unit];
    match (unit, e) {
        (2, Endian::Little) => u32::from(u16::from_le_bytes([u[0], u[1]])),
        (2, Endian::Big) => u32::from(u16::from_be_bytes([u[0], u[1]])),
        (_, Endian::Little) => u32::from_le_bytes([u[0], u[1], u[2], u[3]]),
        (_, Endian::Big) => u32::from_be_bytes([u[0], u[1], u[2], u[3]]),
    }
}

/// The bytes of the units before the first zero unit at `pos`, within
/// `capacity` bytes (zero included) when given.
fn units(
    data: &[u8],
    pos: u64,
    unit: u64,
    capacity: Option<u64>,
    e: Endian,
) -> DecodeResult<&[u8]> {
    if pos > data.len() as u64 {
        return checked::bytes(data, pos, unit);
    }
    let rest = &data[pos as usize..];
    let window = match capacity {
        Some(c) => &rest[..rest.len().min(c as usize)],
        None => rest,
    };
    let u = unit as usize;
    let n = window.len() / u;
    match (0..n).find(|&i| unit_at(window, i, u, e) == 0) {
        Some(i) => Ok(&window[..i * u]),
        None => Err(DecodeError::new(
            pos,
            ErrorKind::UnterminatedString { capacity },
        )),
    }
}

/// The text of `b` (whole units of `unit` bytes) read at `pos`.
fn decode(b: &[u8], pos: u64, unit: u64, e: Endian) -> DecodeResult<String> {
    let u = unit as usize;
    let n = b.len() / u;
    let mut out = String::with_capacity(n);
    if u == 2 {
        return match e {
            Endian::Little => utf16(b, pos, out, u16::from_le_bytes, 0xFF80_FF80_FF80_FF80),
            Endian::Big => utf16(b, pos, out, u16::from_be_bytes, 0x80FF_80FF_80FF_80FF),
        };
    } else {
        for i in 0..n {
            let v = unit_at(b, i, 4, e);
            match char::from_u32(v) {
                Some(c) => out.push(c),
                None => {
                    return Err(DecodeError::new(
                        pos + i as u64 * 4,
                        ErrorKind::Invalid(format!(
                            "UTF-32 text holds 0x{v:X}, which is no character"
                        )),
                    ))
                }
            }
        }
    }
    Ok(out)
}

/// UTF-16 units `b` (read by `unit`, one byte order) as text: characters
/// below 0x80 (most of a game's text) pushed as they are, the others
/// decoded, an unpaired surrogate an error at its offset.
#[inline(always)]
fn utf16(
    b: &[u8],
    pos: u64,
    mut out: String,
    unit: fn([u8; 2]) -> u16,
    not_ascii: u64,
) -> DecodeResult<String> {
    let mut i = 0;
    let n = b.len() / 2;
    let at = |i: usize| unit([b[2 * i], b[2 * i + 1]]);
    while i < n {
        // Four characters below 0x80 at a time (`not_ascii`: the bits of
        // four units, read as one little-endian word, that are zero in each
        // such unit of this byte order).
        while i + 4 <= n {
            let w = u64::from_le_bytes(b[2 * i..2 * i + 8].try_into().unwrap_or_default());
            if w & not_ascii != 0 {
                break;
            }
            for k in 0..4 {
                out.push(char::from(at(i + k) as u8));
            }
            i += 4;
        }
        if i >= n {
            break;
        }
        let u = at(i);
        if u < 0x80 {
            out.push(char::from(u as u8));
            i += 1;
            continue;
        }
        let c = match u {
            0xD800..=0xDBFF if i + 1 < n && (0xDC00..=0xDFFF).contains(&at(i + 1)) => {
                let lo = at(i + 1);
                i += 1;
                char::from_u32(0x10000 + ((u32::from(u - 0xD800) << 10) | u32::from(lo - 0xDC00)))
            }
            0xD800..=0xDFFF => None,
            _ => char::from_u32(u32::from(u)),
        };
        match c {
            Some(c) => out.push(c),
            None => {
                return Err(DecodeError::new(
                    pos + i as u64 * 2,
                    ErrorKind::Invalid(format!(
                        "UTF-16 text holds an unpaired surrogate 0x{u:04X}"
                    )),
                ))
            }
        }
        i += 1;
    }
    Ok(out)
}

impl Reader<'_> {
    /// A string of `unit`-byte code units (2: UTF-16, 4: UTF-32) at `pos`
    /// in the reader's byte order, ended by a zero unit, charged to the read
    /// budget; returns it and the position after its zero unit (aligned up
    /// to `pad`). `max` bounds it in bytes, zero unit included.
    pub fn cstring_units_at(
        &mut self,
        pos: u64,
        unit: u64,
        max: Option<u64>,
        pad: Option<u64>,
    ) -> DecodeResult<(crate::base::Str, u64)> {
        let e = self.endian();
        let bytes = units(self.data(), pos, unit, max, e)?;
        self.charge(pos, bytes.len() as u64 + unit)?;
        let text = decode(bytes, pos, unit, e)?;
        let mut end = pos + bytes.len() as u64 + unit;
        if let Some(a) = pad {
            end = align_up(end, a);
        }
        Ok((crate::base::Str::from(text), end))
    }
}

/// The text of `bytes`, code units of `unit` bytes (1: UTF-8) in byte
/// order `e`, read at `pos`: a run of characters between the control
/// records of a message (`Text`). Units that are no text are an error at
/// their offset.
pub fn text_of_units(bytes: &[u8], pos: u64, unit: u64, e: Endian) -> DecodeResult<String> {
    if unit == 1 {
        return match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_owned()),
            Err(err) => Err(DecodeError::new(
                pos + err.valid_up_to() as u64,
                ErrorKind::InvalidUtf8,
            )),
        };
    }
    decode(bytes, pos, unit, e)
}

/// The code unit of `unit` bytes at the start of `b`, in byte order `e`.
pub fn unit_value(b: &[u8], unit: u64, e: Endian) -> u32 {
    if unit == 1 {
        u32::from(b[0])
    } else {
        unit_at(b, 0, unit as usize, e)
    }
}

impl Reader<'_> {
    /// A string stored as its length in bytes (an unsigned integer of
    /// `width` bytes at `pos`) then its code units of `unit` bytes (1:
    /// UTF-8), with no end mark; returns it and the position after it.
    pub fn prefixed_string_at(
        &mut self,
        pos: u64,
        width: u64,
        unit: u64,
        nul: bool,
    ) -> DecodeResult<(crate::base::Str, u64)> {
        let len = self.uint(pos, width)?;
        if len % unit != 0 {
            return Err(DecodeError::new(
                pos,
                ErrorKind::Invalid(format!(
                    "a length of {len} bytes is no whole number of {unit}-byte units"
                )),
            ));
        }
        let at = pos + width;
        let bytes = checked::bytes(self.data(), at, len)?;
        self.charge(pos, len + width)?;
        let text = text_of_units(bytes, at, unit, self.endian())?;
        let end = at + len;
        if !nul {
            return Ok((crate::base::Str::from(text), end));
        }
        // A NUL unit after the counted ones (NintendoWare's pools): a
        // string that lacks it is no string of this form.
        let mark = checked::bytes(self.data(), end, unit)?;
        if mark.iter().any(|&b| b != 0) {
            return Err(DecodeError::new(
                end,
                ErrorKind::Invalid(format!(
                    "the string of {len} bytes is not followed by its NUL (found {mark:02x?})"
                )),
            ));
        }
        Ok((crate::base::Str::from(text), end + unit))
    }
}

impl Writer {
    /// Writes `s` as its length in bytes (`width`) then its code units of
    /// `unit` bytes (1: UTF-8) in the writer's byte order, with no end
    /// mark. A string too long for its length field is an error.
    pub fn put_prefixed_string(
        &mut self,
        s: &str,
        width: crate::base::Width,
        unit: u64,
        nul: bool,
        what: &'static str,
    ) -> EncodeResult<()> {
        let len = match unit {
            1 => s.len(),
            2 => s.encode_utf16().count() * 2,
            _ => s.chars().count() * 4,
        } as u64;
        self.put_uint(width, len, what)?;
        self.put_units(s, unit);
        if nul {
            self.put_bytes(&[0u8; 4][..unit as usize]);
        }
        Ok(())
    }

    /// Writes the code units of `s` (`unit` bytes each; 1: UTF-8) in the
    /// writer's byte order, with no end mark.
    pub fn put_units(&mut self, s: &str, unit: u64) {
        match unit {
            1 => self.put_bytes(s.as_bytes()),
            2 => s.encode_utf16().for_each(|u| self.put_u16(u)),
            _ => s.chars().for_each(|c| self.put_u32(c.into())),
        }
    }

    /// Writes `s` as `unit`-byte code units (2: UTF-16, 4: UTF-32) in the
    /// writer's byte order, then a zero unit, then zeros up to a multiple
    /// of `pad`. `max` bounds it in bytes, zero unit included.
    pub fn put_cstring_units(
        &mut self,
        s: &str,
        unit: u64,
        max: Option<u64>,
        pad: Option<u64>,
        what: &'static str,
    ) -> EncodeResult<()> {
        if s.contains('\0') {
            return Err(EncodeError::new(
                what,
                "a string ended by a zero unit cannot contain U+0000",
            ));
        }
        let units: Vec<u32> = if unit == 2 {
            s.encode_utf16().map(u32::from).collect()
        } else {
            s.chars().map(u32::from).collect()
        };
        let len = (units.len() as u64 + 1) * unit;
        if let Some(m) = max.filter(|&m| len > m) {
            return Err(EncodeError::new(
                what,
                format!("{len} bytes do not fit in {m} (the zero unit included)"),
            ));
        }
        self.put_units(s, unit);
        self.put_uint(crate::base::Width::from_bytes(unit), 0, what)?;
        if let Some(a) = pad {
            self.align(a);
        }
        Ok(())
    }
}

/// The end of a string of `unit`-byte units in `field` (a fixed-size
/// field at `pos`): the length before its zero unit, the rest checked to be
/// zeros.
fn sized(field: &[u8], pos: u64, unit: u64, e: Endian) -> DecodeResult<usize> {
    let u = unit as usize;
    let Some(n) = (0..field.len() / u).find(|&i| {
        if u == 1 {
            field[i] == 0
        } else {
            unit_at(field, i, u, e) == 0
        }
    }) else {
        return Err(DecodeError::new(
            pos,
            ErrorKind::UnterminatedString {
                capacity: Some(field.len() as u64),
            },
        ));
    };
    let end = (n + 1) * u;
    if let Some(k) = field[end..].iter().position(|&b| b != 0) {
        return Err(DecodeError::new(
            pos + (end + k) as u64,
            ErrorKind::Invalid(format!(
                "byte 0x{:02X} after the string's end in its {}-byte field; only zeros may follow \
                 it (read the field as Bytes({}) to keep such bytes)",
                field[end + k],
                field.len(),
                field.len()
            )),
        ));
    }
    Ok(n * u)
}

impl Reader<'_> {
    /// The string in the `size`-byte field at `pos`: `unit`-byte units
    /// (1: UTF-8) up to a zero unit, then zeros to the field's end, charged
    /// to the read budget. Returns it and the position after the field.
    pub fn cstring_sized_at(
        &mut self,
        pos: u64,
        size: u64,
        unit: u64,
    ) -> DecodeResult<(crate::base::Str, u64)> {
        let e = self.endian();
        let field = self.bytes(pos, size)?;
        let len = sized(field, pos, unit, e)?;
        let text = text_of_units(&field[..len], pos, unit, e)?;
        self.charge(pos, size)?;
        Ok((crate::base::Str::from(text), pos + size))
    }
}

impl Writer {
    /// Writes `s` in a `size`-byte field: its units (1: UTF-8), a zero
    /// unit, then zeros to the field's end.
    pub fn put_cstring_sized(
        &mut self,
        s: &str,
        size: u64,
        unit: u64,
        what: &'static str,
    ) -> EncodeResult<()> {
        let start = self.bytes().len() as u64;
        if unit == 1 {
            if s.contains('\0') {
                return Err(EncodeError::new(
                    what,
                    "a NUL-terminated string cannot contain a NUL byte",
                ));
            }
            let len = s.len() as u64 + 1;
            if len > size {
                return Err(EncodeError::new(
                    what,
                    format!("{len} bytes do not fit in its {size}-byte field (the NUL included)"),
                ));
            }
            self.put_bytes(s.as_bytes());
        } else {
            self.put_cstring_units(s, unit, Some(size), None, what)?;
        }
        let used = self.bytes().len() as u64 - start;
        self.put_zeros((size - used.min(size)) as usize);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(data: &[u8], e: Endian, unit: u64) -> DecodeResult<(crate::base::Str, u64)> {
        Reader::new(data, e).cstring_units_at(0, unit, None, None)
    }

    #[test]
    fn a_prefixed_string_with_its_nul_reads_past_it_and_refuses_a_missing_one() {
        let mut w = Writer::new(Endian::Little, 0, 0);
        w.put_prefixed_string("go", crate::base::Width::U16, 1, true, "t")
            .unwrap();
        let b = w.into_bytes();
        assert_eq!(b, b"\x02\0go\0");
        let (s, end) = Reader::new(&b, Endian::Little)
            .prefixed_string_at(0, 2, 1, true)
            .unwrap();
        assert_eq!((s.as_str(), end), ("go", 5));
        let e = Reader::new(b"\x02\0gox", Endian::Little)
            .prefixed_string_at(0, 2, 1, true)
            .unwrap_err();
        assert_eq!(e.offset(), 4, "{e}");
        assert!(e.to_string().contains("not followed by its NUL"), "{e}");
        assert!(Reader::new(b"\x02\0go", Endian::Little)
            .prefixed_string_at(0, 2, 1, true)
            .is_err());
    }

    #[test]
    fn prefixed_strings_count_bytes_and_refuse_what_does_not_fit() {
        for (unit, e) in [(1, Endian::Little), (2, Endian::Big), (4, Endian::Little)] {
            let mut w = Writer::new(e, 0, 0);
            w.put_prefixed_string("Heat \u{1F600}", crate::base::Width::U16, unit, false, "t")
                .unwrap();
            let b = w.into_bytes();
            let units = if unit == 2 { 7 } else { 6 };
            let len = if unit == 1 { 9 } else { units * unit as usize };
            assert_eq!(b.len(), 2 + len, "unit {unit}");
            let mut r = Reader::new(&b, e);
            let (s, end) = r.prefixed_string_at(0, 2, unit, false).unwrap();
            assert_eq!((s.as_str(), end), ("Heat \u{1F600}", b.len() as u64));
        }
        // A length past the data, or not whole units, is an error at the length.
        let mut r = Reader::new(b"\x05\0ab", Endian::Little);
        assert!(r.prefixed_string_at(0, 2, 1, false).is_err());
        let e = Reader::new(b"\x03\0abc", Endian::Little)
            .prefixed_string_at(0, 2, 2, false)
            .unwrap_err();
        assert!(e.to_string().contains("whole number"), "{e}");
        // Not UTF-8: at the byte.
        let e = Reader::new(b"\x02a\xFF", Endian::Little)
            .prefixed_string_at(0, 1, 1, false)
            .unwrap_err();
        assert_eq!(e.offset(), 2);
        // Too long for a u8 length.
        let mut w = Writer::new(Endian::Little, 0, 0);
        assert!(w
            .put_prefixed_string(&"x".repeat(256), crate::base::Width::U8, 1, false, "t")
            .is_err());
    }

    #[test]
    fn utf16_in_both_orders_reads_every_character() {
        let le = b"H\0e\0a\0t\0\0\0";
        assert_eq!(read(le, Endian::Little, 2).unwrap(), ("Heat".into(), 10));
        let be = b"\0H\0e\0a\0t\0\0";
        assert_eq!(read(be, Endian::Big, 2).unwrap(), ("Heat".into(), 10));
        // A pair: U+1F600 is D83D DE00.
        let pair = [0x3D, 0xD8, 0x00, 0xDE, 0, 0];
        assert_eq!(
            read(&pair, Endian::Little, 2).unwrap().0.as_str(),
            "\u{1F600}"
        );
    }

    #[test]
    fn what_the_units_cannot_mean_is_an_error_at_its_offset() {
        let lone = [b'a', 0, 0x00, 0xDC, 0, 0];
        let e = read(&lone, Endian::Little, 2).unwrap_err();
        assert_eq!(e.offset(), 2);
        assert!(e.to_string().contains("unpaired surrogate 0xDC00"), "{e}");
        let big = [b'a', 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0, 0];
        let e = read(&big, Endian::Little, 4).unwrap_err();
        assert_eq!(e.offset(), 4);
        assert!(e.to_string().contains("0x110000"), "{e}");
        // No zero unit: the string does not end. A zero byte inside a unit
        // is not one.
        let e = read(b"H\0e\0", Endian::Little, 2).unwrap_err();
        assert_eq!(e.offset(), 0);
        let odd = b"\0H\0\0";
        assert_eq!(read(odd, Endian::Big, 2).unwrap().0.as_str(), "H");
    }

    #[test]
    fn written_as_read() {
        for (unit, e) in [
            (2, Endian::Little),
            (2, Endian::Big),
            (4, Endian::Little),
            (4, Endian::Big),
        ] {
            let mut w = Writer::new(e, 0, 0);
            w.put_cstring_units("Héat \u{1F600}", unit, None, Some(8), "t")
                .unwrap();
            let bytes = w.into_bytes();
            assert_eq!(bytes.len() % 8, 0);
            let (s, end) = Reader::new(&bytes, e)
                .cstring_units_at(0, unit, None, Some(8))
                .unwrap();
            assert_eq!((s.as_str(), end), ("Héat \u{1F600}", bytes.len() as u64));
        }
        let mut w = Writer::new(Endian::Little, 0, 0);
        let e = w
            .put_cstring_units("abc", 2, Some(6), None, "t")
            .unwrap_err();
        assert!(e.to_string().contains("8 bytes do not fit in 6"), "{e}");
    }
}
