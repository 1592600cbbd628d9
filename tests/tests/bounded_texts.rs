//! Text from someone else is bounded like a file (issue 70): a slot count
//! in a 30-byte MSBT text allocated 34 GB, msyt's reader was quadratic in
//! its entries, and 200,000 MSBT tags took 380 times their text. Each case
//! is held to the tools' memory rule (256 times the input, at least
//! 512 MiB; several far tighter), counted as `bounded_tools.rs` counts it:
//! every byte allocated, freed or not, an upper bound of the peak.
//!
//! One test function only: the counter is global.

mod counted;

use counted::{allocated_by, bound};
use std::fmt::Write;
use std::time::Instant;

/// msyt's YAML of `n` one-line messages.
fn msyt(n: usize, group_count: u64) -> String {
    let mut s = format!("group_count: {group_count}\nentries:\n");
    for i in 0..n {
        let _ = write!(s, "  L{i}:\n    contents:\n      - text: hello {i}\n");
    }
    s
}

/// Seconds to read `text` as msyt and write its MSBT (the fastest of two).
fn msyt_time(text: &str) -> f64 {
    (0..2)
        .map(|_| {
            let t = Instant::now();
            formats::msbt::from_msyt(text, "Le").expect("the msyt text writes");
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn texts_are_read_within_bounds() {
    let mut report = Vec::new();
    // The MSBT schema is checked once, on first use: not counted below.
    formats::msbt::from_text("A: hi\n").expect("a one-message text writes");

    // A slot count inside the documented range asked for 2^32 slots of 8
    // bytes; 50,000,000 wrote a 400 MB file from 30 bytes. Refused before
    // anything is allocated for them, in both dialects.
    for slots in [u64::from(u32::MAX), 50_000_000] {
        let text = format!("$msbt:\n  slots: {slots}\nA: hi\n");
        let (bytes, result) = allocated_by(|| formats::msbt::from_text(&text));
        let error = result.expect_err("a table of mostly empty slots is refused");
        assert!(
            error.contains(&format!("{slots} hash slots for 1 record")),
            "{error}"
        );
        assert!(bytes < 1 << 20, "slots {slots}: {bytes} bytes");
        report.push(format!("$msbt.slots {slots}: refused, {bytes} B"));
        let (bytes, result) = allocated_by(|| formats::msbt::from_msyt(&msyt(1, slots), "Le"));
        let error = result.expect_err("msyt's group_count is the same count");
        assert!(error.contains("hash slots"), "{error}");
        assert!(bytes < 1 << 20, "group_count {slots}: {bytes} bytes");
    }
    // One slot per record is always allowed, and so is a sparse table of
    // up to 65,536 slots.
    let text = "$msbt:\n  slots: 65536\nA: hi\n";
    let bytes = formats::msbt::from_text(text).expect("65,536 slots are written");
    assert!(bytes.len() > 65_536 * 8);

    // msyt's reader is linear: four times the entries take about four
    // times as long, not sixteen (a ratio: the machine's speed does not
    // matter). 100,000 entries took over a minute.
    let (small, large) = (msyt_time(&msyt(5_000, 101)), msyt_time(&msyt(20_000, 101)));
    assert!(
        large < 8.0 * small,
        "msyt: 20,000 entries {large:.3} s, 5,000 {small:.3} s: not linear"
    );
    report.push(format!(
        "msyt: 5,000 entries {small:.3} s, 20,000 {large:.3} s"
    ));

    // 200,000 tags in one message: 996 MB, 380 times the text.
    let text = format!(
        "A: |-\n  {}\n",
        "<0 Type='3' Data='0x0000'/>".repeat(200_000)
    );
    let (bytes, result) = allocated_by(|| formats::msbt::from_text(&text));
    result.expect("200,000 tags write");
    assert!(
        bytes <= bound(text.len()),
        "200,000 tags ({} B of text): {bytes} B allocated",
        text.len()
    );
    report.push(format!(
        "200,000 tags, {} B of text: {bytes} B allocated in all ({:.0}x)",
        text.len(),
        bytes as f64 / text.len() as f64
    ));

    println!("{}", report.join("\n"));
}
