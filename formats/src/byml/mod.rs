//! BYML (Nintendo's binary YAML), versions 1 to 7 in both byte orders,
//! generated from `schemas/byml.ron`. A [`Header`] holds the version and
//! the root [`Container`]; arrays hold [`Node`]s, hashes hold [`Entry`]s
//! in the order their children were placed in the file (decode recovers
//! it from where the children lie), so that an unedited document is
//! written back byte for byte. Keys and string values are held as text;
//! their sorted tables are built on encode.

pub mod text;
pub mod views;

/// The codec generated from `schemas/byml.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/byml.ron", serde);
}

pub use schema::{Array, Container, Entry, Hash, HashMap, HashMapEntry, Header, Node, Variant};

use codec_runtime::{DecodeError, DecodeResult, EncodeResult, ErrorKind, PathSeg};

/// Decodes a document; the byte order comes from the magic, the header
/// layout from the version.
pub fn decode(data: &[u8]) -> DecodeResult<(Variant, Header)> {
    let variant = variant_of(data)?;
    Ok((variant, schema::decode(data, variant)?))
}

/// Decodes a document whose binary nodes are ranges of `data` rather than
/// copies (see [`codec_runtime::Blob`]).
pub fn decode_shared(data: &codec_runtime::SharedInput) -> DecodeResult<(Variant, Header)> {
    let variant = variant_of(data)?;
    Ok((variant, schema::decode_shared(data, variant)?))
}

/// The variant of a file, or the error naming its magic.
fn variant_of(data: &[u8]) -> DecodeResult<Variant> {
    detect(data).ok_or_else(|| {
        DecodeError::new(
            0,
            ErrorKind::Invalid(format!(
                "expected the magic \"YB\" or \"BY\" and a version from 1 to 7, found {:02X?}",
                data.get(..4).unwrap_or_default()
            )),
        )
        .in_field("magic")
        .within(PathSeg::Type("Header".into()))
    })
}

/// Encodes a document in `variant`'s byte order and header layout.
pub fn encode(doc: &Header, variant: Variant) -> EncodeResult<Vec<u8>> {
    schema::encode(doc, variant)
}

/// The variant of a file: the magic gives the byte order, version 1 its
/// own header.
pub fn detect(data: &[u8]) -> Option<Variant> {
    let v = Variant::detect(data)?;
    let version = match v {
        Variant::Le | Variant::V1Le => u16::from_le_bytes([*data.get(2)?, *data.get(3)?]),
        Variant::Be | Variant::V1Be => u16::from_be_bytes([*data.get(2)?, *data.get(3)?]),
    };
    let big = matches!(v, Variant::Be | Variant::V1Be);
    match (version, big) {
        (1, false) => Some(Variant::V1Le),
        (1, true) => Some(Variant::V1Be),
        (2..=7, false) => Some(Variant::Le),
        (2..=7, true) => Some(Variant::Be),
        _ => None,
    }
}

/// Whether `data` starts like a BYML document.
pub fn looks_like(data: &[u8]) -> bool {
    detect(data).is_some()
}
