//! Any input: decoding an AINB file returns Ok or a located error, and never
//! panics, hangs or allocates beyond the decoder's budget; what decodes
//! converts to JSON (or refuses to, with a message) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match formats::ainb::decode(data) {
        Ok(doc) => {
            let _ = formats::ainb::text::to_json(&doc);
        }
        Err(e) => {
            assert!(e.offset() <= data.len() as u64 + 0x1_0000_0000);
            let _ = e.to_string();
        }
    }
});
