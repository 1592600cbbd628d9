//! Yaz0, Nintendo's LZ77 compression: a 16-byte header (`Yaz0`, the
//! decompressed size and an alignment word, both big-endian, then 4 zero
//! bytes) and groups of eight items, each group led by a code byte read from
//! its top bit: 1 copies one literal byte, 0 a back-reference of two bytes
//! (`length - 2` in the high nibble, `distance - 1` in the other 12 bits) or
//! three (a zero nibble, then `length - 0x12` in a third byte).
//!
//! Written here rather than taken from a crate: decompression is a screen of
//! code, and the compressor's match rules (which of equal matches, when to
//! defer a match) are what decides whether Nintendo's bytes come back, so
//! they are ours to tune against the game's files (`docs/layers.md`).

use super::LayerError;

pub const MAGIC: &[u8; 4] = b"Yaz0";
const HEADER: usize = 16;
const WINDOW: usize = 0x1000;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 0x111;
/// The most output one input byte can give: a group of 25 bytes (a code
/// byte and eight 3-byte references) gives 8 × 0x111 bytes.
const MAX_RATIO: u64 = (8 * MAX_MATCH as u64).div_ceil(25) + 1;

/// The header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub size: u32,
    /// Non-zero in newer files (the alignment the data wants once
    /// decompressed); kept so that recompression writes it back.
    pub alignment: u32,
}

pub fn header(data: &[u8]) -> Option<Header> {
    if data.len() < HEADER || !data.starts_with(MAGIC) {
        return None;
    }
    let word = |at: usize| u32::from_be_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    Some(Header {
        size: word(4),
        alignment: word(8),
    })
}

/// The decompressed bytes, at most [`super::inner_limit`] of the input's
/// length; every error names the input offset.
pub fn decompress(data: &[u8]) -> Result<Vec<u8>, LayerError> {
    decompress_within(data, super::inner_limit(data.len()))
}

/// The decompressed bytes, refused before anything is allocated when the
/// header claims more than `limit`; every error names the input offset.
pub fn decompress_within(data: &[u8], limit: u64) -> Result<Vec<u8>, LayerError> {
    let h =
        header(data).ok_or_else(|| LayerError::new(0, "not a Yaz0 file (no 16-byte header)"))?;
    if u64::from(h.size) > limit {
        return Err(LayerError::new(
            4,
            super::too_large(Some(h.size.into()), limit),
        ));
    }
    let size = h.size as usize;
    let room = (data.len() - HEADER) as u64 * MAX_RATIO;
    if h.size as u64 > room {
        return Err(LayerError::new(
            4,
            format!(
                "the header claims {} decompressed bytes, but {} compressed bytes give at most {room}",
                h.size,
                data.len() - HEADER
            ),
        ));
    }
    // Written through a cursor into the whole output at once: a literal is
    // one store, a reference that does not overlap what it writes one
    // `copy_within` (twice the speed of pushing byte by byte).
    let mut out = vec![0u8; size];
    let mut o = 0;
    let mut at = HEADER;
    let byte = |at: usize| -> Result<u8, LayerError> {
        data.get(at).copied().ok_or_else(|| {
            LayerError::new(
                at as u64,
                "the compressed data ends before the decompressed size is reached",
            )
        })
    };
    while o < size {
        let code = byte(at)?;
        at += 1;
        // Eight literals (what incompressible data is made of): one copy.
        if code == 0xFF && o + 8 <= size {
            if let Some(literals) = data.get(at..at + 8) {
                out[o..o + 8].copy_from_slice(literals);
                at += 8;
                o += 8;
                continue;
            }
        }
        for bit in (0..8).rev() {
            if o >= size {
                break;
            }
            if code >> bit & 1 == 1 {
                out[o] = byte(at)?;
                at += 1;
                o += 1;
                continue;
            }
            let (a, b) = (byte(at)?, byte(at + 1)?);
            let distance = (usize::from(a & 0x0f) << 8 | usize::from(b)) + 1;
            let length = match a >> 4 {
                0 => {
                    let c = byte(at + 2)?;
                    at += 3;
                    usize::from(c) + 0x12
                }
                n => {
                    at += 2;
                    usize::from(n) + 2
                }
            };
            if distance > o {
                return Err(LayerError::new(
                    (at - 2) as u64,
                    format!(
                        "a back-reference reaches {distance} bytes back, before the start of the output ({o} bytes so far)"
                    ),
                ));
            }
            let start = o - distance;
            let length = length.min(size - o);
            if length <= 16 && distance >= 16 && o + 16 <= size {
                // A short reference: 16 bytes at once (those past `length`
                // are written over by what follows).
                let (done, rest) = out.split_at_mut(o);
                rest[..16].copy_from_slice(&done[start..start + 16]);
            } else if distance >= length {
                out.copy_within(start..start + length, o);
            } else {
                // The reference overlaps what it writes: byte by byte, each
                // byte read after the one `distance` back was written.
                for k in 0..length {
                    out[o + k] = out[start + k];
                }
            }
            o += length;
        }
    }
    Ok(out)
}

/// How far the search follows a hash chain back: the game's encoder is not
/// exhaustive either (it misses some far matches a full search finds).
const CHAIN_DEPTH: usize = 512;
/// A match at least this long is taken at once, without looking one byte
/// ahead for a longer one.
const LAZY_LIMIT: usize = 0x20;

/// Compresses `data` with a header holding `alignment`. The matcher follows
/// what the game's files show: the longest match, the nearest of equal
/// ones, and a literal first when the next byte starts a longer match.
pub fn compress(data: &[u8], alignment: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + data.len() + data.len() / 8 + 1);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(&alignment.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    let mut finder = Matcher::new(data);
    let mut group = Group::default();
    let mut i = 0;
    while i < data.len() {
        let (mut len, mut dist) = finder.longest(i);
        if (MIN_MATCH..LAZY_LIMIT).contains(&len) && i + 1 < data.len() {
            finder.insert(i);
            let (next_len, next_dist) = finder.longest(i + 1);
            if next_len > len {
                group.literal(&mut out, data[i]);
                i += 1;
                (len, dist) = (next_len, next_dist);
            } else {
                finder.uninsert(i);
            }
        }
        if len >= MIN_MATCH {
            group.reference(&mut out, len, dist);
            for k in i..i + len {
                finder.insert(k);
            }
            i += len;
        } else {
            group.literal(&mut out, data[i]);
            finder.insert(i);
            i += 1;
        }
    }
    out
}

/// The code byte being filled and where it sits in the output.
#[derive(Debug, Default)]
struct Group {
    code_at: usize,
    used: u8,
}

impl Group {
    fn slot(&mut self, out: &mut Vec<u8>) -> u8 {
        if self.used % 8 == 0 {
            self.code_at = out.len();
            out.push(0);
            self.used = 0;
        }
        self.used += 1;
        7 - (self.used - 1)
    }

    fn literal(&mut self, out: &mut Vec<u8>, b: u8) {
        let bit = self.slot(out);
        out[self.code_at] |= 1 << bit;
        out.push(b);
    }

    fn reference(&mut self, out: &mut Vec<u8>, len: usize, dist: usize) {
        self.slot(out);
        let d = dist - 1;
        if len < 0x12 {
            out.push(((len - 2) as u8) << 4 | (d >> 8) as u8);
            out.push(d as u8);
        } else {
            out.push((d >> 8) as u8);
            out.push(d as u8);
            out.push((len - 0x12) as u8);
        }
    }
}

/// Hash chains over 3-byte prefixes: `head[h]` is the latest position with
/// hash `h`, `prev[p]` the one before `p`.
struct Matcher<'a> {
    data: &'a [u8],
    head: Vec<u32>,
    prev: Vec<u32>,
}

const NONE: u32 = u32::MAX;
const HASH_BITS: u32 = 15;

impl<'a> Matcher<'a> {
    fn new(data: &'a [u8]) -> Self {
        Matcher {
            data,
            head: vec![NONE; 1 << HASH_BITS],
            prev: vec![NONE; data.len()],
        }
    }

    fn hash(&self, i: usize) -> Option<usize> {
        let b = self.data.get(i..i + 3)?;
        let v = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        Some((v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize)
    }

    fn insert(&mut self, i: usize) {
        if let Some(h) = self.hash(i) {
            self.prev[i] = self.head[h];
            self.head[h] = i as u32;
        }
    }

    /// Takes back the latest insert of `i` (it must be the chain's head).
    fn uninsert(&mut self, i: usize) {
        if let Some(h) = self.hash(i) {
            if self.head[h] == i as u32 {
                self.head[h] = self.prev[i];
                self.prev[i] = NONE;
            }
        }
    }

    /// The longest match for position `i` (nearest among equals): length
    /// and distance, or a length below `MIN_MATCH`.
    fn longest(&self, i: usize) -> (usize, usize) {
        let Some(h) = self.hash(i) else {
            return (0, 0);
        };
        let max = MAX_MATCH.min(self.data.len() - i);
        let (mut best, mut dist) = (0, 0);
        let mut p = self.head[h];
        let mut depth = 0;
        while p != NONE && depth < CHAIN_DEPTH {
            let pos = p as usize;
            if i - pos > WINDOW {
                break;
            }
            let len = self.data[pos..]
                .iter()
                .zip(&self.data[i..i + max])
                .take_while(|(a, b)| a == b)
                .count();
            if len > best {
                (best, dist) = (len, i - pos);
                if len == max {
                    break;
                }
            }
            p = self.prev[pos];
            depth += 1;
        }
        (best, dist)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_data_decompresses_to_itself() {
        let mut data = Vec::new();
        for k in 0..20_000u32 {
            data.extend_from_slice(&(k % 251).to_le_bytes()[..1 + (k % 3) as usize]);
            if k % 7 == 0 {
                data.extend_from_slice(b"repeated text, repeated text");
            }
        }
        data.extend(std::iter::repeat_n(0u8, 5000));
        let packed = compress(&data, 0x80);
        assert!(
            packed.len() < data.len() / 2,
            "{} of {}",
            packed.len(),
            data.len()
        );
        assert_eq!(header(&packed).unwrap().alignment, 0x80);
        assert_eq!(decompress(&packed).unwrap(), data);
        assert_eq!(decompress(&compress(b"", 0)).unwrap(), b"");
        assert_eq!(decompress(&compress(b"ab", 0)).unwrap(), b"ab");
    }

    /// The decoder as the format's description reads, one byte at a time.
    fn naive(data: &[u8]) -> Vec<u8> {
        let size = header(data).unwrap().size as usize;
        let (mut out, mut at) = (Vec::new(), HEADER);
        while out.len() < size {
            let code = data[at];
            at += 1;
            for bit in (0..8).rev() {
                if out.len() == size {
                    break;
                }
                if code >> bit & 1 == 1 {
                    out.push(data[at]);
                    at += 1;
                    continue;
                }
                let (a, b) = (data[at], data[at + 1]);
                let distance = (usize::from(a & 0x0f) << 8 | usize::from(b)) + 1;
                let length = if a >> 4 == 0 {
                    at += 3;
                    usize::from(data[at - 1]) + 0x12
                } else {
                    at += 2;
                    usize::from(a >> 4) + 2
                };
                for _ in 0..length.min(size - out.len()) {
                    out.push(out[out.len() - distance]);
                }
            }
        }
        out
    }

    #[test]
    fn every_kind_of_item_decodes_as_the_description_reads() {
        // Incompressible runs (whole groups of literals), short references
        // far back and near, overlapping runs, long references, and a
        // reference cut by the end of the output.
        let mut seed = 0x1234_5678u32;
        let mut noise = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    seed as u8
                })
                .collect()
        };
        let mut data = noise(300);
        for k in 0..400 {
            let from = data.len() - 17 - k % 200;
            let piece = data[from..from + 3 + k % 14].to_vec();
            data.extend_from_slice(&piece);
            data.extend(noise(k % 11));
            data.extend(std::iter::repeat_n(k as u8, k % 40));
        }
        data.extend(noise(1000));
        let packed = compress(&data, 0);
        assert_eq!(decompress(&packed).unwrap(), naive(&packed));
        assert_eq!(decompress(&packed).unwrap(), data);
        // A 16-byte-distance reference whose copy would pass the end.
        let mut f = b"Yaz0\0\0\0\x13\0\0\0\0\0\0\0\0".to_vec();
        f.extend_from_slice(&[
            0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 0xFF, 9, 10, 11, 12, 13, 14, 15, 16,
        ]);
        f.extend_from_slice(&[0b0000_0000, 0x10, 0x0F]);
        assert_eq!(decompress(&f).unwrap(), naive(&f));
        assert_eq!(&decompress(&f).unwrap()[16..], &[1, 2, 3]);
    }

    #[test]
    fn known_bytes_decode() {
        // "abcabcabc": three literals, then a 6-byte reference 3 back.
        let mut f = b"Yaz0\0\0\0\x09\0\0\0\0\0\0\0\0".to_vec();
        f.extend_from_slice(&[0b1110_0000, b'a', b'b', b'c', 0x40, 0x02]);
        assert_eq!(decompress(&f).unwrap(), b"abcabcabc");
        assert_eq!(compress(b"abcabcabc", 0), f);
    }

    #[test]
    fn bad_input_is_a_located_error() {
        let mut f = b"Yaz0\0\0\0\x09\0\0\0\0\0\0\0\0".to_vec();
        f.extend_from_slice(&[0b0000_0000, 0x40, 0x02]);
        let e = decompress(&f).unwrap_err();
        assert_eq!(e.offset, 17);
        assert!(e.message.contains("before the start"), "{e}");
        let e = decompress(&f[..17]).unwrap_err();
        assert!(e.message.contains("ends before"), "{e}");
        // A size no compressed data of this length can give.
        let huge = b"Yaz0\xff\xff\xff\xff\0\0\0\0\0\0\0\0\x00".to_vec();
        let e = decompress(&huge).unwrap_err();
        assert_eq!(e.offset, 4);
    }
}
