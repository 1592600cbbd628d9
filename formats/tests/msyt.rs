//! msyt's YAML (BotW's MSBT text) read by `from-text`
//! (`formats::msbt::msyt`): what each of msyt's control kinds is in bytes,
//! read back through the editors' text (`<G Type='T' Data='0x..'/>`), the
//! parameters msyt leaves in the text, and the errors. msyt itself judges
//! the reader in `tests/peers/msyt.py` where msyt is installed.

mod common;

use formats::msbt::{decode, from_msyt, to_text};

/// msyt's YAML of one message per control kind, as msyt writes them.
const KINDS: &str = r#"---
group_count: 17
entries:
  colour:
    contents:
      - control:
          kind: set_colour
          colour: red
      - text: Red
      - control:
          kind: reset_colour
  font:
    contents:
      - control:
          kind: font
          font_kind: hylian
  size:
    contents:
      - control:
          kind: text_size
          percent: 125
  frames:
    contents:
      - control:
          kind: pause
          frames: 30
  length:
    contents:
      - control:
          kind: pause
          length: longer
  advance:
    contents:
      - control:
          kind: auto_advance
          frames: 90
  choice:
    contents:
      - control:
          kind: choice
          choice_labels: [1, 2]
          selected_index: 0
          cancel_index: 1
          unknown: 6
  single:
    contents:
      - control:
          kind: single_choice
          label: 3
  icons:
    contents:
      - control:
          kind: icon
          icon:
            a: 10
      - control:
          kind: icon
          icon: plus
  variable:
    contents:
      - control:
          kind: variable
          variable_kind: 11
          name: Ab
  sounds:
    contents:
      - control:
          kind: sound
          unknown: [1, 2]
      - control:
          kind: sound2
          unknown: []
  animation:
    contents:
      - control:
          kind: animation
          name: Hi
  plural:
    contents:
      - control:
          kind: localisation
          localisation_kind: plural
          options:
            - ring
            - rings
  raw:
    contents:
      - control:
          kind: raw
          three:
            field_1: 0
            field_2: [11, 0]
      - control:
          kind: raw
          zero:
            four:
              field_1: 0
      - control:
          kind: raw
          four:
            zero:
              field_1: 8
              string: Hey
      - control:
          kind: raw
          one:
            one:
              field_1: 4
              field_2: 1065353216
      - control:
          kind: raw
          two_hundred_one:
            dynamic:
              - 3
              - len: 2
                field_2: [7, 8]
  closing:
    contents:
      - text: "(Hold)\u000f\u0003\u0001 it"
  owed:
    contents:
      - control:
          kind: raw
          two:
            variable:
              - 15
              - field_1: 8
                string: A
                field_3: 65535
      - text: 촀 rupees
  "0042":
    contents:
      - text: Stop
"#;

/// Each kind is the tag msyt's writer makes of it (its source defines the
/// bytes: which group and type, which fields in which widths, the size it
/// stores), read back in the editors' spelling.
#[test]
fn each_kind_is_the_tag_msyt_writes() {
    let data = from_msyt(KINDS, "Le").unwrap();
    let text = to_text(&data).unwrap();
    let expected = [
        "colour: |-\n  <0 Type='3' Data='0x0000'/>Red<0 Type='3' Data='0xFFFF'/>",
        "font: |-\n  <0 Type='1' Data='0x0000'/>",
        "size: |-\n  <0 Type='2' Data='0x7D00'/>",
        "frames: |-\n  <1 Type='0' Data='0x1E000000'/>",
        "length: |-\n  <5 Type='2'/>",
        "advance: |-\n  <1 Type='3' Data='0x5A000000'/>",
        "choice: |-\n  <1 Type='4' Data='0x010002000001'/>",
        "single: |-\n  <1 Type='10' Data='0x030001CD'/>",
        "icons: |-\n  <1 Type='7' Data='0x0ACD'/><1 Type='7' Data='0x17CD'/>",
        "variable: |-\n  <2 Type='11' Data='0x0400410062000000'/>",
        "sounds: |-\n  <3 Type='1' Data='0x0102'/><4 Type='1'/>",
        "animation: |-\n  <4 Type='2' Data='0x040048006900'/>",
        "plural: |-\n  <201 Type='6' Data='0x0800720069006E006700\
         0A00720069006E0067007300'/>",
        "raw: |-\n  <3 Type='0' Data='0x0B00'/><0 Type='4'/>\
         <4 Type='0' Data='0x0600480065007900'/>",
        "closing: |-\n  (Hold)<[3|1]> it",
        // The size says 8: the two bytes after the fields are U+CD00,
        // which msyt's export leaves at the start of the next text.
        "owed: |-\n  <2 Type='15' Data='0x02004100FFFF00CD'/> rupees",
        "\"0042\": |-\n  Stop",
    ];
    let mut at = 0;
    for e in expected {
        let found = text[at..]
            .find(e)
            .unwrap_or_else(|| panic!("{e}\nnot found in order in\n{text}"));
        at += found + e.len();
    }
    assert!(text.contains("<1 Type='1' Data='0x0000803F'/>"), "{text}");
    assert!(text.contains("<201 Type='3' Data='0x0708'/>"), "{text}");
    // msyt's own settings: its slot count, little-endian UTF-16.
    assert!(text.starts_with("$msbt:\n  slots: 17\n"), "{text}");
    assert_eq!(&data[8..10], &[0xFF, 0xFE]);
}

/// The messages come in the order listed (msyt's export sorts them by
/// label; `create` writes them as listed), the file in the variant asked
/// for.
#[test]
fn messages_keep_the_listed_order_and_the_variant_asked_for() {
    let yaml = "group_count: 2\nentries:\n  b:\n    contents:\n      - text: one\n  a:\n    contents:\n      - text: two\n";
    let data = from_msyt(yaml, "Be").unwrap();
    assert_eq!(
        &data[8..10],
        &[0xFE, 0xFF],
        "big-endian, as msyt's --platform wiiu"
    );
    let (variant, doc) = decode(&data).unwrap();
    assert_eq!(variant, "Be");
    let text = to_text(&data).unwrap();
    assert!(text.contains("b: |-\n  one\na: |-\n  two"), "{text}");
    let json =
        codec_interp::json::to_json(formats::msbt::schema().variant("Be").unwrap(), &doc, &[]);
    assert!(json.contains("\"slot_count\": 2"), "{json}");
    let utf8 = from_msyt(yaml, "LeUtf8").unwrap();
    assert_eq!(utf8[12], 0, "the encoding byte of UTF-8");
    assert!(utf8.windows(4).any(|w| w == b"one\0"));
}

/// BotW's attributes (ATR1 after LBL1, as Nintendo lays it out, where
/// msyt's builder puts it after TXT2), and the other blocks msyt keeps.
#[test]
fn attributes_and_other_blocks_are_laid_out_in_nintendos_order() {
    let yaml = "group_count: 1\natr1_unknown: 4\ntsy1: AQAAAA==\nentries:\n  a:\n    attributes: x\n    contents:\n      - text: hi\n";
    let data = from_msyt(yaml, "Le").unwrap();
    let magics: Vec<&[u8]> = data
        .windows(4)
        .filter(|w| matches!(*w, b"LBL1" | b"ATR1" | b"TSY1" | b"TXT2"))
        .collect();
    assert_eq!(magics, [b"LBL1", b"ATR1", b"TSY1", b"TXT2"]);
    // ATR1: count 1, size 4, the offset 12 to "x\0" in UTF-16.
    let atr = data.windows(4).position(|w| w == b"ATR1").unwrap() + 16;
    assert_eq!(
        &data[atr..atr + 16],
        &[1, 0, 0, 0, 4, 0, 0, 0, 12, 0, 0, 0, b'x', 0, 0, 0]
    );
    let tsy = data.windows(4).position(|w| w == b"TSY1").unwrap() + 16;
    assert_eq!(&data[tsy..tsy + 4], &[1, 0, 0, 0]);
}

/// Mistakes get the line, the column and the field's path.
#[test]
fn mistakes_are_named_with_line_and_path() {
    let cases = [
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - control:\n          kind: blink\n",
            "line 6, column 17: `entries.a.contents[0].control.kind` is `blink`, not a kind msyt writes",
        ),
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - control:\n          kind: set_colour\n          colour: pink\n",
            "`entries.a.contents[0].control.colour` is `pink`, not one of red,",
        ),
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - control:\n          kind: raw\n          four:\n            zero:\n              field_1: 2\n              string: Hey\n",
            "line 9, column 24: `entries.a.contents[0].control.four.zero.field_1` is 2, the size of the tag's parameters, but its fields take 8 bytes",
        ),
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - control:\n          kind: raw\n          four:\n            zero:\n              field_1: 11\n              string: Hey\n      - text: xy\n",
            "`entries.a.contents[0].control` (tag 4.0) has a stored size 3 bytes above its fields",
        ),
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - text: hi\n        colour: red\n",
            "line 6, column 9: `entries.a.contents[0]` has no field `colour` (msyt's fields here: text, control)",
        ),
        (
            "group_count: -1\nentries: {}\n",
            "line 1, column 14: -1 is out of range for `group_count`",
        ),
        (
            "group_count: 2\nentries:\n  a:\n    contents:\n      - text: \"\\u000e\"\n",
            "holds U+000E, which opens a tag",
        ),
    ];
    for (yaml, want) in cases {
        let e = from_msyt(yaml, "Le").unwrap_err();
        assert!(e.contains(want), "{yaml}\nwanted: {want}\ngot: {e}");
    }
}

/// `codec from-text FILE.msyt` writes FILE.msbt beside it (never over a
/// file without --force), in the byte order --endian or --variant names.
#[test]
fn the_command_line_reads_msyt_by_its_name() {
    let dir = common::scratch("msyt", "cli");
    let src = dir.join("Talk.msyt");
    std::fs::write(&src, KINDS).unwrap();
    let o = common::codec(&["from-text".as_ref(), src.as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let le = std::fs::read(dir.join("Talk.msbt")).unwrap();
    assert_eq!(le, from_msyt(KINDS, "Le").unwrap());
    let o = common::codec(&["from-text".as_ref(), src.as_os_str()]);
    assert!(
        common::stderr(&o).contains("exists"),
        "{}",
        common::stderr(&o)
    );
    let o = common::codec(&[
        "from-text".as_ref(),
        src.as_os_str(),
        "--endian".as_ref(),
        "big".as_ref(),
        "--force".as_ref(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let be = std::fs::read(dir.join("Talk.msbt")).unwrap();
    assert_eq!(be, from_msyt(KINDS, "Be").unwrap());
    let o = common::codec(&[
        "from-text".as_ref(),
        src.as_os_str(),
        "--variant".as_ref(),
        "switch".as_ref(),
        "--force".as_ref(),
    ]);
    assert!(
        common::stderr(&o).contains("--variant switch is not an MSBT variant"),
        "{}",
        common::stderr(&o)
    );
    // A msyt text under another name is known by its keys.
    let other = dir.join("talk.yml");
    std::fs::write(&other, KINDS).unwrap();
    let o = common::codec(&["from-text".as_ref(), other.as_os_str()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(std::fs::read(dir.join("talk.msbt")).unwrap(), le);
}
