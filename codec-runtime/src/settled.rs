//! Numbers a record holds that only the finished layout knows (the file's
//! size, a section's length or end, a count of records): written as zeros
//! where the record is, noted, and patched once every section is laid out
//! ([`Writer::settle`]). Any record may hold one, not only the root: an
//! event flow's relocation table holds where its string pool ends.
//! The generated encoder and the interpreter both write through
//! [`Writer::put_settled`] and settle at the end of a layout, so the value
//! of each kind is computed here once.

use crate::base::Width;
use crate::error::EncodeResult;
use crate::memory::settled::Pending;
pub use crate::memory::settled::Settled;
use crate::writer::Writer;

impl Writer {
    /// Writes zeros `width` wide for `value`, patched by [`Writer::settle`].
    pub fn put_settled(&mut self, width: Width, value: Settled, what: &'static str) {
        let at = self.pos();
        self.settled.push(Pending {
            at,
            width,
            value,
            what,
        });
        self.put_bytes(&[0u8; 8][..width.bytes() as usize]);
    }

    /// Patches every settled number written so far with its value now.
    pub fn settle(&mut self) -> EncodeResult<()> {
        let pending = std::mem::take(&mut self.settled);
        for p in &pending {
            let v = match p.value {
                Settled::FileSize => self.pos(),
                Settled::RecordCount(t) => self.count(t),
                Settled::SectionSize(s) => {
                    let sp = self.section(s);
                    sp.end - sp.start
                }
                Settled::SectionEnd(s) => self.section(s).end,
                Settled::SortedStrings(s) => self
                    .sorting
                    .strings
                    .iter()
                    .find(|(id, _)| *id == s)
                    .map_or(0, |&(_, n)| n),
            };
            self.patch_uint(p.at, p.width, v, p.what)?;
        }
        self.settled = pending;
        self.settled.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Dedup, Endian};

    /// A record in the middle of the file holds the file's size, a
    /// section's size and end, and a record count, known at the end.
    #[test]
    fn a_record_anywhere_holds_numbers_of_the_finished_layout() {
        let mut w = Writer::new(Endian::Little, 1, 2);
        w.put_bytes(b"HEAD");
        w.begin_section(0, 4, Dedup::None);
        w.count_record(0);
        w.put_settled(Width::U32, Settled::FileSize, "size");
        w.put_settled(Width::U16, Settled::SectionSize(1), "len");
        w.put_settled(Width::U16, Settled::SectionEnd(1), "end");
        w.put_settled(Width::U8, Settled::RecordCount(0), "n");
        w.end_section(4);
        w.begin_section(1, 8, Dedup::None);
        w.put_bytes(b"data");
        w.end_section(8);
        w.settle().unwrap();
        let b = w.into_bytes();
        assert_eq!(b.len(), 24);
        assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 24);
        assert_eq!(u16::from_le_bytes([b[8], b[9]]), 8, "section 1: 16..24");
        assert_eq!(u16::from_le_bytes([b[10], b[11]]), 24);
        assert_eq!(b[12], 1);
    }

    #[test]
    fn a_number_too_big_for_its_field_is_refused() {
        let mut w = Writer::new(Endian::Little, 0, 0);
        w.put_settled(Width::U8, Settled::FileSize, "size");
        w.put_bytes(&[0; 300]);
        assert!(w.settle().is_err());
    }
}
