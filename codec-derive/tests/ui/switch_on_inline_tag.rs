// A Switch on a union that stores its own tag.
codec_derive::schema!("tests/ui/schemas/switch_on_inline_tag.ron");

fn main() {}
