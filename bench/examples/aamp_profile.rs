//! Profiling driver: runs one side of the AAMP benchmark in a loop.
//!
//! `cargo run -p bench --profile bench --example aamp_profile -- <decode|view|view-text|encode|to-text|from-text|clone|verify> <codec|roead> [iterations]`

use std::hint::black_box;
use std::process::ExitCode;

mod common;

/// Names as the bench has them (recovered from the corpus's dictionaries),
/// so that the text holds names, not hashes.
fn corpus_names() -> formats::aamp::names::NameTable {
    let dir = bench::corpus_root().join("aamp");
    let mut names = formats::aamp::names::NameTable::new();
    names
        .load_names_file(&dir.join("dict/botw_hashed_names.txt"))
        .and_then(|_| names.load_patterns_file(&dir.join("dict/botw_numbered_names.txt")))
        .expect("the name dictionaries");
    names
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(op), Some(side)) = (args.first(), args.get(1)) else {
        eprintln!("usage: aamp_profile <decode|view|view-text|encode|to-text|from-text|clone|verify> <codec|roead> [iterations]");
        return ExitCode::FAILURE;
    };
    let iterations: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(200);
    let Some(files) = common::aamp_files_both_decode() else {
        eprintln!("aamp_profile: no corpus (set CODEC_CORPUS)");
        return ExitCode::FAILURE;
    };
    let total: usize = files.iter().map(Vec::len).sum();
    let ours = || -> Vec<formats::aamp::ParameterIO> {
        files
            .iter()
            .map(|f| formats::aamp::decode(f).expect("decode"))
            .collect()
    };
    let peers = || -> Vec<roead::aamp::ParameterIO> {
        files
            .iter()
            .map(|f| roead::aamp::ParameterIO::from_binary(f).expect("decode"))
            .collect()
    };
    let start = std::time::Instant::now();
    match (op.as_str(), side.as_str()) {
        ("decode", "codec") => repeat(iterations, &files, |f| {
            black_box(formats::aamp::decode(f).expect("decode"));
        }),
        // Zero-copy views: open and visit every value, no document built.
        ("view", "codec") => repeat(iterations, &files, |f| {
            let source = formats::aamp::schema::view::source(f);
            let file = formats::aamp::schema::view::open(&source).expect("open");
            black_box(formats::aamp::views::visit(file).expect("visit"));
        }),
        ("view-text", "codec") => repeat(iterations, &files, |f| {
            let source = formats::aamp::schema::view::source(f);
            let file = formats::aamp::schema::view::open(&source).expect("open");
            black_box(formats::aamp::views::visit_text(file).expect("visit"));
        }),
        ("decode", "roead") => repeat(iterations, &files, |f| {
            black_box(roead::aamp::ParameterIO::from_binary(f).expect("decode"));
        }),
        ("encode", "codec") => repeat(iterations, &ours(), |d| {
            black_box(formats::aamp::encode(d).expect("encode"));
        }),
        ("to-text", "codec") => {
            let names = corpus_names();
            repeat(iterations, &ours(), |d| {
                black_box(formats::aamp::text::to_yaml(d, &names));
            })
        }
        ("from-text", "codec") => {
            let names = corpus_names();
            let texts: Vec<String> = ours()
                .iter()
                .map(|d| formats::aamp::text::to_yaml(d, &names))
                .collect();
            repeat(iterations, &texts, |t| {
                black_box(formats::aamp::text::from_yaml(t.as_str()).expect("from_yaml"));
            })
        }
        ("from-text", "roead") => {
            let texts: Vec<String> = peers().iter().map(|p| p.to_text()).collect();
            repeat(iterations, &texts, |t| {
                black_box(roead::aamp::ParameterIO::from_text(t.as_str()).expect("from_text"));
            })
        }
        ("encode", "roead") => repeat(iterations, &peers(), |d| {
            black_box(d.to_binary());
        }),
        // The floor of any decoder into the side's document model: building
        // the same owned tree (its Vecs and strings) with no parsing at all.
        ("clone", "codec") => repeat(iterations, &ours(), |d| {
            black_box(d.clone());
        }),
        ("clone", "roead") => repeat(iterations, &peers(), |d| {
            black_box(d.clone());
        }),
        ("verify", "codec") => {
            let same = files
                .iter()
                .filter(|f| {
                    let doc = formats::aamp::decode(f).expect("decode");
                    formats::aamp::encode(&doc).expect("encode") == **f
                })
                .count();
            println!(
                "codec: {same} of {} files re-encode byte-identically",
                files.len()
            );
            return ExitCode::SUCCESS;
        }
        ("verify", "roead") => {
            let same = files
                .iter()
                .filter(|f| {
                    let doc = roead::aamp::ParameterIO::from_binary(f).expect("decode");
                    doc.to_binary() == **f
                })
                .count();
            println!(
                "roead: {same} of {} files re-encode byte-identically",
                files.len()
            );
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!(
                "usage: aamp_profile <decode|view|view-text|encode|to-text|from-text|clone|verify> <codec|roead> [iterations]"
            );
            return ExitCode::FAILURE;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{op} {side}: {} files x {iterations} in {secs:.3} s = {:.1} MB/s",
        files.len(),
        (total * iterations) as f64 / secs / 1e6
    );
    ExitCode::SUCCESS
}

/// Runs `f` over every item, `iterations` times.
fn repeat<T>(iterations: usize, items: &[T], mut f: impl FnMut(&T)) {
    for _ in 0..iterations {
        for item in items {
            f(black_box(item));
        }
    }
}
