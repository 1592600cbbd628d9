// An offset inside a unit places its target in a section of the file.
codec_derive::schema!("tests/ui/schemas/unit_section_outside.ron");

fn main() {}
