//! Drives one side of the MSBT bench in a loop, for a profiler:
//! `cargo run -p bench --profile bench --example msbt_profile -- <decode|encode|to-text|from-text> [iterations]`

use std::hint::black_box;

fn main() {
    let (what, iterations) =
        bench::profile_args("msbt_profile <decode|encode|to-text|from-text> [iterations]");
    let files = bench::load_tree("msbt", formats::msbt::MAGIC).expect("the msbt corpus");
    let docs: Vec<_> = files
        .iter()
        .map(|f| formats::msbt::decode_typed(&f.bytes).unwrap())
        .collect();
    let texts: Vec<_> = files
        .iter()
        .filter_map(|f| formats::msbt::to_text(&f.bytes).ok())
        .collect();
    let t = std::time::Instant::now();
    for _ in 0..iterations {
        match what.as_str() {
            "decode" => files.iter().for_each(|f| {
                black_box(formats::msbt::decode_typed(&f.bytes).unwrap());
            }),
            "encode" => docs.iter().for_each(|(v, d)| {
                black_box(formats::msbt::encode_typed(d, v).unwrap());
            }),
            "to-text" => files.iter().for_each(|f| {
                black_box(formats::msbt::to_text(&f.bytes).ok());
            }),
            "from-text" => texts.iter().for_each(|t| {
                black_box(formats::msbt::from_text(t).unwrap());
            }),
            other => panic!("unknown: {other}"),
        }
    }
    eprintln!(
        "{what}: {} files x {iterations}: {:.3} ms per pass",
        files.len(),
        t.elapsed().as_secs_f64() * 1e3 / iterations as f64
    );
}
