// Two variants extend each other.
codec_derive::schema!("tests/ui/schemas/variant_extends_cycle.ron");

fn main() {}
