//! What decodes as a resource size table must encode to the same bytes
//! (every field is kept, names in their 128-byte fields); its JSON reads
//! back to the same bytes; and JSON that reads must encode or be refused
//! with an error, never panic.
#![no_main]

use formats::rstb::{self, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(json) = std::str::from_utf8(data) {
        if let Ok((v, doc, _)) = text::from_json(json) {
            let _ = rstb::encode(&doc, v);
        }
    }
    let Ok((variant, doc)) = rstb::decode(data) else { return };
    let bytes = rstb::encode(&doc, variant).expect("a decoded table encodes");
    assert_eq!(bytes, data, "decode -> encode differs");
    let json = text::to_json(&doc, variant, &[]);
    let (v2, back, _) = text::from_json(&json).expect("our JSON reads back");
    assert_eq!(rstb::encode(&back, v2).expect("the JSON's table encodes"), data);
});
