//! Legacy BDAT: our generated codec side by side with the `bdat` crate
//! (bdat-rs, the reader/writer behind bdat-toolset), on the XC2 files of the
//! corpus.
//!
//! Each iteration processes the whole file set. Decoding: ours from the
//! bytes to the document model (descrambling copies), and ours through the
//! zero-copy views, reading every cell (`codec_view_visit`); the peer's
//! `from_bytes_copy` + `get_tables` (the same contract: the input stays
//! untouched). Encoding: from documents decoded once outside the timed loop;
//! both scramble the tables (the peer with its `scramble` option), as the
//! game files are. Throughput is the input files' size for both groups.
//!
//! The corpus is `$CODEC_CORPUS/bdat`, else `<workspace>/../shared/corpus/bdat`;
//! without it the bench prints a message and registers nothing.

use std::hint::black_box;

use bdat::legacy::{LegacyTable, LegacyWriteOptions};
use bdat::{BdatFile, LegacyVersion, SwitchEndian};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use formats::bdat::{self as ours, Variant};

/// The XC2 files of the corpus.
const FILES: [&str; 3] = [
    "xc2_ckurtz_common_ms.bdat",
    "xc2_ckurtz_common_gmk.bdat",
    "xc2_randomizer_common_ms.bdat",
];

struct FileSet {
    names: Vec<&'static str>,
    inputs: Vec<Vec<u8>>,
    ours: Vec<ours::BdatFile>,
}

fn peer_decode(bytes: &[u8]) -> Result<Vec<LegacyTable<'_>>, String> {
    bdat::legacy::from_bytes_copy::<SwitchEndian>(bytes, LegacyVersion::Switch)
        .and_then(|mut f| f.get_tables())
        .map_err(|e| e.to_string())
}

fn peer_encode(tables: &[LegacyTable<'_>]) -> Vec<u8> {
    bdat::legacy::to_vec_options::<SwitchEndian>(
        tables,
        LegacyVersion::Switch,
        LegacyWriteOptions::new().scramble(true),
    )
    .expect("the peer writes what it read")
}

fn file_set() -> Option<FileSet> {
    let dir = bench::corpus_root().join("bdat");
    let mut set = FileSet {
        names: Vec::new(),
        inputs: Vec::new(),
        ours: Vec::new(),
    };
    for name in FILES {
        let Ok(bytes) = std::fs::read(dir.join(name)) else {
            println!("bdat bench: {name} is absent from {}", dir.display());
            continue;
        };
        let mine =
            ours::decode_as(&bytes, Variant::Switch).expect("the codec decodes the XC2 files");
        let same = ours::encode(&mine, Variant::Switch)
            .map(|b| b == bytes)
            .unwrap_or(false);
        let peer = match peer_decode(&bytes) {
            Ok(p) => p,
            Err(e) => {
                println!("bdat bench: excluding {name} (bdat: {e})");
                continue;
            }
        };
        let peer_same = peer_encode(&peer) == bytes;
        drop(peer);
        println!(
            "bdat bench: {name}: {} bytes, {} tables; byte for byte: codec {same}, bdat {peer_same}",
            bytes.len(),
            mine.tables.len()
        );
        set.names.push(name);
        set.inputs.push(bytes);
        set.ours.push(mine);
    }
    if set.inputs.is_empty() {
        println!(
            "bdat bench: no XC2 files at {} (set CODEC_CORPUS); no benchmarks registered",
            dir.display()
        );
        return None;
    }
    Some(set)
}

fn bench_bdat(c: &mut Criterion) {
    let Some(set) = file_set() else { return };
    let total: u64 = set.inputs.iter().map(|f| f.len() as u64).sum();

    let mut group = c.benchmark_group("bdat_decode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for f in &set.inputs {
                black_box(ours::decode_as(black_box(f), Variant::Switch).unwrap());
            }
        })
    });
    group.bench_function("bdat", |b| {
        b.iter(|| {
            for f in &set.inputs {
                black_box(peer_decode(black_box(f)).unwrap());
            }
        })
    });
    // Every cell of every table read in place through the views (each
    // scrambled table unscrambled into a copy first, as decode does).
    group.bench_function("codec_view_visit", |b| {
        b.iter(|| {
            for f in &set.inputs {
                black_box(
                    ours::views::visit(black_box(f), Variant::Switch)
                        .unwrap()
                        .unwrap(),
                );
            }
        })
    });
    group.finish();

    let peers: Vec<Vec<LegacyTable<'_>>> =
        set.inputs.iter().map(|f| peer_decode(f).unwrap()).collect();
    let mut group = c.benchmark_group("bdat_encode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for d in &set.ours {
                black_box(ours::encode(black_box(d), Variant::Switch).unwrap());
            }
        })
    });
    group.bench_function("bdat", |b| {
        b.iter(|| {
            for t in &peers {
                black_box(peer_encode(black_box(t)));
            }
        })
    });
    group.finish();

    // The same, file by file: the target is a ratio on every file, and the
    // large merged tables weigh most in the set's total.
    for (i, name) in set.names.iter().enumerate() {
        let mut group = c.benchmark_group(format!("bdat_encode_file/{name}"));
        group.throughput(Throughput::Bytes(set.inputs[i].len() as u64));
        let (doc, peer) = (&set.ours[i], &peers[i]);
        group.bench_function("codec", |b| {
            b.iter(|| black_box(ours::encode(black_box(doc), Variant::Switch).unwrap()))
        });
        group.bench_function("bdat", |b| {
            b.iter(|| black_box(peer_encode(black_box(peer))))
        });
        group.finish();
    }
}

criterion_group!(benches, bench_bdat);
criterion_main!(benches);
