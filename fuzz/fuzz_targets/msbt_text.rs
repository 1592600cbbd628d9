//! Any text: reading MSBT's editors' text gives a file or an error with a
//! line and column, never a panic; a file it gives has the same text again
//! (the text of a text's file reads back to that file).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(bytes) = formats::msbt::from_text(source) {
        let text = formats::msbt::to_text(&bytes).expect("a file written from a text has a text");
        assert_eq!(formats::msbt::from_text(&text).as_deref(), Ok(&bytes[..]));
    }
});
