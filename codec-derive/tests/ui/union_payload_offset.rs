// A union payload struct holds an offset: its target would never be placed.
codec_derive::schema!("tests/ui/schemas/union_payload_offset.ron");

fn main() {}
