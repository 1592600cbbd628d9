//! AINB through zero-copy views (`formats::ainb::schema::view`, one module
//! per version): on every corpus file, the views and the decoded file agree
//! on the header, commands, nodes, attachments, modules, actions and enum
//! relocations; strings are found in the pool the opening noted; a view
//! turns into the decoded value; a string offset out of the file is
//! decode's error, at the same byte.

mod common;

use formats::ainb::{self, schema::view};

fn files() -> Vec<(String, Vec<u8>)> {
    match common::corpus("ainb") {
        Some(dir) => common::files_with_ext(&dir, "ainb"),
        None => Vec::new(),
    }
}

#[test]
fn every_version_has_views_and_says_what_they_skip() {
    assert_eq!(view::VARIANTS, ["V407", "V404", "V408"]);
    for skipped in [
        view::v404::SKIPPED,
        view::v407::SKIPPED,
        view::v408::SKIPPED,
    ] {
        assert!(skipped.contains(&"File.string_pool"), "{skipped:?}");
        assert!(skipped.contains(&"ParamBlock.plugs"), "{skipped:?}");
        // A record read up to the fields views skip at its end.
        assert!(!skipped.contains(&"Node.params"), "{skipped:?}");
        assert!(
            !skipped.contains(&"Node.name"),
            "strings in the pool are read"
        );
    }
}

#[test]
fn views_agree_with_decode_on_every_corpus_file() {
    let files = files();
    if files.is_empty() {
        return;
    }
    let (mut checked, mut nodes) = (0, 0);
    for (name, data) in &files {
        let Ok(file) = ainb::decode(data) else {
            continue; // the corpus's damaged samples
        };
        let variant = ainb::variant_of(file.version).unwrap();
        if let Err(at) = ainb::views::compare(data, &file, variant) {
            panic!("{name}: the views and decode disagree at {at}");
        }
        let tally = ainb::views::visit(data, variant).unwrap();
        assert_eq!(tally.nodes, file.nodes.len() as u64, "{name}");
        assert_eq!(tally.commands, file.commands.len() as u64, "{name}");
        checked += 1;
        nodes += tally.nodes;
    }
    eprintln!("views = decode on {checked} AINB files ({nodes} nodes)");
    assert!(checked >= 140, "{checked} files decoded");
}

#[test]
fn a_view_turns_into_the_decoded_value() {
    let Some((name, data)) = files().into_iter().find(|(n, _)| n.contains("-407-")) else {
        return;
    };
    let owned = ainb::decode(&data).unwrap();
    let source = view::v407::source(&data);
    let file = view::v407::open(&source).unwrap();
    assert_eq!(file.to_owned().unwrap(), owned, "{name}");
    let node = file.nodes().unwrap().get(0).unwrap();
    assert_eq!(
        node.name().unwrap().as_bytes(),
        owned.nodes[0].name.as_bytes()
    );
}

#[test]
fn a_string_offset_out_of_the_file_is_decodes_error_at_the_same_byte() {
    let Some((_, mut data)) = files().into_iter().find(|(n, _)| n.contains("-407-")) else {
        return;
    };
    // The file's name: the word at 0x8, an offset into the string pool.
    data[8..12].copy_from_slice(&0x0FFF_FFFFu32.to_le_bytes());
    let decoded = ainb::schema::decode(&data, ainb::Variant::V407).unwrap_err();
    let source = view::v407::source(&data);
    let viewed = view::v407::open(&source).unwrap().filename().unwrap_err();
    assert_eq!(viewed.kind(), decoded.kind(), "{viewed} / {decoded}");
    assert_eq!(viewed.offset(), decoded.offset(), "{viewed} / {decoded}");
    assert_eq!(viewed.offset(), 8);
}
