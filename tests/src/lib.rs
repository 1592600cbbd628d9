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

/// An AAMP file that tries to amplify: `levels` blocks of two lists, each
/// pointing at the same next block, so that a decoder following every
/// offset would read 2^levels lists from a file of `24 * levels + 64` bytes.
/// The reader's read budget must stop it.
pub fn aamp_shared_sublists(levels: usize) -> Vec<u8> {
    const HEADER: usize = 0x30;
    let mut d = formats::aamp::encode(&formats::aamp::ParameterIO::new("xml"))
        .expect("an empty document encodes");
    d.truncate(HEADER + 4);
    let record = |d: &mut Vec<u8>, name: u32, children: u16, count: u16| {
        d.extend_from_slice(&name.to_le_bytes());
        d.extend_from_slice(&children.to_le_bytes());
        d.extend_from_slice(&count.to_le_bytes());
        d.extend_from_slice(&0u16.to_le_bytes());
        d.extend_from_slice(&0u16.to_le_bytes());
    };
    // The root: its two children right after it.
    record(&mut d, 0xA4F6_CB6C, 3, 2);
    for level in 0..levels {
        let last = level + 1 == levels;
        // The first list of a block points 24 bytes on (6 units) to the next
        // block; the second, 12 bytes further along, 3 units.
        let (a, b, n) = if last { (0, 0, 0) } else { (6, 3, 2) };
        record(&mut d, 2 * level as u32, a, n);
        record(&mut d, 2 * level as u32 + 1, b, n);
    }
    let len = d.len() as u32;
    d[0x0C..0x10].copy_from_slice(&len.to_le_bytes());
    d
}
