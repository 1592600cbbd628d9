// A context field that is not an unsigned integer, groups behind an offset,
// and a sum counting a list with a field read after it and one that is not
// a field.
codec_derive::schema!("tests/ui/schemas/groups_and_sums.ron");

fn main() {}
