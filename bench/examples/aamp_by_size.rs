//! AAMP encode time per file, the codec against roead, by file size: the
//! eight largest files one by one, then the corpus in six groups of equal
//! file counts. Tells whether a gap lies in the per-file cost (small
//! files) or in the work per value (large ones).
//!
//! `cargo run --release -p bench --example aamp_by_size` (with the corpus at
//! `../shared/corpus` or `$CODEC_CORPUS`).
use std::hint::black_box;
mod common;
fn main() {
    let Some(files) = common::aamp_files_both_decode() else {
        eprintln!("aamp_by_size: no corpus (set CODEC_CORPUS)");
        std::process::exit(1);
    };
    let mut rows = Vec::new();
    for f in &files {
        let ours = formats::aamp::decode(f).unwrap();
        let peer = roead::aamp::ParameterIO::from_binary(f).unwrap();
        // About the same time per file, whatever its size.
        let n = (200_000 / f.len().max(200)).clamp(20, 2000);
        let t = std::time::Instant::now();
        for _ in 0..n {
            black_box(formats::aamp::encode(&ours).unwrap());
        }
        let a = t.elapsed().as_secs_f64() / n as f64;
        let t = std::time::Instant::now();
        for _ in 0..n {
            black_box(peer.to_binary());
        }
        let b = t.elapsed().as_secs_f64() / n as f64;
        rows.push((f.len(), a, b));
    }
    rows.sort_by_key(|r| r.0);
    for r in rows.iter().rev().take(8) {
        println!(
            "{:>7} bytes: codec {:>8.1} us, roead {:>8.1} us, ratio {:.2}",
            r.0,
            r.1 * 1e6,
            r.2 * 1e6,
            r.2 / r.1
        );
    }
    for chunk in rows.chunks(rows.len().div_ceil(6)) {
        let (bytes, a, b) = chunk
            .iter()
            .fold((0, 0.0, 0.0), |s, r| (s.0 + r.0, s.1 + r.1, s.2 + r.2));
        println!("{:>7}..{:>7} bytes: {:>3} files, {:>8} bytes, codec {:>8.1} us, roead {:>8.1} us, ratio {:.2}",
            chunk[0].0, chunk[chunk.len()-1].0, chunk.len(), bytes, a * 1e6, b * 1e6, b / a);
    }
    let (a, b) = rows.iter().fold((0.0, 0.0), |s, r| (s.0 + r.1, s.1 + r.2));
    println!(
        "all: codec {:.1} us, roead {:.1} us, ratio {:.2}",
        a * 1e6,
        b * 1e6,
        b / a
    );
}
