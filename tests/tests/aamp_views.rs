//! The generated zero-copy views of AAMP (`formats::aamp::schema::view`):
//! they agree with decode field for field on every corpus file, opening
//! reads the header only, and hostile files end in the decoder's errors.

use codec_runtime::ErrorKind;
use formats::aamp::schema::view;
use formats::aamp::views::{compare, visit};
use formats::aamp::{ParameterIO, ParameterObject, ParameterValue};
use std::fs;

#[test]
#[cfg_attr(
    corpus_missing_aamp,
    ignore = "needs the AAMP corpus (../shared/corpus/aamp or $CODEC_CORPUS), absent here"
)]
fn views_agree_with_decode_on_every_corpus_file() {
    let Some(dir) = codec_tests::corpus_dir("aamp") else {
        println!("SKIPPED: AAMP corpus not found (set CODEC_CORPUS)");
        return;
    };
    let mut files = 0;
    let mut failures = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() {
            continue;
        }
        let data = fs::read(&path).unwrap();
        if !data.starts_with(b"AAMP") {
            continue;
        }
        files += 1;
        let doc = formats::aamp::decode(&data).unwrap();
        let source = view::source(&data);
        let file = view::open(&source).unwrap();
        if let Err(field) = compare(file, &doc) {
            failures.push(format!("{}: {field}", path.display()));
            continue;
        }
        // The walk reaches every record the header counts.
        let tally = visit(file).unwrap();
        let counts = (tally.lists, tally.objects, tally.parameters);
        let header = (
            file.list_count() as u64,
            file.object_count() as u64,
            file.parameter_count() as u64,
        );
        if counts != header {
            failures.push(format!(
                "{}: visited {counts:?}, header {header:?}",
                path.display()
            ));
        }
        // A view turns into the owned value.
        if file.to_owned().unwrap() != doc {
            failures.push(format!("{}: to_owned differs from decode", path.display()));
        }
    }
    println!("aamp views: {files} files compared with decode");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(files, 158);
}

fn sample() -> Vec<u8> {
    let mut pio = ParameterIO::new("xml");
    pio.root.objects.push(
        ParameterObject::new("General")
            .with("Life", ParameterValue::Int(40))
            .with("Name", ParameterValue::StringRef("Bokoblin".into()))
            .with("Pos", ParameterValue::Vec3([1.0, 2.0, 3.0])),
    );
    formats::aamp::encode(&pio).unwrap()
}

#[test]
fn opening_reads_the_header_only() {
    let mut data = sample();
    // Everything after the header and its type string is destroyed: decode
    // fails, but opening and the header's fields do not look there.
    let header_end = 0x30 + 4;
    for b in &mut data[header_end..] {
        *b = 0xFF;
    }
    assert!(formats::aamp::decode(&data).is_err());
    let source = view::source(&data);
    let file = view::open(&source).unwrap();
    assert_eq!(file.data_type().unwrap(), "xml");
    assert_eq!(file.data_type().unwrap().to_str().unwrap(), "xml");
    assert_eq!(file.parameter_count(), 3);
    // The root list's record is there (all 0xFF); what it leads to is not.
    assert!(file.root().unwrap().objects().is_err());

    // A file cut inside the header does not open.
    let short = &sample()[..0x20];
    let source = view::source(short);
    let err = view::open(&source).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnexpectedEof { .. }),
        "{err}"
    );
    assert_eq!(err.path(), "File");
}

#[test]
fn a_bad_offset_is_the_decoders_error_at_the_same_byte() {
    let good = sample();
    let doc = formats::aamp::decode(&good).unwrap();
    let source = view::source(&good);
    let file = view::open(&source).unwrap();
    let first = file.root().unwrap().objects().unwrap().get(0).unwrap();
    let param = first.params().unwrap().get(1).unwrap();
    assert_eq!(doc.root.objects[0].params.len(), 3);
    // Point the second parameter's value (u24, 4-byte units) far outside.
    let mut data = good.clone();
    let at = param.at() as usize + 4;
    data[at..at + 3].copy_from_slice(&[0xFF, 0xFF, 0x7F]);
    let decode_err = formats::aamp::decode(&data).unwrap_err();
    let source = view::source(&data);
    let file = view::open(&source).unwrap();
    let object = file.root().unwrap().objects().unwrap().get(0).unwrap();
    let view_err = object
        .params()
        .unwrap()
        .get(1)
        .unwrap()
        .value()
        .unwrap_err();
    assert_eq!(view_err.kind(), decode_err.kind());
    assert_eq!(view_err.offset(), decode_err.offset());
    assert_eq!(view_err.offset(), at as u64);
    // The view's path starts at the record asked; decode's at the root.
    assert_eq!(view_err.path(), "Parameter.value");
    assert!(
        decode_err.path().ends_with(".params[1].value"),
        "{decode_err}"
    );
    // The other parameters still read.
    assert_eq!(
        object
            .params()
            .unwrap()
            .get(0)
            .unwrap()
            .value()
            .unwrap()
            .to_string_lossy(),
        "Int(40)"
    );
}

trait Lossy {
    fn to_string_lossy(&self) -> String;
}

impl Lossy for view::ParameterValueView<'_> {
    fn to_string_lossy(&self) -> String {
        format!("{self:?}")
    }
}

#[test]
fn an_amplifying_file_runs_out_of_budget() {
    // 40 levels of lists that share their children: 2^40 lists to visit.
    let data = codec_tests::aamp_shared_sublists(40);
    let source = view::source(&data);
    let file = view::open(&source).unwrap();
    let err = visit(file).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::BudgetExhausted { .. }),
        "{err}"
    );
}

#[test]
fn a_list_that_holds_itself_ends_in_an_error() {
    // The root list's child list offset points back at the root itself.
    let mut pio = ParameterIO::new("xml");
    pio.root
        .lists
        .push(formats::aamp::ParameterList::new("Child"));
    let mut data = formats::aamp::encode(&pio).unwrap();
    let root = 0x30 + 4;
    // lists offset 0 units from the record: the record itself.
    data[root + 4..root + 6].copy_from_slice(&0u16.to_le_bytes());
    assert!(matches!(
        formats::aamp::decode(&data).unwrap_err().kind(),
        ErrorKind::CyclicOffset { .. }
    ));
    let source = view::source(&data);
    let file = view::open(&source).unwrap();
    let err = visit(file).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::TooDeep { .. } | ErrorKind::BudgetExhausted { .. }
        ),
        "{err}"
    );
}
