//! Any input: decoding an AAMP file returns Ok or a located error, and never
//! panics, hangs or allocates beyond the decoder's budget.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = formats::aamp::decode(data) {
        // Every error names where it happened.
        assert!(e.offset() <= data.len() as u64 + 0x1_0000_0000);
        let _ = e.to_string();
    }
});
