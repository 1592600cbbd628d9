// The list's count names `entry_cnt`, but the field is called `entry_count`.
codec_derive::schema!("tests/ui/schemas/count_names_no_field.ron");

fn main() {}
