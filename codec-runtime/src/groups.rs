//! `Groups`: a fixed number of heads, each a count and the index of the
//! group's first element, then the elements of every group one after the
//! other (AINB's plugs: ten groups of plug slots). Decode and the
//! interpreter read the heads here; each then reads the elements its own
//! way.

use crate::error::{DecodeError, DecodeResult, ErrorKind};

use crate::reader::Reader;

/// Where the groups' elements start, and how many they are in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupsExtent {
    pub start: u64,
    pub total: u64,
}

/// Reads `groups` heads at `p`, each `count_width` bytes of count then
/// `base_width` bytes of first-element index, and checks that each group
/// starts where the groups before it end (the heads hold nothing else, so
/// anything else could not be written back). `head(k, at, count, base)`
/// sees each head as it is read, before the next one.
pub fn read_heads(
    r: &Reader<'_>,
    p: u64,
    groups: u64,
    count_width: u64,
    base_width: u64,
    mut head: impl FnMut(usize, u64, u64, u64),
) -> DecodeResult<GroupsExtent> {
    let mut total = 0u64;
    for k in 0..groups {
        let at = p + k * (count_width + base_width);
        let count = r.uint(at, count_width)?;
        let base = r.uint(at + count_width, base_width)?;
        if base != total {
            return Err(not_following(k as usize, at + count_width, base, total));
        }
        total = total.saturating_add(count);
        head(k as usize, at, count, base);
    }
    Ok(GroupsExtent {
        start: p + groups * (count_width + base_width),
        total,
    })
}

#[cold]
#[inline(never)]
fn not_following(k: usize, at: u64, base: u64, total: u64) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::Invalid(format!(
            "group {k} starts at element {base}, but the groups before it hold {total}; groups must follow each other"
        )),
    )
    .at_index(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Endian;

    #[test]
    fn heads_that_follow_each_other_give_the_elements_extent() {
        // Three groups of (u8 count, u16 base): 2 at 0, 0 at 2, 3 at 2.
        let data = [2, 0, 0, 0, 2, 0, 3, 2, 0];
        let r = Reader::new(&data, Endian::Little);
        let mut seen = Vec::new();
        let ext = read_heads(&r, 0, 3, 1, 2, |k, at, c, b| seen.push((k, at, c, b))).unwrap();
        assert_eq!(ext, GroupsExtent { start: 9, total: 5 });
        assert_eq!(seen, [(0, 0, 2, 0), (1, 3, 0, 2), (2, 6, 3, 2)]);
    }

    #[test]
    fn a_group_starting_elsewhere_is_named_at_its_base() {
        // The second group says it starts at element 1; the first holds 2.
        let data = [2, 0, 4, 1];
        let r = Reader::new(&data, Endian::Little);
        let mut seen = 0;
        let e = read_heads(&r, 0, 2, 1, 1, |_, _, _, _| seen += 1).unwrap_err();
        assert_eq!(e.offset(), 3);
        assert_eq!(seen, 1, "the heads before the bad one were seen");
        let text = e.to_string();
        assert!(
            text.contains("group 1 starts at element 1, but the groups before it hold 2"),
            "{text}"
        );
        assert!(text.contains("[1]"), "{text}");
    }

    #[test]
    fn heads_past_the_end_are_an_end_of_file_error() {
        let data = [1, 0];
        let r = Reader::new(&data, Endian::Little);
        let e = read_heads(&r, 0, 2, 1, 1, |_, _, _, _| {}).unwrap_err();
        assert_eq!(e.offset(), 2);
    }
}
