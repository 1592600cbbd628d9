//! `codec survey`: every value of a field across many files, and what the
//! values say the field means.
//!
//! Each file is decoded by the interpreter and reduced to its
//! [`FileFacts`]; a [`Survey`] over them reports, per field key
//! (`Type.field`, `Type.word.range`, `Type.array[]`, `Type.field::Variant`):
//!
//! - the distribution of its values, overall and per schema variant;
//! - hypotheses, each tested on every value of every file: constant, a
//!   boolean, an enum, flags, a float stored in an integer field, equal to
//!   a count, size or field elsewhere in the record or the file, an offset
//!   that lands on the start or end of something, an index into a list, a
//!   hash of a string of the file. A hypothesis is said to hold only when
//!   no value of any file contradicts it; one that most files support is
//!   listed as contradicted, with the files that contradict it.
//!
//! and per record type, the fields that always change together.
//!
//! The survey runs on the interpreter, so an edited schema is surveyed
//! without a rebuild; the caller decodes files and evaluates fields in
//! parallel (`FileFacts::of` and [`Survey::field`] are independent).

mod facts;
mod hypotheses;
mod num;
mod render;

pub use facts::{FileFacts, Role};
pub use num::{Class, Num};
pub use render::{report_text, summary_text};

use facts::{Sample, Sym, Thing};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A string hash the survey tries on every string of a file (CRC32 always;
/// a format's own hash from its glue).
#[derive(Debug, Clone, Copy)]
pub struct StringHash {
    pub name: &'static str,
    pub hash: fn(&[u8]) -> u64,
}

/// CRC32 (the AAMP names' hash, SARC's without multiplier, and many more).
pub const CRC32: StringHash = StringHash {
    name: "crc32",
    hash: |b| u64::from(codec_runtime::crc32(b)),
};

/// Which fields to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Fields declared unknown, and known integer fields whose values look
    /// like something else (a float, a hash, a copy of a count).
    Default,
    /// Every numeric field.
    All,
    /// The fields whose key is one of these, or starts with one and a `.`
    /// (`StateInfo` takes every field of `StateInfo`), or matches up to a
    /// trailing `*`.
    Only(Vec<String>),
}

impl Selection {
    fn names(&self, key: &str) -> bool {
        match self {
            Selection::Only(patterns) => patterns.iter().any(|p| {
                key == p
                    || p.strip_suffix('*').is_some_and(|p| key.starts_with(p))
                    || key
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            }),
            _ => false,
        }
    }
}

/// Why a field is in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// The schema declares it unknown.
    Unknown,
    /// Known, but a hypothesis about it holds that its type does not say.
    Suspicious,
    /// Asked for with `--field` or `--all`.
    Asked,
}

/// The report on one field.
#[derive(Debug, Clone, Serialize)]
pub struct FieldReport {
    /// `Type.field`.
    pub field: String,
    /// The schema type, in words.
    #[serde(rename = "type")]
    pub ty: String,
    pub why: Why,
    pub role: Role,
    /// Values seen, in how many files, and how many bytes they cover.
    pub values: u64,
    pub files: usize,
    pub distribution: Distribution,
    /// Per schema variant, when files of more than one were surveyed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_variant: Vec<(String, Distribution)>,
    /// Holding ones first.
    pub hypotheses: Vec<Hypothesis>,
}

/// How a field's values are spread.
#[derive(Debug, Clone, Serialize)]
pub struct Distribution {
    pub distinct: usize,
    pub constant: bool,
    /// The most common values, with how often each occurs.
    pub common: Vec<(String, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
}

/// What a hypothesis claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    Constant,
    Boolean,
    Float,
    Hash,
    Equal,
    Offset,
    Index,
    Flags,
    Enum,
}

/// One hypothesis about a field, tested on every value.
#[derive(Debug, Clone, Serialize)]
pub struct Hypothesis {
    pub claim: Claim,
    /// What it says, in words (`equal to the number of elements of File.nodes`).
    pub text: String,
    /// What supports it (`4120 of 4120 values in 149 files`).
    pub evidence: String,
    /// True only when no value of any file contradicts it.
    pub holds: bool,
    /// The files whose values contradict it (all of them, in file order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contradicted_by: Vec<String>,
}

/// Fields of one record type that always change together.
#[derive(Debug, Clone, Serialize)]
pub struct StructReport {
    #[serde(rename = "struct")]
    pub type_name: String,
    pub records: u64,
    /// Each group: its fields, and how many distinct combinations of
    /// values the records hold.
    pub together: Vec<(Vec<String>, usize, bool)>,
}

/// The facts of every file, on one table of names.
#[derive(Debug)]
pub struct Survey {
    files: Vec<FileFacts>,
    /// Global names (field keys, record types, list keys).
    names: Vec<String>,
    ids: HashMap<String, Sym>,
    /// Per file: local name → global name.
    remap: Vec<Vec<Sym>>,
    /// Per file: global key → its samples' indices.
    by_key: Vec<HashMap<Sym, Vec<u32>>>,
    /// Per file: lists whose key occurs once (global key, length).
    once: Vec<Vec<(Sym, u64)>>,
    /// Per file: records per global type.
    type_counts: Vec<Vec<(Sym, u64)>>,
    /// Every field key (global) with what the first file that has it says.
    keys: BTreeMap<String, (Sym, facts::KeyInfo)>,
    variants: BTreeSet<String>,
    /// The string hashes the files' facts were taken with.
    hashes: Vec<StringHash>,
}

/// A quantity a value may equal: a field of the record or an ancestor, the
/// length or byte size of a list, a count of records, the file's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Quantity {
    Field(Sym),
    Len(Sym),
    Size(Sym),
    Count(Sym),
    FileSize,
}

impl Survey {
    /// Puts the facts of `files` on one table of names; `hashes` are the
    /// ones [`FileFacts::of`] was given.
    pub fn new(files: Vec<FileFacts>, hashes: &[StringHash]) -> Survey {
        let mut s = Survey {
            hashes: hashes.to_vec(),
            names: Vec::new(),
            ids: HashMap::new(),
            remap: Vec::new(),
            by_key: Vec::new(),
            once: Vec::new(),
            type_counts: Vec::new(),
            keys: BTreeMap::new(),
            variants: BTreeSet::new(),
            files: Vec::new(),
        };
        for f in &files {
            let remap: Vec<Sym> = f.names.names.iter().map(|n| s.id(n)).collect();
            let mut by_key: HashMap<Sym, Vec<u32>> = HashMap::new();
            for (i, sample) in f.samples.iter().enumerate() {
                by_key
                    .entry(remap[sample.key as usize])
                    .or_default()
                    .push(i as u32);
            }
            for (&k, info) in &f.keys {
                let g = remap[k as usize];
                s.keys
                    .entry(f.names.names[k as usize].clone())
                    .and_modify(|(_, i)| i.unknown |= info.unknown)
                    .or_insert_with(|| (g, info.clone()));
            }
            let mut lists: HashMap<Sym, (u64, u32)> = HashMap::new();
            for &(k, _, len) in &f.lists {
                let e = lists.entry(remap[k as usize]).or_insert((len, 0));
                e.1 += 1;
            }
            let mut once: Vec<(Sym, u64)> = lists
                .into_iter()
                .filter(|(_, (_, n))| *n == 1)
                .map(|(k, (len, _))| (k, len))
                .collect();
            once.sort_unstable();
            let mut counts: HashMap<Sym, u64> = HashMap::new();
            for r in &f.records {
                *counts.entry(remap[r.ty as usize]).or_default() += 1;
            }
            let mut counts: Vec<(Sym, u64)> = counts.into_iter().collect();
            counts.sort_unstable();
            if let Some(v) = &f.variant {
                s.variants.insert(v.clone());
            }
            s.remap.push(remap);
            s.by_key.push(by_key);
            s.once.push(once);
            s.type_counts.push(counts);
        }
        s.files = files;
        s
    }

    fn id(&mut self, name: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// How many files.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// The field keys to consider for `selection`, with why: the caller
    /// evaluates each with [`Survey::field`] (in parallel if it likes).
    /// Under [`Selection::Default`], known fields are candidates that
    /// [`Survey::field`] keeps only when they turn out suspicious.
    pub fn candidates(&self, selection: &Selection) -> Vec<(String, Why)> {
        self.keys
            .iter()
            .filter_map(|(key, (_, info))| {
                let numeric = info.role != Role::Blob;
                match selection {
                    Selection::Default if info.unknown => Some((key.clone(), Why::Unknown)),
                    Selection::Default => matches!(info.role, Role::Scalar | Role::Range)
                        .then(|| (key.clone(), Why::Suspicious)),
                    Selection::All if numeric || info.unknown => Some((key.clone(), Why::Asked)),
                    Selection::All => None,
                    Selection::Only(_) => selection.names(key).then(|| (key.clone(), Why::Asked)),
                }
            })
            .collect()
    }

    /// The report on field `key`; `None` when no file has it, or when it was
    /// picked as a suspect (`Why::Suspicious`) and nothing about it is.
    pub fn field(&self, key: &str, why: Why) -> Option<FieldReport> {
        let (gkey, info) = self.keys.get(key)?;
        if info.role == Role::Blob {
            return Some(hypotheses::blob_report(self, key, *gkey, info, why));
        }
        let report = hypotheses::field_report(self, key, *gkey, info, why)?;
        if why == Why::Suspicious && !report.is_suspicious() {
            return None;
        }
        Some(report)
    }

    /// For each record type in `types`, the fields that always change
    /// together.
    pub fn structs(&self, types: &BTreeSet<String>) -> Vec<StructReport> {
        types
            .iter()
            .filter_map(|t| hypotheses::together(self, t))
            .collect()
    }

    /// The record type a field key belongs to (`StateInfo` of
    /// `StateInfo.unknown_0x04`).
    pub fn type_of(key: &str) -> &str {
        key.split(['.', ':', '[']).next().unwrap_or(key)
    }

    // Helpers for the hypotheses.

    fn samples<'a>(&'a self, gkey: Sym) -> impl Iterator<Item = (usize, &'a Sample)> + 'a {
        self.files.iter().enumerate().flat_map(move |(fi, f)| {
            self.by_key[fi]
                .get(&gkey)
                .into_iter()
                .flatten()
                .map(move |&i| (fi, &f.samples[i as usize]))
        })
    }

    fn global(&self, fi: usize, local: Sym) -> Sym {
        self.remap[fi][local as usize]
    }

    fn thing(&self, fi: usize, t: Thing) -> Thing {
        match t {
            Thing::Record(s) => Thing::Record(self.global(fi, s)),
            Thing::List(s) => Thing::List(self.global(fi, s)),
            other => other,
        }
    }

    /// The quantities of record `record` and its ancestors (four levels):
    /// their numeric fields, and their lists' lengths and sizes; nearest
    /// first, each once, sorted by quantity.
    fn chain(&self, fi: usize, record: Option<u32>, out: &mut Vec<(Quantity, i128)>) {
        out.clear();
        let f = &self.files[fi];
        let mut record = record;
        let mut depth = 0;
        while let Some(r) = record.and_then(|r| f.records.get(r as usize)) {
            for &(k, num) in &r.numbers {
                if let Some(v) = num.int() {
                    out.push((Quantity::Field(self.global(fi, k)), v));
                }
            }
            for &(k, len, size) in &r.lists {
                let k = self.global(fi, k);
                out.push((Quantity::Len(k), i128::from(len)));
                out.push((Quantity::Size(k), i128::from(size)));
            }
            record = r.parent;
            depth += 1;
            if depth == 4 {
                break;
            }
        }
        // A stable sort keeps the nearest of equal quantities first.
        out.sort_by_key(|(q, _)| *q);
        out.dedup_by_key(|(q, _)| *q);
    }

    /// The quantities of file `fi` as a whole: the lengths of the lists that
    /// occur once, the number of records of each type, the file's size.
    fn file_quantities(&self, fi: usize) -> Vec<(Quantity, i128)> {
        let mut out = Vec::new();
        for &(k, len) in &self.once[fi] {
            out.push((Quantity::Len(k), i128::from(len)));
        }
        for &(t, n) in &self.type_counts[fi] {
            out.push((Quantity::Count(t), i128::from(n)));
        }
        out.push((Quantity::FileSize, i128::from(self.files[fi].len)));
        out
    }

    fn quantity_text(&self, q: Quantity) -> String {
        match q {
            Quantity::Field(k) => format!("the field {}", self.names[k as usize]),
            Quantity::Len(k) => format!("the number of elements of {}", self.names[k as usize]),
            Quantity::Size(k) => format!("the size in bytes of {}", self.names[k as usize]),
            Quantity::Count(t) => format!(
                "the number of {} records in the file",
                self.names[t as usize]
            ),
            Quantity::FileSize => "the file's size".to_owned(),
        }
    }

    fn thing_text(&self, t: Thing) -> String {
        match t {
            Thing::Record(s) => {
                let name = &self.names[s as usize];
                let vowel = name.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']);
                format!("{} {name}", if vowel { "an" } else { "a" })
            }
            Thing::List(s) => format!("the elements of {}", self.names[s as usize]),
            Thing::Str => "a string".to_owned(),
            Thing::Chars => "a string's characters (after its length)".to_owned(),
            Thing::File => "the file".to_owned(),
        }
    }
}

impl FieldReport {
    /// Does a hypothesis hold that a known field's type does not already
    /// say: a float in an integer field, a hash of a string, a copy of a
    /// count or size that the schema does not derive, an offset kept as a
    /// number (its target moves on the first edit, the number stays:
    /// issue 72)?
    pub fn is_suspicious(&self) -> bool {
        self.hypotheses.iter().any(|h| {
            h.holds
                && match h.claim {
                    Claim::Float | Claim::Hash | Claim::Offset => true,
                    Claim::Equal => !h.text.contains("the field "),
                    _ => false,
                }
        })
    }
}
