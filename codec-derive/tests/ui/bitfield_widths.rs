// The bit ranges add up to 12 bits, but the word is a U16.
codec_derive::schema!("tests/ui/schemas/bitfield_widths.ron");

fn main() {}
