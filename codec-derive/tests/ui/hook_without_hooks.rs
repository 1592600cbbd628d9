// Section `data` is ordered by a glue hook, but schema! gets no `hooks =`.
codec_derive::schema!("tests/ui/schemas/hook_without_hooks.ron");

fn main() {}
