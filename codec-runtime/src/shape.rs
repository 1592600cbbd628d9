//! A record's *shape*: what its subtree contributes to the key that tells
//! equal subtrees apart (`dedup: Shared`, see [`crate::shared`]). Each
//! value adds its bytes to a [`ShapeKey`] through the [`Shape`] trait
//! (generated for every struct and union of a schema with a shared
//! section; here for the numbers, strings, lists and boxes they hold), and
//! the walk over a list's elements ([`warmed`]) asks ahead for their memory
//! through the same trait.
//!
//! It stands below the reader and the writer: it knows the shapes met so
//! far ([`Shapes`], the writer's memory) and the cache hints of `warm`,
//! nothing that reads or writes a file.

use crate::memory::shared::Shapes;
use crate::span_index::SpanIndex;
use crate::warm::{warm, warm_slice, WARM_AHEAD};

/// Writes what a value contributes to its holder's shape: generated for
/// every struct and union of a schema with a shared section.
pub trait Shape {
    fn shape(&self, k: &mut ShapeKey, s: &mut Shapes);

    /// Asks the processor for the memory this value holds out of line and
    /// a walk reads first (a list's elements, a boxed record), so that the
    /// walk finds it loaded (see `warm.rs`). Nothing for a value held
    /// inline.
    #[inline(always)]
    fn warm(&self) {}

    /// The shapes of a list's elements, one after the other, their memory
    /// asked for ahead ([`warmed`]). Numbers
    /// override it to add the run at once (a blob is one copy into the key,
    /// not one call per byte).
    #[inline]
    fn shape_all(items: &[Self], k: &mut ShapeKey, s: &mut Shapes)
    where
        Self: Sized,
    {
        for e in warmed(items) {
            e.shape(k, s);
        }
    }
}

/// The bytes that stand for a record's subtree while its shape is built,
/// and their hash.
///
/// Each value adds its bytes at a place its holder's type fixes, so values
/// of fixed width need no length: an integer takes its own width, a count
/// or an id ([`ShapeKey::id`]) 4 bytes. Keys are short, which is what makes
/// hashing and comparing them cheap (a record whose shape exists is
/// compared whole against it).
///
/// The hash is made as the key is, from each value added, never by reading
/// back the bytes just written: those were written in pieces of other
/// widths (4 bytes, then a run of 24), and a load that straddles them
/// waits for the stores to reach the cache (a fifth of the shapes' time on
/// a file of small arrays, issue 51). Equal keys have equal hashes: a key
/// tells its value apart from every other (each run follows its length,
/// each variant its tag), so equal keys were made by the same values added
/// in the same order.
#[derive(Debug, Default)]
pub struct ShapeKey {
    bytes: Vec<u8>,
    hash: u64,
}

/// The multiplier of the running hash (rustc-hash's).
const MIX: u64 = 0xf135_7aea_2e62_a9c5;

impl ShapeKey {
    /// A key holding nothing, with the memory of `bytes`.
    pub(crate) fn reusing(mut bytes: Vec<u8>) -> ShapeKey {
        bytes.clear();
        ShapeKey { bytes, hash: 0 }
    }

    /// The bytes so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// The hash of the key (see the type's notes).
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        // The multiplications leave the best-mixed bits at the top; the
        // table takes its index from the bottom.
        self.hash.rotate_left(26)
    }

    #[inline]
    fn mix(&mut self, v: u64) {
        self.hash = self.hash.wrapping_add(v).wrapping_mul(MIX);
    }

    /// One byte: a flag, a small tag, a byte of a short run.
    #[inline]
    pub fn byte(&mut self, v: u8) {
        self.bytes.push(v);
        self.mix(u64::from(v));
    }

    /// A number of up to 8 bytes, as `width` little-endian bytes.
    #[inline]
    fn le(&mut self, v: u64, width: usize) {
        self.bytes.extend_from_slice(&v.to_le_bytes()[..width]);
        self.mix(v);
    }

    /// A 64-bit number.
    #[inline]
    pub fn int(&mut self, v: u64) {
        self.le(v, 8);
    }

    /// A number below 2^32: a count, a type's or a variant's tag, the shape
    /// of a shared record, the id of an interned string.
    #[inline]
    pub fn id(&mut self, v: u32) {
        self.le(u64::from(v), 4);
    }

    /// A count of elements (a list's length). Lists longer than 2^32 - 1
    /// elements share one count; no format can write one.
    #[inline]
    pub fn count(&mut self, n: usize) {
        self.id(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// A run of bytes of a length its holder fixed or added before it.
    /// Hashed from where it lies, not from the key.
    #[inline]
    pub fn run(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
        self.mix(SpanIndex::hash(b));
    }

    /// A run of bytes after its length.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.count(b.len());
        self.run(b);
    }

    /// Several ids at once, as [`ShapeKey::id`] adds each: one check of
    /// the key's room rather than one per id (a small array's shape is
    /// six ids; 62.7 M -> 60.7 M instructions per float-array encode,
    /// issue 51).
    #[inline]
    pub fn ids<const N: usize>(&mut self, v: [u32; N]) {
        const { assert!(N <= 16, "at most 16 ids at once") };
        let mut buf = [0u8; 64];
        for (i, x) in v.iter().enumerate() {
            buf[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
            self.mix(u64::from(*x));
        }
        self.bytes.extend_from_slice(&buf[..4 * N]);
    }
}

impl<T: Shape> Shape for Vec<T> {
    fn shape(&self, k: &mut ShapeKey, s: &mut Shapes) {
        k.count(self.len());
        T::shape_all(self, k, s);
    }

    #[inline(always)]
    fn warm(&self) {
        warm_slice(self);
    }
}

impl<T: Shape> Shape for Option<T> {
    fn shape(&self, k: &mut ShapeKey, s: &mut Shapes) {
        match self {
            None => k.byte(0),
            Some(v) => {
                k.byte(1);
                v.shape(k, s);
            }
        }
    }

    #[inline(always)]
    fn warm(&self) {
        if let Some(v) = self {
            v.warm();
        }
    }
}

impl<T: Shape> Shape for Box<T> {
    fn shape(&self, k: &mut ShapeKey, s: &mut Shapes) {
        (**self).shape(k, s);
    }

    #[inline(always)]
    fn warm(&self) {
        warm(&**self as *const T);
    }
}

macro_rules! shape_int {
    ($($t:ty),*) => {$(
        impl Shape for $t {
            #[inline]
            fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
                k.le(*self as u64, std::mem::size_of::<$t>());
            }

            #[inline]
            fn shape_all(items: &[Self], k: &mut ShapeKey, _: &mut Shapes) {
                k.bytes.reserve(std::mem::size_of_val(items));
                for v in items {
                    k.le(*v as u64, std::mem::size_of::<$t>());
                }
            }
        }
    )*};
}
shape_int!(u16, u32, u64, i8, i16, i32, i64);

/// From this many bytes on, a run of bytes in a shape (a blob) is one id
/// of the blobs met so far ([`Shapes::blob_id`]), not its bytes: a key holds
/// 4 bytes for it, so the key is not copied and hashed byte by byte (issue
/// 51: a 32 KiB binary node spent more on its shape than on being written).
pub const BLOB_RUN: usize = 64;

impl Shape for u8 {
    #[inline]
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.byte(*self);
    }

    #[inline]
    fn shape_all(items: &[Self], k: &mut ShapeKey, s: &mut Shapes) {
        // The holder wrote the run's length first, so a short run and a
        // blob's id never stand for each other.
        if items.len() >= BLOB_RUN {
            k.id(s.blob_id(items));
        } else {
            k.run(items);
        }
    }
}

impl Shape for bool {
    #[inline]
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.byte(u8::from(*self));
    }
}

impl Shape for f32 {
    #[inline]
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.id(self.to_bits());
    }
}

impl Shape for f64 {
    #[inline]
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.int(self.to_bits());
    }
}

impl Shape for () {
    fn shape(&self, _: &mut ShapeKey, _: &mut Shapes) {}
}

impl Shape for crate::base::Str {
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.bytes(self.as_bytes());
    }
}

impl<const N: usize> Shape for [u8; N] {
    fn shape(&self, k: &mut ShapeKey, _: &mut Shapes) {
        k.run(self);
    }
}

/// The elements of `items` in order, asking ahead for their memory: as it
/// hands out element `i`, it asks for the memory element `i + WARM_AHEAD`
/// holds out of line ([`Shape::warm`]) and for the line of element
/// `i + 2 * WARM_AHEAD` itself, whose tag that will read (see `warm.rs`).
#[inline]
pub fn warmed<T: Shape>(items: &[T]) -> impl Iterator<Item = &T> {
    for e in items.iter().take(WARM_AHEAD) {
        e.warm();
    }
    items.iter().enumerate().map(move |(i, e)| {
        warm(items.as_ptr().wrapping_add(i + 2 * WARM_AHEAD));
        if let Some(next) = items.get(i + WARM_AHEAD) {
            next.warm();
        }
        e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_hands_out_every_element_once_in_order() {
        for n in [0usize, 1, 3, 4, 5, 8, 9, 33] {
            let items: Vec<Vec<u32>> = (0..n as u32).map(|i| vec![i; i as usize % 3]).collect();
            let seen: Vec<&Vec<u32>> = warmed(&items).collect();
            assert_eq!(seen.len(), n);
            for (a, b) in seen.iter().zip(&items) {
                assert!(std::ptr::eq(*a, b), "list of {n}: an element out of place");
            }
        }
    }
}
