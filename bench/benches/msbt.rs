//! MSBT: decode and encode of the compiled codec, and the editors' text
//! (to-text with its read-back check, from-text), beside pymsbt (the Python
//! library modders' tools use) measured in the same run on the same files.
//!
//! The files are the corpus's little-endian UTF-16 MSBT files (all pymsbt
//! reads; its writer is timed on those it writes without an exception).
//! pymsbt runs through `bench/peers/pymsbt_time.py` with the Python of
//! `$PYMSBT_PYTHON`, else of the virtual environment `.ci/run` makes
//! (`<target>/peers-msbt`); without one the bench says so and measures
//! codec alone.
//!
//! Two shapes: the corpus as it is (158 files), and one message archive
//! built from it as the game ships one (`USen.Product.121.sarc.zs`: 1,510
//! members in a SARC), its members' decode and encode on every core
//! (`archive_*`), as `codec check` of the archive runs them.
//!
//! Before criterion's groups, a quick estimate (median of passes,
//! alternated with pymsbt's) prints the ratios; criterion's medians follow.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use formats::msbt;

fn le_utf16(d: &[u8]) -> bool {
    msbt::detect(d) == Some("Le")
}

/// pymsbt's medians (decode, encode seconds a pass) and its file counts,
/// or why there are none.
fn pymsbt(rounds: u32) -> Result<(f64, f64, u64, u64, u64), String> {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let python = std::env::var_os("PYMSBT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("peers-msbt/bin/python"));
    if !python.exists() {
        return Err(format!(
            "no Python with pymsbt at {} (set PYMSBT_PYTHON, or run .ci/run once)",
            python.display()
        ));
    }
    let out = std::process::Command::new(&python)
        .arg(workspace.join("bench/peers/pymsbt_time.py"))
        .arg(bench::corpus_root().join("msbt"))
        .args(["--rounds", &rounds.to_string()])
        .output()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let j: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("pymsbt_time.py: {e}"))?;
    let median = |k: &str| {
        let mut v: Vec<f64> = j[k]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
            .unwrap_or_default();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let n = |k: &str| j[k].as_u64().unwrap_or(0);
    Ok((
        median("decode_s"),
        median("encode_s"),
        n("files"),
        n("encode_files"),
        n("bytes"),
    ))
}

/// The median seconds of `rounds` passes of `f`.
fn median_of(rounds: u32, mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A message archive of `n` members named as the game names them, each a
/// corpus file in turn.
fn archive_members(files: &[Vec<u8>], n: usize) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                format!("Msg/Member{i:04}.msbt"),
                files[i % files.len()].clone(),
            )
        })
        .collect()
}

fn msbt_bench(c: &mut Criterion) {
    let Some(files) = bench::load_tree("msbt", msbt::MAGIC) else {
        println!(
            "msbt bench: no corpus at {} (set CODEC_CORPUS); no benchmarks registered",
            bench::corpus_root().join("msbt").display()
        );
        return;
    };
    let inputs: Vec<Vec<u8>> = files
        .into_iter()
        .map(|f| f.bytes)
        .filter(|b| le_utf16(b))
        .collect();
    let total: u64 = inputs.iter().map(|b| b.len() as u64).sum();
    let docs: Vec<_> = inputs
        .iter()
        .map(|b| msbt::decode_typed(b).expect("corpus file decodes").1)
        .collect();
    let identical = docs
        .iter()
        .zip(&inputs)
        .filter(|(d, b)| msbt::encode_typed(d, "Le").ok().as_deref() == Some(&b[..]))
        .count();
    let texts: Vec<String> = inputs
        .iter()
        .map(|b| msbt::to_text(b).expect("the editors' text"))
        .collect();
    println!(
        "msbt bench: {} little-endian UTF-16 files, {total} bytes; re-encoded byte for byte: {identical}/{}",
        inputs.len(),
        inputs.len()
    );

    let decode = || {
        for b in &inputs {
            black_box(msbt::decode_typed(black_box(b)).ok());
        }
    };
    let encode = || {
        for d in &docs {
            black_box(msbt::encode_typed(black_box(d), "Le").ok());
        }
    };
    match pymsbt(5) {
        Ok((py_decode, py_encode, n, n_written, bytes)) => {
            let ours_decode = median_of(15, decode);
            let ours_encode = median_of(15, encode);
            println!(
                "msbt bench: pymsbt on {n} files ({bytes} bytes): decode {:.1} ms a pass, encode {:.1} ms ({n_written} files it writes)",
                py_decode * 1e3,
                py_encode * 1e3
            );
            println!(
                "msbt bench: codec (quick estimate, same files): decode {:.2} ms ({:.0}x pymsbt), encode {:.2} ms ({:.0}x)",
                ours_decode * 1e3,
                py_decode / ours_decode,
                ours_encode * 1e3,
                py_encode / ours_encode
            );
        }
        Err(why) => println!("msbt bench: pymsbt not measured: {why}"),
    }

    let mut group = c.benchmark_group("msbt_decode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| b.iter(decode));
    group.finish();

    let mut group = c.benchmark_group("msbt_encode");
    group.throughput(Throughput::Bytes(total));
    group.bench_function("codec", |b| b.iter(encode));
    group.finish();

    let mut group = c.benchmark_group("msbt_text");
    group.throughput(Throughput::Bytes(total));
    group.sample_size(20);
    group.bench_function("to_text", |b| {
        b.iter(|| {
            for d in &inputs {
                black_box(msbt::to_text(black_box(d)).ok());
            }
        })
    });
    group.bench_function("from_text", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(msbt::from_text(black_box(t)).ok());
            }
        })
    });
    group.finish();

    // The message archive's shape: 1,510 members, checked as `codec check`
    // checks an archive's members (decode, encode, compare; every core).
    let members = archive_members(&inputs, 1510);
    let archive_bytes: u64 = members.iter().map(|(_, b)| b.len() as u64).sum();
    let mut group = c.benchmark_group("msbt_archive");
    group.throughput(Throughput::Bytes(archive_bytes));
    group.sample_size(10);
    group.bench_function("check_members_all_cores", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            let same = members
                .par_iter()
                .filter(|(_, d)| {
                    msbt::decode_typed(d)
                        .ok()
                        .and_then(|(v, doc)| msbt::encode_typed(&doc, v).ok())
                        .is_some_and(|back| &back == d)
                })
                .count();
            black_box(same)
        })
    });
    group.finish();
}

criterion_group!(benches, msbt_bench);
criterion_main!(benches);
