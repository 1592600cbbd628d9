//! Any text, read by the fast YAML reader and by saphyr-parser: where the
//! fast reader takes a text, it gives saphyr-parser's events at
//! saphyr-parser's start positions (and saphyr-parser accepts the text);
//! it never panics or hangs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = formats::yaml::fast::compare_with_full_parser(text) {
        panic!("the fast reader differs from saphyr-parser: {e}");
    }
});
