//! Diagnostics through `parse_str`: each mistake is reported at its exact
//! `line:col`, with the item path and the hint, and all mistakes of a file
//! come at once, in file order.

use codec_schema::parse_str;

/// The rendered diagnostics of a schema that must fail.
#[track_caller]
fn errors(src: &str) -> String {
    match parse_str(src, "t.ron") {
        Ok(_) => panic!("the schema was accepted"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn the_aamp_schema_is_accepted() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/aamp.ron");
    let c = codec_schema::load(std::path::Path::new(path), "aamp.ron").unwrap();
    assert_eq!(c.root().name, "File");
}

#[test]
fn unknown_type_with_a_suggestion() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    types: [
        Struct(name: "Header", fields: [
            (name: "a", type: U32),
            (name: "b", type: Named("entry")),
        ]),
        Struct(name: "Entry", fields: [(name: "x", type: U8)]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:8:31: types/Header/fields/1: unknown type `entry`\n  hint: did you mean `Entry`?"
    );
}

#[test]
fn unknown_type_without_a_close_name_lists_the_types() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    types: [
        Struct(name: "Header", fields: [(name: "b", type: Named("Body"))]),
        Struct(name: "Footer", fields: [(name: "x", type: U8)]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:6:59: types/Header/fields/0: unknown type `Body`\n  hint: the schema defines: Footer, Header"
    );
}

#[test]
fn duplicate_field_points_at_the_second_name() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    types: [
        Struct(name: "Header", fields: [
            (name: "size", type: U32),
            (name: "size", type: U16),
        ]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:8:20: types/Header/fields/1: duplicate field `size` in `Header`\n  hint: field 0 has the same name; every field needs its own name"
    );
}

#[test]
fn declared_size_is_checked_against_the_fields() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    types: [
        Struct(
            name: "Header",
            size: 0x10,
            fields: [(name: "a", type: U32), (name: "b", type: Array(of: U16, len: 3))],
        ),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:8:19: types/Header: `Header` declares size 0x10, but its fields add up to 0xa"
    );
}

/// The error points at the `count: Field(...)` value, where the mistake is.
#[test]
fn count_that_names_no_field() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    sections: [Section(name: "s")],
    types: [
        Struct(name: "Header", fields: [
            (name: "n", type: U32),
            (name: "l", type: Ptr(width: U32, to: List(of: U8, count: Field("count")), section: "s")),
        ]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:9:71: types/Header/fields/1: count `count` names no field of `Header`\n  hint: fields are: n, l"
    );
}

#[test]
fn union_mistakes_name_the_variant() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    sections: [Section(name: "v")],
    types: [
        Struct(name: "Header", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "Value", tag: "kind"), section: "v")),
        ]),
        Union(name: "Value", tag: U8, variants: [
            (name: "A", tag: 1, type: U32),
            (name: "B", tag: 1, type: U32),
            (name: "C", tag: 300, type: U32),
        ]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:13:30: types/Value/variants/1: tag 1 is already used by `A`\n\
         t.ron:14:30: types/Value/variants/2: tag 300 does not fit the union's tag type"
    );
}

#[test]
fn all_mistakes_are_reported_in_file_order() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    end_align: 3,
    sections: [Section(name: "s", align: 4)],
    types: [
        Struct(name: "Header", fields: [
            (name: "magic", type: Magic("")),
            (name: "p", type: Ptr(width: U32, to: U32, section: "x")),
            (name: "flags", type: Bits(word: U8, fields: [(name: "a", bits: 3)])),
        ]),
    ],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:5:16: end_align: end_align must be a power of two, not 3\n\
         t.ron:9:35: types/Header/fields/0: bad magic literal \"\"\n  \
         hint: a magic is 1 to 16 characters up to U+00FF, one byte each, such as \"AAMP\" or \"\\u{FE}\\u{FF}\"\n\
         t.ron:10:65: types/Header/fields/1: unknown section `x`\n  \
         hint: sections are: s\n\
         t.ron:11:35: types/Header/fields/2: bit widths add up to 3, but the word has 8 bits\n  \
         hint: name every bit: add a reserved range such as (name: \"reserved\", bits: N)"
    );
}

#[test]
fn ron_syntax_errors_have_a_position() {
    let src = "Schema(\n    name: \"t\",\n    endian: Little\n    root: \"A\",\n    types: [],\n)";
    assert_eq!(errors(src), "t.ron:4:5: RON syntax: Expected comma");
}

#[test]
fn unknown_ron_fields_are_syntax_errors() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    types: [Struct(name: "A", feilds: [])],
)"#;
    assert_eq!(
        errors(src),
        "t.ron:5:31: RON syntax: Unexpected field named `feilds` in `Struct`, expected one of `name`, `doc`, `size`, `fields`, `layout`, or `place` instead"
    );
}

#[test]
fn a_missing_file_is_reported_at_its_name() {
    let e = codec_schema::load(std::path::Path::new("/nonexistent/x.ron"), "x.ron").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("x.ron:1:1: cannot read the schema file: "),
        "{e}"
    );
}

// Formerly known bugs.

#[test]
fn raw_strings_do_not_break_positions() {
    let src = r##"Schema(
    name: "t",
    doc: r#"The "t" format"#,
    endian: Little,
    root: "A",
    types: [
        Struct(name: "A", fields: [(name: "y", type: Named("Nope"))]),
    ],
)"##;
    assert!(
        errors(src).starts_with("t.ron:7:54: types/A/fields/0: unknown type `Nope`"),
        "{}",
        errors(src)
    );
}

#[test]
fn a_union_root_is_explained() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "U",
    types: [Union(name: "U", tag: U8, variants: [(name: "A", tag: 0, type: U8)])],
)"#;
    let e = errors(src);
    assert!(e.starts_with("t.ron:4:11: root: "), "{e}");
    assert!(!e.contains("did you mean `U`"), "{e}");
}

#[test]
fn suggestions_are_close_names() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    types: [
        Struct(name: "A", fields: [(name: "x", type: Named("Header"))]),
        Struct(name: "Entry", fields: [(name: "x", type: U8)]),
    ],
)"#;
    let e = errors(src);
    assert!(!e.contains("did you mean `A`"), "{e}");
}

#[test]
fn derived_root_fields_need_a_fixed_offset_unless_the_writer_settles_them() {
    // A section start is patched by the root's step, at its offset.
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    sections: [Section(name: "d")],
    types: [
        Struct(name: "A", fields: [
            (name: "d", type: Ptr(width: U32, to: U8, section: "d")),
            (name: "name", type: CString()),
            (name: "start", type: U32, derive: SectionStart("d")),
        ]),
    ],
)"#;
    assert!(
        errors(src).starts_with("t.ron:10:48: types/A/fields/2: derived field `start` must be at a fixed offset of the root"),
        "{}",
        errors(src)
    );
    // A file size is patched where it was written (`codec_runtime::settled`).
    let settled = src.replace(r#"derive: SectionStart("d")"#, "derive: FileSize");
    assert!(codec_schema::parse_str(&settled, "t.ron").is_ok());
}

#[test]
fn huge_sizes_do_not_panic() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    types: [
        Struct(name: "A", fields: [
            (name: "x", type: Array(of: Array(of: Array(of: Bytes(1048576), len: 65536), len: 65536), len: 4095)),
            (name: "y", type: Array(of: Array(of: Array(of: Bytes(1048576), len: 65536), len: 65536), len: 4095)),
        ]),
    ],
)"#;
    let r = std::panic::catch_unwind(|| parse_str(src, "t.ron")).expect("the checker panicked");
    let e = r.expect_err("the schema was accepted").to_string();
    assert!(
        e.starts_with(
            "t.ron:8:31: types/A/fields/1: size overflows: field `y` of `A` ends past 2^64 bytes"
        ),
        "{e}"
    );
}

/// The rendered diagnostics of a schema made of `sections` and `types`
/// (each a RON list body), rooted at `root`.
#[track_caller]
fn errors_of(root: &str, sections: &str, types: &str) -> String {
    errors(&format!(
        "Schema(\n    name: \"t\",\n    endian: Little,\n    root: \"{root}\",\n    sections: [{sections}],\n    types: [\n{types}\n    ],\n)"
    ))
}

#[test]
fn suggestions_are_sorted_nearest_first_then_by_name() {
    let e = errors_of(
        "Zod",
        "",
        r#"        Struct(name: "Zod", fields: [(name: "x", type: Named("Nod"))]),
        Struct(name: "Rod", fields: [(name: "x", type: U8)]),
        Struct(name: "Nods", fields: [(name: "x", type: U8)]),
        Struct(name: "nod", fields: [(name: "x", type: U8)]),
        Struct(name: "Node", fields: [(name: "x", type: U8)]),"#,
    );
    assert_eq!(
        e,
        "t.ron:7:56: types/Zod/fields/0: unknown type `Nod`\n  hint: did you mean `nod`, `Node` or `Nods`?"
    );
}

#[test]
fn a_misspelt_type_is_suggested_despite_a_transposition() {
    let e = errors_of(
        "Header",
        "",
        r#"        Struct(name: "Header", fields: [(name: "x", type: Named("Entyr"))]),
        Struct(name: "Entry", fields: [(name: "x", type: U8)]),
        Struct(name: "Extra", fields: [(name: "x", type: U8)]),"#,
    );
    assert!(e.ends_with("hint: did you mean `Entry`?"), "{e}");
}

#[test]
fn array_sizes_that_overflow_are_reported() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", fields: [
            (name: "x", type: Array(of: Array(of: Array(of: Array(of: Bytes(1048576), len: 65536), len: 65536), len: 65536), len: 2)),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:41: types/A/fields/0: size overflows: 65536 elements of 0x10000000000000 bytes take more than 2^64 bytes"
    );
}

#[test]
fn struct_sizes_that_overflow_are_reported_at_the_field() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", size: 4, fields: [
            (name: "x", type: Named("Big")),
            (name: "y", type: Named("Big")),
        ]),
        Struct(name: "Big", fields: [
            (name: "a", type: Array(of: Array(of: Array(of: Bytes(1048576), len: 65536), len: 65536), len: 4095)),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:9:31: types/A/fields/1: size overflows: field `y` of `A` ends past 2^64 bytes (0xfff0000000000000 + 0xfff0000000000000)"
    );
}

#[test]
fn bits_only_as_a_direct_struct_field() {
    let e = errors_of(
        "A",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "A", fields: [
            (name: "a", type: Array(of: Bits(word: U8, fields: [(name: "x", bits: 8)]), len: 2)),
            (name: "p", type: Ptr(width: U32, to: Bits(word: U8, fields: [(name: "x", bits: 8)]), section: "s")),
            (name: "k", type: U8, derive: Tag("v")),
            (name: "v", type: Ptr(width: U32, to: Switch(union: "U", tag: "k"), section: "s")),
        ]),
        Union(name: "U", tag: U8, variants: [
            (name: "B", tag: 0, type: Bits(word: U8, fields: [(name: "x", bits: 8)])),
        ]),"#,
    );
    let hint =
        "\n  hint: wrap it in a struct with the `Bits` as its field, and use that struct here";
    assert_eq!(
        e,
        format!(
            "t.ron:8:41: types/A/fields/0: a bitfield can only be a direct field of a struct, not an array or list element{hint}\n\
             t.ron:9:51: types/A/fields/1: a bitfield can only be a direct field of a struct, not an offset target{hint}\n\
             t.ron:14:39: types/U/variants/0: a bitfield can only be a direct field of a struct, not a union payload{hint}"
        )
    );
}

#[test]
fn bitfield_struct_names_must_not_collide() {
    let bits = r#"Bits(word: U8, fields: [(name: "x", bits: 8)])"#;
    let e = errors_of(
        "A",
        "",
        &format!(
            r#"        Struct(name: "A", fields: [
            (name: "flags", type: {bits}),
            (name: "b_c", type: {bits}),
            (name: "inner", type: Named("AB")),
        ]),
        Struct(name: "AB", fields: [(name: "c", type: {bits})]),
        Struct(name: "AFlags", fields: [(name: "x", type: U8)]),"#
        ),
    );
    assert_eq!(
        e,
        "t.ron:8:20: types/A/fields/0: the bitfield `A.flags` generates a struct named `AFlags`, which is also a type of the schema\n  \
         hint: rename the field `flags` or the type `AFlags`\n\
         t.ron:12:44: types/AB/fields/0: the bitfields `A.b_c` and `AB.c` both generate a struct named `ABC`\n  \
         hint: rename one of the fields"
    );
}

#[test]
fn offsets_inside_a_union_payload_are_refused_unless_written_in_place() {
    let variants = r#"        Struct(name: "Outer", fields: [(name: "labels", type: Array(of: Named("Label"), len: 2))]),
        Struct(name: "Label", fields: [(name: "name", type: Ptr(width: U32, to: CString(), section: "s"))]),
        Union(name: "Value", tag: U8, variants: [
            (name: "Int", tag: 0, type: I32),
            (name: "Label", tag: 1, type: Named("Label")),
            (name: "Outer", tag: 2, type: Named("Outer")),
            (name: "Labels", tag: 3, type: List(of: Named("Label"), count: Prefix(U8))),
        ]),"#;
    let msg = |path: &str| {
        format!(
            "offsets inside this union payload are not placed\n  \
             hint: `{path}` is an offset; a payload may hold offsets only when it is a struct and its union is \
             a `Switch` field of a record (written in place, as an event's slots), not behind an offset nor a list of records"
        )
    };
    // Behind an offset: no payload is visited, so each holding an offset
    // is refused.
    let e = errors_of(
        "Rec",
        r#"Section(name: "v"), Section(name: "s")"#,
        &format!(
            r#"        Struct(name: "Rec", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "Value", tag: "kind"), section: "v")),
        ]),
{variants}"#
        ),
    );
    assert_eq!(
        e,
        format!(
            "t.ron:15:43: types/Value/variants/1: {}\n\
             t.ron:16:43: types/Value/variants/2: {}\n\
             t.ron:17:44: types/Value/variants/3: {}",
            msg("Label.name"),
            msg("Label.name"),
            msg("Label.name")
        )
    );
    // A `Switch` field of the record (payloads of one size, written in
    // place): a struct payload is visited where it lies; an array of
    // records still is not.
    let e = errors_of(
        "Rec",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "Rec", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Switch(union: "Value", tag: "kind")),
        ]),
        Struct(name: "Label", fields: [(name: "name", type: Ptr(width: U32, to: CString(), section: "s"))]),
        Union(name: "Value", tag: U8, variants: [
            (name: "Int", tag: 0, type: I32),
            (name: "Label", tag: 1, type: Named("Label")),
            (name: "Labels", tag: 2, type: Array(of: Named("Label"), len: 1)),
        ]),"#,
    );
    assert_eq!(
        e,
        format!("t.ron:15:44: types/Value/variants/2: {}", msg("Label.name"))
    );
}

#[test]
fn records_are_refused_in_dedup_sections_but_payloads_are_not() {
    let e = errors_of(
        "Head",
        r#"Section(name: "items", dedup: Exact), Section(name: "blocks", dedup: ByteSearch(align: 4))"#,
        r#"        Struct(name: "Head", fields: [
            (name: "count", type: U32, derive: Count("items")),
            (name: "items", type: Ptr(width: U32, to: List(of: Named("Item"), count: Field("count")), section: "items")),
            (name: "block", type: Ptr(width: U32, to: Array(of: Named("Item"), len: 2), section: "blocks")),
            (name: "bytes", type: Ptr(width: U32, to: List(of: U8, count: Prefix(U8)), section: "items")),
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "Value", tag: "kind"), section: "items")),
        ]),
        Struct(name: "Item", size: 2, fields: [(name: "a", type: U16)]),
        Union(name: "Value", tag: U8, variants: [(name: "Item", tag: 0, type: Named("Item"))]),"#,
    );
    let hint = "\n  hint: a dedup section shares equal bytes between values, but records must stay distinct: \
                a record's bytes are not final until its offsets are patched, and RecordCount counts each record; \
                place the records in a section with `dedup: None`";
    assert_eq!(
        e,
        format!(
            "t.ron:9:112: types/Head/fields/1: `Head.items` places `Item` records in section `items`, which deduplicates (Exact){hint}\n\
             t.ron:10:98: types/Head/fields/2: `Head.block` places `Item` records in section `blocks`, which deduplicates (ByteSearch){hint}"
        )
    );
}

#[test]
fn post_order_sections_must_not_hold_what_places_into_them() {
    let e = errors_of(
        "Root",
        r#"Section(name: "nodes", order: PostOrder), Section(name: "leaves", order: PostOrder)"#,
        r#"        Struct(name: "Root", fields: [
            (name: "top", type: Ptr(width: U32, to: Named("Node"), section: "nodes")),
            (name: "leaf", type: Ptr(width: U32, to: Named("Leaf"), section: "leaves")),
        ]),
        Struct(name: "Node", fields: [
            (name: "n", type: U16, derive: Count("children")),
            (name: "children", type: Ptr(width: U32, to: List(of: Named("Node"), count: Field("n")), section: "nodes")),
            (name: "leaf", type: Ptr(width: U32, to: Named("Leaf"), section: "leaves")),
        ]),
        Struct(name: "Leaf", fields: [(name: "x", type: U32)]),"#,
    );
    let hint = "\n  hint: post-order places what a record leads to before the record itself, so the target's own \
                targets would be placed (and their offsets patched) before the target is written; \
                order `nodes` PreOrder, or send one of the two to another section";
    assert_eq!(
        e,
        format!(
            "t.ron:8:77: types/Root/fields/0: `Root.top` places its target in post-order section `nodes`, but the target itself places values in `nodes`{hint}\n\
             t.ron:13:111: types/Node/fields/1: `Node.children` places its target in post-order section `nodes`, but the target itself places values in `nodes`{hint}"
        )
    );
}

#[test]
fn an_offset_to_an_inline_array_of_its_own_struct_is_refused() {
    let e = errors_of(
        "Node",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "Node", fields: [
            (name: "kids", type: Ptr(width: U32, to: Array(of: Named("Node"), len: 2), section: "s")),
            (name: "pair", type: Ptr(width: U32, to: Array(of: Named("Pair"), len: 1), section: "s")),
            (name: "boxed", type: Ptr(width: U32, to: Named("Node"), section: "s")),
        ]),
        Struct(name: "Pair", fields: [(name: "a", type: Named("Half"))]),
        Struct(name: "Half", fields: [(name: "back", type: Ptr(width: U32, to: Array(of: Named("Node"), len: 1), section: "s"))]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:54: types/Node/fields/0: offset `Node.kids` points to an inline array of `Node` itself: the generated Rust type would be infinitely large\n  \
         hint: use a List, whose elements are kept in a Vec: `to: List(of: Named(\"Node\"), count: ...)`\n\
         t.ron:9:54: types/Node/fields/1: offset `Node.pair` points to an inline array of `Pair`, which holds `Node` again: the generated Rust type would be infinitely large\n  \
         hint: use a List, whose elements are kept in a Vec: `to: List(of: Named(\"Pair\"), count: ...)`\n\
         t.ron:13:80: types/Half/fields/0: offset `Half.back` points to an inline array of `Node`, which holds `Half` again: the generated Rust type would be infinitely large\n  \
         hint: use a List, whose elements are kept in a Vec: `to: List(of: Named(\"Node\"), count: ...)`"
    );
}

#[test]
fn record_count_of_a_union_is_refused() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", fields: [(name: "n", type: U32, derive: RecordCount("U"))]),
        Union(name: "U", tag: U8, variants: [(name: "X", tag: 0, type: U8)]),"#,
    );
    assert_eq!(
        e,
        "t.ron:7:67: types/A/fields/0: `U` is a union, and unions have no records to count\n  \
         hint: RecordCount counts the records of a struct"
    );
}

#[test]
fn the_tag_field_has_the_union_tag_width() {
    let e = errors_of(
        "A",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "A", fields: [
            (name: "kind", type: U16, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "U", tag: "kind"), section: "s")),
        ]),
        Union(name: "U", tag: U8, variants: [(name: "X", tag: 0, type: U8)]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:34: types/A/fields/0: tag field `kind` is a U16, but union `U` has a U8 tag\n  \
         hint: the tag field holds the union's tag: make `kind` a U8"
    );
}

#[test]
fn union_tag_types_include_u64() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", fields: [(name: "x", type: U8)]),
        Union(name: "U", tag: I8, variants: [(name: "X", tag: 0, type: U8)]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:31: types/U: a union's tag must be an unsigned integer type (U8, U16, U24, U32, U64)"
    );
}

#[test]
fn the_name_hint_allows_a_leading_underscore() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", fields: [(name: "1x", type: U8)]),"#,
    );
    assert_eq!(
        e,
        "t.ron:7:43: types/A/fields/0: `1x` is not a usable name\n  \
         hint: names are ASCII letters, digits and `_`, starting with a letter or `_`"
    );
}

#[test]
fn a_derive_that_names_no_field_says_so() {
    let e = errors_of(
        "A",
        "",
        r#"        Struct(name: "A", fields: [
            (name: "n", type: U32, derive: Count("zz")),
            (name: "t", type: U8, derive: Tag("entires")),
            (name: "entries", type: U8),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:44: types/A/fields/0: `zz` names no field of `A`\n  \
         hint: fields are: n, t, entries\n\
         t.ron:9:43: types/A/fields/1: `entires` names no field of `A`\n  \
         hint: did you mean `entries`?"
    );
}

#[test]
fn a_misnamed_count_is_reported_once_at_the_count() {
    let e = errors_of(
        "A",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "A", fields: [
            (name: "entry_count", type: U32, derive: Count("entries")),
            (name: "entries", type: Ptr(width: U32, to: List(of: U32, count: Field("entry_cnt")), section: "s")),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:9:78: types/A/fields/1: count `entry_cnt` names no field of `A`\n  \
         hint: did you mean `entry_count`? It is derived with `Count(\"entries\")`"
    );
}

#[test]
fn a_switch_on_a_struct_is_explained() {
    let e = errors_of(
        "A",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "A", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "A", tag: "kind"), section: "s")),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:9:55: types/A/fields/1: `A` is a struct, but a Switch chooses a variant of a union\n  \
         hint: point the offset at the struct: `to: Named(\"A\")`"
    );
}

#[test]
fn a_checked_schema_keeps_positions_for_later_diagnostics() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    sections: [
        Section(name: "d", order: Hook(name: "h", visits: "A")),
    ],
    types: [Struct(name: "A", fields: [(name: "p", type: Ptr(width: U32, to: U8, section: "d"))])],
)"#;
    use codec_schema::locate::{Pos, Step};
    let c = parse_str(src, "t.ron").unwrap();
    assert_eq!(c.file(), "t.ron");
    let at = [Step::from("sections"), Step::Index(0), Step::from("order")];
    assert_eq!(c.position(&at), Pos { line: 6, col: 35 });
}

#[test]
fn align_by_names_an_earlier_unsigned_field() {
    let e = errors_of(
        "Blob",
        "",
        r#"        Struct(name: "Blob", fields: [
            (name: "size", type: U32, derive: Count("data")),
            (name: "scale", type: F32),
            (name: "data", type: List(of: U8, count: Field("size")), align_by: "scale"),
            (name: "more", type: List(of: U8, count: Field("size")), align_by: "later"),
            (name: "rest", type: List(of: U8, count: Field("size")), align_by: "alignmnt"),
            (name: "later", type: U32),
            (name: "alignment", type: U32),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:10:80: types/Blob/fields/2: `data` is aligned by `scale`, which is not an unsigned integer\n  \
         hint: an alignment is a U8, U16, U24, U32 or U64 field\n\
         t.ron:11:80: types/Blob/fields/3: `more` is aligned by `later`, which comes after it\n  \
         hint: the alignment is read before the field it aligns; declare it earlier\n\
         t.ron:12:80: types/Blob/fields/4: `rest` is aligned by `alignmnt`, which is not a field of `Blob`\n  \
         hint: did you mean `alignment`?"
    );
}

#[test]
fn a_payload_offset_cannot_count_from_a_record() {
    let e = errors_of(
        "Rec",
        r#"Section(name: "v")"#,
        r#"        Struct(name: "Rec", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Switch(union: "Word", tag: "kind")),
        ]),
        Union(name: "Word", tag: U8, variants: [
            (name: "Int", tag: 0, type: I32),
            (name: "Far", tag: 1, type: Ptr(width: U32, base: Record, to: I64, section: "v")),
            (name: "Near", tag: 2, type: Ptr(width: U32, base: Absolute(8), to: I64, section: "v")),
        ]),"#,
    );
    // `Near` counts from a fixed position, which a payload may.
    assert_eq!(
        e,
        "t.ron:13:63: types/Word/variants/1: an offset held as a union's payload cannot count from a record, a unit or a section\n  \
         hint: use the default `File` base or `Absolute(n)`: the word is stored apart from any record"
    );
}

#[test]
fn shares_equal_names_a_shared_section_and_follows_the_roots_offsets() {
    let e = errors_of(
        "Top",
        r#"Section(name: "boxes", dedup: Shared), Section(name: "plain")"#,
        r#"        Struct(name: "Top", fields: [
            (name: "early", type: SharesEqual(section: "boxes")),
            (name: "first", type: Ptr(width: U32, to: Named("Box"), section: "boxes")),
            (name: "unshared", type: SharesEqual(section: "plain")),
            (name: "typo", type: SharesEqual(section: "boxs")),
            (name: "fine", type: SharesEqual(section: "boxes")),
        ]),
        Struct(name: "Box", fields: [
            (name: "x", type: U32),
            (name: "inner", type: SharesEqual(section: "boxes")),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:8:35: types/Top/fields/0: `early` comes before an offset field of `Top`\n  \
         hint: it is found once every offset is followed: move it after them\n\
         t.ron:10:59: types/Top/fields/2: section `plain` does not share records\n  \
         hint: `SharesEqual` keeps the choice of a section with `dedup: Shared`\n\
         t.ron:11:55: types/Top/fields/3: unknown section `boxs`\n  \
         hint: sections are: boxes, plain\n\
         t.ron:16:35: types/Box/fields/1: `SharesEqual` is a field of the root struct `Top`"
    );
}

/// A schema with a map whose entries take their value's tag from the map
/// (`tag: "types[i]"`); `map` and `entry` replace the two structs' fields.
fn held_tag_schema(map: &str, entry: &str) -> String {
    format!(
        r#"Schema(
    name: "t",
    endian: Little,
    root: "Map",
    types: [
        Struct(name: "Map", fields: [
{map}
        ]),
        Struct(name: "MapEntry", fields: [
{entry}
        ]),
        Union(name: "Node", tag: U8, variants: [
            (name: "Int", tag: 1, type: I32),
            (name: "Float", tag: 2, type: F32),
        ]),
    ],
)"#
    )
}

const MAP_OK: &str = r#"            (name: "count", type: U32, derive: Count("entries")),
            (name: "entries", type: List(of: Named("MapEntry"), count: Field("count")), sort_by: "hash"),
            (name: "types", type: List(of: U8, count: Field("count")), derive: Tags("entries.value")),"#;
const ENTRY_OK: &str = r#"            (name: "hash", type: U32),
            (name: "value", type: Switch(union: "Node", tag: "types[i]")),"#;

#[test]
fn a_held_tag_checks() {
    parse_str(&held_tag_schema(MAP_OK, ENTRY_OK), "t.ron").expect("the schema checks");
}

#[test]
fn a_held_tag_that_no_holder_derives_names_the_field_to_add() {
    let map = r#"            (name: "count", type: U32, derive: Count("entries")),
            (name: "entries", type: List(of: Named("MapEntry"), count: Field("count"))),"#;
    let e = errors(&held_tag_schema(map, ENTRY_OK));
    assert!(
        e.contains("`MapEntry.value` takes its tag from `types[i]`, but `Map` has no field `types` deriving it")
            && e.contains(r#"derive: Tags("entries.value")"#),
        "{e}"
    );
}

#[test]
fn held_tags_must_follow_their_list_and_name_a_switch_that_takes_them() {
    // Something between the list and its tags.
    let map = r#"            (name: "count", type: U32, derive: Count("entries")),
            (name: "entries", type: List(of: Named("MapEntry"), count: Field("count"))),
            (name: "gap", type: U32),
            (name: "types", type: List(of: U8, count: Field("count")), derive: Tags("entries.value")),"#;
    let e = errors(&held_tag_schema(map, ENTRY_OK));
    assert!(e.contains("`types` must directly follow `entries`"), "{e}");
    // Document order needs the tags in the elements.
    let map = MAP_OK.replace(
        r#"sort_by: "hash")"#,
        r#"sort_by: "hash", visit: Document)"#,
    );
    let e = errors(&held_tag_schema(&map, ENTRY_OK));
    assert!(
        e.contains("`entries` cannot keep its document order"),
        "{e}"
    );
    // Tags of a field that is no Switch taking them.
    let entry = r#"            (name: "hash", type: U32),
            (name: "value", type: U32),"#;
    let e = errors(&held_tag_schema(MAP_OK, entry));
    assert!(
        e.contains("`MapEntry.value` must be a Switch that takes its tag from this list"),
        "{e}"
    );
    // Elements of variable size: the tags' position is not known.
    let entry = r#"            (name: "hash", type: U32),
            (name: "value", type: Switch(union: "Node", tag: "types[i]")),
            (name: "name", type: CString()),"#;
    let e = errors(&held_tag_schema(MAP_OK, entry));
    assert!(
        e.contains("the elements of `entries` must have a fixed size"),
        "{e}"
    );
}

#[test]
fn a_held_tag_outside_a_list_is_refused() {
    let map = format!("{MAP_OK}\n            (name: \"single\", type: Named(\"MapEntry\")),");
    let e = errors(&held_tag_schema(&map, ENTRY_OK));
    assert!(
        e.contains("`MapEntry` takes its tag from the list that holds it, but `Map.single` holds it outside a list"),
        "{e}"
    );
}

#[test]
fn reserved_tags_may_not_be_a_variants_or_too_wide() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    types: [
        Struct(name: "Header", fields: [
            (name: "kind", type: U8, derive: Tag("value")),
            (name: "value", type: Ptr(width: U32, to: Switch(union: "Node", tag: "kind"), section: "s")),
        ]),
        Union(name: "Node", tag: U8, variants: [
            (name: "Int", tag: 1, type: I32),
        ], reserved: [
            (tag: 1, name: "Other", doc: "clashes"),
            (tag: 300, name: "Wide"),
        ]),
    ],
    sections: [Section(name: "s")],
)"#;
    let e = errors(src);
    assert!(e.contains("tag 1 is already used by `Int`"), "{e}");
    assert!(
        e.contains("tag 300 does not fit the union's tag type"),
        "{e}"
    );
}

#[test]
fn an_inline_list_must_hold_a_union_with_word_leaves() {
    // A list of U32s (not a union's words), and a union whose only variant
    // is an offset: neither has leaves a word holds.
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "Header",
    sections: [Section(name: "s")],
    types: [
        Struct(name: "Header", fields: [
            (name: "n", type: U32, derive: Count("l")),
            (name: "l", type: Ptr(width: U32, to: Named("Words"), section: "s")),
            (name: "m", type: Ptr(width: U32, to: Named("Ptrs"), section: "s")),
        ]),
        Struct(name: "Words", fields: [
            (name: "n", type: U32, derive: Count("items")),
            (name: "items", type: List(of: U32, count: Field("n")), inline: true),
        ]),
        Struct(name: "Ptrs", fields: [
            (name: "n", type: U8, derive: Count("items")),
            (name: "types", type: List(of: U8, count: Field("n")), derive: Tags("items")),
            (name: "items", type: List(of: Switch(union: "P", tag: "types"), count: Field("n")), inline: true),
        ]),
        Union(name: "P", tag: U8, variants: [
            (name: "Far", tag: 1, type: Ptr(width: U32, to: U64, section: "s")),
        ]),
    ],
)"#;
    let e = errors(src);
    let hits: Vec<&str> = e
        .lines()
        .filter(|l| l.contains("inline field `items`"))
        .collect();
    assert_eq!(hits.len(), 2, "{e}");
    assert!(hits[0].contains("types/Words/fields/1"), "{e}");
    assert!(hits[1].contains("types/Ptrs/fields/2"), "{e}");
    assert!(
        e.contains("hint: write `type: List(of: Switch(union: .., tag: ..), ..), inline: true`"),
        "{e}"
    );
}

#[test]
fn a_record_end_needs_a_record_of_fixed_size() {
    let src = r#"Schema(
    name: "t",
    endian: Little,
    root: "A",
    types: [
        Struct(name: "A", fields: [
            (name: "end", type: U32, derive: RecordEnd),
            (name: "name", type: CString()),
        ]),
    ],
)"#;
    let e = errors(src);
    assert!(
        e.starts_with(
            "t.ron:7:46: types/A/fields/0: `end` (derive: RecordEnd) is where `A` ends, but `A` has no fixed size"
        ),
        "{e}"
    );
    // Fixed: accepted.
    let fixed = src.replace("CString()", "U32");
    parse_str(&fixed, "t.ron").expect("a record of fixed size may give its end");
}

#[test]
fn a_placing_order_names_fields_that_lead_somewhere_once() {
    let e = errors_of(
        "Rec",
        r#"Section(name: "s")"#,
        r#"        Struct(name: "Rec", place: ["cases", "parms", "n", "cases"], fields: [
            (name: "n", type: U16),
            (name: "params", type: Ptr(width: U32, to: CString(), section: "s")),
            (name: "cases", type: Ptr(width: U32, to: CString(), section: "s")),
        ]),"#,
    );
    assert_eq!(
        e,
        "t.ron:7:46: types/Rec/place: `parms` names no field of `Rec`\n  hint: did you mean `params`?\n\
         t.ron:7:55: types/Rec/place: `Rec.n` leads to no placed data\n  \
         hint: `place` orders the fields whose offsets lead to data placed elsewhere\n\
         t.ron:7:60: types/Rec/place: `cases` is listed twice\n  hint: each field has one place in the order"
    );
}
