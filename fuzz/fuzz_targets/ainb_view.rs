//! Any input: AINB's zero-copy views (the module of the version the header
//! names) open it or give a located error, a walk over the commands, nodes
//! and the records at fixed places ends without a panic, and where decode
//! succeeds the views agree with the file.
#![no_main]

use codec_runtime::ErrorKind;
use formats::ainb;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(word) = data.get(4..8) else { return };
    let version = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    let Some(variant) = ainb::variant_of(version) else { return };
    let walked = ainb::views::visit(data, variant);
    if let Err(e) = &walked {
        let _ = e.to_string();
        // A view reads a string each time it is asked for; decode, once.
        if matches!(e.kind(), ErrorKind::BudgetExhausted { .. }) {
            return;
        }
    }
    if let Ok(file) = ainb::schema::decode(data, variant) {
        if let Err(at) = ainb::views::compare(data, &file, variant) {
            panic!("the views and decode disagree at {at}");
        }
        walked.expect("decode read the file, so the views do");
    }
});
