//! A schema is input too (issue 70): researchers share schemas, and
//! `codec explore` takes one by POST. Each hostile schema below once took
//! the machine down (a stack overflow on a 4-byte input, 16 GB for 20
//! bytes, a list that spun for a minute, a checker quadratic in the
//! schema); each must now be refused with an error that names the type or
//! field, within the memory bound of the other tools (256 times the input,
//! at least 512 MiB; most here are held far tighter), counted by a counting
//! allocator as `bounded_tools.rs` counts them.
//!
//! One test function only: the counter is global.

mod counted;

use codec_interp as interp;
use counted::allocated_by;
use std::time::Instant;

/// A schema of one root struct `types` (RON text of its type list).
fn schema(root: &str, sections: &str, types: &str) -> String {
    format!(
        "Schema(name: \"hostile\", endian: Little, root: \"{root}\", sections: [{sections}], types: [{types}])"
    )
}

/// Decodes `data` as the research tools do: the error text, and the bytes
/// allocated doing it (the schema's own check included).
fn run(text: &str, data: &[u8]) -> (usize, Result<(), String>) {
    allocated_by(|| {
        let c = codec_schema::parse_str(text, "hostile.ron").map_err(|d| d.to_string())?;
        let decoded = interp::decode_partial(&c, data, codec_runtime::Limits::default());
        match decoded.error {
            Some(e) => Err(e.to_string()),
            None => Ok(()),
        }
    })
}

/// A chain of `n` structs, each holding the next inline.
fn chain(n: usize) -> String {
    let types: Vec<String> = (0..n)
        .map(|i| {
            let next = if i + 1 < n {
                format!("(name: \"next\", type: Named(\"S{}\")),", i + 1)
            } else {
                String::new()
            };
            format!("Struct(name: \"S{i}\", fields: [(name: \"v\", type: U8), {next}]),")
        })
        .collect();
    schema("S0", "", &types.concat())
}

/// Seconds to parse and check `text` (the fastest of three).
fn check_time(text: &str) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let _ = codec_schema::parse_str(text, "chain.ron");
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn hostile_schemas_are_refused_within_bounds() {
    let mut report = Vec::new();

    // A struct that points back to itself through an offset that cannot be
    // absent: every value holds another, so no file can end. It overflowed
    // the stack building its default value, before a byte was read.
    let looped = schema(
        "Node",
        "Section(name: \"s\")",
        "Struct(name: \"Node\", fields: [(name: \"next\", type: Ptr(width: U32, to: Named(\"Node\"), section: \"s\"))])",
    );
    let (bytes, result) = run(&looped, &[0; 4]);
    let error = result.expect_err("a record that always holds itself is refused");
    assert!(
        error.contains("every `Node` holds another `Node`") && error.contains("Node.next"),
        "{error}"
    );
    assert!(bytes < 1 << 20, "self-pointer: {bytes} bytes");
    report.push(format!("self-pointer: refused by the checker, {bytes} B"));

    // The same made optional is a linked list: it reads, and its end is a 0.
    let linked = looped.replace(
        "Named(\"Node\"), section",
        "Named(\"Node\"), optional: true, section",
    );
    let mut list = Vec::new();
    for i in 1..=3u32 {
        list.extend_from_slice(&(if i < 3 { 4 * i } else { 0 }).to_le_bytes());
    }
    let (_, result) = run(&linked, &list);
    assert_eq!(result, Ok(()), "an optional self-pointer is a linked list");

    // Through a union's variant, a list or an optional offset the chain
    // may end: none of these is refused.
    let ends = schema(
        "Node",
        "Section(name: \"s\")",
        "Struct(name: \"Node\", fields: [(name: \"n\", type: U32, derive: Count(\"kids\")), \
         (name: \"kids\", type: Ptr(width: U32, to: List(of: Named(\"Node\"), count: Field(\"n\")), section: \"s\"))])",
    );
    assert!(
        codec_schema::parse_str(&ends, "ends.ron").is_ok(),
        "a tree through a list is a schema"
    );

    // A 64 GiB array declared, on a 20-byte input: its default was built
    // (16.6 GB in 60 s) before the read found the input short.
    let big = schema(
        "Head",
        "",
        "Struct(name: \"Head\", fields: [(name: \"x\", type: U32), \
         (name: \"big\", type: Array(of: Bytes(1048576), len: 65536))])",
    );
    let (bytes, result) = run(&big, &[1; 20]);
    let error = result.expect_err("the array is longer than the input");
    assert!(error.contains("Head.big[0]"), "{error}");
    assert!(bytes < 1 << 20, "declared 64 GiB: {bytes} bytes");
    report.push(format!("64 GiB array, 20 B input: {bytes} B"));

    // The same array in a field another variant lacks would need a
    // default of 64 GiB in that variant: the checker allows only small
    // defaults there (the reader builds just those, for the fields a
    // variant lacks).
    let variant =
        "Schema(name: \"hostile\", endian: Little, root: \"Head\", features: [(name: \"large\")], \
         variants: [(name: \"small\", enable: []), (name: \"large\", enable: [\"large\"])], \
         types: [Struct(name: \"Head\", fields: [(name: \"x\", type: U32), \
         (name: \"big\", type: Array(of: Bytes(1048576), len: 65536), when: \"large\")])])";
    let (bytes, result) = run(variant, &[1; 4]);
    let error = result.expect_err("a variant's field with a huge default is refused");
    assert!(
        error.contains("types/Head/fields/1") && error.contains("default"),
        "{error}"
    );
    assert!(
        bytes < 1 << 20,
        "a variant's missing 64 GiB field: {bytes} bytes"
    );
    let small = variant.replace("Array(of: Bytes(1048576), len: 65536)", "U16");
    assert_eq!(
        run(&small, &[1; 4]).1,
        Ok(()),
        "the small variant reads its 4 bytes"
    );

    // A list of a struct with no fields, counted by the largest U32 and
    // U64: 2^32 - 1 elements of nothing spun for 52 s, 2^64 - 1 forever;
    // refused by the read budget before an element is made.
    for (width, count) in [("U32", &[0xFF; 4][..]), ("U64", &[0xFF; 8][..])] {
        let empty = schema(
            "Head",
            "",
            &format!(
                "Struct(name: \"Head\", fields: [(name: \"count\", type: {width}), \
                 (name: \"items\", type: List(of: Named(\"Empty\"), count: Field(\"count\")))]), \
                 Struct(name: \"Empty\", fields: [])"
            ),
        );
        let started = Instant::now();
        let (bytes, result) = run(&empty, count);
        let error = result.expect_err("more empty elements than input bytes are refused");
        assert!(
            error.contains("Head.items") && error.contains("refusing"),
            "{error}"
        );
        // Refused before a single element is made: no loop over the count.
        assert!(
            bytes < 1 << 20,
            "{width} count of empty records: {bytes} bytes"
        );
        report.push(format!(
            "{width} count of empty records: {bytes} B, {:.3} s",
            started.elapsed().as_secs_f64()
        ));
    }
    // Elements of nothing are charged to the read budget, a byte each
    // (as BDAT's rows of no columns are): a thousand of them read.
    let some = schema(
        "Head",
        "",
        "Struct(name: \"Head\", fields: [(name: \"count\", type: U16), \
         (name: \"items\", type: List(of: Named(\"Empty\"), count: Field(\"count\")))]), \
         Struct(name: \"Empty\", fields: [])",
    );
    assert_eq!(run(&some, &1000u16.to_le_bytes()).1, Ok(()));

    // A chain of inline records: decoding 20 bytes with 4,000 of them took
    // 3.1 GB (every record's default held the chain below it).
    let (bytes, result) = run(&chain(4000), &[1; 20]);
    let error = result.expect_err("20 bytes hold 20 of the chain's records");
    assert!(error.contains("S0.next.next"), "{error}");
    assert!(bytes < 256 << 20, "4,000-record chain: {bytes} bytes");
    report.push(format!("4,000 inline records, 20 B input: {bytes} B"));

    // The checker is linear in the schema: 8,000 chained records took
    // 12.5 s. Four times the records must take about four times as long,
    // not sixteen (a ratio, so the machine's speed does not matter).
    let (small, large) = (check_time(&chain(2000)), check_time(&chain(8000)));
    assert!(
        large < 8.0 * small,
        "checking 8,000 records took {large:.3} s, 2,000 took {small:.3} s: not linear"
    );
    report.push(format!(
        "checker: 2,000 records {small:.3} s, 8,000 {large:.3} s"
    ));

    // Records nested deeper than any format needs: a clear error naming
    // the path, not a stack overflow, on a thread with the usual 2 MiB.
    let deep = chain(3000);
    let error = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || run(&deep, &[0; 3000]).1)
        .expect("a thread")
        .join()
        .expect("no overflow")
        .expect_err("3,000 nested records are refused");
    assert!(
        error.contains("refusing past 2048") && error.contains("S0.next.next"),
        "{error}"
    );

    println!("{}", report.join("\n"));
}
