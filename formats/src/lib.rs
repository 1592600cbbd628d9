//! The formats this project decodes and encodes, each generated from its
//! schema under `schemas/`, plus what the `codec` command needs: detection
//! by magic and the decode → encode round trip.

pub mod aamp;
pub mod ainb;
pub mod bdat;
pub mod byml;
pub mod interp_hooks;
pub mod layer;
pub mod research;
pub mod retype;
pub mod sarc;
pub mod yaml;

use std::fmt;

/// A binary format the project supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Aamp,
    /// Legacy BDAT (Xenoblade before XC3); the game is detected too.
    Bdat,
    Ainb,
    /// SARC archives (both byte orders; the byte-order mark decides).
    Sarc,
    /// BYML documents (versions 1-7, both byte orders; the magic decides).
    Byml,
}

impl Format {
    /// Every format, in the order detection tries them. The command's
    /// checks over "any format" (a `--variant` no format knows) read this.
    pub const ALL: [Format; 5] = [
        Format::Aamp,
        Format::Bdat,
        Format::Ainb,
        Format::Sarc,
        Format::Byml,
    ];

    /// Detects the format from the file's first bytes.
    pub fn detect(data: &[u8]) -> Option<Format> {
        if data.starts_with(aamp::MAGIC) {
            Some(Format::Aamp)
        } else if bdat::looks_like(data) {
            Some(Format::Bdat)
        } else if data.starts_with(ainb::MAGIC) {
            Some(Format::Ainb)
        } else if sarc::looks_like(data) {
            Some(Format::Sarc)
        } else if byml::looks_like(data) {
            Some(Format::Byml)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Aamp => "aamp",
            Format::Bdat => "bdat",
            Format::Ainb => "ainb",
            Format::Sarc => "sarc",
            Format::Byml => "byml",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a round trip failed.
#[derive(Debug)]
pub enum RoundTripError {
    Decode(codec_runtime::DecodeError),
    Encode(codec_runtime::EncodeError),
}

impl fmt::Display for RoundTripError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundTripError::Decode(e) => write!(f, "decode error {e}"),
            RoundTripError::Encode(e) => write!(f, "encode error: {e}"),
        }
    }
}

impl std::error::Error for RoundTripError {}

/// The schema variant that `name`, as a user types it, means for `format`:
/// the variant's own name in any case (`Switch`, `V407`), a game (BDAT:
/// `xc2`, `xcx`, `wii`, `3ds`, ...) or a version (AINB: `0x407`, `407`).
/// `None` when the format has no such variant (AAMP has none).
pub fn variant_name(format: Format, name: &str) -> Option<&'static str> {
    match format {
        Format::Aamp => None,
        Format::Sarc => sarc::Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(name))
            .map(sarc::Variant::name),
        Format::Byml => byml::Variant::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(name))
            .map(byml::Variant::name),
        Format::Bdat => bdat::Variant::from_game(name)
            .or_else(|| {
                bdat::Variant::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(name))
            })
            .map(bdat::Variant::name),
        Format::Ainb => {
            let digits = name.trim_start_matches(['v', 'V']);
            let digits = digits.trim_start_matches("0x");
            u32::from_str_radix(digits, 16)
                .ok()
                .and_then(ainb::variant_of)
                .map(ainb::Variant::name)
        }
    }
}

/// The names `--variant` takes for `format`, for messages.
pub fn variant_names(format: Format) -> &'static str {
    match format {
        Format::Aamp => "none (AAMP has no variants)",
        Format::Sarc => "little, big (the byte order; a file's mark names its own)",
        Format::Byml => "le, be, v1le, v1be (a file's magic and version name its own)",
        Format::Bdat => "switch (xc2, xc1de), x (xcx), wii (xc1), new3ds (3ds, xc3d)",
        Format::Ainb => "0x404, 0x407, 0x408 (the version; a file names its own)",
    }
}

/// Decodes `data` as `format` into its document model and encodes it again.
pub fn round_trip(format: Format, data: &[u8]) -> Result<Vec<u8>, RoundTripError> {
    round_trip_as(format, None, data)
}

/// As [`round_trip`], reading the file as the schema variant `variant` (a
/// name [`variant_name`] gave) instead of the one detected. AINB files name
/// their version, so for AINB a variant other than the file's is an error.
pub fn round_trip_as(
    format: Format,
    variant: Option<&str>,
    data: &[u8],
) -> Result<Vec<u8>, RoundTripError> {
    if let (Format::Bdat, Some(name)) = (format, variant) {
        if let Some(v) = bdat::Variant::ALL.iter().find(|v| v.name() == name) {
            let doc = bdat::decode_as(data, *v).map_err(RoundTripError::Decode)?;
            return bdat::encode(&doc, *v).map_err(RoundTripError::Encode);
        }
    }
    // BYML and SARC files name their own variant (the magic and version,
    // the byte-order mark): one asked for must be that one.
    let own = match format {
        Format::Byml => byml::detect(data).map(byml::Variant::name),
        Format::Sarc => sarc::Variant::detect(data).map(sarc::Variant::name),
        _ => None,
    };
    if let (Some(own), Some(name)) = (own, variant) {
        if own != name {
            return Err(RoundTripError::Decode(codec_runtime::DecodeError::new(
                0,
                codec_runtime::ErrorKind::Invalid(format!(
                    "the file is of the variant {own}, not the variant {name} asked for"
                )),
            )));
        }
    }
    if let (Format::Ainb, Some(name)) = (format, variant) {
        let version = data
            .get(4..8)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let own = version.and_then(ainb::variant_of).map(ainb::Variant::name);
        if own.is_some() && own != Some(name) {
            return Err(RoundTripError::Decode(codec_runtime::DecodeError::new(
                4,
                codec_runtime::ErrorKind::Invalid(format!(
                    "the file is version 0x{:x}, not the variant {name} asked for",
                    version.unwrap_or_default()
                )),
            )));
        }
    }
    match format {
        Format::Aamp => {
            let doc = aamp::decode(data).map_err(RoundTripError::Decode)?;
            aamp::encode(&doc).map_err(RoundTripError::Encode)
        }
        Format::Bdat => {
            let (variant, doc) = bdat::decode(data).map_err(RoundTripError::Decode)?;
            bdat::encode(&doc, variant).map_err(RoundTripError::Encode)
        }
        Format::Ainb => {
            let doc = ainb::decode(data).map_err(RoundTripError::Decode)?;
            ainb::encode(&doc).map_err(RoundTripError::Encode)
        }
        Format::Sarc => {
            let (v, doc) = sarc::decode(data).map_err(RoundTripError::Decode)?;
            sarc::encode(&doc, v).map_err(RoundTripError::Encode)
        }
        Format::Byml => {
            let (v, doc) = byml::decode(data).map_err(RoundTripError::Decode)?;
            byml::encode(&doc, v).map_err(RoundTripError::Encode)
        }
    }
}

/// Whether `a` and `b`, two files of `format`, decode to the same document
/// (for BDAT: also as the same game). `check` uses it to tell a file whose
/// re-encoding only lays the content out differently from its writer's
/// layout (equivalent) from one whose content would be lost (differs).
pub fn same_document(format: Format, a: &[u8], b: &[u8]) -> Result<bool, RoundTripError> {
    let d = RoundTripError::Decode;
    Ok(match format {
        Format::Aamp => aamp::decode(a).map_err(d)? == aamp::decode(b).map_err(d)?,
        Format::Bdat => bdat::decode(a).map_err(d)? == bdat::decode(b).map_err(d)?,
        Format::Ainb => ainb::decode(a).map_err(d)? == ainb::decode(b).map_err(d)?,
        Format::Sarc => sarc::decode(a).map_err(d)? == sarc::decode(b).map_err(d)?,
        Format::Byml => byml::decode(a).map_err(d)? == byml::decode(b).map_err(d)?,
    })
}

/// A JSON syntax error as (where, what): serde_json's message ends with its
/// own "at line L column C", which the location already says once.
pub fn json_syntax(e: &serde_json::Error) -> (String, String) {
    let message = e.to_string();
    let what = match message.rsplit_once(" at line ") {
        Some((what, _)) => what.to_owned(),
        None => message,
    };
    (format!("line {}, column {}", e.line(), e.column()), what)
}

/// `s` as printed: control characters (a newline, an escape sequence that
/// would drive the terminal) escaped as `\n`, `\u{1b}`, ...; the rest as is.
pub fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// An I/O error in words: "not found" rather than the system's "No such
/// file or directory (os error 2)".
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "not found".to_owned(),
        _ => e.to_string(),
    }
}
