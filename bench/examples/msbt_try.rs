fn main() {
    let d = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    println!("{:?}", formats::msbt::to_text(&d).map(|t| t.len()));
}
