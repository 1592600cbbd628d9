//! Any input: an MSBT decodes to its document or a located error; a file
//! that decodes and has an editors' text comes back from that text byte
//! for byte (`to_text` checks it, so any difference is an error there, never
//! a panic or a silent change).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((variant, doc)) = formats::msbt::decode(data) {
        let again = formats::msbt::encode(&doc, variant);
        if let Ok(text) = formats::msbt::to_text(data) {
            assert_eq!(formats::msbt::from_text(&text).as_deref(), Ok(data));
        }
        let _ = again;
    }
});
