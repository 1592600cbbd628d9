//! The `codec` command line, run as a process: `codec check` on files this
//! test writes itself (encoded from documents built here), and on the real
//! corpus when it is present.

use formats::aamp::{self, ParameterIO, ParameterList, ParameterObject, ParameterValue};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SUMMARY_PREFIX: &str = "checked ";

/// A small document: a root list with an object of parameters of several
/// types and a child list with one more object. `seed` varies the values.
fn document(seed: i32) -> ParameterIO {
    let settings = ParameterObject::new("Settings")
        .with("flag", ParameterValue::Bool(seed % 2 == 0))
        .with("speed", ParameterValue::F32(1.5 * seed as f32))
        .with("count", ParameterValue::Int(-seed))
        .with("pos", ParameterValue::Vec3([1.0, 2.0, seed as f32]))
        .with("ids", ParameterValue::BufferInt(vec![seed, 7, 9]))
        .with(
            "label",
            ParameterValue::String64(format!("doc {seed}").into()),
        );
    let extra = ParameterObject::new("Extra").with("mask", ParameterValue::U32(0xF0 + seed as u32));
    let mut pio = ParameterIO::new("xml");
    pio.root = ParameterList::new(aamp::ROOT_NAME)
        .with_object(settings)
        .with_list(ParameterList::new("Children").with_object(extra));
    pio
}

fn encoded(seed: i32) -> Vec<u8> {
    aamp::encode(&document(seed)).expect("the test document encodes")
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create folder");
    }
    fs::write(path, bytes).expect("write test file");
}

fn codec<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .output()
        .expect("run codec")
}

fn check(paths: &[&Path]) -> Output {
    let mut args = vec![std::ffi::OsString::from("check")];
    args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
    codec(args)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The report's lines without the throughput line of a run over several
/// files (its own test checks it), which varies from run to run.
fn lines(out: &Output) -> Vec<String> {
    stdout(out)
        .lines()
        .filter(|l| !is_rate_line(l))
        .map(str::to_owned)
        .collect()
}

fn is_rate_line(line: &str) -> bool {
    line.contains(" MB in ") && line.contains(" files/s, ") && line.ends_with(" threads")
}

fn summary(out: &Output) -> String {
    let lines = lines(out);
    let last = lines.last().cloned().unwrap_or_default();
    assert!(
        last.starts_with(SUMMARY_PREFIX),
        "the last line is the summary:\n{}",
        stdout(out)
    );
    last
}

#[test]
fn identical_files_exit_zero_with_only_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a.bxml"), &encoded(1));
    write(&dir.path().join("b.bgparamlist"), &encoded(2));

    let out = check(&[dir.path()]);
    let text = stdout(&out);
    let (rate, summary) = text.split_once('\n').unwrap();
    assert_eq!(
        summary,
        "checked 2 files: 2 identical, 0 differ, 0 failed\n"
    );
    // The run's throughput closes a run over several files: the two files'
    // bytes, and rates that a count of 2 files gives.
    let bytes = (encoded(1).len() + encoded(2).len()) as f64 / 1e6;
    assert!(
        rate.starts_with(&format!("2 files, {bytes:.1} MB in ")) && rate.contains(" files/s, "),
        "{rate}"
    );
    assert!(rate.ends_with(" threads"), "{rate}");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The last byte of an AAMP file is string padding: flipping it changes the
/// bytes but not the document. The byte is not zero and no field reads it,
/// so writing the document again loses it: the file differs, and the line
/// says which bytes and after which field (issue 72: `equivalent` is only
/// for files that lose nothing but their layout).
#[test]
fn flipped_padding_byte_differs_naming_the_unread_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.bxml");
    let bad = dir.path().join("bad.bxml");
    write(&good, &encoded(1));
    let mut bytes = encoded(2);
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    write(&bad, &bytes);

    let out = check(&[dir.path()]);
    let got = lines(&out);
    assert_eq!(got.len(), 2, "{got:?}");
    let head = format!(
        "{}: differs at 0x{last:x}: 2 byte(s) of the input that are not zero, in 1 range(s) \
         the schema does not read (the first at 0x{:x}, after ",
        bad.display(),
        last - 1
    );
    assert!(got[0].starts_with(&head), "{got:?}");
    assert!(
        got[0].ends_with("are not in the document, so not written back"),
        "{got:?}"
    );
    assert_eq!(got[1], "checked 2 files: 1 identical, 1 differ, 0 failed");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn corrupted_header_fails_naming_path_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.bxml");
    let mut bytes = encoded(3);
    bytes[4] = 9; // the format version, which must be 2
    write(&bad, &bytes);

    let out = check(&[&bad]);
    // The error goes to stderr; stdout holds only the summary.
    assert_eq!(
        lines(&out),
        ["checked 1 files: 0 identical, 0 differ, 1 failed"]
    );
    let err = stderr(&out);
    let prefix = format!("codec: {}: aamp decode error", bad.display());
    assert!(err.starts_with(&prefix), "{err}");
    assert!(err.contains("offset 0x4"), "{err}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn truncated_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("short.bxml");
    let bytes = encoded(4);
    write(&bad, &bytes[..bytes.len() / 2]);

    let out = check(&[dir.path()]);
    assert!(
        stderr(&out).starts_with(&format!(
            "codec: {}: aamp decode error at offset 0x",
            bad.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        summary(&out),
        "checked 1 files: 0 identical, 0 differ, 1 failed"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn text_file_in_a_folder_is_skipped_and_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a.bxml"), &encoded(1));
    write(&dir.path().join("notes.yml"), b"!io\nversion: 0\n");
    write(&dir.path().join("empty.txt"), b"");

    let out = check(&[dir.path()]);
    assert_eq!(
        lines(&out),
        [
            "skipped 2 files of no supported format",
            "checked 1 files: 1 identical, 0 differ, 0 failed",
        ]
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn text_file_named_on_the_command_line_is_counted_as_failed() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a.bxml");
    let text = dir.path().join("notes.yml");
    write(&good, &encoded(1));
    write(&text, b"!io\nversion: 0\n");

    let out = check(&[&good, &text]);
    assert!(
        stderr(&out).starts_with(&format!(
            "codec: {}: not a file of a supported format",
            text.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        lines(&out),
        ["checked 2 files: 1 identical, 0 differ, 1 failed"]
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_file_named_and_inside_a_named_folder_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.yml");
    write(&dir.path().join("a.bxml"), &encoded(1));
    write(&text, b"hello\n");

    let out = check(&[dir.path(), &text]);
    assert_eq!(
        summary(&out),
        "checked 2 files: 1 identical, 0 differ, 1 failed",
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("skipped"), "{}", stdout(&out));
}

#[test]
fn nested_folders_are_walked_and_lines_are_sorted_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut bad_paths = Vec::new();
    for (i, rel) in ["z/deep/er/x.bxml", "a/b/c/y.bxml", "m.bxml", "a/a.bxml"]
        .iter()
        .enumerate()
    {
        let mut bytes = encoded(i as i32);
        let last = bytes.len() - 1;
        bytes[last] ^= 0x01;
        let path = root.join(rel);
        write(&path, &bytes);
        bad_paths.push((path, last));
    }
    write(&root.join("a/b/ok.bxml"), &encoded(10));
    write(&root.join("z/deep/ok.bxml"), &encoded(11));
    write(&root.join("z/deep/readme.md"), b"# not a codec file\n");
    bad_paths.sort();

    // Run twice: rayon's scheduling must not change the output.
    let first = check(&[root]);
    let second = check(&[root]);
    assert_eq!(lines(&first), lines(&second));

    // Each flipped padding byte is lost on writing (see above): the lines
    // name the files in path order.
    let mut expected: Vec<String> = bad_paths
        .iter()
        .map(|(p, last)| format!("{}: differs at 0x{last:x}: ", p.display()))
        .collect();
    expected.push("skipped 1 files of no supported format".into());
    expected.push("checked 6 files: 2 identical, 4 differ, 0 failed".into());
    let got = lines(&first);
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, e) in got.iter().zip(&expected) {
        assert!(g.starts_with(e.as_str()), "{g} (expected {e}…)");
    }
    assert_eq!(first.status.code(), Some(1));
}

#[test]
fn missing_path_fails_as_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.bxml");

    let out = check(&[&missing]);
    assert_eq!(
        lines(&out),
        ["checked 1 files: 0 identical, 0 differ, 1 failed"]
    );
    assert_eq!(
        stderr(&out),
        format!("codec: {}: not found\n", missing.display())
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn length_mismatch_reports_both_lengths() {
    let dir = tempfile::tempdir().unwrap();
    let padded = dir.path().join("padded.bxml");
    let mut bytes = encoded(5);
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    write(&padded, &bytes);

    let out = check(&[&padded]);
    // The file size field still says `len`, so the decoder rejects the
    // trailing bytes, naming the field.
    assert_eq!(
        lines(&out),
        ["checked 1 files: 0 identical, 0 differ, 1 failed"]
    );
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("codec: {}: aamp decode error", padded.display()))
            && err.contains("file_size"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn format_option_overrides_detection() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.yml");
    write(&text, b"!io\nversion: 0\n");

    // Forced to AAMP, the text file is decoded as one and fails there,
    // not at detection.
    let out = codec([
        "check".as_ref(),
        "--format".as_ref(),
        "aamp".as_ref(),
        text.as_os_str(),
    ]);
    assert!(
        stderr(&out).starts_with(&format!("codec: {}: aamp decode error", text.display())),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        summary(&out),
        "checked 1 files: 0 identical, 0 differ, 1 failed"
    );
    assert_eq!(out.status.code(), Some(1));

    let good = dir.path().join("a.bxml");
    write(&good, &encoded(1));
    let out = codec(["check".as_ref(), "--format=aamp".as_ref(), good.as_os_str()]);
    assert_eq!(
        stdout(&out),
        "checked 1 files: 1 identical, 0 differ, 0 failed\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(codec(["check"]).status.code(), Some(2));
    assert_eq!(
        codec(["check", "--format", "nope", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(codec(["no-such-verb"]).status.code(), Some(2));
    assert_eq!(codec(Vec::<&str>::new()).status.code(), Some(2));
}

#[test]
fn help_explains_summary_and_exit_status() {
    let top = codec(["--help"]);
    assert_eq!(top.status.code(), Some(0));
    let top = stdout(&top);
    assert!(top.contains("check"), "{top}");
    assert!(top.contains("Exit status"), "{top}");

    let out = codec(["check", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for needle in [
        "checked N files: A identical, B differ, C failed",
        "skipped",
        "Exit status",
        "--format",
    ] {
        assert!(help.contains(needle), "missing {needle:?} in:\n{help}");
    }
}

/// The AAMP corpus: `$CODEC_CORPUS/aamp`, else `../shared/corpus/aamp`
/// beside the workspace.
fn corpus_dir() -> PathBuf {
    match std::env::var_os("CODEC_CORPUS") {
        Some(base) => PathBuf::from(base).join("aamp"),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/aamp"),
    }
}

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn corpus_is_byte_identical() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        println!("skipped: corpus not found at {}", dir.display());
        return;
    }
    let out = check(&[&dir]);
    assert_eq!(
        summary(&out),
        "checked 158 files: 158 identical, 0 differ, 0 failed",
        "{}",
        stdout(&out)
    );
    assert_eq!(out.status.code(), Some(0));
}

/// A file inside compression layers counts by the file inside; its line
/// names each layer (outermost first) and what recompressing each gave: our
/// own compressors' output, with its header's alignment word, comes back
/// byte for byte.
#[test]
fn compressed_files_are_checked_inside_their_layers() {
    use formats::layer::{yaz0, zstd, Dictionaries};
    let dir = tempfile::tempdir().unwrap();
    let plain = encoded(3);
    write(&dir.path().join("a.sbxml"), &yaz0::compress(&plain, 0x80));
    let z = zstd::compress(&plain, None, &Dictionaries::default()).unwrap();
    write(&dir.path().join("b.bxml.zs"), &z);
    // Yaz0 inside zstd.
    let both = zstd::compress(&yaz0::compress(&plain, 0), None, &Dictionaries::default()).unwrap();
    write(&dir.path().join("c.sbxml.zs"), &both);
    // A compressed file of no supported format is skipped in a folder.
    write(
        &dir.path().join("d.szs"),
        &yaz0::compress(b"XYZW and more", 0),
    );

    // -v: a line for each file inside, identical or kept as bytes. By
    // default no layer is recompressed (issue 76: the game's bytes never
    // come back, and recompressing was most of a check's time).
    let out = codec([
        std::ffi::OsStr::new("check"),
        std::ffi::OsStr::new("-v"),
        dir.path().as_os_str(),
    ]);
    let dir_s = dir.path().display().to_string();
    assert_eq!(
        lines(&out)[..3],
        [
            format!("{dir_s}/a.sbxml ▸ Yaz0 ▸ aamp: identical; Yaz0 bytes not compared (--compare-layers)"),
            format!("{dir_s}/b.bxml.zs ▸ zstd ▸ aamp: identical; zstd bytes not compared (--compare-layers)"),
            format!(
                "{dir_s}/c.sbxml.zs ▸ zstd ▸ Yaz0 ▸ aamp: identical; zstd bytes not compared (--compare-layers); \
                 Yaz0 bytes not compared (--compare-layers)"
            ),
        ],
        "{}",
        stdout(&out)
    );
    // --compare-layers: each layer recompressed and compared.
    let out = codec([
        std::ffi::OsStr::new("check"),
        std::ffi::OsStr::new("-v"),
        std::ffi::OsStr::new("--compare-layers"),
        dir.path().as_os_str(),
    ]);
    let lines = lines(&out);
    assert_eq!(
        lines,
        [
            format!("{dir_s}/a.sbxml ▸ Yaz0 ▸ aamp: identical; Yaz0 recompressed identically"),
            format!("{dir_s}/b.bxml.zs ▸ zstd ▸ aamp: identical; zstd recompressed identically"),
            format!(
                "{dir_s}/c.sbxml.zs ▸ zstd ▸ Yaz0 ▸ aamp: identical; zstd recompressed identically; \
                 Yaz0 recompressed identically"
            ),
            // Content no codec reads is not compressed again (issue 47).
            format!("{dir_s}/d.szs ▸ Yaz0 ▸ XYZW: kept as bytes: no supported format"),
            "kept as bytes inside archives and layers (no supported format): 1 XYZW".to_owned(),
            "checked 3 files: 3 identical, 0 differ, 0 failed".to_owned(),
        ],
        "{}",
        stdout(&out)
    );
    assert_eq!(out.status.code(), Some(0));

    // A broken layer fails with its offset; named, an unsupported inner
    // format fails too.
    let mut cut = yaz0::compress(&plain, 0);
    cut.truncate(cut.len() - 5);
    write(&dir.path().join("e.sbxml"), &cut);
    let out = check(&[&dir.path().join("e.sbxml"), &dir.path().join("d.szs")]);
    let text = stdout(&out);
    let err = stderr(&out);
    assert!(
        err.contains("e.sbxml: Yaz0 at offset 0x")
            && err.contains("ends before the decompressed size"),
        "{err}"
    );
    assert!(
        text.contains("d.szs ▸ Yaz0 ▸ XYZW: failed: not a file of a supported format"),
        "{text}"
    );
    assert_eq!(
        summary(&out),
        "checked 2 files: 0 identical, 0 differ, 2 failed"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A dictionary that cannot be read is a usage error, named.
#[test]
fn a_bad_zstd_dictionary_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dict = dir.path().join("not.zsdic");
    write(&dict, b"nothing here");
    let out = codec([
        "check".as_ref(),
        "--zstd-dict".as_ref(),
        dict.as_os_str(),
        dir.path().as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--zstd-dict") && err.contains("not.zsdic"),
        "{err}"
    );
}

/// `--variant` names a variant of every format the command reads, BYML and
/// SARC included (issue 48: `--variant le` on a BYML file was refused as
/// "not a variant of any format", from a list of formats kept by hand). A
/// file whose magic names another variant than the one asked for fails,
/// saying both; a name no format knows is a usage error listing them all.
#[test]
fn variant_names_a_byml_variant() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sample = repo.join("samples/byml/sample_v7.byml");
    let o = codec([
        "check".as_ref(),
        "--variant".as_ref(),
        "le".as_ref(),
        sample.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(summary(&o).contains("1 identical"), "{}", stdout(&o));

    let o = codec([
        "check".as_ref(),
        "--variant".as_ref(),
        "be".as_ref(),
        sample.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let report = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        report.contains("the file is of the variant Le, not the variant Be asked for"),
        "{report}"
    );

    let o = codec([
        "check".as_ref(),
        "--variant".as_ref(),
        "nosuch".as_ref(),
        sample.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    for format in formats::Format::all() {
        assert!(
            err.contains(&format!("{format}: ")),
            "{format} is listed: {err}"
        );
    }
}

/// `to-text` of a compressed single file converts what its layers hold
/// (peeled once, by the test that tells it from an archive); a broken
/// layer, named, fails with its offset; in a folder, a compressed file of
/// no text format is passed over, and a broken one fails the run.
#[test]
fn to_text_converts_a_compressed_file_and_names_a_broken_layer() {
    use formats::layer::yaz0;
    let dir = tempfile::tempdir().unwrap();
    let plain = encoded(5);
    let good = dir.path().join("in/a.sbxml");
    write(&good, &yaz0::compress(&plain, 0));
    let mut cut = yaz0::compress(&plain, 0);
    cut.truncate(cut.len() - 5);
    let broken = dir.path().join("in/b.sbxml");
    write(&broken, &cut);
    write(
        &dir.path().join("in/c.szs"),
        &yaz0::compress(b"XYZW and more", 0),
    );

    let out = codec([std::ffi::OsStr::new("to-text"), good.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = fs::read_to_string(dir.path().join("in/a.sbxml.yml")).unwrap();
    assert!(text.starts_with("# codec layers:"), "{}", &text[..80]);
    assert_eq!(
        text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n",
        aamp::text::to_yaml(&document(5), &Default::default())
    );

    let out = codec([std::ffi::OsStr::new("to-text"), broken.as_os_str()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("b.sbxml: Yaz0 at offset 0x")
            && err.contains("ends before the decompressed size"),
        "{err}"
    );

    fs::remove_file(dir.path().join("in/a.sbxml.yml")).unwrap();
    // In a folder: the good file converted, the broken layer a failure
    // with its reason (it was skipped in silence: issue 74), the layer of
    // content with no text form skipped.
    let out = codec([
        std::ffi::OsStr::new("to-text"),
        dir.path().join("in").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("b.sbxml: Yaz0 at offset 0x"),
        "{}",
        stderr(&out)
    );
    assert!(dir.path().join("in/a.sbxml.yml").is_file());
    assert!(!dir.path().join("in/b.sbxml.yml").exists());
    assert!(!dir.path().join("in/c.szs.yml").exists());
}
