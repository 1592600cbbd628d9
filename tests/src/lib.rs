//! Helpers shared by the workspace-level tests.

use std::path::PathBuf;

/// The corpus folder of a format: `$CODEC_CORPUS/<format>` or
/// `../shared/corpus/<format>` beside the repository. `None` when absent.
pub fn corpus_dir(format: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("CODEC_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    let dir = base.join(format);
    dir.is_dir().then_some(dir)
}
