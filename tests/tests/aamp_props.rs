//! Property tests for the AAMP codec: random documents survive
//! encode → decode unchanged (floats compared bit for bit, map order
//! included), and encoding is deterministic.
//!
//! Every generated document holds all 21 parameter types, lists nested up to
//! three levels below the root, strings up to their byte capacity (ASCII mixed
//! with multi-byte UTF-8), and values drawn from small pools so that the data
//! section's byte-level reuse and the string section's exact reuse both fire.
//! Each document also carries an object built to force reuse: identical
//! buffers, a scalar followed by a buffer whose count word equals it, and
//! scalars that spell out a later buffer (count included).
//!
//! The case count defaults to 48 (a few seconds in debug); set
//! `PROPTEST_CASES` for a longer run.

use formats::aamp::{
    decode, encode, Curve, Name, Parameter, ParameterIO, ParameterList, ParameterObject,
    ParameterValue as Value,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{FileFailurePersistence, TestCaseError};

const DEFAULT_CASES: u32 = 48;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        max_shrink_iters: 2048,
        // Failing seeds go to `aamp_props.proptest-regressions` beside this file.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Value pools: drawing from them makes equal values (and equal words across
// types) common, so the encoder's reuse paths are exercised.
// ---------------------------------------------------------------------------

/// Floats, signed zeros, infinities, extremes, a subnormal and NaNs (quiet,
/// negative, with payload).
const F32_POOL: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    3.25,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    f32::EPSILON,
    f32::from_bits(1),
    f32::from_bits(0x7FC0_0000),
    f32::from_bits(0xFFC0_0000),
    f32::from_bits(0x7FC1_2345),
];

/// Words that collide across types: 1.0f32 is 0x3F80_0000, `true` is 1,
/// small numbers equal buffer counts.
const WORD_POOL: [u32; 10] = [
    0,
    1,
    2,
    3,
    4,
    0x3F80_0000,
    0x8000_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    0xDEAD_BEEF,
];

fn f32_value() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => select(&F32_POOL[..]),
        1 => select(&WORD_POOL[..]).prop_map(f32::from_bits),
        2 => any::<u32>().prop_map(f32::from_bits),
    ]
}

fn word() -> impl Strategy<Value = u32> {
    prop_oneof![3 => select(&WORD_POOL[..]), 1 => any::<u32>()]
}

fn int() -> impl Strategy<Value = i32> {
    word().prop_map(|w| w as i32)
}

fn words(max_len: usize) -> BoxedStrategy<Vec<u32>> {
    let pool: Vec<Vec<u32>> = vec![
        vec![],
        vec![0],
        vec![1],
        vec![1, 2],
        vec![2, 1, 0],
        vec![0x3F80_0000, 0x3F80_0000],
        vec![3, 3, 3, 3],
    ];
    prop_oneof![
        2 => select(pool),
        1 => vec(word(), 0..=max_len),
    ]
    .boxed()
}

fn bytes() -> BoxedStrategy<Vec<u8>> {
    let pool: Vec<Vec<u8>> = vec![
        vec![],
        vec![1],
        vec![1, 2, 3],
        vec![0, 0, 0, 0],
        vec![1, 0, 0, 0],
        vec![0xFF; 5],
    ];
    prop_oneof![2 => select(pool), 1 => vec(any::<u8>(), 0..=9)].boxed()
}

fn curve() -> BoxedStrategy<Curve> {
    let zero = Curve {
        a: 0,
        b: 0,
        floats: [0.0; 30],
    };
    let mut ramp = Curve {
        a: 1,
        b: 30,
        floats: [0.0; 30],
    };
    for (i, f) in ramp.floats.iter_mut().enumerate() {
        *f = i as f32 / 4.0;
    }
    prop_oneof![
        2 => select(vec![zero, ramp]),
        1 => (word(), word(), proptest::array::uniform30(f32_value()))
            .prop_map(|(a, b, floats)| Curve { a, b, floats }),
    ]
    .boxed()
}

fn curves<const N: usize>() -> BoxedStrategy<[Curve; N]> {
    vec(curve(), N)
        .prop_map(|v| <[Curve; N]>::try_from(v).unwrap_or_else(|_| unreachable!()))
        .boxed()
}

/// A string of exactly `len` bytes mixing 2-, 3- and 4-byte characters with ASCII.
fn exact_fit(len: usize) -> String {
    let mut s = String::new();
    for c in ['é', '日', '🦀', 'x'].iter().cycle() {
        if s.len() + c.len_utf8() > len {
            break;
        }
        s.push(*c);
    }
    while s.len() < len {
        s.push('a');
    }
    s
}

/// Strings of at most `max_bytes` bytes (UTF-8), never containing NUL.
fn string_within(max_bytes: usize) -> BoxedStrategy<String> {
    let pool: Vec<String> = [
        String::new(),
        "a".into(),
        "abc".into(),
        "xml".into(),
        "日本語".into(),
        "🦀 crab".into(),
        "Straße".into(),
        exact_fit(31),
        exact_fit(63),
        exact_fit(255),
    ]
    .into_iter()
    .filter(|s| s.len() <= max_bytes)
    .collect();
    let ch = prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => select(vec![' ', '_', '.', '0', '9', '\u{1}', '\u{7F}']),
        2 => select(vec!['é', 'ß', 'Ω', 'ж', '日', '本', '€', '🦀', '😀', '\u{10FFFF}']),
    ];
    let random = vec(ch, 0..=max_bytes.min(80)).prop_map(move |chars| {
        let mut s = String::new();
        for c in chars {
            if s.len() + c.len_utf8() > max_bytes {
                break;
            }
            s.push(c);
        }
        s
    });
    prop_oneof![2 => select(pool), 1 => random].boxed()
}

/// The 21 parameter types, in tag order.
const KINDS: usize = 21;

/// A parameter of type `kind` (its tag, 0–20).
fn param_of(kind: usize) -> BoxedStrategy<Value> {
    match kind {
        0 => any::<bool>().prop_map(Value::Bool).boxed(),
        1 => f32_value().prop_map(Value::F32).boxed(),
        2 => int().prop_map(Value::Int).boxed(),
        3 => proptest::array::uniform2(f32_value())
            .prop_map(Value::Vec2)
            .boxed(),
        4 => proptest::array::uniform3(f32_value())
            .prop_map(Value::Vec3)
            .boxed(),
        5 => proptest::array::uniform4(f32_value())
            .prop_map(Value::Vec4)
            .boxed(),
        6 => proptest::array::uniform4(f32_value())
            .prop_map(Value::Color)
            .boxed(),
        7 => string_within(31)
            .prop_map(|s| Value::String32(s.into()))
            .boxed(),
        8 => string_within(63)
            .prop_map(|s| Value::String64(s.into()))
            .boxed(),
        9 => curves::<1>().prop_map(|c| Value::Curve1(c.into())).boxed(),
        10 => curves::<2>().prop_map(|c| Value::Curve2(c.into())).boxed(),
        11 => curves::<3>().prop_map(|c| Value::Curve3(c.into())).boxed(),
        12 => curves::<4>().prop_map(|c| Value::Curve4(c.into())).boxed(),
        13 => words(6)
            .prop_map(|w| Value::BufferInt(w.into_iter().map(|x| x as i32).collect()))
            .boxed(),
        14 => prop_oneof![
            2 => words(6).prop_map(|w| w.into_iter().map(f32::from_bits).collect::<Vec<_>>()),
            1 => vec(f32_value(), 0..=6),
        ]
        .prop_map(Value::BufferF32)
        .boxed(),
        15 => string_within(255)
            .prop_map(|s| Value::String256(s.into()))
            .boxed(),
        16 => proptest::array::uniform4(f32_value())
            .prop_map(Value::Quat)
            .boxed(),
        17 => word().prop_map(Value::U32).boxed(),
        18 => words(6).prop_map(Value::BufferU32).boxed(),
        19 => bytes().prop_map(|b| Value::BufferBinary(b.into())).boxed(),
        20 => string_within(300)
            .prop_map(|s| Value::StringRef(s.into()))
            .boxed(),
        _ => unreachable!("there are {KINDS} parameter types"),
    }
}

fn any_value() -> BoxedStrategy<Value> {
    (0..KINDS).prop_flat_map(param_of).boxed()
}

/// Names from a small pool (so names repeat within one list or object, which
/// the model keeps), `DemoAIActionIdx` (switches the writer's data order), or
/// any hash.
fn name() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => 0u32..12,
        1 => Just(Name::of("DemoAIActionIdx").0),
        2 => any::<u32>(),
    ]
}

fn param(name: &str, value: Value) -> Parameter {
    Parameter {
        name: Name::of(name).0,
        value,
    }
}

fn object() -> impl Strategy<Value = ParameterObject> {
    (name(), vec((name(), any_value()), 0..=5)).prop_map(|(name, ps)| ParameterObject {
        name,
        params: ps
            .into_iter()
            .map(|(name, value)| Parameter { name, value })
            .collect(),
    })
}

/// A list with child lists `depth` levels deep at most.
fn list(depth: u32, max_objects: usize) -> BoxedStrategy<ParameterList> {
    let objects = vec(object(), 0..=max_objects);
    let children = if depth == 0 {
        Just(Vec::new()).boxed()
    } else {
        vec(list(depth - 1, 3), 0..=2).boxed()
    };
    (name(), children, objects)
        .prop_map(|(name, lists, objects)| ParameterList {
            name,
            lists,
            objects,
        })
        .boxed()
}

/// One parameter of every type, each from its pools.
fn all_types_object() -> impl Strategy<Value = ParameterObject> {
    let values: Vec<BoxedStrategy<Value>> = (0..KINDS).map(param_of).collect();
    values.prop_map(|vs| ParameterObject {
        name: Name::of("AllTypes").0,
        params: vs
            .into_iter()
            .enumerate()
            .map(|(i, v)| param(&format!("type_{i}"), v))
            .collect(),
    })
}

/// Parameters laid out so that the data and string pools must reuse bytes.
fn reuse_object() -> impl Strategy<Value = ParameterObject> {
    (
        words(5),
        1u32..5,
        word(),
        word(),
        int(),
        string_within(31),
        f32_value(),
        bytes(),
    )
        .prop_map(|(buf, n, a, b, x, s, f, bin)| {
            let mut o = Params(Vec::new());
            // Two identical buffers, then the same words as another type.
            o.push("buf_a", Value::BufferU32(buf.clone()));
            o.push("buf_b", Value::BufferU32(buf.clone()));
            o.push(
                "buf_as_int",
                Value::BufferInt(buf.iter().map(|&w| w as i32).collect()),
            );
            o.push(
                "buf_as_f32",
                Value::BufferF32(buf.iter().map(|&w| f32::from_bits(w)).collect()),
            );
            // Scalars equal to the buffer's count and first element land inside it.
            o.push("count_of_a", Value::U32(buf.len() as u32));
            if let Some(&first) = buf.first() {
                o.push("first_of_a", Value::U32(first));
            }
            // A scalar followed by a buffer whose count word is the same.
            o.push("scalar_n", Value::U32(n));
            o.push(
                "buf_n",
                Value::BufferU32((0..n).map(|i| a.wrapping_add(i)).collect()),
            );
            // A scalar followed by a buffer whose first element is the same.
            o.push("scalar_x", Value::Int(x));
            o.push("buf_x", Value::BufferInt(vec![x, x, 0]));
            // Scalars that spell out a later buffer, count included.
            o.push("spell_count", Value::U32(2));
            o.push("spell_a", Value::U32(a));
            o.push("spell_b", Value::U32(b));
            o.push("spelled", Value::BufferU32(vec![a, b]));
            // Empty buffers (their count word is 0) and a bool/int/float word clash.
            o.push("empty_u32", Value::BufferU32(vec![]));
            o.push("empty_bin", Value::BufferBinary(Default::default()));
            o.push("false", Value::Bool(false));
            o.push("true", Value::Bool(true));
            o.push("one", Value::Int(1));
            o.push("f", Value::F32(f));
            o.push("fv", Value::Vec4([f, f, -0.0, f32::INFINITY]));
            o.push("bin_a", Value::BufferBinary(bin.clone().into()));
            o.push("bin_b", Value::BufferBinary(bin.into()));
            // One string under every string type.
            o.push("s32", Value::String32(s.clone().into()));
            o.push("s64", Value::String64(s.clone().into()));
            o.push("s256", Value::String256(s.clone().into()));
            o.push("sref", Value::StringRef(s.into()));
            // The same name twice: the model keeps both, in order.
            o.push("twice", Value::U32(a));
            o.push("twice", Value::U32(b));
            ParameterObject {
                name: Name::of("Reuse").0,
                params: o.0,
            }
        })
}

/// A parameter list built in order.
struct Params(Vec<Parameter>);

impl Params {
    fn push(&mut self, name: &str, value: Value) {
        self.0.push(param(name, value));
    }
}

fn data_type() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(vec!["xml", "aglenv", "mscinfo", "genv", "winfo", "", "abcd", "日本"])
            .prop_map(str::to_owned),
        1 => string_within(20),
    ]
}

/// Header flags the decoder accepts (bit 0, little endian, set); 3 is usual.
fn flags() -> impl Strategy<Value = u32> {
    prop_oneof![4 => Just(3u32), 1 => any::<u32>().prop_map(|f| f | 1)]
}

/// A whole document: up to three list levels below the root, up to 10 root
/// objects (the writer treats the first 7 specially), plus the all-types and
/// reuse objects at random positions among the root's objects.
fn document() -> impl Strategy<Value = ParameterIO> {
    (
        (
            prop_oneof![Just(0u32), any::<u32>()],
            flags(),
            prop_oneof![4 => Just(0u32), 1 => any::<u32>()],
            data_type(),
        ),
        list(3, 10),
        all_types_object(),
        reuse_object(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(
            |((version, flags, unknown, data_type), mut root, all, reuse, i, j)| {
                root.name = formats::aamp::ROOT_NAME.0;
                let at = i.index(root.objects.len() + 1);
                root.objects.insert(at, all);
                let at = j.index(root.objects.len() + 1);
                root.objects.insert(at, reuse);
                let mut doc = ParameterIO::new(data_type);
                doc.flags = flags;
                doc.version = version;
                doc.unknown_section_size = unknown;
                doc.root = root;
                doc
            },
        )
}

// ---------------------------------------------------------------------------
// Bit-exact comparison, order included (`f32`'s `==` confuses -0.0 with 0.0
// and never matches NaN, so the derived `PartialEq` is not enough).
// ---------------------------------------------------------------------------

/// A parameter reduced to comparable data: tag, 32-bit words (floats by
/// their bits), text or bytes.
#[derive(Debug, PartialEq)]
enum Canon<'a> {
    Words(u8, Vec<u32>),
    Text(u8, &'a str),
    Bytes(&'a [u8]),
}

fn bits(fs: &[f32]) -> Vec<u32> {
    fs.iter().map(|f| f.to_bits()).collect()
}

fn curve_words(cs: &[Curve]) -> Vec<u32> {
    cs.iter()
        .flat_map(|c| [c.a, c.b].into_iter().chain(bits(&c.floats)))
        .collect()
}

/// The type tag of a parameter (exhaustive, so a new variant fails to compile).
fn tag(p: &Value) -> u8 {
    match p {
        Value::Bool(_) => 0,
        Value::F32(_) => 1,
        Value::Int(_) => 2,
        Value::Vec2(_) => 3,
        Value::Vec3(_) => 4,
        Value::Vec4(_) => 5,
        Value::Color(_) => 6,
        Value::String32(_) => 7,
        Value::String64(_) => 8,
        Value::Curve1(_) => 9,
        Value::Curve2(_) => 10,
        Value::Curve3(_) => 11,
        Value::Curve4(_) => 12,
        Value::BufferInt(_) => 13,
        Value::BufferF32(_) => 14,
        Value::String256(_) => 15,
        Value::Quat(_) => 16,
        Value::U32(_) => 17,
        Value::BufferU32(_) => 18,
        Value::BufferBinary(_) => 19,
        Value::StringRef(_) => 20,
    }
}

fn canon(p: &Value) -> Canon<'_> {
    let t = tag(p);
    match p {
        Value::Bool(b) => Canon::Words(t, vec![u32::from(*b)]),
        Value::F32(f) => Canon::Words(t, vec![f.to_bits()]),
        Value::Int(i) => Canon::Words(t, vec![*i as u32]),
        Value::U32(u) => Canon::Words(t, vec![*u]),
        Value::Vec2(v) => Canon::Words(t, bits(v)),
        Value::Vec3(v) => Canon::Words(t, bits(v)),
        Value::Vec4(v) | Value::Color(v) | Value::Quat(v) => Canon::Words(t, bits(v)),
        Value::Curve1(c) => Canon::Words(t, curve_words(&c[..])),
        Value::Curve2(c) => Canon::Words(t, curve_words(&c[..])),
        Value::Curve3(c) => Canon::Words(t, curve_words(&c[..])),
        Value::Curve4(c) => Canon::Words(t, curve_words(&c[..])),
        Value::BufferInt(v) => Canon::Words(t, v.iter().map(|&i| i as u32).collect()),
        Value::BufferF32(v) => Canon::Words(t, bits(v)),
        Value::BufferU32(v) => Canon::Words(t, v.clone()),
        Value::BufferBinary(v) => Canon::Bytes(v),
        Value::String32(s) | Value::String64(s) | Value::String256(s) | Value::StringRef(s) => {
            Canon::Text(t, s)
        }
    }
}

fn same_list(a: &ParameterList, b: &ParameterList, path: &str) -> Result<(), String> {
    if a.name != b.name {
        return Err(format!("{path}: name {} became {}", a.name, b.name));
    }
    if a.lists.len() != b.lists.len() || a.objects.len() != b.objects.len() {
        return Err(format!(
            "{path}: {} lists and {} objects became {} and {}",
            a.lists.len(),
            a.objects.len(),
            b.lists.len(),
            b.objects.len()
        ));
    }
    for (i, (la, lb)) in a.lists.iter().zip(&b.lists).enumerate() {
        same_list(la, lb, &format!("{path}.lists[{i}]"))?;
    }
    for (i, (oa, ob)) in a.objects.iter().zip(&b.objects).enumerate() {
        let here = format!("{path}.objects[{i}]");
        if oa.name != ob.name || oa.params.len() != ob.params.len() {
            return Err(format!(
                "{here}: name {} with {} params became {} with {}",
                oa.name,
                oa.params.len(),
                ob.name,
                ob.params.len()
            ));
        }
        for (j, (pa, pb)) in oa.params.iter().zip(&ob.params).enumerate() {
            if pa.name != pb.name || canon(&pa.value) != canon(&pb.value) {
                return Err(format!("{here}.params[{j}]: {pa:?} became {pb:?}"));
            }
        }
    }
    Ok(())
}

fn same_doc(a: &ParameterIO, b: &ParameterIO) -> Result<(), String> {
    let header = |d: &ParameterIO| {
        (
            d.format_version,
            d.flags,
            d.version,
            d.unknown_section_size,
            d.data_type.clone(),
        )
    };
    if header(a) != header(b) {
        return Err(format!("header {:?} became {:?}", header(a), header(b)));
    }
    same_list(&a.root, &b.root, "root")
}

/// Which of the 21 types occur in a list and below.
fn types_in(l: &ParameterList, seen: &mut [bool; KINDS]) {
    for o in &l.objects {
        for p in &o.params {
            seen[usize::from(tag(&p.value))] = true;
        }
    }
    for c in &l.lists {
        types_in(c, seen);
    }
}

fn fail(msg: impl Into<String>) -> TestCaseError {
    TestCaseError::fail(msg.into())
}

proptest! {
    #![proptest_config(config())]

    /// decode(encode(doc)) is doc, bit for bit and in the same order.
    #[test]
    fn encode_then_decode_gives_the_document_back(doc in document()) {
        let mut seen = [false; KINDS];
        types_in(&doc.root, &mut seen);
        prop_assert!(seen.iter().all(|&s| s), "generator missed a type: {seen:?}");

        let bytes = encode(&doc).map_err(|e| fail(format!("encode failed: {e}")))?;
        prop_assert_eq!(&bytes[..4], b"AAMP");
        prop_assert_eq!(bytes.len() % 4, 0);
        let file_size = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        prop_assert_eq!(file_size as usize, bytes.len());

        let back = decode(&bytes).map_err(|e| fail(format!("decode of encoded document failed: {e}")))?;
        same_doc(&doc, &back).map_err(fail)?;
    }

    /// encode is a function of the document: twice the same bytes, and the
    /// decoded copy encodes to the same bytes again.
    #[test]
    fn encode_is_deterministic(doc in document()) {
        let first = encode(&doc).map_err(|e| fail(format!("encode failed: {e}")))?;
        let second = encode(&doc).map_err(|e| fail(format!("second encode failed: {e}")))?;
        prop_assert!(first == second, "two encodes of one document differ");
        let copy = doc.clone();
        let third = encode(&copy).map_err(|e| fail(format!("encode of a clone failed: {e}")))?;
        prop_assert!(first == third, "a clone encodes differently");
        let back = decode(&first).map_err(|e| fail(format!("decode failed: {e}")))?;
        let again = encode(&back).map_err(|e| fail(format!("re-encode failed: {e}")))?;
        if first != again {
            let at = first.iter().zip(&again).position(|(a, b)| a != b);
            return Err(fail(format!(
                "encode(decode(encode(doc))) differs from encode(doc) at {at:?} (lengths {} and {})",
                first.len(),
                again.len()
            )));
        }
    }
}

fn one_object(params: Vec<Parameter>) -> ParameterIO {
    let mut doc = ParameterIO::new("xml");
    doc.root.objects.push(ParameterObject {
        name: Name::of("o").0,
        params,
    });
    doc
}

/// The comparison helper itself tells -0.0 from 0.0 and NaN payloads apart,
/// and notices reordering.
#[test]
fn comparison_is_bit_exact_and_ordered() {
    let doc = |v: f32, order: bool| {
        let (x, y) = if order { ("x", "y") } else { ("y", "x") };
        one_object(vec![param(x, Value::F32(v)), param(y, Value::F32(v))])
    };
    assert!(same_doc(&doc(0.0, true), &doc(0.0, true)).is_ok());
    assert!(same_doc(&doc(f32::NAN, true), &doc(f32::NAN, true)).is_ok());
    assert!(same_doc(&doc(0.0, true), &doc(-0.0, true)).is_err());
    assert!(same_doc(&doc(0.0, true), &doc(0.0, false)).is_err());
    assert!(same_doc(
        &doc(f32::from_bits(0x7FC0_0000), true),
        &doc(f32::from_bits(0x7FC0_0001), true)
    )
    .is_err());
}

/// Fixed documents for the reuse paths, so they run whatever the generator
/// draws: the second of two equal buffers, a scalar equal to a buffer's
/// count or element, and a buffer spelled by earlier scalars (count
/// included) all point into bytes already written, and still decode to what
/// was encoded.
#[test]
fn reuse_paths_share_bytes_and_round_trip() {
    let doc = one_object(vec![
        param("a", Value::BufferInt(vec![5, 6, 7])),
        param("b", Value::BufferInt(vec![5, 6, 7])),
        param("n", Value::U32(2)),
        param("x", Value::U32(9)),
        param("y", Value::U32(10)),
        param("spelled", Value::BufferU32(vec![9, 10])),
        param("count", Value::U32(3)),
        param("inner", Value::Int(6)),
    ]);
    let bytes = encode(&doc).expect("encode");
    // Header field 9: the data section's size. Only a, n, x and y need bytes
    // of their own: 16 + 4 + 4 + 4.
    let data_size = u32::from_le_bytes(bytes[0x24..0x28].try_into().unwrap());
    assert_eq!(data_size, 28, "the data section does not reuse bytes");
    let back = decode(&bytes).expect("decode");
    same_doc(&doc, &back).unwrap();
    assert_eq!(encode(&back).unwrap(), bytes);
}

/// Strings over their capacity, or holding a NUL, are refused by encode with
/// an error (never a panic, never a file the decoder would misread).
#[test]
fn encode_rejects_strings_it_cannot_store() {
    let cases = [
        (
            "String32 of 32 bytes",
            Value::String32("a".repeat(32).into()),
        ),
        (
            "String32 of 32 bytes (16 × é)",
            Value::String32("é".repeat(16).into()),
        ),
        (
            "String64 of 64 bytes",
            Value::String64("a".repeat(64).into()),
        ),
        (
            "String256 of 256 bytes",
            Value::String256("a".repeat(256).into()),
        ),
        ("StringRef holding a NUL", Value::StringRef("a\0b".into())),
        ("String32 holding a NUL", Value::String32("\0".into())),
    ];
    for (case, v) in cases {
        match encode(&one_object(vec![param("p", v)])) {
            Ok(_) => panic!("{case}: encoded"),
            Err(e) => println!("{case}: {e}"),
        }
    }
    let mut doc = one_object(vec![]);
    doc.data_type = "x\0ml".into();
    let e = encode(&doc).expect_err("type string holding a NUL");
    println!("type string holding a NUL: {e}");
}

/// Many parameters sharing one long string: the string section holds it
/// once, so the file is small, but the decoder charges its read budget
/// (64 × the file's length) once per reference and refuses the file the
/// encoder just wrote (100 × 20,001 bytes > 64 × 20,876).
#[test]
fn many_references_to_one_long_string_round_trip() {
    let s = "a".repeat(20_000);
    let doc = one_object(
        (0..100)
            .map(|i| param(&format!("p{i}"), Value::StringRef(s.clone().into())))
            .collect(),
    );
    let bytes = encode(&doc).expect("encode");
    let back = decode(&bytes).unwrap_or_else(|e| {
        panic!(
            "the encoder's own {}-byte file does not decode: {e}",
            bytes.len()
        )
    });
    same_doc(&doc, &back).unwrap();
}

/// The same with a data-section value: 5,000 parameters sharing one Curve4
/// (512 bytes) give a 40,584-byte file that decodes to BudgetExhausted.
#[test]
fn many_references_to_one_curve_round_trip() {
    let c = Curve {
        a: 1,
        b: 2,
        floats: [1.0; 30],
    };
    let curves = [c.clone(), c.clone(), c.clone(), c];
    let doc = one_object(
        (0..5_000)
            .map(|i| param(&format!("p{i}"), Value::Curve4(curves.clone().into())))
            .collect(),
    );
    let bytes = encode(&doc).expect("encode");
    let back = decode(&bytes).unwrap_or_else(|e| {
        panic!(
            "the encoder's own {}-byte file does not decode: {e}",
            bytes.len()
        )
    });
    same_doc(&doc, &back).unwrap();
}
