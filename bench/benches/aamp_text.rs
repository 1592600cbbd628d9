//! AAMP ↔ YAML: our `to_yaml` / `from_yaml` side by side with roead 1.0.0's
//! `to_text` / `from_text`, over the corpus, with the same names.
//!
//! Names: ours loads the community's tables from `<corpus>/aamp/dict/`
//! (`botw_hashed_names.txt`, `botw_numbered_names.txt`) once; roead embeds
//! the same two files (its `aamp-names` feature, implied by `yaml`). roead's
//! table is global and keeps every guess between calls, so it is warm after
//! the first iteration; ours keeps guesses per document, so every iteration
//! of ours does the full recovery work for every file.
//!
//! Each iteration converts every file of the set. Throughput is the size of
//! the texts each side writes (to-text) or reads (from-text): our texts for
//! ours, roead's texts for roead. The set is the top-level AAMP files of the
//! corpus that both sides convert both ways; the others are listed.
//!
//! The corpus is `$CODEC_CORPUS/aamp`, else `<workspace>/../shared/corpus/aamp`;
//! without it the bench prints a message and registers nothing.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use formats::aamp::names::NameTable;
use formats::aamp::text::{from_yaml, to_yaml};

struct FileSet {
    ours: Vec<formats::aamp::ParameterIO>,
    peers: Vec<roead::aamp::ParameterIO>,
    our_texts: Vec<String>,
    peer_texts: Vec<String>,
    names: NameTable,
}

fn file_set() -> Option<FileSet> {
    let dir = bench::corpus_root().join("aamp");
    let Some(all) = bench::load_aamp() else {
        println!(
            "aamp_text bench: no corpus at {} (set CODEC_CORPUS); no benchmarks registered",
            dir.display()
        );
        return None;
    };
    let mut names = NameTable::new();
    let loaded = names
        .load_names_file(&dir.join("dict/botw_hashed_names.txt"))
        .and_then(|_| names.load_patterns_file(&dir.join("dict/botw_numbered_names.txt")));
    if let Err(e) = loaded {
        println!("aamp_text bench: cannot load the names ({e}); no benchmarks registered");
        return None;
    }
    let mut set = FileSet {
        ours: Vec::new(),
        peers: Vec::new(),
        our_texts: Vec::new(),
        peer_texts: Vec::new(),
        names,
    };
    for f in all {
        let ours = formats::aamp::decode(&f.bytes).map_err(|e| e.to_string());
        let peer = roead::aamp::ParameterIO::from_binary(&f.bytes).map_err(|e| e.to_string());
        let (ours, peer) = match (ours, peer) {
            (Ok(o), Ok(p)) => (o, p),
            (o, p) => {
                println!(
                    "aamp_text bench: excluding {} (codec: {}, roead: {})",
                    f.name,
                    o.err().unwrap_or_else(|| "ok".into()),
                    p.err().unwrap_or_else(|| "ok".into())
                );
                continue;
            }
        };
        let our_text = to_yaml(&ours, &set.names);
        let peer_text = peer.to_text();
        if let Err(e) = roead::aamp::ParameterIO::from_text(&peer_text) {
            println!(
                "aamp_text bench: excluding {} (roead cannot read its own text: {e})",
                f.name
            );
            continue;
        }
        if let Err(e) = from_yaml(&our_text) {
            println!(
                "aamp_text bench: excluding {} (codec cannot read its text: {e})",
                f.name
            );
            continue;
        }
        set.ours.push(ours);
        set.peers.push(peer);
        set.our_texts.push(our_text);
        set.peer_texts.push(peer_text);
    }
    Some(set)
}

fn bench(c: &mut Criterion) {
    let Some(set) = file_set() else { return };
    let our_len: usize = set.our_texts.iter().map(String::len).sum();
    let peer_len: usize = set.peer_texts.iter().map(String::len).sum();
    println!(
        "aamp_text bench: {} files; our text {our_len} bytes, roead's {peer_len} bytes",
        set.ours.len()
    );

    let mut g = c.benchmark_group("aamp_to_text");
    g.throughput(Throughput::Bytes(our_len as u64));
    g.bench_function("codec", |b| {
        b.iter(|| {
            for d in &set.ours {
                black_box(to_yaml(black_box(d), &set.names));
            }
        })
    });
    g.throughput(Throughput::Bytes(peer_len as u64));
    g.bench_function("roead", |b| {
        b.iter(|| {
            for d in &set.peers {
                black_box(black_box(d).to_text());
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("aamp_from_text");
    g.throughput(Throughput::Bytes(our_len as u64));
    g.bench_function("codec", |b| {
        b.iter(|| {
            for t in &set.our_texts {
                black_box(from_yaml(black_box(t)).expect("checked above"));
            }
        })
    });
    g.throughput(Throughput::Bytes(peer_len as u64));
    g.bench_function("roead", |b| {
        b.iter(|| {
            for t in &set.peer_texts {
                black_box(
                    roead::aamp::ParameterIO::from_text(black_box(t)).expect("checked above"),
                );
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    // roead's to-text takes over a second per iteration.
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
