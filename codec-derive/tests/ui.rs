//! Compile-fail tests of the schema diagnostics as the macro user sees them,
//! and one schema that must compile.

#[test]
fn ui() {
    // trybuild builds the cases in a scratch crate; schema paths stay
    // relative to this crate.
    std::env::set_var("CODEC_DERIVE_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"));
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
