//! A list of a union's values that keeps a short run of word-sized leaves
//! without an allocation (`inline: true` on a list field in the schema
//! language).
//!
//! Why: a document of small containers (BotW's curves and vectors: tens of
//! thousands of arrays of two to four floats) costs one heap allocation per
//! container when each list is a `Vec`, and the allocator then dominates
//! both decoding and dropping the document (issue 51: half of cloning such
//! a document was `malloc` and `free`). Here a list of at most
//! [`INLINE_CAP`] elements, each a leaf whose value fits in one 32-bit word
//! (an integer, a float, a boolean, a unit), is held in the list itself as
//! the leaves' kinds and words; any other list is a `Box<[T]>`. Either way
//! the list is 24 bytes, as a `String` is, so a union holding it does not
//! grow.
//!
//! The value stays a plain, editable list: [`InlineList::iter`] and
//! [`InlineList::get`] give each element (borrowed from the heap form, made
//! from its word in the packed form), `From<Vec<T>>`, `FromIterator`,
//! [`InlineList::push`], [`InlineList::set`] and [`InlineList::into_vec`]
//! edit it, and equality, `Debug` and serde see the elements only. Every
//! constructor packs a list that can be packed, so one list has one form and
//! equal lists have equal forms (the encoder's shapes rely on it).

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::Deref;

/// How many leaves a list holds without an allocation.
pub const INLINE_CAP: usize = 4;

/// A union whose leaf variants a word holds: generated for the union of an
/// `inline` list.
pub trait Leaf: Sized {
    /// The leaf's kind (below 16) and its word, when the value is one of the
    /// union's word-sized leaves.
    fn pack(&self) -> Option<(u8, u32)>;
    /// The value [`Leaf::pack`] gave `(kind, word)` for. A leaf owns no
    /// memory, so an element made from its word is never dropped ([`Elem`]).
    fn unpack(kind: u8, word: u32) -> Self;
}

/// An element of an [`InlineList`]: borrowed from the heap form, or made
/// from its word (a leaf, which owns nothing: it is not dropped, so that a
/// walk over a list costs no drop of each element). Derefs to the element.
pub enum Elem<'a, T> {
    Ref(&'a T),
    Leaf(ManuallyDrop<T>),
}

impl<T> Deref for Elem<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        match self {
            Elem::Ref(r) => r,
            Elem::Leaf(v) => v,
        }
    }
}

impl<T: Clone> Elem<'_, T> {
    /// The element, owned.
    pub fn into_owned(self) -> T {
        match self {
            Elem::Ref(r) => r.clone(),
            Elem::Leaf(v) => ManuallyDrop::into_inner(v),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Elem<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: PartialEq> PartialEq<T> for Elem<'_, T> {
    fn eq(&self, other: &T) -> bool {
        **self == *other
    }
}

/// A list of `T`, short runs of leaves held inline (see the module doc).
pub struct InlineList<T>(Repr<T>);

// The tag is as wide as `meta`: a caller that tests which form a returned
// list has (or whether a `Result` holding it is an error) reads the tag
// with the width it was written with, so the load is forwarded from the
// store (a one-byte tag read as four bytes stalled each small array's
// decode).
#[repr(u32)]
enum Repr<T> {
    /// Up to [`INLINE_CAP`] leaves: `meta` holds the length in its low 4
    /// bits and each leaf's kind in 4 bits from bit 4; `words` the leaves'
    /// words, the unused ones zero.
    Packed { meta: u32, words: Words },
    /// Any other list.
    Heap(Box<[T]>),
}

/// The words of a packed list, two to a `u64` (word `i` in bits
/// `32 * (i % 2)` of `u64` `i / 2`). Stored and loaded eight bytes at a
/// time: a list returned through memory is then read back with the widths
/// it was written with, so the load is forwarded from the store (four
/// 4-byte stores read back as two 8-byte loads stalled each small array's
/// decode, issue 51).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Words([u64; 2]);

impl Words {
    const ZERO: Words = Words([0; 2]);

    #[inline(always)]
    fn from_u32s(w: [u32; INLINE_CAP]) -> Self {
        Words([
            u64::from(w[0]) | u64::from(w[1]) << 32,
            u64::from(w[2]) | u64::from(w[3]) << 32,
        ])
    }

    #[inline(always)]
    fn get(&self, i: usize) -> u32 {
        (self.0[i / 2] >> (32 * (i % 2))) as u32
    }
}

impl<T> InlineList<T> {
    /// An empty list.
    pub const fn new() -> Self {
        InlineList(Repr::Packed {
            meta: 0,
            words: Words::ZERO,
        })
    }

    /// The list of the leaves `(kind, word)`, at most [`INLINE_CAP`] of
    /// them, each pair one [`Leaf::pack`] gives (so that the list has its
    /// one form). Decoders go through [`read_leaves`].
    #[inline]
    fn from_leaves(kinds: &[u8], words: [u32; INLINE_CAP]) -> Self {
        debug_assert!(kinds.len() <= INLINE_CAP && kinds.iter().all(|&k| k < 16));
        let mut meta = kinds.len() as u32;
        for (i, &k) in kinds.iter().enumerate() {
            meta |= u32::from(k) << (4 + 4 * i);
        }
        InlineList(Repr::Packed {
            meta,
            words: Words::from_u32s(words),
        })
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Packed { meta, .. } => (meta & 0xF) as usize,
            Repr::Heap(b) => b.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the list is held without an allocation.
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Packed { .. })
    }

    /// The elements as a slice, when the list is on the heap.
    pub fn as_heap(&self) -> Option<&[T]> {
        match &self.0 {
            Repr::Packed { .. } => None,
            Repr::Heap(b) => Some(b),
        }
    }

    /// The leaves `(kind, word)` when the list is held inline.
    pub fn leaves(&self) -> Option<impl ExactSizeIterator<Item = (u8, u32)> + '_> {
        match &self.0 {
            Repr::Packed { meta, words } => Some(
                (0..(meta & 0xF) as usize)
                    .map(move |i| (((meta >> (4 + 4 * i)) & 0xF) as u8, words.get(i))),
            ),
            Repr::Heap(_) => None,
        }
    }
}

impl<T> InlineList<T> {
    /// A packed list's tags, `tag_of(kind)` each, in a fixed run of
    /// [`INLINE_CAP`] bytes of which the first `n` are the list's; `None`
    /// for a list on the heap. A writer puts the run in one copy
    /// ([`crate::Writer::put_run`]) rather than a tag at a time.
    #[inline(always)]
    pub fn packed_tags(&self, tag_of: impl Fn(u8) -> u8) -> Option<([u8; INLINE_CAP], usize)> {
        match &self.0 {
            Repr::Packed { meta, .. } => {
                let mut tags = [0u8; INLINE_CAP];
                for (i, t) in tags.iter_mut().enumerate() {
                    *t = tag_of(((meta >> (4 + 4 * i)) & 0xF) as u8);
                }
                Some((tags, (meta & 0xF) as usize))
            }
            Repr::Heap(_) => None,
        }
    }

    /// A packed list's words as stored, `bytes_of(kind, word)` each, in a
    /// fixed run of `4 * INLINE_CAP` bytes of which the first `4 * n` are
    /// the list's; `None` for a list on the heap.
    #[inline(always)]
    pub fn packed_words(
        &self,
        bytes_of: impl Fn(u8, u32) -> [u8; 4],
    ) -> Option<([u8; 4 * INLINE_CAP], usize)> {
        match &self.0 {
            Repr::Packed { meta, words } => {
                let mut out = [0u8; 4 * INLINE_CAP];
                for (i, o) in out.chunks_exact_mut(4).enumerate() {
                    o.copy_from_slice(&bytes_of(((meta >> (4 + 4 * i)) & 0xF) as u8, words.get(i)));
                }
                Some((out, 4 * (meta & 0xF) as usize))
            }
            Repr::Heap(_) => None,
        }
    }
}

impl<T: Leaf> InlineList<T> {
    /// The `i`th element, borrowed or made from its word.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Elem<'_, T>> {
        match &self.0 {
            Repr::Packed { meta, words } => (i < (meta & 0xF) as usize).then(|| {
                Elem::Leaf(ManuallyDrop::new(T::unpack(
                    ((meta >> (4 + 4 * i)) & 0xF) as u8,
                    words.get(i),
                )))
            }),
            Repr::Heap(b) => b.get(i).map(Elem::Ref),
        }
    }

    /// The elements that may lead elsewhere: the heap form's, none when
    /// the list is inline (leaves lead nowhere). For walks that follow
    /// offsets.
    #[inline]
    pub fn heap_items(&self) -> &[T] {
        match &self.0 {
            Repr::Packed { .. } => &[],
            Repr::Heap(b) => b,
        }
    }

    /// The elements in order, each borrowed or made from its word.
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            list: &self.0,
            at: 0,
            len: self.len(),
        }
    }

    /// The elements as a `Vec`.
    pub fn to_vec(&self) -> Vec<T>
    where
        T: Clone,
    {
        self.iter().map(Elem::into_owned).collect()
    }

    /// The elements as a `Vec`, taking the list.
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Packed { meta, words } => (0..(meta & 0xF) as usize)
                .map(|i| T::unpack(((meta >> (4 + 4 * i)) & 0xF) as u8, words.get(i)))
                .collect(),
            Repr::Heap(b) => b.into_vec(),
        }
    }

    /// Appends `v`. On the heap form this moves the elements to a new
    /// allocation of their exact size; to build a long list, collect a
    /// `Vec` and convert it.
    pub fn push(&mut self, v: T) {
        let mut all = std::mem::take(self).into_vec();
        all.push(v);
        *self = all.into();
    }

    /// Replaces the `i`th element; `false` when there is none.
    pub fn set(&mut self, i: usize, v: T) -> bool {
        if i >= self.len() {
            return false;
        }
        let mut all = std::mem::take(self).into_vec();
        all[i] = v;
        *self = all.into();
        true
    }
}

/// Reads a short list of leaves straight from a file: element `i`'s tag
/// is `tags[i]` and its word lies at `at + 4 * i`. `leaf` tells a leaf's
/// kind and the word kept for it from its tag, its word's bytes as stored
/// and the word in the reader's byte order: `None` for a tag that is not a leaf or a word its
/// variant does not take (a `Bool32` of 2). `None` when the list is longer
/// than [`INLINE_CAP`], its words run past the input, or an element is not
/// such a leaf: the caller then reads the list element by element, which
/// also says what is wrong with a bad one.
///
/// The words are bounds-checked once, and the loop runs a fixed
/// [`INLINE_CAP`] times so that the compiler unrolls it and keeps the
/// words in registers: built in memory a word at a time and read back
/// wider by the caller, they stalled each small array's decode (issue 51,
/// `perf annotate` of BYML's element decode).
#[inline(always)]
pub fn read_leaves<T>(
    r: &mut crate::Reader<'_>,
    tags: &[u8],
    at: u64,
    leaf: impl Fn(u64, [u8; 4], u32) -> Option<(u8, u32)>,
) -> Option<InlineList<T>> {
    let n = tags.len();
    if n > INLINE_CAP {
        return None;
    }
    let bytes = r.bytes(at, 4 * n as u64).ok()?;
    let big = r.endian() == crate::Endian::Big;
    let mut meta = n as u32;
    let mut words = [0u32; INLINE_CAP];
    let mut stored = bytes.chunks_exact(4);
    for i in 0..INLINE_CAP {
        if i < n {
            // One load of the four bytes: built from single bytes, the
            // word took three loads and the shifts to join them.
            let raw: [u8; 4] = stored.next()?.try_into().ok()?;
            let word = if big {
                u32::from_be_bytes(raw)
            } else {
                u32::from_le_bytes(raw)
            };
            let (kind, kept) = leaf(u64::from(tags[i]), raw, word)?;
            meta |= u32::from(kind & 0xF) << (4 + 4 * i);
            words[i] = kept;
        }
    }
    // What the elements would have cost read one by one.
    r.charge(at, 4 * n as u64).ok()?;
    Some(InlineList(Repr::Packed {
        meta,
        words: Words::from_u32s(words),
    }))
}

impl<T> Default for InlineList<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Leaf> From<Vec<T>> for InlineList<T> {
    /// Packs the list when it is short and all leaves; otherwise keeps it
    /// on the heap (exactly sized).
    fn from(v: Vec<T>) -> Self {
        if v.len() <= INLINE_CAP {
            let mut kinds = [0u8; INLINE_CAP];
            let mut words = [0u32; INLINE_CAP];
            let packed = v.iter().enumerate().all(|(i, e)| match e.pack() {
                Some((k, w)) if k < 16 => {
                    kinds[i] = k;
                    words[i] = w;
                    true
                }
                _ => false,
            });
            if packed {
                return Self::from_leaves(&kinds[..v.len()], words);
            }
        }
        InlineList(Repr::Heap(v.into_boxed_slice()))
    }
}

impl<T: Leaf> FromIterator<T> for InlineList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        it.into_iter().collect::<Vec<T>>().into()
    }
}

impl<T: Clone> Clone for InlineList<T> {
    #[inline]
    fn clone(&self) -> Self {
        InlineList(match &self.0 {
            Repr::Packed { meta, words } => Repr::Packed {
                meta: *meta,
                words: *words,
            },
            Repr::Heap(b) => Repr::Heap(b.clone()),
        })
    }
}

impl<T: Leaf + PartialEq> PartialEq for InlineList<T> {
    /// Element by element, as two `Vec`s compare (a NaN float is not equal
    /// to itself in either form).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| *a == *b)
    }
}

impl<T: Leaf + fmt::Debug> fmt::Debug for InlineList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The elements of an [`InlineList`], in order.
pub struct Iter<'a, T> {
    list: &'a Repr<T>,
    at: usize,
    len: usize,
}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("at", &self.at)
            .field("len", &self.len)
            .finish()
    }
}

impl<'a, T: Leaf> Iterator for Iter<'a, T> {
    type Item = Elem<'a, T>;

    #[inline]
    fn next(&mut self) -> Option<Elem<'a, T>> {
        if self.at >= self.len {
            return None;
        }
        let i = self.at;
        self.at += 1;
        Some(match self.list {
            Repr::Packed { meta, words } => Elem::Leaf(ManuallyDrop::new(T::unpack(
                ((meta >> (4 + 4 * i)) & 0xF) as u8,
                words.get(i),
            ))),
            Repr::Heap(b) => Elem::Ref(&b[i]),
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.at;
        (n, Some(n))
    }
}

impl<T: Leaf> ExactSizeIterator for Iter<'_, T> {}

impl<'a, T: Leaf> IntoIterator for &'a InlineList<T> {
    type Item = Elem<'a, T>;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// What an inline list's shape starts with instead of its length: no list
/// on the heap is that long, so a packed list's key and a heap list's key
/// never agree.
const PACKED_MARK: usize = u32::MAX as usize - 0xF;

impl<T: crate::shape::Shape + Leaf> crate::shape::Shape for InlineList<T> {
    /// A heap list as a `Vec` of its elements. A packed list as its kinds
    /// and words, 20 bytes after a mark no heap list's length takes: one
    /// list has one form (every constructor packs what it can), so equal
    /// lists give equal keys, and a leaf's kind and word give back its
    /// value, so unequal ones give unequal keys.
    #[inline]
    fn shape(&self, k: &mut crate::shape::ShapeKey, s: &mut crate::memory::shared::Shapes) {
        match &self.0 {
            Repr::Heap(b) => {
                k.count(b.len());
                T::shape_all(b, k, s);
            }
            Repr::Packed { meta, words } => {
                k.ids([
                    (PACKED_MARK | (*meta as usize & 0xF)) as u32,
                    *meta,
                    words.get(0),
                    words.get(1),
                    words.get(2),
                    words.get(3),
                ]);
            }
        }
    }

    /// A heap list's elements; a packed list is held inline.
    #[inline(always)]
    fn warm(&self) {
        if let Repr::Heap(b) = &self.0 {
            crate::warm::warm_slice(b);
        }
    }
}

#[cfg(feature = "serde")]
impl<T: Leaf + serde::Serialize> serde::Serialize for InlineList<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for Elem<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: Leaf + serde::Deserialize<'de>> serde::Deserialize<'de> for InlineList<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    enum N {
        Int(i32),
        Float(f32),
        Null,
        Text(String),
        List(InlineList<N>),
    }

    impl Leaf for N {
        fn pack(&self) -> Option<(u8, u32)> {
            match self {
                N::Int(v) => Some((1, *v as u32)),
                N::Float(v) => Some((2, v.to_bits())),
                N::Null => Some((3, 0)),
                _ => None,
            }
        }
        fn unpack(kind: u8, word: u32) -> Self {
            match kind {
                1 => N::Int(word as i32),
                2 => N::Float(f32::from_bits(word)),
                _ => N::Null,
            }
        }
    }

    #[test]
    fn a_list_holding_it_is_no_bigger_than_a_vec() {
        assert_eq!(std::mem::size_of::<InlineList<N>>(), 24);
        // The union holding a list is as big as one holding a String.
        assert_eq!(std::mem::size_of::<N>(), 32);
    }

    #[test]
    fn short_lists_of_leaves_are_inline_and_others_on_the_heap() {
        let four: InlineList<N> = vec![N::Int(-1), N::Float(1.5), N::Null, N::Int(7)].into();
        assert!(four.is_inline());
        assert_eq!(
            four.to_vec(),
            vec![N::Int(-1), N::Float(1.5), N::Null, N::Int(7)]
        );
        let five: InlineList<N> = (0..5).map(N::Int).collect();
        assert!(!five.is_inline());
        assert_eq!(five.len(), 5);
        let text: InlineList<N> = vec![N::Int(1), N::Text("a".into())].into();
        assert!(!text.is_inline());
        assert_eq!(text.get(1).as_deref(), Some(&N::Text("a".into())));
        let nested: InlineList<N> = vec![N::List(four.clone())].into();
        assert!(!nested.is_inline());
        assert!(InlineList::<N>::new().is_inline());
    }

    #[test]
    fn edits_keep_one_form_per_list() {
        let mut l: InlineList<N> = vec![N::Int(1), N::Int(2), N::Int(3)].into();
        l.push(N::Int(4));
        assert!(l.is_inline());
        l.push(N::Int(5));
        assert!(!l.is_inline(), "five leaves go to the heap");
        let mut m: InlineList<N> = vec![N::Int(1), N::Text("x".into())].into();
        assert!(!m.is_inline());
        assert!(m.set(1, N::Int(2)));
        assert!(
            m.is_inline(),
            "a list that became all leaves is packed again"
        );
        assert!(!m.set(2, N::Null));
        assert_eq!(m, vec![N::Int(1), N::Int(2)].into());
        assert_ne!(m, vec![N::Int(1), N::Int(3)].into());
        assert_ne!(m, vec![N::Int(1)].into());
    }

    #[test]
    fn equality_is_by_element_as_for_a_vec() {
        let nan: InlineList<N> = vec![N::Float(f32::NAN)].into();
        assert_ne!(nan, nan.clone());
        let a: InlineList<N> = vec![N::Float(0.0)].into();
        let b: InlineList<N> = vec![N::Float(-0.0)].into();
        assert_eq!(a, b);
    }

    #[test]
    fn debug_shows_the_elements() {
        let l: InlineList<N> = vec![N::Int(3), N::Null].into();
        assert_eq!(format!("{l:?}"), "[Int(3), Null]");
    }

    /// A writer's runs: the tags and words of the elements only (the
    /// rest of each fixed run is cut off by the count), in order, each
    /// from its own kind; none for a list on the heap.
    #[test]
    fn packed_runs_hold_each_element_in_order() {
        let l: InlineList<N> = vec![N::Int(-2), N::Null, N::Float(0.5)].into();
        let (tags, n) = l.packed_tags(|k| 0xA0 + k).unwrap();
        assert_eq!(&tags[..n], &[0xA1, 0xA3, 0xA2]);
        let (words, n) = l
            .packed_words(|k, w| if k == 3 { *b"NULL" } else { w.to_be_bytes() })
            .unwrap();
        assert_eq!(
            &words[..n],
            &[0xFF, 0xFF, 0xFF, 0xFE, b'N', b'U', b'L', b'L', 0x3F, 0, 0, 0]
        );
        let heap: InlineList<N> = (0..5).map(N::Int).collect();
        assert!(heap.packed_tags(|k| k).is_none());
        assert!(heap.packed_words(|_, w| w.to_le_bytes()).is_none());
    }
}
