//! The parts of legacy BDAT that are not declarative, each a named function
//! the schema calls: the scramble of a table's names and strings, the
//! checksum that keys it, and the hash of a column name.
//!
//! Checksum and scramble follow research/bdat.md §3.1 and §3.2: the checksum
//! is computed on the plain bytes, then used as the key.

use super::schema::Table;
use codec_runtime::reader::field;
use codec_runtime::{DecodeError, DecodeResult, EncodeError, EncodeResult, Endian, ErrorKind};
use std::borrow::Cow;

/// Header fields the scramble needs, where the schema places them (the
/// same in every variant): the flags, where the names start (the table's
/// own name comes first), where the hash table starts (the names end), the
/// checksum that keys the scramble, and the strings' start and length.
const FLAGS: usize = Table::FLAGS_AT;
const NAMES: usize = Table::NAME_AT;
const HASH: usize = Table::HASH_AT;
const KEY: usize = Table::CHECKSUM_AT;
const STRINGS: usize = Table::STRINGS_AT;
const STRINGS_LEN: usize = Table::STRINGS_LENGTH_AT;
/// The part of the header both sizes share ends with the strings' length.
const SHORT_HEADER: usize = STRINGS_LEN + 4;
const SCRAMBLED: u8 = 0b10;

/// A table's length and its two scrambled regions, from its header.
struct Regions {
    len: usize,
    names: (usize, usize),
    strings: (usize, usize),
}

fn regions(b: &[u8], e: Endian) -> Result<Regions, (u64, String)> {
    if b.len() < SHORT_HEADER {
        return Err((
            0,
            format!(
                "a table header needs {SHORT_HEADER} bytes, {} remain",
                b.len()
            ),
        ));
    }
    let names = usize::from(field::u16(&b[NAMES..], e));
    let hash = usize::from(field::u16(&b[HASH..], e));
    let strings = field::u32(&b[STRINGS..], e) as usize;
    let strings_len = field::u32(&b[STRINGS_LEN..], e) as usize;
    let len = strings
        .checked_add(strings_len)
        .filter(|&n| n <= b.len())
        .ok_or_else(|| {
            (
                STRINGS as u64,
                format!(
                    "the strings (0x{strings:x}, 0x{strings_len:x} bytes) end past the end of the file"
                ),
            )
        })?;
    if len < SHORT_HEADER {
        return Err((
            STRINGS as u64,
            format!("the table ends at 0x{len:x} (the end of its strings), inside its own header"),
        ));
    }
    if names > hash || hash > len {
        return Err((NAMES as u64, format!("the names (0x{names:x}) and the hash table (0x{hash:x}) are out of order or outside the table")));
    }
    Ok(Regions {
        len,
        names: (names, hash),
        strings: (strings, len),
    })
}

/// Undoes the scramble of one region in place, key first.
fn unscramble_region(b: &mut [u8], key: u16) {
    let (mut k1, mut k2) = (!(key >> 8) as u8, !key as u8);
    let mut pairs = b.chunks_exact_mut(2);
    for p in &mut pairs {
        let (c1, c2) = (p[0], p[1]);
        p[0] ^= k1;
        p[1] ^= k2;
        k1 = k1.wrapping_add(c1);
        k2 = k2.wrapping_add(c2);
    }
    if let [last] = pairs.into_remainder() {
        *last ^= k1;
    }
}

/// Scrambles one region in place: the key grows by each scrambled byte.
fn scramble_region(b: &mut [u8], key: u16) {
    let (mut k1, mut k2) = (!(key >> 8) as u8, !key as u8);
    let mut pairs = b.chunks_exact_mut(2);
    for p in &mut pairs {
        p[0] ^= k1;
        p[1] ^= k2;
        k1 = k1.wrapping_add(p[0]);
        k2 = k2.wrapping_add(p[1]);
    }
    if let [last] = pairs.into_remainder() {
        *last ^= k1;
    }
}

/// The unit transform on decode: a table's bytes, from its start to the end
/// of its strings, descrambled when its flags say it is scrambled. The
/// flag is left set: it belongs to the table.
pub fn unscramble(bytes: &[u8], endian: Endian) -> DecodeResult<Cow<'_, [u8]>> {
    let r =
        regions(bytes, endian).map_err(|(at, m)| DecodeError::new(at, ErrorKind::Invalid(m)))?;
    let table = &bytes[..r.len];
    if table[FLAGS] & SCRAMBLED == 0 {
        return Ok(Cow::Borrowed(table));
    }
    let key = field::u16(&table[KEY..], endian);
    let mut out = table.to_vec();
    unscramble_region(&mut out[r.names.0..r.names.1], key);
    unscramble_region(&mut out[r.strings.0..r.strings.1], key);
    Ok(Cow::Owned(out))
}

/// The unit transform on encode: scrambles a laid-out table whose flags say
/// so, keyed by the checksum already in its header.
pub fn scramble(table: &Table, bytes: &mut [u8], endian: Endian) -> EncodeResult<()> {
    if !table.flags.scrambled {
        return Ok(());
    }
    scramble_regions(bytes, endian)
}

/// [`scramble`] for the schema interpreter, which holds no typed table: the
/// flags are read from the laid-out header.
pub fn scramble_bytes(bytes: &mut [u8], endian: Endian) -> EncodeResult<()> {
    match bytes.get(FLAGS) {
        Some(f) if f & SCRAMBLED != 0 => scramble_regions(bytes, endian),
        _ => Ok(()),
    }
}

/// Scrambles the names and the strings of a laid-out table.
fn scramble_regions(bytes: &mut [u8], endian: Endian) -> EncodeResult<()> {
    let r = regions(bytes, endian).map_err(|(_, m)| EncodeError::new("Table", m))?;
    let key = field::u16(&bytes[KEY..], endian);
    scramble_region(&mut bytes[r.names.0..r.names.1], key);
    scramble_region(&mut bytes[r.strings.0..r.strings.1], key);
    Ok(())
}

/// The table checksum over `bytes` (the plain table from 0x20 to the end of
/// its strings): a u16 sum of each byte shifted left by its position mod 4,
/// each term cut to 8 bits. `bytes` starts at a multiple of 4.
pub fn checksum(bytes: &[u8]) -> u64 {
    // In blocks of 64 bytes, each position summed in its own 16-bit lane
    // (a form the compiler turns into vector code); 256 blocks of terms
    // below 256 fit a lane before the lanes are folded into the sum.
    const BLOCK: usize = 64;
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut sum = 0u16;
    loop {
        let mut lanes = [0u16; BLOCK];
        let mut rounds = 0;
        for c in blocks.by_ref() {
            for (j, lane) in lanes.iter_mut().enumerate() {
                *lane += u16::from(c[j] << (j & 3));
            }
            rounds += 1;
            if rounds == 256 {
                break;
            }
        }
        sum = lanes.iter().fold(sum, |s, &l| s.wrapping_add(l));
        if rounds < 256 {
            break;
        }
    }
    let rest = blocks.remainder();
    let at = bytes.len() - rest.len();
    let sum = rest.iter().enumerate().fold(sum, |s, (i, &b)| {
        s.wrapping_add(u16::from(b << ((at + i) & 3)))
    });
    u64::from(sum)
}

/// The hash of a column name (before the modulo by the slot count): the
/// first byte, then `h * 7 + b` for each of up to 7 more bytes.
pub fn name_hash(name: &[u8]) -> u64 {
    let Some((&first, rest)) = name.split_first() else {
        return 0;
    };
    let h = rest.iter().take(7).fold(u32::from(first), |h, &b| {
        h.wrapping_mul(7).wrapping_add(u32::from(b))
    });
    u64::from(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places the schema gives are those of research/bdat.md (the table
    /// header; the checksum written at 0x16, summed from 0x20).
    #[test]
    fn the_header_fields_are_where_the_format_has_them() {
        assert_eq!(
            (FLAGS, NAMES, HASH, KEY, STRINGS, STRINGS_LEN, SHORT_HEADER),
            (0x04, 0x06, 0x0a, 0x16, 0x18, 0x1c, 0x20)
        );
    }

    #[test]
    fn scramble_then_unscramble_is_the_identity() {
        let plain: Vec<u8> = (0..=255u8).chain(0..7).collect();
        for key in [0u16, 1, 0xd557, 0xffff] {
            let mut b = plain.clone();
            scramble_region(&mut b, key);
            assert_ne!(b, plain);
            unscramble_region(&mut b, key);
            assert_eq!(b, plain);
        }
    }

    #[test]
    fn checksum_terms_are_cut_to_eight_bits() {
        // 0xff << 3 = 0x7f8, cut to 0xf8.
        assert_eq!(checksum(&[0, 0, 0, 0xff]), 0xf8);
        assert_eq!(checksum(&[1, 1, 1, 1]), 1 + 2 + 4 + 8);
    }

    #[test]
    fn checksum_by_blocks_equals_checksum_by_bytes() {
        let bytes_at_a_time = |b: &[u8]| {
            b.iter().enumerate().fold(0u16, |s, (i, &x)| {
                s.wrapping_add(u16::from((u32::from(x) << (i & 3)) as u8))
            })
        };
        // Lengths around the 64-byte blocks and the 256-block folds.
        let mut seed = 0x1234_5678u32;
        let data: Vec<u8> = (0..64 * 256 * 2 + 77)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (seed >> 16) as u8
            })
            .collect();
        for len in [0, 1, 63, 64, 65, 16383, 16384, 16385, 20000, data.len()] {
            let b = &data[..len];
            assert_eq!(checksum(b), u64::from(bytes_at_a_time(b)), "{len}");
            let ones = vec![0xffu8; len];
            assert_eq!(checksum(&ones), u64::from(bytes_at_a_time(&ones)), "{len}");
        }
    }

    #[test]
    fn name_hash_uses_eight_bytes() {
        assert_eq!(name_hash(b""), 0);
        assert_eq!(name_hash(b"A"), 65);
        assert_eq!(name_hash(b"AB"), 65 * 7 + 66);
        assert_eq!(name_hash(b"ABCDEFGH"), name_hash(b"ABCDEFGHIJ"));
    }
}
