//! Writes a message archive shaped as TotK ships one
//! (`Mals/USen.Product.121.sarc.zs`: 1,510 MSBT members in a SARC, zstd
//! with the game's dictionary 1), its members the corpus's MSBT files in
//! turn, for timing `codec check`, `to-text`, `from-text` and
//! `archive replace` on it:
//! `cargo run -p bench --release --example msbt_archive -- OUT.sarc.zs [members]`

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args
        .next()
        .expect("usage: msbt_archive OUT.sarc.zs [members]");
    let n: usize = args.next().map_or(1510, |s| s.parse().expect("a number"));
    let files = bench::load_tree("msbt", formats::msbt::MAGIC).expect("the msbt corpus");
    let files: Vec<_> = files
        .into_iter()
        .filter(|f| formats::msbt::detect(&f.bytes) == Some("Le"))
        .collect();
    let nodes = (0..n)
        .map(|i| {
            let f = &files[i % files.len()];
            let stem = f.name.trim_end_matches(".msbt").replace('\\', "/");
            formats::sarc::Node::new(&format!("{stem}_{i:04}.msbt"), f.bytes.clone())
        })
        .collect();
    let archive = formats::sarc::Sarc::new(nodes);
    let sarc = formats::sarc::encode(&archive, formats::sarc::Variant::Little).expect("encodes");
    let mut dicts = formats::layer::zstd::Dictionaries::default();
    let dic = std::fs::read(bench::corpus_root().join("zstd/ZsDic.pack.zs"))
        .expect("the corpus's ZsDic.pack.zs");
    dicts.add_file(&dic).expect("the game's dictionaries");
    let zs = formats::layer::zstd::compress(&sarc, Some(1), &dicts).expect("compresses");
    std::fs::write(&out, &zs).expect("writes");
    if std::env::var_os("MSBT_ARCHIVE_RAW").is_some() {
        // The SARC too, for timing compressors on it.
        std::fs::write(format!("{out}.sarc"), &sarc).expect("writes");
    }
    eprintln!(
        "{out}: {n} members, SARC {} bytes, zstd {} bytes",
        sarc.len(),
        zs.len()
    );
}
