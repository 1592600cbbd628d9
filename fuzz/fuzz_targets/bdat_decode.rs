//! Any input, read as each game's legacy BDAT: decoding returns Ok or a
//! located error, and never panics, hangs or allocates beyond the decoder's
//! budget; what decodes converts to JSON and CSV without panicking.
#![no_main]

use formats::bdat::{self, text, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bdat::detect(data);
    let _ = bdat::looks_like(data);
    for v in Variant::ALL {
        match bdat::decode_as(data, v) {
            Ok(file) => {
                let texts = text::file_to_text(&file, v, "fuzz");
                for t in &file.tables {
                    let _ = text::table_to_csv(t);
                }
                let _ = texts.bschema;
            }
            Err(e) => {
                assert!(e.offset() <= data.len() as u64 + 0x1_0000_0000);
                let _ = e.to_string();
            }
        }
    }
});
