//! AAMP ↔ YAML: exact texts on documents built here, located errors, and on
//! the corpus (read in place from `$CODEC_CORPUS/aamp` or
//! `../shared/corpus/aamp`; the tests say so and pass when it is absent):
//! binary → text → binary is byte-identical, oead's and roead's golden texts
//! read back to the original bytes, and with the community's names loaded
//! the text equals oead's.

use formats::aamp::names::NameTable;
use formats::aamp::text::{from_yaml, to_yaml};
use formats::aamp::{
    self, Curve, Name, Parameter, ParameterIO, ParameterList, ParameterObject, ParameterValue,
};
use std::fs;
use std::path::Path;
use std::sync::OnceLock;

mod common;

// ---------------------------------------------------------------------------
// Documents built here

fn table(names: &str, patterns: &str) -> NameTable {
    let mut t = NameTable::new();
    t.add_names(names);
    t.add_patterns(patterns).expect("patterns");
    t
}

fn curve(a: u32, b: u32, start: f32) -> Curve {
    Curve {
        a,
        b,
        floats: std::array::from_fn(|i| start + i as f32),
    }
}

/// One parameter of every type, a nested list, an empty object.
fn every_type() -> ParameterIO {
    let values = ParameterObject::new("Values")
        .with("Bool", ParameterValue::Bool(true))
        .with("F32", ParameterValue::F32(0.8))
        .with("NegZero", ParameterValue::F32(-0.0))
        .with("Small", ParameterValue::F32(1e-5))
        .with("Int", ParameterValue::Int(-42))
        .with("Vec2", ParameterValue::Vec2([1.2, 5.1]))
        .with("Vec3", ParameterValue::Vec3([1.0, -2.5, 3.0]))
        .with("Vec4", ParameterValue::Vec4([0.0, 0.5, 1e10, -1.0]))
        .with("Color", ParameterValue::Color([0.7, 0.8, 0.9, 1.0]))
        .with("Str32", ParameterValue::String32("test string".into()))
        .with("Str64", ParameterValue::String64("".into()))
        .with("Str256", ParameterValue::String256("テスト".into()))
        .with(
            "Curve",
            ParameterValue::Curve1(Box::new([curve(1, 2, 1.0)])),
        )
        .with("BufInt", ParameterValue::BufferInt(vec![1, -2, 3]))
        .with("BufF32", ParameterValue::BufferF32(vec![1.0, 2.5]))
        .with("Quat", ParameterValue::Quat([1.0, 2.0, 3.0, 4.0]))
        .with("U32", ParameterValue::U32(u32::MAX))
        .with("BufU32", ParameterValue::BufferU32(vec![0, 4_294_967_295]))
        .with("BufBin", ParameterValue::BufferBinary(vec![0, 255].into()))
        .with("Ref", ParameterValue::StringRef("fkisfj 2929 jdj".into()))
        .with("Number", ParameterValue::StringRef("29103913".into()))
        .with("Truth", ParameterValue::StringRef("true".into()))
        .with("Empty", ParameterValue::StringRef("".into()));
    let mut pio = ParameterIO::new("xml");
    pio.version = 10;
    pio.root = ParameterList::new(aamp::ROOT_NAME)
        .with_object(values)
        .with_list(
            ParameterList::new("Children")
                .with_object(ParameterObject::new("Empty"))
                .with_list(ParameterList::new(Name(12345))),
        );
    pio
}

const EVERY_TYPE_NAMES: &str = "Values\nBool\nF32\nNegZero\nSmall\nInt\nVec2\nVec3\nVec4\nColor\n\
                                Str32\nStr64\nStr256\nCurve\nBufInt\nBufF32\nQuat\nU32\nBufU32\n\
                                BufBin\nRef\nNumber\nTruth\nEmpty\nChildren\n";

const EVERY_TYPE_YAML: &str = "\
!io
version: 10
type: xml
param_root: !list
  objects:
    Values: !obj
      Bool: true
      F32: 0.800000012
      NegZero: -0.0
      Small: 9.99999975e-06
      Int: -42
      Vec2: !vec2 [1.20000005, 5.0999999]
      Vec3: !vec3 [1.0, -2.5, 3.0]
      Vec4: !vec4 [0.0, 0.5, 1e+10, -1.0]
      Color: !color [0.699999988, 0.800000012, 0.899999976, 1.0]
      Str32: !str32 test string
      Str64: !str64 ''
      Str256: !str256 テスト
      Curve: !curve [1, 2, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0,
        19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0]
      BufInt: !buffer_int [1, -2, 3]
      BufF32: !buffer_f32 [1.0, 2.5]
      Quat: !quat [1.0, 2.0, 3.0, 4.0]
      U32: !u 4294967295
      BufU32: !buffer_u32 [0, 4294967295]
      BufBin: !buffer_binary [0, 255]
      Ref: fkisfj 2929 jdj
      Number: '29103913'
      Truth: 'true'
      Empty: ''
  lists:
    Children: !list
      objects:
        Empty: !obj {}
      lists:
        12345: !list
          objects: {}
          lists: {}
";

#[test]
fn every_type_writes_oeads_text_and_reads_back() {
    let pio = every_type();
    let names = table(EVERY_TYPE_NAMES, "");
    assert_eq!(to_yaml(&pio, &names), EVERY_TYPE_YAML);
    let back = from_yaml(EVERY_TYPE_YAML).expect("reads back");
    assert_eq!(aamp::encode(&back).unwrap(), aamp::encode(&pio).unwrap());
    // Without names every key is its hash, and the text still reads back.
    let bare = to_yaml(&pio, &NameTable::new());
    assert!(bare.contains(&format!("\n    {}: !obj\n", Name::of("Values").0)));
    assert_eq!(
        aamp::encode(&from_yaml(&bare).unwrap()).unwrap(),
        aamp::encode(&pio).unwrap()
    );
}

#[test]
fn special_floats_keep_their_bits() {
    let bits: [u32; 12] = [
        0x8000_0000, // -0.0
        0x7F80_0000, // inf
        0xFF80_0000, // -inf
        0x7FC0_0000, // the canonical NaN
        0xFFC0_0000, // the NaN x86 produces
        0x7F80_0001, // a signalling NaN
        0x0000_0001, // the smallest subnormal
        0x007F_FFFF, // the largest subnormal
        0x7F7F_FFFF, // f32::MAX
        0x3F80_0001, // 1 + ulp
        0x4B80_0001, // 16777218
        0x3DCC_CCCD, // 0.1
    ];
    let floats: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    let mut object = ParameterObject::new("Floats");
    for (i, &f) in floats.iter().enumerate() {
        object.params.push(Parameter {
            name: i as u32,
            value: ParameterValue::F32(f),
        });
    }
    object.params.push(Parameter {
        name: 100,
        value: ParameterValue::BufferF32(floats.clone()),
    });
    let mut pio = ParameterIO::new("xml");
    pio.root.objects.push(object);
    let text = to_yaml(&pio, &NameTable::new());
    for line in [
        "      0: -0.0\n",
        "      1: .inf\n",
        "      2: -.inf\n",
        "      3: .nan\n",
        "      4: !f32 0xffc00000\n",
        "      5: !f32 0x7f800001\n",
        "      6: 1.40129846e-45\n",
        "      7: 1.17549421e-38\n",
        "      8: 3.40282347e+38\n",
        "      9: 1.00000012\n",
        "      10: 16777218.0\n",
        "      11: 0.100000001\n",
        "      100: !buffer_f32 [-0.0, .inf, -.inf, .nan, !f32 0xffc00000, !f32 0x7f800001, 1.40129846e-45,",
    ] {
        assert!(text.contains(line), "{line:?} missing in\n{text}");
    }
    let back = from_yaml(&text).unwrap();
    assert_eq!(aamp::encode(&back).unwrap(), aamp::encode(&pio).unwrap());
}

#[test]
fn reads_roeads_variant() {
    let yaml = "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    Obj: !obj\n      \
                a: !u 0x309\n      b: 0.800000011920929\n      c: !vec2 [1.2000000476837158, -0.0]\n      \
                d: !buffer_u32 [0x1, 0xffffffff]\n      e: !buffer_binary [0xff, 1]\n  lists: {}\n";
    let pio = from_yaml(yaml).unwrap();
    let obj = pio.root.object("Obj").unwrap();
    assert_eq!(obj.get("a"), Some(&ParameterValue::U32(0x309)));
    assert_eq!(obj.get("b"), Some(&ParameterValue::F32(0.8)));
    match obj.get("c") {
        Some(ParameterValue::Vec2([x, y])) => {
            assert_eq!(x.to_bits(), 1.2f32.to_bits());
            assert_eq!(y.to_bits(), (-0.0f32).to_bits());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        obj.get("d"),
        Some(&ParameterValue::BufferU32(vec![1, u32::MAX]))
    );
    assert_eq!(
        obj.get("e"),
        Some(&ParameterValue::BufferBinary(vec![255, 1].into()))
    );
}

#[test]
fn keys_bare_integers_are_hashes_anything_else_is_hashed() {
    let yaml = "!io\nversion: 1\ntype: t\nparam_root: !list\n  objects:\n    12: !obj\n      \
                '12': 1\n      \"34\": 2\n      0x10: 3\n      Name: 4\n      name with space: 5\n  \
                lists: {}\n";
    let pio = from_yaml(yaml).unwrap();
    let object = &pio.root.objects[0];
    assert_eq!(object.name, 12);
    let names: Vec<u32> = object.params.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            Name::of("12").0,
            Name::of("34").0,
            16,
            Name::of("Name").0,
            Name::of("name with space").0
        ]
    );
    // A name that reads as a number is written quoted, so it stays a name.
    let mut pio = ParameterIO::new("xml");
    pio.root.objects.push(
        ParameterObject::new("12")
            .with("0", ParameterValue::Int(1))
            .with("ref", ParameterValue::StringRef("0".into())),
    );
    let text = to_yaml(&pio, &table("12\nref\n", ""));
    assert!(
        text.contains("\n    '12': !obj\n      '0': 1\n      ref: '0'\n"),
        "{text}"
    );
    assert_eq!(from_yaml(&text).unwrap(), pio);
}

#[test]
fn repeated_keys_are_kept_in_order() {
    let yaml = "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    A: !obj\n      \
                x: 1\n      x: 2\n      y: 3\n    A: !obj {}\n  lists: {}\n";
    let pio = from_yaml(yaml).unwrap();
    assert_eq!(pio.root.objects.len(), 2);
    let values: Vec<(u32, &ParameterValue)> = pio.root.objects[0]
        .params
        .iter()
        .map(|p| (p.name, &p.value))
        .collect();
    let x = Name::of("x").0;
    assert_eq!(
        values,
        [
            (x, &ParameterValue::Int(1)),
            (x, &ParameterValue::Int(2)),
            (Name::of("y").0, &ParameterValue::Int(3))
        ]
    );
    // And a binary with repeated names writes repeated keys.
    let text = to_yaml(&pio, &table("A\nx\ny\n", ""));
    assert_eq!(text, yaml);
}

#[test]
fn empty_and_null_strings() {
    let yaml = "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    O: !obj\n      \
                a: !str64 ''\n      b: !str64\n      c:\n      d: !str32 null\n      e: \"\"\n  lists: {}\n";
    let pio = from_yaml(yaml).unwrap();
    let o = &pio.root.objects[0];
    assert_eq!(o.get("a"), Some(&ParameterValue::String64("".into())));
    assert_eq!(o.get("b"), Some(&ParameterValue::String64("".into())));
    assert_eq!(o.get("c"), Some(&ParameterValue::StringRef("".into())));
    assert_eq!(o.get("d"), Some(&ParameterValue::String32("null".into())));
    assert_eq!(o.get("e"), Some(&ParameterValue::StringRef("".into())));
}

#[test]
fn long_strings_fold_like_libyaml() {
    let long = "word ".repeat(30) + "end";
    let mut pio = ParameterIO::new("xml");
    pio.root.objects.push(
        ParameterObject::new("O")
            .with("plain", ParameterValue::StringRef(long.as_str().into()))
            .with(
                "quoted",
                ParameterValue::String256(format!("'{long}").into()),
            ),
    );
    let text = to_yaml(&pio, &table("O\nplain\nquoted\n", ""));
    let want = "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    O: !obj\n      \
        plain: word word word word word word word word word word word word word word word word word word word word word word\n        \
        word word word word word word word word end\n      \
        quoted: !str256 '''word word word word word word word word word word word word word word word word word word word word\n        \
        word word word word word word word word word word end'\n  lists: {}\n";
    assert_eq!(text, want);
    assert_eq!(from_yaml(&text).unwrap(), pio);
}

#[test]
fn name_recovery_follows_oeads_order() {
    // Keys: parent + index guesses, a numbered pattern (its number must be
    // at most index + 1), a document string, and an unknown hash.
    let mut pio = ParameterIO::new("xml");
    let mut items = ParameterList::new("Items");
    for i in 0..3 {
        items
            .objects
            .push(ParameterObject::new(format!("Item_{i:02}").as_str()));
    }
    items.objects.push(ParameterObject::new("Children3"));
    items.objects.push(ParameterObject::new("Check_5"));
    items.objects.push(ParameterObject::new("Check_9"));
    items.objects.push(
        ParameterObject::new("FromDocument")
            .with("Text", ParameterValue::String64("FromDocument".into())),
    );
    pio.root.lists.push(items);
    let names = table("Items\nText\n", "Check_%d\n");
    let text = to_yaml(&pio, &names);
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": !obj"))
        .map(|l| l.trim().split(':').next().unwrap())
        .collect();
    let check9 = Name::of("Check_9").0.to_string();
    assert_eq!(
        keys,
        [
            "Item_00",
            "Item_01",
            "Item_02",
            "Children3",
            "Check_5",
            check9.as_str(),
            "FromDocument"
        ]
    );
    assert_eq!(
        aamp::encode(&from_yaml(&text).unwrap()).unwrap(),
        aamp::encode(&pio).unwrap()
    );
}

/// Each bad document: the error's line, column and a part of its message.
#[test]
fn errors_name_line_column_and_what_was_expected() {
    let doc = |body: &str| {
        format!(
            "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects:\n    O: !obj\n{body}  lists: {{}}\n"
        )
    };
    let cases: Vec<(String, usize, usize, &str)> = vec![
        (doc("      a: !vec5 [1.0]\n"), 7, 10, "unknown tag !vec5"),
        (
            doc("      a: !curve [1, 2, 3.0]\n"),
            7,
            10,
            "!curve needs 32, 64, 96 or 128 numbers",
        ),
        (
            doc("      a: !vec3 [1.0, 2.0]\n"),
            7,
            10,
            "!vec3 needs 3 numbers, found 2",
        ),
        (
            doc("      a: 2147483648\n"),
            7,
            10,
            "out of range for an int",
        ),
        (doc("      a: !u -1\n"), 7, 10, "out of range for !u"),
        (
            doc("      a: !buffer_binary [1, 256]\n"),
            7,
            29,
            "out of range for a byte of !buffer_binary",
        ),
        (
            doc("      a: 1.0e39\n"),
            7,
            10,
            "out of range for a 32-bit float",
        ),
        (
            doc(&format!("      a: !str32 {}\n", "x".repeat(32))),
            7,
            10,
            "too long for !str32: 32 bytes, at most 31 fit",
        ),
        (
            doc("      a: null\n"),
            7,
            10,
            "null is not a parameter value",
        ),
        (
            doc("      a: [1.0]\n"),
            7,
            10,
            "a sequence parameter needs a tag",
        ),
        (
            doc("      a: !vec2 [1.0, x]\n"),
            7,
            22,
            "expected a number, found `x`",
        ),
        (
            doc("      a: {b: 1}\n"),
            7,
            10,
            "expected a parameter value",
        ),
        (doc("      a: !vec2 [1.0\n"), 8, 8, "invalid YAML"),
        (
            doc("      4294967296: 1\n"),
            7,
            7,
            "the hash 4294967296 is out of range",
        ),
        (
            "!io\nversion: 0\ntype: xml\n".to_owned(),
            1,
            1,
            "the !io mapping has no `param_root`",
        ),
        (
            "!io\nversion: 0\ntype: xml\nparam_root: !obj {}\n".to_owned(),
            4,
            13,
            "`param_root` is a list: expected a mapping tagged !list, found the tag !obj",
        ),
        (
            "!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects: {}\n  objects: {}\n"
                .to_owned(),
            6,
            3,
            "`objects` appears twice",
        ),
        (
            "!io\nversion: 0\ntype: xml\nparam_root: !list\n  object: {}\n".to_owned(),
            5,
            3,
            "unknown key `object` in a !list; expected objects or lists",
        ),
        (
            "- 1\n".to_owned(),
            1,
            1,
            "expected the document's root mapping tagged !io",
        ),
        ("".to_owned(), 1, 1, "empty input"),
    ];
    for (text, line, column, message) in cases {
        let e = from_yaml(&text).expect_err(&text);
        assert!(
            e.message.contains(message),
            "{text}\nexpected `{message}`, got `{}`",
            e.message
        );
        assert_eq!((e.line, e.column), (line, column), "{text}\n{e}");
    }
}

// ---------------------------------------------------------------------------
// Corpus helpers

/// The community's names, loaded once.
fn dict_names(dir: &Path) -> &'static NameTable {
    static TABLE: OnceLock<NameTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = NameTable::new();
        table
            .load_names_file(&dir.join("dict/botw_hashed_names.txt"))
            .expect("names file");
        table
            .load_patterns_file(&dir.join("dict/botw_numbered_names.txt"))
            .expect("numbered names file");
        table
    })
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------
// Corpus tests

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn corpus_binary_text_binary_is_identical() {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    let names = dict_names(&dir);
    let empty = NameTable::new();
    let files = common::files_with_magic(&dir, formats::aamp::MAGIC);
    assert_eq!(files.len(), 158, "the corpus holds 158 AAMP files");
    let mut identical = 0;
    let mut failures = Vec::new();
    for path in &files {
        let bytes = fs::read(path).unwrap();
        let pio = aamp::decode(&bytes).unwrap();
        // With and without names: both must come back byte for byte.
        let mut ok = true;
        for table in [names, &empty] {
            let text = to_yaml(&pio, table);
            match from_yaml(&text).map(|p| aamp::encode(&p)) {
                Ok(Ok(back)) if back == bytes => {}
                Ok(Ok(_)) => {
                    ok = false;
                    failures.push(format!("{}: bytes differ", file_name(path)));
                }
                Ok(Err(e)) => {
                    ok = false;
                    failures.push(format!("{}: encode: {e}", file_name(path)));
                }
                Err(e) => {
                    ok = false;
                    failures.push(format!("{}: from-text: {e}", file_name(path)));
                }
            }
        }
        identical += usize::from(ok);
    }
    eprintln!(
        "binary -> text -> binary identical: {identical}/{}",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn golden_reads_back(tool: &str, expected_count: usize) {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    let golden = dir.join("golden").join(tool);
    let mut count = 0;
    let mut failures = Vec::new();
    for path in common::files_with_magic(&dir, formats::aamp::MAGIC) {
        let yml = golden.join(format!("{}.yml", file_name(&path)));
        if !yml.exists() {
            continue;
        }
        count += 1;
        let text = fs::read_to_string(&yml).unwrap();
        let bytes = fs::read(&path).unwrap();
        match from_yaml(&text).map(|p| aamp::encode(&p)) {
            Ok(Ok(back)) if back == bytes => {}
            Ok(Ok(_)) => failures.push(format!("{}: bytes differ", file_name(&path))),
            Ok(Err(e)) => failures.push(format!("{}: encode: {e}", file_name(&path))),
            Err(e) => failures.push(format!("{}: {e}", file_name(&path))),
        }
    }
    eprintln!(
        "{tool} golden -> binary identical: {}/{count}",
        count - failures.len()
    );
    assert_eq!(count, expected_count, "golden texts of {tool}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_oead_golden_reads_back_to_the_binary() {
    golden_reads_back("oead-1.2.9.post4", 158);
}

#[test]
fn corpus_roead_golden_reads_back_to_the_binary() {
    golden_reads_back("roead-1.0.0", 156);
}

/// With the community's names, the text is oead's, byte for byte.
#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn corpus_text_equals_oead_golden() {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    let names = dict_names(&dir);
    let golden = dir.join("golden/oead-1.2.9.post4");
    let files = common::files_with_magic(&dir, formats::aamp::MAGIC);
    let mut equal = 0;
    let mut report = Vec::new();
    for path in &files {
        let pio = aamp::decode(&fs::read(path).unwrap()).unwrap();
        let text = to_yaml(&pio, names);
        let want = fs::read_to_string(golden.join(format!("{}.yml", file_name(path)))).unwrap();
        if text == want {
            equal += 1;
            continue;
        }
        let differing: Vec<String> = text
            .lines()
            .zip(want.lines())
            .filter(|(a, b)| a != b)
            .take(3)
            .map(|(a, b)| format!("    ours: {a}\n    oead: {b}"))
            .collect();
        let lines = text
            .lines()
            .zip(want.lines())
            .filter(|(a, b)| a != b)
            .count();
        report.push(format!(
            "{}: {lines} lines differ (lengths {} / {})\n{}",
            file_name(path),
            text.len(),
            want.len(),
            differing.join("\n")
        ));
    }
    eprintln!("to-text equals oead's golden: {equal}/{}", files.len());
    for r in &report {
        eprintln!("{r}");
    }
    assert_eq!(equal, files.len(), "texts differing from oead's golden");
}

// ---------------------------------------------------------------------------
// The command line: `codec to-text` and `codec from-text`

fn codec(args: &[&std::ffi::OsStr], env: &[(&str, &Path)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_codec"));
    cmd.args(args)
        .env_remove(formats::aamp::names::NAMES_ENV)
        .env_remove(formats::aamp::names::NUMBERED_NAMES_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run codec")
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Files left in a folder, sorted (to see that no temporary file stays).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn cli_to_text_and_back_with_default_names() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("Every.bxml");
    let pio = every_type();
    let bytes = aamp::encode(&pio).unwrap();
    fs::write(&bin, &bytes).unwrap();
    let names = dir.path().join("names.txt");
    fs::write(&names, EVERY_TYPE_NAMES).unwrap();

    // Names from --names; output FILE.yml beside the input.
    let out = codec(
        &[
            os("to-text"),
            bin.as_os_str(),
            os("--names"),
            names.as_os_str(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let yml = dir.path().join("Every.bxml.yml");
    assert_eq!(fs::read_to_string(&yml).unwrap(), EVERY_TYPE_YAML);

    // Again: the output exists.
    let out = codec(&[os("to-text"), bin.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("exists; use --force to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(&yml).unwrap(), EVERY_TYPE_YAML);

    // --force replaces it; names from the environment this time, and none.
    let out = codec(&[os("to-text"), bin.as_os_str(), os("--force")], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(&yml).unwrap(),
        to_yaml(&pio, &NameTable::new())
    );
    let out = codec(
        &[os("to-text"), bin.as_os_str(), os("-f")],
        &[(formats::aamp::names::NAMES_ENV, &names)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&yml).unwrap(), EVERY_TYPE_YAML);

    // from-text: the output would be the binary, which exists.
    let out = codec(&[os("from-text"), yml.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Every.bxml: exists"),
        "{}",
        stderr(&out)
    );
    fs::remove_file(&bin).unwrap();
    let out = codec(&[os("from-text"), yml.as_os_str()], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&bin).unwrap(), bytes);

    // -o - writes to standard output.
    let out = codec(&[os("from-text"), yml.as_os_str(), os("-o"), os("-")], &[]);
    assert!(out.status.success());
    assert_eq!(out.stdout, bytes);
    let out = codec(
        &[
            os("to-text"),
            bin.as_os_str(),
            os("-o"),
            os("-"),
            os("--names"),
            names.as_os_str(),
        ],
        &[],
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), EVERY_TYPE_YAML);
    assert_eq!(
        listing(dir.path()),
        ["Every.bxml", "Every.bxml.yml", "names.txt"]
    );
}

#[test]
fn cli_failures_leave_outputs_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("doc.bxml");
    let bytes = aamp::encode(&every_type()).unwrap();
    fs::write(&bin, &bytes).unwrap();

    // A bad text: located error, the existing output kept, no leftovers.
    let bad = dir.path().join("bad.yml");
    fs::write(&bad, EVERY_TYPE_YAML.replace("!vec3", "!vec5")).unwrap();
    let out = codec(
        &[
            os("from-text"),
            bad.as_os_str(),
            os("-o"),
            bin.as_os_str(),
            os("--force"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("bad.yml:13:13: unknown tag !vec5"),
        "{message}"
    );
    assert_eq!(fs::read(&bin).unwrap(), bytes);

    // The input is never the output unless named with -o and --force.
    let out = codec(
        &[os("to-text"), bin.as_os_str(), os("-o"), bin.as_os_str()],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("refusing to overwrite the input"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(&bin).unwrap(), bytes);

    // Formats: to-text wants a known magic, from-text the !io tag.
    let other = dir.path().join("other.bin");
    fs::write(&other, b"not a known format").unwrap();
    let out = codec(&[os("to-text"), other.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no known magic"), "{}", stderr(&out));
    let text = dir.path().join("other.yml");
    fs::write(&text, "a: 1\n").unwrap();
    let out = codec(&[os("from-text"), text.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("starts with the !io tag"),
        "{}",
        stderr(&out)
    );
    let out = codec(&[os("from-text"), bin.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("does not end in .yml or .yaml"),
        "{}",
        stderr(&out)
    );

    // A names file that is missing is an error, before anything is written.
    let out = codec(
        &[
            os("to-text"),
            bin.as_os_str(),
            os("--names"),
            dir.path().join("nope.txt").as_os_str(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nope.txt"), "{}", stderr(&out));

    assert_eq!(
        listing(dir.path()),
        ["bad.yml", "doc.bxml", "other.bin", "other.yml"]
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut text =
        String::from("!io\nversion: 0\ntype: xml\nparam_root: !list\n  objects: {}\n  lists:\n");
    let depth = 10_000;
    for i in 0..depth {
        let indent = " ".repeat(4 + 4 * i);
        text.push_str(&format!(
            "{indent}L: !list\n{indent}  objects: {{}}\n{indent}  lists:\n"
        ));
    }
    text.push_str(&format!("{}L: !list {{}}\n", " ".repeat(4 + 4 * depth)));
    let e = from_yaml(&text).unwrap_err();
    assert!(e.message.contains("lists nested more than 256 deep"), "{e}");
    // param_root is the first of the 256; the 256th `L` is refused.
    assert_eq!(e.line, 7 + 3 * 255);
}
