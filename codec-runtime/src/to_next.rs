//! `ToNext`: a list with no count, whose elements follow each other from
//! its start up to the next place an offset of the file leads to (AINB's
//! EXB signature lists, BDAT's names). The list's end is looked up again
//! after each element, whose own offsets may end the list sooner.
//!
//! Decode and the interpreter walk such a list with one [`ToNext`] cursor;
//! each reads an element its own way between [`ToNext::next`] and
//! [`ToNext::advance`].

use crate::error::{DecodeError, DecodeResult, ErrorKind};

use crate::reader::Reader;

/// A walk over a list read up to the next target.
#[derive(Debug, Clone, Copy)]
pub struct ToNext {
    first: u64,
    /// The list's rank and the position of the offset that led to it.
    own: Option<(u64, u64)>,
    end: u64,
    at: u64,
    len: usize,
}

impl ToNext {
    /// Starts the list at `first`, reached through the offset read at
    /// `field_pos` (`first` itself for an inline list); `own` is the list's
    /// rank among targets that share its start (see `Reader::list_end`),
    /// `None` for an inline list. The list's bytes are entered, so that an
    /// offset inside it leading back into it is a cycle.
    pub fn begin(
        r: &mut Reader<'_>,
        first: u64,
        field_pos: u64,
        own: Option<u64>,
    ) -> DecodeResult<Self> {
        let own = match own {
            Some(rank) => Some((rank, field_pos)),
            None => r.inline_list_rank(first),
        };
        let end = r.list_end(first, own);
        r.enter(field_pos, first, end.saturating_sub(first).max(1))?;
        Ok(ToNext {
            first,
            own,
            end,
            at: first,
            len: 0,
        })
    }

    /// Where the next element starts, or `None` when the list has ended.
    #[inline]
    pub fn next(&self, r: &mut Reader<'_>) -> Option<u64> {
        if self.at >= self.end {
            return None;
        }
        r.set_element(0, self.len, self.len + 1);
        Some(self.at)
    }

    /// The number of elements read so far (the index of the next one).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no element was read yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counts the element that started at the last [`ToNext::next`] and
    /// ends at `next`. An element that takes no bytes would make the list
    /// endless, and is refused.
    #[inline]
    pub fn advance(&mut self, r: &Reader<'_>, next: u64) -> DecodeResult<()> {
        if next <= self.at {
            return Err(DecodeError::new(
                self.at,
                ErrorKind::Invalid("an element takes no bytes".into()),
            )
            .at_index(self.len));
        }
        self.len += 1;
        self.at = next;
        self.end = self.end.min(r.list_end(self.first, self.own));
        Ok(())
    }

    /// Ends the list; the position after its last element. Elements that
    /// run past the next target overlap what it leads to, and are refused.
    pub fn finish(self, r: &mut Reader<'_>) -> DecodeResult<u64> {
        if self.at > self.end {
            return Err(DecodeError::new(
                self.at,
                ErrorKind::Invalid(format!(
                    "the elements run past 0x{:x}, where the next target starts",
                    self.end
                )),
            ));
        }
        r.leave();
        Ok(self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Endian;

    /// Reads u16 elements of `data` from 0 with a target at `bound`.
    fn read(data: &[u8], bound: u64, size: u64) -> DecodeResult<(usize, u64)> {
        let mut r = Reader::new(data, Endian::Little);
        r.add_bound(bound, 1, 0x100);
        let mut list = ToNext::begin(&mut r, 0, 0x100, None)?;
        while let Some(q) = list.next(&mut r) {
            list.advance(&r, q + size)?;
        }
        let len = list.len();
        Ok((len, list.finish(&mut r)?))
    }

    #[test]
    fn a_list_stops_at_the_next_target() {
        assert_eq!(read(&[0; 16], 6, 2).unwrap(), (3, 6));
    }

    #[test]
    fn elements_past_the_next_target_or_of_no_bytes_are_refused() {
        let e = read(&[0; 16], 5, 2).unwrap_err();
        assert_eq!(e.offset(), 6);
        assert!(e.to_string().contains("run past 0x5"), "{e}");
        let e = read(&[0; 16], 6, 0).unwrap_err();
        assert_eq!(e.offset(), 0);
        assert!(
            e.to_string().contains("[0]: an element takes no bytes"),
            "{e}"
        );
    }
}
