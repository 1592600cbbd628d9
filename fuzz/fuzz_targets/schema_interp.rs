//! A schema is input too (issue 70): schemas made from the fuzzer's bytes
//! (records of numbers, byte runs, arrays, inline records, offsets that
//! may be optional, lists counted by a field, strings and magics, pointing
//! at each other in any way, loops included) are checked, and each that
//! checks reads a small input with the interpreter. Neither may panic,
//! hang or take memory beyond the input's bound; what reads whole writes
//! back, and what it writes reads back to the same document.
#![no_main]

use codec_interp as interp;
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

/// The fuzzer's bytes, taken one at a time (zeros once they run out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn below(&mut self, n: u8) -> u8 {
        self.next() % n
    }
}

/// A field type for record `me` of `n` records, from the bytes; `count`
/// names an earlier field of the record that a list may be counted by.
fn field_type(b: &mut Bytes<'_>, n: u8, count: Option<&str>, depth: u8) -> String {
    let named = |b: &mut Bytes<'_>| format!("Named(\"S{}\")", b.below(n));
    match b.below(if depth > 2 { 6 } else { 12 }) {
        0 => "U8".into(),
        1 => "U16".into(),
        2 => "U32".into(),
        3 => "U64".into(),
        4 => format!("Bytes({})", b.below(5)),
        5 => format!("Magic(\"{}\")", ["A", "AB", "YB", "\\u{0}"][b.below(4) as usize]),
        6 => named(b),
        7 => format!(
            "Array(of: {}, len: {})",
            field_type(b, n, None, depth + 1),
            b.below(4)
        ),
        8 => format!(
            "Ptr(width: {}, to: {}, section: \"s\"{})",
            ["U16", "U32"][b.below(2) as usize],
            named(b),
            if b.below(2) == 0 { ", optional: true" } else { "" }
        ),
        9 => match count {
            Some(c) => format!(
                "Ptr(width: U32, to: List(of: {}, count: Field(\"{c}\")), section: \"s\")",
                field_type(b, n, None, depth + 1)
            ),
            None => "U32".into(),
        },
        10 => "CString()".into(),
        _ => format!("CString(size: {})", 1 + b.below(4)),
    }
}

/// A schema of up to eight records, each of up to six fields.
fn schema(b: &mut Bytes<'_>) -> String {
    let n = 1 + b.below(8);
    let mut types = String::new();
    for i in 0..n {
        let _ = write!(types, "Struct(name: \"S{i}\", fields: [");
        let mut count = None;
        for f in 0..b.below(7) {
            let ty = field_type(b, n, count.as_deref(), 0);
            let _ = write!(types, "(name: \"f{f}\", type: {ty}),");
            if ty.starts_with('U') && !ty.starts_with("U64") {
                count = Some(format!("f{f}"));
            }
        }
        types.push_str("]),");
    }
    format!(
        "Schema(name: \"fuzzed\", endian: {}, root: \"S0\", sections: [Section(name: \"s\", order: {})], types: [{types}])",
        ["Little", "Big"][b.below(2) as usize],
        ["PreOrder", "PostOrder", "DepthFirst"][b.below(3) as usize],
    )
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let text = schema(&mut b);
    // The rest of the bytes are the file the schema reads.
    let input = b.0;
    let Ok(c) = codec_schema::parse_str(&text, "fuzzed.ron") else {
        return;
    };
    let limits = codec_runtime::Limits::default();
    let d = interp::decode_partial(&c, input, limits);
    if d.error.is_some() {
        return;
    }
    let value = d.root.to_value();
    let Ok(bytes) = interp::encode(&c, &value, &interp::NoHooks) else {
        return;
    };
    let back = interp::decode_partial(&c, &bytes, limits);
    // What was written reads whole (a writer may refuse, never write what
    // its reader refuses).
    assert!(back.error.is_none(), "{text}: {:?}", back.error);
    let again = back.root.to_value();
    if let Ok(bytes2) = interp::encode(&c, &again, &interp::NoHooks) {
        assert_eq!(bytes, bytes2, "{text}: not a fixed point");
    }
});
