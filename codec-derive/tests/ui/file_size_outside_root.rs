// FileSize can only be derived in the root struct.
codec_derive::schema!("tests/ui/schemas/file_size_outside_root.ron");

fn main() {}
