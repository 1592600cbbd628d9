// A tag derived from a union whose variant has another tag in another
// schema variant is refused by name, not generated wrong.
codec_derive::schema!("tests/ui/schemas/tag_two_tags.ron");

fn main() {}
