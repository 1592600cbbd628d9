//! Drives one side of the BYML bench in a loop, for a profiler:
//! `cargo run -p bench --profile bench --example byml_profile -- <decode|view|encode|to-text|walk|from-text> [iterations]`

use std::hint::black_box;

fn main() {
    let (what, iterations) = bench::profile_args(
        "byml_profile <decode|view|encode|to-text|walk|from-text> [iterations]",
    );
    let files = bench::load_byml().expect("the byml corpus");
    let docs: Vec<_> = files
        .iter()
        .map(|f| formats::byml::decode(&f.bytes).unwrap())
        .collect();
    let texts: Vec<_> = docs
        .iter()
        .map(|(v, d)| formats::byml::text::to_yaml(d, *v))
        .collect();
    for _ in 0..iterations {
        match what.as_str() {
            "decode" => files.iter().for_each(|f| {
                black_box(formats::byml::decode(&f.bytes).unwrap());
            }),
            "view" => files.iter().zip(&docs).for_each(|(f, (v, _))| {
                black_box(formats::byml::views::visit(&f.bytes, *v).unwrap());
            }),
            "encode" => docs.iter().for_each(|(v, d)| {
                black_box(formats::byml::encode(d, *v).unwrap());
            }),
            "walk" => docs.iter().for_each(|(_, d)| {
                black_box(bench::byml_walk(d));
            }),
            "to-text" => docs.iter().for_each(|(v, d)| {
                black_box(formats::byml::text::to_yaml(d, *v));
            }),
            "from-text" => texts.iter().for_each(|t| {
                black_box(formats::byml::text::from_yaml(t, None, None).unwrap());
            }),
            other => panic!("unknown: {other}"),
        }
    }
}
