// A hash index chains through a field that is not derived.
codec_derive::schema!("tests/ui/schemas/hash_next_not_derived.ron");

fn main() {}
