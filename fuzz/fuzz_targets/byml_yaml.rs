//! Any text, read as BYML YAML (oead's dialect): the reader returns a
//! document or an error with a line and column, never panics or hangs. A
//! document it accepts either encodes or is refused with a message; what
//! encodes decodes back to the same bytes, and its own YAML reads back to
//! the same bytes.
#![no_main]

use formats::byml::{self, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(yaml) = std::str::from_utf8(data) else { return };
    let (variant, doc) = match text::from_yaml(yaml, Some(7), Some(false)) {
        Ok(v) => v,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Ok(first) = byml::encode(&doc, variant) else { return };
    // Decode recovers a hash's entry order from where their targets lie,
    // section by section. A text may list a 64-bit value and a container
    // holding another in an order the first binary's layout does not tell
    // (docs/schema-language.md, `visit: Document`): that binary decodes to
    // the same content, and the fixed point is its re-encoding.
    let (v1, first_doc) = byml::decode(&first).expect("an encoded document decodes");
    let bytes = byml::encode(&first_doc, v1).expect("a decoded document encodes");
    let (v2, again) = byml::decode(&bytes).expect("an encoded document decodes");
    // Compared through the views, floats by their bits: `==` on documents
    // holding a NaN is false even between identical bytes (`: .NAN`).
    if let Err(at) = byml::views::compare(&bytes, &first_doc, v2) {
        panic!("the second binary reads as another document at {at}");
    }
    let bytes2 = byml::encode(&again, v2).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "text -> binary -> binary is not a fixed point");
    let ours = text::to_yaml(&again, v2);
    let (v3, back) = text::from_yaml(&ours, None, None).expect("our YAML reads back");
    assert_eq!(byml::encode(&back, v3).expect("it encodes"), bytes2, "binary -> YAML -> binary differs");
});
