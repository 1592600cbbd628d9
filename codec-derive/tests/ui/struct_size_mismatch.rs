// `Entry` declares 0x10 bytes, but its fields take 4 + 2 + 2 + 4 = 0xC.
codec_derive::schema!("tests/ui/schemas/struct_size_mismatch.ron");

fn main() {}
