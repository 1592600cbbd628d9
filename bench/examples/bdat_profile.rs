//! Profiling driver for the BDAT codec: decodes (or encodes) the XC2 files
//! of the corpus in a loop, for `perf record`.
//!
//! `cargo run --release -p bench --example bdat_profile -- decode|encode|peer-decode|peer-encode [N]`

use formats::bdat::{self, Variant};

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().unwrap_or_else(|| "decode".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let dir = bench::corpus_root().join("bdat");
    let files: Vec<Vec<u8>> = [
        "xc2_ckurtz_common_ms.bdat",
        "xc2_ckurtz_common_gmk.bdat",
        "xc2_randomizer_common_ms.bdat",
    ]
    .iter()
    .filter(|f| std::env::var("BDAT_ONLY").map_or(true, |o| f.contains(o.as_str())))
    .filter_map(|f| std::fs::read(dir.join(f)).ok())
    .collect();
    let docs: Vec<bdat::BdatFile> = files
        .iter()
        .map(|f| bdat::decode_as(f, Variant::Switch).unwrap())
        .collect();
    let peers: Vec<Vec<::bdat::legacy::LegacyTable<'_>>> = files
        .iter()
        .filter(|_| what.starts_with("peer"))
        .map(|f| peer_decode(f))
        .collect();
    let start = std::time::Instant::now();
    for _ in 0..n {
        match what.as_str() {
            "peer-decode" => {
                for f in &files {
                    std::hint::black_box(peer_decode(f));
                }
            }
            "peer-encode" => {
                for t in &peers {
                    std::hint::black_box(
                        ::bdat::legacy::to_vec_options::<::bdat::SwitchEndian>(
                            t,
                            ::bdat::LegacyVersion::Switch,
                            ::bdat::legacy::LegacyWriteOptions::new().scramble(true),
                        )
                        .unwrap(),
                    );
                }
            }
            "encode" => {
                for d in &docs {
                    std::hint::black_box(bdat::encode(d, Variant::Switch).unwrap());
                }
            }
            _ => {
                for f in &files {
                    std::hint::black_box(bdat::decode_as(f, Variant::Switch).unwrap());
                }
            }
        }
    }
    println!(
        "{what}: {:?} per iteration",
        start.elapsed() / n.max(1) as u32
    );
}

fn peer_decode(bytes: &[u8]) -> Vec<::bdat::legacy::LegacyTable<'_>> {
    use ::bdat::BdatFile;
    ::bdat::legacy::from_bytes_copy::<::bdat::SwitchEndian>(bytes, ::bdat::LegacyVersion::Switch)
        .and_then(|mut f| f.get_tables())
        .unwrap()
}
