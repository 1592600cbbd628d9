//! AAMP v2: our generated codec side by side with `roead` 1.0.0.
//!
//! Each iteration processes the whole file set: the top-level AAMP files of
//! the corpus that both implementations decode (and that we re-encode).
//! Throughput is the total size of those input files, for decode and encode
//! alike. The encode group decodes once, outside the timed loop, and times
//! only the encoding.
//!
//! `aamp_decode/codec_model_floor_clone` is not a decoder: it clones the
//! decoded documents, which costs what building our document model costs
//! without any parsing (allocations, element writes, drops). It bounds how
//! fast any decoder into that model can be.
//!
//! `aamp_decode/codec_view_visit` decodes nothing either: it opens each file
//! through the generated zero-copy views and visits every value in place.
//!
//! The corpus is `$CODEC_CORPUS/aamp`, else `<workspace>/../shared/corpus/aamp`;
//! without it the bench prints a message and registers nothing.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The files both sides handle, with each side's decoded documents.
struct FileSet {
    inputs: Vec<Vec<u8>>,
    ours: Vec<formats::aamp::ParameterIO>,
    peers: Vec<roead::aamp::ParameterIO>,
}

/// Loads the corpus and keeps the files both sides decode; prints the ones
/// left out, and how many files each side re-encodes byte for byte.
///
/// The documents the benches use are decoded afterwards, each side's in a
/// batch of its own, as a tool holds the files it has read. Encoding reads
/// the whole document from memory the caches mostly do not hold, so where
/// the documents sit counts; decoded inside the checks, each side's
/// documents were interleaved with the other side's and with the checks'
/// outputs, an accident of the checks' order.
fn file_set() -> Option<FileSet> {
    let Some(all) = bench::load_aamp() else {
        println!(
            "aamp bench: no corpus at {} (set CODEC_CORPUS); no benchmarks registered",
            bench::corpus_root().join("aamp").display()
        );
        return None;
    };
    let total = all.len();
    let mut inputs = Vec::with_capacity(total);
    let (mut ours_same, mut peers_same) = (0usize, 0usize);
    for f in all {
        let ours = formats::aamp::decode(&f.bytes)
            .map_err(|e| format!("decode: {e}"))
            .and_then(|d| formats::aamp::encode(&d).map_err(|e| format!("encode: {e}")));
        let peer = roead::aamp::ParameterIO::from_binary(&f.bytes);
        match (ours, peer) {
            (Ok(ours_bytes), Ok(peer)) => {
                ours_same += usize::from(ours_bytes == f.bytes);
                peers_same += usize::from(peer.to_binary() == f.bytes);
                inputs.push(f.bytes);
            }
            (ours, peer) => println!(
                "aamp bench: excluding {} (codec: {}, roead: {})",
                f.name,
                ours.err().unwrap_or_else(|| "ok".to_owned()),
                peer.err()
                    .map_or_else(|| "ok".to_owned(), |e| e.to_string()),
            ),
        }
    }
    let ours = inputs
        .iter()
        .map(|f| formats::aamp::decode(f).expect("decoded above"))
        .collect();
    let peers = inputs
        .iter()
        .map(|f| roead::aamp::ParameterIO::from_binary(f).expect("decoded above"))
        .collect();
    let set = FileSet {
        inputs,
        ours,
        peers,
    };
    let n = set.inputs.len();
    let bytes: usize = set.inputs.iter().map(Vec::len).sum();
    println!("aamp bench: {n} of {total} files, {bytes} bytes");
    println!("aamp bench: re-encoded byte for byte: codec {ours_same}/{n}, roead {peers_same}/{n}");
    (n > 0).then_some(set)
}

fn aamp(c: &mut Criterion) {
    let Some(set) = file_set() else { return };
    let total: u64 = set.inputs.iter().map(|f| f.len() as u64).sum();

    let mut group = c.benchmark_group("aamp_decode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for f in &set.inputs {
                black_box(formats::aamp::decode(black_box(f)).expect("codec decode"));
            }
        })
    });
    group.bench_function("roead", |b| {
        b.iter(|| {
            for f in &set.inputs {
                black_box(
                    roead::aamp::ParameterIO::from_binary(black_box(f)).expect("roead decode"),
                );
            }
        })
    });
    // Not a decoder: the floor any decoder into our document model has.
    // Cloning builds the same owned tree (the same allocations, the same
    // element writes) and drops it, with no parsing at all; no decoder that
    // returns these types can be faster than this.
    group.bench_function("codec_model_floor_clone", |b| {
        b.iter(|| {
            for pio in &set.ours {
                black_box(black_box(pio).clone());
            }
        })
    });
    // Zero-copy views: open each file and visit every list, object and
    // parameter value in place (strings, buffers and curves included),
    // without building the document.
    group.bench_function("codec_view_visit", |b| {
        b.iter(|| {
            for f in &set.inputs {
                let source = formats::aamp::schema::view::source(black_box(f));
                let file = formats::aamp::schema::view::open(&source).expect("view open");
                black_box(formats::aamp::views::visit(file).expect("view visit"));
            }
        })
    });
    // The same walk, with every string also checked to be UTF-8 (what
    // decode does, and what `ViewStr::to_str` does on demand).
    group.bench_function("codec_view_visit_utf8", |b| {
        b.iter(|| {
            for f in &set.inputs {
                let source = formats::aamp::schema::view::source(black_box(f));
                let file = formats::aamp::schema::view::open(&source).expect("view open");
                black_box(formats::aamp::views::visit_text(file).expect("view visit"));
            }
        })
    });
    group.finish();

    // Opening a view checks the header only: reading one field costs the
    // same on the smallest and the largest file.
    let by_size = |pick: fn(usize, usize) -> bool| {
        set.inputs
            .iter()
            .reduce(|a, b| if pick(b.len(), a.len()) { b } else { a })
            .expect("files")
    };
    let (smallest, largest) = (by_size(|a, b| a < b), by_size(|a, b| a > b));
    println!(
        "aamp bench: view open: smallest file {} bytes, largest {} bytes",
        smallest.len(),
        largest.len()
    );
    let mut group = c.benchmark_group("aamp_view_open_one_field");
    for (name, data) in [("smallest_file", smallest), ("largest_file", largest)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let source = formats::aamp::schema::view::source(black_box(data));
                let file = formats::aamp::schema::view::open(&source).expect("view open");
                black_box(file.root().expect("root").name())
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("aamp_encode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| {
        b.iter(|| {
            for pio in &set.ours {
                black_box(formats::aamp::encode(black_box(pio)).expect("codec encode"));
            }
        })
    });
    group.bench_function("roead", |b| {
        b.iter(|| {
            for pio in &set.peers {
                black_box(black_box(pio).to_binary());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, aamp);
criterion_main!(benches);
