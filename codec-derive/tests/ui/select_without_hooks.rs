// A union chosen by glue, but no glue module in the invocation.
codec_derive::schema!("tests/ui/schemas/select_without_hooks.ron");

fn main() {}
