//! What decodes must encode, and the encoding must decode to the same value
//! (compared by re-encoding, so NaN payloads compare by bits).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = formats::aamp::decode(data) else { return };
    let Ok(bytes) = formats::aamp::encode(&doc) else { return };
    let again = formats::aamp::decode(&bytes).expect("an encoded document decodes");
    let bytes2 = formats::aamp::encode(&again).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "decode -> encode is not a fixed point");
});
