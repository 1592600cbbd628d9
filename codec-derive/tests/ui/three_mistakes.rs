// Three independent mistakes, all reported by one compile:
codec_derive::schema!("tests/ui/schemas/three_mistakes.ron");

fn main() {}
