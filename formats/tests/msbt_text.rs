//! MSBT's text, the form TotK's editors read and write
//! (`formats::msbt::text`): what a TotK file's text looks like, how an
//! edited text is laid out, and the errors a modder's mistakes get.
//! The corpus round trip is in `msbt_schema.rs`; pymsbt judges the text in
//! `tests/peers/msbt.py`.

mod common;

use formats::msbt::{decode, from_text, to_text};

fn corpus_file(name: &str) -> Option<Vec<u8>> {
    let dir = common::corpus("msbt")?;
    Some(std::fs::read(dir.join(name)).unwrap())
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

/// The slot count and the labels, in file order, of a written file.
fn labels(data: &[u8]) -> (u32, Vec<(String, u32)>) {
    let slots = u32_at(data, 0x30);
    let mut out = Vec::new();
    let mut at = 0x34 + 8 * slots as usize;
    for s in 0..slots as usize {
        let count = u32_at(data, 0x34 + 8 * s);
        for _ in 0..count {
            let len = data[at] as usize;
            let name = String::from_utf8(data[at + 1..at + 1 + len].to_vec()).unwrap();
            out.push((name, u32_at(data, at + 1 + len)));
            at += 1 + len + 4;
        }
    }
    (slots, out)
}

/// A TotK file's text is the editors' form and nothing else: its first
/// line is a label, each message a `|-` block in message order, tags
/// inline as MessageStudio writes them.
#[test]
fn a_totk_file_reads_as_the_editors_write_it() {
    let Some(data) = corpus_file("totk/EventFlowMsg/DekuTreeIntroduction.msbt") else {
        return;
    };
    let text = to_text(&data).unwrap();
    assert!(
        text.starts_with("Talk_00: |-\n  <4 Type='0' Data='0x"),
        "{text}"
    );
    assert!(!text.contains("$msbt"), "{text}");
    assert!(!text.starts_with('#'));
    assert_eq!(from_text(&text).unwrap(), data);
}

/// Settings appear only where a file departs from TotK's defaults, and
/// each one is needed: without it the bytes differ.
#[test]
fn departures_from_the_defaults_are_written_and_needed() {
    let Some(data) = corpus_file("totk/ActorMsg/PouchContent.msbt") else {
        return;
    };
    let text = to_text(&data).unwrap();
    assert!(
        text.starts_with("$msbt:\n  padding: 0\n  slots: 1\n"),
        "{}",
        &text[..80]
    );
    let without = text.replacen("  slots: 1\n", "", 1);
    let back = from_text(&without).unwrap();
    assert_ne!(back, data);
    assert_eq!(
        labels(&back).0,
        101,
        "the rule's slot count for 2874 labels"
    );
    let Some(be) = corpus_file("tools/example1be.msbt") else {
        return;
    };
    let text = to_text(&be).unwrap();
    assert!(text.contains("  byte_order: big\n"), "{text}");
    assert_eq!(from_text(&text).unwrap(), be);
    assert_ne!(
        from_text(&text.replace("byte_order: big", "byte_order: little")).unwrap(),
        be
    );
}

/// An edited text is laid out as the game's writer lays it out: messages
/// in the order listed, labels in the slots their hash names (the count
/// by TotK's rule for the new number of labels), sizes derived, 0xAB
/// padding.
#[test]
fn an_edited_text_is_laid_out_as_nintendos_writer_does() {
    let text = "Hello: |-\n  Hi <0 Type='3' Data='0x0100'/>there\nBye: \"See you \\n\"\nNew_Label: |-\n  Two\n  lines\n";
    let data = from_text(text).unwrap();
    let (variant, _) = decode(&data).unwrap();
    assert_eq!(variant, "Le");
    assert_eq!(data.len() % 16, 0);
    assert_eq!(u32_at(&data, 0x12) as usize, data.len(), "file size");
    let (slots, found) = labels(&data);
    assert_eq!(slots, 2, "3 labels: 2 slots by the rule");
    // Each label in its hash's slot; in a slot, ascending message index.
    let hash = |s: &str| {
        s.bytes()
            .fold(0u32, |h, b| h.wrapping_mul(0x492).wrapping_add(b.into()))
    };
    let mut want: Vec<(String, u32)> = ["Hello", "Bye", "New_Label"]
        .iter()
        .enumerate()
        .map(|(i, s)| (s.to_string(), i as u32))
        .collect();
    want.sort_by_key(|(s, i)| (hash(s) % 2, *i));
    assert_eq!(found, want);
    // LBL1's padding is 0xAB.
    let lbl_size = u32_at(&data, 0x24) as usize;
    let end = 0x30 + lbl_size;
    assert!(data[end..(end + 15) & !15].iter().all(|&b| b == 0xAB));
    // The message text, its tag and the quoted line break come back.
    let again = to_text(&data).unwrap();
    assert_eq!(again, "Hello: |-\n  Hi <0 Type='3' Data='0x0100'/>there\nBye: \"See you \\n\"\nNew_Label: |-\n  Two\n  lines\n");
}

/// A modder's mistakes get the line and what is wrong.
#[test]
fn mistakes_are_named_with_their_line() {
    let cases = [
        (
            "A: |-\n  x\nA: |-\n  y\n",
            "line 3, column 1: the label `A` is given twice (first on line 1)",
        ),
        (
            "A: |-\n  <70000 Type='1'/>\n",
            "group 70000 is out of range (0 to 65535)",
        ),
        (
            "A: x\n$msbt:\n  slots: 3\n",
            "`$msbt` must be the first entry, once",
        ),
        (
            "$msbt:\n  slot: 3\nA: x\n",
            "`$msbt` has no setting `slot` (known: byte_order,",
        ),
        (
            "$msbt:\n  padding: 300\nA: x\n",
            "`$msbt.padding` must be a number from 0 to 255",
        ),
        (
            "$msbt:\n  encoding: latin-1\nA: x\n",
            "`$msbt.encoding` must be `utf-8`, `utf-16` or `utf-32`",
        ),
        (
            "A:\n  - x\n",
            "expected the message of `A` (a string), found a sequence",
        ),
        (
            "- A\n",
            "expected a mapping of labels to messages, found a sequence",
        ),
    ];
    for (text, want) in cases {
        let e = from_text(text).unwrap_err();
        assert!(e.contains(want), "{text:?}: {e}");
    }
    // A character that UTF-8 messages cannot hold is the writer's error,
    // not a silent change: a tag's code unit written as text.
    let e = from_text("$msbt:\n  encoding: utf-8\nA: \"\\x0E\"\n").unwrap_err();
    assert!(
        e.contains("the text holds U+000E, the unit that opens a `Control8` record"),
        "{e}"
    );
}

/// Text that reads as a tag has no escape in this form: `to-text` says so
/// rather than write a text that would come back as a tag.
#[test]
fn text_that_reads_as_a_tag_is_refused() {
    let data = from_text("A: \"x\"\n").unwrap();
    let edited = {
        // The message "x" becomes text that reads as a tag.
        let (variant, mut doc) = decode(&data).unwrap();
        let s = format!("{doc:?}");
        assert!(s.contains("\"x\""), "{s}");
        // Characters of several bytes after it: the message quotes the
        // start of the text by characters, not bytes.
        replace_str(&mut doc, "x", "<1 Type='2'/>ééééééééééé");
        formats::msbt::encode(&doc, variant).unwrap()
    };
    let e = to_text(&edited).unwrap_err();
    assert!(e.contains("reads as a tag") && e.contains("ééé"), "{e}");
    assert!(e.contains("to-text --schema schemas/msbt.ron"), "{e}");
}

fn replace_str(v: &mut codec_interp::Value, from: &str, to: &str) {
    use codec_interp::Value::*;
    match v {
        Str(s) if s == from => *s = to.to_string(),
        Seq(items) => items.iter_mut().for_each(|i| replace_str(i, from, to)),
        Struct { fields, .. } => fields
            .iter_mut()
            .for_each(|(_, f)| replace_str(f, from, to)),
        Variant { value, .. } => replace_str(value, from, to),
        _ => {}
    }
}

/// The command line names the text FILE.msbt.yml and reads it back by
/// that name, writing FILE.msbt, never over a file without --force.
#[test]
fn the_command_line_writes_and_reads_the_text() {
    let Some(data) = corpus_file("totk/ActorMsg/Boss.msbt") else {
        return;
    };
    let dir = common::scratch("msbt_text", "cli");
    let bin = dir.join("Boss.msbt");
    std::fs::write(&bin, &data).unwrap();
    let o = common::codec(&["to-text".as_ref(), bin.as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let yml = dir.join("Boss.msbt.yml");
    let text = std::fs::read_to_string(&yml).unwrap();
    assert!(
        text.starts_with("Enemy_Army_Manager_005_Name: |-\n  Phantom Ganon\n"),
        "{text}"
    );
    let o = common::codec(&["from-text".as_ref(), yml.as_os_str()]);
    assert!(
        !o.status.success(),
        "Boss.msbt exists: refused without --force"
    );
    assert!(
        common::stderr(&o).contains("exists"),
        "{}",
        common::stderr(&o)
    );
    std::fs::write(&yml, text.replace("Phantom Ganon", "Phantom Ganondorf")).unwrap();
    let o = common::codec(&["from-text".as_ref(), yml.as_os_str(), "--force".as_ref()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let edited = std::fs::read(&bin).unwrap();
    assert_eq!(
        to_text(&edited).unwrap(),
        text.replace("Phantom Ganon", "Phantom Ganondorf")
    );
    let n = text.matches("Phantom Ganon").count();
    let grown = (data.len() + 8 * n).next_multiple_of(16);
    assert_eq!(
        edited.len(),
        grown,
        "4 UTF-16 characters more in each of {n} messages, padded to 16"
    );
}

/// In an archive (TotK's message packs are SARCs of MSBT files), each
/// MSBT member is unpacked as its text, `form: msbt-yaml` in the
/// manifest, and an edited text is packed as the file it describes.
#[test]
fn archive_members_are_unpacked_as_text_and_packed_back() {
    use formats::sarc::{self, Node, Sarc, Variant};
    let (Some(boss), Some(nick)) = (
        corpus_file("totk/ActorMsg/Boss.msbt"),
        corpus_file("totk/ActorMsg/Nickname.msbt"),
    ) else {
        return;
    };
    let nodes = vec![
        Node::new("ActorMsg/Boss.msbt", boss.clone()),
        Node::new("ActorMsg/Nickname.msbt", nick.clone()),
    ];
    let archive = sarc::encode(&Sarc::new(nodes), Variant::Little).unwrap();
    let dir = common::scratch("msbt_text", "archive");
    let pack = dir.join("Msg_USen.sarc");
    std::fs::write(&pack, &archive).unwrap();
    let folder = dir.join("Msg_USen.sarc.d");
    let o = common::codec(&[
        "to-text".as_ref(),
        pack.as_os_str(),
        "-o".as_ref(),
        folder.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let manifest = std::fs::read_to_string(folder.join("codec-archive.json")).unwrap();
    assert_eq!(manifest.matches("\"msbt-yaml\"").count(), 2, "{manifest}");
    let member = folder.join("ActorMsg/Boss.msbt.yml");
    let text = std::fs::read_to_string(&member).unwrap();
    std::fs::write(&member, text.replace("Phantom Ganon", "Phantom Ganondorf")).unwrap();
    let out = dir.join("edited.sarc");
    let o = common::codec(&[
        "from-text".as_ref(),
        folder.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let (_, edited) = sarc::decode(&std::fs::read(&out).unwrap()).unwrap();
    let data = |name: &str| {
        edited
            .nodes
            .iter()
            .find(|n| n.name.as_str() == name)
            .unwrap()
            .data
            .value
            .clone()
    };
    assert_eq!(
        data("ActorMsg/Nickname.msbt"),
        nick,
        "the untouched member is the same bytes"
    );
    let boss_edited = data("ActorMsg/Boss.msbt");
    assert_ne!(boss_edited, boss);
    assert_eq!(
        to_text(&boss_edited).unwrap(),
        text.replace("Phantom Ganon", "Phantom Ganondorf")
    );
    // A broken text names the member, its line and column.
    std::fs::write(&member, "A: |-\n  x\nA: |-\n  y\n").unwrap();
    let o = common::codec(&[
        "from-text".as_ref(),
        folder.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--force".as_ref(),
    ]);
    assert!(!o.status.success());
    let e = common::stderr(&o);
    assert!(
        e.contains("Boss.msbt.yml") && e.contains("line 3, column 1: the label `A` is given twice"),
        "{e}"
    );
}

/// One member of an archive (`ARCHIVE:MEMBER`) converts with -o; a
/// compressed MSBT's text starts with the comment naming its layer (only
/// then: a TotK file's text has none), and comes back compressed.
#[test]
fn a_member_and_a_compressed_file_convert_too() {
    use formats::layer::{wrap, Dictionaries, Layer};
    use formats::sarc::{self, Node, Sarc, Variant};
    let Some(boss) = corpus_file("totk/ActorMsg/Boss.msbt") else {
        return;
    };
    let dir = common::scratch("msbt_text", "member");
    let pack = dir.join("Msg.sarc");
    let nodes = vec![Node::new("ActorMsg/Boss.msbt", boss.clone())];
    std::fs::write(
        &pack,
        sarc::encode(&Sarc::new(nodes), Variant::Little).unwrap(),
    )
    .unwrap();
    let member = format!("{}:ActorMsg/Boss.msbt", pack.display());
    let o = common::codec(&["to-text", member.as_str()]);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains("name the output with -o"),
        "{}",
        common::stderr(&o)
    );
    let o = common::codec(&["to-text", member.as_str(), "-o", "-"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(common::stdout(&o), to_text(&boss).unwrap());

    let szs = dir.join("Boss.msbt.szs");
    let layers = [Layer::Yaz0 { alignment: 0 }];
    std::fs::write(
        &szs,
        wrap(boss.clone(), &layers, &Dictionaries::default()).unwrap(),
    )
    .unwrap();
    let o = common::codec(&["to-text".as_ref(), szs.as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(dir.join("Boss.msbt.szs.yml")).unwrap();
    assert!(text.starts_with("# "), "{}", &text[..60]);
    let o = common::codec(&[
        "from-text".as_ref(),
        dir.join("Boss.msbt.szs.yml").as_os_str(),
        "-o".as_ref(),
        dir.join("back.szs").as_os_str(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let back = std::fs::read(dir.join("back.szs")).unwrap();
    let (found, inner) = formats::layer::peel(&back, &Dictionaries::default()).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(inner, boss);
}
