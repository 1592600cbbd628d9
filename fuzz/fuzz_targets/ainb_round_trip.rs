//! What decodes must encode, and the encoding must decode to the same bytes
//! again; the JSON form of a decoded file reads back to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = formats::ainb::decode(data) else { return };
    let Ok(bytes) = formats::ainb::encode(&doc) else { return };
    let again = formats::ainb::decode(&bytes).expect("an encoded document decodes");
    let bytes2 = formats::ainb::encode(&again).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "decode -> encode is not a fixed point");
    if let Ok(json) = formats::ainb::text::to_json(&again) {
        let back = formats::ainb::text::from_json(&json).expect("our JSON reads back");
        let bytes3 = formats::ainb::encode(&back).expect("the JSON's document encodes");
        assert_eq!(bytes2, bytes3, "binary -> JSON -> binary differs");
    }
});
