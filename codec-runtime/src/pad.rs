//! Padding with a byte of the writer's choice (`Pad(align, fill)`), and the
//! length of a block laid out inline (`size`, `derive: Size`).
//!
//! Nintendo's message files (MSBT) pad each block to 16 bytes with 0xAB, but
//! a file written by another tool pads with zeros: the byte is the writer's,
//! not the format's. So the byte found is kept in the document (the schema's
//! `fill` stands for it when the padding is empty), and a file comes back as
//! it was whichever tool wrote it. Padding whose bytes differ from each
//! other is data, not padding: reading it as padding would drop it on
//! writing, so it is an error that names the first byte that differs.
//!
//! Both halves work from the record's start, as `align` on a field does:
//! the bytes up to the next multiple of `align` counted from there.

use crate::base::checked;
use crate::error::{DecodeError, DecodeResult, EncodeResult, ErrorKind};
use crate::writer::Writer;

/// The padding at `pos` of a record that starts at `rec`: the byte it is
/// made of (`fill` when it is empty) and where it ends.
pub fn read_pad(data: &[u8], rec: u64, pos: u64, align: u64, fill: u8) -> DecodeResult<(u8, u64)> {
    let len = pad_len(pos - rec, align);
    let bytes = checked::bytes(data, pos, len)?;
    let Some(&first) = bytes.first() else {
        return Ok((fill, pos));
    };
    if let Some(i) = bytes.iter().position(|&b| b != first) {
        return Err(DecodeError::new(
            pos + i as u64,
            ErrorKind::Invalid(format!(
                "padding of 0x{first:02X} bytes holds 0x{:02X} here: not padding",
                bytes[i]
            )),
        ));
    }
    Ok((first, pos + len))
}

/// How many bytes of padding follow `rel` bytes of a record to reach a
/// multiple of `align`.
pub fn pad_len(rel: u64, align: u64) -> u64 {
    if align <= 1 {
        0
    } else {
        rel.next_multiple_of(align) - rel
    }
}

/// Writes the padding after `rel` bytes of the record, made of `byte`.
pub fn put_pad(w: &mut Writer, rel: u64, align: u64, byte: u8) {
    let n = pad_len(rel, align) as usize;
    for _ in 0..n {
        w.put_u8(byte);
    }
}

/// Stores the length of a field laid out inline (from `start` to the
/// writer's position) in its size field at `at`.
pub fn patch_size(
    w: &mut Writer,
    at: u64,
    width: crate::base::Width,
    start: u64,
    what: &'static str,
) -> EncodeResult<()> {
    let len = w.pos() - start;
    w.patch_uint(at, width, len, what)
}

/// The bytes a sized field may be read from: `len` bytes at `pos`, which
/// must lie in the data.
pub fn sized(data: &[u8], pos: u64, len: u64, at: u64) -> DecodeResult<&[u8]> {
    checked::bytes(data, pos, len).map_err(|_| {
        DecodeError::new(
            at,
            ErrorKind::Invalid(format!(
                "the size field says {len} bytes from 0x{pos:x}, past the end of the data (0x{:x})",
                data.len()
            )),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Endian, Width};

    #[test]
    fn the_byte_found_is_kept_and_mixed_bytes_are_refused() {
        // A record at 0x10 whose padding starts 5 bytes in: 11 bytes to 16.
        let mut data = vec![0u8; 0x10 + 5];
        data.extend([0xAB; 11]);
        assert_eq!(read_pad(&data, 0x10, 0x15, 16, 0).unwrap(), (0xAB, 0x20));
        data[0x1c] = 0;
        let e = read_pad(&data, 0x10, 0x15, 16, 0xAB).unwrap_err();
        assert_eq!(e.offset(), 0x1c);
        assert!(e.to_string().contains("0xAB"), "{e}");
        // Already aligned: no bytes, the schema's byte.
        assert_eq!(read_pad(&data, 0x10, 0x20, 16, 0xCD).unwrap(), (0xCD, 0x20));
        // Cut short: the missing bytes are an error, not an empty padding.
        assert!(read_pad(&data[..0x18], 0x10, 0x15, 16, 0xAB).is_err());
    }

    #[test]
    fn padding_and_size_are_written() {
        let mut w = Writer::new(Endian::Little, 0, 0);
        w.put_u32(0);
        let start = w.pos();
        w.put_bytes(b"abc");
        patch_size(&mut w, 0, Width::U32, start, "size").unwrap();
        let rel = w.pos();
        put_pad(&mut w, rel, 8, 0xAB);
        assert_eq!(w.bytes(), b"\x03\0\0\0abc\xAB");
    }
}
