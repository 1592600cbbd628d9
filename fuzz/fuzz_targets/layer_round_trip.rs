//! Any input, read as a Yaz0 file and as a zstd frame: decompressing returns
//! the content or a located error, never a panic, a hang or an allocation
//! past what the input can give; what decompresses recompresses to bytes
//! that decompress to the same content (the property `codec check` relies
//! on for every compressed file).
#![no_main]

use formats::layer::{yaz0, Dictionaries, Layer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dicts = Dictionaries::default();
    // As Yaz0: the header prepended when the input has none, so the
    // groups themselves are fuzzed.
    let mut y = data.to_vec();
    if !data.starts_with(yaz0::MAGIC) {
        let size = (data.len() as u32).saturating_mul(4);
        y = [b"Yaz0".as_slice(), &size.to_be_bytes(), &[0; 8], data].concat();
    }
    for input in [y.as_slice(), data] {
        let Some(layer) = Layer::detect(input) else {
            continue;
        };
        match layer.decompress(input, &dicts) {
            Ok(content) => {
                let again = layer.compress(&content, &dicts).expect("recompresses");
                assert_eq!(layer.decompress(&again, &dicts).expect("decompresses"), content);
            }
            Err(e) => assert!(e.offset <= input.len() as u64),
        }
    }
});
