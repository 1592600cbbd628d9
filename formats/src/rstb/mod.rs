//! RSTB, Breath of the Wild's resource size table, generated from
//! `schemas/rstb.ron` with no glue: buffer sizes by the CRC-32 of a
//! resource's path, and by path (a string in a 128-byte field) where two
//! paths share a hash.
//!
//! ```
//! use formats::rstb::{self, CrcEntry, NameEntry, Table, Variant};
//! let table = Table {
//!     crcs: vec![CrcEntry { crc: 0x0123_4567, size: 4096 }],
//!     names: vec![NameEntry { name: "Actor/Pack/Link.bactorpack".into(), size: 8192 }],
//! };
//! let bytes = rstb::encode(&table, Variant::Le)?;
//! assert_eq!(bytes.len(), 12 + 8 + 132);
//! assert_eq!(rstb::decode(&bytes)?, (Variant::Le, table));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// The codec generated from `schemas/rstb.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/rstb.ron", serde);
}

pub mod text;

pub use schema::{CrcEntry, NameEntry, Table, Variant};

use codec_runtime::{DecodeError, DecodeResult, EncodeResult, ErrorKind, PathSeg};

/// The file magic.
pub const MAGIC: &[u8; 4] = b"RSTB";

/// The byte order of a file: the one whose two counts account for every
/// byte of it (the header says nothing else of its order).
pub fn detect(data: &[u8]) -> Option<Variant> {
    if !data.starts_with(MAGIC) || data.len() < 12 {
        return None;
    }
    let fits = |crcs: u32, names: u32| {
        12 + u64::from(crcs) * 8 + u64::from(names) * 132 == data.len() as u64
    };
    let le = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let be = |i: usize| u32::from_be_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    if fits(le(4), le(8)) {
        Some(Variant::Le)
    } else if fits(be(4), be(8)) {
        Some(Variant::Be)
    } else {
        None
    }
}

/// Decodes a table; its byte order is the one its counts fit.
pub fn decode(data: &[u8]) -> DecodeResult<(Variant, Table)> {
    let variant = detect(data).ok_or_else(|| {
        DecodeError::new(
            4,
            ErrorKind::Invalid(format!(
                "the counts fit the file's {} bytes in neither byte order (12 bytes of header, \
                 8 a hash entry, 132 a name entry)",
                data.len()
            )),
        )
        .in_field("crc_count")
        .within(PathSeg::Type("Table".into()))
    })?;
    if !data.starts_with(MAGIC) {
        return Err(DecodeError::new(
            0,
            ErrorKind::Invalid("expected the magic \"RSTB\"".into()),
        ));
    }
    Ok((variant, schema::decode(data, variant)?))
}

/// Encodes a table in `variant`'s byte order.
pub fn encode(doc: &Table, variant: Variant) -> EncodeResult<Vec<u8>> {
    schema::encode(doc, variant)
}

/// Whether `data` starts like a resource size table.
pub fn looks_like(data: &[u8]) -> bool {
    data.starts_with(MAGIC)
}
