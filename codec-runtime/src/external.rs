//! Fields whose value is a Rust type the schema does not describe: the
//! schema gives their size (`type: Bytes(n), external: "path::Type"`), the
//! type reads and writes its bytes. Generated code calls these; the
//! interpreter shows the bytes. `Deku` (feature `deku`) lets a type derived with deku
//! stand there.

use crate::base::Endian;

/// A value read from and written to a fixed number of bytes by its own code.
pub trait External: Sized {
    /// Reads the value from exactly its bytes, in the file's byte order.
    fn decode_external(bytes: &[u8], endian: Endian) -> Result<Self, String>;
    /// Appends the value's bytes.
    fn encode_external(&self, endian: Endian, out: &mut Vec<u8>) -> Result<(), String>;
}

/// Reads field `what` of `size` bytes at `pos` as an [`External`] value.
pub fn read<T: External>(
    r: &crate::reader::Reader<'_>,
    pos: u64,
    size: u64,
) -> crate::error::DecodeResult<(T, u64)> {
    let bytes = r.bytes(pos, size)?;
    T::decode_external(bytes, r.endian())
        .map(|v| (v, pos + size))
        .map_err(|m| crate::error::DecodeError::new(pos, crate::error::ErrorKind::Invalid(m)))
}

/// Writes an [`External`] value, which must take exactly `size` bytes.
pub fn write<T: External>(
    w: &mut crate::writer::Writer,
    v: &T,
    size: u64,
    what: &'static str,
) -> crate::error::EncodeResult<()> {
    let mut buf = Vec::with_capacity(size as usize);
    v.encode_external(w.endian(), &mut buf)
        .map_err(|m| crate::error::EncodeError::new(what, m))?;
    if buf.len() as u64 != size {
        return Err(crate::error::EncodeError::new(
            what,
            format!(
                "wrote {} bytes, but the schema gives the field {size}",
                buf.len()
            ),
        ));
    }
    w.put_bytes(&buf);
    Ok(())
}

/// A type derived with deku (`#[derive(DekuRead, DekuWrite)]`) as a schema
/// field: `external: "codec_runtime::external::Deku<my::Type>"`. The deku
/// type's own attributes decide its byte order.
#[cfg(feature = "deku")]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Deku<T>(pub T);

#[cfg(feature = "deku")]
impl<T> External for Deku<T>
where
    T: for<'a> deku::DekuContainerRead<'a> + deku::DekuContainerWrite,
{
    fn decode_external(bytes: &[u8], _endian: Endian) -> Result<Self, String> {
        let ((rest, bits), v) = T::from_bytes((bytes, 0)).map_err(|e| e.to_string())?;
        if !rest.is_empty() || bits != 0 {
            return Err(format!(
                "the deku type read {} of {} bytes",
                bytes.len() - rest.len(),
                bytes.len()
            ));
        }
        Ok(Deku(v))
    }

    fn encode_external(&self, _endian: Endian, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend(self.0.to_bytes().map_err(|e| e.to_string())?);
        Ok(())
    }
}
