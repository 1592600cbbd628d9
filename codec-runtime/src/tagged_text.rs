//! Text with control records (`Text`): code units of 1, 2 or 4 bytes, in
//! which a unit that opens a record (MSBT's 0x0E tag, 0x0F close) is
//! followed by that record, up to the next target, ended by a zero unit.
//! A message of MSBT is one.
//!
//! The reading and the writing are here once; the generated codec and the
//! schema interpreter carry them out, each building its own document (the
//! interpreter a located node per part, the codec a [`TextPart`] list):
//!
//! - [`Scan`] splits the bytes into parts (a run of characters, a record,
//!   the zero unit), checking that the text ends with the zero unit just
//!   before the next target;
//! - [`chars`] turns a run into characters, or into its bytes when they are
//!   no text and the schema keeps them (`lossless`);
//! - [`put_chars`] writes a run back, refusing a character whose unit
//!   would read back as a record.

use crate::error::{DecodeError, DecodeResult, EncodeError, EncodeResult, ErrorKind};
use crate::reader::{Endian, Reader};
use crate::writer::{Width, Writer};

/// One part of a text: characters, a control record (a value of the
/// schema's tag union `T`), or code units that are no text, kept as their
/// bytes (`lossless`).
///
/// Its generic form (`serde`) is the interpreter's: characters a string,
/// a record its union's variant, kept bytes the variant `Text::Bytes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TextPart<T> {
    Chars(String),
    Record(T),
    Bytes(Vec<u8>),
}

/// The union name and variant of a part kept as bytes, in the generic form.
pub const BYTES_UNION: &str = "Text";
pub const BYTES_VARIANT: &str = "Bytes";

/// What [`Scan::next`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A run of characters from `from` up to `to` (not empty).
    Chars { from: u64, to: u64 },
    /// A record whose opening unit (its tag) is at `at`: the caller reads
    /// it and gives its end to [`Scan::resume`].
    Record { at: u64 },
    /// The zero unit that ends the text, at `at`; the text ends after it.
    Zero { at: u64 },
}

/// A walk over one text, part by part.
#[derive(Debug, Clone)]
pub struct Scan {
    unit: u64,
    end: u64,
    /// Where the run of characters being scanned started.
    run: u64,
    /// The next unit to look at.
    q: u64,
    /// A record found after a run that was handed out first.
    record: Option<u64>,
    done: bool,
}

impl Scan {
    /// A text of `unit`-byte code units at `pos`, up to the next target
    /// after it (or the end of the data).
    pub fn begin(r: &Reader<'_>, pos: u64, unit: u64) -> Scan {
        Scan {
            unit,
            end: r.bound_after(pos),
            run: pos,
            q: pos,
            record: None,
            done: false,
        }
    }

    /// Where the text ends (the next target).
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The next part, `None` after the zero unit. `opens(u)`: does code
    /// unit `u` open a record?
    pub fn next(
        &mut self,
        r: &Reader<'_>,
        opens: impl Fn(u64) -> bool,
    ) -> DecodeResult<Option<Part>> {
        if self.done {
            return Ok(None);
        }
        if let Some(at) = self.record.take() {
            return Ok(Some(Part::Record { at }));
        }
        let (unit, e) = (self.unit, r.endian());
        // The units up to the end, looked at in place.
        let whole = self.end.saturating_sub(self.q) / unit * unit;
        let rest = r.bytes(self.q, whole)?;
        if let Some(i) = first_opening(rest, unit, e, &opens) {
            let at = self.q + i as u64 * unit;
            self.q = at;
            if at > self.run {
                self.record = Some(at);
                return Ok(Some(Part::Chars {
                    from: self.run,
                    to: at,
                }));
            }
            return Ok(Some(Part::Record { at }));
        }
        self.q += whole;
        // The last unit must be the zero that ends the text, and the text
        // must fill the bytes up to the next target.
        let zero_at = self.q.checked_sub(unit).filter(|&z| z >= self.run);
        let ends = match zero_at {
            Some(z) => unit_value(r.bytes(z, unit)?, unit, e) == 0,
            None => false,
        };
        let Some(zero) = zero_at.filter(|_| ends && self.q == self.end) else {
            return Err(DecodeError::new(
                self.q.min(self.end),
                ErrorKind::Invalid(format!(
                    "the text does not end with a zero unit before 0x{:x}, where the next target starts",
                    self.end
                )),
            ));
        };
        if zero > self.run {
            let from = self.run;
            self.run = zero;
            return Ok(Some(Part::Chars { from, to: zero }));
        }
        self.done = true;
        Ok(Some(Part::Zero { at: zero }))
    }

    /// Goes on after a record that ends at `end`.
    pub fn resume(&mut self, end: u64) {
        self.q = end;
        self.run = end;
    }
}

/// The characters of the run `from..to`, or its bytes when its units are
/// no text and `lossless` keeps them (an error at the offending unit
/// otherwise).
pub fn chars<T>(
    r: &Reader<'_>,
    from: u64,
    to: u64,
    unit: u64,
    lossless: bool,
) -> DecodeResult<TextPart<T>> {
    let bytes = r.bytes(from, to - from)?;
    match crate::strings::text_of_units(bytes, from, unit, r.endian()) {
        Ok(s) => Ok(TextPart::Chars(s)),
        Err(_) if lossless => Ok(TextPart::Bytes(bytes.to_vec())),
        Err(e) => Err(e),
    }
}

/// Reads a whole text at `pos` into parts, each record read by `record`
/// (its tag union's `decode_at`); returns the parts and the text's end.
pub fn read<T>(
    r: &mut Reader<'_>,
    pos: u64,
    unit: u64,
    lossless: bool,
    opens: impl Fn(u64) -> bool,
    mut record: impl FnMut(&mut Reader<'_>, u64) -> DecodeResult<(T, u64)>,
) -> DecodeResult<(Vec<TextPart<T>>, u64)> {
    let mut scan = Scan::begin(r, pos, unit);
    let mut out = Vec::new();
    while let Some(part) = scan.next(r, &opens)? {
        let i = out.len();
        match part {
            Part::Chars { from, to } => {
                r.charge(from, to - from)?;
                out.push(chars(r, from, to, unit, lossless).map_err(|e| e.at_index(i))?);
            }
            Part::Record { at } => {
                let (v, end) = record(r, at).map_err(|e| e.at_index(i))?;
                scan.resume(end);
                out.push(TextPart::Record(v));
            }
            Part::Zero { .. } => {}
        }
    }
    Ok((out, scan.end()))
}

/// Writes a run of characters in code units of `unit` bytes. A character
/// whose unit opens a record would read back as that record: refused,
/// naming the union (`tags`).
pub fn put_chars(
    w: &mut Writer,
    s: &str,
    unit: u64,
    opens: impl Fn(u64) -> bool,
    tags: &str,
) -> Result<(), String> {
    if let Some(c) = s.chars().find(|&c| opens(u64::from(u32::from(c)))) {
        return Err(format!(
            "the text holds U+{:04X}, the unit that opens a `{tags}` record: write it as that record",
            u32::from(c)
        ));
    }
    w.put_units(s, unit);
    Ok(())
}

/// The zero unit that ends a text.
pub fn put_end(w: &mut Writer, unit: u64, what: &'static str) -> EncodeResult<()> {
    w.put_uint(Width::from_bytes(unit), 0, what)
}

/// Writes a whole text: each part, then the zero unit; `record` writes a
/// record (its tag union's inline write, tag first).
pub fn write<T>(
    w: &mut Writer,
    parts: &[TextPart<T>],
    unit: u64,
    opens: impl Fn(u64) -> bool,
    tags: &str,
    what: &'static str,
    mut record: impl FnMut(&mut Writer, &T) -> EncodeResult<()>,
) -> EncodeResult<()> {
    for (i, part) in parts.iter().enumerate() {
        match part {
            TextPart::Chars(s) => put_chars(w, s, unit, &opens, tags)
                .map_err(|m| EncodeError::new(format!("{what}[{i}]"), m))?,
            TextPart::Bytes(b) => w.put_bytes(b),
            TextPart::Record(v) => record(w, v)?,
        }
    }
    put_end(w, unit, what)
}

/// The index of the first unit of `rest` that opens a record, one loop
/// per unit size and byte order.
fn first_opening(rest: &[u8], unit: u64, e: Endian, opens: &impl Fn(u64) -> bool) -> Option<usize> {
    match (unit, e) {
        (1, _) => rest.iter().position(|&b| opens(u64::from(b))),
        (2, Endian::Little) => rest
            .chunks_exact(2)
            .position(|u| opens(u64::from(u16::from_le_bytes([u[0], u[1]])))),
        (2, Endian::Big) => rest
            .chunks_exact(2)
            .position(|u| opens(u64::from(u16::from_be_bytes([u[0], u[1]])))),
        _ => rest
            .chunks_exact(unit as usize)
            .position(|u| opens(u64::from(unit_value(u, unit, e)))),
    }
}

fn unit_value(b: &[u8], unit: u64, e: Endian) -> u32 {
    crate::strings::unit_value(b, unit, e)
}
