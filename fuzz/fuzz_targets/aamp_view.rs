//! Any input: the zero-copy views open it or give a located error, a walk
//! over every value ends (no panic, no hang: the views' budget and depth
//! guards), and where decode succeeds the views agree with the document
//! field for field.
#![no_main]

use formats::aamp::schema::view;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = view::source(data);
    let walked = view::open(&source).and_then(formats::aamp::views::visit_text);
    if let Err(e) = &walked {
        let _ = e.to_string();
    }
    if let Ok(doc) = formats::aamp::decode(data) {
        let source = view::source(data);
        let file = view::open(&source).expect("decode accepted the header");
        if let Err(field) = formats::aamp::views::compare(file, &doc) {
            panic!("view and decode disagree at {field}");
        }
        walked.expect("decode read every value");
    }
});
