//! The interpreter against the compiled codec on BYML: whatever both
//! decode, the interpreter (reading and writing from `schemas/byml.ron`
//! alone) writes exactly the compiled codec's bytes, and what it writes
//! reads back to a document that writes the same bytes again.
//!
//! Not always the same document: a hash's entries are given in the order
//! their children were placed, recovered from where the children lie, and
//! a child the writer shares with an earlier list lies where that list
//! placed it, which says nothing of its order in this one. A file found
//! while fuzzing on 2026-11-29 read as `Dynamic, …, Phive` in one hash
//! whose `Phive` equalled 33 other actors' `Phive`; written, that child is
//! shared and placed earlier, and the file reads back as `Phive, …,
//! Dynamic`. Both orders write the same bytes, with the compiled codec as
//! with the interpreter (`byml_round_trip` holds the codec to the same
//! fixed point).
#![no_main]

use codec_interp as interp;
use formats::byml;
use formats::interp_hooks::Glue;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn schema() -> &'static codec_schema::Checked {
    static SCHEMA: OnceLock<codec_schema::Checked> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        codec_schema::parse_str(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron")
            .expect("the built-in schema checks")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok((variant, doc)) = byml::decode(data) else { return };
    let Ok(expected) = byml::encode(&doc, variant) else { return };
    let c = schema()
        .variant(variant.name())
        .expect("every detected variant is the schema's");
    let limits = codec_runtime::Limits::default();
    let d = interp::decode_partial_with(c, data, limits, &Glue);
    if let Some(e) = d.error {
        panic!("the codec decodes what the interpreter refuses: {e}");
    }
    let v = d.root.to_value();
    let mine = interp::encode(c, &v, &Glue).expect("the interpreter writes what it read");
    assert!(mine == expected, "the interpreter writes other bytes than the codec");
    let again = interp::decode(c, &mine).expect("the interpreter reads what it wrote");
    let twice = interp::encode(c, &again.to_value(), &Glue).expect("and writes it again");
    assert!(twice == mine, "decode -> encode is not a fixed point");
});
