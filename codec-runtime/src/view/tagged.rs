//! Unions whose tags are stored apart from their payloads, in place: a
//! list of tags beside a list of payload words (`List(of: Switch(tag:
//! "types"))`, BYML's arrays), and records whose tags the list holding
//! them stores after them (a held tag, `Switch(tag: "types[i]")`, BYML's
//! hash maps).

use super::{ListView, ViewCx, ViewElem};
use crate::base::checked;
use crate::error::DecodeResult;
use std::marker::PhantomData;

/// A generated union view: the payload a tag selects, read in place.
pub trait ViewUnion<'s>: Sized {
    /// The payload that `tag` (read at `tag_pos`) selects at `pos`;
    /// `field_pos` is where the word or offset leading to it lies.
    fn view_payload(
        cx: ViewCx<'s>,
        tag: u64,
        pos: u64,
        field_pos: u64,
        tag_pos: u64,
    ) -> DecodeResult<Self>;
}

/// Reads the unsigned tag of `width` bytes at `i` of `tags`, which the
/// list's construction checked to hold every tag.
#[inline(always)]
fn tag_at(cx: &ViewCx<'_>, tags: &[u8], width: u64, i: usize) -> u64 {
    let w = width as usize;
    crate::base::field::uint(&tags[i * w..i * w + w], width, cx.endian())
}

/// `count` payloads of `stride` bytes, element `i`'s union tag the `i`th
/// of a tag list stored elsewhere. Both lists were checked to lie in the
/// file when the view was made; each element is read when asked for, and
/// can fail (an unknown tag, an offset out of range).
pub struct SwitchListView<'s, U> {
    cx: ViewCx<'s>,
    at: u64,
    stride: u64,
    count: usize,
    tags: &'s [u8],
    tags_at: u64,
    tag_width: u64,
    _elem: PhantomData<fn() -> U>,
}

impl<U> Clone for SwitchListView<'_, U> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<U> Copy for SwitchListView<'_, U> {}

impl<T> Clone for HeldListView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for HeldListView<'_, T> {}

impl<'s> ViewCx<'s> {
    /// The list of `count` payloads of `stride` bytes at `at` whose tags
    /// (`tag_width` bytes each) lie at `tags_at`; `field_pos` is where the
    /// count was read, for errors.
    #[inline]
    pub fn switch_list<U: ViewUnion<'s>>(
        &self,
        field_pos: u64,
        at: u64,
        stride: u64,
        count: u64,
        tags_at: u64,
        tag_width: u64,
    ) -> DecodeResult<SwitchListView<'s, U>> {
        let tags = self.tags(field_pos, tags_at, count, tag_width)?;
        self.loc(checked::count(self.data(), field_pos, at, count, stride))?;
        self.charge(field_pos, count * stride)?;
        Ok(SwitchListView {
            cx: *self,
            at,
            stride,
            count: count as usize,
            tags,
            tags_at,
            tag_width,
            _elem: PhantomData,
        })
    }

    /// The bytes of `count` tags of `tag_width` bytes at `tags_at`, checked
    /// to lie in the file (`field_pos`: where the count was read).
    #[inline]
    fn tags(
        &self,
        field_pos: u64,
        tags_at: u64,
        count: u64,
        tag_width: u64,
    ) -> DecodeResult<&'s [u8]> {
        self.loc(checked::count(
            self.data(),
            field_pos,
            tags_at,
            count,
            tag_width,
        ))?;
        self.record(tags_at, count * tag_width)
    }

    /// The records of `list`, each given its tag from the `tag_width`-byte
    /// tags at `tags_at`, stored after them.
    #[inline]
    pub fn held_list<T: ViewElem<'s> + HeldTag>(
        &self,
        field_pos: u64,
        list: ListView<'s, T>,
        tags_at: u64,
        tag_width: u64,
    ) -> DecodeResult<HeldListView<'s, T>> {
        let tags = self.tags(field_pos, tags_at, list.len() as u64, tag_width)?;
        Ok(HeldListView {
            list,
            tags,
            tags_at,
            tag_width,
        })
    }
}

impl<'s, U: ViewUnion<'s>> SwitchListView<'s, U> {
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Where the first payload lies.
    pub fn at(&self) -> u64 {
        self.at
    }

    /// Element `i`'s tag, without reading its payload.
    #[inline]
    pub fn tag(&self, i: usize) -> Option<u64> {
        (i < self.count).then(|| tag_at(&self.cx, self.tags, self.tag_width, i))
    }

    /// Element `i`: its payload as its tag selects it, or `None` past the end.
    /// Always inlined: a payload view returned through memory from a call
    /// per element cost a store-forwarding stall each (issue 51: a walk
    /// over small arrays took 2.7 times as long).
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<DecodeResult<U>> {
        let tag = self.tag(i)?;
        let pos = self.at + i as u64 * self.stride;
        let tag_pos = self.tags_at + i as u64 * self.tag_width;
        Some(U::view_payload(self.cx, tag, pos, pos, tag_pos).map_err(|e| e.at_index(i)))
    }

    #[inline]
    pub fn iter(&self) -> SwitchListIter<'s, U> {
        SwitchListIter { list: *self, i: 0 }
    }
}

impl<'s, U: ViewUnion<'s>> IntoIterator for SwitchListView<'s, U> {
    type Item = DecodeResult<U>;
    type IntoIter = SwitchListIter<'s, U>;
    fn into_iter(self) -> SwitchListIter<'s, U> {
        self.iter()
    }
}

impl<U> std::fmt::Debug for SwitchListView<'_, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwitchListView")
            .field("at", &self.at)
            .field("len", &self.count)
            .finish()
    }
}

/// The elements of a [`SwitchListView`], each a result.
#[derive(Debug)]
pub struct SwitchListIter<'s, U> {
    list: SwitchListView<'s, U>,
    i: usize,
}

impl<'s, U: ViewUnion<'s>> Iterator for SwitchListIter<'s, U> {
    type Item = DecodeResult<U>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let v = self.list.get(self.i)?;
        self.i += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.list.count - self.i;
        (n, Some(n))
    }
}

impl<'s, U: ViewUnion<'s>> ExactSizeIterator for SwitchListIter<'s, U> {}

/// A record view whose union field takes its tag from the list holding
/// the record (a held tag): the holder's [`HeldListView`] gives it.
pub trait HeldTag {
    /// The record with its tag (read at `tag_pos`).
    fn with_held_tag(self, tag: u64, tag_pos: u64) -> Self;
}

/// Records of fixed size whose union fields take their tags from a list
/// stored after them, each given its tag as it is read.
pub struct HeldListView<'s, T> {
    list: ListView<'s, T>,
    tags: &'s [u8],
    tags_at: u64,
    tag_width: u64,
}

impl<'s, T: ViewElem<'s> + HeldTag> HeldListView<'s, T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Where the first record lies.
    pub fn at(&self) -> u64 {
        self.list.at()
    }

    /// Record `i` with its tag, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let e = self.list.get(i)?;
        let tag = tag_at(&self.list.cx, self.tags, self.tag_width, i);
        Some(e.with_held_tag(tag, self.tags_at + i as u64 * self.tag_width))
    }

    #[inline]
    pub fn iter(&self) -> HeldListIter<'s, T> {
        HeldListIter { list: *self, i: 0 }
    }
}

impl<'s, T: ViewElem<'s> + HeldTag> IntoIterator for HeldListView<'s, T> {
    type Item = T;
    type IntoIter = HeldListIter<'s, T>;
    fn into_iter(self) -> HeldListIter<'s, T> {
        self.iter()
    }
}

/// The records of a [`HeldListView`], each with its tag.
#[derive(Debug)]
pub struct HeldListIter<'s, T> {
    list: HeldListView<'s, T>,
    i: usize,
}

impl<'s, T: ViewElem<'s> + HeldTag> Iterator for HeldListIter<'s, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let v = self.list.get(self.i)?;
        self.i += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.list.len() - self.i;
        (n, Some(n))
    }
}

impl<'s, T: ViewElem<'s> + HeldTag> ExactSizeIterator for HeldListIter<'s, T> {}

impl<T> std::fmt::Debug for HeldListView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldListView")
            .field("at", &self.list.at)
            .field("len", &(self.tags.len() as u64 / self.tag_width.max(1)))
            .finish()
    }
}
