// A field only one variant has, so it is a duplicate there.
codec_derive::schema!("tests/ui/schemas/variant_only_some.ron");

fn main() {}
