//! SARC archives (Wii U and Switch): named files, generated from
//! `schemas/sarc.ron`. A [`Sarc`] holds its [`Node`]s in file-table order:
//! each a name, the name's flag byte and the file's bytes with the
//! alignment they were found at ([`codec_runtime::Aligned`]), so that an
//! unedited archive is written back byte for byte. On encode the table is
//! sorted by name hash (files added anywhere land in their place), names
//! and data follow in table order, and a file whose alignment is 0 gets
//! one by its kind ([`glue::file_alignment`]).
//!
//! ```
//! use formats::sarc::{self, Node, Sarc, Variant};
//! use codec_runtime::Aligned;
//! let archive = Sarc::new(vec![
//!     Node::new("b.txt", b"second".to_vec()),
//!     Node::new("a.txt", b"first".to_vec()),
//! ]);
//! let bytes = sarc::encode(&archive, Variant::Little).unwrap();
//! let (variant, back) = sarc::decode(&bytes).unwrap();
//! assert_eq!(variant, Variant::Little);
//! // The file table is sorted by name hash.
//! let names: Vec<&str> = back.nodes.iter().map(|n| n.name.as_str()).collect();
//! assert_eq!(names, ["a.txt", "b.txt"]);
//! assert_eq!(back.get("a.txt"), Some(&b"first"[..]));
//! ```

pub mod folder;
pub mod glue;
pub mod views;

/// The codec generated from `schemas/sarc.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/sarc.ron", hooks = super::glue, serde);
}

pub use schema::{Node, Sarc, Variant};

use codec_runtime::{Aligned, DecodeError, DecodeResult, EncodeResult, ErrorKind, PathSeg, Str};

/// The file magic.
pub const MAGIC: &[u8; 4] = b"SARC";

/// The name hash multiplier of every known archive.
pub const HASH_MULTIPLIER: u32 = 0x65;

impl Sarc {
    /// An archive of `nodes` with the usual header values.
    pub fn new(nodes: Vec<Node>) -> Self {
        Sarc {
            header_size: 0x14,
            version: 0x100,
            reserved: 0,
            sfat_header_size: 0xc,
            hash_multiplier: HASH_MULTIPLIER,
            nodes,
            sfnt_header_size: 8,
            sfnt_reserved: 0,
        }
    }

    /// The bytes of the file named `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.nodes
            .iter()
            .find(|n| n.name == name)
            .map(|n| n.data.value.as_slice())
    }
}

impl Node {
    /// A file with a stored name and no alignment yet (chosen on encode).
    pub fn new(name: &str, data: impl Into<codec_runtime::Blob>) -> Self {
        Node {
            name_flag: 1,
            name: Str::from(name),
            data: Aligned::new(data.into()),
        }
    }
}

/// Decodes an archive in the byte order its byte-order mark gives.
pub fn decode(data: &[u8]) -> DecodeResult<(Variant, Sarc)> {
    let variant = variant_of(data)?;
    Ok((variant, schema::decode(data, variant)?))
}

/// Decodes an archive whose files' bytes are ranges of `data` rather than
/// copies (see [`codec_runtime::Blob`]): reading an archive costs no copy
/// of its files.
pub fn decode_shared(data: &codec_runtime::SharedInput) -> DecodeResult<(Variant, Sarc)> {
    let variant = variant_of(data)?;
    Ok((variant, schema::decode_shared(data, variant)?))
}

/// The variant the byte-order mark gives, or the error naming the magic or
/// the mark.
fn variant_of(data: &[u8]) -> DecodeResult<Variant> {
    Variant::detect(data).ok_or_else(|| {
        let (at, field, what) = if data.starts_with(MAGIC) {
            (
                6,
                "byte_order",
                format!(
                    "a SARC byte-order mark (FE FF or FF FE), found {:02X?}",
                    data.get(6..8).unwrap_or_default()
                ),
            )
        } else {
            (
                0,
                "magic",
                format!(
                    "the magic \"SARC\", found {:?}",
                    String::from_utf8_lossy(data.get(..4).unwrap_or_default())
                ),
            )
        };
        DecodeError::new(at, ErrorKind::Invalid(format!("expected {what}")))
            .in_field(field)
            .within(PathSeg::Type("Sarc".into()))
    })
}

/// Encodes an archive in `variant`'s byte order.
pub fn encode(archive: &Sarc, variant: Variant) -> EncodeResult<Vec<u8>> {
    schema::encode(archive, variant)
}

/// Whether `data` starts like a SARC archive.
pub fn looks_like(data: &[u8]) -> bool {
    data.starts_with(MAGIC)
}
