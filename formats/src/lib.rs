//! The formats this project decodes and encodes, each generated from its
//! schema under `schemas/`, plus what the `codec` command needs: detection
//! by magic and the decode → encode round trip.

pub mod aamp;
pub mod ainb;
pub mod bdat;
pub mod byml;
pub mod interp_hooks;
pub mod layer;
pub mod msbt;
pub mod registry;
pub mod research;
pub mod retype;
pub mod rstb;
pub mod sarc;
pub mod yaml;

use std::fmt;

/// A binary format the project supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Aamp,
    /// Legacy BDAT (Xenoblade before XC3); the game is detected too.
    Bdat,
    Ainb,
    /// SARC archives (both byte orders; the byte-order mark decides).
    Sarc,
    /// BYML documents (versions 1-7, both byte orders; the magic decides).
    Byml,
    /// BotW's resource size table (both byte orders; the counts decide).
    Rstb,
    /// LMS message text (both byte orders, three encodings; the header
    /// decides), read and written by the schema interpreter.
    Msbt,
}

impl Format {
    /// Every format, in the order detection tries them ([`registry::FORMATS`]).
    pub fn all() -> impl Iterator<Item = Format> {
        registry::FORMATS.iter().map(|e| e.format)
    }

    /// What the project knows of this format, from its one entry.
    pub fn entry(self) -> &'static registry::Entry {
        // The entries are in the enum's order (a test checks it).
        &registry::FORMATS[self as usize]
    }

    /// Detects the format from the file's first bytes.
    pub fn detect(data: &[u8]) -> Option<Format> {
        registry::FORMATS
            .iter()
            .find(|e| (e.detect)(data).is_some())
            .map(|e| e.format)
    }

    pub fn name(self) -> &'static str {
        self.entry().name
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
    (format.entry().variant_named)(name)
}

/// The names `--variant` takes for `format`, for messages.
pub fn variant_names(format: Format) -> String {
    match format.entry().variants {
        Some(names) => names.to_owned(),
        None => format!("none ({} has no variants)", format.name()),
    }
}

/// Decodes `data` as `format` into its document model and encodes it again.
pub fn round_trip(format: Format, data: &[u8]) -> Result<Vec<u8>, RoundTripError> {
    round_trip_as(format, None, data)
}

/// As [`round_trip`], reading the file as the schema variant `variant` (a
/// name [`variant_name`] gave) instead of the one detected. Formats whose
/// files name their variant (AINB's version, BYML's magic and version,
/// SARC's byte-order mark) refuse a variant other than the file's own.
pub fn round_trip_as(
    format: Format,
    variant: Option<&str>,
    data: &[u8],
) -> Result<Vec<u8>, RoundTripError> {
    (format.entry().round_trip)(variant, data)
}

/// Whether `a` and `b`, two files of `format`, decode to the same document
/// (for BDAT: also as the same game). `check` uses it to tell a file whose
/// re-encoding only lays the content out differently from its writer's
/// layout (equivalent) from one whose content would be lost (differs).
pub fn same_document(format: Format, a: &[u8], b: &[u8]) -> Result<bool, RoundTripError> {
    (format.entry().same_document)(a, b)
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
