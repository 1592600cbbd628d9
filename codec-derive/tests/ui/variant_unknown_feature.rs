// A field's condition names a feature the schema does not declare.
codec_derive::schema!("tests/ui/schemas/variant_unknown_feature.ron");

fn main() {}
