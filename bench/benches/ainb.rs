//! AINB (with EXB): decode and encode of the generated codec over the corpus,
//! and the JSON text form, with the figures of dt-12345/AINB (the Python
//! library users pick today) measured on the same files
//! (`golden/dt-AINB-v2_bc54e53_roundtrip.tsv`: its parse and write times).
//!
//! Each iteration processes every AINB file of the corpus; throughput is the
//! total size of those files for every group. The encode and to-JSON groups
//! decode once outside the timed loop; from-JSON parses text made once.
//!
//! The corpus is `$CODEC_CORPUS/ainb`, else `<workspace>/../shared/corpus/ainb`;
//! without it the bench prints a message and registers nothing.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use formats::ainb;

/// dt-12345/AINB's throughput on the files of `names`, from the TSV its run
/// left: (bytes, decode MB/s, encode MB/s) over the files it both parsed and
/// wrote.
fn dt_figures(names: &[String]) -> Option<(u64, f64, f64)> {
    let tsv = bench::corpus_root().join("ainb/golden/dt-AINB-v2_bc54e53_roundtrip.tsv");
    let text = std::fs::read_to_string(tsv).ok()?;
    let (mut bytes, mut parse_ms, mut write_ms) = (0u64, 0f64, 0f64);
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 4 || !names.iter().any(|n| n == cols[0]) {
            continue;
        }
        if let (Ok(size), Ok(p), Ok(w)) = (
            cols[1].parse::<u64>(),
            cols[2].parse::<f64>(),
            cols[3].parse::<f64>(),
        ) {
            bytes += size;
            parse_ms += p;
            write_ms += w;
        }
    }
    let mb = bytes as f64 / 1e6;
    (bytes > 0).then(|| (bytes, mb / (parse_ms / 1e3), mb / (write_ms / 1e3)))
}

fn ainb(c: &mut Criterion) {
    let Some(files) = bench::load_format("ainb", ainb::MAGIC) else {
        println!(
            "ainb bench: no corpus at {} (set CODEC_CORPUS); no benchmarks registered",
            bench::corpus_root().join("ainb").display()
        );
        return;
    };
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let inputs: Vec<Vec<u8>> = files.into_iter().map(|f| f.bytes).collect();
    let docs: Vec<ainb::File> = inputs
        .iter()
        .map(|b| ainb::decode(b).expect("corpus file decodes"))
        .collect();
    let identical = docs
        .iter()
        .zip(&inputs)
        .filter(|(d, b)| ainb::encode(d).ok().as_ref() == Some(*b))
        .count();
    let texts: Vec<String> = docs
        .iter()
        .map(|d| ainb::text::to_json(d).expect("JSON"))
        .collect();
    let total: u64 = inputs.iter().map(|f| f.len() as u64).sum();
    println!(
        "ainb bench: {} files, {total} bytes; re-encoded byte for byte: {identical}/{}",
        inputs.len(),
        inputs.len()
    );

    // A quick estimate beside dt's figures (criterion's numbers follow).
    if let Some((bytes, dt_decode, dt_encode)) = dt_figures(&names) {
        let rounds = 20;
        let start = Instant::now();
        for _ in 0..rounds {
            for f in &inputs {
                black_box(ainb::decode(black_box(f)).ok());
            }
        }
        let decode = (total * rounds) as f64 / 1e6 / start.elapsed().as_secs_f64();
        let start = Instant::now();
        for _ in 0..rounds {
            for d in &docs {
                black_box(ainb::encode(black_box(d)).ok());
            }
        }
        let encode = (total * rounds) as f64 / 1e6 / start.elapsed().as_secs_f64();
        println!(
            "ainb bench: dt-12345/AINB on {bytes} bytes of these files: decode {dt_decode:.2} MB/s, encode {dt_encode:.2} MB/s"
        );
        println!(
            "ainb bench: codec (quick estimate): decode {decode:.0} MB/s ({:.0}x), encode {encode:.0} MB/s ({:.0}x)",
            decode / dt_decode,
            encode / dt_encode
        );
    }

    let mut group = c.benchmark_group("ainb_decode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for f in &inputs {
                black_box(ainb::decode(black_box(f)).ok());
            }
        })
    });
    // The header, commands, nodes and the records at fixed places read in
    // place through the views (what they do not skip: `docs/views.md`).
    let variants: Vec<_> = docs
        .iter()
        .map(|d| ainb::variant_of(d.version).expect("a known version"))
        .collect();
    group.bench_function("codec_view_visit", |b| {
        b.iter(|| {
            for (f, &v) in inputs.iter().zip(&variants) {
                black_box(ainb::views::visit(black_box(f), v).ok());
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("ainb_encode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(ainb::encode(black_box(d)).ok());
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("ainb_text");
    group.throughput(Throughput::Bytes(total));
    group.sample_size(10);
    group.bench_function("to_json", |b| {
        b.iter(|| {
            for d in &docs {
                black_box(ainb::text::to_json(black_box(d)).ok());
            }
        })
    });
    group.bench_function("from_json", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(ainb::text::from_json(black_box(t)).ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, ainb);
criterion_main!(benches);
