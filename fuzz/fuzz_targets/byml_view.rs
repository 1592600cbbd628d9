//! Any input: BYML's zero-copy views (the module of the variant its magic
//! and version say) open it or give a located error, a walk over every
//! node ends (no panic, no hang: a cycle runs out of depth or budget), and
//! where decode succeeds the views agree with the document node for node
//! and visit as many nodes as it holds.
#![no_main]

use formats::byml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(variant) = byml::detect(data) else { return };
    let walked = byml::views::visit(data, variant);
    if let Err(e) = &walked {
        let _ = e.to_string();
    }
    if let Ok((v, doc)) = byml::decode(data) {
        assert_eq!(v, variant, "decode and the views read another variant");
        if let Err(at) = byml::views::compare(data, &doc, variant) {
            panic!("the views and decode disagree at {at}");
        }
        walked.expect("decode read every node, so the views do");
    }
});
