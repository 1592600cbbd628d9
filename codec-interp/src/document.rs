//! The document a located tree holds, named as the text forms name it:
//! `root.Params.Bow.Fovy` for the node whose path is
//! `Header.root::Hash.entries[0].value::Hash.entries[6].value`.
//!
//! The tree has every field of the binary: offsets, counts, tags, the
//! variant a payload is. The text forms a modder edits hold only what the
//! writer cannot derive, and a list of named records is a map by name. The
//! same view is read off the tree here, by the schema's own distinctions,
//! with no format named:
//!
//! - an offset and a union's variant stand for what they lead to (no
//!   segment of their own);
//! - a record's fields are its stored ones (those its document type holds:
//!   no magic, count, size or tag); the others stay in the tree, out of the
//!   document;
//! - a record that **names itself** (a field `key`, `name`, `label` or
//!   `id`, whose value or the string it leads to, or the name a tool knows
//!   for its hash, is the record's name) is shown by that name, wherever it
//!   stands: as an element of a list (`entries[6]` → `.Fovy`) or as a
//!   field's value (AAMP's root list → `param_root`); its naming field is
//!   then no part of its content;
//! - a record left with one stored field is that field (a BYML hash is its
//!   entries, an entry its value, an AAMP parameter its value).
//!
//! So a value's document path is what the text form's reader would follow
//! to reach it, and search can find `Bow.Fovy` as the modder writes it.

use super::{Kind, Node, Value};

/// The fields that name a record, in the order looked for.
pub const NAMING_FIELDS: [&str; 4] = ["key", "name", "label", "id"];

/// A record's naming field: its index among the record's children.
pub fn naming_field(record: &Node) -> Option<usize> {
    if !matches!(record.kind, Kind::Record { .. }) {
        return None;
    }
    NAMING_FIELDS
        .iter()
        .find_map(|f| record.children.iter().position(|c| c.name == *f))
}

/// The text a naming field gives its record: the string it is or leads to
/// (an offset or index to a string), else the name a tool noted for it (an
/// AAMP hash's name), else its number.
pub fn key_text(field: &Node) -> Option<String> {
    let string = std::iter::once(field)
        .chain(field.children.iter())
        .find_map(|c| match &c.kind {
            Kind::Str { value, .. } => Some(value.clone()),
            _ => None,
        });
    if string.is_some() {
        return string;
    }
    if let Some(name) = noted_name(&field.note) {
        return Some(name.to_owned());
    }
    match &field.kind {
        Kind::Number { value } => Some(plain(value)),
        _ => None,
    }
}

/// A note that is a name in quotes (`"Fovy"`, as `research::annotate`
/// writes a known hash's name).
fn noted_name(note: &str) -> Option<&str> {
    let inner = note.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// A scalar as one types it: decimal integers, the shortest float that
/// reads back exactly, `true`/`false` (a key's number, an edited value).
pub fn plain(v: &Value) -> String {
    match v {
        Value::U8(x) => x.to_string(),
        Value::U16(x) => x.to_string(),
        Value::U32(x) => x.to_string(),
        Value::U64(x) => x.to_string(),
        Value::I8(x) => x.to_string(),
        Value::I16(x) => x.to_string(),
        Value::I32(x) => x.to_string(),
        Value::I64(x) => x.to_string(),
        Value::F32(x) => format!("{x:?}"),
        Value::F64(x) => format!("{x:?}"),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// The name of the record `n` stands for (through offsets and variants),
/// when it names itself.
pub fn self_name(n: &Node) -> Option<String> {
    let record = through(n);
    let field = naming_field(record)?;
    key_text(&record.children[field])
}

/// The node an offset or a variant leads to (itself for anything else).
fn through(mut n: &Node) -> &Node {
    loop {
        match n.kind {
            Kind::Offset { .. } | Kind::Variant { .. } => match lead(n) {
                Some(i) => n = &n.children[i],
                None => return n,
            },
            _ => return n,
        }
    }
}

/// The child an offset or a variant leads to: its one child that is not a
/// count stored beside the target.
fn lead(n: &Node) -> Option<usize> {
    let mut led = n
        .children
        .iter()
        .enumerate()
        .filter(|(_, c)| !matches!(c.kind, Kind::Derived { .. }));
    let (i, _) = led.next()?;
    led.next().is_none().then_some(i)
}

/// Whether child `c` of record `r` is one of the fields its document holds.
fn stored(r: &Node, c: &Node) -> bool {
    match &r.kind {
        Kind::Record { shape, .. } if !shape.is_empty() => {
            shape.iter().any(|f| f.name == c.name.as_str())
        }
        _ => c.is_stored(),
    }
}

/// What one step from a node to its child is in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The child is the parent's value: no segment (an offset's target, a
    /// variant's payload, a record's one stored field).
    Into,
    /// A field of the document: `.name`.
    Field(String),
    /// An element of a list: `[i]`, or `.name` for a record that names
    /// itself.
    Element(String),
    /// The record's naming field: the record's own path (it is the name).
    Name,
    /// A field the writer derives (magic, count, size, tag): in the tree,
    /// not in the document; its path is the record's and `#name`.
    Derived(String),
}

/// The step from `parent` to its child `index`.
pub fn step(parent: &Node, index: usize) -> Step {
    let Some(child) = parent.children.get(index) else {
        return Step::Into;
    };
    match &parent.kind {
        Kind::Offset { .. } | Kind::Variant { .. } => {
            if lead(parent) == Some(index) {
                Step::Into
            } else {
                Step::Derived(child.name.to_string())
            }
        }
        // An element by its name or its index (`[i]`, as the tree names
        // it: a table's offsets may stand before its elements, and are the
        // writer's).
        Kind::Seq => match self_name(child) {
            Some(name) => Step::Element(name),
            None if child.name.starts_with('[') => Step::Element(child.name.to_string()),
            None => Step::Derived(child.name.to_string()),
        },
        Kind::Record { .. } => {
            let naming = naming_field(parent).filter(|&i| key_text(&parent.children[i]).is_some());
            if naming == Some(index) {
                return Step::Name;
            }
            if !stored(parent, child) {
                return Step::Derived(child.name.to_string());
            }
            let content = parent
                .children
                .iter()
                .enumerate()
                .filter(|&(i, c)| Some(i) != naming && stored(parent, c))
                .count();
            if content == 1 {
                return Step::Into;
            }
            Step::Field(self_name(child).unwrap_or_else(|| child.name.to_string()))
        }
        // Ranges of a bitfield: fields of the word.
        _ => Step::Field(child.name.to_string()),
    }
}

/// Appends a step to a document path.
pub fn extend(path: &mut String, step: &Step) {
    match step {
        Step::Into | Step::Name => {}
        Step::Element(s) if s.starts_with('[') => path.push_str(s),
        Step::Field(s) | Step::Element(s) => {
            if !path.is_empty() {
                path.push('.');
            }
            push_segment(path, s);
        }
        Step::Derived(s) => {
            path.push('#');
            path.push_str(s);
        }
    }
}

/// A name as a path segment: quoted (`["a.b"]`) when it holds what would
/// read as the path's own punctuation, or is empty.
fn push_segment(path: &mut String, s: &str) {
    if s.is_empty() || s.contains(['.', '[', ']', '#', '"', ' ']) {
        if path.ends_with('.') {
            path.pop();
        }
        path.push_str(&format!("[{s:?}]"));
    } else {
        path.push_str(s);
    }
}

/// The document path of the node at `at` (child indices from the root).
pub fn path(root: &Node, at: &[usize]) -> String {
    let mut out = String::new();
    let mut n = root;
    for &i in at {
        extend(&mut out, &step(n, i));
        match n.children.get(i) {
            Some(c) => n = c,
            None => break,
        }
    }
    out
}

/// The node a document entry shows, from `n` down through the steps that
/// add no segment (`Into`): the child indices taken.
pub fn settle(n: &Node) -> (&Node, Vec<usize>) {
    let mut at = Vec::new();
    let mut n = n;
    loop {
        let into: Vec<usize> = (0..n.children.len())
            .filter(|&i| step(n, i) == Step::Into)
            .collect();
        match into.as_slice() {
            [i] => {
                at.push(*i);
                n = &n.children[*i];
            }
            _ => return (n, at),
        }
    }
}

/// One entry of the document under a node.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its segment (`Fovy`, `[3]`, `objects`).
    pub segment: String,
    /// The child indices from the node asked about to the node the entry
    /// shows (after [`settle`]).
    pub at: Vec<usize>,
}

/// The document's entries under `n` (itself settled first): its fields and
/// elements, the ones the writer derives left out.
pub fn entries(n: &Node) -> Vec<Entry> {
    let (n, base) = settle(n);
    let mut out = Vec::new();
    for i in 0..n.children.len() {
        let segment = match step(n, i) {
            Step::Field(s) | Step::Element(s) => s,
            Step::Into | Step::Name | Step::Derived(_) => continue,
        };
        let (_, below) = settle(&n.children[i]);
        let mut at = base.clone();
        at.push(i);
        at.extend(below);
        out.push(Entry { segment, at });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ShapeField;
    use std::sync::Arc;

    fn node(name: &str, kind: Kind, children: Vec<Node>) -> Node {
        let mut n = Node::new(name, name.to_owned(), 0, "t", false, kind);
        n.children = children;
        n
    }

    fn record(name: &str, stored: &[&str], children: Vec<Node>) -> Node {
        let shape: Vec<ShapeField> = stored
            .iter()
            .map(|s| ShapeField {
                name: (*s).to_owned(),
                default: Value::Unit,
                optional: false,
            })
            .collect();
        node(
            name,
            Kind::Record {
                type_name: name.to_owned(),
                shape: Arc::from(shape),
            },
            children,
        )
    }

    fn num(name: &str, v: u32) -> Node {
        node(
            name,
            Kind::Number {
                value: Value::U32(v),
            },
            vec![],
        )
    }

    fn string(name: &str, s: &str) -> Node {
        node(
            name,
            Kind::Str {
                value: s.to_owned(),
                pad: 0,
            },
            vec![],
        )
    }

    fn derived(name: &str) -> Node {
        node(
            name,
            Kind::Derived {
                raw: 1,
                meaning: String::new(),
            },
            vec![],
        )
    }

    fn offset(name: &str, target: Node) -> Node {
        node(
            name,
            Kind::Offset {
                raw: 0,
                target: Some(0),
                kept: None,
            },
            vec![target],
        )
    }

    /// A BYML-shaped tree: a header with a version and an offset to a hash
    /// whose entries (key string, derived type, value) hold a float and a
    /// hash of one entry.
    fn byml_like() -> Node {
        let entry = |key: &str, value: Node| {
            record(
                "Entry",
                &["key", "value"],
                vec![string("key", key), derived("type"), value],
            )
        };
        let hash = |entries: Vec<Node>| {
            record(
                "Hash",
                &["entries"],
                vec![derived("count"), node("entries", Kind::Seq, entries)],
            )
        };
        let inner = hash(vec![entry("Fovy", num("value", 90))]);
        let root = hash(vec![
            entry("Bow", offset("value", inner)),
            entry("a.b", num("value", 1)),
        ]);
        record(
            "Header",
            &["version", "root"],
            vec![num("version", 2), offset("root", root)],
        )
    }

    #[test]
    fn keyed_entries_read_as_names_and_wrappers_vanish() {
        let t = byml_like();
        // Header.root → Hash.entries[0] → Entry.value → Hash.entries[0].value
        let fovy = [1, 0, 1, 0, 2, 0, 1, 0, 2];
        assert_eq!(path(&t, &fovy), "root.Bow.Fovy");
        // The key field is the record's own path.
        assert_eq!(path(&t, &[1, 0, 1, 0, 2, 0, 1, 0, 0]), "root.Bow.Fovy");
        // A derived field stays out of the document's names.
        assert_eq!(path(&t, &[1, 0, 0]), "root#count");
        // A name holding the path's punctuation is quoted.
        assert_eq!(path(&t, &[1, 0, 1, 1, 2]), "root[\"a.b\"]");
    }

    #[test]
    fn entries_list_the_document_not_the_binary() {
        let t = byml_like();
        let top: Vec<String> = entries(&t).into_iter().map(|e| e.segment).collect();
        assert_eq!(top, ["version", "root"]);
        let root = &entries(&t)[1];
        let mut n = &t;
        for &i in &root.at {
            n = &n.children[i];
        }
        // The entries of the root are its keys, not `count` and `entries`.
        let keys: Vec<String> = entries(n).into_iter().map(|e| e.segment).collect();
        assert_eq!(keys, ["Bow", "a.b"]);
        // An entry settles on its value (the number, not the Entry record).
        let a = &entries(n)[1];
        let mut v = n;
        for &i in &a.at {
            v = &v.children[i];
        }
        assert!(matches!(v.kind, Kind::Number { .. }), "{v:?}");
    }

    #[test]
    fn a_hash_without_a_name_is_its_number_and_a_noted_name_wins() {
        let mut named = num("name", 0xa4f6_cb6c);
        let list = |name: Node| {
            record(
                "List",
                &["name", "lists", "objects"],
                vec![
                    name,
                    node("lists", Kind::Seq, vec![]),
                    node("objects", Kind::Seq, vec![]),
                ],
            )
        };
        let file = |mut l: Node| {
            l.name = "root".into();
            record("File", &["version", "root"], vec![num("version", 0), l])
        };
        assert_eq!(
            path(&file(list(named.clone())), &[1, 2]),
            "2767637356.objects"
        );
        named.note = "\"param_root\"".to_owned();
        assert_eq!(path(&file(list(named)), &[1, 2]), "param_root.objects");
    }
}
