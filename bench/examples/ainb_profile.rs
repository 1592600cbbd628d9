//! Drives one side of the AINB bench in a loop, for a profiler:
//! `cargo run -p bench --profile bench --example ainb_profile -- <decode|encode> [iterations]`

use std::hint::black_box;

fn main() {
    let (what, iterations) = bench::profile_args("ainb_profile <decode|encode> [iterations]");
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
