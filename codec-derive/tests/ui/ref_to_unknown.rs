// A reference to a struct the schema does not have.
codec_derive::schema!("tests/ui/schemas/ref_to_unknown.ron");

fn main() {}
