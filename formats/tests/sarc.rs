//! SARC from `schemas/sarc.ron`: the corpus archives (both byte orders, and
//! the one inside a Yaz0 layer) come back byte for byte; edits land where
//! the game's packer puts them; bad input gets a located error.

mod common;

use codec_runtime::Aligned;
use formats::layer::yaz0;
use formats::sarc::{self, Node, Sarc, Variant};

fn corpus_archives() -> Vec<(String, Vec<u8>)> {
    let folders: Vec<_> = ["sarc", "yaz0"]
        .into_iter()
        .filter_map(common::corpus)
        .collect();
    common::sarc_archives(&folders)
}

#[test]
#[cfg_attr(
    corpus_missing_sarc,
    ignore = "needs the sarc corpus (../shared/corpus/sarc), absent here"
)]
fn corpus_archives_round_trip_byte_for_byte() {
    let archives = corpus_archives();
    assert!(
        archives.len() >= 3,
        "expected the 2 SARC files and the Yaz0 event pack"
    );
    let mut big = 0;
    for (name, data) in &archives {
        let (variant, doc) = sarc::decode(data).unwrap_or_else(|e| panic!("{name}: {e}"));
        big += usize::from(variant == Variant::Big);
        let back = sarc::encode(&doc, variant).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            back == *data,
            "{name}: differs at 0x{:x}",
            first_difference(&back, data)
        );
    }
    assert_eq!(big, 1, "the Wii U archive is big-endian");
}

#[test]
#[cfg_attr(
    corpus_missing_yaz0,
    ignore = "needs the yaz0 corpus (../shared/corpus/yaz0), absent here"
)]
fn kept_alignment_is_what_the_positions_prove() {
    let data = std::fs::read(
        common::corpus("yaz0")
            .unwrap()
            .join("Demo344_1.sbeventpack"),
    )
    .unwrap();
    let data = yaz0::decompress(&data).unwrap();
    let (_, doc) = sarc::decode(&data).unwrap();
    // The event pack's data starts at 0x400, and every file sits at a
    // multiple of 0x100 from it; the first one at 0.
    assert_eq!(doc.nodes[0].data.align, 0x400);
    assert!(
        doc.nodes.iter().all(|n| n.data.align >= 0x100),
        "{:?}",
        doc.nodes.iter().map(|n| n.data.align).collect::<Vec<_>>()
    );
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[test]
fn encode_sorts_by_name_hash_and_places_names_and_data_in_that_order() {
    let names = [
        "Actor/Zeta.bxml",
        "Actor/alpha.baiprog",
        "Model/x.bfres",
        "a",
    ];
    let doc = Sarc::new(
        names
            .iter()
            .map(|n| Node::new(n, n.as_bytes().to_vec()))
            .collect(),
    );
    for variant in Variant::ALL {
        let bytes = sarc::encode(&doc, variant).unwrap();
        let (v, back) = sarc::decode(&bytes).unwrap();
        assert_eq!(v, variant);
        let hashes: Vec<u64> = back
            .nodes
            .iter()
            .map(|n| sarc::glue::name_hash(n.name.as_bytes(), 0x65))
            .collect();
        assert!(hashes.windows(2).all(|w| w[0] <= w[1]), "{hashes:x?}");
        // The stored hashes are the glue's.
        let e = |b: [u8; 4]| match variant {
            Variant::Little => u32::from_le_bytes(b),
            Variant::Big => u32::from_be_bytes(b),
        };
        for (i, h) in hashes.iter().enumerate() {
            let at = 0x20 + 0x10 * i;
            assert_eq!(u64::from(e(bytes[at..at + 4].try_into().unwrap())), *h);
        }
        // Each file's bytes are its name; the names follow table order.
        for n in &back.nodes {
            assert_eq!(n.data.value, n.name.as_bytes());
        }
        let sfnt = 0x20 + 0x10 * names.len();
        assert_eq!(&bytes[sfnt..sfnt + 4], b"SFNT");
        let first = back.nodes[0].name.as_str();
        assert_eq!(&bytes[sfnt + 8..sfnt + 8 + first.len()], first.as_bytes());
        // Whole file: size field and data offset agree with the layout.
        assert_eq!(e(bytes[8..12].try_into().unwrap()) as usize, bytes.len());
    }
}

#[test]
fn a_new_file_gets_the_alignment_of_its_kind_and_kept_ones_stay() {
    let mut doc = Sarc::new(vec![
        Node::new("a.bxml", b"AAMP-like text".to_vec()),
        Node::new("b.bfres", b"FRES and then some".to_vec()),
    ]);
    let bytes = sarc::encode(&doc, Variant::Little).unwrap();
    let (_, back) = sarc::decode(&bytes).unwrap();
    let data_offset = u32::from_le_bytes(bytes[0xc..0x10].try_into().unwrap()) as u64;
    let fres = back.nodes.iter().find(|n| n.name == "b.bfres").unwrap();
    assert_eq!(
        data_offset % 0x1000,
        0,
        "the data starts at a multiple of the largest alignment"
    );
    assert_eq!(fres.data.align % 0x1000, 0);
    // A kept alignment overrides the kind's: the data no longer needs to
    // start at a multiple of 0x1000.
    doc.nodes[1].data = Aligned::with_align(b"FRES".to_vec().into(), 0x40);
    let bytes = sarc::encode(&doc, Variant::Little).unwrap();
    let data_offset = u32::from_le_bytes(bytes[0xc..0x10].try_into().unwrap());
    assert_eq!(data_offset, 0x80, "the header and names end before 0x80");
}

#[test]
fn bad_archives_get_located_errors() {
    let doc = Sarc::new(vec![Node::new("a", vec![1, 2, 3])]);
    let good = sarc::encode(&doc, Variant::Little).unwrap();
    // No byte-order mark.
    let mut bad = good.clone();
    bad[6] = 0;
    let e = sarc::decode(&bad).unwrap_err().to_string();
    assert!(e.contains("byte-order mark"), "{e}");
    // A file whose end lies before its start.
    let mut bad = good.clone();
    bad[0x28..0x2c].copy_from_slice(&2u32.to_le_bytes());
    bad[0x2c..0x30].copy_from_slice(&1u32.to_le_bytes());
    let e = sarc::decode(&bad).unwrap_err().to_string();
    assert!(
        e.contains("nodes[0]") && e.contains("before the start"),
        "{e}"
    );
    // A node count far beyond the file.
    let mut bad = good.clone();
    bad[0x1a..0x1c].copy_from_slice(&0xffffu16.to_le_bytes());
    let e = sarc::decode(&bad).unwrap_err().to_string();
    assert!(e.contains("nodes"), "{e}");
    // Every truncation is an error, never a panic.
    for n in 0..good.len() {
        assert!(sarc::decode(&good[..n]).is_err(), "cut at {n}");
    }
}

/// `codec check` on the corpus archives: every archive and every file of a
/// supported format inside is identical, and each inner file has its line.
#[test]
#[cfg_attr(
    corpus_missing_sarc,
    ignore = "needs the sarc corpus (../shared/corpus/sarc), absent here"
)]
#[cfg_attr(
    corpus_missing_yaz0,
    ignore = "needs the yaz0 corpus (../shared/corpus/yaz0), absent here"
)]
fn check_reports_every_file_inside_the_corpus_archives() {
    let (Some(sarc_dir), Some(yaz0_dir)) = (common::corpus("sarc"), common::corpus("yaz0")) else {
        return;
    };
    // By default, identical files inside archives are counted, not
    // printed, and those kept as bytes are summed by kind (issue 49).
    let out = common::codec(&[
        std::ffi::OsStr::new("check"),
        sarc_dir.as_os_str(),
        yaz0_dir.as_os_str(),
    ]);
    let text = common::stdout(&out);
    assert!(!text.contains(": identical"), "{text}");
    assert!(
        text.contains("kept as bytes inside archives and layers (no supported format): 3 bcamanim, 3 bflim, 2 bflan, "),
        "{text}"
    );
    assert!(
        // 12 inside archives, and BotW's resource size table inside Yaz0.
        text.contains("13 files inside archives and layers identical (-v lists them)"),
        "{text}"
    );
    // -v: a line for each.
    let out = common::codec(&[
        std::ffi::OsStr::new("check"),
        std::ffi::OsStr::new("-v"),
        sarc_dir.as_os_str(),
        yaz0_dir.as_os_str(),
    ]);
    let text = common::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", common::stderr(&out));
    assert!(
        text.ends_with("checked 15 files: 15 identical, 0 differ, 0 failed\n"),
        "{text}"
    );
    assert!(
        text.contains("Demo344_1.sbeventpack ▸ Yaz0 ▸ sarc ▸ Demo/Demo344_1.bdemo: identical"),
        "{text}"
    );
    assert!(
        text.contains("ActorObserverByActorTagTag.sarc ▸ sarc ▸ Actor/AIProgram/ActorObserverByActorTagTag.baiprog: identical"),
        "{text}"
    );
}

/// `to-text` writes an archive as a folder and `from-text` gives back the
/// same bytes; an edited inner AAMP (through its YAML), an added and a
/// removed file give a valid archive with exactly those changes.
#[test]
#[cfg_attr(
    corpus_missing_sarc,
    ignore = "needs the sarc corpus (../shared/corpus/sarc), absent here"
)]
fn archives_go_to_a_folder_and_back() {
    let Some(sarc_dir) = common::corpus("sarc") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for name in ["ActorObserverByActorTagTag.sarc", "test.sarc"] {
        let original = std::fs::read(sarc_dir.join(name)).unwrap();
        let file = tmp.path().join(name);
        std::fs::write(&file, &original).unwrap();
        let out = common::codec(&[std::ffi::OsStr::new("to-text"), file.as_os_str()]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let folder = tmp.path().join(format!("{name}.d"));
        assert!(folder.join("codec-archive.json").is_file());
        std::fs::remove_file(&file).unwrap();
        let out = common::codec(&[std::ffi::OsStr::new("from-text"), folder.as_os_str()]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        assert!(
            std::fs::read(&file).unwrap() == original,
            "{name}: not byte for byte"
        );
    }

    // Edit one AAMP through its YAML, add a file, remove one.
    let folder = tmp.path().join("ActorObserverByActorTagTag.sarc.d");
    let yml = folder.join("Actor/ActorLink/ActorObserverByActorTagTag.bxml.yml");
    let text = std::fs::read_to_string(&yml).unwrap();
    assert!(text.contains("2614148721: Default"));
    std::fs::write(
        &yml,
        text.replace("2614148721: Default", "2614148721: Edited"),
    )
    .unwrap();
    std::fs::write(folder.join("Actor/New/added.txt"), b"").ok();
    std::fs::create_dir_all(folder.join("Actor/New")).unwrap();
    std::fs::write(folder.join("Actor/New/added.txt"), b"a new file").unwrap();
    std::fs::remove_file(folder.join("Actor/ModelList/ActorObserverTag.bmodellist.yml")).unwrap();
    let out_file = tmp.path().join("edited.sarc");
    let out = common::codec(&[
        std::ffi::OsStr::new("from-text"),
        folder.as_os_str(),
        std::ffi::OsStr::new("-o"),
        out_file.as_os_str(),
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (_, archive) = sarc::decode(&std::fs::read(&out_file).unwrap()).unwrap();
    let names: Vec<&str> = archive.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(!names.contains(&"Actor/ModelList/ActorObserverTag.bmodellist"));
    assert_eq!(archive.get("Actor/New/added.txt"), Some(&b"a new file"[..]));
    let edited = formats::aamp::decode(
        archive
            .get("Actor/ActorLink/ActorObserverByActorTagTag.bxml")
            .unwrap(),
    )
    .unwrap();
    let yaml = formats::aamp::text::to_yaml(&edited, &Default::default());
    assert!(yaml.contains("2614148721: Edited"), "{yaml}");
    // The table stays sorted by hash, and the archive re-encodes to itself.
    let again = sarc::encode(&archive, Variant::Little).unwrap();
    assert_eq!(again, std::fs::read(&out_file).unwrap());
}

/// `decode_shared` reads every file's bytes as a range of the archive's
/// buffer (no copy), gives the same document as `decode`, and an edit to
/// one file's bytes reaches neither the buffer nor another file. A decoder
/// that copied would fail the first assertion; one that shared writable
/// memory would fail the last two.
#[test]
fn shared_decode_reads_files_without_a_copy_and_edits_stay_apart() {
    let doc = Sarc::new(vec![
        Node::new("a.bin", vec![1u8; 300]),
        Node::new("b.bin", (0..=255u8).collect::<Vec<u8>>()),
    ]);
    let bytes = sarc::encode(&doc, Variant::Little).unwrap();
    let input = std::sync::Arc::new(bytes.clone());
    let (v, mut shared) = sarc::decode_shared(&input).unwrap();
    let (_, copied) = sarc::decode(&bytes).unwrap();
    assert_eq!(shared, copied);
    let range = input.as_ptr_range();
    for n in &shared.nodes {
        assert!(n.data.value.is_shared(), "{} is shared", n.name);
        assert!(
            range.contains(&n.data.value.as_ptr()),
            "{} points into the input",
            n.name
        );
    }
    assert!(!copied.nodes[0].data.value.is_shared(), "decode copies");
    assert_eq!(sarc::encode(&shared, v).unwrap(), bytes);
    shared.nodes[0].data.value[0] = 9;
    assert_eq!(*input, bytes, "the input is not written");
    assert_eq!(shared.nodes[0].data.value[..2], [9, 1]);
    assert_eq!(shared.nodes[1].data.value, copied.nodes[1].data.value);
    // Cut short: the same located error as `decode`.
    let cut = std::sync::Arc::new(bytes[..bytes.len() - 10].to_vec());
    let (a, b) = (
        sarc::decode(&cut).unwrap_err(),
        sarc::decode_shared(&cut).unwrap_err(),
    );
    assert_eq!(a.to_string(), b.to_string());
}
