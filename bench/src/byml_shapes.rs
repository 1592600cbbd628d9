//! BYML documents of the shapes the corpus lacks, built with our own
//! encoder so that no game file is needed (issue 51).
//!
//! - [`float_arrays`]: a BotW parameter document. A root hash of 110
//!   hashes holding 548 entries over 120 distinct keys; each entry an array
//!   of curves; each curve an array of 4 to 240 small arrays of two to four
//!   floats (53,825 distinct small arrays, 57,143 references: 3,318 point
//!   at an equal array already written, which the writer shares). No
//!   string values, a few hundred integers. About 1.5 MB.
//! - [`one_blob`]: a version 4 document whose root array holds one binary
//!   node (0xA1) of 32 KiB.
//!
//! Both are deterministic: the same bytes on every run and machine.

use formats::byml::{self, Array, Container, Entry, Hash, Header, Node, Variant};

/// A small deterministic generator (xorshift64*), so that the fixtures do
/// not depend on a crate's random number stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn float(&mut self) -> f32 {
        // Values like a curve's: a few decimals in [-100, 100).
        (self.below(20_000) as f32 - 10_000.0) / 100.0
    }
}

fn small_array(len: usize, rng: &mut Rng) -> Node {
    Node::Array(Array {
        items: (0..len).map(|_| Node::Float(rng.float())).collect(),
    })
}

/// The float-array shape: (file name, bytes), version 2 little-endian.
pub fn float_arrays() -> (&'static str, Vec<u8>) {
    const HASHES: usize = 110;
    const ENTRIES: usize = 548;
    const KEYS: usize = 120;
    const CURVES: usize = 3_300;
    const SMALL: usize = 53_825;
    const SHARED: usize = 3_318;
    const INTS: usize = 325;
    let mut rng = Rng(0x51_B7_4D_2A_91_C3_E8_05);

    // The small arrays, 65 % of four floats, 22 % of three, 13 % of two
    // (the proportions of the counts).
    let mut small: Vec<Node> = (0..SMALL)
        .map(|_| {
            let len = match rng.below(100) {
                0..=64 => 4,
                65..=86 => 3,
                _ => 2,
            };
            small_array(len, &mut rng)
        })
        .collect();
    // References to an equal array already written: copies of earlier ones
    // inserted after them.
    for _ in 0..SHARED {
        let from = rng.below(small.len() as u64) as usize;
        let copy = small[from].clone();
        let at = from + 1 + rng.below((small.len() - from) as u64) as usize;
        small.insert(at.min(small.len()), copy);
    }

    // Cut the references into curves of 4 to 240 (sizes drawn until they
    // cover them all; the last takes the rest).
    let mut curves: Vec<Node> = Vec::with_capacity(CURVES);
    let mut rest = small.into_iter().peekable();
    let mut ints = INTS;
    while rest.peek().is_some() {
        let len = if curves.len() % 40 == 0 {
            4 + rng.below(237) as usize
        } else {
            4 + rng.below(30) as usize
        };
        let mut items: Vec<Node> = rest.by_ref().take(len).collect();
        if ints > 0 && curves.len() % 10 == 0 {
            items.push(Node::Int(rng.below(1_000) as i32));
            ints -= 1;
        }
        curves.push(Node::Array(Array {
            items: items.into(),
        }));
    }

    // Entries: arrays of curves, spread over the entries.
    let per_entry = curves.len().div_ceil(ENTRIES);
    let mut curves = curves.into_iter().peekable();
    let keys: Vec<String> = (0..KEYS).map(|k| format!("Param{k:03}")).collect();
    let mut hashes = Vec::with_capacity(HASHES);
    let mut made = 0;
    for h in 0..HASHES {
        let n = (ENTRIES - made) / (HASHES - h);
        let mut entries = Vec::with_capacity(n);
        for e in 0..n {
            let items: Vec<Node> = curves.by_ref().take(per_entry).collect();
            entries.push(Entry {
                key: keys[(h * 7 + e * 13) % KEYS].as_str().into(),
                value: Node::Array(Array {
                    items: items.into(),
                }),
            });
        }
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        entries.dedup_by(|a, b| a.key == b.key);
        made += n;
        hashes.push(Entry {
            key: format!("Group{h:03}").into(),
            value: Node::Hash(Hash { entries }),
        });
    }
    assert!(curves.peek().is_none(), "every curve placed");
    let doc = Header {
        version: 2,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(Hash { entries: hashes })),
    };
    let bytes = byml::encode(&doc, Variant::Le).expect("the fixture encodes");
    ("fixture-float-arrays.byml", bytes)
}

/// The one-blob shape: (file name, bytes), version 4 little-endian.
pub fn one_blob() -> (&'static str, Vec<u8>) {
    let mut rng = Rng(0x0B_10_B0_55_77_21_4E_C9);
    let blob: Vec<u8> = (0..32 * 1024).map(|_| rng.next() as u8).collect();
    let doc = Header {
        version: 4,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Array(Array {
            items: vec![Node::Binary(blob.into())].into(),
        })),
    };
    let bytes = byml::encode(&doc, Variant::Le).expect("the fixture encodes");
    ("fixture-one-blob.byml", bytes)
}
