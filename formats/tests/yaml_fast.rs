//! The fast YAML reader (`formats::yaml::fast`) against saphyr-parser, the
//! full parser it stands in for: on every text of the corpus (oead's and
//! roead's golden texts, oead's BYML texts) and on our own text of every
//! corpus file, it must give the same events at the same positions. It
//! must also take every one of them, or the speed it exists for is lost
//! without a failing test.

mod common;

use formats::yaml::fast::compare_with_full_parser;
use std::fs;
use std::path::{Path, PathBuf};

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    common::paths_with_ext(dir, ext)
}

/// Checks each text; returns how many the fast reader took.
fn check_all(texts: impl IntoIterator<Item = (String, String)>) -> (usize, usize) {
    let mut taken = 0;
    let mut count = 0;
    let mut failures = Vec::new();
    let mut left = Vec::new();
    for (name, text) in texts {
        count += 1;
        match compare_with_full_parser(&text) {
            Ok(true) => taken += 1,
            Ok(false) => left.push(name),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        left.is_empty(),
        "left to saphyr-parser: {}",
        left.join(", ")
    );
    (taken, count)
}

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn the_peers_aamp_texts_read_as_saphyr_reads_them() {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    for (tool, expected) in [("oead-1.2.9.post4", 158), ("roead-1.0.0", 156)] {
        let texts = files_in(&dir.join("golden").join(tool), "yml")
            .into_iter()
            .map(|p| (p.display().to_string(), fs::read_to_string(&p).unwrap()));
        let (taken, count) = check_all(texts);
        eprintln!("{tool}: the fast reader took {taken}/{count}");
        assert_eq!(count, expected, "golden texts of {tool}");
    }
}

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn our_aamp_texts_read_as_saphyr_reads_them() {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    let empty = formats::aamp::names::NameTable::new();
    let texts = common::files_with_magic(&dir, formats::aamp::MAGIC)
        .into_iter()
        .map(|p| {
            let pio = formats::aamp::decode(&fs::read(&p).unwrap()).unwrap();
            let text = formats::aamp::text::to_yaml(&pio, &empty);
            (p.display().to_string(), text)
        });
    let (taken, count) = check_all(texts);
    eprintln!("codec's AAMP texts: the fast reader took {taken}/{count}");
    assert_eq!(count, 158);
}

#[test]
#[cfg_attr(
    corpus_missing_byml,
    ignore = "needs the byml corpus (../shared/corpus/byml or $CODEC_CORPUS), absent here"
)]
fn byml_texts_read_as_saphyr_reads_them() {
    let Some(dir) = common::corpus("byml") else {
        return;
    };
    let peers = files_in(&dir, "yml")
        .into_iter()
        .map(|p| (p.display().to_string(), fs::read_to_string(&p).unwrap()));
    let (taken, count) = check_all(peers);
    eprintln!("oead's BYML texts: the fast reader took {taken}/{count}");
    assert_eq!(count, 7);
    let ours = files_in(&dir, "byml").into_iter().map(|p| {
        let (variant, doc) = formats::byml::decode(&fs::read(&p).unwrap()).unwrap();
        (
            p.display().to_string(),
            formats::byml::text::to_yaml(&doc, variant),
        )
    });
    let (taken, count) = check_all(ours);
    eprintln!("codec's BYML texts: the fast reader took {taken}/{count}");
    assert_eq!(count, 8);
}
