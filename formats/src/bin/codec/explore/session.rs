//! The documents `codec explore` has open, with no HTTP in sight: each file
//! named on the command line (through its compression layers) and each
//! archive member opened from the page, decoded by the interpreter into the
//! tree the page shows, coloured by coverage, edited through the compiled
//! codec, and saved atomically beside the file it came from.
//!
//! An edit changes one value of the interpreter's tree, takes the whole
//! tree to the generic form ([`Node::to_value`], the shape of the compiled
//! codec's types), reads that back into the typed document and encodes it
//! with the format's own writer (`Entry::from_value`): the bytes are then
//! exactly what `from-text` would write for the same document. The new
//! bytes are decoded again and must give the edited document, or the edit
//! is refused. An edited member is put back into its archive (its
//! alignment kept, its layers applied again) at once, so the archive the
//! user named is what "save as" writes.

use codec_interp::coverage::{self, Class};
use codec_interp::document::{self, plain};
use codec_interp::{self as interp, Decoded, Kind, Node, Value};
use codec_schema::Checked;
use formats::aamp::names::NameTable;
use formats::layer::{peel, wrap, Dictionaries, Layer};
use formats::registry::{Entry, FORMATS};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a document's bytes come from.
#[derive(Debug)]
pub enum Origin {
    /// A file named on the command line, inside these layers; `opened`
    /// is its length and CRC-32 when it was read, to tell whether it
    /// changed on disk since.
    File {
        path: PathBuf,
        layers: Vec<Layer>,
        opened: (u64, u32),
    },
    /// A member of the archive `parent`, inside these layers.
    Member {
        parent: usize,
        name: String,
        layers: Vec<Layer>,
    },
}

/// One open document.
#[derive(Debug)]
pub struct Doc {
    pub label: String,
    pub origin: Origin,
    /// The bytes now (inside the layers), edits included.
    pub data: Vec<u8>,
    /// The bytes as opened, to show what edits changed.
    pub opened: Vec<u8>,
    /// The built-in format the bytes are, if any.
    pub format: Option<&'static Entry>,
    /// The schema's source and the name diagnostics give it.
    pub schema_text: String,
    pub schema_file: String,
    /// The schema is not the format's own (`--schema`, or edited in the
    /// page): the compiled codec cannot write what it reads.
    pub schema_foreign: bool,
    /// The checked schema (`None` when the text in the page does not check).
    checked: Option<Checked>,
    /// The schema variant the bytes are read as.
    variant: Option<&'static str>,
    pub decoded: Option<Decoded>,
    /// Its tree is being read in the background (the page shows the bytes
    /// meanwhile).
    pub pending: bool,
    /// Coverage runs `(from, to, class)`.
    pub runs: Vec<(u64, u64, Class)>,
    /// The member names, for an archive.
    pub members: Vec<String>,
    /// Changed since opened (by an edit here or in a member).
    pub dirty: bool,
}

/// Every open document.
#[derive(Debug)]
pub struct Session {
    pub docs: Vec<Doc>,
    dicts: Dictionaries,
    deferring: bool,
    names: Arc<NameTable>,
    /// `--schema`: read every file with it.
    given: Option<(String, String)>,
}

/// A schema diagnostic for the page.
fn diagnostics_json(d: &codec_schema::Diagnostics) -> Json {
    Json::Array(
        d.items
            .iter()
            .map(|i| {
                json!({
                    "line": i.pos.line,
                    "col": i.pos.col,
                    "item": i.item,
                    "message": i.message,
                    "hint": i.hint,
                })
            })
            .collect(),
    )
}

impl Session {
    pub fn new(dicts: Dictionaries, names: NameTable, given: Option<(String, String)>) -> Session {
        Session {
            docs: Vec::new(),
            dicts,
            names: Arc::new(names),
            given,
            deferring: false,
        }
    }

    /// Files opened from now on are read in the background: see
    /// [`Session::pending`].
    pub fn defer(&mut self, on: bool) {
        self.deferring = on;
    }

    /// What the background reader needs for each document not read yet:
    /// its id, its schema and its bytes, and the names table.
    #[allow(clippy::type_complexity)]
    pub fn pending(&self) -> (Vec<(usize, Checked, Vec<u8>)>, Arc<NameTable>) {
        let work = self
            .docs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.pending)
            .filter_map(|(i, d)| Some((i, d.schema()?.clone(), d.data.clone())))
            .collect();
        (work, self.names.clone())
    }

    /// A tree read in the background, for document `id` (dropped when the
    /// document was read again meanwhile).
    pub fn finish(&mut self, id: usize, tree: (Decoded, Vec<(u64, u64, Class)>)) {
        if let Some(d) = self.docs.get_mut(id).filter(|d| d.pending) {
            d.pending = false;
            (d.decoded, d.runs) = (Some(tree.0), tree.1);
        }
    }

    /// Opens a file named on the command line.
    pub fn open_file(&mut self, path: &Path) -> Result<usize, String> {
        let meta = std::fs::symlink_metadata(path)
            .map_err(|e| format!("{}: {}", path.display(), formats::io_message(&e)))?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file", path.display()));
        }
        let raw = std::fs::read(path)
            .map_err(|e| format!("{}: {}", path.display(), formats::io_message(&e)))?;
        let (layers, data) =
            peel(&raw, &self.dicts).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut label = path.display().to_string();
        for l in &layers {
            label.push_str(&format!(" ▸ {l}"));
        }
        let origin = Origin::File {
            path: path.to_owned(),
            layers,
            opened: (raw.len() as u64, crc32fast::hash(&raw)),
        };
        Ok(self.add(label, origin, data))
    }

    /// Opens member `name` of the archive `parent` (once: again, the same
    /// document).
    pub fn open_member(&mut self, parent: usize, name: &str) -> Result<usize, String> {
        if let Some(i) = self.docs.iter().position(
            |d| matches!(&d.origin, Origin::Member { parent: p, name: n, .. } if *p == parent && n == name),
        ) {
            return Ok(i);
        }
        let p = self.docs.get(parent).ok_or("no such document")?;
        let (_, sarc) = formats::sarc::decode(&p.data).map_err(|e| e.to_string())?;
        let stored = sarc
            .get(name)
            .ok_or_else(|| format!("the archive has no member {name:?}"))?;
        let (layers, data) = peel(stored, &self.dicts).map_err(|e| format!("{name}: {e}"))?;
        let mut label = format!("{} ▸ sarc ▸ {name}", p.label);
        for l in &layers {
            label.push_str(&format!(" ▸ {l}"));
        }
        let origin = Origin::Member {
            parent,
            name: name.to_owned(),
            layers,
        };
        Ok(self.add(label, origin, data))
    }

    fn add(&mut self, label: String, origin: Origin, data: Vec<u8>) -> usize {
        let format = FORMATS.iter().find(|e| (e.detect)(&data).is_some());
        let (schema_text, schema_file, foreign) = match (&self.given, format) {
            (Some((text, file)), _) => (text.clone(), file.clone(), true),
            (None, Some(e)) => (e.schema_source.to_owned(), e.schema_file.to_owned(), false),
            (None, None) => (String::new(), String::new(), false),
        };
        let mut doc = Doc {
            label,
            origin,
            opened: data.clone(),
            data,
            format,
            schema_text,
            schema_file,
            schema_foreign: foreign,
            checked: None,
            variant: None,
            decoded: None,
            pending: false,
            runs: Vec::new(),
            members: Vec::new(),
            dirty: false,
        };
        let _ = doc.check_schema();
        if self.deferring && doc.checked.is_some() {
            doc.list_members();
            doc.pending = true;
        } else {
            doc.decode(&self.names);
        }
        self.docs.push(doc);
        self.docs.len() - 1
    }

    /// Replaces a document's schema with `text` (the page's editor) and
    /// decodes again; when it does not check, the checker's diagnostics,
    /// and the tree stays the one of the last schema that did.
    pub fn set_schema(&mut self, id: usize, text: &str) -> Result<(), Json> {
        let given = self.given.is_some();
        let doc = self.docs.get_mut(id).ok_or(Json::Null)?;
        doc.schema_text = text.to_owned();
        doc.check_schema()?;
        doc.schema_foreign = given || doc.format.is_none_or(|e| e.schema_source != text);
        doc.decode(&self.names);
        Ok(())
    }

    /// Changes the value at `at` (indices from the root; an element of a
    /// list of numbers is one more index) to `text`, and writes the
    /// document with its codec. The ranges of bytes that now differ from
    /// the bytes before.
    pub fn edit(&mut self, id: usize, at: &[usize], text: &str) -> Result<Vec<(u64, u64)>, String> {
        let doc = self.docs.get_mut(id).ok_or("no such document")?;
        if let Some(why) = doc.read_only() {
            return Err(why);
        }
        let entry = doc.format.ok_or("no codec writes this file")?;
        let decoded = doc.decoded.as_mut().ok_or("the file is not decoded")?;
        // The edit is made in the tree itself and undone if the writer
        // refuses it: a copy of the tree took half a second and as much
        // memory again on a 2 MB BYML (issue 70).
        let (node, el) = node_at(&mut decoded.root, at)?;
        let span = (node.offset, node.offset + node.size);
        let before = node.kind.clone();
        set_value(node, el, text)?;
        if node.kind == before {
            return Ok(Vec::new());
        }
        let wanted = decoded.root.to_value();
        let written = (|| {
            let bytes = (entry.from_value)(&doc.data, wanted.clone())?;
            if bytes == doc.data {
                // The field is a copy the writer derives (a string table's
                // entry, a pool's string): the document holds the value
                // elsewhere.
                return Err(
                    "the writer derives this from the fields that use it (a table or a pool): edit one of those"
                        .to_owned(),
                );
            }
            // What was written must read back as what was asked.
            let back = (entry.to_value)(&bytes)
                .map_err(|e| format!("the written file does not decode: {e}"))?;
            if let Some(d) = back.first_difference(&wanted) {
                return Err(format!("the writer did not keep the edit: {d}"));
            }
            Ok(bytes)
        })();
        drop(wanted);
        let bytes = match written {
            Ok(b) => b,
            Err(e) => {
                let (node, _) = node_at(&mut decoded.root, at)?;
                let path = node.path.clone();
                node.kind = before;
                return Err(if e.starts_with("the writer derives") {
                    format!("{path}: {e}")
                } else {
                    e
                });
            }
        };
        let changed = changed_ranges(&doc.data, &bytes);
        // A value rewritten in its own bytes (a number, a bool, a string of
        // the same length in place) leaves every other node where it was:
        // the tree already holds the edit. Anything else (a string table
        // laid out again, a shared value written apart) is read again.
        let in_place = bytes.len() == doc.data.len()
            && changed.iter().all(|&(a, b)| a >= span.0 && b <= span.1);
        doc.data = bytes;
        doc.dirty = true;
        if !in_place {
            doc.decode(&self.names);
        }
        self.put_back(id)?;
        Ok(changed)
    }

    /// An edited member goes back into its archive, and that archive into
    /// its own, up to the file named on the command line.
    fn put_back(&mut self, id: usize) -> Result<(), String> {
        let Origin::Member {
            parent,
            name,
            layers,
        } = &self.docs[id].origin
        else {
            return Ok(());
        };
        let (parent, name) = (*parent, name.clone());
        let stored = wrap(self.docs[id].data.clone(), layers, &self.dicts)?;
        let p = &mut self.docs[parent];
        let (variant, mut sarc) = formats::sarc::decode(&p.data).map_err(|e| e.to_string())?;
        let node = sarc
            .nodes
            .iter_mut()
            .find(|n| n.name.as_str() == name)
            .ok_or_else(|| format!("the archive lost its member {name:?}"))?;
        node.data.value = stored.into();
        p.data = formats::sarc::encode(&sarc, variant).map_err(|e| e.to_string())?;
        p.dirty = true;
        p.decode(&self.names);
        self.put_back(parent)
    }

    /// Has the file named on the command line that holds document `id`
    /// changed on disk since it was opened (another program wrote it)?
    /// Then the reason, for the page.
    pub fn changed_on_disk(&self, id: usize) -> Option<String> {
        let mut at = id;
        loop {
            let d = self.docs.get(at)?;
            match &d.origin {
                Origin::Member { parent, .. } => at = *parent,
                Origin::File { path, opened, .. } => {
                    let now = std::fs::read(path)
                        .map(|raw| (raw.len() as u64, crc32fast::hash(&raw)))
                        .ok();
                    return (now != Some(*opened)).then(|| {
                        format!(
                            "{} changed on disk since it was opened here: saving over it would lose \
                             that change; reopen it (run codec explore again) or save under another name",
                            path.display()
                        )
                    });
                }
            }
        }
    }

    /// The file that holds document `id` was saved over with `raw`: what
    /// is on disk now is what the page holds.
    pub fn saved_over_source(&mut self, id: usize, raw: &[u8]) {
        let mut at = id;
        while let Some(d) = self.docs.get_mut(at) {
            match &mut d.origin {
                Origin::Member { parent, .. } => at = *parent,
                Origin::File { opened, .. } => {
                    *opened = (raw.len() as u64, crc32fast::hash(raw));
                    return;
                }
            }
        }
    }

    /// The file named on the command line that holds document `id`, with
    /// its bytes as they would be saved (layers applied again).
    pub fn saved_bytes(&self, id: usize) -> Result<(PathBuf, Vec<u8>), String> {
        let mut at = id;
        loop {
            let d = self.docs.get(at).ok_or("no such document")?;
            match &d.origin {
                Origin::Member { parent, .. } => at = *parent,
                Origin::File { path, layers, .. } => {
                    return Ok((path.clone(), wrap(d.data.clone(), layers, &self.dicts)?));
                }
            }
        }
    }
}

impl Doc {
    /// Why edits are refused, if they are.
    pub fn read_only(&self) -> Option<String> {
        if self.pending {
            return Some("still reading the file".into());
        }
        if self.format.is_none() {
            return Some("read-only: no compiled codec writes this file".into());
        }
        if self.schema_foreign {
            return Some(
                "read-only: the schema is not the format's own, and only the compiled codec \
                 writes (the interpreter reads; its writer is not built yet)"
                    .into(),
            );
        }
        match &self.decoded {
            Some(d) if d.error.is_none() => None,
            _ => Some("read-only: the file does not decode in full".into()),
        }
    }

    /// Checks the schema text; the variant is the one the format detects,
    /// else the schema as it is. A text that does not check leaves the
    /// schema as it was.
    fn check_schema(&mut self) -> Result<(), Json> {
        if self.schema_text.is_empty() {
            return Ok(());
        }
        let c = codec_schema::parse_str(&self.schema_text, &self.schema_file)
            .map_err(|d| diagnostics_json(&d))?;
        self.variant = self.format.and_then(|e| (e.detect)(&self.data)).flatten();
        self.checked = Some(c);
        Ok(())
    }

    /// The schema the bytes are read with.
    fn schema(&self) -> Option<&Checked> {
        let c = self.checked.as_ref()?;
        Some(match self.variant {
            Some(v) => c.variant(v).unwrap_or(c),
            None => c,
        })
    }

    /// The names of an archive's members.
    fn list_members(&mut self) {
        self.members.clear();
        if formats::sarc::looks_like(&self.data) {
            if let Ok((_, sarc)) = formats::sarc::decode(&self.data) {
                self.members = sarc.nodes.iter().map(|n| n.name.to_string()).collect();
            }
        }
    }

    /// Decodes the bytes again (tree, coverage, members).
    fn decode(&mut self, names: &NameTable) {
        self.pending = false;
        self.decoded = None;
        self.runs.clear();
        self.list_members();
        let Some(c) = self.schema() else {
            return;
        };
        let (d, runs) = read_tree(c, &self.data, names);
        self.decoded = Some(d);
        self.runs = runs;
    }

    /// The schema's name and the decode error, for the page.
    pub fn summary(&self, id: usize) -> Json {
        let (error, root) = match &self.decoded {
            _ if self.pending => (None, None),
            Some(d) => (
                d.error.as_ref().map(|e| e.to_string()),
                Some(node_json(&d.root, "", None)),
            ),
            None => (Some("no schema reads this file".to_owned()), None),
        };
        let runs: Vec<u64> = self
            .runs
            .iter()
            .flat_map(|&(a, b, c)| {
                let c = match c {
                    Class::Known => 0,
                    Class::Unknown => 1,
                    Class::Padding => 2,
                    Class::Unexplained => 3,
                };
                [a, b, c]
            })
            .collect();
        let parent = match &self.origin {
            Origin::Member { parent, .. } => Some(*parent),
            Origin::File { .. } => None,
        };
        let changed = changed_ranges(&self.opened, &self.data);
        json!({
            "id": id,
            "label": self.label,
            "size": self.data.len(),
            "format": self.format.map(|e| e.name),
            "schema_file": self.schema_file,
            "schema_foreign": self.schema_foreign,
            "read_only": self.read_only(),
            "error": error,
            "runs": runs,
            "members": self.members,
            "parent": parent,
            "dirty": self.dirty,
            "pending": self.pending,
            "changed": changed,
            "root": root,
        })
    }

    /// The node at `at` (indices from the root), and the element index when
    /// `at` ends inside a list of numbers.
    pub fn node(&self, at: &[usize]) -> Option<(&Node, Option<usize>)> {
        let mut n = &self.decoded.as_ref()?.root;
        for (k, &i) in at.iter().enumerate() {
            match &n.kind {
                Kind::Numbers { .. } | Kind::Octets { .. } if k + 1 == at.len() => {
                    return (i < element_count(n)).then_some((n, Some(i)));
                }
                _ => n = n.children.get(i)?,
            }
        }
        Some((n, None))
    }

    /// The children of the node at `at`, for the tree (elements of a list
    /// of numbers as children of their own).
    pub fn children(&self, at: &[usize]) -> Option<Json> {
        let (n, el) = self.node(at)?;
        if el.is_some() {
            return Some(Json::Array(Vec::new()));
        }
        let prefix = at
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(".");
        let key = |i: usize| {
            if prefix.is_empty() {
                i.to_string()
            } else {
                format!("{prefix}.{i}")
            }
        };
        let root = &self.decoded.as_ref()?.root;
        let doc = document::path(root, at);
        let out = match &n.kind {
            Kind::Numbers { .. } | Kind::Octets { .. } => (0..element_count(n))
                .map(|i| {
                    let mut j = node_json(n, &key(i), Some(i));
                    j["docpath"] = json!(format!("{doc}[{i}]"));
                    j
                })
                .collect(),
            _ => n
                .children
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut j = node_json(c, &key(i), None);
                    let mut below = doc.clone();
                    document::extend(&mut below, &document::step(n, i));
                    j["docpath"] = json!(below);
                    j
                })
                .collect(),
        };
        Some(Json::Array(out))
    }

    /// The innermost field that owns byte `offset`: the chain of keys from
    /// the root's child down to it.
    pub fn owner_of(&self, offset: u64) -> Option<Vec<String>> {
        fn go(n: &Node, offset: u64, at: &mut Vec<usize>, best: &mut Option<(Vec<usize>, u64)>) {
            let leaf = !matches!(
                n.kind,
                Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::BitRange { .. }
            );
            let inside = offset >= n.offset && offset < n.offset + n.size;
            if inside && (leaf || best.is_none()) {
                let mut path = at.clone();
                if let Kind::Numbers { .. } | Kind::Octets { .. } = n.kind {
                    if let Some(i) = (offset - n.offset).checked_div(element_width(n)) {
                        path.push(i as usize);
                    }
                }
                // The innermost: a leaf wins over a record; the smallest wins.
                let better = match best {
                    None => true,
                    Some((_, size)) => leaf && n.size <= *size,
                };
                if better {
                    *best = Some((path, n.size));
                }
            }
            for (i, c) in n.children.iter().enumerate() {
                at.push(i);
                go(c, offset, at, best);
                at.pop();
            }
        }
        let root = &self.decoded.as_ref()?.root;
        let mut best = None;
        go(root, offset, &mut Vec::new(), &mut best);
        let (path, _) = best?;
        Some(
            (1..=path.len())
                .map(|k| {
                    path[..k]
                        .iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .collect(),
        )
    }

    /// The document's entries under the node at `at` (the root for an
    /// empty `at`), as the text form shows them: each with its segment, its
    /// document path, its value and the key of the node that holds it (for
    /// the structure tree and the bytes).
    pub fn document(&self, at: &[usize]) -> Option<Json> {
        let root = &self.decoded.as_ref()?.root;
        let (n, None) = self.node(at)? else {
            return Some(Json::Array(Vec::new()));
        };
        let out = document::entries(n)
            .into_iter()
            .map(|e| {
                let mut full = at.to_vec();
                full.extend(&e.at);
                let node = self.node(&full).map(|(n, _)| n).unwrap_or(n);
                document_json(root, node, &full, &e.segment)
            })
            .collect();
        Some(Json::Array(out))
    }

    /// The keys of the document entries from the root down to the one that
    /// holds the node at `at` (the page opens the document along them).
    pub fn document_chain(&self, at: &[usize]) -> Vec<String> {
        let Some(root) = self.decoded.as_ref().map(|d| &d.root) else {
            return Vec::new();
        };
        let mut chain = Vec::new();
        let (mut n, mut here) = (root, Vec::new());
        'down: loop {
            for e in document::entries(n) {
                let mut full = here.clone();
                full.extend(&e.at);
                if at.starts_with(&full) {
                    chain.push(key_of(&full));
                    let Some(next) = self
                        .node(&full)
                        .and_then(|(m, el)| el.is_none().then_some(m))
                    else {
                        break 'down;
                    };
                    n = next;
                    here = full;
                    continue 'down;
                }
            }
            break;
        }
        chain
    }

    /// Fields whose name, path, document path or value holds `q` (any
    /// case), at most `limit`; one hit a document entry (a key found gives
    /// the entry, its value's bytes).
    pub fn search(&self, q: &str, limit: usize) -> Json {
        struct Walk<'a> {
            q: String,
            limit: usize,
            out: Vec<Json>,
            seen: std::collections::HashSet<String>,
            root: &'a Node,
        }
        impl<'a> Walk<'a> {
            fn hit(&mut self, n: &Node, at: &[usize], doc: &str, el: Option<usize>) {
                if self.out.len() >= self.limit || !self.seen.insert(doc.to_owned()) {
                    return;
                }
                // A record found by its name: the entry's value is shown.
                let (shown, down) = match el {
                    Some(_) => (n, Vec::new()),
                    None => document::settle(n),
                };
                let mut full = at.to_vec();
                full.extend(down);
                let mut j = document_json(self.root, shown, &full, "");
                if let Some(i) = el {
                    j["key"] = json!(format!("{}.{i}", key_of(at)));
                    j["value"] = json!(value_text(n, Some(i)));
                    j["offset"] = json!(n.offset + element_width(n) * i as u64);
                    j["size"] = json!(element_width(n));
                    j["path"] = json!(format!("{}[{i}]", n.path));
                }
                j["docpath"] = json!(doc);
                self.out.push(j);
            }

            fn go(&mut self, n: &Node, at: &mut Vec<usize>, doc: &str, parent_doc: &str) {
                if self.out.len() >= self.limit {
                    return;
                }
                // A record's folded-row summary is its naming field's value:
                // that field is the hit, not the record too.
                let value = match n.kind {
                    Kind::Record { .. } => None,
                    _ => value_text(n, None),
                };
                let q = self.q.clone();
                let q = q.as_str();
                let has = |s: &str| s.to_lowercase().contains(q);
                // A document path matches where it starts to (not again on
                // each node below).
                let hit = has(&n.path) && !at.is_empty()
                    || value.as_deref().is_some_and(has)
                    || has(&n.note)
                    || has(doc) && !has(parent_doc);
                if hit && !at.is_empty() {
                    // A naming field stands for its record.
                    let record = &at[..at.len() - 1];
                    let is_name = self.node_at(record).is_some_and(|r| {
                        document::step(r, at[at.len() - 1]) == document::Step::Name
                    });
                    match is_name {
                        true => {
                            let r = self.node_at(record).unwrap();
                            self.hit(r, record, doc, None)
                        }
                        false => self.hit(n, at, doc, None),
                    }
                }
                // The elements of a list of numbers, by value.
                if let Kind::Numbers { .. } | Kind::Octets { .. } = n.kind {
                    for i in 0..element_count(n) {
                        let v = value_text(n, Some(i)).unwrap_or_default();
                        if v.to_lowercase().contains(q) {
                            self.hit(n, at, &format!("{doc}[{i}]"), Some(i));
                        }
                    }
                }
                for (i, c) in n.children.iter().enumerate() {
                    let mut below = doc.to_owned();
                    document::extend(&mut below, &document::step(n, i));
                    at.push(i);
                    self.go(c, at, &below, doc);
                    at.pop();
                }
            }

            fn node_at(&self, at: &[usize]) -> Option<&'a Node> {
                let mut n = self.root;
                for &i in at {
                    n = n.children.get(i)?;
                }
                Some(n)
            }
        }
        let Some(d) = &self.decoded else {
            return Json::Array(Vec::new());
        };
        let q = q.to_lowercase();
        if q.is_empty() {
            return Json::Array(Vec::new());
        }
        let mut w = Walk {
            q,
            limit,
            out: Vec::new(),
            seen: Default::default(),
            root: &d.root,
        };
        w.go(&d.root, &mut Vec::new(), "", "");
        Json::Array(w.out)
    }
}

/// `0.3.1`: the page's key of the node at `at`.
fn key_of(at: &[usize]) -> String {
    at.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// A document entry for the page: its segment and path in the document,
/// and the node that holds it (key, bytes, value, how it is edited).
fn document_json(root: &Node, n: &Node, at: &[usize], segment: &str) -> Json {
    let kids = document::entries(n).len();
    let value = match n.kind {
        // A record's entries are its document; its folded row says its name.
        Kind::Record { .. } | Kind::Seq => None,
        // A short list of numbers as the text writes it (a vector, a colour).
        Kind::Numbers { .. } if element_count(n) <= 16 => Some(format!(
            "[{}]",
            (0..element_count(n))
                .filter_map(|i| value_text(n, Some(i)))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => value_text(n, None),
    };
    json!({
        "key": key_of(at),
        "segment": segment,
        "docpath": document::path(root, at),
        "doc": n.doc,
        "path": n.path,
        "offset": n.offset,
        "size": n.size,
        "type": n.ty,
        "value": value,
        "kids": kids,
        "edit": edit_kind(n, None),
        "raw": raw_text(n, None),
    })
}

fn element_count(n: &Node) -> usize {
    match &n.kind {
        Kind::Numbers { values } => values.len(),
        Kind::Octets { values } => values.len(),
        _ => 0,
    }
}

fn element_width(n: &Node) -> u64 {
    match element_count(n) {
        0 => 0,
        c => n.size / c as u64,
    }
}

/// The interpreter's tree of `data` with the research tools' notes, and
/// its coverage runs.
pub fn read_tree(c: &Checked, data: &[u8], names: &NameTable) -> (Decoded, Vec<(u64, u64, Class)>) {
    // Each variant in turn, as `check` reads a file.
    let (c, mut d) = interp::decode_variants(
        c,
        data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    formats::research::annotate(&c.schema.name, &mut d.root, names, data);
    let runs = coverage::runs(c, &d.root, data);
    (d, runs)
}

/// A node (or an element of a list of numbers) as the tree shows it.
fn node_json(n: &Node, key: &str, el: Option<usize>) -> Json {
    if let Some(i) = el {
        let w = element_width(n);
        return json!({
            "key": key,
            "name": format!("[{i}]"),
            "path": format!("{}[{i}]", n.path),
            "offset": n.offset + w * i as u64,
            "size": w,
            "type": n.ty,
            "value": value_text(n, Some(i)),
            "unknown": n.unknown,
            "doc": n.doc,
            "kids": 0,
            "edit": edit_kind(n, Some(i)),
            "raw": raw_text(n, Some(i)),
        });
    }
    let kids = match &n.kind {
        Kind::Numbers { .. } | Kind::Octets { .. } => element_count(n),
        _ => n.children.len(),
    };
    json!({
        "key": key,
        "name": n.name,
        "path": n.path,
        "offset": n.offset,
        "size": n.size,
        "type": n.ty,
        "value": value_text(n, None),
        "note": n.note,
        "unknown": n.unknown,
        "doc": n.doc,
        "kids": kids,
        "edit": edit_kind(n, None),
        "raw": raw_text(n, None),
    })
}

/// The value as the tree prints it, for a node that has one.
fn value_text(n: &Node, el: Option<usize>) -> Option<String> {
    Some(match (&n.kind, el) {
        (Kind::Numbers { values }, Some(i)) => plain(values.get(i)?),
        (Kind::Octets { values }, Some(i)) => values.get(i)?.to_string(),
        (Kind::Numbers { values }, None) => format!("[{} numbers]", values.len()),
        (Kind::Octets { values }, None) => format!("[{} bytes]", values.len()),
        (Kind::Number { value } | Kind::BitRange { value, .. }, _) => plain(value),
        (Kind::Fixed { value, frac }, _) => format!("{} (/2^{frac})", plain(value)),
        (Kind::Str { value, .. }, _) => format!("{value:?}"),
        // ASCII where it reads as text (`"SARC"`), else its bytes (`FF FE`).
        (Kind::Magic { text }, _) => codec_schema::magic_label(text),
        (Kind::Bytes { bytes }, _) => format!("[{} bytes]", bytes.len()),
        (Kind::Bits { word, .. }, _) => format!("0x{word:x}"),
        (Kind::Offset { raw, target, .. }, _) => match target {
            Some(t) => format!("{raw} → 0x{t:x}"),
            None => format!("{raw} → outside the file"),
        },
        (Kind::Derived { raw, meaning }, _) => format!("{raw} ({meaning})"),
        (Kind::Variant { variant, tag, .. }, _) => format!("{variant} (tag {tag})"),
        (Kind::Record { .. }, _) => return record_key(n),
        (Kind::Seq, _) => return None,
    })
}

/// A record's naming field and its value, shown on its folded row
/// (`Entry[30]  key = "Fovy"`) so that a list of records reads without
/// opening each: the field and the name the document view gives it
/// ([`document::naming_field`], [`document::key_text`]: the string it is
/// or leads to, the name a tool knows for its hash, else its number).
fn record_key(n: &Node) -> Option<String> {
    let child = &n.children[document::naming_field(n)?];
    let text = document::key_text(child)?;
    let bare_number = matches!(child.kind, Kind::Number { .. })
        && child.note.is_empty()
        && !child
            .children
            .iter()
            .any(|c| matches!(c.kind, Kind::Str { .. }));
    Some(match bare_number {
        true => format!("{} = {text}", child.name),
        false => format!("{} = {text:?}", child.name),
    })
}

/// An editable value as one types it (a string without quotes).
fn raw_text(n: &Node, el: Option<usize>) -> Option<String> {
    edit_kind(n, el)?;
    match (&n.kind, el) {
        (Kind::Str { value, .. }, _) => Some(value.clone()),
        (Kind::Fixed { value, .. }, _) => Some(plain(value)),
        _ => value_text(n, el),
    }
}

/// What an edit of this node types: `number`, `bool`, `string`, or none.
fn edit_kind(n: &Node, el: Option<usize>) -> Option<&'static str> {
    let scalar = |v: &Value| match v {
        Value::Bool(_) => Some("bool"),
        Value::Str(_) => Some("string"),
        Value::Unit | Value::Bytes(_) | Value::Option(_) | Value::Seq(_) | Value::Map(_) => None,
        Value::Struct { .. } | Value::Variant { .. } | Value::Char(_) => None,
        _ => Some("number"),
    };
    match (&n.kind, el) {
        (Kind::Numbers { values }, Some(i)) => values.get(i).and_then(scalar),
        (Kind::Octets { .. }, Some(_)) => Some("number"),
        (
            Kind::Number { value } | Kind::BitRange { value, .. } | Kind::Fixed { value, .. },
            None,
        ) => scalar(value),
        (Kind::Str { .. }, None) => Some("string"),
        _ => None,
    }
}

/// `text` as a value of the same type as `old`.
fn parse_like(old: &Value, text: &str) -> Result<Value, String> {
    let t = text.trim();
    fn int<T: TryFrom<i128>>(t: &str, ty: &str) -> Result<T, String> {
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t),
        };
        // One sign at most: `--5` is no number (it read as 5).
        if digits.starts_with(['-', '+']) {
            return Err(format!("{t:?} is not a whole number (a {ty})"));
        }
        let n = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(h) => i128::from_str_radix(h, 16),
            None => digits.parse::<i128>(),
        }
        .map_err(|_| format!("{t:?} is not a whole number (a {ty})"))?;
        let n = if neg { -n } else { n };
        T::try_from(n).map_err(|_| format!("{t} does not fit a {ty}"))
    }
    Ok(match old {
        Value::U8(_) => Value::U8(int(t, "u8")?),
        Value::U16(_) => Value::U16(int(t, "u16")?),
        Value::U32(_) => Value::U32(int(t, "u32")?),
        Value::U64(_) => Value::U64(int(t, "u64")?),
        Value::I8(_) => Value::I8(int(t, "i8")?),
        Value::I16(_) => Value::I16(int(t, "i16")?),
        Value::I32(_) => Value::I32(int(t, "i32")?),
        Value::I64(_) => Value::I64(int(t, "i64")?),
        Value::F32(_) => Value::F32(
            t.parse()
                .map_err(|_| format!("{t:?} is not a number (an f32)"))?,
        ),
        Value::F64(_) => Value::F64(
            t.parse()
                .map_err(|_| format!("{t:?} is not a number (an f64)"))?,
        ),
        Value::Bool(_) => Value::Bool(match t {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(format!("{t:?} is not true or false")),
        }),
        Value::Str(_) => Value::Str(text.to_owned()),
        other => return Err(format!("a {} cannot be edited here", other.short())),
    })
}

/// The node at `at` in the tree, and the element of a list of numbers
/// when `at` ends inside one.
fn node_at<'n>(root: &'n mut Node, at: &[usize]) -> Result<(&'n mut Node, Option<usize>), String> {
    let mut n = root;
    for (k, &i) in at.iter().enumerate() {
        if matches!(n.kind, Kind::Numbers { .. } | Kind::Octets { .. }) && k + 1 == at.len() {
            return Ok((n, Some(i)));
        }
        n = n.children.get_mut(i).ok_or("no field there")?;
    }
    Ok((n, None))
}

/// Sets the value of node `n` (element `el` of a list of numbers) to `text`.
fn set_value(n: &mut Node, el: Option<usize>, text: &str) -> Result<(), String> {
    let path = n.path.clone();
    let fail = |e: String| format!("{path}: {e}");
    match (&mut n.kind, el) {
        (Kind::Numbers { values }, Some(i)) => {
            let v = values.get_mut(i).ok_or("no element there")?;
            *v = parse_like(v, text).map_err(fail)?;
        }
        (Kind::Octets { values }, Some(i)) => {
            let v = values.get_mut(i).ok_or("no element there")?;
            if let Value::U8(x) = parse_like(&Value::U8(*v), text).map_err(fail)? {
                *v = x;
            }
        }
        (
            Kind::Number { value } | Kind::BitRange { value, .. } | Kind::Fixed { value, .. },
            None,
        ) => {
            *value = parse_like(value, text).map_err(fail)?;
        }
        (Kind::Str { value, .. }, None) => *value = text.to_owned(),
        (Kind::Derived { meaning, .. }, _) => {
            return Err(fail(format!(
                "computed on encode ({meaning}): edit what it counts"
            )))
        }
        _ => {
            return Err(fail(
                "only numbers, bools and strings are edited here".into(),
            ))
        }
    }
    Ok(())
}

/// Runs of positions where `a` and `b` differ (a length change counts as
/// a change of the tail).
pub fn changed_ranges(a: &[u8], b: &[u8]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let n = a.len().max(b.len());
    let mut i = 0;
    while i < n {
        if a.get(i) == b.get(i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && a.get(i) != b.get(i) {
            i += 1;
        }
        out.push((start as u64, i as u64));
        if out.len() > 4096 {
            out.push((i as u64, n as u64));
            break;
        }
    }
    out
}
