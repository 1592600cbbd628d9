//! The interpreter against the compiled codec on legacy BDAT: whatever the
//! codec decodes and encodes, the interpreter (reading and writing from
//! `schemas/bdat_legacy.ron` and the built-in glue alone) reads too, writes
//! to exactly the codec's bytes (rows, hash chains, references, checksums,
//! the scramble), and what it writes reads back to the same document.
#![no_main]

use codec_interp as interp;
use formats::bdat;
use formats::interp_hooks::Glue;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn schema() -> &'static codec_schema::Checked {
    static SCHEMA: OnceLock<codec_schema::Checked> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        codec_schema::parse_str(bdat::schema::SCHEMA_SOURCE, "schemas/bdat_legacy.ron")
            .expect("the built-in schema checks")
    })
}

fn read(c: &codec_schema::Checked, data: &[u8]) -> Result<interp::Value, String> {
    let limits = codec_runtime::Limits::default();
    let d = interp::decode_partial_with(c, data, limits, &Glue);
    match d.error {
        Some(e) => Err(e.to_string()),
        None => Ok(d.root.to_value()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok((variant, doc)) = bdat::decode(data) else { return };
    let Ok(expected) = bdat::encode(&doc, variant) else { return };
    let c = schema()
        .variant(variant.name())
        .expect("every detected variant is the schema's");
    let v = match read(c, data) {
        Ok(v) => v,
        Err(e) => panic!("the codec decodes what the interpreter refuses: {e}"),
    };
    let mine = interp::encode(c, &v, &Glue).expect("the interpreter writes what it read");
    assert!(mine == expected, "the interpreter writes other bytes than the codec");
    let again = read(c, &mine).expect("the interpreter reads what it wrote");
    assert!(again == v, "the written file reads back otherwise");
});
