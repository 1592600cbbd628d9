//! `cargo run -p codec-schema --example check_schema -- schemas/x.ron`:
//! checks one schema and prints its mistakes.
fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "schemas/aamp.ron".into());
    match codec_schema::load(std::path::Path::new(&path), &path) {
        Ok(c) => println!("ok {} types", c.schema.types.len()),
        Err(e) => println!("{e}"),
    }
}
