// The tag field is a U16, but the union's tag is a U8.
codec_derive::schema!("tests/ui/schemas/tag_width.ron");

fn main() {}
