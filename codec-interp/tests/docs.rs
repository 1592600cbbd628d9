//! The wiki pages generated from the schemas: the checked-in pages under
//! `docs/formats/` are what the generators write today, and the pages say
//! what a format wiki needs (offset tables, offset semantics, derived
//! fields, sections in order, unions, unknown fields, layout pictures).

use codec_schema::docs::{self, DocFormat};
use codec_schema::Checked;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn aamp() -> Checked {
    let src = std::fs::read_to_string(repo().join("schemas/aamp.ron")).unwrap();
    codec_schema::parse_str(&src, "schemas/aamp.ron").unwrap()
}

fn fixture() -> Checked {
    let src =
        std::fs::read_to_string(repo().join("codec-interp/tests/interp_fixtures/constructs.ron"))
            .unwrap();
    codec_schema::parse_str(&src, "constructs.ron").unwrap()
}

/// Every schema under `schemas/` whose pages are checked in: the pages are
/// what the generators write today, and nothing else lives in `docs/formats/`.
#[test]
fn checked_in_pages_are_fresh() {
    let dir = repo().join("docs/formats");
    let mut expected: Vec<String> = Vec::new();
    let mut schemas: Vec<PathBuf> = std::fs::read_dir(repo().join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    schemas.sort();
    for path in schemas {
        let display = format!("schemas/{}", path.file_name().unwrap().to_string_lossy());
        let c = codec_schema::load(&path, &display).expect("the schema checks");
        let files = docs::generate(&c, &DocFormat::ALL);
        if !dir.join(&files[0].name).exists() {
            // Not built into `codec` yet: no pages.
            continue;
        }
        for f in &files {
            let old = std::fs::read_to_string(dir.join(&f.name)).unwrap_or_default();
            assert!(
                old == f.contents,
                "docs/formats/{} is stale: run `cargo run -p formats --bin codec -- docs --out docs/formats --force` and commit it",
                f.name
            );
            expected.push(f.name.clone());
        }
    }
    assert!(expected.iter().any(|n| n == "aamp.md"));
    // A page of a removed schema or struct is stale too.
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    expected.sort();
    assert_eq!(on_disk, expected);
}

#[test]
fn markdown_tables_spell_out_offsets_and_derived_fields() {
    let md = docs::markdown(&aamp());
    let has = |s: &str| assert!(md.contains(s), "missing {s:?} in\n{md}");
    has("| Offset | Size | Type | Name | Description |");
    has("| 0x00 | 4 | `magic \"AAMP\"` | `magic` | File magic. Always `AAMP`. |");
    // Offset semantics: width, unit, base, target, count, section.
    has("Offset (u16, ×4 bytes, relative to the start of this record) to the elements (`ParameterList`); their number is in `list_count`, placed in section `lists`.");
    has("Offset (u32, in bytes, relative to file offset 0x30) to a `ParameterList` record");
    has("Offset (u24, ×4 bytes, relative to the start of this record) to a `ParameterValue` payload, chosen by `value_type`, placed in the section of its variant.");
    // Derived fields.
    has("**Derived:** the number of elements of `lists`.");
    has("**Derived:** the length of the whole file, end padding included.");
    has("**Derived:** the number of `ParameterList` records in the file");
    has("**Derived:** the length of section `data`, its end padding included.");
    has("**Derived:** the tag of the variant `value` holds (see `ParameterValue`).");
    // Sections in order, with their rules.
    let order: Vec<usize> = [
        "| 1 | `lists` |",
        "| 2 | `objects` |",
        "| 3 | `parameters` |",
        "| 4 | `data` |",
        "| 5 | `strings` |",
    ]
    .iter()
    .map(|s| md.find(s).unwrap_or_else(|| panic!("no {s}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    has("a value reuses equal bytes at any 4-aligned position");
    has("glue hook `data_order` yields the `ParameterObject` records in order");
    // Unions as tables.
    has("| Tag | Name | Type | Size | Section | Description |");
    has("| 13 | `BufferInt` | `i32[] (u32 count before)` | var. | `data` |");
    // Sizes and pictures.
    has("Size: 0x0c (12) bytes.");
    has("Size: variable: 0x30 bytes, then `data_type`.");
    has("![Byte layout of Parameter](aamp-Parameter.svg)");
    // Unknown fields, listed for researchers.
    has("**Unknown.** Length of an unused section");
    has("- `File.unknown_section_size` (at 0x2c, `u32`)");
}

#[test]
fn mediawiki_uses_wikitables_and_escapes_markup() {
    let wiki = docs::mediawiki(&aamp());
    assert!(wiki.starts_with("= aamp format =\n"));
    assert!(wiki.contains("{| class=\"wikitable\"\n! Offset !! Size !! Type !! Name !! Description\n|-\n| 0x00 || 4 || <code>magic \"AAMP\"</code> || <code>magic</code> || File magic. Always <code>AAMP</code>.\n"));
    assert!(wiki.contains("'''Derived:''' the number of elements of <code>lists</code>."));
    assert!(wiki.contains("[[File:aamp-Curve.svg|Byte layout of Curve]]"));
    // Every table is closed, and no cell breaks out of its table.
    assert_eq!(wiki.matches("{|").count(), wiki.matches("\n|}").count());
    for line in wiki
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|-"))
    {
        let cells = line.matches(" || ").count() + 1;
        assert!(cells >= 3, "{line}");
    }
}

#[test]
fn svg_pictures_show_each_field_at_its_bytes() {
    let c = aamp();
    let svgs = docs::svgs(&c);
    let names: Vec<&str> = svgs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "aamp-File.svg",
            "aamp-ParameterList.svg",
            "aamp-ParameterObject.svg",
            "aamp-Parameter.svg",
            "aamp-Curve.svg"
        ]
    );
    let p = &svgs[3].contents;
    assert!(p.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(p.trim_end().ends_with("</svg>"));
    // One box per field plus the legend's three swatches: name, value, value_type.
    assert_eq!(p.matches("<rect ").count(), 3 + 3);
    assert!(p.contains("<title>value @0x4, 3 byte(s): u24 offset ×4 → ParameterValue</title>"));
    // A field across rows is drawn in pieces: Curve's floats cover 7.5 rows.
    let curve = &svgs[4].contents;
    assert_eq!(curve.matches("floats @0x8").count(), 8);
    // A struct of variable size ends in a dashed box.
    assert!(svgs[0].contents.contains("stroke-dasharray"));
    assert!(svgs[0]
        .contents
        .contains("data_type @0x30, variable size: cstring (pad 4)"));
}

#[test]
fn bitfields_unknown_ranges_and_big_arrays_are_documented() {
    let c = fixture();
    let md = docs::markdown(&c);
    assert!(md.contains("Byte order: big endian."), "{md}");
    assert!(md.contains("| 0x08 | 4 | `bits (u32)` | `flags` |"), "{md}");
    assert!(md.contains("Bits of `flags`, low bits first:"));
    assert!(md.contains("| 0 | `enabled` |"));
    assert!(md.contains("| 8–23 | `index` |"));
    assert!(
        md.contains("| 24–31 | `unknown_bits` | **Unknown.** |"),
        "{md}"
    );
    assert!(md.contains("| `bytes[40]` | `blob` |"));
    assert!(
        md.contains("| 6 | `Halves` | `u16[] (u8 count first)` |"),
        "{md}"
    );
    assert!(md.contains("their number is a u16 at the target, before them"));
    // A struct with a pointer after a fixed part: all offsets fixed.
    let svgs = docs::svgs(&c);
    assert!(svgs.iter().any(|f| f.name == "constructs-Node.svg"));
    // Output is stable: generating twice gives the same bytes.
    assert_eq!(
        docs::generate(&c, &DocFormat::ALL),
        docs::generate(&c, &DocFormat::ALL)
    );
}

/// A schema with variants: the page lists them with their features and
/// params, marks fields that only some variants have, and names the fields
/// of other variants below each table.
#[test]
fn variants_features_and_conditional_fields_are_documented() {
    let src = r#"Schema(
        name: "vt",
        endian: Little,
        root: "Header",
        features: [(name: "long", doc: "A longer header.")],
        params: [(name: "row_align", value: 4, doc: "Row alignment.")],
        variants: [
            (name: "Short", doc: "Without the extra field."),
            (name: "Long", doc: "With it.", endian: Big, enable: ["long"], params: {"row_align": 8}),
        ],
        types: [
            Struct(name: "Header", fields: [
                (name: "magic", type: Magic("VT")),
                (name: "legacy", type: U16, when: "!long", doc: "Only in short headers."),
                (name: "extra", type: U32, when: "long", doc: "Only in long headers."),
            ]),
        ],
    )"#;
    let c = codec_schema::parse_str(src, "vt.ron").expect("checks");
    let md = docs::markdown(&c);
    let has = |s: &str| assert!(md.contains(s), "missing {s:?} in\n{md}");
    has("## Variants");
    has("The tables below describe the variant `Short`");
    has("| `Long` |  | big endian | `long` | `row_align = 8` | With it. |");
    has("| `long` | A longer header. |");
    has("| `row_align` | 4 | Row alignment. |");
    has("| 0x02 | 2 | `u16` | `legacy` | Only in short headers. Only in variants where `!long`. |");
    has("In other variants, also:\n\n- `extra` (`u32`), when `long`: Only in long headers.");
    // The other variant's page describes its own fields.
    let long = c.variant("Long").expect("the variant");
    let md = docs::markdown(long);
    assert!(md.contains("Byte order: big endian."), "{md}");
    assert!(md.contains("| 0x02 | 4 | `u32` | `extra` |"), "{md}");
}

/// A sorted section says so in the sections table, and the pool's count
/// says what it counts.
#[test]
fn a_sorted_pool_is_documented_as_sorted() {
    let c = codec_schema::parse_str(
        include_str!("interp_fixtures/sorted_pool.ron"),
        "sorted_pool.ron",
    )
    .unwrap();
    let md = docs::markdown(&c);
    let row = md
        .lines()
        .find(|l| l.contains("| `strings` |"))
        .expect("the strings section's row");
    assert!(
        row.contains("then its strings sorted from the last byte, lowest bit first"),
        "{row}"
    );
    assert!(
        md.contains("how many strings sorted section `strings` holds, the empty one not counted"),
        "{md}"
    );
    assert!(md.contains("pstring (u16 length, NUL-terminated)"), "{md}");
}
