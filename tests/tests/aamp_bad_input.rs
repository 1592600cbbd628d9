//! Hostile and damaged AAMP input: each case patches a small file that the
//! encoder produced and checks the decode error's kind, byte offset and field
//! path, and that nothing panics, hangs or allocates beyond the file's size.
//!
//! Run with `--nocapture` to see the error text of every case.

use codec_runtime::{DecodeError, ErrorKind};
use formats::aamp::{
    decode, encode, Name, Parameter, ParameterIO, ParameterList, ParameterObject,
    ParameterValue as Value,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// The base file and an independent walker that finds its records.
// ---------------------------------------------------------------------------

/// Header length; the type string follows.
const HEADER: usize = 0x30;
/// Header field holding the root offset (relative to `HEADER`).
const PIO_OFFSET: usize = 0x14;

fn obj(name: &str, params: Vec<(&str, Value)>) -> ParameterObject {
    ParameterObject {
        name: Name::of(name).0,
        params: params
            .into_iter()
            .map(|(n, value)| Parameter {
                name: Name::of(n).0,
                value,
            })
            .collect(),
    }
}

/// A document whose root holds the given objects.
fn doc_with(objects: Vec<ParameterObject>) -> ParameterIO {
    let mut doc = ParameterIO::new("xml");
    doc.root.objects = objects;
    doc
}

/// A small document: a root object with a bool, a buffer, a float and two
/// strings; one child list with an int and a 31-byte String32. Its string
/// section ends in `…\0` exactly on a 4-byte boundary (no trailing padding),
/// so every truncation removes meaningful bytes.
fn base_doc() -> ParameterIO {
    let child = ParameterList::new("child").with_object(obj(
        "inner",
        vec![
            ("i", Value::Int(7)),
            ("long", Value::String32("x".repeat(31).into())),
        ],
    ));
    let mut doc = doc_with(vec![obj(
        "obj",
        vec![
            ("b", Value::Bool(true)),
            ("buf", Value::BufferInt(vec![1, 2, 3])),
            ("f", Value::F32(1.5)),
            ("s32", Value::String32("héllo".into())),
            ("ref", Value::StringRef("end".into())),
        ],
    )]);
    doc.root.lists.push(child);
    doc
}

fn base_file() -> Vec<u8> {
    encode(&base_doc()).expect("the base document encodes")
}

fn u16_at(d: &[u8], p: usize) -> usize {
    usize::from(u16::from_le_bytes([d[p], d[p + 1]]))
}

fn u32_at(d: &[u8], p: usize) -> u32 {
    u32::from_le_bytes([d[p], d[p + 1], d[p + 2], d[p + 3]])
}

fn put_u16(d: &mut [u8], p: usize, v: u16) {
    d[p..p + 2].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(d: &mut [u8], p: usize, v: u32) {
    d[p..p + 4].copy_from_slice(&v.to_le_bytes());
}

/// Where a record sits and the field path the decoder reports for it.
#[derive(Debug, Clone)]
struct Rec {
    pos: usize,
    path: String,
}

/// A parameter record and what it points to.
#[derive(Debug, Clone)]
struct Param {
    rec: Rec,
    /// The value's position (for buffers, the first element).
    target: usize,
    ty: u8,
}

/// The records of a well-formed file, found by following its offsets in the
/// decoder's order: a list, then its child lists (recursively), then its
/// objects with their parameters. `lists[0]` is the root.
#[derive(Debug, Default)]
struct Layout {
    lists: Vec<Rec>,
    objects: Vec<Rec>,
    params: Vec<Param>,
}

impl Layout {
    fn of(d: &[u8]) -> Self {
        let mut l = Layout::default();
        let root = HEADER + u32_at(d, PIO_OFFSET) as usize;
        l.list(d, root, "File.root".into());
        l
    }

    fn list(&mut self, d: &[u8], pos: usize, path: String) {
        self.lists.push(Rec {
            pos,
            path: path.clone(),
        });
        let lists = pos + 4 * u16_at(d, pos + 4);
        for i in 0..u16_at(d, pos + 6) {
            self.list(d, lists + 12 * i, format!("{path}.lists[{i}]"));
        }
        let objects = pos + 4 * u16_at(d, pos + 8);
        for i in 0..u16_at(d, pos + 10) {
            let o = objects + 8 * i;
            let opath = format!("{path}.objects[{i}]");
            self.objects.push(Rec {
                pos: o,
                path: opath.clone(),
            });
            let params = o + 4 * u16_at(d, o + 4);
            for j in 0..u16_at(d, o + 6) {
                let p = params + 8 * j;
                let off = u32_at(d, p + 4) & 0xFF_FFFF;
                self.params.push(Param {
                    rec: Rec {
                        pos: p,
                        path: format!("{opath}.params[{j}]"),
                    },
                    target: p + 4 * off as usize,
                    ty: d[p + 7],
                });
            }
        }
    }

    fn root(&self) -> &Rec {
        &self.lists[0]
    }

    /// The first parameter of type `ty`, in walk order.
    fn param_of_type(&self, ty: u8) -> &Param {
        self.params
            .iter()
            .find(|p| p.ty == ty)
            .unwrap_or_else(|| panic!("the base file has no parameter of type {ty}"))
    }
}

// Type bytes used below.
const T_BOOL: u8 = 0;
const T_STRING32: u8 = 7;
const T_BUFFER_INT: u8 = 13;
const T_STRING_REF: u8 = 20;

// ---------------------------------------------------------------------------
// Running the decoder on hostile input.
// ---------------------------------------------------------------------------

/// Decodes without letting a panic escape, and within a time limit.
fn try_decode(data: &[u8], case: &str) -> Result<ParameterIO, DecodeError> {
    let start = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| decode(data)))
        .unwrap_or_else(|_| panic!("{case}: decode panicked on {} bytes", data.len()));
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "{case}: decode took {took:?} on {} bytes",
        data.len()
    );
    r
}

/// The error of a decode that must fail; prints it for `--nocapture`.
fn decode_err(data: &[u8], case: &str) -> DecodeError {
    match try_decode(data, case) {
        Ok(doc) => panic!("{case}: decoded without error: {doc:?}"),
        Err(e) => {
            println!("{case}: {e}");
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!("at offset 0x{:x}", e.offset())),
                "{case}: Display does not start with the offset: {shown}"
            );
            e
        }
    }
}

/// Asserts offset and exact path.
fn assert_at(e: &DecodeError, offset: usize, path: &str, case: &str) {
    assert_eq!(
        (e.offset(), e.path().as_str()),
        (offset as u64, path),
        "{case}: wrong location in `{e}`"
    );
}

// ---------------------------------------------------------------------------
// The base file itself.
// ---------------------------------------------------------------------------

#[test]
fn base_file_is_what_the_cases_assume() {
    let d = base_file();
    assert_eq!(&d[..4], b"AAMP");
    assert_eq!(u32_at(&d, 0x0C) as usize, d.len(), "file_size");
    assert_eq!(&d[HEADER..HEADER + 4], b"xml\0");
    assert_eq!(
        &d[d.len() - 4..],
        b"xxx\0",
        "the file ends in a NUL, unpadded"
    );
    let l = Layout::of(&d);
    assert_eq!(l.lists.len(), 2);
    assert_eq!(l.objects.len(), 2);
    assert_eq!(l.params.len(), 7);
    assert_eq!(l.root().pos, HEADER + 4);
    let back = decode(&d).expect("the base file decodes");
    assert_eq!(back, base_doc());
}

// ---------------------------------------------------------------------------
// Truncation.
// ---------------------------------------------------------------------------

/// The header's fields, 4 bytes each, in order.
const HEADER_FIELDS: [&str; 12] = [
    "magic",
    "format_version",
    "flags",
    "file_size",
    "version",
    "root",
    "list_count",
    "object_count",
    "parameter_count",
    "data_section_size",
    "string_section_size",
    "unknown_section_size",
];

#[test]
fn every_truncation_fails_at_the_cut() {
    let full = base_file();
    for len in 0..full.len() {
        let case = format!("truncated to {len} of {} bytes", full.len());
        let d = &full[..len];
        let e = match try_decode(d, &case) {
            Ok(_) => panic!("{case}: decoded without error"),
            Err(e) => e,
        };
        let at = e.offset();
        let path = e.path();
        assert!(e.to_string().starts_with("at offset 0x"), "{case}: {e}");
        assert!(path.starts_with("File."), "{case}: path `{path}` in `{e}`");
        assert!(at <= len as u64, "{case}: offset past the cut in `{e}`");
        // The error is about the missing bytes, not something invented.
        match e.kind() {
            ErrorKind::UnexpectedEof { needed, available } => {
                assert!(at + needed > len as u64, "{case}: `{e}`");
                assert_eq!(*available, len as u64 - at, "{case}: `{e}`");
            }
            ErrorKind::OffsetOutOfRange { target, len: l } => {
                assert!(*target > len as u64 && *l == len as u64, "{case}: `{e}`");
            }
            ErrorKind::CountTooLarge { available, .. } => {
                assert!(*available < len as u64, "{case}: `{e}`");
            }
            ErrorKind::UnterminatedString { .. } => {
                assert!(!d[at as usize..].contains(&0), "{case}: `{e}`");
            }
            other => panic!("{case}: unexpected kind {other:?} in `{e}`"),
        }
        // Inside the header, the field that was cut is named exactly.
        if len < HEADER {
            let field = len / 4;
            assert_at(
                &e,
                field * 4,
                &format!("File.{}", HEADER_FIELDS[field]),
                &case,
            );
            assert!(
                matches!(e.kind(), ErrorKind::UnexpectedEof { .. }),
                "{case}: `{e}`"
            );
        } else if len < HEADER + 4 {
            assert_at(&e, HEADER, "File.data_type", &case);
            assert_eq!(
                e.kind(),
                &ErrorKind::UnterminatedString { capacity: None },
                "{case}"
            );
        }
        if len % 16 == 0 || len + 1 == full.len() {
            println!("{case}: {e}");
        }
    }
}

/// Cutting the file inside a record names that record's field.
#[test]
fn truncation_inside_a_record_names_the_record() {
    let full = base_file();
    let l = Layout::of(&full);
    // Inside the root list's record: its name and `lists` offset fit, its
    // list count does not.
    let root = l.root();
    let case = "cut inside the root list's record";
    let e = decode_err(&full[..root.pos + 6], case);
    assert_at(&e, root.pos + 6, "File.root.list_count", case);
    assert!(matches!(
        e.kind(),
        ErrorKind::UnexpectedEof {
            needed: 2,
            available: 0
        }
    ));

    // Inside the first parameter record the decoder reaches (the child
    // list's object is decoded before the root's own objects): the object's
    // parameter count no longer fits, which is checked before any record.
    let o = &l.objects[0];
    assert_eq!(o.path, "File.root.lists[0].objects[0]");
    let first = l
        .params
        .iter()
        .find(|p| p.rec.path.starts_with(&o.path))
        .expect("a parameter of the child's object");
    let case = "cut inside the first parameter record";
    let e = decode_err(&full[..first.rec.pos + 5], case);
    assert_at(&e, o.pos + 4, &format!("{}.params", o.path), case);
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 2,
            elem_size: 8,
            available: 5
        }
    ));
}

/// A file whose last string is followed by padding: cutting the padding
/// leaves a file shorter than its header's `file_size`. The decoder accepts
/// it (and the document then re-encodes to one byte more than its input).
#[test]
fn truncated_final_padding_is_rejected() {
    let doc = doc_with(vec![obj("o", vec![("s", Value::StringRef("ab".into()))])]);
    let full = encode(&doc).unwrap();
    assert_eq!(&full[full.len() - 4..], b"ab\0\0");
    let cut = &full[..full.len() - 1];
    let case = "cut inside the final padding";
    match try_decode(cut, case) {
        Ok(back) => panic!(
            "{case}: decoded Ok although file_size is {} and the input {} bytes; re-encodes to {} bytes",
            u32_at(&full, 0x0C),
            cut.len(),
            encode(&back).map(|b| b.len()).unwrap_or(0)
        ),
        Err(e) => {
            println!("{case}: {e}");
            assert_eq!(e.offset(), 0x0C, "reported at the file_size field: `{e}`");
            assert_eq!(e.path(), "File.file_size", "`{e}`");
        }
    }
}

// ---------------------------------------------------------------------------
// Header damage.
// ---------------------------------------------------------------------------

#[test]
fn wrong_magic() {
    let mut d = base_file();
    d[3] = b'Q';
    let e = decode_err(&d, "wrong magic");
    assert_at(&e, 0, "File.magic", "wrong magic");
    assert_eq!(
        e.kind(),
        &ErrorKind::BadMagic {
            expected: b"AAMP".to_vec(),
            found: b"AAMQ".to_vec()
        }
    );
}

#[test]
fn wrong_version_and_flags() {
    let mut d = base_file();
    put_u32(&mut d, 4, 1);
    let e = decode_err(&d, "version 1");
    assert_at(&e, 4, "File.format_version", "version 1");
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)));

    let mut d = base_file();
    put_u32(&mut d, 8, 2);
    let e = decode_err(&d, "flags 2 (big endian)");
    assert_at(&e, 8, "File.flags", "flags 2");
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)));
}

#[test]
fn root_offset_past_the_end() {
    let base = base_file();
    let len = base.len() as u64;
    for (raw, case) in [
        (len as u32, "root offset = file length"),
        (0xFFFF_FFFF, "root offset 0xFFFFFFFF"),
    ] {
        let mut d = base.clone();
        put_u32(&mut d, PIO_OFFSET, raw);
        let e = decode_err(&d, case);
        assert_at(&e, PIO_OFFSET, "File.root", case);
        assert!(e.path().contains("File.root"));
        assert_eq!(
            e.kind(),
            &ErrorKind::OffsetOutOfRange {
                target: HEADER as u64 + u64::from(raw),
                len
            },
            "{case}"
        );
    }
    // Pointing at the very end leaves no room for the record.
    let mut d = base.clone();
    put_u32(&mut d, PIO_OFFSET, (len - HEADER as u64) as u32);
    let e = decode_err(&d, "root offset at the end of the file");
    assert_at(&e, base.len(), "File.root.name", "root at the end");
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof { .. }));
}

#[test]
fn type_string_invalid_utf8() {
    let mut d = base_file();
    d[HEADER + 1] = 0xFF;
    let e = decode_err(&d, "type string with byte 0xFF");
    assert_at(&e, HEADER + 1, "File.data_type", "type string 0xFF");
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
}

// ---------------------------------------------------------------------------
// Counts.
// ---------------------------------------------------------------------------

/// A tiny file: a root list with nothing in it (0x40 bytes).
fn tiny_file() -> Vec<u8> {
    let d = encode(&ParameterIO::new("xml")).expect("encode");
    assert_eq!(d.len(), HEADER + 4 + 12);
    d
}

#[test]
fn list_count_0xffff_on_a_tiny_file() {
    let mut d = tiny_file();
    let root = HEADER + 4;
    put_u16(&mut d, root + 6, 0xFFFF);
    let e = decode_err(&d, "root list count 0xFFFF");
    // Reported at the `lists` offset field, which the path names.
    assert_at(&e, root + 4, "File.root.lists", "list count 0xFFFF");
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 0xFFFF,
            elem_size: 12,
            ..
        }
    ));
}

#[test]
fn object_and_parameter_counts_0xffff() {
    let mut d = tiny_file();
    let root = HEADER + 4;
    put_u16(&mut d, root + 10, 0xFFFF);
    let e = decode_err(&d, "root object count 0xFFFF");
    assert_at(&e, root + 8, "File.root.objects", "object count 0xFFFF");
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 0xFFFF,
            elem_size: 8,
            ..
        }
    ));

    let mut d = base_file();
    let l = Layout::of(&d);
    let o = &l.objects[0];
    put_u16(&mut d, o.pos + 6, 0xFFFF);
    let e = decode_err(&d, "parameter count 0xFFFF");
    assert_at(&e, o.pos + 4, &format!("{}.params", o.path), "param count");
    assert!(matches!(
        e.kind(),
        ErrorKind::CountTooLarge {
            count: 0xFFFF,
            elem_size: 8,
            ..
        }
    ));
}

/// The base file with the buffer's element count set to 0xFFFFFFFF, and the
/// buffer parameter.
fn huge_buffer_file() -> (Vec<u8>, Param) {
    let mut d = base_file();
    let buf = Layout::of(&d).param_of_type(T_BUFFER_INT).clone();
    assert_eq!(u32_at(&d, buf.target - 4), 3);
    put_u32(&mut d, buf.target - 4, 0xFFFF_FFFF);
    (d, buf)
}

#[test]
fn buffer_count_0xffffffff() {
    run_under_memory_limit("buffer_count_0xffffffff", || {
        let (d, buf) = huge_buffer_file();
        let e = decode_err(&d, "buffer element count 0xFFFFFFFF");
        assert_eq!(e.path(), format!("{}.value::BufferInt", buf.rec.path));
        assert!(matches!(
            e.kind(),
            ErrorKind::CountTooLarge {
                count: 0xFFFF_FFFF,
                elem_size: 4,
                ..
            }
        ));
        // Also for one-byte elements, where count × size does not overflow
        // into a small number.
        let mut d = base_file();
        let l = Layout::of(&d);
        let buf = l.param_of_type(T_BUFFER_INT).clone();
        d[buf.rec.pos + 7] = 19; // BufferBinary
        put_u32(&mut d, buf.target - 4, 0xFFFF_FFFF);
        let e = decode_err(&d, "binary buffer count 0xFFFFFFFF");
        assert_eq!(e.path(), format!("{}.value::BufferBinary", buf.rec.path));
        assert!(matches!(
            e.kind(),
            ErrorKind::CountTooLarge {
                count: 0xFFFF_FFFF,
                elem_size: 1,
                ..
            }
        ));
    });
}

/// The error's offset should be a place the path names: the parameter's
/// `value` offset field (as `File.root.lists` is reported at the list's
/// offset field) or the count word itself. The decoder reports the type byte.
#[test]
fn buffer_count_error_offset() {
    let (d, buf) = huge_buffer_file();
    let e = decode_err(&d, "buffer element count 0xFFFFFFFF");
    let at = e.offset() as usize;
    assert!(
        at == buf.rec.pos + 4 || at == buf.target - 4,
        "`{e}`: expected offset 0x{:x} (the value field) or 0x{:x} (the count word), got 0x{at:x}",
        buf.rec.pos + 4,
        buf.target - 4
    );
}

// ---------------------------------------------------------------------------
// Cycles, depth and amplification.
// ---------------------------------------------------------------------------

fn assert_cycle_or_depth(e: &DecodeError, case: &str) {
    assert!(
        matches!(
            e.kind(),
            ErrorKind::CyclicOffset { .. } | ErrorKind::TooDeep { .. }
        ),
        "{case}: `{e}`"
    );
}

#[test]
fn cyclic_list_offsets_terminate() {
    // The root's child-list offset points at the root's own record.
    let mut d = tiny_file();
    let root = HEADER + 4;
    put_u16(&mut d, root + 4, 0);
    put_u16(&mut d, root + 6, 1);
    let case = "root's child list is the root itself";
    let e = decode_err(&d, case);
    assert_cycle_or_depth(&e, case);
    assert_at(&e, root + 4, "File.root.lists", case);
    assert_eq!(
        e.kind(),
        &ErrorKind::CyclicOffset {
            target: root as u64
        }
    );

    // A child list's child-list offset points at its own block (its record).
    let mut d = base_file();
    let l = Layout::of(&d);
    let child = &l.lists[1];
    put_u16(&mut d, child.pos + 4, 0);
    put_u16(&mut d, child.pos + 6, 1);
    let case = "child list's children are its own block";
    let e = decode_err(&d, case);
    assert_cycle_or_depth(&e, case);
    assert_at(&e, child.pos + 4, &format!("{}.lists", child.path), case);

    // The first of three sibling lists points its children at the second
    // sibling, inside the block that is being read.
    let mut doc = ParameterIO::new("xml");
    for n in ["a", "b", "c"] {
        doc.root.lists.push(ParameterList::new(n));
    }
    let mut d = encode(&doc).unwrap();
    let l = Layout::of(&d);
    let (a, b) = (&l.lists[1], &l.lists[2]);
    assert_eq!(b.pos, a.pos + 12);
    put_u16(&mut d, a.pos + 4, 3);
    put_u16(&mut d, a.pos + 6, 1);
    let case = "a list's children point into its own block (at its sibling)";
    let e = decode_err(&d, case);
    assert_cycle_or_depth(&e, case);
    assert_at(&e, a.pos + 4, &format!("{}.lists", a.path), case);
    assert_eq!(
        e.kind(),
        &ErrorKind::CyclicOffset {
            target: b.pos as u64
        }
    );
}

/// A chain of 300 lists, each the single child of the one before: deeper than
/// the decoder's limit, so it stops with TooDeep (the file has no cycle).
#[test]
fn deep_chain_of_lists_stops_at_the_depth_limit() {
    let n = 300usize;
    let mut d = tiny_file();
    d.truncate(HEADER + 4);
    for i in 0..n {
        let last = i + 1 == n;
        d.extend_from_slice(&(i as u32).to_le_bytes()); // name
        d.extend_from_slice(&(if last { 0u16 } else { 3 }).to_le_bytes()); // next record
        d.extend_from_slice(&(if last { 0u16 } else { 1 }).to_le_bytes());
        d.extend_from_slice(&0u16.to_le_bytes());
        d.extend_from_slice(&0u16.to_le_bytes());
    }
    let len = d.len() as u32;
    put_u32(&mut d, 0x0C, len);
    let case = "chain of 300 nested lists";
    let e = decode_err(&d, case);
    assert!(matches!(e.kind(), ErrorKind::TooDeep { .. }), "`{e}`");
    assert!(e.path().starts_with("File.root.lists[0].lists[0]"), "`{e}`");
    // The offset is a `lists` field of one of the chain's records.
    let at = e.offset() as usize;
    assert!(at > HEADER + 4 && (at - (HEADER + 4)) % 12 == 4, "`{e}`");
}

/// 40 levels where both lists of a level share the next level's block: no
/// cycle, but 2^40 visits. The read budget must stop it quickly.
#[test]
fn shared_sublists_are_bounded_by_the_budget() {
    let d = codec_tests::aamp_shared_sublists(40);
    let case = "40 levels of shared child blocks";
    let e = decode_err(&d, case);
    assert!(
        matches!(e.kind(), ErrorKind::BudgetExhausted { .. }),
        "{case}: `{e}`"
    );
    assert!(e.path().starts_with("File.root.lists[0]"), "`{e}`");
}

// ---------------------------------------------------------------------------
// Parameter values.
// ---------------------------------------------------------------------------

#[test]
fn unknown_parameter_type() {
    let base = base_file();
    let l = Layout::of(&base);
    let p = &l.params[0];
    for tag in [21u8, 0x7F, 0xFF] {
        let mut d = base.clone();
        d[p.rec.pos + 7] = tag;
        let case = format!("parameter type byte {tag}");
        let e = decode_err(&d, &case);
        assert!(e.path().ends_with(".value"), "{case}: `{e}`");
        assert_at(&e, p.rec.pos + 7, &format!("{}.value", p.rec.path), &case);
        assert_eq!(
            e.kind(),
            &ErrorKind::UnknownTag {
                union: "ParameterValue".into(),
                tag: u64::from(tag)
            }
        );
    }
}

#[test]
fn value_offset_past_the_end() {
    let mut d = base_file();
    let l = Layout::of(&d);
    let p = &l.params[0];
    let len = d.len();
    d[p.rec.pos + 4..p.rec.pos + 7].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let case = "value offset 0xFFFFFF";
    let e = decode_err(&d, case);
    assert_at(&e, p.rec.pos + 4, &format!("{}.value", p.rec.path), case);
    assert_eq!(
        e.kind(),
        &ErrorKind::OffsetOutOfRange {
            target: (p.rec.pos + 4 * 0xFF_FFFF) as u64,
            len: len as u64
        }
    );
}

#[test]
fn bool_other_than_0_or_1() {
    let mut d = base_file();
    let l = Layout::of(&d);
    let p = l.param_of_type(T_BOOL).clone();
    put_u32(&mut d, p.target, 2);
    let case = "bool stored as 2";
    let e = decode_err(&d, case);
    assert_at(&e, p.target, &format!("{}.value::Bool", p.rec.path), case);
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)));
}

#[test]
fn string_without_nul() {
    let base = base_file();
    let l = Layout::of(&base);

    // A String32 holding 31 bytes whose NUL is overwritten: the next NUL in
    // the file is further than its 32-byte capacity allows.
    let s = l
        .params
        .iter()
        .find(|p| p.ty == T_STRING32 && base[p.target..].starts_with(b"xxxx"))
        .expect("the 31-byte String32")
        .clone();
    let mut d = base.clone();
    assert_eq!(d[s.target + 31], 0);
    d[s.target + 31] = b'x';
    let case = "String32 without NUL (end of file)";
    let e = decode_err(&d, case);
    assert_at(
        &e,
        s.target,
        &format!("{}.value::String32", s.rec.path),
        case,
    );
    assert_eq!(
        e.kind(),
        &ErrorKind::UnterminatedString { capacity: Some(32) }
    );

    // A String32 whose capacity ends before a NUL that is still in the file:
    // extend the file with more bytes and a NUL after 40 bytes.
    let mut d = base.clone();
    d[s.target + 31] = b'x';
    d.extend_from_slice(&[b'y'; 8]);
    d.extend_from_slice(&[0; 4]);
    let case = "String32 whose NUL lies beyond 32 bytes";
    let e = decode_err(&d, case);
    assert_at(
        &e,
        s.target,
        &format!("{}.value::String32", s.rec.path),
        case,
    );
    assert_eq!(
        e.kind(),
        &ErrorKind::UnterminatedString { capacity: Some(32) }
    );

    // A StringRef (no capacity) running into the end of the file: a file
    // whose last value is the StringRef "end", with its NUL overwritten.
    let doc = doc_with(vec![obj(
        "o",
        vec![("ref", Value::StringRef("end".into()))],
    )]);
    let mut d = encode(&doc).unwrap();
    assert_eq!(&d[d.len() - 4..], b"end\0");
    let r = Layout::of(&d).param_of_type(T_STRING_REF).clone();
    assert_eq!(r.target, d.len() - 4);
    let n = d.len();
    d[n - 1] = b'!';
    let case = "StringRef without NUL before the end of the file";
    let e = decode_err(&d, case);
    assert_at(
        &e,
        r.target,
        &format!("{}.value::StringRef", r.rec.path),
        case,
    );
    assert_eq!(e.kind(), &ErrorKind::UnterminatedString { capacity: None });
}

#[test]
fn invalid_utf8_in_strings() {
    let base = base_file();
    let l = Layout::of(&base);
    let s = l
        .params
        .iter()
        .find(|p| p.ty == T_STRING32 && base[p.target..].starts_with("héllo".as_bytes()))
        .expect("héllo")
        .clone();
    // Cut the two-byte é in half: 'h', 0xC3, 'l'.
    let mut d = base.clone();
    d[s.target + 2] = b'!';
    let case = "String32 with a broken two-byte sequence";
    let e = decode_err(&d, case);
    assert_at(
        &e,
        s.target + 1,
        &format!("{}.value::String32", s.rec.path),
        case,
    );
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);

    // A lone 0xFF in the StringRef.
    let r = l.param_of_type(T_STRING_REF).clone();
    let mut d = base.clone();
    d[r.target + 1] = 0xFF;
    let case = "StringRef with byte 0xFF";
    let e = decode_err(&d, case);
    assert_at(
        &e,
        r.target + 1,
        &format!("{}.value::StringRef", r.rec.path),
        case,
    );
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
}

// ---------------------------------------------------------------------------
// Repeated names: legal, kept in order.
// ---------------------------------------------------------------------------

/// Two parameters, objects or lists sharing a name hash decode as written
/// and re-encode to the same bytes (the model is ordered vectors, not maps).
#[test]
fn repeated_names_decode_and_round_trip() {
    let base = base_file();
    let l = Layout::of(&base);
    let mut d = base.clone();
    let (first, second) = (&l.params[0], &l.params[1]);
    let name = u32_at(&d, first.rec.pos);
    put_u32(&mut d, second.rec.pos, name);
    let doc = try_decode(&d, "two parameters named alike").expect("decodes");
    let o = &doc.root.lists[0].objects[0];
    assert_eq!(o.params[0].name, o.params[1].name);
    assert_eq!(encode(&doc).unwrap(), d);

    let mut doc = ParameterIO::new("xml");
    doc.root.lists.push(ParameterList::new("same"));
    doc.root.lists.push(ParameterList::new("same"));
    doc.root
        .objects
        .push(obj("same", vec![("p", Value::U32(1))]));
    doc.root
        .objects
        .push(obj("same", vec![("p", Value::U32(2))]));
    let d = encode(&doc).unwrap();
    let back = try_decode(&d, "repeated list and object names").expect("decodes");
    assert_eq!(back, doc);
    assert_eq!(encode(&back).unwrap(), d);
}

// ---------------------------------------------------------------------------
// Deterministic sweep.
// ---------------------------------------------------------------------------

/// What one mutated file did.
#[derive(Default)]
struct Tally {
    ok: usize,
    err: usize,
    encode_err: Vec<String>,
    unstable: Vec<String>,
}

fn sweep_one(d: &[u8], case: &str, t: &mut Tally) {
    match try_decode(d, case) {
        Ok(doc) => {
            t.ok += 1;
            let r = catch_unwind(AssertUnwindSafe(|| encode(&doc)))
                .unwrap_or_else(|_| panic!("{case}: encode of the decoded document panicked"));
            match r {
                Err(e) => t.encode_err.push(format!("{case}: {e}")),
                // What the encoder writes for the damaged file's document is
                // a fixed point: it decodes and encodes to itself.
                Ok(bytes) => {
                    let again = try_decode(&bytes, case)
                        .map_err(|e| e.to_string())
                        .and_then(|doc| encode(&doc).map_err(|e| e.to_string()));
                    if again.as_ref() != Ok(&bytes) {
                        t.unstable.push(format!("{case}: {again:?}"));
                    }
                }
            }
        }
        Err(e) => {
            t.err += 1;
            let shown = e.to_string();
            assert!(shown.starts_with("at offset 0x"), "{case}: `{shown}`");
            assert!(e.offset() <= d.len() as u64, "{case}: `{shown}`");
        }
    }
}

#[test]
fn bit_flip_and_0xff_sweep() {
    let base = base_file();
    let mut t = Tally::default();
    let start = Instant::now();
    for i in 0..base.len() {
        for bit in 0..8 {
            let mut d = base.clone();
            d[i] ^= 1 << bit;
            sweep_one(&d, &format!("bit {bit} of byte 0x{i:x} flipped"), &mut t);
        }
        let mut d = base.clone();
        if d[i] != 0xFF {
            d[i] = 0xFF;
            sweep_one(&d, &format!("byte 0x{i:x} set to 0xFF"), &mut t);
        }
    }
    println!(
        "sweep over {} bytes: {} decoded, {} rejected, {} re-encode errors, in {:?}",
        base.len(),
        t.ok,
        t.err,
        t.encode_err.len(),
        start.elapsed()
    );
    for e in &t.encode_err {
        println!("  {e}");
    }
    assert!(t.ok > 0 && t.err > 0);
    assert!(
        t.unstable.is_empty(),
        "re-encoded documents that do not survive another round trip:\n{}",
        t.unstable.join("\n")
    );
    assert!(
        t.encode_err.is_empty(),
        "decoded documents that do not encode:\n{}",
        t.encode_err.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Memory guard.
// ---------------------------------------------------------------------------

/// Runs `body` in a child process (this test binary, re-run for the one test)
/// whose address space is capped at 1 GiB, so that an allocation sized by a
/// hostile count aborts the child instead of passing unnoticed under
/// overcommit. Where `ulimit -v` is unavailable the cap is skipped.
fn run_under_memory_limit(test: &str, body: impl FnOnce()) {
    const CHILD: &str = "AAMP_BAD_INPUT_MEMORY_CHILD";
    if std::env::var_os(CHILD).is_some() || !cfg!(target_os = "linux") {
        body();
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 2>/dev/null; exec \"$0\" \"$@\"")
        .arg(&exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("run the test binary in a child process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child run of `{test}` under a 1 GiB address-space cap failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A string too long for its type fails the encode while the writer is
/// filling the string lane; the next encode on the thread is unaffected.
#[test]
fn a_failed_encode_in_the_string_lane_leaves_the_next_encode_intact() {
    let good = base_file();
    let bad = doc_with(vec![obj(
        "o",
        vec![
            ("i", Value::Int(7)),
            ("s", Value::String32("y".repeat(32).into())),
        ],
    )]);
    let e = encode(&bad).expect_err("33 bytes do not fit a String32");
    assert!(e.to_string().contains("Parameter.value"), "{e}");
    assert_eq!(encode(&base_doc()).unwrap(), good);
}
