//! Mutation sweep over real files: every truncation length, every single-bit
//! flip and every byte inverted, on a sample of each format's corpus. Each
//! outcome must be `Ok` (and then encode must not panic) or an error that
//! names a byte offset inside the file and a field path. A panic fails the
//! test with the mutation that caused it.
//!
//! Adding a format is one entry in `FORMATS`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// A decode (then encode) outcome: `Err` carries the decode error's offset
/// and its rendered text.
type Outcome = Result<(), (u64, String)>;

/// What the sweep needs of a format.
struct Format {
    name: &'static str,
    /// Corpus folder name, and a filter on file names for the sample.
    corpus: &'static str,
    accept: fn(&str) -> bool,
    /// How many files to sweep, spread evenly over the matching files of at
    /// most `max_size` bytes, smallest to largest.
    sample: usize,
    max_size: usize,
    /// Decode, then (when decode succeeded) encode. `Err` carries the decode
    /// error's offset and its rendered text.
    run: fn(&[u8]) -> Outcome,
}

fn aamp(data: &[u8]) -> Outcome {
    match formats::aamp::decode(data) {
        Ok(doc) => {
            // Encoding a decoded value may refuse (an error), never panic.
            let _ = formats::aamp::encode(&doc);
            Ok(())
        }
        Err(e) => Err((e.offset(), e.to_string())),
    }
}

fn ainb(data: &[u8]) -> Result<(), (u64, String)> {
    match formats::ainb::decode(data) {
        Ok(doc) => {
            let _ = formats::ainb::encode(&doc);
            Ok(())
        }
        Err(e) => Err((e.offset(), e.to_string())),
    }
}

const FORMATS: &[Format] = &[
    Format {
        name: "aamp",
        corpus: "aamp",
        accept: |n| !n.ends_with(".tsv") && !n.ends_with(".md"),
        sample: 10,
        max_size: 4 << 10,
        run: aamp,
    },
    Format {
        name: "ainb",
        corpus: "ainb",
        accept: |n| n.ends_with(".ainb"),
        sample: 6,
        max_size: 4 << 10,
        run: ainb,
    },
];

/// `n` files of a corpus folder that pass the filter, spread over the sizes
/// up to `max_size` (different sizes exercise different structures).
fn sample(
    dir: &PathBuf,
    accept: fn(&str) -> bool,
    n: usize,
    max_size: usize,
) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("corpus folder is readable")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            accept(&name).then(|| (name, std::fs::read(e.path()).ok()))
        })
        .filter_map(|(n, d)| d.map(|d| (n, d)))
        .collect();
    files.retain(|(_, d)| d.len() <= max_size);
    files.sort_by_key(|(n, d)| (d.len(), n.clone()));
    if files.len() <= n {
        return files;
    }
    let step = files.len() as f64 / n as f64;
    (0..n)
        .map(|i| files[(i as f64 * step) as usize].clone())
        .collect()
}

/// Runs one mutated input; returns a description of what went wrong, if anything.
fn check(f: &Format, input: &[u8]) -> Option<String> {
    match catch_unwind(AssertUnwindSafe(|| (f.run)(input))) {
        Err(_) => Some("panicked".into()),
        Ok(Ok(())) => None,
        Ok(Err((offset, text))) => {
            // The error is located: a byte offset no further than just past
            // the input, and a field path (`Type.field...`) before the colon.
            let located = offset <= input.len() as u64 + 16
                && text.starts_with("at offset 0x")
                && text
                    .split(": ")
                    .next()
                    .is_some_and(|head| head.contains(", "));
            (!located).then(|| format!("unlocated error: {text}"))
        }
    }
}

#[test]
fn every_mutation_decodes_or_fails_with_a_located_error() {
    // Panics are caught and reported with the mutation; keep the default
    // hook from printing each one.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut tried_total = 0usize;
    for f in FORMATS {
        let Some(dir) = codec_tests::corpus_dir(f.corpus) else {
            println!("SKIPPED {}: corpus not found (set CODEC_CORPUS)", f.name);
            continue;
        };
        let files = sample(&dir, f.accept, f.sample, f.max_size);
        assert!(
            !files.is_empty(),
            "{}: no sample files in {}",
            f.name,
            dir.display()
        );
        let mut tried = 0usize;
        for (name, data) in &files {
            let mut note = |what: String, input: &[u8]| {
                tried += 1;
                if let Some(problem) = check(f, input) {
                    failures.push(format!("{}/{name}: {what}: {problem}", f.name));
                }
            };
            for len in 0..data.len() {
                note(format!("cut to {len} bytes"), &data[..len]);
            }
            let mut m = data.clone();
            for i in 0..data.len() {
                for bit in 0..8 {
                    m[i] ^= 1 << bit;
                    note(format!("bit {bit} of byte 0x{i:x} flipped"), &m);
                    m[i] ^= 1 << bit;
                }
                m[i] ^= 0xFF;
                note(format!("byte 0x{i:x} inverted"), &m);
                m[i] ^= 0xFF;
            }
        }
        println!(
            "{}: {tried} mutated inputs from {} files",
            f.name,
            files.len()
        );
        tried_total += tried;
    }
    let _ = std::panic::take_hook();
    assert!(
        failures.is_empty(),
        "{} of {tried_total} mutations misbehaved:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
