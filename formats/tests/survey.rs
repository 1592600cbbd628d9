//! `codec survey` names hidden fields: files of a made-up format are written
//! with a count, an offset, flags, a hash and a float in fields the
//! researcher's schema (`tests/fixtures/hidden.ron`) declares unknown, plus
//! a random field and a field that is a count in every file but one. The
//! survey must name each hidden field, find nothing in the random one, and
//! list the broken count as contradicted (by that file), never as holding.
//! The walkthrough (docs/walkthrough-find-a-field.md) quotes this run; its
//! quoted lines are compared with what the command prints.

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

mod common;

/// Files written.
const FILES: usize = 24;
/// The file whose `unknown_0x18` is one more than its item count.
const BROKEN: usize = 7;
/// The bits `unknown_0x10` sets at random, and the one it always sets.
const FLAG_BITS: [u32; 3] = [1 << 0, 1 << 3, 1 << 7];
const ALWAYS_SET: u32 = 1 << 4;

const NAMES: [&str; 12] = [
    "Apple",
    "Sword_03",
    "Shield",
    "Bow",
    "Arrow_Fire",
    "Helmet",
    "Boots",
    "Ring",
    "Potion_Red",
    "Map",
    "Key",
    "Lantern",
];

/// A small deterministic generator (xorshift), so every run writes the
/// same files.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// File `i` as the made-up game writes it.
fn hidden_file(i: usize, rng: &mut Rng) -> Vec<u8> {
    let n = 1 + rng.next() as usize % 9;
    let header_len = 0x1c;
    let trailer_at = (header_len + 12 * n) as u32;
    let mut items = Vec::new();
    let mut names = Vec::new();
    let mut checksum = 0u32;
    for _ in 0..n {
        let name = NAMES[rng.next() as usize % NAMES.len()];
        let scale = 0.5 + (rng.next() % 2000) as f32 / 20.0;
        let name_at = trailer_at + 4 + names.len() as u32;
        items.extend(crc32fast::hash(name.as_bytes()).to_le_bytes());
        items.extend(scale.to_bits().to_le_bytes());
        items.extend(name_at.to_le_bytes());
        names.extend(name.as_bytes());
        names.push(0);
        checksum = name
            .bytes()
            .fold(checksum, |c, b| c.wrapping_add(u32::from(b)));
    }
    let flags = FLAG_BITS
        .iter()
        .filter(|_| rng.next() % 2 == 1)
        .fold(ALWAYS_SET, |f, b| f | b);
    let almost_count = if i == BROKEN { n + 1 } else { n } as u32;
    let mut out = b"HIDE".to_vec();
    out.extend((n as u32).to_le_bytes());
    out.extend((n as u32).to_le_bytes()); // 0x08: a second count
    out.extend(trailer_at.to_le_bytes()); // 0x0c: where the trailer is
    out.extend(flags.to_le_bytes()); // 0x10: flags
    out.extend(rng.next().to_le_bytes()); // 0x14: noise
    out.extend(almost_count.to_le_bytes()); // 0x18: a count, but not in BROKEN
    out.extend(items);
    out.extend(checksum.to_le_bytes());
    out.extend(names);
    out
}

/// Writes the files to `target/tmp/survey-walkthrough/files/NN.hide` (the
/// walkthrough's commands run in `target/tmp/survey-walkthrough`), once per
/// test run: the tests run in parallel and read them.
fn write_files() -> PathBuf {
    static WRITTEN: OnceLock<PathBuf> = OnceLock::new();
    WRITTEN.get_or_init(write_files_now).clone()
}

fn write_files_now() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("survey-walkthrough");
    let files = dir.join("files");
    let _ = fs::remove_dir_all(&files);
    fs::create_dir_all(&files).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..FILES {
        fs::write(files.join(format!("{i:02}.hide")), hidden_file(i, &mut rng)).unwrap();
    }
    dir
}

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hidden.ron")
}

fn survey(dir: &Path, extra: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .current_dir(dir)
        .arg("survey")
        .arg("--schema")
        .arg(schema())
        .arg("files")
        .args(extra)
        .output()
        .expect("codec runs");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.success(),
    )
}

/// The report on `field` from the JSON output.
fn field<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == name)
        .unwrap_or_else(|| panic!("{name} is not in the report"))
}

/// The hypotheses of a field that hold, as (claim, text).
fn holding(f: &Value) -> Vec<(String, String)> {
    f["hypotheses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["holds"] == true)
        .map(|h| {
            (
                h["claim"].as_str().unwrap().to_owned(),
                h["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn holds(f: &Value, claim: &str, text: &str) -> bool {
    holding(f).iter().any(|(c, t)| c == claim && t == text)
}

#[test]
fn survey_names_each_hidden_field_and_never_a_contradicted_one() {
    let dir = write_files();
    let (stdout, stderr, ok) = survey(&dir, &["--json"]);
    assert!(ok, "survey failed: {stderr}");
    let doc: Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(doc["files"], FILES);

    let count = field(&doc, "File.unknown_0x08");
    assert!(
        holds(
            count,
            "equal",
            "equal to the number of elements of File.items"
        ),
        "the hidden count: {:?}",
        holding(count)
    );

    let offset = field(&doc, "File.unknown_0x0c");
    assert!(
        holds(
            offset,
            "offset",
            "an offset from the file's start to the start of a Trailer"
        ),
        "the hidden offset: {:?}",
        holding(offset)
    );

    let flags = field(&doc, "File.unknown_0x10");
    assert!(
        holds(
            flags,
            "flags",
            "flags: bits 0, 3, 7 vary, bits 4 always set, the others always clear"
        ),
        "the hidden flags: {:?}",
        holding(flags)
    );

    let hash = field(&doc, "Item.unknown_0x00");
    assert!(
        holds(hash, "hash", "the crc32 hash of a string of the file"),
        "the hidden hash: {:?}",
        holding(hash)
    );

    let float = field(&doc, "Item.unknown_0x04");
    assert!(
        holds(float, "float", "an f32 stored in an integer field"),
        "the hidden float: {:?}",
        holding(float)
    );

    // Random bits: nothing holds.
    let noise = field(&doc, "File.unknown_0x14");
    assert_eq!(holding(noise), Vec::<(String, String)>::new());

    // A count in every file but one: listed as contradicted, by that file
    // alone, and never as holding.
    let almost = field(&doc, "File.unknown_0x18");
    let claim = "equal to the number of elements of File.items";
    assert!(!holds(almost, "equal", claim), "{:?}", holding(almost));
    let listed = almost["hypotheses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["text"] == claim)
        .expect("the broken count is listed as contradicted");
    assert_eq!(listed["holds"], false);
    let broken = format!("files/{BROKEN:02}.hide");
    assert_eq!(listed["contradicted_by"], serde_json::json!([broken]));
}

#[test]
fn the_walkthrough_quotes_what_survey_prints() {
    let dir = write_files();
    let (stdout, stderr, ok) = survey(&dir, &[]);
    assert!(ok, "survey failed: {stderr}");
    let doc = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/walkthrough-find-a-field.md"),
    )
    .unwrap();
    // Every line of the quoted report (between the markers) is a line the
    // command prints, apart from the timing.
    let quoted = doc
        .split("<!-- survey report -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- end -->").next())
        .expect("the walkthrough quotes the report");
    let printed: Vec<&str> = stdout.lines().collect();
    let mut checked = 0;
    for line in quoted
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("```"))
    {
        if line.starts_with("surveyed 24 file(s) in") {
            continue;
        }
        assert!(
            printed.contains(&line),
            "the walkthrough quotes a line survey does not print:\n{line}\n\nsurvey printed:\n{stdout}"
        );
        checked += 1;
    }
    assert!(
        checked >= 10,
        "the walkthrough quotes too little ({checked} lines)"
    );
}

#[test]
fn a_field_asked_for_is_reported_even_when_known() {
    let dir = write_files();
    let (stdout, stderr, ok) = survey(&dir, &["--field", "Trailer", "--json"]);
    assert!(ok, "survey failed: {stderr}");
    let doc: Value = serde_json::from_str(stdout.trim()).unwrap();
    let fields: Vec<&str> = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["Trailer.checksum"]);
}

#[test]
fn a_file_that_does_not_decode_is_named_and_left_out() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("survey-broken");
    let files = dir.join("files");
    let _ = fs::remove_dir_all(&files);
    fs::create_dir_all(&files).unwrap();
    let mut rng = Rng(7);
    fs::write(files.join("good.hide"), hidden_file(0, &mut rng)).unwrap();
    let mut bad = hidden_file(1, &mut rng);
    bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes()); // item count 0xFFFFFFFF
    fs::write(files.join("bad.hide"), bad).unwrap();
    let (stdout, stderr, ok) = survey(&dir, &[]);
    assert!(!ok, "a file that does not decode fails the run");
    assert!(
        stderr.contains("files/bad.hide: decode error"),
        "stderr: {stderr}"
    );
    assert!(
        stdout.contains("# "),
        "the good file is still surveyed: {stdout}"
    );
    assert!(stdout.contains(": 1 file(s)"), "{stdout}");
}

/// Runs `codec ARGS` in `dir`.
fn codec(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("codec runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_schema_after_the_survey_explains_the_fields_and_coverage_says_so() {
    let dir = write_files();
    let before = schema();
    let after = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hidden_named.ron");
    let (before, after) = (before.to_str().unwrap(), after.to_str().unwrap());
    let report = codec(&dir, &["survey", "--schema", after, "files", "--json"]);
    let doc: Value = serde_json::from_str(report.trim()).unwrap();
    let unknown: Vec<&str> = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["why"] == "unknown")
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(unknown, ["File.unknown_0x14", "File.unknown_0x18"]);
    // The walkthrough's figures.
    let share = |schema: &str| {
        let line = codec(&dir, &["coverage", "-q", "--schema", schema, "files"]);
        line.split(" in unknown fields (")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(share(before), "47.83%");
    assert_eq!(share(after), "7.36%");
}

/// A survey of files whose bytes the schema reads two ways (here `half`
/// points into `word`'s value) says so: its values may be misread, and
/// `coverage` lists where (issue 52: no silent misreads).
#[test]
fn a_survey_warns_of_bytes_read_two_ways() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("survey-read-twice");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("read_twice.ron");
    fs::write(
        &schema,
        include_str!("../../codec-interp/tests/interp_fixtures/read_twice.ron"),
    )
    .unwrap();
    let file = |name: &str, half: u32| {
        let mut data = b"TWCE".to_vec();
        for v in [12u32, half, 0xAABB_CCDD, 0x0102] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        let p = dir.join(name);
        fs::write(&p, data).unwrap();
        p
    };
    let apart = file("apart.bin", 16);
    let survey = |paths: &[&Path]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_codec"));
        cmd.arg("survey")
            .arg("--schema")
            .arg(&schema)
            .arg("--all")
            .args(paths);
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let out = survey(&[&apart]);
    assert!(!out.contains("read two ways"), "{out}");
    let inside = file("inside.bin", 14);
    let out = survey(&[&apart, &inside]);
    assert!(
        out.contains("warning: 1 file(s) have bytes the schema reads two ways")
            && out.contains("inside.bin: overlap at 0xe, 2 byte(s) read two ways: by File.word"),
        "{out}"
    );
}

/// A known field that holds an offset as a number (issue 72) is suspicious:
/// the survey of files whose names differ in length finds that `title_at`
/// lands where the title starts in every file, and reports it although the
/// schema calls it known; `n`, a derived count, and `pad`, always 0, are not
/// reported.
#[test]
fn a_known_number_that_is_an_offset_is_suspicious() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("stored.ron");
    fs::write(&schema, common::STORED_OFFSET_SCHEMA).unwrap();
    for (i, names) in [&["a", "bc"][..], &["abc"], &["x", "yy", "zzzz"]]
        .iter()
        .enumerate()
    {
        fs::write(
            dir.path().join(format!("{i}.bin")),
            common::stored_offset_file(names, "Title"),
        )
        .unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_codec"))
        .arg("survey")
        .arg("--json")
        .arg("--schema")
        .arg(&schema)
        .arg(dir.path())
        .output()
        .expect("codec runs");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let f = field(&doc, "File.title_at");
    assert_eq!(f["why"], "suspicious", "{f}");
    assert!(
        holding(f)
            .iter()
            .any(|(c, t)| c == "offset" && t.contains("to the start of a string")),
        "{f}"
    );
    let reported: Vec<&str> = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(reported, ["File.title_at"], "{text}");
}
