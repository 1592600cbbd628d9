//! Tags held by a list's holder: a `Switch` inside a list's element whose
//! tag is not a field of the element but element *i* of a list of tags
//! that the holder stores elsewhere (`Switch(tag: "types[i]")`, with
//! `derive: Tags("entries.value")` on the holder's list). BYML v7's
//! hash-keyed maps store `count` entries of (key hash, value word) and then
//! the `count` type bytes.
//!
//! On decode the holder reads the tags before its elements
//! ([`Reader::hold_tags`]), each element takes the next one when it reaches
//! its `Switch` ([`Reader::take_held_tag`]), and the holder lets them go
//! after the list ([`Reader::release_tags`]). The tags form a stack, so an
//! element whose value leads to another holder (a map inside a map) takes
//! its own tag before that holder pushes its tags. The generated decoders
//! and the interpreter both read through these three calls. On encode
//! nothing is held: the holder writes each element's tag, in the order the
//! elements are written, from the element's value.

use crate::base::Width;
use crate::error::{DecodeError, DecodeResult, ErrorKind};
use crate::memory::held::Frame;
pub use crate::memory::held::HeldTags;
use crate::reader::Reader;

impl Reader<'_> {
    /// Reads the `count` tags of a list's elements, stored at `at` as
    /// unsigned integers of `width`, and holds them for the elements that
    /// are decoded next.
    pub fn hold_tags(&mut self, at: u64, count: u64, width: Width) -> DecodeResult<()> {
        let w = width.bytes();
        self.check_count(at, at, count, w)?;
        let mut tags = Vec::with_capacity(count as usize);
        for i in 0..count {
            let p = at + i * w;
            let tag = crate::base::checked::uint(self.data(), p, w, self.endian());
            tags.push(tag.map_err(|e| e.at_index(i as usize))?);
        }
        self.held.frames.push(Frame {
            at,
            width: w,
            tags,
            next: 0,
        });
        Ok(())
    }

    /// The tag of the element being decoded, read at `pos` (the element's
    /// `Switch`): the value and where it is stored.
    pub fn take_held_tag(&mut self, pos: u64) -> DecodeResult<(u64, u64)> {
        let frame = self.held.frames.last_mut();
        match frame {
            Some(f) if f.next < f.tags.len() => {
                let i = f.next;
                f.next += 1;
                Ok((f.tags[i], f.at + i as u64 * f.width))
            }
            _ => Err(DecodeError::new(
                pos,
                ErrorKind::Invalid(
                    "this value's tag is stored by the list that holds it, and no list holds it here"
                        .into(),
                ),
            )),
        }
    }

    /// Lets go of the tags the innermost holder read with
    /// [`Reader::hold_tags`].
    pub fn release_tags(&mut self) {
        self.held.frames.pop();
    }
}

#[cfg(test)]
mod tests {
    use crate::base::Endian;
    use crate::base::Width;
    use crate::reader::Reader;

    #[test]
    fn elements_take_their_holders_tags_in_turn_and_nested_holders_stack() {
        let data = [0xA0, 0xC1, 0xD0, 0x00, 0x20, 0x21];
        let mut r = Reader::new(&data, Endian::Little);
        r.hold_tags(0, 3, Width::U8).unwrap();
        assert_eq!(r.take_held_tag(100).unwrap(), (0xA0, 0));
        // The second element leads to a holder of its own.
        assert_eq!(r.take_held_tag(100).unwrap(), (0xC1, 1));
        r.hold_tags(4, 2, Width::U8).unwrap();
        assert_eq!(r.take_held_tag(100).unwrap(), (0x20, 4));
        assert_eq!(r.take_held_tag(100).unwrap(), (0x21, 5));
        r.release_tags();
        assert_eq!(r.take_held_tag(100).unwrap(), (0xD0, 2));
        // One more element than tags: an error at the element, not a panic.
        let e = r.take_held_tag(100).unwrap_err();
        assert_eq!(e.offset(), 100);
        r.release_tags();
        assert!(r.take_held_tag(7).is_err());
    }

    #[test]
    fn a_tag_list_beyond_the_end_is_an_error_before_any_allocation() {
        let data = [0u8; 8];
        let mut r = Reader::new(&data, Endian::Big);
        let e = r.hold_tags(4, 0xFFFF_FFFF, Width::U16).unwrap_err();
        assert_eq!(e.offset(), 4);
        r.hold_tags(4, 2, Width::U16).unwrap();
        assert_eq!(r.take_held_tag(0).unwrap(), (0, 4));
    }
}
