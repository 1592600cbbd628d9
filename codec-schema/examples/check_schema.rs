fn main() {
    match codec_schema::load(std::path::Path::new("schemas/aamp.ron"), "schemas/aamp.ron") {
        Ok(c) => println!("ok {} types", c.schema.types.len()),
        Err(e) => println!("{e}"),
    }
}
