//! A sorted section (`Section(sort: ...)`): strings placed where the walk
//! meets them, then laid out again in the section's order with every
//! offset to them following (issue 73: NintendoWare's `STR ` pools). The
//! compiled codec and the interpreter write the same bytes; a string
//! renamed moves to its place in the order. The 15 corpus pools are
//! rebuilt through such a section in
//! `formats/tests/nintendoware_constructs.rs`.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/sorted_pool.ron", serde);
}

use codec_interp as interp;

const SCHEMA: &str = include_str!("interp_fixtures/sorted_pool.ron");

fn doc(names: &[&str]) -> compiled::File {
    compiled::File {
        pool: compiled::Pool {
            next: 0,
            reserved: 0,
        },
        title: "flow".into(),
        names: names
            .iter()
            .enumerate()
            .map(|(i, n)| compiled::Name {
                id: i as u32,
                pad: 0,
                name: (*n).into(),
            })
            .collect(),
    }
}

/// The pool's strings in file order, read back from the bytes.
fn pool(b: &[u8], at: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = at;
    while p + 2 <= b.len() {
        let n = u16::from_le_bytes([b[p], b[p + 1]]) as usize;
        if p + 2 + n >= b.len() {
            break;
        }
        out.push(String::from_utf8(b[p + 2..p + 2 + n].to_vec()).unwrap());
        p += (2 + n + 1).next_multiple_of(2);
    }
    out
}

#[test]
fn strings_are_sorted_once_each_and_every_offset_follows() {
    let d = doc(&["Zora", "", "Gerudo", "Zora", "Rito"]);
    let b = compiled::encode(&d).unwrap();
    // Header 20, records at 24 (5 × 16), the pool's header at 104 (its
    // count: 4 strings, the empty one left out), its strings at 124.
    let head = 24 + 5 * 16;
    assert_eq!(&b[head..head + 4], b"STR ");
    assert_eq!(
        u32::from_le_bytes(b[head + 16..head + 20].try_into().unwrap()),
        4
    );
    let at = head + 20;
    // Reversed bits: "" first; then by the last byte's bits from the
    // lowest: 'a' (0x61: bit 0 set) after 'o' (0x6F) …
    let mut expect: Vec<String> = ["", "Zora", "Gerudo", "Rito", "flow"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    expect.sort_by(|a, b| codec_runtime::sorted_values::reversed_bits(a.as_bytes(), b.as_bytes()));
    assert_eq!(pool(&b, at), expect);
    assert_eq!(compiled::decode(&b).unwrap(), d);
    // The interpreter: the same bytes.
    let c = codec_schema::parse_str(SCHEMA, "sorted_pool.ron").unwrap();
    let v = interp::to_value(&d).unwrap();
    assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), b);
    // Renamed: the string moves to its place, its offsets with it.
    let mut e = d.clone();
    e.names[0].name = "Goron".into();
    e.names[3].name = "Goron".into();
    let b2 = compiled::encode(&e).unwrap();
    assert_eq!(compiled::decode(&b2).unwrap(), e);
    let v = interp::to_value(&e).unwrap();
    assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), b2);
    assert!(pool(&b2, at).contains(&"Goron".to_string()));
    assert!(!pool(&b2, at).contains(&"Zora".to_string()));
}

#[test]
fn a_sorted_section_of_what_is_not_a_string_is_refused() {
    let e = codec_schema::parse_str(
        &SCHEMA.replace(
            r#"(name: "pad", type: U32),"#,
            r#"(name: "pad", type: Ptr(width: U32, to: U32, section: "strings")),"#,
        ),
        "t.ron",
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("sorted section `strings` holds"), "{e}");
    assert!(e.contains("which is not a string"), "{e}");
    let e = codec_schema::parse_str(
        &SCHEMA.replace(
            r#"(name: "title", type: Ptr(width: U32, to: PString(len: U16, nul: true)"#,
            r#"(name: "title", type: Ptr(width: U32, to: CString()"#,
        ),
        "t.ron",
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(e.contains("holds strings of more than one form"), "{e}");
    // A count of the strings of a section that is not sorted.
    let e = codec_schema::parse_str(&SCHEMA.replace(", sort: ReversedBits", ""), "t.ron")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("section `strings` is not sorted, so its strings are not counted"),
        "{e}"
    );
}

/// The views read a pool's strings where they lie, as decode reads them
/// (`ViewCx::pstr`), and refuse an entry whose NUL is missing at its byte.
#[test]
fn views_read_the_pools_strings_in_place() {
    let d = doc(&["Zora", "", "Gerudo"]);
    let b = compiled::encode(&d).unwrap();
    let src = compiled::view::source(&b);
    let file = compiled::view::open(&src).unwrap();
    let names = file.names().unwrap();
    let read: Vec<String> = (0..names.len())
        .map(|i| {
            let n = names.get(i).unwrap();
            n.name().unwrap().to_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(read, ["Zora", "", "Gerudo"]);
    assert_eq!(file.title().unwrap(), "flow");
    // "Gerudo"'s NUL made an 'x': the view and decode both refuse it there.
    let at = file.names().unwrap().get(2).unwrap().name().unwrap().at() as usize;
    let mut broken = b.clone();
    broken[at + 6] = b'x';
    let src = compiled::view::source(&broken);
    let file = compiled::view::open(&src).unwrap();
    let e = file.names().unwrap().get(2).unwrap().name().unwrap_err();
    assert_eq!(e.offset(), (at + 6) as u64, "{e}");
    let d = compiled::decode(&broken).unwrap_err();
    assert_eq!(d.offset(), e.offset(), "{d}");
}
