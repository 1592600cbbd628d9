//! Helpers shared by the test files of `formats` (each file that needs them
//! says `mod common;`; not every file uses every helper): the corpus, and
//! running the `codec` command.
#![allow(dead_code)]

pub mod hostile;

use formats::bdat::{Cell, CellType, Table, Variant};
use formats::byml::Header;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `codec` binary with `args`, without the AAMP names files
/// of the environment (so that the output does not depend on the machine).
pub fn codec<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .env_remove(formats::aamp::names::NAMES_ENV)
        .env_remove(formats::aamp::names::NUMBERED_NAMES_ENV)
        .output()
        .expect("run codec")
}

/// Runs `codec check FILE` and asserts that it exits 0 with the summary of
/// one identical file.
pub fn assert_check_says_identical(file: &Path) {
    let o = codec(&["check".as_ref(), file.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("checked 1 files: 1 identical, 0 differ, 0 failed\n"),
        "{}",
        stdout(&o)
    );
}

/// An empty folder `<target tmp>/<group>/<name>` for one test.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `$CODEC_CORPUS/<format>`, else `../shared/corpus/<format>` beside the
/// workspace. When it is absent, says SKIPPED (the corpus tests then pass
/// without checking anything) and returns `None`.
pub fn corpus(format: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("CODEC_CORPUS") {
        Some(root) if !root.is_empty() => PathBuf::from(root),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    let dir = base.join(format);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: the {} corpus is absent ({}); set CODEC_CORPUS to run the corpus tests",
            format.to_uppercase(),
            dir.display()
        );
        None
    }
}

/// The paths of the files of `dir` whose extension is `ext`, sorted;
/// none when `dir` cannot be read.
pub fn paths_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    paths
}

/// The files of `dir` whose extension is `ext`, sorted by path:
/// `(path, bytes)`.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    paths_with_ext(dir, ext)
        .into_iter()
        .map(|p| (p.display().to_string(), fs::read(&p).unwrap()))
        .collect()
}

/// The SARC archives in `folders` (each a corpus folder name, or a path
/// of its own), Yaz0 layers taken off, by path: `(path, bytes)`.
pub fn sarc_archives(folders: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    use formats::layer::{Dictionaries, Layer};
    let mut out = Vec::new();
    for folder in folders {
        let mut paths: Vec<_> = fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for path in paths {
            let mut data = fs::read(&path).unwrap();
            if let Some(layer) = Layer::detect(&data) {
                data = layer.decompress(&data, &Dictionaries::default()).unwrap();
            }
            if formats::sarc::looks_like(&data) {
                out.push((path.display().to_string(), data));
            }
        }
    }
    out
}

/// The files directly in `dir` (no subfolders) that start with `magic`, sorted.
pub fn files_with_magic(dir: &Path, magic: &[u8]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read the corpus folder")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.is_file() && fs::read(p).is_ok_and(|b| b.starts_with(magic)))
        .collect();
    files.sort();
    files
}

/// A legacy BDAT table with every kind of column: values, an array, strings
/// shared by rows, a float, and two flags of one parent.
pub fn bdat_sample_table() -> Table {
    let mut t = Table::new("SYS_Sample");
    t.base_id = 5;
    t.add_value_column("id", CellType::U16);
    t.add_value_column("name", CellType::String);
    t.add_list_column("deltas", CellType::I8, 3);
    t.add_value_column("flags", CellType::U8);
    t.add_value_column("rate", CellType::Float);
    for (label, shift, mask) in [("on", 0u8, 1u32), ("level", 1, 0b110)] {
        t.add_flag_column(label, 3, shift, mask);
    }
    for i in 0..4u16 {
        let name = t.string_cell(if i % 2 == 0 {
            "same".to_owned()
        } else {
            format!("row {i}")
        });
        t.rows.push(vec![
            Cell::U16(100 + i),
            name,
            Cell::I8(-1),
            Cell::I8(i as i8),
            Cell::I8(7),
            Cell::U8((i as u8) & 7),
            Cell::Float(i as f32 * 0.25),
        ]);
    }
    t
}

/// [`bdat_sample_table`] for game `v` (fixed-point floats in XCX).
pub fn bdat_sample_for(v: Variant) -> Table {
    let mut t = bdat_sample_table();
    if v == Variant::X {
        for r in &mut t.rows {
            if let Cell::Float(f) = r[6] {
                r[6] = Cell::Fixed((f * 4096.0) as u32);
            }
        }
    }
    t
}

/// A BYML document as oead's YAML holds it: every hash's entries sorted
/// by key, and nothing said of the sharing of equal containers.
pub fn byml_in_key_order(doc: &Header) -> Header {
    use formats::byml::schema::{HashMap, HashMapEntry};
    use formats::byml::{Array, Container, Entry, Hash, Node};
    fn node(n: &Node) -> Node {
        match n {
            Node::Array(a) => Node::Array(array(a)),
            Node::Hash(h) => Node::Hash(hash(h)),
            Node::HashMap(m) => Node::HashMap(hash_map(m)),
            other => other.clone(),
        }
    }
    fn array(a: &Array) -> Array {
        Array {
            items: a.items.iter().map(|n| node(&n)).collect(),
        }
    }
    fn hash(h: &Hash) -> Hash {
        let mut entries: Vec<Entry> = h
            .entries
            .iter()
            .map(|e| Entry {
                key: e.key.clone(),
                value: node(&e.value),
            })
            .collect();
        entries.sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
        Hash { entries }
    }
    fn hash_map(m: &HashMap) -> HashMap {
        let mut entries: Vec<HashMapEntry> = m
            .entries
            .iter()
            .map(|e| HashMapEntry {
                hash: e.hash,
                value: node(&e.value),
            })
            .collect();
        entries.sort_by_key(|e| e.hash);
        HashMap { entries }
    }
    Header {
        version: doc.version,
        path_table: doc.path_table,
        // oead's text does not say whether equal containers are shared.
        shares_equal: true,
        root: doc.root.as_ref().map(|c| match c {
            Container::Array(a) => Container::Array(array(a)),
            Container::Hash(h) => Container::Hash(hash(h)),
            Container::HashMap(m) => Container::HashMap(hash_map(m)),
        }),
    }
}

/// `codec explore FILES` started in `cwd` (the built binary, or `$CODEC_BIN`
/// to measure another build): the child and the address it printed. What
/// it prints after the address is read and dropped.
pub fn explore(cwd: &Path, files: &[PathBuf]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let bin = std::env::var_os("CODEC_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_codec").into());
    let mut child = Command::new(bin)
        .current_dir(cwd)
        .arg("explore")
        .args(files)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("codec starts");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line
        .trim()
        .strip_prefix("codec explore: ")
        .unwrap_or_else(|| panic!("codec explore printed {line:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (child, url)
}

/// A schema that keeps an offset as a stored number (issue 72): a count, an
/// offset to the names, `title_at` (the title's position, a plain `U32`),
/// an offset to the title, a pad.
pub const STORED_OFFSET_SCHEMA: &str = r#"Schema(name: "t", endian: Little, root: "File",
    sections: [Section(name: "names"), Section(name: "title")],
    types: [
    Struct(name: "File", fields: [
        (name: "magic", type: Magic("EP")),
        (name: "n", type: U16, derive: Count("names")),
        (name: "names", type: Ptr(width: U32, to: List(of: Named("Name"), count: Field("n")), section: "names")),
        (name: "title_at", type: U32, doc: "Where the title starts: a stored number."),
        (name: "title", type: Ptr(width: U32, to: CString(), section: "title")),
        (name: "pad", type: U32),
    ]),
    Struct(name: "Name", fields: [(name: "text", type: CString())]),
])"#;

/// A file of [`STORED_OFFSET_SCHEMA`]: the names at 0x14, then the title.
pub fn stored_offset_file(names: &[&str], title: &str) -> Vec<u8> {
    let mut body = Vec::new();
    for n in names {
        body.extend_from_slice(n.as_bytes());
        body.push(0);
    }
    let at = 0x14 + body.len() as u32;
    let mut d = b"EP".to_vec();
    d.extend_from_slice(&(names.len() as u16).to_le_bytes());
    for x in [0x14u32, at, at, 0] {
        d.extend_from_slice(&x.to_le_bytes());
    }
    d.extend_from_slice(&body);
    d.extend_from_slice(title.as_bytes());
    d.push(0);
    d
}
