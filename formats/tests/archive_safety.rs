//! The folder form of archives as a hostile or careless user meets it
//! (issue 47): `from-text` reads nothing outside the folder, `to-text`
//! writes nothing outside it and loses no entry, a failed or interrupted
//! run leaves the old folder as it was and no temporary file. Every archive
//! here is built by the test with the project's own SARC encoder (no game
//! bytes); each test names the case of the issue it covers.

mod common;

use formats::sarc::{self, Node, Sarc, Variant};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

/// A little-endian SARC of `files` (in that order before the hash sort).
fn sarc_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let nodes = files
        .iter()
        .map(|(n, d)| Node::new(n, d.to_vec()))
        .collect();
    sarc::encode(&Sarc::new(nodes), Variant::Little).unwrap()
}

fn run(args: &[&OsStr]) -> std::process::Output {
    common::codec(args)
}

/// `codec to-text [extra...] ARCHIVE`.
fn to_text(archive: &Path, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<&OsStr> = vec![OsStr::new("to-text")];
    args.extend(extra.iter().map(OsStr::new));
    args.push(archive.as_os_str());
    run(&args)
}

/// `codec from-text FOLDER -o OUT`.
fn from_text(folder: &Path, out: &Path) -> std::process::Output {
    run(&[
        OsStr::new("from-text"),
        folder.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ])
}

/// Every path below `dir`, relative, sorted (links not followed).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// Names in `dir` (not below) that start with `.codec-`.
fn temp_names(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".codec-"))
        .collect()
}

/// An archive unpacked to `<tmp>/a.sarc.d`: (archive path, folder).
fn unpacked(tmp: &Path, files: &[(&str, &[u8])]) -> (PathBuf, PathBuf) {
    let archive = tmp.join("a.sarc");
    fs::write(&archive, sarc_of(files)).unwrap();
    let o = to_text(&archive, &[]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    (archive, tmp.join("a.sarc.d"))
}

fn set_manifest(folder: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = folder.join("codec-archive.json");
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut v);
    fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

// Case 1: a manifest or a folder that points outside itself.
#[test]
fn from_text_reads_nothing_outside_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret.txt");
    fs::write(&secret, b"not for the archive").unwrap();
    let (_, folder) = unpacked(tmp.path(), &[("a.txt", b"aaa"), ("b.txt", b"bbb")]);
    let out = tmp.path().join("out.sarc");
    let stored_cases = [
        secret.to_str().unwrap().to_owned(),
        "../secret.txt".to_owned(),
        "../../../../proc/self/environ".to_owned(),
        "x/../../secret.txt".to_owned(),
    ];
    for stored in &stored_cases {
        let (_, folder) = unpacked(
            &tempfile::tempdir_in(tmp.path()).unwrap().keep(),
            &[("a.txt", b"aaa")],
        );
        set_manifest(&folder, |m| {
            m["files"][0]["stored"] = stored.as_str().into()
        });
        let o = from_text(&folder, &out);
        assert!(!o.status.success(), "stored {stored:?} was packed");
        assert!(
            common::stderr(&o).contains("not a file inside the folder"),
            "{stored:?}: {}",
            common::stderr(&o)
        );
        assert!(!out.exists());
    }
    // A manifest name that to-text would refuse is refused here too.
    let (_, folder2) = unpacked(
        &tempfile::tempdir_in(tmp.path()).unwrap().keep(),
        &[("a.txt", b"aaa")],
    );
    set_manifest(&folder2, |m| {
        m["files"][0]["name"] = "../../evil.txt".into()
    });
    let o = from_text(&folder2, &out);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("not a relative path"),
        "{}",
        common::stderr(&o)
    );
    // A listed file replaced by a link to a file outside.
    #[cfg(unix)]
    {
        fs::remove_file(folder.join("a.txt")).unwrap();
        std::os::unix::fs::symlink(&secret, folder.join("a.txt")).unwrap();
        let o = from_text(&folder, &out);
        assert!(!o.status.success(), "a link was followed");
        assert!(
            common::stderr(&o).contains("symbolic link"),
            "{}",
            common::stderr(&o)
        );
        fs::remove_file(folder.join("a.txt")).unwrap();
        fs::write(folder.join("a.txt"), b"aaa").unwrap();
        // A new link, and a linked subfolder.
        std::os::unix::fs::symlink(&secret, folder.join("h")).unwrap();
        let o = from_text(&folder, &out);
        assert!(!o.status.success(), "a new link was packed");
        assert!(common::stderr(&o).contains("symbolic link"));
        fs::remove_file(folder.join("h")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), folder.join("d")).unwrap();
        let o = from_text(&folder, &out);
        assert!(!o.status.success(), "a linked folder was walked");
        fs::remove_file(folder.join("d")).unwrap();
        assert!(!out.exists());
        // What is left is the folder as unpacked: packed as it was.
        let o = from_text(&folder, &out);
        assert!(o.status.success(), "{}", common::stderr(&o));
    }
}

// Case 2: `to-text --force` over a folder with a linked subfolder.
#[cfg(unix)]
#[test]
fn to_text_never_writes_through_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    fs::create_dir(&victim).unwrap();
    let archive = tmp.path().join("s.sarc");
    fs::write(&archive, sarc_of(&[("d/x.txt", b"payload")])).unwrap();
    let folder = tmp.path().join("s.sarc.d");
    fs::create_dir(&folder).unwrap();
    std::os::unix::fs::symlink("../victim", folder.join("d")).unwrap();
    let o = to_text(&archive, &["--force"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        listing(&victim).is_empty(),
        "written outside: {:?}",
        listing(&victim)
    );
    let d = fs::symlink_metadata(folder.join("d")).unwrap();
    assert!(d.is_dir() && !d.file_type().is_symlink());
    assert_eq!(fs::read(folder.join("d/x.txt")).unwrap(), b"payload");
    // The target itself a link: refused, not followed.
    let link = tmp.path().join("l.d");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = run(&[
        OsStr::new("to-text"),
        archive.as_os_str(),
        OsStr::new("-o"),
        link.as_os_str(),
        OsStr::new("--force"),
    ]);
    assert!(!o.status.success());
    assert!(common::stderr(&o).contains("symbolic link"));
    assert!(listing(&victim).is_empty());
}

/// Unpacks and repacks `files`: every entry must come back, the archive
/// byte for byte.
fn assert_round_trips(files: &[(&str, &[u8])]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let (archive, folder) = unpacked(tmp.path(), files);
    let out = tmp.path().join("back.sarc");
    let o = from_text(&folder, &out);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        fs::read(&out).unwrap() == fs::read(&archive).unwrap(),
        "{files:?}: not byte for byte; folder {:?}",
        listing(&folder)
    );
    listing(&folder)
}

// Case 3: two entries with one name.
#[test]
fn duplicate_names_keep_both_entries() {
    let listed = assert_round_trips(&[("same.txt", b"first"), ("same.txt", b"second")]);
    assert!(listed.contains(&"same.txt".to_owned()), "{listed:?}");
    assert!(listed.contains(&"same~2.txt".to_owned()), "{listed:?}");
}

// Case 4: an entry named like the manifest.
#[test]
fn an_entry_named_like_the_manifest_is_kept() {
    let listed = assert_round_trips(&[("codec-archive.json", b"{\"mine\": 1}"), ("b", b"b")]);
    assert!(
        listed.contains(&"codec-archive~2.json".to_owned()),
        "{listed:?}"
    );
}

// Case 5: a text name equal to another entry's name; a file where another
// entry needs a folder (case 7's `alaa` and `alaa/x`); a name that looks
// like codec's temporary files.
#[test]
fn colliding_names_get_distinct_files() {
    let byml =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/byml/sample_v7.byml"))
            .unwrap();
    let listed = assert_round_trips(&[
        ("m.byml", &byml),
        ("m.byml.yml", b"raw text, not the YAML of m.byml"),
    ]);
    assert!(listed.contains(&"m.byml.yml".to_owned()), "{listed:?}");
    assert!(
        listed.contains(&"m.byml~2.yml".to_owned()) || listed.contains(&"m.byml~2.yml".to_owned()),
        "{listed:?}"
    );
    assert_round_trips(&[("alaa", b"file"), ("alaa/x", b"inside")]);
    assert_round_trips(&[("Dir/A.txt", b"upper"), ("dir/a.txt", b"lower")]);
    assert_round_trips(&[(".codec-x.tmp", b"not temporary"), ("y", b"y")]);
}

// Case 6: `--force` replaces the folder whole; concurrent runs do not mix.
#[test]
fn force_replaces_the_folder_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let (archive, folder) = unpacked(tmp.path(), &[("a.txt", b"a"), ("sub/b.txt", b"b")]);
    fs::write(folder.join("stale.txt"), b"from an earlier unpack").unwrap();
    fs::write(folder.join("sub/stale2.txt"), b"so is this").unwrap();
    let o = to_text(&archive, &["--force"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        listing(&folder),
        ["a.txt", "codec-archive.json", "sub", "sub/b.txt"]
    );
    assert!(temp_names(tmp.path()).is_empty());

    // Two runs on one target at once: the folder is one run's, whole.
    let many = |tag: &str| -> Vec<u8> {
        let names: Vec<String> = (0..300).map(|i| format!("{tag}/{i}.bin")).collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        sarc_of(&files)
    };
    let (one, two) = (tmp.path().join("one.sarc"), tmp.path().join("two.sarc"));
    fs::write(&one, many("one")).unwrap();
    fs::write(&two, many("two")).unwrap();
    let target = tmp.path().join("same.d");
    for _ in 0..3 {
        let spawn = |a: &Path| {
            std::process::Command::new(env!("CARGO_BIN_EXE_codec"))
                .args([OsStr::new("to-text"), OsStr::new("-q"), OsStr::new("-f")])
                .arg(a)
                .arg("-o")
                .arg(&target)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (c1, c2) = (spawn(&one), spawn(&two));
        let (r1, r2) = (
            c1.wait_with_output().unwrap(),
            c2.wait_with_output().unwrap(),
        );
        // One may find the target appear under it; none may mix.
        assert!(r1.status.success() || r2.status.success());
        let tops: std::collections::BTreeSet<String> = listing(&target)
            .iter()
            .filter(|p| !p.contains('/') && *p != "codec-archive.json")
            .cloned()
            .collect();
        assert_eq!(tops.len(), 1, "mixed folders: {tops:?}");
        assert_eq!(listing(&target).len(), 302, "{:?}", tops);
        assert!(temp_names(tmp.path()).is_empty());
    }
}

// Case 7: a run that fails leaves nothing new, and the old folder as it was.
#[test]
fn a_failed_unpack_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let long = format!("b/{}", "n".repeat(300));
    let bad = sarc_of(&[("a.txt", b"new bytes"), (long.as_str(), b"x")]);
    let archive = tmp.path().join("p.sarc");
    fs::write(&archive, &bad).unwrap();
    let o = to_text(&archive, &[]);
    assert!(!o.status.success(), "a name too long for the disk unpacked");
    assert!(!tmp.path().join("p.sarc.d").exists());
    assert!(
        temp_names(tmp.path()).is_empty(),
        "{:?}",
        temp_names(tmp.path())
    );
    // With an old folder and --force: the old folder is untouched.
    let good = tmp.path().join("good.sarc");
    fs::write(&good, sarc_of(&[("a.txt", b"old bytes")])).unwrap();
    let folder = tmp.path().join("p.sarc.d");
    let o = run(&[
        OsStr::new("to-text"),
        good.as_os_str(),
        OsStr::new("-o"),
        folder.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let manifest = fs::read(folder.join("codec-archive.json")).unwrap();
    let o = to_text(&archive, &["--force"]);
    assert!(!o.status.success());
    assert_eq!(fs::read(folder.join("a.txt")).unwrap(), b"old bytes");
    assert_eq!(
        fs::read(folder.join("codec-archive.json")).unwrap(),
        manifest
    );
    assert_eq!(listing(&folder), ["a.txt", "codec-archive.json"]);
    assert!(temp_names(tmp.path()).is_empty());
    // The case: a file and a folder of one name. Unpacked whole
    // over the old folder, nothing of the old one left.
    fs::write(
        &archive,
        sarc_of(&[("alaa", b"file"), ("alaa/x", b"inside")]),
    )
    .unwrap();
    let o = to_text(&archive, &["--force"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        listing(&folder),
        ["alaa", "alaa/x", "alaa~2", "codec-archive.json"]
    );
    assert_eq!(fs::read(folder.join("alaa~2")).unwrap(), b"file");
    assert!(temp_names(tmp.path()).is_empty());
}

// Case 8: codec's temporary names are skipped at every depth; an
// interrupted unpack leaves none and the old folder as it was.
#[test]
fn temporary_names_are_never_packed() {
    let tmp = tempfile::tempdir().unwrap();
    let (archive, folder) = unpacked(tmp.path(), &[("a.txt", b"a"), ("sub/deep/b.txt", b"b")]);
    fs::write(folder.join("sub/.codec-AbC123.tmp"), b"left by kill -9").unwrap();
    fs::write(folder.join("sub/deep/.codec-x.tmp"), b"and this").unwrap();
    fs::create_dir(folder.join(".codec-stage.tmp")).unwrap();
    fs::write(folder.join(".codec-stage.tmp/c.txt"), b"a staging folder").unwrap();
    let out = tmp.path().join("out.sarc");
    let o = from_text(&folder, &out);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(fs::read(&out).unwrap() == fs::read(&archive).unwrap());
}

#[cfg(unix)]
#[test]
fn an_interrupted_unpack_leaves_no_temporary_file() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..6000).map(|i| format!("d{}/{i}.bin", i % 40)).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"0123"[..])).collect();
    let archive = tmp.path().join("big.sarc");
    fs::write(&archive, sarc_of(&files)).unwrap();
    let folder = tmp.path().join("big.sarc.d");
    fs::create_dir(&folder).unwrap();
    fs::write(folder.join("old.txt"), b"the old folder").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_codec"))
        .args([
            OsStr::new("to-text"),
            OsStr::new("-q"),
            OsStr::new("--force"),
        ])
        .arg(&archive)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until files are being written into the staging folder, then
    // interrupt.
    let writing = || {
        walkdir::WalkDir::new(tmp.path())
            .min_depth(2)
            .into_iter()
            .flatten()
            .any(|e| e.path().to_string_lossy().contains("/.codec-"))
    };
    let started = std::time::Instant::now();
    let mut seen = false;
    while started.elapsed() < std::time::Duration::from_secs(60) {
        if writing() {
            seen = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    if !seen || out.status.success() {
        eprintln!("SKIPPED: the unpack finished before it could be interrupted");
        return;
    }
    assert_eq!(out.status.code(), Some(130), "{}", common::stderr(&out));
    assert!(
        temp_names(tmp.path()).is_empty(),
        "left behind: {:?}",
        temp_names(tmp.path())
    );
    assert_eq!(listing(&folder), ["old.txt"]);
}

// Case 9: a new file is converted by its extension, as the archive's own
// files are, or refused; a deleted file is reported.
#[test]
fn new_files_convert_by_extension_and_deleted_ones_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let byml =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/byml/sample_v7.byml"))
            .unwrap();
    let (_, folder) = unpacked(
        tmp.path(),
        &[("Map/a.bgyml", &byml), ("gone.txt", b"to delete")],
    );
    let yml = fs::read_to_string(folder.join("Map/a.bgyml.yml")).unwrap();
    fs::write(folder.join("Map/copy.bgyml.yml"), &yml).unwrap();
    fs::remove_file(folder.join("gone.txt")).unwrap();
    fs::write(folder.join("notes.json"), b"{\"plain\": \"json\"}").unwrap();
    let out = tmp.path().join("out.sarc");
    let o = from_text(&folder, &out);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("gone.txt") && common::stderr(&o).contains("not in the folder"),
        "a deleted file went unreported: {}",
        common::stderr(&o)
    );
    let (_, back) = sarc::decode(&fs::read(&out).unwrap()).unwrap();
    assert_eq!(back.get("Map/copy.bgyml"), Some(&byml[..]));
    assert_eq!(back.get("notes.json"), Some(&b"{\"plain\": \"json\"}"[..]));
    assert!(back.get("gone.txt").is_none());
    // Named like a converted file's text but not that text: refused.
    fs::write(folder.join("Map/bad.bgyml.yml"), b"just: words\n").unwrap();
    let o = from_text(&folder, &tmp.path().join("bad.sarc"));
    assert!(!o.status.success(), "raw YAML packed as a .bgyml");
    assert!(
        common::stderr(&o).contains("bad.bgyml.yml"),
        "{}",
        common::stderr(&o)
    );
    fs::remove_file(folder.join("Map/bad.bgyml.yml")).unwrap();
    fs::write(
        folder.join("Copy.root.ainb.json"),
        b"{\"not\": \"an AINB\"}",
    )
    .unwrap();
    let o = from_text(&folder, &tmp.path().join("bad.sarc"));
    assert!(!o.status.success(), "raw JSON packed as an .ainb");
    assert!(common::stderr(&o).contains("Copy.root.ainb.json"));
    assert!(!tmp.path().join("bad.sarc").exists());
}

// Case 9 with a real AINB: a new `.ainb.json` becomes the AINB.
#[test]
#[cfg_attr(
    corpus_missing_ainb,
    ignore = "needs the ainb corpus (../shared/corpus/ainb), absent here"
)]
fn a_new_ainb_json_is_packed_as_ainb() {
    let Some(dir) = common::corpus("ainb") else {
        return;
    };
    let file = common::paths_with_ext(&dir, "ainb")
        .into_iter()
        .min_by_key(|p| fs::metadata(p).unwrap().len())
        .unwrap();
    let ainb = fs::read(&file).unwrap();
    let json = formats::ainb::text::to_json(&formats::ainb::decode(&ainb).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (_, folder) = unpacked(tmp.path(), &[("a.txt", b"a")]);
    fs::create_dir(folder.join("AI")).unwrap();
    fs::write(folder.join("AI/Copy.root.ainb.json"), json).unwrap();
    let out = tmp.path().join("out.sarc");
    let o = from_text(&folder, &out);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let (_, back) = sarc::decode(&fs::read(&out).unwrap()).unwrap();
    assert_eq!(back.get("AI/Copy.root.ainb"), Some(&ainb[..]));
}

// Case 10: the manifest's layers are bounded.
#[test]
fn manifest_layers_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, folder) = unpacked(tmp.path(), &[("a.txt", b"a")]);
    set_manifest(&folder, |m| {
        m["layers"] = (0..200)
            .map(|_| serde_json::json!({"kind": "yaz0", "alignment": 0}))
            .collect::<Vec<_>>()
            .into();
    });
    let started = std::time::Instant::now();
    let o = from_text(&folder, &tmp.path().join("out.sarc"));
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("at most 4"),
        "{}",
        common::stderr(&o)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    // Up to the bound, what is written is what to-text reads back.
    set_manifest(&folder, |m| {
        m["layers"] = (0..4)
            .map(|_| serde_json::json!({"kind": "yaz0", "alignment": 0}))
            .collect::<Vec<_>>()
            .into();
    });
    let out = tmp.path().join("ok.sarc");
    let o = from_text(&folder, &out);
    assert!(o.status.success(), "{}", common::stderr(&o));
    common::assert_check_says_identical(&out);
}

// Case 11: dump, coverage and survey refuse the blow-ups with the offset
// and the field path (their memory: tests/tests/bounded_tools.rs).
#[test]
fn research_tools_refuse_blow_ups_where_they_happen() {
    let tmp = tempfile::tempdir().unwrap();
    let overlap = tmp.path().join("overlap.sarc");
    fs::write(&overlap, common::hostile::overlapping_sarc(2000, 1 << 20)).unwrap();
    let dag = tmp.path().join("dag.byml");
    fs::write(&dag, common::hostile::byml_dag(6, 255)).unwrap();
    for verb in ["dump", "coverage", "survey"] {
        for (file, path) in [(&overlap, "Sarc.nodes["), (&dag, "Header.root")] {
            let o = run(&[OsStr::new(verb), file.as_os_str()]);
            assert!(!o.status.success(), "{verb} {}", file.display());
            let e = common::stderr(&o);
            assert!(
                e.contains(path) && e.contains("refusing") && e.contains("offset 0x"),
                "{verb} {}: {e}",
                file.display()
            );
        }
    }
}

// Case 12: a layer's content that no codec reads is not compressed again;
// a bomb is refused by the layer, with its words.
#[test]
fn unread_content_is_not_recompressed_and_bombs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let unknown = tmp.path().join("unknown.szs");
    fs::write(&unknown, formats::layer::yaz0::compress(&[0x42; 4096], 0)).unwrap();
    let o = run(&[OsStr::new("check"), unknown.as_os_str()]);
    assert!(
        !common::stdout(&o).contains("recompress"),
        "{}",
        common::stdout(&o)
    );
    let bomb = tmp.path().join("bomb.zs");
    fs::write(&bomb, common::hostile::zstd_bomb(200 << 20)).unwrap();
    for verb in ["check", "to-text", "survey"] {
        let o = run(&[OsStr::new(verb), bomb.as_os_str()]);
        assert!(!o.status.success());
        let all = format!("{}{}", common::stdout(&o), common::stderr(&o));
        assert!(
            all.contains("zstd") && all.contains("a file of its size may hold"),
            "{verb}: {all}"
        );
    }
    assert!(!tmp.path().join("bomb.zs.yml").exists());
}

// Case 13: an encode limit is met while reading the text, with its line.
// (Memory of a 100 MB list: the issue note; the count limit itself is unit
// tested in `byml::text` with a small limit.)
#[test]
fn text_errors_name_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    let yml = tmp.path().join("x.yml");
    fs::write(
        &yml,
        "# BYML version 2, little-endian\nKeep: 1.5\nBig: 1e400\n",
    )
    .unwrap();
    let o = run(&[OsStr::new("from-text"), yml.as_os_str()]);
    assert!(!o.status.success(), "1e400 read as infinity");
    assert!(
        common::stderr(&o).contains("x.yml:3:6") && common::stderr(&o).contains("out of range"),
        "{}",
        common::stderr(&o)
    );
    fs::write(&yml, "# BYML version 2, little-endian\nBig: !f64 -1e400\n").unwrap();
    let o = run(&[OsStr::new("from-text"), yml.as_os_str()]);
    assert!(!o.status.success(), "-1e400 read as -infinity");
    fs::write(&yml, "# BYML version 2, little-endian\nInf: -.inf\n").unwrap();
    let o = run(&[OsStr::new("from-text"), yml.as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let aamp = tmp.path().join("a.bxml.yml");
    fs::write(
        &aamp,
        "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    Obj: !obj {F: 1e400}\n  lists: {}\n",
    )
    .unwrap();
    let o = run(&[OsStr::new("from-text"), aamp.as_os_str()]);
    assert!(!o.status.success(), "AAMP: 1e400 read as infinity");
    assert!(
        common::stderr(&o).contains("out of range"),
        "{}",
        common::stderr(&o)
    );
}

// Case 14: the layer's own error in to-text; names with control characters
// printed escaped.
#[test]
fn messages_say_the_layer_and_escape_names() {
    let tmp = tempfile::tempdir().unwrap();
    // A frame that names a dictionary nobody gave.
    let dict = zstd::dict::from_samples(
        &(0..64)
            .map(|i| format!("sample {i} of some text to train on, {i}").into_bytes())
            .collect::<Vec<_>>(),
        1024,
    )
    .unwrap();
    let mut dicts = formats::layer::Dictionaries::default();
    dicts.add_file(&dict).unwrap();
    let did = zstd::zstd_safe::get_dict_id_from_dict(&dict).unwrap().get();
    let framed =
        formats::layer::zstd::compress(&sarc_of(&[("a", b"a")]), Some(did), &dicts).unwrap();
    let zs = tmp.path().join("pack.zs");
    fs::write(&zs, framed).unwrap();
    let o = to_text(&zs, &[]);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains(&format!("dictionary {did}")),
        "{}",
        common::stderr(&o)
    );
    // A broken frame: the zstd error, not "no known magic".
    let mut broken = formats::layer::zstd::compress(&[7; 1000], None, &dicts).unwrap();
    broken.truncate(broken.len() - 3);
    fs::write(&zs, &broken).unwrap();
    let o = to_text(&zs, &[]);
    assert!(
        common::stderr(&o).contains("zstd"),
        "{}",
        common::stderr(&o)
    );
    assert!(!common::stderr(&o).contains("no known magic"));
    // A member named with a newline and an escape sequence.
    let evil = "a\nchecked 0 files: all fine\u{1b}[2J";
    let archive = tmp.path().join("n.sarc");
    fs::write(&archive, sarc_of(&[(evil, b"x")])).unwrap();
    let o = run(&[OsStr::new("check"), archive.as_os_str()]);
    let out = common::stdout(&o) + &common::stderr(&o);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(!out.contains("\nchecked 0 files: all fine"), "{out:?}");
}

/// Runs `codec ARGS` under `sh -c 'ulimit LIMIT; ...'`: a resource limit
/// for the one run.
fn run_limited(limit: &str, args: &[&OsStr]) -> std::process::Output {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_codec"))
        .args(args);
    cmd.output().expect("run codec under sh")
}

// Issue 70: TotK's message archive has 1,510 members; extracting them
// failed with "Too many open files" past about 1,000 under the usual limit
// of 1,024, leaving empty folders. Under a limit of 64 every member of a
// 1,510-member archive is written.
#[test]
fn extract_writes_more_members_than_files_may_be_open() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..1510).map(|i| format!("Msg/m{i:04}.txt")).collect();
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"text"[..])).collect();
    let archive = tmp.path().join("many.sarc");
    fs::write(&archive, sarc_of(&files)).unwrap();
    let out = tmp.path().join("out");
    let o = run_limited(
        "-n 64",
        &[
            OsStr::new("archive"),
            OsStr::new("extract"),
            archive.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(listing(&out.join("Msg")).len(), 1510);
    assert!(temp_names(tmp.path()).is_empty());
}

// Issue 70: `archive add/delete -o EXISTING` replaced a file without
// `--force`; the archive itself is still rewritten in place.
#[test]
fn an_edit_replaces_another_output_only_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("a.sarc");
    fs::write(&archive, sarc_of(&[("a.txt", b"a"), ("b.txt", b"b")])).unwrap();
    let other = tmp.path().join("other.sarc");
    fs::write(&other, b"precious").unwrap();
    let new = tmp.path().join("c.txt");
    fs::write(&new, b"c").unwrap();
    let mut pair = std::ffi::OsString::from("c.txt=");
    pair.push(new.as_os_str());
    let jobs: [Vec<&OsStr>; 2] = [
        vec![
            OsStr::new("delete"),
            archive.as_os_str(),
            OsStr::new("a.txt"),
        ],
        vec![OsStr::new("add"), archive.as_os_str(), pair.as_os_str()],
    ];
    for job in &jobs {
        let mut args = vec![OsStr::new("archive")];
        args.extend(job.iter().copied());
        args.extend([OsStr::new("-o"), other.as_os_str()]);
        let o = run(&args);
        assert!(!o.status.success(), "{job:?} replaced an existing -o");
        assert!(
            common::stderr(&o).contains("--force"),
            "{}",
            common::stderr(&o)
        );
        assert_eq!(fs::read(&other).unwrap(), b"precious");
        args.push(OsStr::new("--force"));
        let o = run(&args);
        assert!(o.status.success(), "{}", common::stderr(&o));
        assert_ne!(fs::read(&other).unwrap(), b"precious");
        fs::write(&other, b"precious").unwrap();
    }
    // Without -o the archive is the output: rewritten, no --force needed.
    let o = run(&[
        OsStr::new("archive"),
        OsStr::new("delete"),
        archive.as_os_str(),
        OsStr::new("a.txt"),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
}

// Issue 70: a manifest that names one member twice packed both (the game
// finds one of them). Refused, unless both are the archive's own entries
// unchanged (an archive that held a name twice comes back as it was).
#[test]
fn a_name_given_twice_in_a_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, folder) = unpacked(tmp.path(), &[("a.txt", b"a"), ("b.txt", b"b")]);
    let manifest = folder.join("codec-archive.json");
    let text = fs::read_to_string(&manifest).unwrap();
    // The entry of b.txt renamed to a.txt, its file edited.
    let text = text.replace("\"name\": \"b.txt\"", "\"name\": \"a.txt\"");
    fs::write(&manifest, text).unwrap();
    fs::write(folder.join("b.txt"), b"edited").unwrap();
    let out = tmp.path().join("back.sarc");
    let o = from_text(&folder, &out);
    assert!(!o.status.success(), "two members named a.txt were packed");
    let e = common::stderr(&o);
    assert!(
        e.contains("files[1] (a.txt)") && e.contains("files[0]"),
        "{e}"
    );
    assert!(!out.exists());
}

// Issue 70: `kill -9` leaves a `.codec-*.tmp` beside an output; a later
// run over the folder does not take it for an input.
#[test]
fn a_killed_runs_temporary_file_is_not_an_input() {
    let tmp = tempfile::tempdir().unwrap();
    let sarc = sarc_of(&[("a.txt", b"a")]);
    fs::write(tmp.path().join("a.sarc"), &sarc).unwrap();
    // Half an archive, as a killed write leaves it.
    fs::write(
        tmp.path().join(".codec-Ab12Cd.tmp"),
        &sarc[..sarc.len() / 2],
    )
    .unwrap();
    let o = run(&[OsStr::new("check"), tmp.path().as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        common::stdout(&o).contains("checked 1 files"),
        "{}",
        common::stdout(&o)
    );
}

// Issue 70: a write past `ulimit -f` ended the process (SIGXFSZ) with its
// temporary file left beside the output; it is an error like a full disk.
#[test]
fn a_write_past_the_file_size_limit_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..64).map(|i| format!("f{i}.bin")).collect();
    let big = vec![7u8; 64 << 10];
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &big[..])).collect();
    let (_, folder) = unpacked(tmp.path(), &files);
    let out = tmp.path().join("out.sarc");
    // 1024-byte blocks: a 1 MiB limit, the archive is 4 MiB.
    let o = run_limited(
        "-f 1024",
        &[
            OsStr::new("from-text"),
            folder.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
    );
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("out.sarc"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists());
    assert!(
        temp_names(tmp.path()).is_empty(),
        "{:?}",
        temp_names(tmp.path())
    );
}
