// Follows names a field that is not an offset.
codec_derive::schema!("tests/ui/schemas/follows_not_after_offset.ron");

fn main() {}
