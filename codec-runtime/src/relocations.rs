//! Relocation tables (`RELT` in NintendoWare binaries): which 64-bit
//! words of a file hold pointers the game turns into addresses when it
//! loads the file.
//!
//! An entry names a base position and a 32-bit mask: bit `i` set means the
//! word at `base + 8 * i` is a pointer. The table is a function of the
//! positions of the pointer slots a writer put down, so it is derived on
//! writing, never kept in a text: [`entries`] takes the positions, sorted,
//! and covers them greedily from the lowest one not yet covered, as
//! Nintendo's tools do (it gives the 15 tables of the event-flow corpus,
//! `formats/tests/nintendoware_constructs.rs`); [`slots`] gives the
//! positions an entry list names, for a reader to check.

/// Bytes of a relocated word.
pub const WORD: u64 = 8;

/// Words one entry's mask covers.
pub const SPAN: u64 = 32;

/// One entry: the first word's position and which of the 32 words from it
/// are pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub base: u64,
    pub mask: u32,
}

/// The entries that name every position of `slots` (in any order; one
/// named twice counts once).
pub fn entries(slots: &[u64]) -> Vec<Entry> {
    let mut sorted = slots.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut covered = vec![false; sorted.len()];
    let mut out = Vec::new();
    for i in 0..sorted.len() {
        if covered[i] {
            continue;
        }
        // The lowest position not yet covered is a base; every uncovered
        // position on its grid of words within the mask's reach joins it.
        let base = sorted[i];
        let mut mask = 0u32;
        for j in i..sorted.len() {
            let d = sorted[j] - base;
            if d >= WORD * SPAN {
                break;
            }
            if d % WORD == 0 && !covered[j] {
                mask |= 1 << (d / WORD);
                covered[j] = true;
            }
        }
        out.push(Entry { base, mask });
    }
    out
}

/// The positions the entries name, in order.
pub fn slots(entries: &[Entry]) -> Vec<u64> {
    let mut out = Vec::new();
    for e in entries {
        for i in 0..SPAN {
            if e.mask >> i & 1 == 1 {
                out.push(e.base + WORD * i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_eight_apart_share_an_entry_until_the_mask_is_full() {
        let e = entries(&[0x100, 0x108, 0x118, 0x100]);
        assert_eq!(
            e,
            [Entry {
                base: 0x100,
                mask: 0b1011
            }]
        );
        // The 33rd word from a base starts an entry of its own.
        let far = entries(&[0, 8 * 31, 8 * 32]);
        assert_eq!(
            far,
            [
                Entry {
                    base: 0,
                    mask: 1 | 1 << 31
                },
                Entry { base: 256, mask: 1 }
            ]
        );
        // A word off the base's grid of 8 starts another entry; one on
        // it joins the base's, though another entry began between them.
        let off = entries(&[0x10, 0x14, 0x18]);
        assert_eq!(
            off,
            [
                Entry {
                    base: 0x10,
                    mask: 0b11
                },
                Entry {
                    base: 0x14,
                    mask: 1
                }
            ]
        );
        assert_eq!(slots(&off), [0x10, 0x18, 0x14]);
    }

    #[test]
    fn the_positions_come_back() {
        let mut s: Vec<u64> = (0..200).map(|i| i * 24 + (i % 3) * 8).collect();
        let e = entries(&s);
        let mut back = slots(&e);
        back.sort_unstable();
        s.sort_unstable();
        s.dedup();
        assert_eq!(back, s);
        assert!(entries(&[]).is_empty());
    }
}
