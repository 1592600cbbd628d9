//! How many heap allocations one pass of decoding the AAMP corpus makes, for
//! our codec and for roead (the files both decode).
//!
//! `cargo run -p bench --release --example aamp_allocs`

use std::hint::black_box;
use std::process::ExitCode;

mod common;

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn main() -> ExitCode {
    let Some(files) = common::aamp_files_both_decode() else {
        eprintln!("aamp_allocs: no corpus (set CODEC_CORPUS)");
        return ExitCode::FAILURE;
    };
    let codec = Region::new(GLOBAL);
    for f in &files {
        black_box(formats::aamp::decode(black_box(f)).expect("decode"));
    }
    let codec = codec.change();
    let roead = Region::new(GLOBAL);
    for f in &files {
        black_box(roead::aamp::ParameterIO::from_binary(black_box(f)).expect("decode"));
    }
    let roead = roead.change();
    println!(
        "{} files; allocations per decode pass: codec {} ({} bytes), roead {} ({} bytes)",
        files.len(),
        codec.allocations,
        codec.bytes_allocated,
        roead.allocations,
        roead.bytes_allocated
    );
    ExitCode::SUCCESS
}
