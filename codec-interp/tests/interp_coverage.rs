//! Coverage of the padding a unit's layout requires: its sections aligned
//! and padded from the unit's start (not the file's), string padding
//! checked in the unit's own bytes (a transformed unit's, not the file's),
//! and what breaks those rules (a non-zero byte where zeros are required)
//! still reported as unexplained.

use codec_interp::{self as interp, coverage, Hooks, NoHooks};
use codec_runtime::{DecodeResult, Endian, Limits, SelectCx};
use codec_schema::Checked;
use std::borrow::Cow;

/// A file header with an offset to a unit; the unit: an id, an offset to a
/// u32 in a section aligned to 16 and an offset to a name (padded to 4) in
/// a section padded to a multiple of 8.
const SCHEMA: &str = r#"Schema(
    name: "cov",
    endian: Little,
    root: "File",
    sections: [Section(name: "units")],
    types: [
        Struct(name: "File", fields: [
            (name: "magic", type: Magic("CV01")),
            (name: "unit", type: Ptr(width: U32, to: Named("Unit"), section: "units")),
        ]),
        Struct(
            name: "Unit",
            layout: (sections: [Section(name: "data", align: 16), Section(name: "strs", pad: 8)]TRANSFORM),
            fields: [
                (name: "id", type: U16),
                (name: "value", type: Ptr(width: U16, base: Unit, to: U32, section: "data")),
                (name: "name", type: Ptr(width: U16, base: Unit, to: CString(pad: 4), section: "strs")),
            ],
        ),
    ],
)"#;

/// Where the unit starts in the file: not a multiple of 16, so alignment
/// counted from the file's start would misplace its sections.
const UNIT: usize = 8;

fn checked(transform: bool) -> Checked {
    let t = if transform {
        r#", transform: (decode: "xor", encode: "xor")"#
    } else {
        ""
    };
    codec_schema::parse_str(&SCHEMA.replace("TRANSFORM", t), "cov.ron").expect("the schema checks")
}

/// The unit's bytes (from its start): header (6), zeros up to 16, the u32
/// (16..20), zeros up to the end of its section (aligned to 16: 32), the
/// name "ab" and its NUL (32..35), its pad (35..36), the section's pad up
/// to a multiple of 8 (36..40).
fn unit() -> Vec<u8> {
    let mut u = Vec::new();
    u.extend_from_slice(&7u16.to_le_bytes());
    u.extend_from_slice(&16u16.to_le_bytes());
    u.extend_from_slice(&32u16.to_le_bytes());
    u.resize(16, 0);
    u.extend_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    u.resize(32, 0);
    u.extend_from_slice(b"ab\0");
    u.resize(40, 0);
    u
}

fn file(unit: &[u8]) -> Vec<u8> {
    let mut d = b"CV01".to_vec();
    d.extend_from_slice(&(UNIT as u32).to_le_bytes());
    d.extend_from_slice(unit);
    d
}

/// A transform that XORs every byte with 0x5A (its own inverse).
struct Xor;

impl Hooks for Xor {
    fn transform<'a>(
        &self,
        name: &str,
        bytes: &'a [u8],
        _: Endian,
    ) -> Option<DecodeResult<Cow<'a, [u8]>>> {
        (name == "xor").then(|| Ok(Cow::Owned(bytes.iter().map(|b| b ^ 0x5A).collect())))
    }

    fn select(&self, _: &str, _: &SelectCx<'_>) -> Option<Option<u64>> {
        None
    }
}

fn cover(c: &Checked, data: &[u8], hooks: &dyn Hooks) -> coverage::Coverage {
    let d = interp::decode_partial_with(c, data, Limits::default(), hooks);
    assert!(d.error.is_none(), "decodes: {:?}", d.error);
    coverage::coverage(c, &d.root, data)
}

/// The unexplained ranges, as (file offset, length).
fn gaps(cov: &coverage::Coverage) -> Vec<(u64, u64)> {
    cov.gaps.iter().map(|g| (g.offset, g.len)).collect()
}

#[test]
fn section_alignment_counts_from_the_unit_start() {
    let c = checked(false);
    let data = file(&unit());
    let cov = cover(&c, &data, &NoHooks);
    assert_eq!(gaps(&cov), vec![]);
    // Known: header 8, unit header 6, u32 4, "ab\0" 3; padding: 10 + 12 + 1 + 4.
    assert_eq!((cov.known, cov.padding), (21, 27));
}

#[test]
fn a_nonzero_byte_in_section_alignment_is_unexplained() {
    let c = checked(false);
    let mut u = unit();
    u[10] = 1;
    let data = file(&u);
    let cov = cover(&c, &data, &NoHooks);
    // The whole alignment run (unit 6..16) is reported, not its zeros.
    assert_eq!(gaps(&cov), vec![((UNIT + 6) as u64, 10)]);
    assert_eq!(cov.padding, 17);
}

#[test]
fn a_nonzero_byte_in_string_or_section_padding_is_unexplained() {
    let c = checked(false);
    let mut u = unit();
    u[35] = 0x20;
    let cov = cover(&c, &file(&u), &NoHooks);
    assert_eq!(gaps(&cov), vec![((UNIT + 35) as u64, 1)]);

    let mut u = unit();
    u[25] = 0xFF;
    let cov = cover(&c, &file(&u), &NoHooks);
    assert_eq!(gaps(&cov), vec![((UNIT + 20) as u64, 12)]);

    let mut u = unit();
    u[38] = 0xFF;
    let cov = cover(&c, &file(&u), &NoHooks);
    assert_eq!(gaps(&cov), vec![((UNIT + 36) as u64, 4)]);
}

#[test]
fn padding_of_a_transformed_unit_is_checked_in_its_own_bytes() {
    let c = checked(true);
    let scrambled = |u: &[u8]| -> Vec<u8> { u.iter().map(|b| b ^ 0x5A).collect() };
    // Zeros in the unit's bytes, 0x5A in the file's: padding all the same.
    let data = file(&scrambled(&unit()));
    let cov = cover(&c, &data, &Xor);
    assert_eq!(gaps(&cov), vec![]);
    assert_eq!((cov.known, cov.padding), (21, 27));

    // A zero in the file's bytes is 0x5A in the unit's: not padding.
    let mut u = unit();
    u[35] = 0x5A;
    let data = file(&scrambled(&u));
    assert_eq!(data[UNIT + 35], 0);
    let cov = cover(&c, &data, &Xor);
    assert_eq!(gaps(&cov), vec![((UNIT + 35) as u64, 1)]);
}

/// Bytes two fields read two ways are reported, with both fields, though
/// every byte is explained: `half` points into the middle of `word`'s value
/// (issue 52: a schema that reads bytes two ways is said so).
#[test]
fn bytes_read_two_ways_are_reported() {
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/read_twice.ron"),
        "read_twice.ron",
    )
    .unwrap();
    let mut data = b"TWCE".to_vec();
    for v in [12u32, 14, 0xAABB_CCDD] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    let root = interp::decode(&c, &data).unwrap();
    let cov = coverage::coverage(&c, &root, &data);
    assert_eq!(cov.unexplained(), 0);
    assert_eq!(cov.overlaps.len(), 1, "{:?}", cov.overlaps);
    let o = &cov.overlaps[0];
    assert_eq!((o.offset, o.len), (14, 2));
    assert!(
        o.first.starts_with("File.word") && o.first.ends_with("(u32)"),
        "{o:?}"
    );
    assert!(
        o.second.starts_with("File.half") && o.second.ends_with("(u16)"),
        "{o:?}"
    );
    let text = codec_interp::render::coverage_text("f", &cov);
    assert!(
        text.contains("overlap at 0xe, 2 byte(s) read two ways: by File.word"),
        "{text}"
    );
    // Apart, they are not reported.
    let mut apart = data.clone();
    apart[8..12].copy_from_slice(&16u32.to_le_bytes());
    apart.extend_from_slice(&[1, 2]);
    let root = interp::decode(&c, &apart).unwrap();
    assert_eq!(coverage::coverage(&c, &root, &apart).overlaps, vec![]);
}
