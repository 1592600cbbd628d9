//! The glue of the built-in schemas, for the schema interpreter
//! (`codec dump`, `codec coverage`, `codec check --schema`): looked up by the names the schemas
//! declare, so that `codec-schema` needs no dependency on this crate.

use codec_interp::{Hooks, Value};
use codec_runtime::{DecodeResult, EncodeResult, Endian, SelectCx};
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

    fn transform_encode(
        &self,
        name: &str,
        bytes: &mut [u8],
        endian: Endian,
    ) -> Option<EncodeResult<()>> {
        match name {
            "scramble" => Some(crate::bdat::glue::scramble_bytes(bytes, endian)),
            _ => None,
        }
    }

    fn checksum(&self, name: &str, bytes: &[u8]) -> Option<u64> {
        match name {
            "checksum" => Some(crate::bdat::glue::checksum(bytes)),
            _ => None,
        }
    }

    fn index_hash(&self, name: &str, key: &[u8]) -> Option<u64> {
        match name {
            "name_hash" => Some(crate::bdat::glue::name_hash(key)),
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

    fn visit_order<'v>(
        &self,
        name: &str,
        root: &'v Value,
    ) -> Option<Result<Vec<&'v Value>, String>> {
        match name {
            "data_order" => Some(crate::aamp::glue::data_order_generic(root)),
            _ => None,
        }
    }

    fn key_hash(&self, name: &str, key: &[u8], seed: u64) -> Option<u64> {
        match name {
            "name_hash" => Some(crate::sarc::glue::name_hash(key, seed)),
            _ => None,
        }
    }

    fn kept_align(&self, name: &str, value: &Value) -> Option<u64> {
        match name {
            "file_alignment" => {
                let bytes: Vec<u8> = match value {
                    Value::Bytes(b) => b.clone(),
                    Value::Seq(s) => s
                        .iter()
                        .map(|x| match x {
                            Value::U8(b) => Some(*b),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                    _ => return None,
                };
                Some(crate::sarc::glue::file_alignment(&bytes))
            }
            _ => None,
        }
    }
}
