//! BYML: our generated codec and text side by side with roead 1.0.0, on
//! three shapes of file, each its own set of groups (`byml_decode/corpus`,
//! `byml_decode/float_arrays`, ...):
//!
//! - `corpus`: the corpus (versions 2, 4 and 7; 3.4 MB of binary);
//! - `float_arrays`: a generated BotW parameter document of 53,825 small
//!   arrays of floats (`bench::byml_shapes::float_arrays`, 1.5 MB);
//! - `one_blob`: a generated version 4 document holding one 32 KiB binary
//!   node (`bench::byml_shapes::one_blob`).
//!
//! Decode, encode, binary → YAML, YAML → binary document. Decode runs
//! twice: `codec` from a slice (each binary node copied, as roead copies
//! it) and `codec_shared` from the file's buffer (`byml::decode_shared`,
//! each binary node a range of it: `codec_runtime::Blob`).
//!
//! `codec_model_floor_clone` is not a decoder: it clones the decoded
//! documents, the least work any decoder into the owned model does.
//! `floor_output_copy` is not an encoder either: it copies each file's
//! bytes into a new buffer of their length, the least work any encoder
//! does. `codec_view_visit` builds no document: it opens each file's zero-copy
//! views and visits every node, key and string in place
//! (`formats::byml::views::visit`), what a tool that only reads needs.
//!
//! Each iteration converts every file of the shape. Throughput is the
//! binary size for decode and encode (the same input for both sides) and the
//! size of each side's own text for to-text and from-text. roead writes the
//! version and byte order it is told; ours writes each file's own.
//!
//! The corpus is `$CODEC_CORPUS/byml`, else `<workspace>/../shared/corpus/byml`;
//! without it the corpus groups are left out and the generated shapes run.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use formats::byml::{self, text, Header, Variant};
use roead::byml::Byml;
use roead::Endian;

struct File {
    bytes: Vec<u8>,
    /// The same bytes, as `decode_shared` takes them (a file read into a
    /// `Vec` becomes one without a copy: `Arc::new(vec)`).
    shared: std::sync::Arc<Vec<u8>>,
    variant: Variant,
    version: u16,
    ours: Header,
    peer: Byml,
    our_text: String,
    peer_text: String,
}

fn files(shape: &str, all: Vec<(String, Vec<u8>)>) -> Vec<File> {
    let mut set = Vec::new();
    for (name, bytes) in all {
        let (variant, ours) = byml::decode(&bytes).expect("codec decodes every file");
        let peer = match Byml::from_binary(&bytes) {
            Ok(p) => p,
            Err(e) => {
                println!("byml bench ({shape}): excluding {name} (roead: {e})");
                continue;
            }
        };
        let our_text = text::to_yaml(&ours, variant);
        let peer_text = peer.to_text();
        set.push(File {
            version: ours.version,
            shared: std::sync::Arc::new(bytes.clone()),
            bytes,
            variant,
            ours,
            peer,
            our_text,
            peer_text,
        });
    }
    set
}

/// Each shape's files: the corpus (when present), then the generated ones.
fn shapes() -> Vec<(&'static str, Vec<File>)> {
    let mut shapes = Vec::new();
    match bench::load_byml() {
        Some(all) => shapes.push((
            "corpus",
            files(
                "corpus",
                all.into_iter().map(|f| (f.name, f.bytes)).collect(),
            ),
        )),
        None => println!(
            "byml bench: no corpus at {} (set CODEC_CORPUS); the corpus groups are left out",
            bench::corpus_root().join("byml").display()
        ),
    }
    for (shape, (name, bytes)) in [
        ("float_arrays", bench::byml_shapes::float_arrays()),
        ("one_blob", bench::byml_shapes::one_blob()),
    ] {
        shapes.push((shape, files(shape, vec![(name.to_owned(), bytes)])));
    }
    shapes
}

/// Opens a file's views and reads one field: the length of the root
/// hash's first key (or the root container's length).
fn first_key_len(data: &[u8], variant: Variant) -> usize {
    macro_rules! one {
        ($m:ident) => {{
            use formats::byml::schema::view::$m as v;
            let source = v::source(data);
            let file = v::open(&source).expect("view open");
            match file.root().expect("root") {
                Some(v::ContainerView::Hash(h)) => {
                    let first = h.entries().expect("entries").get(0);
                    first.map_or(0, |e| e.key().expect("key").len())
                }
                Some(v::ContainerView::Array(a)) => a.items().expect("items").len(),
                Some(v::ContainerView::HashMap(m)) => m.entries().expect("entries").len(),
                None => 0,
            }
        }};
    }
    match variant {
        Variant::Le => one!(le),
        Variant::Be => one!(be),
        Variant::V1Le => one!(v1_le),
        Variant::V1Be => one!(v1_be),
    }
}

fn endian(v: Variant) -> Endian {
    match v {
        Variant::Be | Variant::V1Be => Endian::Big,
        Variant::Le | Variant::V1Le => Endian::Little,
    }
}

fn bench(c: &mut Criterion) {
    for (shape, set) in shapes() {
        bench_shape(c, shape, &set);
    }
}

fn bench_shape(c: &mut Criterion, shape: &str, set: &[File]) {
    let binary: usize = set.iter().map(|f| f.bytes.len()).sum();
    let our_text: usize = set.iter().map(|f| f.our_text.len()).sum();
    let peer_text: usize = set.iter().map(|f| f.peer_text.len()).sum();
    println!(
        "byml bench ({shape}): {} files, {binary} bytes; our text {our_text} bytes, roead's {peer_text} bytes",
        set.len()
    );

    let mut g = c.benchmark_group(format!("byml_decode/{shape}"));
    g.throughput(Throughput::Bytes(binary as u64));
    g.bench_function(BenchmarkId::from_parameter("codec"), |b| {
        b.iter(|| {
            for f in set {
                black_box(byml::decode(black_box(&f.bytes)).unwrap());
            }
        })
    });
    // The same owned document, its binary nodes ranges of the input
    // rather than copies (`codec_runtime::Blob`).
    g.bench_function(BenchmarkId::from_parameter("codec_shared"), |b| {
        b.iter(|| {
            for f in set {
                black_box(byml::decode_shared(black_box(&f.shared)).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::from_parameter("roead"), |b| {
        b.iter(|| {
            for f in set {
                black_box(Byml::from_binary(black_box(&f.bytes)).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::from_parameter("codec_view_visit"), |b| {
        b.iter(|| {
            for f in set {
                black_box(byml::views::visit(black_box(&f.bytes), f.variant).unwrap());
            }
        })
    });
    // Not a decoder: the floor any decoder into our document model has.
    // Cloning builds the same owned tree as `decode_shared` (the same
    // allocations, the same element writes; a blob is one more count on
    // its buffer) and drops it, with no parsing at all; no decoder that
    // returns these types can be faster than this. `decode` from a slice
    // also copies each blob, as roead does.
    g.bench_function(
        BenchmarkId::from_parameter("codec_model_floor_clone"),
        |b| {
            b.iter(|| {
                for f in set {
                    black_box(black_box(&f.ours).clone());
                }
            })
        },
    );
    g.finish();

    if shape == "corpus" {
        view_open(c, set);
    }

    let mut g = c.benchmark_group(format!("byml_encode/{shape}"));
    g.throughput(Throughput::Bytes(binary as u64));
    g.bench_function(BenchmarkId::from_parameter("codec"), |b| {
        b.iter(|| {
            for f in set {
                black_box(byml::encode(black_box(&f.ours), f.variant).unwrap());
            }
        })
    });
    g.bench_function(BenchmarkId::from_parameter("roead"), |b| {
        b.iter(|| {
            for f in set {
                black_box(black_box(&f.peer).to_binary_with_version(endian(f.variant), f.version));
            }
        })
    });
    // Not an encoder: a new buffer of the file's length holding its bytes,
    // copied once. Every encoder does at least this much.
    g.bench_function(BenchmarkId::from_parameter("floor_output_copy"), |b| {
        b.iter(|| {
            for f in set {
                let mut out = Vec::with_capacity(f.bytes.len());
                out.extend_from_slice(black_box(&f.bytes));
                black_box(out);
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("byml_to_text/{shape}"));
    g.throughput(Throughput::Bytes(our_text as u64));
    g.bench_function(BenchmarkId::from_parameter("codec"), |b| {
        b.iter(|| {
            for f in set {
                black_box(text::to_yaml(black_box(&f.ours), f.variant));
            }
        })
    });
    g.throughput(Throughput::Bytes(peer_text as u64));
    g.bench_function(BenchmarkId::from_parameter("roead"), |b| {
        b.iter(|| {
            for f in set {
                black_box(black_box(&f.peer).to_text());
            }
        })
    });
    // Not a writer: reading every key's and every string's bytes and every
    // number of the owned documents, in the order a writer reads them, and
    // writing nothing. No text writer over these types can be faster.
    g.throughput(Throughput::Bytes(our_text as u64));
    g.bench_function(BenchmarkId::from_parameter("codec_model_floor_walk"), |b| {
        b.iter(|| {
            for f in set {
                black_box(bench::byml_walk(black_box(&f.ours)));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("byml_from_text/{shape}"));
    g.throughput(Throughput::Bytes(our_text as u64));
    g.bench_function(BenchmarkId::from_parameter("codec"), |b| {
        b.iter(|| {
            for f in set {
                black_box(text::from_yaml(black_box(&f.our_text), None, None).unwrap());
            }
        })
    });
    g.throughput(Throughput::Bytes(peer_text as u64));
    g.bench_function(BenchmarkId::from_parameter("roead"), |b| {
        b.iter(|| {
            for f in set {
                black_box(Byml::from_text(black_box(&f.peer_text)).unwrap());
            }
        })
    });
    g.finish();
}

/// Opening a file and reading one field (the root's first key) must not
/// depend on the file's size: opening reads the header and the two string
/// tables' headers only.
fn view_open(c: &mut Criterion, set: &[File]) {
    let smallest = set.iter().min_by_key(|f| f.bytes.len()).expect("a file");
    let largest = set.iter().max_by_key(|f| f.bytes.len()).expect("a file");
    println!(
        "byml bench: view open: smallest file {} bytes, largest {} bytes",
        smallest.bytes.len(),
        largest.bytes.len()
    );
    let mut g = c.benchmark_group("byml_view_open_one_field");
    for (name, f) in [("smallest_file", smallest), ("largest_file", largest)] {
        g.bench_function(name, |b| {
            b.iter(|| black_box(first_key_len(black_box(&f.bytes), f.variant)))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
