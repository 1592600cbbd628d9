// A field names a type with the wrong case: `Entry` is defined, `entry` is not.
codec_derive::schema!("tests/ui/schemas/unknown_type.ron");

fn main() {}
