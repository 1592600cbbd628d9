//! `codec check`, `codec to-text` and `codec from-text` on an AINB file this
//! test writes itself, run as a process.

mod common;
use common::{codec, stderr, stdout};
use formats::ainb::{self, File};
use std::fs;
use std::path::{Path, PathBuf};

fn bytes() -> Vec<u8> {
    ainb::encode(&File::new(0x407, "Test", "AI")).unwrap()
}

#[test]
fn check_reports_an_identical_file() {
    let dir = scratch("check");
    let path = dir.join("Test.ainb");
    fs::write(&path, bytes()).unwrap();
    common::assert_check_says_identical(&path);
}

#[test]
fn to_text_then_from_text_gives_the_same_bytes() {
    let dir = scratch("round_trip");
    let bin = dir.join("Test.ainb");
    let original = bytes();
    fs::write(&bin, &original).unwrap();
    // Default names: FILE.json, then FILE without `.json`.
    let o = codec(&["to-text".as_ref(), bin.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json = dir.join("Test.ainb.json");
    let text = fs::read_to_string(&json).unwrap();
    assert!(text.contains("\"Nodes\"") && text.contains("\"Version\""));
    // The binary is there: from-text refuses to replace it without --force.
    let o = codec(&["from-text".as_ref(), json.as_os_str()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = codec(&["from-text".as_ref(), json.as_os_str(), "--force".as_ref()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&bin).unwrap(), original);
}

#[test]
fn bad_json_is_an_error_and_nothing_is_written() {
    let dir = scratch("bad_json");
    let json = dir.join("Bad.ainb.json");
    let good = ainb::text::to_json(&ainb::decode(&bytes()).unwrap()).unwrap();
    // A version that is not a number.
    assert!(good.contains("\"Version\": 1031"));
    let bad = good.replacen("\"Version\": 1031", "\"Version\": \"seven\"", 1);
    fs::write(&json, bad).unwrap();
    let o = codec(&[
        "from-text".as_ref(),
        json.as_os_str(),
        "--format".as_ref(),
        "ainb".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(".Version: expected an integer"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("Bad.ainb").exists());
}

#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the AINB corpus (../shared/corpus/ainb or $CODEC_CORPUS), absent here"
)]
fn dump_shows_an_absent_state_info_as_none() {
    let dir = match std::env::var_os("CODEC_CORPUS") {
        Some(root) => PathBuf::from(root).join("ainb"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/ainb"),
    };
    let file = fs::read_dir(&dir).ok().and_then(|d| {
        d.filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| fs::read(p).is_ok_and(|b| b.starts_with(b"AIB ") && b[4] == 4))
    });
    let Some(file) = file else {
        eprintln!(
            "SKIPPED: no 0x404 AINB file in {}; set CODEC_CORPUS to run this test",
            dir.display()
        );
        return;
    };
    let o = codec(&["dump".as_ref(), file.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains(" state_info "))
        .expect("a node's state_info line");
    assert!(line.ends_with("0 (none)"), "{line}");
}

/// An empty folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("ainb_cli", name)
}
