// The offset points to `Body`, which the schema never defines.
codec_derive::schema!("tests/ui/schemas/offset_to_unknown_struct.ron");

fn main() {}
