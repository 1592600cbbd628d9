//! Mutation sweep over real files: every truncation length, every single-bit
//! flip and every byte inverted, on a sample of each format's corpus. Each
//! outcome must be `Ok` (and then encode must not panic) or an error that
//! names a byte offset inside the file and a field path; so must a walk
//! through the format's zero-copy views. A panic fails the
//! test with the mutation that caused it; so does a hang (one input that
//! runs longer than [`HANG`]), reported while it still runs.
//!
//! Adding a format is one entry in `FORMATS`: its corpus folder and a
//! function that picks the inputs (whole files, or a window of a large file
//! mutated at a stride, or parts cut out of one) and says how to run them.
//!
//! The mutations run on every core. `cargo test -p codec-tests --test
//! mutation_sweep -- --nocapture` prints, per format, how many mutated
//! inputs were tried, the slowest one and the time taken.

use formats::bdat::{self, Variant};
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// The errors one input gave, each as its offset and rendered text (empty:
/// everything decoded).
type Outcome = Vec<(u64, String)>;

/// Decodes an input (then encodes what decoded) and returns the errors.
type Run = fn(&[u8]) -> Outcome;

/// An input that runs this long is a hang. A decode of the inputs below
/// takes well under 10 ms even in a debug build on a loaded machine.
const HANG: Duration = Duration::from_secs(20);

/// One input to mutate.
#[derive(Clone)]
struct Sample {
    name: String,
    data: Vec<u8>,
    /// The offsets mutated: cut there, each bit flipped, the byte inverted.
    window: Range<usize>,
    /// Every `stride`-th offset of the window.
    stride: usize,
    run: Run,
}

impl Sample {
    /// Every offset of the file.
    fn whole(name: impl Into<String>, data: Vec<u8>, run: Run) -> Sample {
        Sample {
            name: name.into(),
            window: 0..data.len(),
            stride: 1,
            data,
            run,
        }
    }

    fn offsets(&self) -> Vec<usize> {
        self.window.clone().step_by(self.stride).collect()
    }
}

/// What the sweep needs of a format.
struct Format {
    name: &'static str,
    /// The corpus folder.
    corpus: &'static str,
    /// The inputs to mutate, from the corpus folder.
    pick: fn(&Path) -> Vec<Sample>,
}

const FORMATS: &[Format] = &[
    Format {
        name: "aamp",
        corpus: "aamp",
        pick: pick_aamp,
    },
    Format {
        name: "bdat",
        corpus: "bdat",
        pick: pick_bdat,
    },
    Format {
        name: "ainb",
        corpus: "ainb",
        pick: pick_ainb,
    },
    Format {
        name: "byml",
        corpus: "byml",
        pick: pick_byml,
    },
    Format {
        name: "sarc",
        corpus: "sarc",
        pick: pick_sarc,
    },
    Format {
        name: "rstb",
        corpus: "yaz0",
        pick: pick_rstb,
    },
    Format {
        name: "msbt",
        corpus: "msbt",
        pick: pick_msbt,
    },
];

// ---------------------------------------------------------------------------
// The formats.

/// The errors of a walk through a format's zero-copy views, which must be
/// located as decode's are.
fn walked<T>(walk: codec_runtime::DecodeResult<T>) -> Outcome {
    match walk {
        Ok(_) => Vec::new(),
        Err(e) => vec![(e.offset(), e.to_string())],
    }
}

fn aamp(data: &[u8]) -> Outcome {
    let mut out = match formats::aamp::decode(data) {
        Ok(doc) => {
            // Encoding a decoded value may refuse (an error), never panic.
            let _ = formats::aamp::encode(&doc);
            Vec::new()
        }
        Err(e) => vec![(e.offset(), e.to_string())],
    };
    let source = formats::aamp::schema::view::source(data);
    out.extend(walked(
        formats::aamp::schema::view::open(&source).and_then(formats::aamp::views::visit),
    ));
    out
}

/// Ten files of at most 4 KiB, spread over the sizes.
fn pick_aamp(dir: &Path) -> Vec<Sample> {
    let files = corpus_files(dir, |n| !n.ends_with(".tsv") && !n.ends_with(".md"));
    spread(&files, 10, 4 << 10)
        .into_iter()
        .map(|(name, data)| Sample::whole(name, data, aamp))
        .collect()
}

fn ainb(data: &[u8]) -> Outcome {
    let mut out = match formats::ainb::decode(data) {
        Ok(doc) => {
            let _ = formats::ainb::encode(&doc);
            Vec::new()
        }
        Err(e) => vec![(e.offset(), e.to_string())],
    };
    let version = data
        .get(4..8)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    if let Some(v) = version.and_then(formats::ainb::variant_of) {
        out.extend(walked(formats::ainb::views::visit(data, v)));
    }
    out
}

/// Four small files (at most 4 KiB, spread over the sizes) and the
/// smallest file of each version none of them has (0x404), in full; and one
/// medium file (the first of at least 8 KiB; in the corpus, a module of
/// 24 nodes) at every seventh offset.
fn pick_ainb(dir: &Path) -> Vec<Sample> {
    let files = corpus_files(dir, |n| n.ends_with(".ainb"));
    let version = |d: &[u8]| d.get(4..8).map(|w| w.to_vec());
    let mut small = spread(&files, 4, 4 << 10);
    for (name, data) in &files {
        if data.len() <= 4 << 10 && !small.iter().any(|(_, d)| version(d) == version(data)) {
            small.push((name.clone(), data.clone()));
        }
    }
    let mut out: Vec<Sample> = small
        .into_iter()
        .map(|(name, data)| Sample::whole(name, data, ainb))
        .collect();
    let (name, data) = files
        .iter()
        .find(|(_, d)| d.len() >= 8 << 10)
        .expect("an AINB file of at least 8 KiB")
        .clone();
    out.push(Sample {
        stride: 7,
        ..Sample::whole(name, data, ainb)
    });
    out
}

fn byml(data: &[u8]) -> Outcome {
    let mut out = match formats::byml::decode(data) {
        Ok((v, doc)) => {
            let _ = formats::byml::encode(&doc, v);
            Vec::new()
        }
        Err(e) => vec![(e.offset(), e.to_string())],
    };
    if let Some(v) = formats::byml::detect(data) {
        out.extend(walked(formats::byml::views::visit(data, v)));
    }
    out
}

/// The two smallest files: a v4 effect file with 64-bit values and an
/// aligned blob (9 KB) at every third offset, and a v2 map file with
/// shared containers (28 KB) at every 23rd. The tree's nodes are small, so
/// every few bytes hold a type, a count or an offset.
fn pick_byml(dir: &Path) -> Vec<Sample> {
    let files = corpus_files(dir, |n| n.ends_with(".byml"));
    files
        .into_iter()
        .take(2)
        .zip([3, 23])
        .map(|((name, data), stride)| Sample {
            stride,
            ..Sample::whole(name, data, byml)
        })
        .collect()
}

fn sarc(data: &[u8]) -> Outcome {
    let mut out = match formats::sarc::decode(data) {
        Ok((v, archive)) => {
            let _ = formats::sarc::encode(&archive, v);
            Vec::new()
        }
        Err(e) => vec![(e.offset(), e.to_string())],
    };
    if let Some(v) = formats::sarc::schema::Variant::detect(data) {
        out.extend(walked(formats::sarc::views::visit(data, v)));
    }
    out
}

/// The small archive (1.8 KB, a BotW pack of AAMP files) in full.
fn pick_sarc(dir: &Path) -> Vec<Sample> {
    corpus_files(dir, |n| n.ends_with(".sarc"))
        .into_iter()
        .take(1)
        .map(|(name, data)| Sample::whole(name, data, sarc))
        .collect()
}

fn rstb(data: &[u8]) -> Outcome {
    match formats::rstb::decode(data) {
        Ok((v, table)) => {
            let _ = formats::rstb::encode(&table, v);
            Vec::new()
        }
        Err(e) => vec![(e.offset(), e.to_string())],
    }
}

/// The corpus's table (inside Yaz0) cut down to its first 24 hash entries
/// and both name entries (476 bytes), in full.
fn pick_rstb(dir: &Path) -> Vec<Sample> {
    corpus_files(dir, |n| n.ends_with(".srsizetable"))
        .into_iter()
        .take(1)
        .map(|(name, data)| {
            let (_, table) = formats::layer::peel(&data, &formats::layer::Dictionaries::default())
                .expect("the table decompresses");
            let (v, mut table) = formats::rstb::decode(&table).expect("the table decodes");
            table.crcs.truncate(24);
            let small = formats::rstb::encode(&table, v).expect("the table encodes");
            Sample::whole(name, small, rstb)
        })
        .collect()
}

/// MSBT through the schema interpreter (its only codec): decode as the
/// variant the header names (else the default), and encode what decodes.
fn msbt(data: &[u8]) -> Outcome {
    // A header that names no variant is read as the default one, whose
    // magic or mark then fails at its offset.
    let name = formats::msbt::detect(data).unwrap_or("Le");
    let c = formats::msbt::schema().variant(name).expect("the variant");
    let glue = formats::interp_hooks::Glue;
    let d = codec_interp::decode_partial_with(c, data, codec_runtime::Limits::default(), &glue);
    match d.error {
        None => {
            let _ = codec_interp::encode(c, &d.root.to_value(), &glue);
            Vec::new()
        }
        Some(e) => vec![(e.offset(), e.to_string())],
    }
}

/// Two small files in full: a TotK file with tags in its messages (160
/// bytes) and the fixture with a block of an unknown kind (192 bytes).
fn pick_msbt(dir: &Path) -> Vec<Sample> {
    [
        "totk/EventFlowMsg/DekuTreeIntroduction.msbt",
        "tools/example7.msbt",
    ]
    .into_iter()
    .filter_map(|f| Some((f, std::fs::read(dir.join(f)).ok()?)))
    .map(|(f, data)| Sample::whole(f, data, msbt))
    .collect()
}

/// Decodes as game `v`, and, when the mutation makes the file look like
/// another game's or like none, with detection too (as `codec` does).
fn bdat_as(data: &[u8], v: Variant) -> Outcome {
    let mut errors = Vec::new();
    match bdat::decode_as(data, v) {
        Ok(file) => {
            let _ = bdat::encode(&file, v);
        }
        Err(e) => errors.push((e.offset(), e.to_string())),
    }
    if let Some(walk) = bdat::views::visit(data, v) {
        errors.extend(walked(walk));
    }
    if bdat::detect(data) != Some(v) {
        match bdat::decode(data) {
            Ok((w, file)) => {
                let _ = bdat::encode(&file, w);
            }
            Err(e) => errors.push((e.offset(), e.to_string())),
        }
    }
    errors
}

fn bdat_switch(data: &[u8]) -> Outcome {
    bdat_as(data, Variant::Switch)
}

fn bdat_x(data: &[u8]) -> Outcome {
    bdat_as(data, Variant::X)
}

fn bdat_wii(data: &[u8]) -> Outcome {
    bdat_as(data, Variant::Wii)
}

fn bdat_3ds(data: &[u8]) -> Outcome {
    bdat_as(data, Variant::New3ds)
}

/// The one-table files of each game in full (value, array and flag
/// columns); and, from the XC2 game files (1.2 to 1.6 MB, too large to sweep
/// whole), tables cut out into files of their own, each swept in full:
/// scrambled tables with non-ASCII strings, with a flag column, with three
/// flag columns (46 columns), with 100 rows, an unscrambled one and one a
/// mod edited in place (stale checksum, strings not laid out as the game
/// does), and a file of the three smallest tables of `common_ms` (the file
/// header and table offsets). A whole XC2 file takes about 0.1 s to decode
/// in a debug build: even its header alone would cost more than all these.
fn pick_bdat(dir: &Path) -> Vec<Sample> {
    let read = |name: &str| {
        std::fs::read(dir.join(name))
            .unwrap_or_else(|e| panic!("bdat corpus {}: {name}: {e}", dir.display()))
    };
    let mut out = Vec::new();
    for (name, run) in [
        ("bdatrs_test_legacy_1.bdat", bdat_switch as Run),
        ("bdatrs_test_legacy_x_1.bdat", bdat_x),
        ("bdatrs_test_legacy_wii_1.bdat", bdat_wii),
        ("bdatrs_test_legacy_3ds_1.bdat", bdat_3ds),
    ] {
        out.push(Sample::whole(name, read(name), run));
    }
    type Has = fn(&bdat::Table) -> bool;
    fn flags(t: &bdat::Table) -> usize {
        t.columns
            .iter()
            .filter(|c| matches!(c.info, bdat::ColumnInfo::Flag(_)))
            .count()
    }
    let picks: [(&str, &str, Has); 6] = [
        ("xc2_ckurtz_common_ms.bdat", "non-ASCII strings", |t| {
            t.rows
                .strings()
                .iter()
                .any(|s| s.iter().any(|&b| b >= 0x80))
        }),
        ("xc2_ckurtz_common_gmk.bdat", "a flag column", |t| {
            flags(t) > 0
        }),
        ("xc2_ckurtz_common_gmk.bdat", "3 flag columns", |t| {
            flags(t) >= 3
        }),
        ("xc2_ckurtz_common_gmk.bdat", "100 rows", |t| {
            t.rows.len() >= 100
        }),
        ("xc2_randomizer_common_ms.bdat", "no scramble", |t| {
            !t.flags.scrambled
        }),
        ("xc2_randomizer_common_ms.bdat", "a mod's edit", |t| {
            t.name == "menu_option_name_ms"
        }),
    ];
    for name in [
        "xc2_ckurtz_common_ms.bdat",
        "xc2_ckurtz_common_gmk.bdat",
        "xc2_randomizer_common_ms.bdat",
    ] {
        let data = read(name);
        let file =
            bdat::decode_as(&data, Variant::Switch).unwrap_or_else(|e| panic!("{name}: {e}"));
        let slices = table_slices(&data);
        assert_eq!(slices.len(), file.tables.len(), "{name}");
        // Table indices by size, smallest first.
        let mut by_size: Vec<usize> = (0..slices.len()).collect();
        by_size.sort_by_key(|&i| (slices[i].len(), i));
        for (_, why, has) in picks.iter().filter(|p| p.0 == name) {
            let i = by_size
                .iter()
                .copied()
                .find(|&i| has(&file.tables[i]))
                .unwrap_or_else(|| panic!("{name}: no table with {why}"));
            out.push(Sample::whole(
                format!("{name}: table {i} {} ({why})", file.tables[i].name),
                file_of(&[&slices[i]]),
                bdat_switch,
            ));
        }
        if name == "xc2_ckurtz_common_ms.bdat" {
            let mut three = by_size[..3].to_vec();
            three.sort_unstable();
            let parts: Vec<&[u8]> = three.iter().map(|&i| &slices[i][..]).collect();
            out.push(Sample::whole(
                format!("{name}: tables {three:?}"),
                file_of(&parts),
                bdat_switch,
            ));
        }
    }
    out
}

/// Each table's bytes in a little-endian file: from its offset to the next
/// one's (the last to the end of the file).
fn table_slices(data: &[u8]) -> Vec<Vec<u8>> {
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
    let n = word(0);
    let offsets: Vec<usize> = (0..n).map(|i| word(8 + 4 * i)).collect();
    (0..n)
        .map(|i| data[offsets[i]..offsets.get(i + 1).copied().unwrap_or(data.len())].to_vec())
        .collect()
}

/// A little-endian file of these tables: the header, then each table at a
/// multiple of 16.
fn file_of(tables: &[&[u8]]) -> Vec<u8> {
    let pad = |v: &mut Vec<u8>| v.resize(v.len().next_multiple_of(16), 0);
    let mut body = vec![0u8; 8 + 4 * tables.len()];
    pad(&mut body);
    let mut offsets = Vec::new();
    for t in tables {
        offsets.push(body.len() as u32);
        body.extend_from_slice(t);
        pad(&mut body);
    }
    body[0..4].copy_from_slice(&(tables.len() as u32).to_le_bytes());
    let size = body.len() as u32;
    body[4..8].copy_from_slice(&size.to_le_bytes());
    for (i, o) in offsets.iter().enumerate() {
        body[8 + 4 * i..12 + 4 * i].copy_from_slice(&o.to_le_bytes());
    }
    body
}

// ---------------------------------------------------------------------------
// Picking files.

/// The files of a corpus folder whose names pass the filter, smallest first.
fn corpus_files(dir: &Path, accept: fn(&str) -> bool) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("corpus folder is readable")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            accept(&name).then(|| (name, std::fs::read(e.path()).ok()))
        })
        .filter_map(|(n, d)| d.map(|d| (n, d)))
        .collect();
    files.sort_by_key(|(n, d)| (d.len(), n.clone()));
    files
}

/// `n` files of at most `max_size` bytes, spread over the sizes (different
/// sizes exercise different structures).
fn spread(files: &[(String, Vec<u8>)], n: usize, max_size: usize) -> Vec<(String, Vec<u8>)> {
    let files: Vec<_> = files.iter().filter(|(_, d)| d.len() <= max_size).collect();
    if files.len() <= n {
        return files.into_iter().cloned().collect();
    }
    let step = files.len() as f64 / n as f64;
    (0..n)
        .map(|i| files[(i as f64 * step) as usize].clone())
        .collect()
}

// ---------------------------------------------------------------------------
// The sweep.

/// One mutation of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mutation {
    /// The sample itself, before any mutation: it must decode.
    None,
    Cut(usize),
    Bit(usize, u8),
    Invert(usize),
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mutation::None => write!(f, "unmutated"),
            Mutation::Cut(n) => write!(f, "cut to {n} bytes"),
            Mutation::Bit(i, b) => write!(f, "bit {b} of byte 0x{i:x} flipped"),
            Mutation::Invert(i) => write!(f, "byte 0x{i:x} inverted"),
        }
    }
}

/// What a sweep found.
#[derive(Debug, Default)]
struct Report {
    /// Mutated inputs run (the unmutated samples not counted).
    tried: usize,
    /// `sample: mutation: problem`, one per input that misbehaved.
    failures: Vec<String>,
    /// The slowest input and its time.
    slowest: Option<(Duration, String)>,
    /// An input still running after the hang limit; the sweep stopped there.
    hung: Option<String>,
}

/// What a worker is running: since when, which sample and mutation.
type Busy = Mutex<Option<(Instant, usize, Mutation)>>;

/// Runs one input; returns what went wrong, if anything. An unmutated
/// sample must decode (else the sweep would test nothing but errors).
fn check(run: Run, m: Mutation, input: &[u8]) -> Option<String> {
    let errors = match std::panic::catch_unwind(|| run(input)) {
        Err(_) => return Some("panicked".into()),
        Ok(errors) => errors,
    };
    if m == Mutation::None {
        return errors
            .first()
            .map(|(_, text)| format!("does not decode: {text}"));
    }
    errors.into_iter().find_map(|(offset, text)| {
        // The error is located: a byte offset no further than just past
        // the input, and a field path (`Type.field...`) before the colon.
        let located = offset <= input.len() as u64 + 16
            && text.starts_with("at offset 0x")
            && text
                .split(": ")
                .next()
                .is_some_and(|head| head.contains(", "));
        (!located).then(|| format!("unlocated error: {text}"))
    })
}

/// Panics inside the sweep's workers are caught and reported with their
/// mutation; keep the default hook from printing each one (and keep it for
/// every other thread, the tests' own assertions included).
fn quiet_workers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some("sweep") {
                default(info);
            }
        }));
    });
}

/// Runs every mutation of every sample on `workers` threads. Stops at the
/// first input that runs longer than `hang` (its thread is left running;
/// the process ends with the test run).
fn sweep(samples: Vec<Sample>, workers: usize, hang: Duration) -> Report {
    quiet_workers();
    // Jobs: a sample and a run of its offsets.
    let mut jobs: Vec<(usize, Vec<usize>)> = Vec::new();
    for (s, sample) in samples.iter().enumerate() {
        jobs.push((s, Vec::new()));
        for chunk in sample.offsets().chunks(64) {
            jobs.push((s, chunk.to_vec()));
        }
    }
    let samples = Arc::new(samples);
    let jobs = Arc::new(jobs);
    let next = Arc::new(AtomicUsize::new(0));
    let busy: Arc<Vec<Busy>> = Arc::new((0..workers).map(|_| Mutex::new(None)).collect());
    let (done, finished) = mpsc::channel::<Report>();
    for w in 0..workers {
        let (samples, jobs, next, busy, done) = (
            samples.clone(),
            jobs.clone(),
            next.clone(),
            busy.clone(),
            done.clone(),
        );
        std::thread::Builder::new()
            .name("sweep".into())
            .spawn(move || {
                let mut report = Report::default();
                let mut slowest = (Duration::ZERO, 0, Mutation::None);
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some((s, offsets)) = jobs.get(j) else {
                        break;
                    };
                    let sample = &samples[*s];
                    let mut one = |m: Mutation, input: &[u8]| {
                        let start = Instant::now();
                        *busy[w].lock().unwrap() = Some((start, *s, m));
                        let problem = check(sample.run, m, input);
                        let took = start.elapsed();
                        *busy[w].lock().unwrap() = None;
                        if m != Mutation::None {
                            report.tried += 1;
                        }
                        if took > slowest.0 {
                            slowest = (took, *s, m);
                        }
                        if let Some(p) = problem {
                            report.failures.push(format!("{}: {m}: {p}", sample.name));
                        }
                    };
                    if offsets.is_empty() {
                        one(Mutation::None, &sample.data);
                        continue;
                    }
                    let mut m = sample.data.clone();
                    for &i in offsets {
                        one(Mutation::Cut(i), &sample.data[..i]);
                        for bit in 0..8 {
                            m[i] ^= 1 << bit;
                            one(Mutation::Bit(i, bit), &m);
                            m[i] ^= 1 << bit;
                        }
                        m[i] ^= 0xff;
                        one(Mutation::Invert(i), &m);
                        m[i] ^= 0xff;
                    }
                }
                let (took, s, m) = slowest;
                report.slowest = Some((took, format!("{}: {m}", samples[s].name)));
                let _ = done.send(report);
            })
            .expect("spawn a sweep thread");
    }
    drop(done);
    let mut total = Report::default();
    let mut running = workers;
    while running > 0 {
        match finished.recv_timeout(Duration::from_millis(100)) {
            Ok(r) => {
                running -= 1;
                total.tried += r.tried;
                total.failures.extend(r.failures);
                if r.slowest.as_ref().map(|s| s.0) > total.slowest.as_ref().map(|s| s.0) {
                    total.slowest = r.slowest;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        for b in busy.iter() {
            if let Some((since, s, m)) = *b.lock().unwrap() {
                let took = since.elapsed();
                if took > hang {
                    total.hung = Some(format!(
                        "{}: {m}: still running after {:.1} s",
                        samples[s].name,
                        took.as_secs_f64()
                    ));
                    return total;
                }
            }
        }
    }
    total
}

fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

#[test]
fn every_mutation_decodes_or_fails_with_a_located_error() {
    let mut problems = Vec::new();
    let mut tried_total = 0usize;
    let all = Instant::now();
    for f in FORMATS {
        let Some(dir) = codec_tests::corpus_dir(f.corpus) else {
            println!(
                "{}: SKIPPED, the corpus is absent (set CODEC_CORPUS to the folder holding {}/)",
                f.name, f.corpus
            );
            continue;
        };
        let start = Instant::now();
        let samples = (f.pick)(&dir);
        assert!(
            !samples.is_empty(),
            "{}: no sample files in {}",
            f.name,
            dir.display()
        );
        let (n, bytes) = (
            samples.len(),
            samples.iter().map(|s| s.data.len()).sum::<usize>(),
        );
        let report = sweep(samples, workers(), HANG);
        let (took, slow) = report.slowest.clone().unwrap_or_default();
        println!(
            "{}: {} mutated inputs from {n} samples ({bytes} bytes) in {:.1} s; slowest {:.1} ms ({slow})",
            f.name,
            report.tried,
            start.elapsed().as_secs_f64(),
            took.as_secs_f64() * 1e3,
        );
        tried_total += report.tried;
        if let Some(h) = report.hung {
            panic!("{}: hang: {h}", f.name);
        }
        problems.extend(
            report
                .failures
                .into_iter()
                .map(|p| format!("{}/{p}", f.name)),
        );
    }
    println!(
        "all formats: {tried_total} mutated inputs in {:.1} s on {} threads",
        all.elapsed().as_secs_f64(),
        workers()
    );
    assert!(
        problems.is_empty(),
        "{} of {tried_total} mutations misbehaved:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ---------------------------------------------------------------------------
// The sweep itself finds what it must (no corpus needed).

/// Byte 1 decides: missing is a located error, 0xfe (byte 1 inverted)
/// panics, 0x03 (its bit 1 flipped) is an error without a location, 0x81
/// (bit 7) is slow; anything else decodes.
fn touchy(data: &[u8]) -> Outcome {
    match data.get(1) {
        None => vec![(0, "at offset 0x0, T.x: too short".into())],
        Some(0xfe) => panic!("boom"),
        Some(0x03) => vec![(1, "something is wrong".into())],
        Some(0x81) => {
            std::thread::sleep(Duration::from_millis(2500));
            Vec::new()
        }
        Some(_) => Vec::new(),
    }
}

#[test]
fn the_sweep_reports_panics_and_unlocated_errors_with_their_mutation() {
    let report = sweep(
        vec![Sample::whole("t", vec![0, 1, 2], touchy)],
        2,
        Duration::from_secs(60),
    );
    assert_eq!(report.tried, 3 * 10);
    let mut failures = report.failures;
    failures.sort();
    assert_eq!(
        failures,
        [
            "t: bit 1 of byte 0x1 flipped: unlocated error: something is wrong",
            "t: byte 0x1 inverted: panicked",
        ]
    );
    assert!(report.hung.is_none());
    let (took, slowest) = report.slowest.unwrap();
    assert_eq!(slowest, "t: bit 7 of byte 0x1 flipped");
    assert!(took >= Duration::from_millis(2500));
    // A window at a stride: offsets 1 and 3 of 0..5.
    let report = sweep(
        vec![Sample {
            window: 1..5,
            stride: 2,
            ..Sample::whole("t", vec![9; 6], touchy)
        }],
        1,
        Duration::from_secs(60),
    );
    assert_eq!(report.tried, 2 * 10);
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}

#[test]
fn the_sweep_reports_a_hang_while_it_runs() {
    let start = Instant::now();
    let report = sweep(
        vec![Sample::whole("t", vec![0, 1, 2], touchy)],
        1,
        Duration::from_millis(300),
    );
    assert_eq!(
        report.hung.as_deref().map(|h| h.split(": still").next()),
        Some(Some("t: bit 7 of byte 0x1 flipped"))
    );
    // Reported while the input runs, not after.
    assert!(start.elapsed() < Duration::from_millis(2400));
}

#[test]
fn an_unmutated_sample_that_does_not_decode_is_a_failure() {
    let report = sweep(vec![Sample::whole("t", vec![0], touchy)], 1, HANG);
    assert_eq!(
        report.failures.first().map(String::as_str),
        Some("t: unmutated: does not decode: at offset 0x0, T.x: too short")
    );
}

/// Every format of the registry (`formats::registry::FORMATS`) has its
/// sweep here, and nothing here is a format the registry lacks: a new
/// format cannot land unswept.
#[test]
fn every_registered_format_is_swept() {
    let mut registered: Vec<&str> = formats::registry::FORMATS.iter().map(|e| e.name).collect();
    let mut swept: Vec<&str> = FORMATS.iter().map(|f| f.name).collect();
    registered.sort_unstable();
    swept.sort_unstable();
    assert_eq!(swept, registered);
}
