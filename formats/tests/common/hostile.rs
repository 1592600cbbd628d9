//! Hostile files built by the tests (issue 47): each one small, each one
//! asking a tool for far more memory than its size. Shared by path between
//! `formats/tests/archive_safety.rs` (the command line) and
//! `tests/tests/bounded_tools.rs` (allocations counted in process).
#![allow(dead_code)]

/// SARC's name hash.
fn name_hash(name: &str) -> u32 {
    name.bytes()
        .fold(0u32, |h, b| h.wrapping_mul(0x65).wrapping_add(u32::from(b)))
}

/// A little-endian SARC whose `nodes` file-table entries all cover the same
/// `size` bytes of data (names `f00000`, ..., sorted by hash as the format
/// wants): each one is read as a file of its own.
pub fn overlapping_sarc(nodes: usize, size: u32) -> Vec<u8> {
    let mut names: Vec<String> = (0..nodes).map(|i| format!("f{i:05}")).collect();
    names.sort_by_key(|n| name_hash(n));
    let mut sfnt = Vec::new();
    let mut at = Vec::new();
    for n in &names {
        at.push(sfnt.len() as u32);
        sfnt.extend_from_slice(n.as_bytes());
        sfnt.push(0);
        while sfnt.len() % 4 != 0 {
            sfnt.push(0);
        }
    }
    let header = 0x14 + 0xc + 16 * nodes + 8 + sfnt.len();
    let data_at = header.div_ceil(8) * 8;
    let mut out = Vec::with_capacity(data_at + size as usize);
    out.extend_from_slice(b"SARC");
    out.extend_from_slice(&0x14u16.to_le_bytes());
    out.extend_from_slice(&0xFEFFu16.to_le_bytes());
    out.extend_from_slice(&((data_at as u32) + size).to_le_bytes());
    out.extend_from_slice(&(data_at as u32).to_le_bytes());
    out.extend_from_slice(&0x100u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(b"SFAT");
    out.extend_from_slice(&0xcu16.to_le_bytes());
    out.extend_from_slice(&(nodes as u16).to_le_bytes());
    out.extend_from_slice(&0x65u32.to_le_bytes());
    for (n, a) in names.iter().zip(&at) {
        out.extend_from_slice(&name_hash(n).to_le_bytes());
        out.extend_from_slice(&((1u32 << 24) | (a / 4)).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
    }
    out.extend_from_slice(b"SFNT");
    out.extend_from_slice(&8u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&sfnt);
    out.resize(data_at, 0);
    out.extend((0..size).map(|i| i as u8));
    out
}

/// A version 2 little-endian BYML of `levels` arrays of `n` entries, each
/// entry of a level pointing at the next level (the last holds integers):
/// a DAG of a few KB that is a tree of `n^levels` nodes.
pub fn byml_dag(levels: usize, n: u32) -> Vec<u8> {
    let pad = (4 - (4 + n as usize) % 4) % 4;
    let size = 4 + n as usize + pad + 4 * n as usize;
    let at = |i: usize| (16 + i * size) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"YB");
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&at(0).to_le_bytes());
    for i in 0..levels {
        let last = i + 1 == levels;
        out.extend_from_slice(&(0xC0 | (n << 8)).to_le_bytes());
        out.extend(std::iter::repeat_n(
            if last { 0xD1 } else { 0xC0 },
            n as usize,
        ));
        out.extend(std::iter::repeat_n(0, pad));
        for k in 0..n {
            let v = if last { k } else { at(i + 1) };
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// A one-file SARC of `size` bytes of data: legitimate, and large.
pub fn single_file_sarc(size: u32) -> Vec<u8> {
    overlapping_sarc(1, size)
}

/// A zstd frame (no content size in its header) of `size` zero bytes: a
/// few KB that decompress to `size`.
pub fn zstd_bomb(size: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = zstd::stream::write::Encoder::new(&mut out, 1).unwrap();
    enc.include_contentsize(false).unwrap();
    std::io::copy(&mut std::io::repeat(0).take(size), &mut enc).unwrap();
    enc.finish().unwrap();
    out
}

/// A Yaz0 header claiming `claimed` bytes over `body` bytes of zeros (the
/// body is long enough for the claim to pass Yaz0's own ratio check).
pub fn yaz0_claiming(claimed: u32, body: usize) -> Vec<u8> {
    let mut out = b"Yaz0".to_vec();
    out.extend_from_slice(&claimed.to_be_bytes());
    out.extend_from_slice(&[0; 8]);
    out.resize(16 + body, 0);
    out
}

use std::io::Read as _;
