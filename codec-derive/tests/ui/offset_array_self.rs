// An offset to an inline array of the struct itself: an infinite Rust type.
codec_derive::schema!("tests/ui/schemas/offset_array_self.ron");

fn main() {}
