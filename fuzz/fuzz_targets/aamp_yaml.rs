//! Any text, read as AAMP YAML: the reader returns a document or an error
//! with a line and column, never panics or hangs. A document it accepts
//! either encodes or is refused with a message; what encodes decodes back to
//! the same bytes, and its own YAML reads back to the same bytes.
#![no_main]

use formats::aamp::{self, names::NameTable, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The command line refuses text that is not UTF-8 before parsing.
    let Ok(yaml) = std::str::from_utf8(data) else { return };
    let pio = match text::from_yaml(yaml) {
        Ok(pio) => pio,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Ok(bytes) = aamp::encode(&pio) else { return };
    let again = aamp::decode(&bytes).expect("an encoded document decodes");
    let bytes2 = aamp::encode(&again).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "text -> binary -> binary is not a fixed point");
    let ours = text::to_yaml(&again, &NameTable::new());
    let back = text::from_yaml(&ours).expect("our YAML reads back");
    assert_eq!(aamp::encode(&back).expect("it encodes"), bytes2, "binary -> YAML -> binary differs");
});
