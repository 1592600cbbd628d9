//! Any input: legacy BDAT's zero-copy views (the module of the game variant
//! the file looks like, when it has views) open it or give a located
//! error, a walk over every cell of every table ends (no panic, no hang),
//! and where decode succeeds the views agree with the file value for value;
//! looking every column up by name through the hash index ends.
//!
//! One difference is allowed: decode reads each string a table's cells
//! point at once, where a view reads it for every cell that asks. A file
//! whose cells point many times at the same long string can run a walk out
//! of its read budget where decode finishes (`docs/views.md`).
#![no_main]

use codec_runtime::ErrorKind;
use formats::bdat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(variant) = bdat::detect(data) else { return };
    let Some(walked) = bdat::views::visit(data, variant) else { return };
    if let Err(e) = &walked {
        let _ = e.to_string();
        if matches!(e.kind(), ErrorKind::BudgetExhausted { .. }) {
            return;
        }
    }
    if let Ok(file) = bdat::decode_as(data, variant) {
        if let Err(at) = bdat::views::compare(data, &file, variant) {
            panic!("the views and decode disagree at {at}");
        }
        walked.expect("decode read every table, so the views do");
    }
    // Looking columns up by name through the hash indices ends too (a
    // chain that loops runs out of budget).
    if let Some(Err(e)) = bdat::views::find_columns(data, variant) {
        let _ = e.to_string();
    }
});
