//! What `schemas/sarc.ron` cannot declare: the name hash and the alignment
//! a new file gets.

/// The SFAT name hash: `h = h × multiplier + byte` over the name's bytes,
/// wrapping at 32 bits. The bytes count as unsigned, as roead does (oead's
/// C++ adds a `char`, signed on most compilers: the two differ only for
/// names with bytes above 0x7F, which the games' archives do not use).
pub fn name_hash(name: &[u8], multiplier: u64) -> u64 {
    codec_runtime::slots::mul_add_hash(name, multiplier)
}

/// The alignment a file without one gets (a file added to an archive), from
/// its magic. Files found in an archive keep theirs; these are the smallest
/// alignments the games' archives show for each kind (research notes,
/// `byml-sarc-yaz0.md` §3: BYML and AAMP 8 in TotK packs, textures 0x800
/// to 0x2000, nested archives and compressed files 0x80 and more).
pub fn file_alignment(data: &[u8]) -> u64 {
    let magic = data.get(..4).unwrap_or_default();
    match magic {
        b"FRES" | b"BNTX" | b"BNSH" | b"FSHA" => 0x1000,
        b"FLIM" => 0x800,
        b"SARC" | b"Yaz0" => 0x80,
        b"AAMP" | b"AINB" | b"BFEV" | b"FLYT" | b"FLAN" | b"MsgS" | b"MsgP" => 8,
        [0x28, 0xB5, 0x2F, 0xFD] => 8,
        _ if data.starts_with(b"BY") || data.starts_with(b"YB") => 8,
        // Wii U textures end with their header (FLIM at the end).
        _ if data.len() >= 0x28 && &data[data.len() - 0x28..data.len() - 0x24] == b"FLIM" => 0x800,
        _ => 4,
    }
}
