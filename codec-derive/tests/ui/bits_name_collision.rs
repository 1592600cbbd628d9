// `Header.flags` generates a struct `HeaderFlags`, which the schema also defines.
codec_derive::schema!("tests/ui/schemas/bits_name_collision.ron");

fn main() {}
