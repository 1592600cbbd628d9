//! The `codec` command never leaves a half-written output: every verb that
//! writes files (`to-text` and `from-text` of AAMP, legacy BDAT and AINB,
//! and `docs`) writes temporary files and renames them into place only when
//! all of them are complete. For each, run as a process with `--force` over
//! an existing output:
//!
//! - a conversion that fails late (the input's error lies in its last part:
//!   the last table, the last node, the last lines, the second schema)
//!   leaves the folder exactly as it was: the old output byte for byte, no
//!   temporary file, nothing new;
//! - so does a run whose output cannot be written: the process may write
//!   files of 2 blocks at most (`ulimit -f 2`), so writing the output fails
//!   with EFBIG part way through. Where a run writes several files (legacy
//!   BDAT's text: a `.bschema` and a folder of per-table files; `docs`: a
//!   page per schema), the first is small enough to be written in full
//!   before the next one fails, and is not put in place either: such a run
//!   replaces its files only when every table converted (every page was
//!   generated) and every file was written in full;
//! - a conversion that succeeds replaces the old output and leaves nothing
//!   else behind.
//!
//! Unix only: the size limit is set with `sh`.
#![cfg(unix)]

mod common;
use common::{codec, stderr};
use formats::aamp::{self, ParameterIO, ParameterList, ParameterObject, ParameterValue};
use formats::ainb;
use formats::bdat::{self, Cell, CellType, Table, Variant};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The arguments of a run, from strings and paths.
macro_rules! args {
    ($($a:expr),* $(,)?) => { [$(OsString::from($a)),*] };
}

/// The size limit of [`codec_limited`] is at least this many bytes: 2
/// blocks of `ulimit -f`, 512 bytes each in dash and POSIX shells (1024 in
/// bash). Small outputs of the tests stay under it; the others are several
/// KiB.
const LIMIT: usize = 1024;

/// `codec` allowed to write files of 2 blocks at most, with SIGXFSZ
/// ignored: a write past the limit fails (EFBIG) instead of killing it.
fn codec_limited(args: &[OsString]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .env_remove(aamp::names::NAMES_ENV)
        .env_remove(aamp::names::NUMBERED_NAMES_ENV)
        .output()
        .expect("run codec under sh")
}

/// Every file and folder under `dir` (files with their bytes).
type Snapshot = BTreeMap<PathBuf, Option<Vec<u8>>>;

fn snapshot(dir: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().to_owned();
            if p.is_dir() {
                out.insert(rel, None);
                todo.push(p);
            } else {
                out.insert(rel, Some(fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// Asserts that `o` failed and left `dir` as `before`, naming what differs.
fn failed_and_untouched(what: &str, o: &Output, dir: &Path, before: &Snapshot) {
    assert_eq!(o.status.code(), Some(1), "{what}: {}", stderr(o));
    let after = snapshot(dir);
    let changed: std::collections::BTreeSet<_> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(
        changed.is_empty(),
        "{what}: a failed run changed {changed:?} in {}",
        dir.display()
    );
}

/// The three runs every verb × format goes through, in `dir`. `outputs` are
/// the files the conversion writes, each already there with old contents;
/// `bad` fails late in its input (with `bad_says` in its message); `good`
/// succeeds, and fails under the size limit.
fn old_output_survives_failures_and_is_replaced_on_success(
    dir: &Path,
    outputs: &[PathBuf],
    bad: &[OsString],
    bad_says: &str,
    good: &[OsString],
) {
    for p in outputs {
        assert_eq!(fs::read(p).unwrap(), OLD, "{} is in place", p.display());
    }
    let before = snapshot(dir);
    // A late error in the input.
    let o = codec(bad);
    assert!(stderr(&o).contains(bad_says), "bad input: {}", stderr(&o));
    failed_and_untouched("bad input", &o, dir, &before);
    // The output cannot be written in full.
    let o = codec_limited(good);
    assert!(
        stderr(&o).contains("File too large"),
        "size limit: {}",
        stderr(&o)
    );
    failed_and_untouched("size limit", &o, dir, &before);
    // Success replaces every output, and leaves nothing else behind.
    let o = codec(good);
    assert!(o.status.success(), "good input: {}", stderr(&o));
    let after = snapshot(dir);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "a successful run leaves the same files"
    );
    for p in outputs {
        assert_ne!(fs::read(p).unwrap(), OLD, "{} is replaced", p.display());
    }
}

const OLD: &[u8] = b"the old output\n";

/// `to-text` of one binary into one text file (`out.<out_ext>`, there with
/// old contents): `good.<ext>` and `bad.<ext>` are written to `dir`, and the
/// old output must survive `bad` (failing with `bad_says`) and the size
/// limit, and be replaced by `good`. Returns the output's path.
fn one_file_to_text(
    dir: &Path,
    ext: &str,
    good: &[u8],
    bad: &[u8],
    out_ext: &str,
    bad_says: &str,
) -> PathBuf {
    let (good_path, bad_path) = (
        dir.join(format!("good.{ext}")),
        dir.join(format!("bad.{ext}")),
    );
    fs::write(&good_path, good).unwrap();
    fs::write(&bad_path, bad).unwrap();
    let out = dir.join(format!("out.{out_ext}"));
    fs::write(&out, OLD).unwrap();
    old_output_survives_failures_and_is_replaced_on_success(
        dir,
        std::slice::from_ref(&out),
        &args!["to-text", &bad_path, "-o", &out, "--force"],
        bad_says,
        &args!["to-text", &good_path, "-o", &out, "--force"],
    );
    out
}

// ---------------------------------------------------------------------------
// AAMP

/// A document whose YAML is several KiB: 300 parameters, a vector last.
fn aamp_document() -> ParameterIO {
    let mut obj = ParameterObject::new("Settings");
    for i in 0..300 {
        obj = obj.with(format!("p{i}").as_str(), ParameterValue::Int(i));
    }
    obj = obj.with("last", ParameterValue::Vec3([1.0, 2.0, 3.0]));
    let mut pio = ParameterIO::new("xml");
    pio.root = ParameterList::new(aamp::ROOT_NAME).with_object(obj);
    pio
}

#[test]
fn aamp_to_text() {
    let dir = scratch("aamp_to_text");
    let good = aamp::encode(&aamp_document()).unwrap();
    // The last byte cut: the error lies at the end of the file.
    let bad = &good[..good.len() - 1];
    let e = aamp::decode(bad).unwrap_err();
    assert!(e.offset() > good.len() as u64 / 2, "a late error: {e}");
    let out = one_file_to_text(&dir, "bxml", &good, bad, "yml", "decode error");
    assert!(fs::read_to_string(&out).unwrap().starts_with("!io\n"));
}

#[test]
fn aamp_from_text() {
    let dir = scratch("aamp_from_text");
    let bin = aamp::encode(&aamp_document()).unwrap();
    let yaml = aamp::text::to_yaml(&aamp::decode(&bin).unwrap(), &Default::default());
    // The vector, on the last line, loses a component.
    let bad = yaml.replace("!vec3 [1.0, 2.0, 3.0]", "!vec3 [1.0, 2.0]");
    assert_ne!(bad, yaml);
    let line = 1 + yaml.lines().position(|l| l.contains("!vec3")).unwrap();
    assert!(line + 2 >= yaml.lines().count(), "a late line: {line}");
    fs::write(dir.join("good.yml"), &yaml).unwrap();
    fs::write(dir.join("bad.yml"), &bad).unwrap();
    let out = dir.join("out.bxml");
    fs::write(&out, OLD).unwrap();
    old_output_survives_failures_and_is_replaced_on_success(
        &dir,
        std::slice::from_ref(&out),
        &args!["from-text", &dir.join("bad.yml"), "-o", &out, "--force"],
        &format!("bad.yml:{line}:"),
        &args!["from-text", &dir.join("good.yml"), "-o", &out, "--force"],
    );
    assert_eq!(fs::read(&out).unwrap(), bin);
}

// ---------------------------------------------------------------------------
// Legacy BDAT

/// Two tables: a small one (its JSON under the size limit), then one of
/// 200 rows of strings (several KiB).
fn bdat_file() -> bdat::BdatFile {
    let mut small = Table::new("A_Small");
    small.add_value_column("x", CellType::U8);
    small.rows.push(vec![Cell::U8(1)]);
    let mut big = Table::new("B_Big");
    big.add_value_column("id", CellType::U16);
    big.add_value_column("name", CellType::String);
    for i in 0..200u16 {
        let name = big.string_cell(format!("row number {i}"));
        big.rows.push(vec![Cell::U16(i), name]);
    }
    bdat::BdatFile {
        tables: vec![small, big],
    }
}

#[test]
fn bdat_to_text() {
    let dir = scratch("bdat_to_text");
    let good = bdat::encode(&bdat_file(), Variant::Switch).unwrap();
    // The second table's rows are moved past its end.
    let mut bad = good.clone();
    let second = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    bad[second + 0xe..second + 0x10].copy_from_slice(&0xfff0u16.to_le_bytes());
    let e = bdat::decode(&bad).unwrap_err();
    assert!(e.path().starts_with("File.tables[1]"), "{e}");
    fs::write(dir.join("common.bdat"), &good).unwrap();
    let bad_dir = dir.join("bad");
    fs::create_dir(&bad_dir).unwrap();
    fs::write(bad_dir.join("common.bdat"), &bad).unwrap();
    // The old text: the .bschema and both tables' files.
    let out = dir.join("text");
    let outputs = [
        out.join("common.bschema"),
        out.join("common/A_Small.json"),
        out.join("common/B_Big.json"),
    ];
    fs::create_dir_all(out.join("common")).unwrap();
    for p in &outputs {
        fs::write(p, OLD).unwrap();
    }
    let small = bdat::text::file_to_text(&bdat_file(), Variant::Switch, "common").tables[0]
        .1
        .len();
    assert!(
        small < LIMIT,
        "the first table's JSON fits the limit: {small}"
    );
    old_output_survives_failures_and_is_replaced_on_success(
        &dir,
        &outputs,
        &args![
            "to-text",
            &bad_dir.join("common.bdat"),
            "-o",
            &out,
            "--force"
        ],
        "File.tables[1]",
        &args!["to-text", &dir.join("common.bdat"), "-o", &out, "--force"],
    );
    // Back to the same bytes.
    let back = dir.join("back.bdat");
    let o = codec(&args!["from-text", &outputs[0], "-o", &back]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&back).unwrap(), good);
}

#[test]
fn bdat_to_text_into_a_new_folder_leaves_no_folder_when_it_fails() {
    let dir = scratch("bdat_new_folder");
    fs::write(
        dir.join("common.bdat"),
        bdat::encode(&bdat_file(), Variant::Switch).unwrap(),
    )
    .unwrap();
    let before = snapshot(&dir);
    let o = codec_limited(&args![
        "to-text",
        &dir.join("common.bdat"),
        "-o",
        &dir.join("new/text")
    ]);
    assert!(stderr(&o).contains("File too large"), "{}", stderr(&o));
    failed_and_untouched("size limit", &o, &dir, &before);
}

#[test]
fn bdat_from_text() {
    let dir = scratch("bdat_from_text");
    let bin = bdat::encode(&bdat_file(), Variant::Switch).unwrap();
    let texts = bdat::text::file_to_text(&bdat_file(), Variant::Switch, "common");
    let write = |root: &Path| {
        fs::create_dir_all(root.join("common")).unwrap();
        fs::write(root.join("common.bschema"), &texts.bschema).unwrap();
        for (stem, json) in &texts.tables {
            fs::write(root.join(format!("common/{stem}.json")), json).unwrap();
        }
    };
    write(&dir.join("good"));
    write(&dir.join("bad"));
    // The last row of the last table gets another id.
    let last = dir.join("bad/common/B_Big.json");
    let json = fs::read_to_string(&last).unwrap();
    assert!(json.contains("\"$id\": 200"), "{json}");
    fs::write(&last, json.replace("\"$id\": 200", "\"$id\": 999")).unwrap();
    let out = dir.join("common.bdat");
    fs::write(&out, OLD).unwrap();
    old_output_survives_failures_and_is_replaced_on_success(
        &dir,
        std::slice::from_ref(&out),
        &args![
            "from-text",
            &dir.join("bad/common.bschema"),
            "-o",
            &out,
            "--force"
        ],
        "B_Big.json: rows[199].$id",
        &args![
            "from-text",
            &dir.join("good/common.bschema"),
            "-o",
            &out,
            "--force"
        ],
    );
    assert_eq!(fs::read(&out).unwrap(), bin);
}

// ---------------------------------------------------------------------------
// AINB

/// A file of 40 nodes (its JSON several KiB).
fn ainb_file() -> ainb::File {
    let mut f = ainb::File::new(0x407, "Test", "AI");
    f.nodes = (0..40)
        .map(|i| {
            let mut n = ainb::schema::Node::new(0, &format!("Node{i}"));
            n.index = i;
            n
        })
        .collect();
    f
}

#[test]
fn ainb_to_text() {
    let dir = scratch("ainb_to_text");
    let good = ainb::encode(&ainb_file()).unwrap();
    // The last node's type is one no game has.
    let mut bad = good.clone();
    let at = 0x74 + 0x3c * 39;
    assert_eq!(&bad[at..at + 2], &[0, 0]);
    bad[at..at + 2].copy_from_slice(&999u16.to_le_bytes());
    let e = ainb::decode(&bad).unwrap_err();
    assert!(e.to_string().contains("nodes[39].type"), "{e}");
    let out = one_file_to_text(&dir, "ainb", &good, &bad, "json", "nodes[39].type");
    assert!(fs::read_to_string(&out).unwrap().contains("\"Node39\""));
}

#[test]
fn ainb_from_text() {
    let dir = scratch("ainb_from_text");
    let bin = ainb::encode(&ainb_file()).unwrap();
    let json = ainb::text::to_json(&ainb::decode(&bin).unwrap()).unwrap();
    // The file references, the last key of the document, are not a list.
    let at = json
        .rfind("\"File References\": []")
        .expect("file references");
    let rest = &json[at + "\"File References\": []".len()..];
    assert!(
        rest.chars().all(|c| c.is_whitespace() || c == '}'),
        "the last key: {rest}"
    );
    let bad = json.replace("\"File References\": []", "\"File References\": 7");
    fs::write(dir.join("good.json"), &json).unwrap();
    fs::write(dir.join("bad.json"), &bad).unwrap();
    let out = dir.join("out.ainb");
    fs::write(&out, OLD).unwrap();
    old_output_survives_failures_and_is_replaced_on_success(
        &dir,
        std::slice::from_ref(&out),
        &args!["from-text", &dir.join("bad.json"), "-o", &out, "--force"],
        "File References",
        &args!["from-text", &dir.join("good.json"), "-o", &out, "--force"],
    );
    assert_eq!(fs::read(&out).unwrap(), bin);
}

// ---------------------------------------------------------------------------
// docs

/// A schema whose Markdown page is well under the size limit.
const TINY_SCHEMA: &str = r#"Schema(
    name: "tiny",
    doc: "A tiny format.",
    endian: Little,
    root: "T",
    types: [
        Struct(name: "T", doc: "T.", fields: [(name: "x", type: U8, doc: "x.")]),
    ],
)"#;

#[test]
fn docs() {
    let dir = scratch("docs");
    // Two schemas: a tiny one, whose page fits the size limit, then AAMP's.
    let tiny = dir.join("tiny.ron");
    fs::write(&tiny, TINY_SCHEMA).unwrap();
    let aamp_schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/aamp.ron");
    let text = fs::read_to_string(&aamp_schema).unwrap();
    let broken = dir.join("broken.ron");
    fs::write(&broken, format!("{text}\n)")).unwrap();
    let out = dir.join("pages");
    fs::create_dir(&out).unwrap();
    let outputs = [out.join("tiny.md"), out.join("aamp.md")];
    for p in &outputs {
        fs::write(p, OLD).unwrap();
    }
    let before = snapshot(&dir);
    // The second schema is broken (at its end).
    let o = codec(&args![
        "docs", "--kind", "md", "--out", &out, "--force", "--schema", &tiny, "--schema", &broken
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("broken.ron"), "{}", stderr(&o));
    assert_eq!(snapshot(&dir), before, "a broken schema writes nothing");
    // The tiny page is written in full, AAMP's is not.
    let good = args![
        "docs",
        "--kind",
        "md",
        "--out",
        &out,
        "--force",
        "--schema",
        &tiny,
        "--schema",
        &aamp_schema
    ];
    let o = codec_limited(&good);
    assert!(
        stderr(&o).contains("aamp.md: File too large"),
        "{}",
        stderr(&o)
    );
    failed_and_untouched("size limit", &o, &dir, &before);
    let o = codec(&good);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "wrote {}\nwrote {}\n",
            outputs[0].display(),
            outputs[1].display()
        )
    );
    let tiny_page = fs::read(&outputs[0]).unwrap();
    assert!(tiny_page.len() < LIMIT, "{}", tiny_page.len());
    assert!(tiny_page.starts_with(b"# tiny format\n"));
    assert!(fs::read(&outputs[1]).unwrap().starts_with(b"# aamp"));
    assert_eq!(
        snapshot(&out).keys().collect::<Vec<_>>(),
        [Path::new("aamp.md"), Path::new("tiny.md")]
    );
}

/// An empty folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("atomic_writes", name)
}
