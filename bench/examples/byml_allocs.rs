//! How many heap allocations one pass over the BYML corpus makes: our
//! decode, a clone of the decoded documents (the owned model's floor) and
//! roead's decode.
//!
//! `cargo run -p bench --release --example byml_allocs`

use std::hint::black_box;
use std::process::ExitCode;

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn main() -> ExitCode {
    let Some(files) = bench::load_byml() else {
        eprintln!("byml_allocs: no corpus (set CODEC_CORPUS)");
        return ExitCode::FAILURE;
    };
    let docs: Vec<_> = files
        .iter()
        .map(|f| formats::byml::decode(&f.bytes).expect("decode"))
        .collect();
    let decode = Region::new(GLOBAL);
    for f in &files {
        black_box(formats::byml::decode(black_box(&f.bytes)).expect("decode"));
    }
    let decode = decode.change();
    let clone = Region::new(GLOBAL);
    for (_, d) in &docs {
        black_box(black_box(d).clone());
    }
    let clone = clone.change();
    let roead = Region::new(GLOBAL);
    for f in &files {
        // roead reads 6 of the 8 files; the others are counted up to their error.
        let _ = black_box(roead::byml::Byml::from_binary(black_box(&f.bytes)));
    }
    let roead = roead.change();
    println!(
        "{} files; allocations per pass: decode {} ({} bytes), clone {} ({} bytes), roead {} ({} bytes)",
        files.len(),
        decode.allocations,
        decode.bytes_allocated,
        clone.allocations,
        clone.bytes_allocated,
        roead.allocations,
        roead.bytes_allocated
    );
    ExitCode::SUCCESS
}
