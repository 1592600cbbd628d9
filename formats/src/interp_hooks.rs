//! The glue of the built-in schemas, for the schema interpreter
//! (`codec dump`, `codec coverage`): looked up by the names the schemas
//! declare, so that `codec-schema` needs no dependency on this crate.

use codec_runtime::{DecodeResult, Endian, SelectCx};
use codec_schema::interp::Hooks;
use std::borrow::Cow;

/// Every glue function the built-in schemas name for decoding.
#[derive(Debug, Clone, Copy, Default)]
pub struct Glue;

impl Hooks for Glue {
    fn transform<'a>(
        &self,
        name: &str,
        bytes: &'a [u8],
        endian: Endian,
    ) -> Option<DecodeResult<Cow<'a, [u8]>>> {
        match name {
            "unscramble" => Some(crate::bdat::glue::unscramble(bytes, endian)),
            _ => None,
        }
    }

    fn select(&self, name: &str, cx: &SelectCx<'_>) -> Option<Option<u64>> {
        match name {
            "plug_variant" => Some(crate::ainb::glue::plug_variant(cx)),
            "transition_variant" => Some(crate::ainb::glue::transition_variant(cx)),
            _ => None,
        }
    }
}
