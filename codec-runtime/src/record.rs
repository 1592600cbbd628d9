//! Fixed-size records assembled on the stack, then appended in one copy.
//!
//! Writing a record field by field into the output checks the output's
//! capacity once per field. A record whose size the schema fixes (AAMP's
//! 8-byte parameters, BDAT's headers, BYML's nodes) is instead assembled in
//! a [`RecordBuf`] of that size, whose field writes have constant places
//! (so the optimiser drops their bounds checks), and appended once with
//! [`Writer::put_record`]. The generated `write_record` uses it when every
//! field of the record is such a plain write; the bytes are the same.

use crate::base::Endian;
use crate::base::{uint_bytes, Primitive, Width};
use crate::error::{EncodeError, EncodeResult};
use crate::writer::Writer;

/// A record of `N` bytes being assembled, with the writer's byte order.
#[derive(Debug)]
pub struct RecordBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
    endian: Endian,
    /// Set when the writes ran past `N` bytes (a schema whose computed size
    /// disagrees with its fields): reported by [`Writer::put_record`].
    overflow: bool,
}

macro_rules! record_put_number {
    ($name:ident, $t:ty) => {
        #[inline(always)]
        pub fn $name(&mut self, v: $t) {
            self.put_as(v, self.endian);
        }
    };
}

impl<const N: usize> RecordBuf<N> {
    #[inline(always)]
    pub fn new(endian: Endian) -> Self {
        RecordBuf {
            bytes: [0; N],
            len: 0,
            endian,
            overflow: false,
        }
    }

    #[inline(always)]
    pub fn put_bytes(&mut self, b: &[u8]) {
        match self.bytes.get_mut(self.len..self.len + b.len()) {
            Some(dst) => dst.copy_from_slice(b),
            None => self.overflow = true,
        }
        self.len += b.len();
    }

    #[inline(always)]
    pub fn put_u8(&mut self, v: u8) {
        self.put_bytes(&[v]);
    }

    #[inline(always)]
    pub fn put_i8(&mut self, v: i8) {
        self.put_bytes(&[v as u8]);
    }

    record_put_number!(put_u16, u16);
    record_put_number!(put_i16, i16);
    record_put_number!(put_u32, u32);
    record_put_number!(put_i32, i32);
    record_put_number!(put_u64, u64);
    record_put_number!(put_i64, i64);

    #[inline(always)]
    pub fn put_u24(&mut self, v: u32) {
        let b = v.to_le_bytes();
        match self.endian {
            Endian::Little => self.put_bytes(&b[..3]),
            Endian::Big => self.put_bytes(&[b[2], b[1], b[0]]),
        }
    }

    record_put_number!(put_f32, f32);
    record_put_number!(put_f64, f64);

    /// [`Writer::put_as`]: `v` in `endian` order.
    #[inline(always)]
    pub fn put_as<T: Primitive>(&mut self, v: T, endian: Endian) {
        self.put_bytes(v.bytes_in(endian).as_ref());
    }

    /// [`Writer::put_uint`]: refuses a value wider than `width`.
    #[inline(always)]
    pub fn put_uint(&mut self, width: Width, v: u64, what: &'static str) -> EncodeResult<()> {
        let (bytes, n) = uint_bytes(width, v, self.endian, what)?;
        self.put_bytes(&bytes[..n]);
        Ok(())
    }
}

impl Writer {
    /// A record buffer in this writer's byte order (generated code, which
    /// knows its order, creates one with [`RecordBuf::new`] instead).
    #[inline(always)]
    pub fn record_buf<const N: usize>(&self) -> RecordBuf<N> {
        RecordBuf::new(self.endian())
    }

    /// Appends an assembled record; `what` names it in the error when its
    /// fields did not fill exactly its `N` bytes.
    #[inline(always)]
    pub fn put_record<const N: usize>(
        &mut self,
        rec: &RecordBuf<N>,
        what: &'static str,
    ) -> EncodeResult<()> {
        if rec.overflow || rec.len != N {
            return Err(EncodeError::new(
                what,
                format!(
                    "internal: the record's fields take {} bytes, its fixed size is {N}",
                    rec.len
                ),
            ));
        }
        self.put_bytes(&rec.bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record assembled in a buffer has the bytes of the same writes
    /// made to the writer, in both byte orders.
    #[test]
    fn a_record_buffer_writes_what_the_writer_writes() {
        for endian in [Endian::Little, Endian::Big] {
            let mut direct = Writer::new(endian, 0, 0);
            direct.put_u32(0x1122_3344);
            direct.put_bytes(&[0; 3]);
            direct.put_uint(Width::U8, 7, "t").unwrap();
            direct.put_u24(0x0A0B0C);
            direct.put_f32(1.5);
            direct.put_i16(-2);
            let mut w = Writer::new(endian, 0, 0);
            let mut r = w.record_buf::<17>();
            r.put_u32(0x1122_3344);
            r.put_bytes(&[0; 3]);
            r.put_uint(Width::U8, 7, "t").unwrap();
            r.put_u24(0x0A0B0C);
            r.put_f32(1.5);
            r.put_i16(-2);
            w.put_record(&r, "t").unwrap();
            assert_eq!(w.into_bytes(), direct.into_bytes(), "{endian:?}");
        }
    }

    /// Fields that do not fill the fixed size, or overrun it, are an error,
    /// not a panic; a value too wide for its field is refused as the
    /// writer refuses it.
    #[test]
    fn a_record_of_the_wrong_size_is_an_error() {
        let mut w = Writer::new(Endian::Little, 0, 0);
        let mut short = w.record_buf::<8>();
        short.put_u32(1);
        assert!(w.put_record(&short, "short").is_err());
        let mut long = w.record_buf::<4>();
        long.put_u32(1);
        long.put_u8(2);
        let e = w.put_record(&long, "long").unwrap_err();
        assert!(e.to_string().contains("5 bytes"), "{e}");
        assert!(w.record_buf::<1>().put_uint(Width::U8, 256, "x").is_err());
        assert!(w.into_bytes().is_empty(), "nothing is appended on error");
    }
}
