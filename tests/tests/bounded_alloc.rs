//! Bounded resources, measured: whatever its bytes, a file can only make a
//! decoder allocate in proportion to its size. Every decode below runs under
//! a counting allocator, and the bytes it allocated (reallocations included)
//! must stay under `PER_BYTE` times the input's length plus `FLOOR`.
//!
//! The inputs are small files of each format (the samples the project
//! writes, and corpus files when the corpus is present) with counts and
//! offsets overwritten by the values that make naive decoders allocate the
//! most: 0xFFFF, 0xFFFFFF, 0x7FFFFFFF and 0xFFFFFFFF at every even offset of
//! their first 2 KiB. One test function only: the counter is global, and
//! tests running beside it would be counted too.

use formats::bdat::{self, Variant};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::path::Path;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocated bytes allowed per input byte. Values shared by many offsets
/// are owned once per offset, so what a file can make the decoder read is
/// capped by the read budget (`Limits::read_factor`, 256 times the input), and
/// a decoded record takes up to about 5 times its size in the file.
const PER_BYTE: usize = 6 * 256;
/// Allowed whatever the length (the reader's minimum read budget is 64 KiB).
const FLOOR: usize = 1 << 20;

/// Bytes allocated while `f` runs.
fn allocated_by(f: impl FnOnce()) -> usize {
    let region = Region::new(GLOBAL);
    f();
    let s = region.change();
    s.bytes_allocated + s.bytes_reallocated.max(0) as usize
}

struct Worst {
    format: &'static str,
    inputs: usize,
    ratio: f64,
    at: String,
}

fn decode_aamp(d: &[u8]) {
    let _ = formats::aamp::decode(d);
}

fn decode_bdat(d: &[u8]) {
    for v in Variant::ALL {
        let _ = bdat::decode_as(d, v);
    }
}

fn decode_ainb(d: &[u8]) {
    let _ = formats::ainb::decode(d);
}

/// Decodes `data` and every mutation of it; fails on the first input that
/// allocates past the bound.
fn sweep(worst: &mut Worst, name: &str, data: &[u8], decode: fn(&[u8])) {
    let mut check = |input: &[u8], what: &dyn Fn() -> String| {
        let bytes = allocated_by(|| decode(input));
        let bound = PER_BYTE * input.len() + FLOOR;
        assert!(
            bytes <= bound,
            "{}: {} allocated {bytes} bytes for a {}-byte input (bound {bound})",
            worst.format,
            what(),
            input.len()
        );
        worst.inputs += 1;
        let ratio = bytes as f64 / input.len().max(1) as f64;
        if ratio > worst.ratio {
            worst.ratio = ratio;
            worst.at = what();
        }
    };
    check(data, &|| name.to_owned());
    let mut m = data.to_vec();
    for at in (0..data.len().min(2048)).step_by(2) {
        for (value, width) in [
            (0xFFFFu32, 2usize),
            (0xFF_FFFF, 3),
            (0x7FFF_FFFF, 4),
            (0xFFFF_FFFF, 4),
        ] {
            if at + width > m.len() {
                continue;
            }
            let saved = m[at..at + width].to_vec();
            for (k, b) in m[at..at + width].iter_mut().enumerate() {
                *b = (value >> (8 * k)) as u8;
            }
            check(&m, &|| format!("{name} with 0x{value:x} at 0x{at:x}"));
            m[at..at + width].copy_from_slice(&saved);
        }
    }
}

/// Up to `n` of the smallest files of a corpus folder with one of the
/// extensions (none: every file), smallest first.
fn smallest(dir: &Path, exts: &[&str], n: usize) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            exts.is_empty()
                || p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .collect();
    files.sort();
    files
        .into_iter()
        .take(n)
        .filter_map(|(_, p)| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect()
}

#[test]
fn decoding_allocates_in_proportion_to_the_input() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/aamp");
    let mut report = Vec::new();

    let mut w = Worst {
        format: "aamp",
        inputs: 0,
        ratio: 0.0,
        at: String::new(),
    };
    let mut files = smallest(&samples, &[], 8);
    match codec_tests::corpus_dir("aamp") {
        Some(dir) => files.extend(
            smallest(&dir, &[], 400)
                .into_iter()
                .filter(|(_, d)| d.starts_with(b"AAMP") && d.len() <= 8192)
                .take(4),
        ),
        None => println!("aamp: the corpus is absent; the project's samples only"),
    }
    for (name, data) in &files {
        sweep(&mut w, name, data, decode_aamp);
    }
    // Offsets shared on purpose, to multiply the work: the read budget stops
    // the decoder, and what it allocated before that stays bounded too.
    for levels in [8, 16, 40] {
        let d = codec_tests::aamp_shared_sublists(levels);
        sweep(
            &mut w,
            &format!("{levels} levels of shared lists"),
            &d,
            decode_aamp,
        );
    }
    report.push(w);

    for (format, exts, decode) in [
        ("bdat", &["bdat"][..], decode_bdat as fn(&[u8])),
        ("ainb", &["ainb"][..], decode_ainb),
    ] {
        let Some(dir) = codec_tests::corpus_dir(format) else {
            println!("{format}: SKIPPED, the corpus is absent");
            continue;
        };
        let mut w = Worst {
            format,
            inputs: 0,
            ratio: 0.0,
            at: String::new(),
        };
        for (name, data) in smallest(&dir, exts, 4) {
            sweep(&mut w, &name, &data, decode);
        }
        report.push(w);
    }

    for w in &report {
        println!(
            "{}: {} inputs, at most {:.1} bytes allocated per input byte ({})",
            w.format, w.inputs, w.ratio, w.at
        );
        assert!(w.inputs > 0, "{}: no input was decoded", w.format);
    }
}
