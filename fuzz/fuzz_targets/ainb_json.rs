//! Any text, read as AINB JSON: the reader returns a document or an error
//! naming the JSON path, never panics or hangs. A document it accepts either
//! encodes or is refused with a message; what encodes decodes back to the same
//! bytes, and its own JSON reads back to the same bytes.
#![no_main]

use formats::ainb::{self, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = std::str::from_utf8(data) else { return };
    let doc = match text::from_json(json) {
        Ok(doc) => doc,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Ok(bytes) = ainb::encode(&doc) else { return };
    let again = ainb::decode(&bytes).expect("an encoded document decodes");
    let bytes2 = ainb::encode(&again).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "JSON -> binary -> binary is not a fixed point");
    if let Ok(ours) = text::to_json(&again) {
        let back = text::from_json(&ours).expect("our JSON reads back");
        assert_eq!(ainb::encode(&back).expect("it encodes"), bytes2, "binary -> JSON -> binary differs");
    }
});
