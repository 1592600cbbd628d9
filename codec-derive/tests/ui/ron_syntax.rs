// A comma is missing after the first field.
codec_derive::schema!("tests/ui/schemas/ron_syntax.ron");

fn main() {}
