//! Times the interpreter on one file: `interp_time SCHEMA.ron FILE [VARIANT] [RUNS]`.
//! Prints the decode time of each run and the tree's node count.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: interp_time SCHEMA.ron FILE [VARIANT] [RUNS]");
        std::process::exit(2);
    }
    let checked = codec_schema::load(std::path::Path::new(&args[1]), &args[1])
        .unwrap_or_else(|d| panic!("{d}"));
    let c = match args.get(3).filter(|v| !v.is_empty()) {
        Some(v) => checked.variant(v).expect("the variant"),
        None => &checked,
    };
    let data = std::fs::read(&args[2]).expect("the file");
    let runs: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(3);
    for _ in 0..runs {
        let t = std::time::Instant::now();
        let root = codec_interp::decode(c, &data).expect("decodes");
        let took = t.elapsed();
        let mut nodes = 0usize;
        root.walk(&mut |_, _| nodes += 1);
        let t2 = std::time::Instant::now();
        drop(root);
        eprintln!(
            "decode {:.0} ms, {nodes} nodes, drop {:.0} ms",
            took.as_secs_f64() * 1e3,
            t2.elapsed().as_secs_f64() * 1e3
        );
    }
}
