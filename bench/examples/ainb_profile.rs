//! Drives one side of the AINB bench in a loop, for a profiler:
//! `cargo run -p bench --profile bench --example ainb_profile -- <decode|encode> [iterations]`

use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(what), iterations) = (
        args.get(1),
        args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20usize),
    ) else {
        eprintln!("usage: ainb_profile <decode|encode> [iterations]");
        std::process::exit(2);
    };
    let files = bench::load_format("ainb", b"AIB ").expect("the ainb corpus");
    let docs: Vec<_> = files
        .iter()
        .map(|f| formats::ainb::decode(&f.bytes).unwrap())
        .collect();
    for _ in 0..iterations {
        match what.as_str() {
            "decode" => files.iter().for_each(|f| {
                black_box(formats::ainb::decode(&f.bytes).unwrap());
            }),
            "encode" => docs.iter().for_each(|d| {
                black_box(formats::ainb::encode(d).unwrap());
            }),
            other => panic!("unknown: {other}"),
        }
    }
}
