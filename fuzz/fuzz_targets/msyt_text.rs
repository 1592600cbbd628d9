//! Any text: reading msyt's YAML gives a file or an error with a line and
//! column, never a panic; a file it gives decodes by the schema, in the
//! variant asked for.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(source) = std::str::from_utf8(rest) else {
        return;
    };
    let variant = ["Le", "Be", "LeUtf8", "BeUtf32"][usize::from(pick % 4)];
    if let Ok(bytes) = formats::msbt::from_msyt(source, variant) {
        let (read, _) = formats::msbt::decode(&bytes).expect("a file written from msyt's YAML decodes");
        assert_eq!(read, variant);
    }
});
