// Rows need a row length field.
codec_derive::schema!("tests/ui/schemas/rows_without_stride.ron");

fn main() {}
