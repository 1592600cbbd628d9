//! A message archive as TotK ships one (MSBT members in a SARC, zstd with
//! the game's dictionary 1), built from the corpus's MSBT files: unpacked
//! to the editors' text and packed back with every member's bytes, and one
//! member replaced without the others being decoded or written again (a
//! member no writer would give back, left alone, keeps its bytes).

mod common;

use formats::layer::zstd::{self, Dictionaries};
use formats::sarc::{self, Node, Sarc, Variant};
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

/// The corpus's little-endian UTF-16 MSBT files, by name.
fn messages(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let d = fs::read(e.path()).ok()?;
            (formats::msbt::detect(&d) == Some("Le")).then(|| {
                let name = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                (name, d)
            })
        })
        .collect();
    out.sort();
    out
}

fn codec(args: &[&OsStr], dict: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .env("CODEC_ZSTD_DICT", dict)
        .output()
        .expect("runs codec")
}

fn ok(o: &std::process::Output) {
    assert!(
        o.status.success(),
        "{}{}",
        common::stdout(o),
        common::stderr(o)
    );
}

fn members(path: &Path, dicts: &Dictionaries) -> Vec<(String, Vec<u8>)> {
    let inner = zstd::decompress(&fs::read(path).unwrap(), dicts).unwrap();
    let (_, archive) = sarc::decode(&inner).unwrap();
    let mut out: Vec<(String, Vec<u8>)> = archive
        .nodes
        .iter()
        .map(|n| (n.name.to_string(), n.data.value.to_vec()))
        .collect();
    out.sort();
    out
}

#[test]
#[cfg_attr(
    any(corpus_missing_msbt, corpus_missing_zstd),
    ignore = "needs the MSBT and zstd corpus (../shared/corpus), absent here"
)]
fn a_message_archive_goes_to_text_and_back_and_one_member_is_replaced_alone() {
    let (Some(msbt_dir), Some(zstd_dir)) = (common::corpus("msbt"), common::corpus("zstd")) else {
        return;
    };
    let dict = zstd_dir.join("ZsDic.pack.zs");
    let mut dicts = Dictionaries::default();
    dicts.add_file(&fs::read(&dict).unwrap()).unwrap();
    let msgs = messages(&msbt_dir);
    assert!(msgs.len() >= 100, "{} messages", msgs.len());
    // A member with the MSBT magic that no writer gives back as it is (a
    // label table whose size field is cut short).
    let mut odd = msgs[0].1.clone();
    odd.truncate(0x40);
    let mut nodes: Vec<Node> = msgs.iter().map(|(n, d)| Node::new(n, d.clone())).collect();
    nodes.push(Node::new("Odd/Broken.msbt", odd.clone()));
    let archive = Sarc::new(nodes);
    let inner = sarc::encode(&archive, Variant::Little).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let pack = tmp.path().join("USen.Product.sarc.zs");
    fs::write(&pack, zstd::compress(&inner, Some(1), &dicts).unwrap()).unwrap();
    let before = members(&pack, &dicts);

    // To text and back: MSBT members as the editors' YAML, every member's
    // bytes as they were.
    let folder = tmp.path().join("unpacked");
    ok(&codec(
        &[
            "to-text".as_ref(),
            pack.as_os_str(),
            "-o".as_ref(),
            folder.as_os_str(),
        ],
        &dict,
    ));
    let yml = folder.join("totk/ActorMsg/Boss.msbt.yml");
    let text = fs::read_to_string(&yml).unwrap_or_else(|e| panic!("{}: {e}", yml.display()));
    assert!(
        text.contains("Enemy_Army_Manager_005_Name: |-\n  Phantom Ganon"),
        "{text}"
    );
    // The broken member is kept as stored, not as text.
    assert!(folder.join("Odd/Broken.msbt").is_file());
    let back = tmp.path().join("back.sarc.zs");
    ok(&codec(
        &[
            "from-text".as_ref(),
            folder.as_os_str(),
            "-o".as_ref(),
            back.as_os_str(),
        ],
        &dict,
    ));
    assert!(
        members(&back, &dicts) == before,
        "a member changed on the way back"
    );

    // One member replaced: the others, the broken one among them, keep
    // their bytes (none is decoded and written again).
    let (name, data) = &msgs[1];
    let mut doc = formats::msbt::decode_typed(data).unwrap().1;
    for b in &mut doc.blocks {
        if let formats::msbt::compiled::Block::Texts(t) = b {
            t.data.messages[0] = vec![codec_runtime::TextPart::Chars("Replaced".into())];
        }
    }
    let new = formats::msbt::encode_typed(&doc, "Le").unwrap();
    let file = tmp.path().join("new.msbt");
    fs::write(&file, &new).unwrap();
    let out = tmp.path().join("replaced.sarc.zs");
    let pair = format!("{name}={}", file.display());
    ok(&codec(
        &[
            "archive".as_ref(),
            "replace".as_ref(),
            pack.as_os_str(),
            pair.as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
        &dict,
    ));
    let after = members(&out, &dicts);
    assert_eq!(after.len(), before.len());
    for ((n, was), (m, now)) in before.iter().zip(&after) {
        assert_eq!(n, m);
        if n == name {
            assert!(now == &new, "{n}: not the replacement");
        } else {
            assert!(now == was, "{n}: changed by replacing {name}");
        }
    }
    assert!(after
        .iter()
        .any(|(n, d)| n == "Odd/Broken.msbt" && d == &odd));
}
