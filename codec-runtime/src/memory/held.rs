//! The tags holders hold for their elements (behaviour: `held.rs`).

/// The tags the holders being decoded hold for their elements, innermost
/// last.
#[derive(Debug, Default)]
pub struct HeldTags {
    pub(crate) frames: Vec<Frame>,
}

#[derive(Debug)]
pub(crate) struct Frame {
    /// Where the first tag is, and each tag's width in bytes.
    pub(crate) at: u64,
    pub(crate) width: u64,
    pub(crate) tags: Vec<u64>,
    /// The index of the element that takes a tag next.
    pub(crate) next: usize,
}
