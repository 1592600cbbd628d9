// A post-order section holds records whose own targets go to it too.
codec_derive::schema!("tests/ui/schemas/post_order_self.ron");

fn main() {}
