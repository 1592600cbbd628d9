//! An experiment, not a codec: how fast can an AAMP writer that reproduces
//! Nintendo's layout byte for byte be, written by hand for this one format?
//!
//! It plans nothing it does not need, walks each section once with
//! positions kept in flat arrays (no record map, no read-back of patched
//! offsets), writes records complete where it can, and shares the runtime's
//! dedup pools (the byte-level reuse the format needs). Its time bounds what
//! the generator's plan-then-write encoder could gain on AAMP.
//!
//! `cargo run --release -p bench --example aamp_hand_floor -- [iterations]`

use codec_runtime::pool::{ByteSearchPool, ExactPool};
use formats::aamp::schema::{File, ParameterList, ParameterValue};
use std::hint::black_box;
use std::process::ExitCode;

mod common;

const ROOT_LEADING_OBJECTS: usize = 7;
const DEMO_AI_ACTION_IDX: u32 = 0xB994_C459;

#[derive(Default)]
struct HandWriter {
    list_recs: Vec<u32>,
    first_obj: Vec<u32>,
    obj_recs: Vec<u32>,
    param_blocks: Vec<u32>,
    strings: Vec<u8>,
    string_patches: Vec<(u32, u32)>,
    search: ByteSearchPool,
    exact: ExactPool,
    last_len: usize,
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn patch_u16(out: &mut [u8], at: usize, v: usize) {
    out[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes());
}

fn pad4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

impl HandWriter {
    fn encode(&mut self, file: &File) -> Vec<u8> {
        self.list_recs.clear();
        self.first_obj.clear();
        self.obj_recs.clear();
        self.param_blocks.clear();
        self.strings.clear();
        self.string_patches.clear();
        self.search.reset();
        self.exact.reset();
        let mut out = Vec::with_capacity(self.last_len.max(64));
        out.extend_from_slice(b"AAMP");
        put_u32(&mut out, file.format_version);
        put_u32(&mut out, file.flags);
        put_u32(&mut out, 0);
        put_u32(&mut out, file.version);
        put_u32(&mut out, 0);
        out.extend_from_slice(&[0; 20]);
        put_u32(&mut out, file.unknown_section_size);
        out.extend_from_slice(file.data_type.as_bytes());
        out.push(0);
        pad4(&mut out);
        let root_at = out.len();
        out[20..24].copy_from_slice(&((root_at - 0x30) as u32).to_le_bytes());
        list_record(&mut out, &file.root);
        self.lists(&file.root, root_at, &mut out);
        let mut k = 0;
        self.objects(&file.root, &mut k, &mut out);
        let mut k = 0;
        self.params(&file.root, &mut k, &mut out);
        let data_start = out.len();
        let mut k = 0;
        self.data(&file.root, true, &mut k, &mut out, data_start);
        pad4(&mut out);
        let strings_start = out.len();
        out.extend_from_slice(&self.strings);
        pad4(&mut out);
        for &(prec, rel) in &self.string_patches {
            let v = (strings_start + rel as usize - prec as usize) / 4;
            let at = prec as usize + 4;
            out[at..at + 3].copy_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        let end = out.len();
        let fields = [
            (12, end),
            (24, self.list_recs.len()),
            (28, self.obj_recs.len()),
            (32, count_params(file)),
            (36, strings_start - data_start),
            (40, end - strings_start),
        ];
        for (at, v) in fields {
            out[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
        }
        self.last_len = end;
        out
    }

    fn lists(&mut self, l: &ParameterList, rec: usize, out: &mut Vec<u8>) {
        self.list_recs.push(rec as u32);
        let block = out.len();
        patch_u16(out, rec + 4, (block - rec) / 4);
        for c in &l.lists {
            list_record(out, c);
        }
        for (i, c) in l.lists.iter().enumerate() {
            self.lists(c, block + 12 * i, out);
        }
    }

    fn objects(&mut self, l: &ParameterList, k: &mut usize, out: &mut Vec<u8>) {
        let rec = self.list_recs[*k] as usize;
        *k += 1;
        self.first_obj.push(self.obj_recs.len() as u32);
        let here = out.len();
        patch_u16(out, rec + 8, (here - rec) / 4);
        for o in &l.objects {
            self.obj_recs.push(out.len() as u32);
            put_u32(out, o.name);
            out.extend_from_slice(&[0, 0]);
            out.extend_from_slice(&(o.params.len() as u16).to_le_bytes());
        }
        for c in &l.lists {
            self.objects(c, k, out);
        }
    }

    fn params(&mut self, l: &ParameterList, k: &mut usize, out: &mut Vec<u8>) {
        let me = *k;
        *k += 1;
        for c in &l.lists {
            self.params(c, k, out);
        }
        let first = self.first_obj[me] as usize;
        if self.param_blocks.len() < first + l.objects.len() {
            self.param_blocks.resize(first + l.objects.len(), 0);
        }
        for (i, o) in l.objects.iter().enumerate() {
            let rec = self.obj_recs[first + i] as usize;
            self.param_blocks[first + i] = out.len() as u32;
            let here = out.len();
            patch_u16(out, rec + 4, (here - rec) / 4);
            for p in &o.params {
                put_u32(out, p.name);
                put_u32(out, (p.value.tag() as u32) << 24);
            }
        }
    }

    fn data(
        &mut self,
        l: &ParameterList,
        is_root: bool,
        k: &mut usize,
        out: &mut Vec<u8>,
        data_start: usize,
    ) {
        let me = *k;
        *k += 1;
        let first = self.first_obj[me] as usize;
        let ai = l
            .objects
            .first()
            .is_some_and(|o| o.name == DEMO_AI_ACTION_IDX);
        let mut next = 0;
        if is_root && !ai {
            while next < l.objects.len().min(ROOT_LEADING_OBJECTS) {
                self.object(l, first, next, out, data_start);
                next += 1;
            }
        }
        for (i, c) in l.lists.iter().enumerate() {
            if !ai && i % 2 == 0 && next < l.objects.len() {
                self.object(l, first, next, out, data_start);
                next += 1;
            }
            self.data(c, false, k, out, data_start);
        }
        while next < l.objects.len() {
            self.object(l, first, next, out, data_start);
            next += 1;
        }
    }

    fn object(
        &mut self,
        l: &ParameterList,
        first: usize,
        i: usize,
        out: &mut Vec<u8>,
        data_start: usize,
    ) {
        let block = self.param_blocks[first + i] as usize;
        for (j, p) in l.objects[i].params.iter().enumerate() {
            let prec = block + 8 * j;
            let s = out.len();
            let skip = match &p.value {
                ParameterValue::Bool(b) => {
                    put_u32(out, u32::from(*b));
                    0
                }
                ParameterValue::F32(v) => {
                    put_u32(out, v.to_bits());
                    0
                }
                ParameterValue::Int(v) => {
                    put_u32(out, *v as u32);
                    0
                }
                ParameterValue::U32(v) => {
                    put_u32(out, *v);
                    0
                }
                ParameterValue::Vec2(v) => floats(out, v),
                ParameterValue::Vec3(v) => floats(out, v),
                ParameterValue::Vec4(v) | ParameterValue::Color(v) | ParameterValue::Quat(v) => {
                    floats(out, v)
                }
                ParameterValue::Curve1(c) => curves(out, &c[..]),
                ParameterValue::Curve2(c) => curves(out, &c[..]),
                ParameterValue::Curve3(c) => curves(out, &c[..]),
                ParameterValue::Curve4(c) => curves(out, &c[..]),
                ParameterValue::BufferInt(v) => {
                    put_u32(out, v.len() as u32);
                    v.iter().for_each(|e| put_u32(out, *e as u32));
                    4
                }
                ParameterValue::BufferF32(v) => {
                    put_u32(out, v.len() as u32);
                    v.iter().for_each(|e| put_u32(out, e.to_bits()));
                    4
                }
                ParameterValue::BufferU32(v) => {
                    put_u32(out, v.len() as u32);
                    v.iter().for_each(|e| put_u32(out, *e));
                    4
                }
                ParameterValue::BufferBinary(v) => {
                    put_u32(out, v.len() as u32);
                    out.extend_from_slice(v);
                    4
                }
                ParameterValue::String32(t)
                | ParameterValue::String64(t)
                | ParameterValue::String256(t)
                | ParameterValue::StringRef(t) => {
                    let at = self.strings.len();
                    self.strings.extend_from_slice(t.as_bytes());
                    self.strings.push(0);
                    let rel = match self.exact.find_or_insert(&self.strings, at) {
                        Some(p) => {
                            self.strings.truncate(at);
                            p as u32
                        }
                        None => {
                            pad4(&mut self.strings);
                            at as u32
                        }
                    };
                    self.string_patches.push((prec as u32, rel));
                    continue;
                }
            };
            let rel = s - data_start;
            let found = if out.len() == s + 4 {
                self.search.find_word_or_keep(&out[data_start..], rel)
            } else {
                let (before, value) = out.split_at(s);
                self.search.find(&before[data_start..], 4, value)
            };
            let target = match found {
                Some(p) => {
                    out.truncate(s);
                    data_start + p as usize
                }
                None => {
                    pad4(out);
                    s
                }
            } + skip;
            let v = (target - prec) / 4;
            out[prec + 4..prec + 7].copy_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
    }
}

fn count_params(file: &File) -> usize {
    fn walk(l: &ParameterList) -> usize {
        l.objects.iter().map(|o| o.params.len()).sum::<usize>()
            + l.lists.iter().map(walk).sum::<usize>()
    }
    walk(&file.root)
}

fn list_record(out: &mut Vec<u8>, l: &ParameterList) {
    put_u32(out, l.name);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(l.lists.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(l.objects.len() as u16).to_le_bytes());
}

fn floats(out: &mut Vec<u8>, v: &[f32]) -> usize {
    v.iter().for_each(|e| put_u32(out, e.to_bits()));
    0
}

fn curves(out: &mut Vec<u8>, c: &[formats::aamp::schema::Curve]) -> usize {
    for c in c {
        put_u32(out, c.a);
        put_u32(out, c.b);
        floats(out, &c.floats);
    }
    0
}

fn main() -> ExitCode {
    let iterations: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let Some(files) = common::aamp_files_both_decode() else {
        eprintln!("aamp_hand_floor: no corpus (set CODEC_CORPUS)");
        return ExitCode::FAILURE;
    };
    let docs: Vec<File> = files
        .iter()
        .map(|f| formats::aamp::decode(f).expect("decode"))
        .collect();
    let mut w = HandWriter::default();
    let same = files
        .iter()
        .zip(&docs)
        .filter(|(f, d)| w.encode(d) == **f)
        .count();
    println!(
        "hand writer: {same} of {} files byte-identical",
        files.len()
    );
    if let Some((f, d)) = files.iter().zip(&docs).find(|(f, d)| w.encode(d) != **f) {
        let o = w.encode(d);
        let at = o.iter().zip(f.iter()).position(|(a, b)| a != b);
        eprintln!(
            "first differing file: {} vs {} bytes, first difference at {at:?}",
            o.len(),
            f.len()
        );
        if let Some(at) = at {
            eprintln!(
                "ours {:02x?}\norig {:02x?}",
                &o[at & !15..(at & !15) + 32],
                &f[at & !15..(at & !15) + 32]
            );
        }
    }
    let peers: Vec<roead::aamp::ParameterIO> = files
        .iter()
        .map(|f| roead::aamp::ParameterIO::from_binary(f).expect("decode"))
        .collect();
    for round in 0..2 {
        let t = std::time::Instant::now();
        for _ in 0..iterations {
            for d in &docs {
                black_box(w.encode(black_box(d)));
            }
        }
        let hand = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        for _ in 0..iterations {
            for d in &docs {
                black_box(formats::aamp::encode(black_box(d)).expect("encode"));
            }
        }
        let codec = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        for _ in 0..iterations {
            for d in &peers {
                black_box(black_box(d).to_binary());
            }
        }
        let roead = t.elapsed().as_secs_f64();
        println!(
            "round {round}: hand {hand:.3} s, codec {codec:.3} s, roead {roead:.3} s: hand {:.2}x roead, codec {:.2}x roead",
            roead / hand,
            roead / codec
        );
    }
    ExitCode::SUCCESS
}
