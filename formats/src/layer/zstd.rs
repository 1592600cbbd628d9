//! zstd frames, as Tears of the Kingdom stores most files (`.zs`), often
//! compressed with a dictionary. Each frame names its dictionary by id in
//! its header, and each of the game's dictionaries carries its id (1
//! `zs.zsdic`, 2 `bcett.byml.zsdic`, 3 `pack.zsdic`), so the right one is
//! picked from the frame, not guessed from the file name.

use super::LayerError;
use std::io::Read;

pub const MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const DICT_MAGIC: [u8; 4] = [0x37, 0xa4, 0x30, 0xec];
/// The level a frame of up to [`LARGE`] bytes is written at (the game's
/// own settings are unknown: no level of the reference tool gives its
/// bytes; level 16 comes within 1 % of their size; see `docs/layers.md`).
pub const LEVEL: i32 = 16;

/// Above this many bytes a frame is written at [`LARGE_LEVEL`]: level 16
/// takes about a second a 10 MB (a message archive, a map), level 9 a
/// twentieth of it for 5–7 % more bytes (`bench/examples/zstd_levels.rs`).
pub const LARGE: usize = 1 << 20;

/// The level of a frame larger than [`LARGE`].
pub const LARGE_LEVEL: i32 = 9;

/// The level `compress` writes `len` bytes at.
pub fn level_for(len: usize) -> i32 {
    if len > LARGE {
        LARGE_LEVEL
    } else {
        LEVEL
    }
}

/// zstd dictionaries by id.
#[derive(Debug, Clone, Default)]
pub struct Dictionaries {
    by_id: Vec<(u32, Vec<u8>)>,
}

impl Dictionaries {
    /// Adds the dictionaries of a file: a raw dictionary, or an archive of
    /// them such as the game's `ZsDic.pack.zs` (a zstd frame holding a
    /// SARC), or either compressed with zstd.
    pub fn add_file(&mut self, data: &[u8]) -> Result<usize, String> {
        if data.starts_with(&DICT_MAGIC) {
            return self.add(data.to_vec()).map(|()| 1);
        }
        if data.starts_with(&MAGIC) {
            let inner = decompress(data, &Dictionaries::default())
                .map_err(|e| format!("cannot decompress it: {e}"))?;
            return self.add_file(&inner);
        }
        if !crate::sarc::looks_like(data) {
            return Err(
                "neither a zstd dictionary (magic 37 A4 30 EC) nor an archive of them (SARC)"
                    .into(),
            );
        }
        let (_, archive) =
            crate::sarc::decode(data).map_err(|e| format!("the archive is broken: {e}"))?;
        let mut n = 0;
        for node in archive.nodes {
            if node.data.value.starts_with(&DICT_MAGIC) {
                self.add(node.data.value.into_vec())?;
                n += 1;
            }
        }
        if n == 0 {
            return Err("the archive holds no zstd dictionary".into());
        }
        Ok(n)
    }

    fn add(&mut self, dict: Vec<u8>) -> Result<(), String> {
        let id = zstd::zstd_safe::get_dict_id_from_dict(&dict)
            .ok_or("a dictionary without an id")?
            .get();
        self.by_id.retain(|(k, _)| *k != id);
        self.by_id.push((id, dict));
        Ok(())
    }

    pub fn get(&self, id: u32) -> Option<&[u8]> {
        self.by_id
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, d)| d.as_slice())
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// The dictionary id a frame names (`None`: no dictionary).
pub fn dictionary_id(data: &[u8]) -> Option<u32> {
    zstd::zstd_safe::get_dict_id_from_frame(data).map(|id| id.get())
}

/// The decompressed bytes of all frames of `data`, at most
/// [`super::inner_limit`] of its length.
pub fn decompress(data: &[u8], dicts: &Dictionaries) -> Result<Vec<u8>, LayerError> {
    decompress_within(data, dicts, super::inner_limit(data.len()))
}

/// The decompressed bytes of all frames of `data`, refused past `limit`:
/// at once when the first frame's header claims more, else as soon as the
/// output passes it (the output grows only as data really decompresses,
/// so a lying header cannot make it allocate).
pub fn decompress_within(
    data: &[u8],
    dicts: &Dictionaries,
    limit: u64,
) -> Result<Vec<u8>, LayerError> {
    if let Ok(Some(claimed)) = zstd::zstd_safe::get_frame_content_size(data) {
        if claimed > limit {
            return Err(LayerError::new(4, super::too_large(Some(claimed), limit)));
        }
    }
    let id = dictionary_id(data);
    let dict: &[u8] = match id {
        None => &[],
        Some(id) => dicts.get(id).ok_or_else(|| {
            LayerError::new(
                0,
                format!(
                    "the frame was compressed with zstd dictionary {id}, which was not given: \
                     name the game's ZsDic.pack.zs (or a dictionary) with --zstd-dict FILE or \
                     $CODEC_ZSTD_DICT, or open the file inside the game's romfs, where \
                     Pack/ZsDic.pack.zs is found unnamed"
                ),
            )
        })?,
    };
    let fail = |e: std::io::Error| LayerError::new(0, format!("zstd: {e}"));
    let mut decoder = zstd::stream::read::Decoder::with_dictionary(data, dict).map_err(fail)?;
    // The size the frame claims (checked above) is room enough for an
    // honest frame; the output never grows past the limit.
    let claimed = zstd::zstd_safe::get_frame_content_size(data)
        .ok()
        .flatten()
        .unwrap_or(0);
    let mut out = Vec::with_capacity(claimed.min(limit) as usize);
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(fail(e)),
        };
        if (out.len() + n) as u64 > limit {
            return Err(LayerError::new(0, super::too_large(None, limit)));
        }
        out.extend_from_slice(&chunk[..n]);
    }
    Ok(out)
}

/// One frame of `data`, with the dictionary `id` when given (its id in the
/// frame header, the content size, no checksum: what the game's frames
/// carry), at the level its size calls for ([`level_for`]).
pub fn compress(data: &[u8], id: Option<u32>, dicts: &Dictionaries) -> Result<Vec<u8>, LayerError> {
    compress_at(data, id, dicts, level_for(data.len()))
}

/// [`compress`] at a given level.
pub fn compress_at(
    data: &[u8],
    id: Option<u32>,
    dicts: &Dictionaries,
    level: i32,
) -> Result<Vec<u8>, LayerError> {
    let dict: &[u8] = match id {
        None => &[],
        Some(id) => dicts
            .get(id)
            .ok_or_else(|| LayerError::new(0, format!("zstd dictionary {id} was not given")))?,
    };
    let fail = |e: std::io::Error| LayerError::new(0, format!("zstd: {e}"));
    let mut enc = zstd::bulk::Compressor::with_dictionary(level, dict).map_err(fail)?;
    enc.include_checksum(false).map_err(fail)?;
    enc.include_contentsize(true).map_err(fail)?;
    enc.include_dictid(id.is_some()).map_err(fail)?;
    enc.compress(data).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Vec<u8>> {
        (0..64u32)
            .map(|k| {
                let mut s = Vec::new();
                for j in 0..200u32 {
                    s.extend_from_slice(
                        format!(
                            "Actor_{:03} Translate [{}, {}, 0.0] Scale 1.0\n",
                            k % 9,
                            j,
                            k
                        )
                        .as_bytes(),
                    );
                }
                s
            })
            .collect()
    }

    #[test]
    fn frames_with_a_dictionary_pick_it_by_id() {
        let samples = samples();
        let dict = zstd::dict::from_samples(&samples, 4096).unwrap();
        let mut dicts = Dictionaries::default();
        assert_eq!(dicts.add_file(&dict).unwrap(), 1);
        let id = zstd::zstd_safe::get_dict_id_from_dict(&dict).unwrap().get();
        let packed = compress(&samples[3], Some(id), &dicts).unwrap();
        assert_eq!(dictionary_id(&packed), Some(id));
        assert_eq!(decompress(&packed, &dicts).unwrap(), samples[3]);
        // Without it: an error that names the dictionary.
        let e = decompress(&packed, &Dictionaries::default()).unwrap_err();
        assert!(e.message.contains(&format!("dictionary {id}")), "{e}");
        // The dictionary read back from a zstd frame of it.
        let mut again = Dictionaries::default();
        again
            .add_file(&compress(&dict, None, &Dictionaries::default()).unwrap())
            .unwrap();
        assert_eq!(decompress(&packed, &again).unwrap(), samples[3]);
        // And from an archive of dictionaries, compressed, as the game's
        // ZsDic.pack.zs is (read with the SARC codec).
        let pack = crate::sarc::Sarc::new(vec![crate::sarc::Node::new("zs.zsdic", dict.clone())]);
        let pack = crate::sarc::encode(&pack, crate::sarc::Variant::Little).unwrap();
        let mut from_pack = Dictionaries::default();
        let n = from_pack
            .add_file(&compress(&pack, None, &Dictionaries::default()).unwrap())
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(decompress(&packed, &from_pack).unwrap(), samples[3]);
    }

    #[test]
    fn plain_frames_round_trip_and_garbage_is_refused() {
        let data = samples().concat();
        let packed = compress(&data, None, &Dictionaries::default()).unwrap();
        assert!(packed.len() < data.len() / 10);
        assert_eq!(dictionary_id(&packed), None);
        assert_eq!(decompress(&packed, &Dictionaries::default()).unwrap(), data);
        let mut bad = packed.clone();
        bad.truncate(packed.len() / 2);
        assert!(decompress(&bad, &Dictionaries::default()).is_err());
        assert!(Dictionaries::default().add_file(b"nothing").is_err());
    }
}
