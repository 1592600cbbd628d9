//! The jobs modders do every day (issue 49), on the corpus's TotK and BotW
//! files: a compressed single file to text and back with only the edited
//! value changed, the dictionary given once (`$CODEC_ZSTD_DICT`, or found in
//! a romfs tree), archives listed, extracted, created and edited member by
//! member with the untouched members' bytes kept, and one member addressed
//! as `PACK:MEMBER`.

mod common;

use formats::layer::{peel, Dictionaries};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `codec ARGS` with `$CODEC_ZSTD_DICT` set to `dict` (or unset).
fn codec_env(args: &[&OsStr], dict: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_codec"));
    c.args(args)
        .env_remove(formats::aamp::names::NAMES_ENV)
        .env_remove(formats::aamp::names::NUMBERED_NAMES_ENV)
        .env_remove("CODEC_ZSTD_DICT");
    if let Some(d) = dict {
        c.env("CODEC_ZSTD_DICT", d);
    }
    c.output().expect("run codec")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        common::stdout(o),
        common::stderr(o)
    );
    common::stdout(o)
}

/// The zstd corpus folder and its dictionary file, or `None` (SKIPPED).
fn zstd_corpus() -> Option<(PathBuf, PathBuf)> {
    let dir = common::corpus("zstd")?;
    let dict = dir.join("ZsDic.pack.zs");
    Some((dir, dict))
}

fn dictionaries(dict: &Path) -> Dictionaries {
    let mut d = Dictionaries::default();
    d.add_file(&fs::read(dict).unwrap()).unwrap();
    d
}

/// Changes the first float written after `: ` (block or flow style) in
/// `yaml` to 1234.5; returns the edited text and the line edited.
fn edit_first_float(yaml: &str) -> (String, usize) {
    let mut lines: Vec<String> = yaml.lines().map(str::to_owned).collect();
    for (at, line) in lines.iter_mut().enumerate() {
        for (i, _) in line.clone().match_indices(": ") {
            let rest = &line[i + 2..];
            let end = rest.find([',', '}', ']']).unwrap_or(rest.len());
            let value = rest[..end].trim();
            if value.contains('.') && value.parse::<f64>().is_ok() && value != "1234.5" {
                line.replace_range(i + 2..i + 2 + end, "1234.5");
                return (lines.join("\n") + "\n", at);
            }
        }
    }
    panic!("no float to edit");
}

/// Lines that differ between two texts of the same length in lines.
fn differing_lines(a: &str, b: &str) -> Vec<usize> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(a.len(), b.len());
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

/// A compressed file → text → one value edited → the compressed file:
/// valid, in the same layers, and only that value changed.
fn edit_loop(file: &Path, dict: Option<&Path>, layer_line: &str) {
    let text_path = PathBuf::from(format!("{}.yml", file.display()));
    ok(&codec_env(&[OsStr::new("to-text"), file.as_os_str()], dict));
    let yaml = fs::read_to_string(&text_path).unwrap();
    assert!(
        yaml.lines().take(2).any(|l| l == layer_line),
        "{}",
        &yaml[..200]
    );
    let (edited, at) = edit_first_float(&yaml);
    fs::write(&text_path, &edited).unwrap();
    let out = file.with_extension("edited");
    ok(&codec_env(
        &[
            OsStr::new("from-text"),
            text_path.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
        dict,
    ));
    // The output is in the same layers and decodes; its text differs from
    // the original's by the one line.
    let dicts = dict.map(dictionaries).unwrap_or_default();
    let (layers_in, _) = peel(&fs::read(file).unwrap(), &dicts).unwrap();
    let (layers_out, inner) = peel(&fs::read(&out).unwrap(), &dicts).unwrap();
    assert_eq!(layers_in, layers_out);
    let (variant, doc) = formats::byml::decode(&inner).unwrap();
    let again = formats::byml::text::to_yaml(&doc, variant);
    let without_layers = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("# codec layers:"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let (original, edited) = (without_layers(&yaml), without_layers(&edited));
    let expected = differing_lines(&original, &edited);
    assert_eq!(expected.len(), 1);
    assert_eq!(differing_lines(&original, &again), expected, "line {at}");
}

#[test]
#[cfg_attr(
    corpus_missing_zstd,
    ignore = "needs the zstd corpus (../shared/corpus/zstd), absent here"
)]
fn a_totk_map_unit_goes_to_text_and_back_through_zstd() {
    let Some((dir, dict)) = zstd_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("A-4_Static.bcett.byml.zs");
    fs::copy(dir.join("A-4_Static.bcett.byml.zs"), &file).unwrap();
    // The dictionary given once, in the environment.
    edit_loop(&file, Some(&dict), "# codec layers: zstd dictionary 2");
    // Without it: the message says both ways to give it.
    let o = codec_env(&[OsStr::new("check"), file.as_os_str()], None);
    assert!(!o.status.success());
    let e = common::stderr(&o);
    assert!(
        e.contains("dictionary 2") && e.contains("CODEC_ZSTD_DICT") && e.contains("romfs"),
        "{e}"
    );
}

#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml), absent here"
)]
fn a_botw_yaz0_byml_goes_to_text_and_back() {
    let Some(dir) = common::corpus("byml") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("LevelSensor.sbyml");
    let byml = fs::read(dir.join("LevelSensor.byml")).unwrap();
    fs::write(&file, formats::layer::yaz0::compress(&byml, 0x80)).unwrap();
    edit_loop(&file, None, "# codec layers: Yaz0 alignment 128");
}

#[test]
#[cfg_attr(
    corpus_missing_zstd,
    ignore = "needs the zstd corpus (../shared/corpus/zstd), absent here"
)]
fn the_romfs_dictionary_is_found_unnamed() {
    let Some((dir, dict)) = zstd_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let romfs = tmp.path().join("romfs");
    fs::create_dir_all(romfs.join("Pack")).unwrap();
    fs::create_dir_all(romfs.join("Banc/MainField")).unwrap();
    fs::copy(&dict, romfs.join("Pack/ZsDic.pack.zs")).unwrap();
    let file = romfs.join("Banc/MainField/A-4_Static.bcett.byml.zs");
    fs::copy(dir.join("A-4_Static.bcett.byml.zs"), &file).unwrap();
    let out = ok(&codec_env(&[OsStr::new("check"), file.as_os_str()], None));
    assert!(
        out.ends_with("checked 1 files: 1 identical, 0 differ, 0 failed\n"),
        "{out}"
    );
    let out = ok(&codec_env(&[OsStr::new("dump"), file.as_os_str()], None));
    assert!(
        out.contains("▸ zstd") && out.contains("schemas/byml.ron"),
        "{}",
        &out[..300]
    );
}

/// The SARC inside `pack` (through its layers), and those layers.
fn inner_sarc(pack: &Path, dicts: &Dictionaries) -> (Vec<formats::layer::Layer>, Vec<u8>) {
    peel(&fs::read(pack).unwrap(), dicts).unwrap()
}

#[test]
#[cfg_attr(
    corpus_missing_zstd,
    ignore = "needs the zstd corpus (../shared/corpus/zstd), absent here"
)]
fn archives_are_edited_member_by_member() {
    let Some((dir, dict)) = zstd_corpus() else {
        return;
    };
    let dicts = dictionaries(&dict);
    let tmp = tempfile::tempdir().unwrap();
    let pack = tmp.path().join("Armor_006_Upper.pack.zs");
    fs::copy(dir.join("Armor_006_Upper.pack.zs"), &pack).unwrap();
    let d = Some(dict.as_path());
    let (layers, original) = inner_sarc(&pack, &dicts);
    let (_, sarc) = formats::sarc::decode(&original).unwrap();

    // list --json: every member with its size, format and alignment.
    let json = ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("list"),
            OsStr::new("--json"),
            pack.as_os_str(),
        ],
        d,
    ));
    let v: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let members = v["members"].as_array().unwrap();
    assert_eq!(members.len(), sarc.nodes.len());
    assert_eq!(v["layers"][0], "zstd (dictionary 3)");
    for (m, n) in members.iter().zip(&sarc.nodes) {
        assert_eq!(m["name"], n.name.as_str());
        assert_eq!(m["size"], n.data.value.len());
        assert_eq!(m["align"], n.data.align);
    }
    let first = sarc.nodes[0].name.as_str().to_owned();

    // extract: raw, the member's bytes; --text, its YAML.
    let out_dir = tmp.path().join("x");
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("extract"),
            pack.as_os_str(),
            OsStr::new(&first),
            OsStr::new("-o"),
            out_dir.as_os_str(),
        ],
        d,
    ));
    assert_eq!(
        fs::read(out_dir.join(&first)).unwrap(),
        sarc.nodes[0].data.value
    );

    // add, then delete: the SARC is the original byte for byte.
    let extra = tmp.path().join("extra.bin");
    fs::write(&extra, b"a new member").unwrap();
    let added = tmp.path().join("added.pack.zs");
    let pair = format!("Extra/new.bin={}", extra.display());
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("add"),
            pack.as_os_str(),
            OsStr::new(&pair),
            OsStr::new("-o"),
            added.as_os_str(),
        ],
        d,
    ));
    let (layers_added, with_extra) = inner_sarc(&added, &dicts);
    assert_eq!(layers_added, layers);
    let (_, a) = formats::sarc::decode(&with_extra).unwrap();
    assert_eq!(a.get("Extra/new.bin"), Some(&b"a new member"[..]));
    for n in &sarc.nodes {
        let kept = a.nodes.iter().find(|m| m.name == n.name).unwrap();
        assert_eq!(kept.data.value, n.data.value);
        assert_eq!(kept.data.align, n.data.align);
    }
    let back = tmp.path().join("back.pack.zs");
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("delete"),
            added.as_os_str(),
            OsStr::new("Extra/new.bin"),
            OsStr::new("-o"),
            back.as_os_str(),
        ],
        d,
    ));
    assert!(
        inner_sarc(&back, &dicts).1 == original,
        "add then delete is not the original"
    );

    // replace, in place: only that member changes.
    let replaced_bytes = fs::read(&extra).unwrap();
    let pair = format!("{first}={}", extra.display());
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("replace"),
            back.as_os_str(),
            OsStr::new(&pair),
        ],
        d,
    ));
    let (_, r) = formats::sarc::decode(&inner_sarc(&back, &dicts).1).unwrap();
    for n in &sarc.nodes {
        let m = r.nodes.iter().find(|m| m.name == n.name).unwrap();
        if n.name.as_str() == first {
            assert_eq!(m.data.value, replaced_bytes);
        } else {
            assert_eq!(m.data.value, n.data.value);
            assert_eq!(m.data.align, n.data.align);
        }
    }

    // create from a plain folder: every file a member, in zstd with the
    // pack dictionary.
    let all = tmp.path().join("all");
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("extract"),
            pack.as_os_str(),
            OsStr::new("-o"),
            all.as_os_str(),
        ],
        d,
    ));
    let made = tmp.path().join("made.pack.zs");
    ok(&codec_env(
        &[
            OsStr::new("archive"),
            OsStr::new("create"),
            all.as_os_str(),
            OsStr::new("-o"),
            made.as_os_str(),
        ],
        d,
    ));
    let (made_layers, made_sarc) = inner_sarc(&made, &dicts);
    assert_eq!(made_layers, layers);
    let (_, m) = formats::sarc::decode(&made_sarc).unwrap();
    let mut names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    let mut want: Vec<&str> = sarc.nodes.iter().map(|n| n.name.as_str()).collect();
    names.sort();
    want.sort();
    assert_eq!(names, want);
    for n in &sarc.nodes {
        assert_eq!(m.get(&n.name).unwrap(), n.data.value.as_slice());
    }

    // One member addressed on the command line.
    let member = format!("{}:{first}", pack.display());
    let out = ok(&codec_env(&[OsStr::new("dump"), OsStr::new(&member)], d));
    assert!(out.contains("schemas/byml.ron"), "{}", &out[..200]);
    let out = ok(&codec_env(&[OsStr::new("check"), OsStr::new(&member)], d));
    assert!(
        out.ends_with("checked 1 files: 1 identical, 0 differ, 0 failed\n"),
        "{out}"
    );
    let o = codec_env(
        &[
            OsStr::new("dump"),
            OsStr::new(&format!("{}:Nope/x.bgyml", pack.display())),
        ],
        d,
    );
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("no member"),
        "{}",
        common::stderr(&o)
    );
}

/// The sample files' text with one value's type changed by a typo.
fn typo(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{text}");
    text.replacen(from, to, 1)
}

#[test]
fn an_edit_that_changes_a_value_type_is_reported_with_its_line() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let tmp = tempfile::tempdir().unwrap();
    // AAMP: `1.5` typed as `9O.5` (a letter O) is a string parameter.
    let bxml = tmp.path().join("actor.bxml");
    fs::copy(samples.join("aamp/actor.bxml"), &bxml).unwrap();
    ok(&codec_env(&[OsStr::new("to-text"), bxml.as_os_str()], None));
    let yml = tmp.path().join("actor.bxml.yml");
    let text = fs::read_to_string(&yml).unwrap();
    let line = text.lines().position(|l| l.ends_with(": 1.5")).unwrap() + 1;
    fs::write(&yml, typo(&text, ": 1.5", ": 9O.5")).unwrap();
    let before = fs::read(&bxml).unwrap();
    let o = codec_env(
        &[
            OsStr::new("from-text"),
            OsStr::new("-f"),
            OsStr::new("--strict"),
            yml.as_os_str(),
        ],
        None,
    );
    assert!(!o.status.success(), "--strict let a float become a string");
    let e = common::stderr(&o);
    assert!(
        e.contains(&format!("actor.bxml.yml:{line}:")) && e.contains("was F32"),
        "{e}"
    );
    assert_eq!(fs::read(&bxml).unwrap(), before, "refused, yet written");
    let o = codec_env(
        &[OsStr::new("from-text"), OsStr::new("-f"), yml.as_os_str()],
        None,
    );
    assert!(o.status.success());
    assert!(
        common::stderr(&o).contains("warning:"),
        "{}",
        common::stderr(&o)
    );

    // BYML in an unpacked archive: `false` typed as `flase`, compared with
    // the archive beside the folder.
    let byml = fs::read(samples.join("byml/sample_v7.byml")).unwrap();
    let archive = tmp.path().join("p.sarc");
    let sarc = formats::sarc::Sarc::new(vec![formats::sarc::Node::new("Map/a.byml", byml)]);
    fs::write(
        &archive,
        formats::sarc::encode(&sarc, formats::sarc::Variant::Little).unwrap(),
    )
    .unwrap();
    ok(&codec_env(
        &[OsStr::new("to-text"), archive.as_os_str()],
        None,
    ));
    let member = tmp.path().join("p.sarc.d/Map/a.byml.yml");
    let text = fs::read_to_string(&member).unwrap();
    fs::write(&member, typo(&text, "Gyaml: Npc_Sample", "Gyaml: 12")).unwrap();
    let folder = tmp.path().join("p.sarc.d");
    let o = codec_env(
        &[
            OsStr::new("from-text"),
            OsStr::new("--strict"),
            OsStr::new("-f"),
            folder.as_os_str(),
        ],
        None,
    );
    assert!(!o.status.success(), "--strict let a string become an int");
    let e = common::stderr(&o);
    assert!(
        e.contains("Map/a.byml.yml:3:")
            && e.contains("Actors[0].Gyaml was String")
            && e.contains("is Int"),
        "{e}"
    );
}

// The grammar gaps: -o DIR for several inputs, a missing output folder
// made, `-` for standard input, `survey -q`, `-V` on from-text.
#[test]
fn the_grammar_takes_what_users_type() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let tmp = tempfile::tempdir().unwrap();
    let into = tmp.path().join("texts/not/yet/made");
    let out = ok(&codec_env(
        &[
            OsStr::new("to-text"),
            samples.join("aamp").as_os_str(),
            samples.join("byml/sample_v7.byml").as_os_str(),
            OsStr::new("-o"),
            into.as_os_str(),
        ],
        None,
    ));
    assert!(out.contains("wrote"), "{out}");
    for f in [
        "actor.bxml.yml",
        "curves_and_buffers.bxml.yml",
        "sample_v7.byml.yml",
    ] {
        assert!(into.join(f).is_file(), "{f} not in -o DIR");
    }
    let back = tmp.path().join("back");
    ok(&codec_env(
        &[
            OsStr::new("from-text"),
            into.as_os_str(),
            OsStr::new("-o"),
            back.as_os_str(),
        ],
        None,
    ));
    assert_eq!(
        fs::read(back.join("actor.bxml")).unwrap(),
        fs::read(samples.join("aamp/actor.bxml")).unwrap()
    );
    // One output in a folder that does not exist yet.
    let deep = tmp.path().join("a/b/c/actor.yml");
    ok(&codec_env(
        &[
            OsStr::new("to-text"),
            samples.join("aamp/actor.bxml").as_os_str(),
            OsStr::new("-o"),
            deep.as_os_str(),
        ],
        None,
    ));
    assert!(deep.is_file());
    // Standard input to standard output.
    let mut child = Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(["to-text", "-", "-o", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(&fs::read(samples.join("byml/sample_v7.byml")).unwrap())
            .unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert!(
        common::stdout(&o).starts_with("# BYML version 7"),
        "{}",
        common::stdout(&o)
    );
    // survey -q: the summaries only.
    let o = ok(&codec_env(
        &[OsStr::new("survey"), OsStr::new("-q"), samples.as_os_str()],
        None,
    ));
    assert!(o.lines().any(|l| l.starts_with("surveyed ")), "{o}");
    // -V is the tool's version everywhere; BYML's is --byml-version.
    let o = ok(&codec_env(
        &[OsStr::new("from-text"), OsStr::new("-V")],
        None,
    ));
    assert!(o.starts_with("codec"), "{o}");
}

/// A romfs tree named anywhere finds its dictionary (issue 74: `codec check
/// romfs` failed every zstd file, and only files below the root found it):
/// the romfs folder, `.` inside it, the game dump above it. A folder with
/// a zstd file whose dictionary is nowhere is a failure naming the file
/// and the cause, for `check` and for `to-text` (which skipped the file in
/// silence and said "no files of a supported format").
#[test]
#[cfg_attr(
    corpus_missing_zstd,
    ignore = "needs the zstd corpus (../shared/corpus/zstd), absent here"
)]
fn a_romfs_named_anywhere_finds_its_dictionary() {
    let Some((dir, dict)) = zstd_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("dump");
    let romfs = dump.join("romfs");
    for sub in ["Pack/Actor", "Banc/MainField"] {
        fs::create_dir_all(romfs.join(sub)).unwrap();
    }
    fs::copy(&dict, romfs.join("Pack/ZsDic.pack.zs")).unwrap();
    for (from, to) in [
        (
            "A-4_Static.bcett.byml.zs",
            "Banc/MainField/A-4_Static.bcett.byml.zs",
        ),
        (
            "Armor_006_Upper.pack.zs",
            "Pack/Actor/Armor_006_Upper.pack.zs",
        ),
    ] {
        fs::copy(dir.join(from), romfs.join(to)).unwrap();
    }
    for (cwd, arg) in [
        (tmp.path(), "dump/romfs"),
        (romfs.as_path(), "."),
        (tmp.path(), "dump"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_codec"))
            .current_dir(cwd)
            .args(["check", arg])
            .env_remove("CODEC_ZSTD_DICT")
            .output()
            .unwrap();
        let out = ok(&o);
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("checked ") && last.contains(" 0 failed"),
            "{arg}: {out}"
        );
    }
    let out = tmp.path().join("out");
    let o = codec_env(
        &[
            OsStr::new("to-text"),
            romfs.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ],
        None,
    );
    ok(&o);
    assert!(
        out.join("Banc/MainField/A-4_Static.bcett.byml.zs.yml")
            .is_file()
            || out.join("Banc/MainField/A-4_Static.bcett.yml").is_file()
            || walk(&out)
                .iter()
                .any(|p| p.ends_with(".yml") && p.contains("A-4_Static")),
        "{:?}",
        walk(&out)
    );
    assert!(
        walk(&out).iter().any(|p| p.contains("Armor_006_Upper")),
        "{:?}",
        walk(&out)
    );

    // No dictionary anywhere: a failure that names the file.
    let bare = tmp.path().join("bare");
    fs::create_dir_all(&bare).unwrap();
    fs::copy(
        dir.join("A-4_Static.bcett.byml.zs"),
        bare.join("A-4_Static.bcett.byml.zs"),
    )
    .unwrap();
    for args in [
        vec![OsStr::new("check"), bare.as_os_str()],
        vec![
            OsStr::new("to-text"),
            bare.as_os_str(),
            OsStr::new("-o"),
            tmp.path().join("out2").into_os_string().leak(),
        ],
    ] {
        let o = codec_env(&args, None);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{:?}: {}",
            args[0],
            common::stdout(&o)
        );
        let e = common::stderr(&o);
        assert!(
            e.contains("A-4_Static.bcett.byml.zs") && e.contains("dictionary 2"),
            "{:?}: {e}",
            args[0]
        );
        assert!(!e.contains("no files of a supported format"), "{e}");
    }
}

/// Every file under `dir`, as strings.
fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

/// A value typo in the one-member flow (issue 74): `to-text PACK:MEMBER`,
/// `DragForceStrong: 1.0` typed `1.O`, `from-text`, `archive replace`: the
/// replacement is compared with the member it replaces (a warning, a
/// refusal with `--strict`), with no original on disk. A float array with
/// a comma left out (`[1.6 2.4, 3.2]`) is a warning of `from-text` itself.
#[test]
#[cfg_attr(
    corpus_missing_zstd,
    ignore = "needs the zstd corpus (../shared/corpus/zstd), absent here"
)]
fn a_value_typo_in_one_member_is_caught() {
    let Some((dir, dict)) = zstd_corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let pack = tmp.path().join("Armor_006_Upper.pack.zs");
    fs::copy(dir.join("Armor_006_Upper.pack.zs"), &pack).unwrap();
    let member = "Phive/ClothReaction/Belt.phive__ClothReaction.bgyml";
    let addressed = format!("{}:{member}", pack.display());
    let text = tmp.path().join("Belt.yml");
    ok(&codec_env(
        &[
            OsStr::new("to-text"),
            OsStr::new(&addressed),
            OsStr::new("-o"),
            text.as_os_str(),
        ],
        Some(&dict),
    ));
    let yaml = fs::read_to_string(&text).unwrap();
    assert!(yaml.contains("DragForceStrong: 1.0"), "{yaml}");
    // The text records the member it was made from, relative to its folder.
    let source = format!("# codec source: Armor_006_Upper.pack.zs:{member}");
    assert_eq!(yaml.lines().nth(1), Some(source.as_str()), "{yaml}");
    fs::write(
        &text,
        yaml.replace("DragForceStrong: 1.0", "DragForceStrong: 1.O"),
    )
    .unwrap();
    let bin = tmp.path().join("Belt.bgyml");
    let from_text = |strict: bool| {
        let mut args = vec![
            OsStr::new("from-text"),
            text.as_os_str(),
            OsStr::new("-o"),
            bin.as_os_str(),
        ];
        if strict {
            args.push(OsStr::new("--strict"));
        }
        codec_env(&args, Some(&dict))
    };
    // `from-text` compares with that member: no file is being replaced.
    let o = from_text(true);
    assert!(!o.status.success(), "refused with --strict");
    assert!(!bin.exists());
    let o = from_text(false);
    ok(&o);
    let e = common::stderr(&o);
    assert!(
        e.contains(&format!(
            "DragForceStrong was Float in Armor_006_Upper.pack.zs:{member}, which it was made from, and is String now"
        )),
        "{e}"
    );
    // A comment naming an archive outside the text's folder is not followed.
    for outside in [
        format!("../{}", tmp.path().file_name().unwrap().to_str().unwrap()),
        tmp.path().display().to_string(),
    ] {
        let elsewhere = tmp.path().join("elsewhere.yml");
        fs::write(
            &elsewhere,
            fs::read_to_string(&text).unwrap().replace(
                "# codec source: Armor_006_Upper.pack.zs",
                &format!("# codec source: {outside}/Armor_006_Upper.pack.zs"),
            ),
        )
        .unwrap();
        let o = codec_env(
            &[
                OsStr::new("from-text"),
                elsewhere.as_os_str(),
                OsStr::new("-o"),
                tmp.path().join("elsewhere.bgyml").as_os_str(),
                OsStr::new("--force"),
            ],
            Some(&dict),
        );
        ok(&o);
        assert!(
            !common::stderr(&o).contains("which it was made from"),
            "{}",
            common::stderr(&o)
        );
    }
    let pair = format!("{member}={}", bin.display());
    let replace = |strict: bool| {
        let out = tmp.path().join(if strict {
            "strict.pack.zs"
        } else {
            "out.pack.zs"
        });
        let mut args = vec![
            OsStr::new("archive"),
            OsStr::new("replace"),
            pack.as_os_str(),
            OsStr::new(&pair),
            OsStr::new("-o"),
            out.as_os_str(),
        ]
        .into_iter()
        .map(ToOwned::to_owned)
        .collect::<Vec<_>>();
        if strict {
            args.push("--strict".into());
        }
        let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        (codec_env(&args, Some(&dict)), out)
    };
    let (o, out) = replace(false);
    ok(&o);
    assert!(out.is_file());
    let e = common::stderr(&o);
    assert!(
        e.contains(&format!(
            "{member}: DragForceStrong was Float in the member it replaces, and is String in"
        )),
        "{e}"
    );
    let (o, out) = replace(true);
    assert!(!o.status.success());
    assert!(common::stderr(&o).contains("(--strict)"));
    assert!(!out.exists(), "nothing written with --strict");

    // A comma left out in a float array.
    let arrays = tmp.path().join("arrays.yml");
    fs::write(
        &arrays,
        "# BYML version 2, little-endian\nPoints: [1.6 2.4, 3.2]\nName: x\n",
    )
    .unwrap();
    let o = codec_env(
        &[
            OsStr::new("from-text"),
            OsStr::new("--format"),
            OsStr::new("byml"),
            arrays.as_os_str(),
            OsStr::new("-o"),
            tmp.path().join("arrays.byml").as_os_str(),
        ],
        None,
    );
    ok(&o);
    assert!(
        common::stderr(&o).contains(
            "Points[0] is the string \"1.6 2.4\" in an array of numbers (a comma left out?)"
        ),
        "{}",
        common::stderr(&o)
    );
}
