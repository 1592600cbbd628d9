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
    codec_derive::schema!("../schemas/ainb.ron", hooks = super::glue, serde);
}

use codec_runtime::{DecodeError, EncodeError, ErrorKind, PathSeg};

pub use schema::File;

/// The magic at offset 0.
pub const MAGIC: &[u8; 4] = b"AIB ";

pub use schema::Variant;

/// The versions this codec reads and writes, with their schema variants.
pub const VERSIONS: [(u32, Variant); 3] = [
    (0x404, Variant::V404),
    (0x407, Variant::V407),
    (0x408, Variant::V408),
];

/// The schema variant of a version.
pub fn variant_of(version: u32) -> Option<Variant> {
    VERSIONS.iter().find(|(v, _)| *v == version).map(|&(_, k)| k)
}

fn version_error(offset: u64, version: u32) -> DecodeError {
    DecodeError::new(
        offset,
        ErrorKind::Invalid(format!(
            "unsupported AINB version 0x{version:x} (supported: 0x404, 0x407, 0x408)"
        )),
    )
    .within(PathSeg::Field("version"))
    .within(PathSeg::Type("File"))
}

/// Decodes an AINB file of any supported version.
pub fn decode(data: &[u8]) -> Result<File, DecodeError> {
    let Some(word) = data.get(4..8) else {
        // Too short for a header: the schema reports where it ends.
        return schema::decode(data, Variant::V407);
    };
    let version = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    match variant_of(version) {
        Some(v) => schema::decode(data, v),
        None if !data.starts_with(MAGIC) => schema::decode(data, Variant::V407),
        None => Err(version_error(4, version)),
    }
}

/// Encodes a document the way the original tools lay it out, in the layout
/// of its `version`.
pub fn encode(file: &File) -> Result<Vec<u8>, EncodeError> {
    let Some(v) = variant_of(file.version) else {
        return Err(EncodeError::new(
            "File.version",
            format!(
                "unsupported AINB version 0x{:x} (supported: 0x404, 0x407, 0x408)",
                file.version
            ),
        ));
    };
    schema::encode(file, v)
}
