// Records go to a section with dedup: they would be shared before their offsets are patched.
codec_derive::schema!("tests/ui/schemas/dedup_records.ron");

fn main() {}
