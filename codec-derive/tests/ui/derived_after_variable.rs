// The root's FileSize follows a CString, so it has no fixed offset to patch.
codec_derive::schema!("tests/ui/schemas/derived_after_variable.ron");

fn main() {}
