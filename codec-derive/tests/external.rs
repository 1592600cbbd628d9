//! A type derived with deku stands in a schema as a field
//! (`type: Bytes(8), external: "codec_runtime::external::Deku<Stats>"`):
//! the generated codec calls deku for those bytes, and a deku type that
//! reads or writes another size is a located error.

use codec_runtime::external::Deku;
use deku::prelude::*;

/// Eight bytes the schema does not describe: a u16 and a u8 (below 10),
/// a bit flag and 7 bits of level, and a u32 big-endian.
#[derive(Debug, Clone, PartialEq, Eq, DekuRead, DekuWrite)]
pub struct Stats {
    #[deku(endian = "little")]
    pub hp: u16,
    #[deku(assert = "*kind < 10")]
    pub kind: u8,
    #[deku(bits = 1)]
    pub boss: u8,
    #[deku(bits = 7)]
    pub level: u8,
    #[deku(endian = "big")]
    pub score: u32,
}

mod table {
    codec_derive::schema!("tests/schemas/external.ron");
}

fn stats(hp: u16, score: u32) -> Deku<Stats> {
    Deku(Stats {
        hp,
        kind: 3,
        boss: 1,
        level: 42,
        score,
    })
}

#[test]
fn deku_fields_round_trip_through_the_generated_codec() {
    let doc = table::Table {
        records: vec![
            table::Record {
                id: 7,
                stats: stats(500, 0x0102_0304),
            },
            table::Record {
                id: 9,
                stats: stats(1, 5),
            },
        ],
    };
    let bytes = table::encode(&doc).unwrap();
    // Header, then the records at 0xc; deku's bytes where the schema says.
    assert_eq!(&bytes[..4], b"RTBL");
    assert_eq!(
        &bytes[0xc..0x18],
        &[7, 0, 0, 0, 0xf4, 0x01, 3, 0b1010_1010, 1, 2, 3, 4]
    );
    assert_eq!(table::decode(&bytes).unwrap(), doc);
}

#[test]
fn a_deku_error_is_located() {
    let doc = table::Table {
        records: vec![table::Record {
            id: 1,
            stats: stats(2, 3),
        }],
    };
    let mut bytes = table::encode(&doc).unwrap();
    // The kind byte of the first record's stats: deku's assertion fails.
    bytes[0xc + 6] = 200;
    let e = table::decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("0x10") && e.contains("records[0].stats"), "{e}");
}
