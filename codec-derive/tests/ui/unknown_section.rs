// The offset's target goes to section `string`, but the section is `strings`.
codec_derive::schema!("tests/ui/schemas/unknown_section.ron");

fn main() {}
