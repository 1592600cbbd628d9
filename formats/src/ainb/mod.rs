//! AINB (AI node binaries of Tears of the Kingdom, Splatoon 3 and others)
//! with the embedded EXB expression section.
//!
//! The binary layout is generated from `schemas/ainb.ron`, and so is the
//! document model: [`File`] holds the header, the commands and nodes, and
//! the tables the nodes point into, with every window, index and the string
//! pool's order kept, so that a decoded file encodes back to the same bytes.
//! See `docs/ainb-design.md`.

pub mod glue;

/// The codec generated from `schemas/ainb.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/ainb.ron", hooks = super::glue);
}

use codec_runtime::{DecodeError, EncodeError, ErrorKind, PathSeg};

pub use schema::File;

/// The magic at offset 0.
pub const MAGIC: &[u8; 4] = b"AIB ";

/// The versions this codec reads and writes.
pub const VERSIONS: [u32; 1] = [0x407];

/// Decodes an AINB file.
pub fn decode(data: &[u8]) -> Result<File, DecodeError> {
    if data.len() >= 8 {
        let version = u32::from_le_bytes([data[4], data[5], data[6], data[7]]);
        if !VERSIONS.contains(&version) {
            return Err(DecodeError::new(
                4,
                ErrorKind::Invalid(format!(
                    "unsupported AINB version 0x{version:x} (supported: 0x407)"
                )),
            )
            .within(PathSeg::Field("version"))
            .within(PathSeg::Type("File")));
        }
    }
    schema::decode(data)
}

/// Encodes a document the way the original tools lay it out.
pub fn encode(file: &File) -> Result<Vec<u8>, EncodeError> {
    schema::encode(file)
}
