//! What decodes as BYML must encode, and the encoding must decode to the
//! same bytes again (shared containers, placement order and the writer's
//! sharing kept); the YAML of a decoded document reads back to the same
//! bytes. A decode that shares the input (`decode_shared`) gives the same
//! document, or the same error.
#![no_main]

use formats::byml::{self, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let shared = std::sync::Arc::new(data.to_vec());
    let decoded = byml::decode(data);
    match (&decoded, byml::decode_shared(&shared)) {
        // A NaN float is not equal to itself: documents holding one are
        // compared by what they print and by the bytes they encode to.
        (Ok(a), Ok(b)) => assert!(
            *a == b
                || (format!("{a:?}") == format!("{b:?}")
                    && byml::encode(&a.1, a.0).ok() == byml::encode(&b.1, b.0).ok()),
            "a shared decode read another document"
        ),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "another error"),
        (a, b) => panic!("decode and decode_shared disagree: {a:?} / {b:?}"),
    }
    let Ok((variant, doc)) = decoded else { return };
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
