// A magic must be 1 to 16 ASCII characters.
codec_derive::schema!("tests/ui/schemas/bad_magic.ron");

fn main() {}
