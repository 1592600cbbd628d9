//! What one decoded file tells the survey: every number with the record it
//! stands in, the records and lists with their positions, what starts and
//! ends where, and the hashes of its strings. Extracted once per file from
//! the interpreter's [`Node`] tree (in parallel by the caller), then the
//! tree is dropped.

use super::num::Num;
use super::StringHash;
use crate::{Kind, Node};
use std::collections::HashMap;

/// How many elements of one `u8` list the survey samples (see `walk`).
const OCTETS_SAMPLED: usize = 4096;

/// An interned name (a field key, a record type, a list key): per file;
/// [`super::Survey`] maps them onto one table for all files.
pub type Sym = u32;

/// Interns the names of one file.
#[derive(Debug, Default)]
pub(super) struct Names {
    pub(super) names: Vec<String>,
    ids: HashMap<String, Sym>,
}

impl Names {
    pub(super) fn id(&mut self, name: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

/// How a field key's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A number or bool field of a record (or a union's number payload).
    Scalar,
    /// One range of a bitfield word.
    Range,
    /// An element of an inline array or a list of numbers.
    Element,
    /// A count, size or tag the schema derives on encode.
    Derived,
    /// A stored offset.
    Offset,
    /// Bytes or a string (a declared-unknown blob).
    Blob,
}

/// Per field key: what the schema says about it.
#[derive(Debug, Clone)]
pub(super) struct KeyInfo {
    pub(super) ty: String,
    pub(super) unknown: bool,
    pub(super) role: Role,
}

/// One value of a numeric field.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    pub(super) key: Sym,
    /// The record the field is part of (its fields, its parents').
    pub(super) record: Option<u32>,
    /// Where the value lies in the file.
    pub(super) offset: u64,
    pub(super) num: Num,
}

/// One value of a bytes or string field declared unknown.
#[derive(Debug, Clone)]
pub(super) struct Blob {
    pub(super) key: Sym,
    pub(super) bytes: Vec<u8>,
}

/// One record of the file.
#[derive(Debug, Clone)]
pub(super) struct Record {
    pub(super) ty: Sym,
    pub(super) offset: u64,
    pub(super) parent: Option<u32>,
    /// Its numeric fields (scalars, bit ranges, derived values, offsets).
    pub(super) numbers: Vec<(Sym, Num)>,
    /// Its lists: key, element count, bytes.
    pub(super) lists: Vec<(Sym, u64, u64)>,
}

/// What may start or end at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Thing {
    /// A record of the type.
    Record(Sym),
    /// The elements of the list.
    List(Sym),
    /// A string.
    Str,
    /// A string's characters, after its length (an offset that skips the
    /// length of a `PString`: BFEVFL's name pointers).
    Chars,
    /// The end of the file.
    File,
}

/// Everything the survey needs from one file.
#[derive(Debug)]
pub struct FileFacts {
    /// How reports name the file (its path, or its way into an archive).
    pub label: String,
    /// The schema variant it was read as.
    pub variant: Option<String>,
    pub(super) len: u64,
    pub(super) names: Names,
    pub(super) keys: HashMap<Sym, KeyInfo>,
    pub(super) records: Vec<Record>,
    pub(super) samples: Vec<Sample>,
    pub(super) blobs: Vec<Blob>,
    pub(super) starts: HashMap<u64, Vec<Thing>>,
    pub(super) ends: HashMap<u64, Vec<Thing>>,
    /// Every list: key, owning record, element count.
    pub(super) lists: Vec<(Sym, Option<u32>, u64)>,
    /// The hash values of the file's strings: value → (bit set of the
    /// hashes that give it, the first string that does).
    pub(super) hashes: HashMap<u64, (u32, String)>,
}

impl FileFacts {
    /// Collects the facts of the file whose decoded tree is `root`, `len`
    /// bytes long; `hashes` are tried on each of its strings.
    pub fn of(
        label: String,
        variant: Option<String>,
        root: &Node,
        len: u64,
        hashes: &[StringHash],
    ) -> FileFacts {
        let mut f = FileFacts {
            label,
            variant,
            len,
            names: Names::default(),
            keys: HashMap::new(),
            records: Vec::new(),
            samples: Vec::new(),
            blobs: Vec::new(),
            starts: HashMap::new(),
            ends: HashMap::new(),
            lists: Vec::new(),
            hashes: HashMap::new(),
        };
        let mut strings = Vec::new();
        let root_key = match &root.kind {
            Kind::Record { type_name, .. } => type_name.clone(),
            _ => root.name.to_string(),
        };
        f.walk(root, &root_key, None, false, &mut strings);
        f.ends.entry(len).or_default().push(Thing::File);
        for s in strings {
            for (i, h) in hashes.iter().enumerate().take(32) {
                let e = f
                    .hashes
                    .entry((h.hash)(s.as_bytes()))
                    .or_insert_with(|| (0, s.clone()));
                e.0 |= 1 << i;
            }
        }
        f
    }

    fn key(&mut self, key: &str, node: &Node, role: Role) -> Sym {
        let id = self.names.id(key);
        let info = self.keys.entry(id).or_insert_with(|| KeyInfo {
            ty: node.ty.to_string(),
            unknown: node.unknown,
            role,
        });
        info.unknown |= node.unknown;
        id
    }

    fn sample(&mut self, key: Sym, record: Option<u32>, offset: u64, num: Num, in_record: bool) {
        self.samples.push(Sample {
            key,
            record,
            offset,
            num,
        });
        if in_record {
            if let Some(r) = record.and_then(|r| self.records.get_mut(r as usize)) {
                r.numbers.push((key, num));
            }
        }
    }

    /// Records `node`, stored under the field key `key` in record `record`;
    /// `element`: inside a list or an array of that record (its values are
    /// not fields of the record).
    fn walk(
        &mut self,
        node: &Node,
        key: &str,
        record: Option<u32>,
        element: bool,
        strings: &mut Vec<String>,
    ) {
        match &node.kind {
            Kind::Record { type_name, .. } => {
                let ty = self.names.id(type_name);
                let index = self.records.len() as u32;
                self.records.push(Record {
                    ty,
                    offset: node.offset,
                    parent: record,
                    numbers: Vec::new(),
                    lists: Vec::new(),
                });
                self.note_extent(node.offset, node.size, Thing::Record(ty));
                let mut child_key = String::new();
                for c in &node.children {
                    child_key.clear();
                    child_key.push_str(type_name);
                    child_key.push('.');
                    child_key.push_str(&c.name);
                    self.walk(c, &child_key, Some(index), false, strings);
                }
            }
            Kind::Seq => {
                self.list(key, node, record, node.children.len() as u64);
                let inner = format!("{key}[]");
                for c in &node.children {
                    self.walk(c, &inner, record, true, strings);
                }
            }
            Kind::Numbers { values } => {
                self.list(key, node, record, values.len() as u64);
                let Some(first) = values.first().and_then(Num::of) else {
                    return;
                };
                let id = self.key(&format!("{key}[]"), node, Role::Element);
                let step = u64::from(first.width / 8);
                for (i, v) in values.iter().enumerate() {
                    if let Some(num) = Num::of(v) {
                        self.sample(id, record, node.offset + i as u64 * step, num, false);
                    }
                }
            }
            Kind::Octets { values } => {
                self.list(key, node, record, values.len() as u64);
                if values.is_empty() {
                    return;
                }
                let id = self.key(&format!("{key}[]"), node, Role::Element);
                // A long byte list is data (an archive's file): its first
                // bytes say what its elements hold; a sample per byte of a
                // 64 MB file took 40 times its size.
                for (i, &b) in values.iter().take(OCTETS_SAMPLED).enumerate() {
                    if let Some(num) = Num::of(&crate::Value::U8(b)) {
                        self.sample(id, record, node.offset + i as u64, num, false);
                    }
                }
            }
            Kind::Number { value } | Kind::Fixed { value, .. } => {
                if let Some(num) = Num::of(value) {
                    let role = if element { Role::Element } else { Role::Scalar };
                    let id = self.key(key, node, role);
                    self.sample(id, record, node.offset, num, !element);
                }
            }
            Kind::Derived { raw, .. } => {
                let num = Num::unsigned(*raw, node.size);
                let id = self.key(key, node, Role::Derived);
                self.sample(id, record, node.offset, num, !element);
            }
            Kind::Offset { raw, .. } => {
                let num = Num::unsigned(*raw, node.size);
                let id = self.key(key, node, Role::Offset);
                self.sample(id, record, node.offset, num, !element);
                for c in &node.children {
                    // A count stored beside the offset is a field of its own.
                    if matches!(c.kind, Kind::Derived { .. }) {
                        self.walk(c, &format!("{key}.{}", c.name), record, element, strings);
                    } else {
                        self.walk(c, key, record, element, strings);
                    }
                }
            }
            Kind::Bits { .. } => {
                let mut range_key = String::new();
                for c in &node.children {
                    if let Kind::BitRange { value, .. } = &c.kind {
                        let Some(num) = Num::of(value) else { continue };
                        range_key.clear();
                        range_key.push_str(key);
                        range_key.push('.');
                        range_key.push_str(&c.name);
                        let id = self.key(&range_key, c, Role::Range);
                        self.sample(id, record, node.offset, num, !element);
                    }
                }
            }
            Kind::Str { value, .. } => {
                self.starts.entry(node.offset).or_default().push(Thing::Str);
                let prefix = node.size.saturating_sub(value.len() as u64);
                if prefix == 2 || prefix == 4 {
                    self.starts
                        .entry(node.offset + prefix)
                        .or_default()
                        .push(Thing::Chars);
                }
                if node.unknown {
                    let id = self.key(key, node, Role::Blob);
                    self.blobs.push(Blob {
                        key: id,
                        bytes: value.as_bytes().to_vec(),
                    });
                }
                strings.push(value.clone());
            }
            Kind::Bytes { bytes } => {
                if node.unknown {
                    let id = self.key(key, node, Role::Blob);
                    self.blobs.push(Blob {
                        key: id,
                        bytes: bytes.clone(),
                    });
                }
            }
            Kind::Variant { variant, .. } => {
                let inner = format!("{key}::{variant}");
                for c in &node.children {
                    self.walk(c, &inner, record, element, strings);
                }
            }
            Kind::Magic { .. } | Kind::BitRange { .. } => {}
        }
    }

    /// Notes a list: its key, length and where its elements start and end.
    fn list(&mut self, key: &str, node: &Node, record: Option<u32>, len: u64) {
        let id = self.names.id(key);
        self.lists.push((id, record, len));
        if let Some(r) = record.and_then(|r| self.records.get_mut(r as usize)) {
            r.lists.push((id, len, node.size));
        }
        if len > 0 {
            self.note_extent(node.offset, node.size, Thing::List(id));
        }
    }

    /// Notes that `thing` starts at `offset` and ends `size` bytes later.
    fn note_extent(&mut self, offset: u64, size: u64, thing: Thing) {
        self.starts.entry(offset).or_default().push(thing);
        self.ends.entry(offset + size).or_default().push(thing);
    }
}
