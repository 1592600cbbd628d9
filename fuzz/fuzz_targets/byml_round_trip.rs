//! What decodes as BYML must encode, and the encoding must decode to the
//! same bytes again (shared containers, placement order and the writer's
//! sharing kept); the YAML of a decoded document reads back to the same
//! bytes.
#![no_main]

use formats::byml::{self, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok((variant, doc)) = byml::decode(data) else { return };
    let Ok(bytes) = byml::encode(&doc, variant) else { return };
    let (v2, again) = byml::decode(&bytes).expect("an encoded document decodes");
    assert_eq!(variant, v2, "the variant changed");
    let bytes2 = byml::encode(&again, v2).expect("a decoded document encodes");
    assert_eq!(bytes, bytes2, "decode -> encode is not a fixed point");
    let yaml = text::to_yaml(&again, v2);
    let (v3, back) = text::from_yaml(&yaml, None, None).expect("our YAML reads back");
    let bytes3 = byml::encode(&back, v3).expect("the YAML's document encodes");
    assert_eq!(bytes2, bytes3, "binary -> YAML -> binary differs");
});
