//! What decodes must encode, and the encoding must decode and encode to the
//! same bytes again (compared as bytes, so NaN floats compare by bits); its
//! JSON reads back to the same bytes.
//!
//! The read budget is a multiple of the input's size, and rows of no
//! columns are charged a byte each (which bounds what a small file can
//! expand to). An encoding without the junk of the input can be smaller
//! than what reading its rows costs: such a file is refused for its budget
//! alone, and must then decode under larger limits.
#![no_main]

use codec_runtime::{ErrorKind, Limits};
use formats::bdat::{self, text, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for v in Variant::ALL {
        let Ok(file) = bdat::decode_as(data, v) else { continue };
        let Ok(bytes) = bdat::encode(&file, v) else { continue };
        let again = match bdat::decode_as(&bytes, v) {
            Err(e) if matches!(e.kind(), ErrorKind::BudgetExhausted { .. }) => {
                let limits = Limits {
                    read_factor: 1 << 20,
                    ..Limits::default()
                };
                bdat::schema::decode_with(&bytes, v, limits)
                    .expect("an encoded file decodes under larger limits")
            }
            r => r.expect("an encoded file decodes"),
        };
        let bytes2 = bdat::encode(&again, v).expect("a decoded file encodes");
        assert_eq!(bytes, bytes2, "decode -> encode is not a fixed point");
        let texts = text::file_to_text(&again, v, "fuzz");
        let schema = text::read_bschema(&texts.bschema).expect("our .bschema reads back");
        let back = text::file_from_text(&schema, v, |stem| {
            Ok(texts.tables.iter().find(|(s, _)| s == stem).expect("listed").1.clone())
        })
        .expect("our JSON reads back");
        assert_eq!(bdat::encode(&back, v).expect("the JSON's tables encode"), bytes2);
    }
});
