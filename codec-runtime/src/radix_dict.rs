//! Radix-tree dictionaries (Patricia trees) of Nintendo's NintendoWare
//! binaries: the `DIC ` blocks of event flows, and the dictionaries of
//! BFRES, BNTX and the rest of the family.
//!
//! A dictionary names the items of a list: entry `0` is the root (bit index
//! all ones, the empty key), entries `1..=n` are the keys in the list's
//! order, and each entry holds a bit index and two child links. The tree is
//! a function of the keys alone, so a writer derives it and a text form
//! never holds it: [`build`] gives the entries a game's tools write, and a
//! reader checks the stored ones against it ([`check`]).
//!
//! **Bits.** Bit index `i` tests bit `i % 8` of the key's byte
//! `len - 1 - i / 8`: counted from the key's *last* byte, least significant
//! bit first; bytes before the key's start read as 0 ([`bit`]).
//!
//! **Building** inserts the keys one by one, as a textbook Patricia tree
//! does: find the key the new one would meet (walk down from the root's
//! first child, taking at each node the child the new key's bit chooses,
//! until a link does not lead to a higher bit index), find the lowest bit
//! where the two keys differ, walk down again stopping before any node
//! testing that bit or a higher one, and put a node testing it there: its
//! child on the new key's side is itself, the other the node it replaces.
//! This gives the stored trees of all 736 dictionaries of the event-flow
//! corpus (`formats/tests/nintendoware_constructs.rs`).

use std::fmt;

/// The bit index of the root entry.
pub const ROOT_BIT: u32 = u32::MAX;

/// One entry of a dictionary: the bit it tests and its two children
/// (entry numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    pub bit: u32,
    pub child: [u16; 2],
}

/// Why a list of keys has no dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DictError {
    /// Two keys no bit tells apart (equal, or equal but for leading zero
    /// bytes, which read as the bytes before a key).
    SameKey { first: usize, second: usize },
    /// A key no bit tells from the root's empty key (empty, or all zero
    /// bytes).
    Empty(usize),
    /// More keys than a child link can number (65,535).
    TooMany(usize),
}

impl fmt::Display for DictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DictError::SameKey { first, second } => write!(
                f,
                "keys {first} and {second} are the same to a radix dictionary \
                 (equal, or equal but for leading zero bytes)"
            ),
            DictError::Empty(i) => write!(
                f,
                "key {i} is empty (or all zero bytes): a radix dictionary cannot tell it \
                 from its root"
            ),
            DictError::TooMany(n) => {
                write!(f, "{n} keys: a dictionary numbers at most 65535")
            }
        }
    }
}

impl std::error::Error for DictError {}

/// Bit `index` of `key`, counted from its last byte, least significant bit
/// first; 0 past its first byte.
#[inline]
pub fn bit(key: &[u8], index: u32) -> bool {
    let byte = (index / 8) as usize;
    match key.len().checked_sub(1 + byte) {
        Some(at) => (key[at] >> (index % 8)) & 1 == 1,
        None => false,
    }
}

/// The lowest bit index at which `a` and `b` differ, if any.
fn first_difference(a: &[u8], b: &[u8]) -> Option<u32> {
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        // Byte i from the end of each (0 before a key's start).
        let x = a.len().checked_sub(1 + i).map_or(0, |j| a[j]);
        let y = b.len().checked_sub(1 + i).map_or(0, |j| b[j]);
        let d = x ^ y;
        (d != 0).then(|| i as u32 * 8 + d.trailing_zeros())
    })
}

/// A bit index in the tree's order: the root's tests nothing and stands
/// above every node.
#[inline]
fn rank(bit: u32) -> i64 {
    if bit == ROOT_BIT {
        -1
    } else {
        i64::from(bit)
    }
}

/// The entries of the dictionary of `keys` (in their list's order): the
/// root first, then one entry per key.
pub fn build<K: AsRef<[u8]>>(keys: &[K]) -> Result<Vec<Node>, DictError> {
    if keys.len() >= usize::from(u16::MAX) {
        return Err(DictError::TooMany(keys.len()));
    }
    let mut nodes = Vec::with_capacity(keys.len() + 1);
    nodes.push(Node {
        bit: ROOT_BIT,
        child: [0, 0],
    });
    // The key of entry `e` (the root's is empty).
    let key_of = |e: usize| -> &[u8] {
        match e {
            0 => &[],
            _ => keys[e - 1].as_ref(),
        }
    };
    for (i, key) in keys.iter().enumerate() {
        let key = key.as_ref();
        let new = i + 1;
        // The entry the new key meets.
        let (mut from, mut to) = (0usize, usize::from(nodes[0].child[0]));
        while rank(nodes[to].bit) > rank(nodes[from].bit) {
            from = to;
            to = usize::from(nodes[to].child[usize::from(bit(key, nodes[to].bit))]);
        }
        let d = first_difference(key, key_of(to)).ok_or(match to {
            0 => DictError::Empty(i),
            _ => DictError::SameKey {
                first: to - 1,
                second: i,
            },
        })?;
        // Where the node testing `d` goes: below `p`, above `x`.
        let (mut p, mut x) = (0usize, usize::from(nodes[0].child[0]));
        while rank(nodes[x].bit) > rank(nodes[p].bit) && rank(nodes[x].bit) < i64::from(d) {
            p = x;
            x = usize::from(nodes[x].child[usize::from(bit(key, nodes[x].bit))]);
        }
        let side = usize::from(bit(key, d));
        let mut child = [0u16; 2];
        child[side] = new as u16;
        child[1 - side] = x as u16;
        nodes.push(Node { bit: d, child });
        let p_side = match p {
            0 => 0,
            _ => usize::from(bit(key, nodes[p].bit)),
        };
        nodes[p].child[p_side] = new as u16;
    }
    Ok(nodes)
}

/// Where stored entries differ from the ones `keys` give: the first entry
/// that differs, with both, or `Ok` when they are the same.
pub fn check<K: AsRef<[u8]>>(keys: &[K], stored: &[Node]) -> Result<(), DictMismatch> {
    let built = build(keys).map_err(DictMismatch::Keys)?;
    if built.len() != stored.len() {
        return Err(DictMismatch::Count {
            keys: keys.len(),
            entries: stored.len(),
        });
    }
    match built.iter().zip(stored).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(entry) => Err(DictMismatch::Entry {
            entry,
            built: built[entry],
            stored: stored[entry],
        }),
    }
}

/// How a stored dictionary differs from its keys' own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DictMismatch {
    Keys(DictError),
    Count {
        keys: usize,
        entries: usize,
    },
    Entry {
        entry: usize,
        built: Node,
        stored: Node,
    },
}

impl fmt::Display for DictMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DictMismatch::Keys(e) => e.fmt(f),
            DictMismatch::Count { keys, entries } => write!(
                f,
                "{entries} entries for {keys} keys (a dictionary has one more than its keys)"
            ),
            DictMismatch::Entry {
                entry,
                built,
                stored,
            } => write!(
                f,
                "entry {entry} is bit {} children {:?}; the keys give bit {} children {:?}",
                stored.bit, stored.child, built.bit, built.child
            ),
        }
    }
}

/// The entry of `key`, found as a reader of the game finds it: down the
/// tree by the key's bits, then one comparison. `None` when it is not a key.
pub fn find<K: AsRef<[u8]>>(nodes: &[Node], keys: &[K], key: &[u8]) -> Option<usize> {
    let (mut from, mut to) = (0usize, usize::from(nodes.first()?.child[0]));
    let mut steps = 0;
    while rank(nodes.get(to)?.bit) > rank(nodes[from].bit) {
        from = to;
        to = usize::from(nodes[to].child[usize::from(bit(key, nodes[to].bit))]);
        // A damaged tree may loop: no walk is longer than the entries.
        steps += 1;
        if steps > nodes.len() {
            return None;
        }
    }
    (to > 0 && keys.get(to - 1)?.as_ref() == key).then_some(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_count_from_the_last_byte_least_significant_first() {
        assert!(bit(b"\x01", 0));
        assert!(!bit(b"\x01", 1));
        assert!(bit(b"\x80", 7));
        // The second bit index byte is the key's second to last.
        assert!(bit(b"\x02\x00", 9));
        assert!(!bit(b"\x02\x00", 1));
        // Before the key's start: 0.
        assert!(!bit(b"\xff", 8));
        assert_eq!(first_difference(b"a", b"a"), None);
        assert_eq!(first_difference(b"a", b"c"), Some(1));
        assert_eq!(first_difference(b"ab", b"b"), Some(8));
    }

    #[test]
    fn an_empty_dictionary_is_its_root() {
        let keys: [&[u8]; 0] = [];
        assert_eq!(
            build(&keys).unwrap(),
            [Node {
                bit: ROOT_BIT,
                child: [0, 0]
            }]
        );
    }

    #[test]
    fn one_key_hangs_below_the_root_at_its_lowest_set_bit() {
        // "a" = 0x61: its lowest set bit (against the empty key) is bit 0.
        let nodes = build(&["a"]).unwrap();
        assert_eq!(nodes[0].child, [1, 0]);
        assert_eq!(nodes[1].bit, 0);
        // Bit 0 of "a" is 1: its own side is child 1, the other the root.
        assert_eq!(nodes[1].child, [0, 1]);
    }

    #[test]
    fn every_key_is_found_and_no_other() {
        let keys = [
            "EntryPoint0",
            "Talk",
            "Talk_Again",
            "Near",
            "A",
            "B",
            "Demo_Talk",
            "\u{3042}",
        ];
        let nodes = build(&keys).unwrap();
        assert_eq!(nodes.len(), keys.len() + 1);
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(find(&nodes, &keys, k.as_bytes()), Some(i + 1), "{k}");
        }
        for k in ["Tal", "Talk_", "C", "EntryPoint1"] {
            assert_eq!(find(&nodes, &keys, k.as_bytes()), None, "{k}");
        }
        check(&keys, &nodes).unwrap();
    }

    #[test]
    fn the_same_key_twice_is_refused_and_a_changed_entry_is_named() {
        assert_eq!(
            build(&["a", "b", "a"]),
            Err(DictError::SameKey {
                first: 0,
                second: 2
            })
        );
        // A leading NUL byte reads as the bytes before a key.
        assert!(build(&[&b"a"[..], &b"\0a"[..]]).is_err());
        assert_eq!(build(&["a", ""]), Err(DictError::Empty(1)));
        let keys = ["x", "y", "z"];
        let mut nodes = build(&keys).unwrap();
        nodes[2].child.swap(0, 1);
        let e = check(&keys, &nodes).unwrap_err();
        assert!(matches!(e, DictMismatch::Entry { entry: 2, .. }), "{e}");
        assert!(e.to_string().starts_with("entry 2 is bit"), "{e}");
    }
}
