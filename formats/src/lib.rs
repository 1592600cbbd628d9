//! The formats this project decodes and encodes, each generated from its
//! schema under `schemas/`, plus what the `codec` command needs: detection
//! by magic and the decode → encode round trip.

pub mod aamp;
pub mod ainb;
pub mod bdat;
pub mod interp_hooks;
pub mod layer;

use std::fmt;

/// A binary format the project supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Aamp,
    /// Legacy BDAT (Xenoblade before XC3); the game is detected too.
    Bdat,
    Ainb,
}

impl Format {
    /// Detects the format from the file's first bytes.
    pub fn detect(data: &[u8]) -> Option<Format> {
        if data.starts_with(aamp::MAGIC) {
            Some(Format::Aamp)
        } else if bdat::looks_like(data) {
            Some(Format::Bdat)
        } else if data.starts_with(ainb::MAGIC) {
            Some(Format::Ainb)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Aamp => "aamp",
            Format::Bdat => "bdat",
            Format::Ainb => "ainb",
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

/// Decodes `data` as `format` into its document model and encodes it again.
pub fn round_trip(format: Format, data: &[u8]) -> Result<Vec<u8>, RoundTripError> {
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
    }
}
