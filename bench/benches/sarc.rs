//! SARC: listing every file of every corpus archive (its name and its
//! bytes' length), three ways in the same run: codec's zero-copy views
//! (`sarc::views::visit`: the file bytes stay in the input), codec's
//! decode into the owned `Sarc` (each file's bytes copied), and roead 1.0's
//! `Sarc`, which also borrows the input.
//!
//! The archives are the corpus's `sarc` folder and the SARC files inside
//! its `yaz0` folder (decompressed once, before timing). Without the
//! corpus the bench prints a message and registers nothing.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use formats::layer::{Dictionaries, Layer};
use formats::sarc::{self, Variant};

fn archives() -> Option<Vec<(Vec<u8>, Variant)>> {
    let mut out = Vec::new();
    for folder in ["sarc", "yaz0"] {
        let Ok(entries) = std::fs::read_dir(bench::corpus_root().join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(mut data) = std::fs::read(entry.path()) else {
                continue;
            };
            if let Some(layer) = Layer::detect(&data) {
                let Ok(inner) = layer.decompress(&data, &Dictionaries::default()) else {
                    continue;
                };
                data = inner;
            }
            if let Some(variant) = sarc::schema::Variant::detect(&data) {
                if sarc::decode(&data).is_ok() {
                    out.push((data, variant));
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

fn bench(c: &mut Criterion) {
    let Some(set) = archives() else {
        println!("sarc bench: no SARC archives in the corpus; nothing to time");
        return;
    };
    let bytes: usize = set.iter().map(|(d, _)| d.len()).sum();
    let files: usize = set
        .iter()
        .map(|(d, v)| sarc::views::visit(d, *v).unwrap().0)
        .sum();
    println!(
        "sarc bench: {} archives, {files} files, {bytes} bytes",
        set.len()
    );

    let mut g = c.benchmark_group("sarc_list");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(BenchmarkId::from_parameter("codec_view"), |b| {
        b.iter(|| {
            for (data, variant) in &set {
                black_box(sarc::views::visit(black_box(data), *variant).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::from_parameter("codec_decode"), |b| {
        b.iter(|| {
            for (data, _) in &set {
                let (_, archive) = sarc::decode(black_box(data)).unwrap();
                let n: usize = archive
                    .nodes
                    .iter()
                    .map(|n| n.name.len() + n.data.value.len())
                    .sum();
                black_box(n);
            }
        })
    });
    g.bench_function(BenchmarkId::from_parameter("roead"), |b| {
        b.iter(|| {
            for (data, _) in &set {
                let archive = roead::sarc::Sarc::new(black_box(&data[..])).unwrap();
                let n: usize = archive
                    .files()
                    .map(|f| f.name().map_or(0, str::len) + f.data().len())
                    .sum();
                black_box(n);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
