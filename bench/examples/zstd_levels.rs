//! Size and time of zstd levels on the corpus's zstd files (and any file
//! given), with the game's dictionaries: the numbers behind the level
//! `codec` writes (`docs/layers.md`).
//! `cargo run -p bench --release --example zstd_levels -- [FILE.zs]...`

use formats::layer::zstd;

fn main() {
    let root = bench::corpus_root().join("zstd");
    let mut dicts = zstd::Dictionaries::default();
    dicts
        .add_file(&std::fs::read(root.join("ZsDic.pack.zs")).expect("ZsDic.pack.zs"))
        .expect("the game's dictionaries");
    let mut paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    if paths.is_empty() {
        paths = ["A-4_Static.bcett.byml.zs", "Armor_006_Upper.pack.zs"]
            .iter()
            .map(|n| root.join(n))
            .collect();
    }
    for p in paths {
        let frame = std::fs::read(&p).expect("reads");
        let id = zstd::dictionary_id(&frame);
        let raw = zstd::decompress(&frame, &dicts).expect("decompresses");
        println!(
            "{}: {} bytes, the game's frame {} bytes",
            p.display(),
            raw.len(),
            frame.len()
        );
        for level in [3, 6, 9, 12, 14, 16, 19] {
            let t = std::time::Instant::now();
            let out = zstd::compress_at(&raw, id, &dicts, level).expect("compresses");
            println!(
                "  level {level:2}: {:9} bytes ({:+.1} % of the game's), {:.3} s",
                out.len(),
                (out.len() as f64 / frame.len() as f64 - 1.0) * 100.0,
                t.elapsed().as_secs_f64()
            );
        }
    }
}
