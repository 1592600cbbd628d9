// `item_count` counts `items` but has no `derive: Count("items")`.
codec_derive::schema!("tests/ui/schemas/count_not_derived.ron");

fn main() {}
