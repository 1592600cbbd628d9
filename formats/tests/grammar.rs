//! The one grammar of `codec`: every subcommand that reads files, in the
//! same seven situations (success, missing path, empty folder, empty file,
//! truncated file, existing output without `--force`, read-only
//! destination), gives the exit status of the one table (0 all good, 1 a
//! file failed, 2 usage), puts results on stdout and errors on stderr, and
//! starts with the same first line. Each row pins all three.

mod common;

use common::{codec, scratch, stderr, stdout};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a case's first line is expected, and how it starts.
#[derive(Debug, Clone, Copy)]
enum First {
    Stdout(&'static str),
    Stderr(&'static str),
}

/// One row of the matrix: the arguments (`{}` stands for the case's path),
/// the exit status and the first line.
struct Case {
    name: &'static str,
    args: Vec<String>,
    status: i32,
    first: First,
}

fn sample() -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/aamp/actor.bxml"))
        .expect("the AAMP sample")
}

/// The folder of one subcommand's cases: `good.bxml`, `empty.bxml`,
/// `short.bxml`, an empty folder `nothing/`, and a text form of the sample `good.bxml.yml`.
fn fixtures(verb: &str) -> PathBuf {
    let dir = scratch("grammar", verb);
    let bytes = sample();
    fs::write(dir.join("good.bxml"), &bytes).unwrap();
    fs::write(dir.join("empty.bxml"), b"").unwrap();
    fs::write(dir.join("short.bxml"), &bytes[..bytes.len() / 2]).unwrap();
    fs::create_dir_all(dir.join("nothing")).unwrap();
    let o = codec(&[
        "to-text".as_ref(),
        dir.join("good.bxml").as_os_str(),
        "-o".as_ref(),
        dir.join("text.yml").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

fn run(dir: &Path, case: &Case) {
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| a.replace("{}", &dir.display().to_string()))
        .collect();
    let o = codec(&args);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(
        o.status.code(),
        Some(case.status),
        "{}: codec {}\nstdout: {out}\nstderr: {err}",
        case.name,
        args.join(" ")
    );
    let (stream, text, start) = match case.first {
        First::Stdout(s) => ("stdout", &out, s),
        First::Stderr(s) => ("stderr", &err, s),
    };
    let start = start.replace("{}", &dir.display().to_string());
    let line = text.lines().next().unwrap_or_default();
    assert!(
        line.starts_with(&start),
        "{}: codec {}: the first line of {stream} should start with {start:?}\nstdout: {out}\nstderr: {err}",
        case.name,
        args.join(" ")
    );
    // Errors never go to stdout, and a success prints no error.
    if case.status == 0 {
        assert!(err.is_empty(), "{}: stderr: {err}", case.name);
    } else {
        // Usage errors found by the argument parser read `error: ...`.
        let usage = case.status == 2 && err.starts_with("error: ");
        assert!(
            err.starts_with("codec: ") || usage,
            "{}: stderr: {err}",
            case.name
        );
    }
}

fn case(name: &'static str, args: &[&str], status: i32, first: First) -> Case {
    Case {
        name,
        args: args.iter().map(|s| s.to_string()).collect(),
        status,
        first,
    }
}

use First::{Stderr, Stdout};

#[test]
fn check() {
    let dir = fixtures("check");
    for c in [
        case(
            "success",
            &["check", "{}/good.bxml"],
            0,
            Stdout("checked 1 files: 1 identical"),
        ),
        case(
            "missing path",
            &["check", "{}/nope.bxml"],
            1,
            Stderr("codec: {}/nope.bxml: not found"),
        ),
        case(
            "empty folder",
            &["check", "{}/nothing"],
            1,
            Stderr("codec: no files of a supported format under {}/nothing"),
        ),
        case(
            "empty file",
            &["check", "{}/empty.bxml"],
            1,
            Stderr("codec: {}/empty.bxml: empty file"),
        ),
        case(
            "truncated file",
            &["check", "{}/short.bxml"],
            1,
            Stderr("codec: {}/short.bxml: aamp decode error at offset 0x"),
        ),
    ] {
        run(&dir, &c);
    }
}

#[test]
fn dump() {
    let dir = fixtures("dump");
    for c in [
        case(
            "success",
            &["dump", "{}/good.bxml"],
            0,
            Stdout("# {}/good.bxml: 380 bytes"),
        ),
        case(
            "missing path",
            &["dump", "{}/nope.bxml"],
            1,
            Stderr("codec: {}/nope.bxml: not found"),
        ),
        case(
            "empty folder",
            &["dump", "{}/nothing"],
            1,
            Stderr("codec: no files of a supported format under {}/nothing"),
        ),
        case(
            "empty file",
            &["dump", "{}/empty.bxml"],
            1,
            Stderr("codec: {}/empty.bxml: empty file"),
        ),
        // What was read before the error is still printed.
        case(
            "truncated file",
            &["dump", "{}/short.bxml"],
            1,
            Stdout("# {}/short.bxml: 190 bytes"),
        ),
    ] {
        run(&dir, &c);
    }
}

#[test]
fn coverage() {
    let dir = fixtures("coverage");
    for c in [
        case(
            "success",
            &["coverage", "-q", "{}/good.bxml"],
            0,
            Stdout("coverage of 1 file(s)"),
        ),
        case(
            "missing path",
            &["coverage", "{}/nope.bxml"],
            1,
            Stderr("codec: {}/nope.bxml: not found"),
        ),
        case(
            "empty folder",
            &["coverage", "{}/nothing"],
            1,
            Stderr("codec: no files of a supported format under {}/nothing"),
        ),
        case(
            "empty file",
            &["coverage", "{}/empty.bxml"],
            1,
            Stderr("codec: {}/empty.bxml: empty file"),
        ),
        case(
            "truncated file",
            &["coverage", "{}/short.bxml"],
            1,
            Stderr("codec: {}/short.bxml: decode error at offset 0x"),
        ),
    ] {
        run(&dir, &c);
    }
}

#[test]
fn to_text() {
    let dir = fixtures("to_text");
    fs::write(dir.join("taken.yml"), "old").unwrap();
    for c in [
        case(
            "success",
            &["to-text", "{}/good.bxml", "-o", "{}/out.yml"],
            0,
            Stdout("wrote {}/out.yml"),
        ),
        case(
            "missing path",
            &["to-text", "{}/nope.bxml"],
            1,
            Stderr("codec: {}/nope.bxml: not found"),
        ),
        case(
            "empty folder",
            &["to-text", "{}/nothing"],
            1,
            Stderr("codec: no files of a supported format under {}/nothing"),
        ),
        case(
            "empty file",
            &["to-text", "{}/empty.bxml"],
            1,
            Stderr("codec: {}/empty.bxml: empty file"),
        ),
        case(
            "truncated file",
            &["to-text", "{}/short.bxml"],
            1,
            Stderr("codec: {}/short.bxml: decode error at offset 0x"),
        ),
        case(
            "existing output",
            &["to-text", "{}/good.bxml", "-o", "{}/taken.yml"],
            1,
            Stderr("codec: {}/taken.yml: exists; use --force"),
        ),
    ] {
        run(&dir, &c);
    }
    assert_eq!(fs::read_to_string(dir.join("taken.yml")).unwrap(), "old");
    read_only_destination(&dir, &["to-text", "{}/good.bxml", "-o", "{ro}/out.yml"]);
}

#[test]
fn from_text() {
    let dir = fixtures("from_text");
    fs::write(dir.join("taken.bxml"), "old").unwrap();
    fs::write(dir.join("empty.yml"), "").unwrap();
    let text = fs::read_to_string(dir.join("text.yml")).unwrap();
    fs::write(dir.join("short.yml"), &text[..text.len() / 2]).unwrap();
    for c in [
        case(
            "success",
            &["from-text", "{}/text.yml", "-o", "{}/out.bxml"],
            0,
            Stdout("wrote {}/out.bxml"),
        ),
        case(
            "missing path",
            &["from-text", "{}/nope.yml"],
            1,
            Stderr("codec: {}/nope.yml: not found"),
        ),
        case(
            "empty folder",
            &["from-text", "{}/nothing"],
            1,
            Stderr("codec: no files of a supported format under {}/nothing"),
        ),
        case(
            "empty file",
            &["from-text", "{}/empty.yml"],
            1,
            Stderr("codec: {}/empty.yml: empty file"),
        ),
        case(
            "truncated file",
            &["from-text", "{}/short.yml", "-o", "{}/short.bxml2"],
            1,
            Stderr("codec: {}/short.yml:"),
        ),
        case(
            "existing output",
            &["from-text", "{}/text.yml", "-o", "{}/taken.bxml"],
            1,
            Stderr("codec: {}/taken.bxml: exists; use --force"),
        ),
    ] {
        run(&dir, &c);
    }
    assert_eq!(fs::read_to_string(dir.join("taken.bxml")).unwrap(), "old");
    read_only_destination(&dir, &["from-text", "{}/text.yml", "-o", "{ro}/out.bxml"]);
}

#[test]
fn docs() {
    let dir = scratch("grammar", "docs");
    let schema = dir.join("tiny.ron");
    fs::write(
        &schema,
        r#"Schema(name: "tiny", endian: Little, root: "T", types: [Struct(name: "T", doc: "T.", fields: [(name: "x", type: U8, doc: "x.")])])"#,
    )
    .unwrap();
    fs::write(dir.join("empty.ron"), "").unwrap();
    fs::create_dir_all(dir.join("taken")).unwrap();
    fs::write(dir.join("taken/tiny.md"), "old").unwrap();
    for c in [
        case(
            "success",
            &[
                "docs",
                "--schema",
                "{}/tiny.ron",
                "--kind",
                "md",
                "--out",
                "{}/pages",
            ],
            0,
            Stdout("wrote {}/pages/tiny.md"),
        ),
        case(
            "missing path",
            &["docs", "--schema", "{}/nope.ron", "--out", "{}/pages"],
            2,
            Stderr("codec: schema errors:"),
        ),
        case(
            "empty file",
            &["docs", "--schema", "{}/empty.ron", "--out", "{}/pages"],
            2,
            Stderr("codec: schema errors:"),
        ),
        case(
            "existing output",
            &[
                "docs",
                "--schema",
                "{}/tiny.ron",
                "--kind",
                "md",
                "--out",
                "{}/taken",
            ],
            1,
            Stderr("codec: {}/taken/tiny.md: exists"),
        ),
        case(
            "usage: no --out",
            &["docs", "--schema", "{}/tiny.ron"],
            2,
            Stderr("error:"),
        ),
    ] {
        run(&dir, &c);
    }
    assert_eq!(
        fs::read_to_string(dir.join("taken/tiny.md")).unwrap(),
        "old"
    );
    read_only_destination(
        &dir,
        &[
            "docs",
            "--schema",
            "{}/tiny.ron",
            "--kind",
            "md",
            "--out",
            "{ro}/pages",
        ],
    );
}

/// A destination folder that cannot be written (`{ro}` in `args`): status
/// 1, an error naming the output (not a temporary file), and nothing left
/// behind. A user that may write anywhere (root, as in CI) gets `/sys`
/// instead, where not even root may create files.
fn read_only_destination(dir: &Path, args: &[&str]) {
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.join("ro");
    fs::create_dir_all(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let writable = fs::write(ro.join("probe"), b"").is_ok();
    let _ = fs::remove_file(ro.join("probe"));
    let target = if writable {
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
        let sys = PathBuf::from("/sys");
        if !sys.is_dir() || fs::write(sys.join("codec-probe"), b"").is_ok() {
            eprintln!("SKIPPED read-only destination: no folder here refuses this user");
            return;
        }
        sys
    } else {
        ro.clone()
    };
    let ro_s = target.display().to_string();
    let args: Vec<String> = args.iter().map(|a| a.replace("{ro}", &ro_s)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let first: &'static str = Box::leak(format!("codec: {ro_s}/").into_boxed_str());
    run(dir, &case("read-only destination", &args, 1, Stderr(first)));
    if !writable {
        assert_eq!(
            fs::read_dir(&ro).unwrap().count(),
            0,
            "nothing is left behind"
        );
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// `codec formats` and `codec completions` are the small things users expect.
#[test]
fn formats_and_completions() {
    let o = codec(&["formats"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for name in ["aamp", "ainb", "bdat", "Yaz0", "zstd"] {
        assert!(out.contains(name), "{out}");
    }
    // The library's views, and how much of each format they read.
    let views = out
        .lines()
        .find(|l| l.starts_with("views"))
        .expect("a views line");
    assert!(views.contains("aamp every field"), "{views}");
    assert!(
        views.contains("(XC1)") && views.contains("1 field skipped"),
        "{views}"
    );
    let o = codec(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("to-text"), "{}", stdout(&o));
    let o = codec(&["completions", "nosuchshell"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `-h` and `--help` open with the same sentence, and both give the exit
/// status table.
#[test]
fn short_and_long_help_agree() {
    let short = stdout(&codec(&["-h"]));
    let long = stdout(&codec(&["--help"]));
    assert_eq!(short.lines().next(), long.lines().next());
    assert!(short.contains("Exit status") && long.contains("Exit status"));
}
