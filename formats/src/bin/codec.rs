fn main() {
    let mut ok = 0;
    let mut bad = 0;
    for a in std::env::args().skip(1) {
        for e in std::fs::read_dir(&a).unwrap() {
            let p = e.unwrap().path();
            if !p.is_file() {
                continue;
            }
            let d = std::fs::read(&p).unwrap();
            let Some(f) = formats::Format::detect(&d) else {
                continue;
            };
            match formats::round_trip(f, &d) {
                Ok(o) if o == d => ok += 1,
                Ok(o) => {
                    bad += 1;
                    let i = o
                        .iter()
                        .zip(&d)
                        .position(|(a, b)| a != b)
                        .unwrap_or(o.len().min(d.len()));
                    println!(
                        "{}: differs at 0x{i:x} (len {} vs {})",
                        p.display(),
                        o.len(),
                        d.len()
                    );
                }
                Err(e) => {
                    bad += 1;
                    println!("{}: {e}", p.display());
                }
            }
        }
    }
    println!("{ok} identical, {bad} bad");
}
