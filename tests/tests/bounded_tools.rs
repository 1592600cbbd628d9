//! Bounded memory in the research tools and the compression layers (issue
//! 47, cases 11 and 12), counted: the hostile files of
//! `formats/tests/common/hostile.rs` go through what `codec dump`,
//! `coverage` and `survey` run (the schema interpreter with the built-in
//! schemas and glue) and through the layers `check`, `to-text` and `survey`
//! peel, under a counting allocator. Each must be refused with an error
//! that names the offset and field path, having allocated no more than 256
//! times its input or 512 MiB, whichever is larger (every byte allocated is
//! counted, freed or not: an upper bound of the peak).
//!
//! One test function only: the counter is global.

mod counted;

use counted::{allocated_by, bound};
#[path = "../../formats/tests/common/hostile.rs"]
mod hostile;

use codec_interp as interp;
use formats::layer::{Dictionaries, Layer};

/// The built-in schema of `file` (`sarc.ron`, ...), checked.
fn schema(source: &str, file: &str) -> codec_schema::Checked {
    codec_schema::parse_str(source, file).expect("the built-in schema checks")
}

/// Interprets `data` as the research tools do; returns the error text.
fn interpret(c: &codec_schema::Checked, data: &[u8]) -> (usize, Option<String>) {
    let (bytes, decoded) = allocated_by(|| {
        interp::decode_partial_with(
            c,
            data,
            codec_runtime::Limits::default(),
            &formats::interp_hooks::Glue,
        )
    });
    (bytes, decoded.error.map(|e| e.to_string()))
}

#[test]
fn hostile_files_are_refused_within_the_memory_bound() {
    let mut report = Vec::new();
    let sarc = schema(formats::sarc::schema::SCHEMA_SOURCE, "schemas/sarc.ron");
    let byml = schema(formats::byml::schema::SCHEMA_SOURCE, "schemas/byml.ron");

    // Case 11: 2,000 file-table entries over one shared MiB.
    let overlap = hostile::overlapping_sarc(2000, 1 << 20);
    let (bytes, error) = interpret(&sarc, &overlap);
    let error = error.expect("the overlapping archive is refused");
    assert!(
        error.contains("Sarc.nodes[") && error.contains("refusing"),
        "{error}"
    );
    assert!(bytes <= bound(overlap.len()), "overlap: {bytes} bytes");
    report.push(format!("overlapping SARC ({} B): {bytes} B", overlap.len()));

    // Case 11: six levels of 255-entry arrays, each pointing at the next.
    let dag = hostile::byml_dag(6, 255);
    let (bytes, error) = interpret(&byml, &dag);
    let error = error.expect("the BYML DAG is refused");
    assert!(
        error.contains("Header.root") && error.contains("refusing"),
        "{error}"
    );
    assert!(bytes <= bound(dag.len()), "DAG: {bytes} bytes");
    report.push(format!("BYML DAG ({} B): {bytes} B", dag.len()));

    // Case 11: a legitimate 64 MiB single-file archive reads, its file's
    // bytes kept as bytes (a value per byte took 56 times its size).
    let single = hostile::single_file_sarc(64 << 20);
    let (bytes, error) = interpret(&sarc, &single);
    assert_eq!(error, None);
    assert!(
        bytes <= 4 * single.len(),
        "single-file SARC: {bytes} bytes for {}",
        single.len()
    );
    report.push(format!("single-file SARC ({} B): {bytes} B", single.len()));
    drop(single);

    // Case 12: a zstd frame of a few KB that holds 300 MB of zeros.
    let bomb = hostile::zstd_bomb(300 << 20);
    let dicts = Dictionaries::default();
    let (bytes, result) = allocated_by(|| formats::layer::peel(&bomb, &dicts));
    let error = result.expect_err("the zstd bomb is refused");
    assert!(
        error.contains("zstd") && error.contains("refusing"),
        "{error}"
    );
    assert!(bytes <= bound(bomb.len()), "zstd bomb: {bytes} bytes");
    report.push(format!("zstd bomb ({} B): {bytes} B", bomb.len()));

    // Case 12: a Yaz0 header claiming ~4 GiB over a body that would allow
    // it: refused before anything is allocated.
    let claim = hostile::yaz0_claiming(0xFFFF_FF00, 60 << 20);
    let (bytes, result) = allocated_by(|| Layer::Yaz0 { alignment: 0 }.decompress(&claim, &dicts));
    let error = result.expect_err("the Yaz0 claim is refused");
    assert_eq!(error.offset, 4, "{error}");
    assert!(bytes < 1 << 20, "Yaz0 claim: {bytes} bytes");
    report.push(format!(
        "Yaz0 claiming 4 GiB ({} B): {bytes} B",
        claim.len()
    ));

    // Case 12: a bomb inside a layer does not get a limit of its own.
    let nested = formats::layer::zstd::compress(&bomb, None, &dicts).unwrap();
    let outer_len = nested.len();
    let (bytes, result) = allocated_by(|| formats::layer::peel(&nested, &dicts));
    assert!(result.is_err());
    assert!(bytes <= bound(outer_len), "nested bomb: {bytes} bytes");
    report.push(format!("zstd bomb in zstd ({outer_len} B): {bytes} B"));

    eprintln!(
        "allocated (all bytes, freed or not):\n  {}",
        report.join("\n  ")
    );
}
