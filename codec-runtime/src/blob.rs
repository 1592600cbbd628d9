//! [`Blob`]: the document type of a run of bytes (`List(of: U8)`), held by
//! the buffer it was read from when decoding shared it.
//!
//! Why not a `Vec<u8>`: a blob read out of a file is a copy of its bytes,
//! and a copy of a large blob is the whole cost of reading a file that is
//! mostly one (issue 51: a 32 KiB binary node decodes no faster than one
//! `memcpy`, and so no faster than any reader that copies, roead's
//! included). When the caller hands the decoder the file's buffer itself
//! (`decode_shared`, taking an `Arc<Vec<u8>>`), a blob is that buffer and a
//! range: no copy, and cloning the document copies no blob either. A blob
//! built by hand, or decoded from a borrowed slice, owns its bytes.
//!
//! It stays a plain, editable byte list: it derefs to `[u8]` (reading and
//! writing bytes in place), [`Blob::to_mut`] gives the `Vec<u8>` to grow or
//! shrink, and a shared blob is copied out the first time it is written to
//! (copy on write), so an edit never reaches the buffer or another blob.
//!
//! It is 24 bytes, as a `Vec<u8>` is, and like a `Vec<u8>` it has spare
//! values a union's tag can use (`Kind`), so that a union holding one is
//! no larger than the blob: BYML's `Node` stays 32 bytes. (A first version
//! without them made `Node` 40 bytes and the corpus's decode 6 % slower.)
//! So a shared range is at most 4 GiB long (`u32`); a longer one is read
//! as a copy.
//!
//! Memory: a shared blob keeps the whole input buffer alive, which is
//! bounded by the input; [`Blob::to_mut`] (or `Blob::from(b.to_vec())`)
//! detaches one.

use std::sync::Arc;

/// The buffer a shared decode reads from: the whole input, owned once and
/// counted by every blob read out of it.
pub type SharedInput = Arc<Vec<u8>>;

/// Which bytes of its owner a blob is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    /// The owner's whole vector (owned, or shared whole): its length is
    /// the vector's, which [`Blob::to_mut`] may change.
    Whole,
    /// `start..start + len`.
    Range,
}

/// A run of bytes, owned or a range of a shared input (see the module doc).
///
/// `repr(C)` with the kind first: its spare values sit at one end of the
/// blob, so that a record holding a blob and a little more (BYML's
/// `AlignedBinary`) still offers them to a union, whose other variants fit
/// beside them.
#[derive(Clone)]
#[repr(C)]
pub struct Blob {
    kind: Kind,
    /// How many bytes (a range).
    len: u32,
    /// `None`: empty.
    owner: Option<SharedInput>,
    /// Where the bytes start in the owner (a range).
    start: usize,
}

impl Default for Blob {
    fn default() -> Self {
        Blob::new()
    }
}

impl Blob {
    /// An empty blob (no allocation).
    pub const fn new() -> Self {
        Blob {
            owner: None,
            start: 0,
            len: 0,
            kind: Kind::Whole,
        }
    }

    /// Bytes `start..start + len` of `input`, without a copy. `None` when
    /// the range is not inside the input, or longer than 4 GiB.
    pub fn shared(input: &SharedInput, start: usize, len: usize) -> Option<Self> {
        let end = start.checked_add(len)?;
        if end > input.len() {
            return None;
        }
        if len == 0 {
            return Some(Blob::new());
        }
        Some(Blob {
            owner: Some(Arc::clone(input)),
            start,
            len: u32::try_from(len).ok()?,
            kind: Kind::Range,
        })
    }

    /// The bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match &self.owner {
            None => &[],
            Some(o) if self.kind == Kind::Whole => o,
            Some(o) => &o[self.start..self.start + self.len as usize],
        }
    }

    /// Whether the bytes are a range of a buffer that others may hold too
    /// (a decode's input), rather than this blob's own.
    pub fn is_shared(&self) -> bool {
        self.owner
            .as_ref()
            .is_some_and(|o| self.kind == Kind::Range || Arc::strong_count(o) > 1)
    }

    /// The bytes as a vector of this blob's own, to edit in any way: a
    /// shared blob is copied out first (once), so the edit reaches no
    /// other blob and not the input.
    pub fn to_mut(&mut self) -> &mut Vec<u8> {
        let own = self.kind == Kind::Whole
            && self
                .owner
                .as_mut()
                .is_some_and(|o| Arc::get_mut(o).is_some());
        if !own {
            *self = Blob {
                owner: Some(Arc::new(self.as_slice().to_vec())),
                ..Blob::new()
            };
        }
        match self.owner.as_mut().and_then(Arc::get_mut) {
            Some(v) => v,
            None => unreachable!("the blob was made its own just above"),
        }
    }

    /// The bytes as a vector: without a copy when this blob owns them.
    pub fn into_vec(self) -> Vec<u8> {
        match self.owner {
            None => Vec::new(),
            Some(o) if self.kind == Kind::Whole => {
                Arc::try_unwrap(o).unwrap_or_else(|o| o.to_vec())
            }
            Some(o) => o[self.start..self.start + self.len as usize].to_vec(),
        }
    }
}

impl From<Vec<u8>> for Blob {
    fn from(v: Vec<u8>) -> Self {
        if v.is_empty() {
            return Blob::new();
        }
        Blob {
            owner: Some(Arc::new(v)),
            ..Blob::new()
        }
    }
}

impl From<&[u8]> for Blob {
    fn from(v: &[u8]) -> Self {
        Blob::from(v.to_vec())
    }
}

impl<const N: usize> From<[u8; N]> for Blob {
    fn from(v: [u8; N]) -> Self {
        Blob::from(v.to_vec())
    }
}

impl From<Blob> for Vec<u8> {
    fn from(b: Blob) -> Self {
        b.into_vec()
    }
}

impl FromIterator<u8> for Blob {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> Self {
        Blob::from(iter.into_iter().collect::<Vec<u8>>())
    }
}

impl std::ops::Deref for Blob {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

/// Writing through the slice copies a shared blob out first.
impl std::ops::DerefMut for Blob {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.to_mut()
    }
}

impl AsRef<[u8]> for Blob {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl std::borrow::Borrow<[u8]> for Blob {
    fn borrow(&self) -> &[u8] {
        self
    }
}

impl<'a> IntoIterator for &'a Blob {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// As the byte list it holds: `[1, 2, 3]`.
impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Blob) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Blob {}

impl PartialEq<[u8]> for Blob {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[u8]> for Blob {
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_slice() == *other
    }
}

impl PartialEq<Vec<u8>> for Blob {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Blob> for Vec<u8> {
    fn eq(&self, other: &Blob) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Blob> for [u8] {
    fn eq(&self, other: &Blob) -> bool {
        self == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Blob {
    fn eq(&self, other: &[u8; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Blob {
    fn eq(&self, other: &&[u8; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialOrd for Blob {
    fn partial_cmp(&self, other: &Blob) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Blob {
    fn cmp(&self, other: &Blob) -> std::cmp::Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl std::hash::Hash for Blob {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_slice().hash(h)
    }
}

/// As a `Vec<u8>` is: a sequence of bytes, so that a text form written
/// before blobs were shared reads the same.
#[cfg(feature = "serde")]
impl serde::Serialize for Blob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Blob {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<u8>::deserialize(d).map(Blob::from)
    }
}

/// A blob's shape is its bytes, as a `Vec<u8>`'s: its length, then the
/// run (one id for a long one, see [`crate::shape::BLOB_RUN`]).
impl crate::shape::Shape for Blob {
    fn shape(&self, k: &mut crate::shape::ShapeKey, s: &mut crate::memory::shared::Shapes) {
        k.count(self.len());
        <u8 as crate::shape::Shape>::shape_all(self, k, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_as_small_as_a_vec_and_a_union_holding_one_no_larger() {
        assert_eq!(std::mem::size_of::<Blob>(), std::mem::size_of::<Vec<u8>>());
        // A union of many variants keeps its tag in the blob's spare
        // values, as it did in a `Vec<u8>`'s.
        #[allow(dead_code)]
        enum Node {
            A(Blob),
            B(u32),
            C(f32),
            D(Box<u64>),
            E(u64),
            F,
            G,
            H,
            I,
            J,
            K,
            L,
            M,
            N,
        }
        assert_eq!(std::mem::size_of::<Node>(), 24);
        assert_eq!(std::mem::size_of::<Option<Blob>>(), 24);
    }

    #[test]
    fn a_shared_blob_is_a_range_of_the_input_without_a_copy() {
        let input: SharedInput = Arc::new((0u8..64).collect());
        let b = Blob::shared(&input, 8, 4).expect("inside the input");
        assert_eq!(b, [8u8, 9, 10, 11]);
        assert_eq!(b.as_ptr(), input[8..].as_ptr(), "no copy");
        assert!(b.is_shared());
        let c = b.clone();
        assert_eq!(c.as_ptr(), b.as_ptr(), "a clone copies no bytes");
        assert!(Blob::shared(&input, 60, 5).is_none(), "past the end");
        assert!(Blob::shared(&input, usize::MAX, 2).is_none(), "overflow");
    }

    #[test]
    fn writing_to_a_shared_blob_copies_it_out_once() {
        let input: SharedInput = Arc::new(vec![1, 2, 3, 4]);
        let mut b = Blob::shared(&input, 1, 2).unwrap();
        let twin = b.clone();
        b[0] = 9;
        assert_eq!(b, [9u8, 3]);
        assert_eq!(twin, [2u8, 3], "the other blob keeps its bytes");
        assert_eq!(*input, vec![1, 2, 3, 4], "the input is not written");
        assert!(!b.is_shared());
        let at = b.as_ptr();
        b.to_mut().push(7);
        b[1] = 8;
        assert_eq!(b, [9u8, 8, 7]);
        // Its own now: editing again does not copy (unless the push grew it).
        let at2 = b.as_ptr();
        b[2] = 6;
        assert_eq!(b.as_ptr(), at2);
        let _ = at;
    }

    #[test]
    fn an_owned_blob_gives_its_vector_back_without_a_copy() {
        let v = vec![5u8; 100];
        let at = v.as_ptr();
        let b = Blob::from(v);
        assert!(!b.is_shared());
        assert_eq!(b.len(), 100);
        let v = b.into_vec();
        assert_eq!(v.as_ptr(), at);
        assert!(Blob::new().is_empty());
        assert_eq!(Blob::from(Vec::new()), Blob::new());
        assert_eq!(format!("{:?}", Blob::from(vec![1, 2])), "[1, 2]");
    }
}
