//! Tables of hash slots (`HashSlots`): N slots of (count, offset), each
//! leading to its records back to back, a record in slot `hash(key) mod N`.
//! MSBT's label table is one: the game finds a label by hashing it and
//! searching only its slot, so a label in the wrong slot is lost to it.
//!
//! The document holds the records as a flat list, in the file's order; the
//! slots are derived on writing by grouping the records by their slot,
//! keeping their order within a slot (Nintendo's files list a slot's labels
//! in ascending message index; a rewritten file may not, and comes back as
//! it was). Decode checks that every record sits in the slot its key names:
//! a table that the writer would rebuild otherwise is an error, not a
//! silent change.

use crate::error::{DecodeError, ErrorKind};

/// `h = h × m + byte` over `key`, modulo 2^32: the label hash of MSBT
/// (m = 0x492), and the name hash of SARC (m = 0x65, the archive's
/// multiplier).
pub fn mul_add_hash(key: &[u8], m: u64) -> u64 {
    let m = m as u32;
    u64::from(
        key.iter()
            .fold(0u32, |h, &b| h.wrapping_mul(m).wrapping_add(u32::from(b))),
    )
}

/// The slot of each record, from its hash: the records of each slot, in
/// the order given.
pub fn group_by_slot(hashes: &[u64], slots: u64) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); slots as usize];
    if slots == 0 {
        return out;
    }
    for (i, &h) in hashes.iter().enumerate() {
        out[(h % slots) as usize].push(i);
    }
    out
}

/// The most slots a written table may have when it has fewer records than
/// that: a slot is 2 words of output whether or not a record hashes to it,
/// so a text's slot count alone could ask for gigabytes (issue 70:
/// `slots: 4294967295` in a 30-byte text allocated 34 GB). Nintendo's
/// tables have at most 101; a table may always have one slot per record.
pub const MAX_EMPTY_SLOTS: u64 = 1 << 16;

/// Refuses a table of `slots` slots for `records` records that would be
/// mostly empty beyond [`MAX_EMPTY_SLOTS`], before anything is written.
pub fn check_slot_count(slots: u64, records: usize) -> Result<(), String> {
    let most = MAX_EMPTY_SLOTS.max(records as u64);
    if slots > most {
        return Err(format!(
            "{slots} hash slots for {records} record(s): at most {most} (one per record, or {MAX_EMPTY_SLOTS})"
        ));
    }
    Ok(())
}

/// The slot count a writer gives a new table of `records` records: the
/// smallest prime `p` with `ratio × p > records`, but at most `max` (MSBT:
/// ratio 2, at most 101, TotK's rule for every file Nintendo's tools wrote).
pub fn prime_slots(records: u64, ratio: u64, max: u64) -> u64 {
    let is_prime = |n: u64| n >= 2 && (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0);
    (2..max)
        .find(|&p| is_prime(p) && ratio.saturating_mul(p) > records)
        .unwrap_or(max)
}

/// The error for a record found in slot `found` whose key hashes to
/// another: the writer would move it.
pub fn misplaced(at: u64, key: &str, found: u64, hash: u64, slots: u64) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::Invalid(format!(
            "`{key}` sits in slot {found}, but its hash 0x{hash:08x} names slot {} of {slots}",
            hash % slots
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_hash_and_the_grouping() {
        // Computed by hand: ((('a' × m) + 'b') × m + 'c'), m = 0x492.
        let m = 0x492u64;
        let h = ((u64::from(b'a') * m + u64::from(b'b')) * m + u64::from(b'c')) & 0xFFFF_FFFF;
        assert_eq!(mul_add_hash(b"abc", m), h);
        // Wraps at 32 bits.
        assert!(mul_add_hash(&[0xFF; 32], m) <= u64::from(u32::MAX));
        let groups = group_by_slot(&[5, 2, 7, 4], 3);
        assert_eq!(groups, vec![Vec::<usize>::new(), vec![2, 3], vec![0, 1]]);
        assert!(group_by_slot(&[1], 0).is_empty());
        // msbt.md §2's table: 1-3 labels → 2, 4-5 → 3, 6-9 → 5, 10-13 → 7,
        // 54 → 29, 193 → 97, 194 and more → 101.
        for (n, want) in [
            (0, 2),
            (1, 2),
            (3, 2),
            (4, 3),
            (5, 3),
            (6, 5),
            (9, 5),
            (10, 7),
            (13, 7),
            (54, 29),
            (193, 97),
            (194, 101),
            (2874, 101),
        ] {
            assert_eq!(prime_slots(n, 2, 101), want, "{n} records");
        }
        let e = misplaced(0x40, "Talk_00", 2, 7, 3);
        assert!(e.to_string().contains("names slot 1 of 3"), "{e}");
    }
}
