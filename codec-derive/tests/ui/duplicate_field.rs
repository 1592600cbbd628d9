// Two fields of `Header` are called `size`.
codec_derive::schema!("tests/ui/schemas/duplicate_field.ron");

fn main() {}
