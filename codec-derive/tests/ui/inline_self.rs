// `Node` holds a `Child` inline, and `Child` holds a `Node` inline.
codec_derive::schema!("tests/ui/schemas/inline_self.ron");

fn main() {}
