// A bitfield as an array element: only a direct struct field gets a bitfield struct.
codec_derive::schema!("tests/ui/schemas/bits_in_array.ron");

fn main() {}
