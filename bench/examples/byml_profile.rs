//! Drives one side of the BYML bench in a loop, for a profiler:
//! `cargo run -p bench --profile bench --example byml_profile -- <decode|decode-shared|view|encode|to-text|walk|clone|from-text> [iterations] [corpus|float_arrays|one_blob]`
//!
//! The third argument picks the files as the bench's shapes do (the corpus
//! when not given).

use std::hint::black_box;

fn main() {
    let (what, iterations) = bench::profile_args(
        "byml_profile <decode|decode-shared|view|encode|to-text|walk|clone|from-text> [iterations] [corpus|float_arrays|one_blob]",
    );
    let files: Vec<bench::CorpusFile> = match std::env::args().nth(3).as_deref() {
        None | Some("corpus") => bench::load_byml().expect("the byml corpus"),
        Some(shape) => {
            let (name, bytes) = match shape {
                "float_arrays" => bench::byml_shapes::float_arrays(),
                "one_blob" => bench::byml_shapes::one_blob(),
                other => panic!("unknown shape: {other}"),
            };
            vec![bench::CorpusFile {
                name: name.into(),
                bytes,
            }]
        }
    };
    let docs: Vec<_> = files
        .iter()
        .map(|f| formats::byml::decode(&f.bytes).unwrap())
        .collect();
    let shared: Vec<_> = files
        .iter()
        .map(|f| std::sync::Arc::new(f.bytes.clone()))
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
            "decode-shared" => shared.iter().for_each(|f| {
                black_box(formats::byml::decode_shared(f).unwrap());
            }),
            "view" => files.iter().zip(&docs).for_each(|(f, (v, _))| {
                black_box(formats::byml::views::visit(&f.bytes, *v).unwrap());
            }),
            "encode" => docs.iter().for_each(|(v, d)| {
                black_box(formats::byml::encode(d, *v).unwrap());
            }),
            "clone" => docs.iter().for_each(|(_, d)| {
                black_box(d.clone());
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
