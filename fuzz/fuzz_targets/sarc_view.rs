//! Any input: SARC's zero-copy views (the module of the byte order its mark
//! says) open it or give a located error, a walk over every file ends (no
//! panic, no hang), and where decode succeeds the views agree with the
//! archive field for field, each file's bytes the input's own.
#![no_main]

use formats::sarc::{self, schema::Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(variant) = Variant::detect(data) else { return };
    let walked = sarc::views::visit(data, variant);
    if let Err(e) = &walked {
        let _ = e.to_string();
    }
    if let Ok((v, doc)) = sarc::decode(data) {
        assert_eq!(v, variant, "decode and the views read another byte order");
        if let Err(field) = sarc::views::compare(data, &doc, variant) {
            panic!("view and decode disagree at {field}");
        }
        let (n, _) = walked.expect("decode read every file");
        assert_eq!(n, doc.nodes.len());
    }
});
