//! Behaviour of the constructs that tables brought (schema
//! `tests/schemas/tables.ron`): variants as overlays, units with a transform
//! and a checksum, lists of offsets, Follows and ToNext, self-tagged unions,
//! references, a hash index, rows described by column records, fixed-point
//! and lossless strings. Every expected byte is written out by hand from the
//! schema, so a wrong layout fails.

use codec_runtime::rows::Rows;
use codec_runtime::{DecodeResult, EncodeResult, Endian, Text};
use std::borrow::Cow;

/// The glue the schema names.
mod glue {
    use super::*;

    /// A masked table has every byte from 4 XORed with its checksum.
    pub fn unmask(bytes: &[u8], _e: Endian) -> DecodeResult<Cow<'_, [u8]>> {
        match bytes.get(2..4) {
            Some(&[m, key]) if m != 0 => {
                let mut b = bytes.to_vec();
                b[4..].iter_mut().for_each(|x| *x ^= key);
                Ok(Cow::Owned(b))
            }
            _ => Ok(Cow::Borrowed(bytes)),
        }
    }

    pub fn mask(t: &super::tables::Table, bytes: &mut [u8], _e: Endian) -> EncodeResult<()> {
        if t.masked != 0 {
            let key = bytes[3];
            bytes[4..].iter_mut().for_each(|x| *x ^= key);
        }
        Ok(())
    }

    pub fn sum(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0u8, |s, &b| s.wrapping_add(b)).into()
    }

    pub fn first_byte(name: &[u8]) -> u64 {
        name.first().copied().unwrap_or(0).into()
    }
}

mod tables {
    codec_derive::schema!("tests/schemas/tables.ron", hooks = super::glue);
}

use tables::{Cell, Column, File, FlagInfo, Info, Table, ValueInfo, Variant};

/// Three columns (a string, a u16, a 4-bit flag of the u16), two rows that
/// share a string.
fn table() -> Table {
    let mut rows = Rows::new(2);
    let x = rows.add_string("x");
    rows.push([Cell::Text(x), Cell::Half(0x0102)]);
    rows.push([Cell::Text(x), Cell::Half(0x0304)]);
    let value = |t: u8, name: &str| Column {
        info: Info::Value(ValueInfo { cell_type: t }),
        name: name.into(),
    };
    Table {
        masked: 0,
        name: "T".into(),
        columns: vec![
            value(3, "s"),
            value(2, "h"),
            Column {
                info: Info::Flag(FlagInfo {
                    mask: 0x0f,
                    parent: 1,
                }),
                name: "lo".into(),
            },
        ],
        slots: 2,
        rows,
    }
}

#[rustfmt::skip]
const LE: [u8; 60] = [
    0x01, 0x00, 0x3c, 0x00, 0x06, 0x00,             // File: 1 table, 60 bytes, table at 6
    // Table (offsets from its start, 6):
    b'T', b'B', 0x00, 0xdb,                         // magic, not masked, checksum of bytes 4..
    0x16, 0x28, 0x02, 0x2c,                         // name, hash, 2 slots, rows
    0x02, 0x04, 0x34, 0x1f, 0x03,                   // 2 rows of 4, strings, nodes, 3 columns
    0x01, 0x03, 0x00,                               // info: value, text at 0
    0x01, 0x02, 0x01,                               //       value, u16 at 1
    0x02, 0x0f, 0x22,                               //       flag 0x0f of the node at 0x22
    b'T', 0, b's', 0, b'h', 0, b'l', b'o', 0,       // names: the table's, then the columns'
    0x0d, 0x00, 0x18,                               // nodes: info, next, name
    0x10, 0x00, 0x1a,
    0x13, 0x22, 0x1c,                               //   "lo" chains to "h" (same slot; prepended)
    0x25, 0x1f,                                     // hash: slot 0 -> "lo", slot 1 -> "s"
    0x00, 0x00,                                     // rows start at a multiple of 4
    0x34, 0x02, 0x01, 0x00,                         // row 0: "x", 0x0102, padding to 4
    0x34, 0x04, 0x03, 0x00,                         // row 1: "x" (shared), 0x0304
    b'x', 0,                                        // strings
];

#[rustfmt::skip]
const BE: [u8; 54] = [
    0x00, 0x01, 0x00, 0x36, 0x00, 0x06,             // File: 1 table, 54 bytes, table at 6
    b'T', b'B', 0x00, 0x24,                         // magic, not masked, checksum
    0x14, 0x23, 0x02, 0x25,                         // name, hash, 2 slots, rows
    0x02, 0x03, 0x2e,                               // 2 rows of 3 (not rounded), strings
    0x01, 0x03, 0x00,                               // info
    0x01, 0x02, 0x01,
    0x02, 0x0f, 0x1a,                               //   flag of the node at 0x1a
    b'T', 0,                                        // names: the table's, then the nodes inline
    0x0b, 0x00, b's', 0,
    0x0e, 0x1e, b'h', 0,                            //   "h" chains to "lo" (appended)
    0x11, 0x00, b'l', b'o', 0,
    0x1a, 0x16,                                     // hash: slot 0 -> "h", slot 1 -> "s"
    0x2e, 0x01, 0x02,                               // rows: "x", 0x0102 (big endian)
    0x2e, 0x03, 0x04,
    0x00, 0x00,                                     // the rows' length padded to 8
    0x00,                                           // strings start at a multiple of 2
    b'x', 0,
];

#[test]
fn variants_lay_out_the_same_document_their_own_way() {
    let file = File {
        tables: vec![table()],
    };
    assert_eq!(Variant::ALL, [Variant::Le, Variant::Be]);
    assert_eq!(Variant::Be.endian(), Endian::Big);
    assert_eq!(Variant::from_name("Be"), Some(Variant::Be));
    let le = tables::encode(&file, Variant::Le).unwrap();
    assert_eq!(le, LE);
    let be = tables::encode(&file, Variant::Be).unwrap();
    assert_eq!(be, BE);
    assert_eq!(tables::decode(&le, Variant::Le).unwrap(), file);
    assert_eq!(tables::decode(&be, Variant::Be).unwrap(), file);
    // The rows keep one copy of the shared string.
    let back = tables::decode(&le, Variant::Le).unwrap();
    assert_eq!(back.tables[0].rows.strings().len(), 1);
}

#[test]
fn a_unit_transform_runs_after_the_checksum_and_before_decoding() {
    let mut t = table();
    t.masked = 1;
    let file = File { tables: vec![t] };
    let bytes = tables::encode(&file, Variant::Le).unwrap();
    let mut want = LE;
    want[8] = 1;
    // The checksum counts the plain bytes (the flag byte is before 4).
    for b in &mut want[10..] {
        *b ^= 0xdb;
    }
    assert_eq!(bytes, want);
    assert_eq!(tables::decode(&bytes, Variant::Le).unwrap(), file);
}

#[test]
fn fixed_point_cells_exist_only_where_the_variant_has_them() {
    let mut t = table();
    t.columns[1] = Column {
        info: Info::Value(ValueInfo { cell_type: 4 }),
        name: "h".into(),
    };
    t.columns.pop();
    t.rows[0][1] = Cell::Fixed(0x0180); // 1.5 in 8.8
    t.rows[1][1] = Cell::Fixed(0xff00);
    let file = File {
        tables: vec![t.clone()],
    };
    let be = tables::encode(&file, Variant::Be).unwrap();
    assert_eq!(tables::decode(&be, Variant::Be).unwrap(), file);
    let e = tables::encode(&file, Variant::Le).unwrap_err();
    assert!(e.to_string().contains("cell of type 4"), "{e}");
    t.rows[0][1] = Cell::Real(1.5);
    t.rows[1][1] = Cell::Real(-2.0);
    let file = File { tables: vec![t] };
    let le = tables::encode(&file, Variant::Le).unwrap();
    assert_eq!(tables::decode(&le, Variant::Le).unwrap(), file);
}

#[test]
fn strings_keep_bytes_that_are_not_utf8() {
    let mut t = table();
    t.name = Text::from_bytes(&[0x82, 0xa0]);
    let id = t.rows.add_string([0x93, 0xfa, 0x96, 0x7b]);
    t.rows[1][0] = Cell::Text(id);
    let file = File { tables: vec![t] };
    for v in Variant::ALL {
        let bytes = tables::encode(&file, v).unwrap();
        let back = tables::decode(&bytes, v).unwrap();
        assert_eq!(back, file);
        assert_eq!(back.tables[0].name.as_bytes(), [0x82, 0xa0]);
    }
}

#[test]
fn decode_errors_are_located() {
    // The flag's reference points at no node.
    let mut b = LE;
    b[6 + 0x15] = 0x21;
    let e = tables::decode(&b, Variant::Le).unwrap_err();
    assert_eq!(e.offset(), 6 + 0x15);
    assert!(
        e.to_string()
            .contains("does not point at a `Column` record"),
        "{e}"
    );
    assert_eq!(e.path(), "File.tables[0].columns[2].info::Flag.parent");
    // An unknown cell type, named where the column gives it.
    let mut b = LE;
    b[6 + 0x11] = 9;
    let e = tables::decode(&b, Variant::Le).unwrap_err();
    assert_eq!(e.offset(), 6 + 0x11);
    assert!(e.to_string().contains("tag 9"), "{e}");
    // Inline nodes that run past the hash table.
    let mut b = BE;
    b[6 + 5] = 0x20;
    let e = tables::decode(&b, Variant::Be).unwrap_err();
    assert!(e.path().starts_with("File.tables[0].columns"), "{e}");
    // A cut file.
    for n in 0..LE.len() {
        assert!(tables::decode(&LE[..n], Variant::Le).is_err(), "cut at {n}");
    }
}

#[test]
fn rows_must_match_their_columns() {
    let mut t = table();
    t.rows[0][1] = Cell::Byte(1);
    let e = tables::encode(&File { tables: vec![t] }, Variant::Le).unwrap_err();
    assert!(e.to_string().contains("row 0, column 1"), "{e}");
    let mut t = table();
    t.columns.remove(0);
    let e = tables::encode(&File { tables: vec![t] }, Variant::Le).unwrap_err();
    assert!(e.to_string().contains("the columns describe 1"), "{e}");
}
