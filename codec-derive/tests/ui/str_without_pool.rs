// A string offset into a section that holds no pool.
codec_derive::schema!("tests/ui/schemas/str_without_pool.ron");

fn main() {}
