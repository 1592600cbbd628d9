//! Any text, read as a bdat-toolset table JSON for each game and as a
//! `.bschema`: the readers return a value or a located error, never panic or
//! hang. A table they accept either encodes or is refused with a message; what
//! encodes decodes to a table whose JSON gives the same bytes again.
#![no_main]

use formats::bdat::{self, text, BdatFile, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = std::str::from_utf8(data) else { return };
    if let Err(e) = text::read_bschema(json) {
        let _ = e.to_string();
    }
    for v in Variant::ALL {
        let table = match text::table_from_json(json, "fuzz", v) {
            Ok(t) => t,
            Err(e) => {
                let _ = e.to_string();
                continue;
            }
        };
        let Ok(bytes) = bdat::encode(&BdatFile { tables: vec![table] }, v) else { continue };
        let again = bdat::decode_as(&bytes, v).expect("an encoded file decodes");
        let bytes2 = bdat::encode(&again, v).expect("a decoded file encodes");
        assert_eq!(bytes, bytes2, "JSON -> binary -> binary is not a fixed point");
        let ours = text::table_to_json(&again.tables[0], "fuzz");
        let back = text::table_from_json(&ours, "fuzz", v).expect("our JSON reads back");
        let bytes3 = bdat::encode(&BdatFile { tables: vec![back] }, v).expect("it encodes");
        assert_eq!(bytes2, bytes3, "binary -> JSON -> binary differs");
    }
});
