//! The schema interpreter against the compiled codec, in the same run: what
//! a researcher's loop over real files costs without a build (`codec dump`,
//! `coverage`, `check --schema`) next to the generated code.
//!
//! - `interp_sarc`: the corpus's SARC archives (and those inside its Yaz0
//!   folder), decoded and encoded. The interpreter decodes into its tree of
//!   located fields and takes the document's generic form from it; it
//!   encodes from that form (`codec_interp::encode`).
//! - `interp_aamp`: the AAMP corpus, decoded and encoded.
//! - `interp_byml`: the BYML corpus (and BYML inside its zstd folder, where
//!   no dictionary is needed), decoded and encoded: interned tables, the
//!   depth-first walks and shared subtrees, executed from the schema.
//! - `interp_bdat`: the legacy BDAT corpus (the game's scrambled XC2 files
//!   and bdat-rs's tables of the other games), decoded and encoded: units
//!   through their glue, rows, hash chains, references and checksums.
//!
//! Without the corpus the bench prints a message and registers nothing.

use std::hint::black_box;

use codec_interp::{self as interp, Value};
use codec_schema::Checked;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use formats::interp_hooks::Glue;
use formats::layer::{Dictionaries, Layer};
use formats::{aamp, bdat, byml, sarc};

/// The variant of a schema with variants a file is of.
fn schema_of(source: &str, file: &str, variant: Option<&str>) -> Checked {
    let c = codec_schema::parse_str(source, file).expect("a built-in schema checks");
    match variant {
        Some(v) => c.variant(v).expect("the variant exists").clone(),
        None => c,
    }
}

fn files(folders: &[&str], keep: impl Fn(&[u8]) -> bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(bench::corpus_root().join(folder)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let Ok(mut data) = std::fs::read(&path) else {
                continue;
            };
            if let Some(layer) = Layer::detect(&data) {
                let Ok(inner) = layer.decompress(&data, &Dictionaries::default()) else {
                    continue;
                };
                data = inner;
            }
            if keep(&data) {
                out.push(data);
            }
        }
    }
    out
}

fn bench_sarc(c: &mut Criterion) {
    let set: Vec<(Vec<u8>, sarc::Variant)> = files(&["sarc", "yaz0"], |d| {
        sarc::Variant::detect(d).is_some() && sarc::decode(d).is_ok()
    })
    .into_iter()
    .map(|d| {
        let v = sarc::Variant::detect(&d).unwrap();
        (d, v)
    })
    .collect();
    if set.is_empty() {
        println!("interp bench: no SARC archives in the corpus; nothing to time");
        return;
    }
    let schemas: Vec<Checked> = set
        .iter()
        .map(|(_, v)| {
            schema_of(
                sarc::schema::SCHEMA_SOURCE,
                "schemas/sarc.ron",
                Some(v.name()),
            )
        })
        .collect();
    let docs: Vec<Value> = set
        .iter()
        .zip(&schemas)
        .map(|((d, _), c)| interp::decode(c, d).unwrap().to_value())
        .collect();
    let typed: Vec<sarc::Sarc> = set
        .iter()
        .map(|(d, _)| sarc::decode(d).unwrap().1)
        .collect();
    let bytes: usize = set.iter().map(|(d, _)| d.len()).sum();
    println!("interp bench: {} SARC archives, {bytes} bytes", set.len());

    side_by_side(
        c,
        "interp_sarc",
        bytes,
        None,
        [
            ("decode_codec", &|| {
                for (data, _) in &set {
                    black_box(sarc::decode(black_box(data)).unwrap());
                }
            }),
            ("decode_interp", &|| {
                for ((data, _), c) in set.iter().zip(&schemas) {
                    black_box(interp::decode(c, black_box(data)).unwrap().to_value());
                }
            }),
            ("encode_codec", &|| {
                for (doc, (_, v)) in typed.iter().zip(&set) {
                    black_box(sarc::encode(black_box(doc), *v).unwrap());
                }
            }),
            ("encode_interp", &|| {
                for (doc, c) in docs.iter().zip(&schemas) {
                    black_box(interp::encode(c, black_box(doc), &Glue).unwrap());
                }
            }),
        ],
    );
}

fn bench_aamp(c: &mut Criterion) {
    let set = files(&["aamp"], |d| aamp::decode(d).is_ok());
    if set.is_empty() {
        println!("interp bench: no AAMP files in the corpus; nothing to time");
        return;
    }
    let schema = schema_of(aamp::schema::SCHEMA_SOURCE, "schemas/aamp.ron", None);
    let docs: Vec<Value> = set
        .iter()
        .map(|d| interp::decode(&schema, d).unwrap().to_value())
        .collect();
    let typed: Vec<_> = set.iter().map(|d| aamp::decode(d).unwrap()).collect();
    let bytes: usize = set.iter().map(Vec::len).sum();
    println!("interp bench: {} AAMP files, {bytes} bytes", set.len());
    side_by_side(
        c,
        "interp_aamp",
        bytes,
        None,
        [
            ("decode_codec", &|| {
                for data in &set {
                    black_box(aamp::decode(black_box(data)).unwrap());
                }
            }),
            ("decode_interp", &|| {
                for data in &set {
                    black_box(interp::decode(&schema, black_box(data)).unwrap().to_value());
                }
            }),
            ("encode_codec", &|| {
                for doc in &typed {
                    black_box(aamp::encode(black_box(doc)).unwrap());
                }
            }),
            ("encode_interp", &|| {
                for doc in &docs {
                    black_box(interp::encode(&schema, black_box(doc), &Glue).unwrap());
                }
            }),
        ],
    );
}

fn bench_byml(c: &mut Criterion) {
    let set: Vec<(Vec<u8>, byml::Variant)> = files(&["byml", "zstd"], |d| {
        byml::detect(d).is_some() && byml::decode(d).is_ok()
    })
    .into_iter()
    .map(|d| {
        let v = byml::detect(&d).unwrap();
        (d, v)
    })
    .collect();
    if set.is_empty() {
        println!("interp bench: no BYML files in the corpus; nothing to time");
        return;
    }
    let base = schema_of(byml::schema::SCHEMA_SOURCE, "schemas/byml.ron", None);
    let schemas: Vec<Checked> = set
        .iter()
        .map(|(_, v)| base.variant(&format!("{v:?}")).unwrap().clone())
        .collect();
    let docs: Vec<Value> = set
        .iter()
        .zip(&schemas)
        .map(|((d, _), c)| interp::decode(c, d).unwrap().to_value())
        .collect();
    let typed: Vec<byml::Header> = set
        .iter()
        .map(|(d, _)| byml::decode(d).unwrap().1)
        .collect();
    let bytes: usize = set.iter().map(|(d, _)| d.len()).sum();
    println!("interp bench: {} BYML files, {bytes} bytes", set.len());
    side_by_side(
        c,
        "interp_byml",
        bytes,
        Some(10),
        [
            ("decode_codec", &|| {
                for (data, _) in &set {
                    black_box(byml::decode(black_box(data)).unwrap());
                }
            }),
            ("decode_interp", &|| {
                for ((data, _), c) in set.iter().zip(&schemas) {
                    black_box(interp::decode(c, black_box(data)).unwrap().to_value());
                }
            }),
            ("encode_codec", &|| {
                for (doc, (_, v)) in typed.iter().zip(&set) {
                    black_box(byml::encode(black_box(doc), *v).unwrap());
                }
            }),
            ("encode_interp", &|| {
                for (doc, c) in docs.iter().zip(&schemas) {
                    black_box(interp::encode(c, black_box(doc), &Glue).unwrap());
                }
            }),
        ],
    );
}

fn bench_bdat(c: &mut Criterion) {
    let set: Vec<(Vec<u8>, bdat::Variant)> = files(&["bdat"], |d| bdat::decode(d).is_ok())
        .into_iter()
        .map(|d| {
            let v = bdat::detect(&d).unwrap();
            (d, v)
        })
        .collect();
    if set.is_empty() {
        println!("interp bench: no legacy BDAT files in the corpus; nothing to time");
        return;
    }
    let base = schema_of(bdat::schema::SCHEMA_SOURCE, "schemas/bdat_legacy.ron", None);
    let schemas: Vec<Checked> = set
        .iter()
        .map(|(_, v)| base.variant(v.name()).unwrap().clone())
        .collect();
    let read = |c: &Checked, d: &[u8]| {
        let d = interp::decode_partial_with(c, d, codec_runtime::Limits::default(), &Glue);
        assert!(d.error.is_none());
        d.root.to_value()
    };
    let docs: Vec<Value> = set
        .iter()
        .zip(&schemas)
        .map(|((d, _), c)| read(c, d))
        .collect();
    let typed: Vec<bdat::BdatFile> = set
        .iter()
        .map(|(d, _)| bdat::decode(d).unwrap().1)
        .collect();
    let bytes: usize = set.iter().map(|(d, _)| d.len()).sum();
    println!(
        "interp bench: {} legacy BDAT files, {bytes} bytes",
        set.len()
    );
    side_by_side(
        c,
        "interp_bdat",
        bytes,
        Some(10),
        [
            ("decode_codec", &|| {
                for (data, _) in &set {
                    black_box(bdat::decode(black_box(data)).unwrap());
                }
            }),
            ("decode_interp", &|| {
                for ((data, _), c) in set.iter().zip(&schemas) {
                    black_box(read(c, black_box(data)));
                }
            }),
            ("encode_codec", &|| {
                for (doc, (_, v)) in typed.iter().zip(&set) {
                    black_box(bdat::encode(black_box(doc), *v).unwrap());
                }
            }),
            ("encode_interp", &|| {
                for (doc, c) in docs.iter().zip(&schemas) {
                    black_box(interp::encode(c, black_box(doc), &Glue).unwrap());
                }
            }),
        ],
    );
}

/// The four runs of one format, side by side in one group: the compiled
/// codec's decode and the interpreter's, then both encodes. Each run is one
/// pass over the format's files.
fn side_by_side(
    c: &mut Criterion,
    group: &str,
    bytes: usize,
    sample_size: Option<usize>,
    runs: [(&str, &dyn Fn()); 4],
) {
    let mut g = c.benchmark_group(group);
    if let Some(n) = sample_size {
        g.sample_size(n);
    }
    g.throughput(Throughput::Bytes(bytes as u64));
    for (name, run) in runs {
        g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(run));
    }
    g.finish();
}

criterion_group!(benches, bench_sarc, bench_aamp, bench_byml, bench_bdat);
criterion_main!(benches);
