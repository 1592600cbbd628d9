//! What the research tools (`codec dump`, `codec survey`) add to the
//! interpreter from knowledge a schema cannot hold: the name an AAMP CRC32
//! stands for (from the name lists), the column each legacy BDAT cell
//! belongs to, and the string hashes the formats' glue computes.

use crate::aamp::names::{NameTable, Namer};
use crate::aamp::ROOT_NAME;
use codec_interp::survey::{StringHash, CRC32};
use codec_interp::{Kind, Node, Value};

/// The string hashes `codec survey` tries on every string of a file: CRC32
/// and the formats' own (the legacy BDAT column-name hash, before its
/// modulo).
pub fn string_hashes() -> Vec<StringHash> {
    vec![
        CRC32,
        StringHash {
            name: "bdat name",
            hash: crate::bdat::glue::name_hash,
        },
    ]
}

/// Notes on `root`, the tree of `data` read with the schema named `schema`.
pub fn annotate(schema: &str, root: &mut Node, names: &NameTable, data: &[u8]) {
    match schema {
        "aamp" => aamp_names(root, names, data),
        "bdat_legacy" => bdat_columns(root),
        _ => {}
    }
}

/// Each `name` hash of a list, object or parameter gets the name the text
/// form gives it: the same [`Namer`] as `to-text` (the names table, the
/// document's own strings, guesses from the parent's name and numbered
/// patterns), asked in the text form's order. A file the typed codec does
/// not read (a damaged one, or one read with an edited schema) gets the
/// table's names alone.
fn aamp_names(root: &mut Node, names: &NameTable, data: &[u8]) {
    match crate::aamp::decode(data) {
        Ok(pio) => {
            let mut namer = Namer::new(names, &pio);
            // The root list: the text form's `param_root`.
            for list in records_under(root, None) {
                set_note(list, |hash| {
                    (hash == ROOT_NAME.0).then(|| "param_root".to_owned())
                });
                aamp_list(list, &mut namer);
            }
        }
        Err(_) => table_names(root, names),
    }
}

/// The hashes of a list's objects, their parameters, then its lists, as the
/// text form writes them (its order matters: the namer's guesses follow
/// it).
fn aamp_list(list: &mut Node, namer: &mut Namer<'_>) {
    let parent = name_hash(list);
    for (i, object) in records_under(list, Some("objects")).into_iter().enumerate() {
        set_note(object, |hash| {
            namer.name(hash, i, parent).map(str::to_owned)
        });
        let own = name_hash(object);
        for (j, param) in records_under(object, Some("params"))
            .into_iter()
            .enumerate()
        {
            set_note(param, |hash| namer.name(hash, j, own).map(str::to_owned));
        }
    }
    for (i, child) in records_under(list, Some("lists")).into_iter().enumerate() {
        set_note(child, |hash| namer.name(hash, i, parent).map(str::to_owned));
        aamp_list(child, namer);
    }
}

/// The records below `n`'s field `field` (through its offset and list), or
/// below `n` itself: the records nearest down each branch.
fn records_under<'n>(n: &'n mut Node, field: Option<&str>) -> Vec<&'n mut Node> {
    fn gather<'n>(n: &'n mut Node, out: &mut Vec<&'n mut Node>) {
        if let Kind::Record { .. } = n.kind {
            out.push(n);
            return;
        }
        for c in &mut n.children {
            gather(c, out);
        }
    }
    let mut out = Vec::new();
    match field {
        None => {
            for c in &mut n.children {
                if c.name == "root" {
                    for t in &mut c.children {
                        gather(t, &mut out);
                    }
                }
            }
        }
        Some(f) => {
            for c in &mut n.children {
                if c.name == f {
                    for t in &mut c.children {
                        gather(t, &mut out);
                    }
                }
            }
        }
    }
    out
}

/// The `name` hash of a list, object or parameter record.
fn name_hash(record: &Node) -> u32 {
    record
        .children
        .iter()
        .find(|c| c.name == "name")
        .and_then(|c| match c.kind {
            Kind::Number {
                value: Value::U32(hash),
            } => Some(hash),
            _ => None,
        })
        .unwrap_or(0)
}

/// Notes the record's `name` with the name `of` gives its hash.
fn set_note(record: &mut Node, of: impl FnOnce(u32) -> Option<String>) {
    let hash = name_hash(record);
    if let Some(field) = record.children.iter_mut().find(|c| c.name == "name") {
        if let Some(name) = of(hash) {
            field.note = format!("{name:?}");
        }
    }
}

/// Each `name` hash gets the name the table knows for it.
fn table_names(node: &mut Node, names: &NameTable) {
    if node.name == "name" {
        if let Kind::Number {
            value: Value::U32(hash),
        } = node.kind
        {
            if let Some(name) = names.get(hash) {
                node.note = format!("{name:?}");
            }
        }
    }
    for child in &mut node.children {
        table_names(child, names);
    }
}

/// In every table, each cell of a row gets its column's name (a list
/// column's cells `name[i]`).
fn bdat_columns(node: &mut Node) {
    // A table is the node whose fields include its rows (the unit's fields
    // stand under the offset that leads to it).
    if node.children.iter().any(|c| c.name == "rows") {
        let mut labels = Vec::new();
        column_labels(node, &mut labels);
        label_cells(node, &labels);
        return;
    }
    for child in &mut node.children {
        bdat_columns(child);
    }
}

/// The labels of the cells of a row, in column order.
fn column_labels(node: &Node, labels: &mut Vec<String>) {
    if matches!(&node.kind, Kind::Record { type_name, .. } if type_name == "Column") {
        // The name: the string behind the `name` offset (or inline).
        let name = node
            .children
            .iter()
            .find(|c| c.name == "name")
            .and_then(|n| find(n, &|s| matches!(s.kind, Kind::Str { .. })))
            .and_then(|n| match &n.kind {
                Kind::Str { value, .. } => Some(value.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let variant =
            find(node, &|n| matches!(n.kind, Kind::Variant { .. })).and_then(|n| match &n.kind {
                Kind::Variant { variant, .. } => Some((variant.clone(), n)),
                _ => None,
            });
        match variant {
            Some((v, _)) if v == "Value" => labels.push(name),
            Some((v, info)) if v == "List" => {
                let count = find(info, &|c| c.name == "count")
                    .and_then(|c| match &c.kind {
                        Kind::Number {
                            value: Value::U16(n),
                        } => Some(u64::from(*n)),
                        Kind::Number {
                            value: Value::U8(n),
                        } => Some(u64::from(*n)),
                        Kind::Number {
                            value: Value::U32(n),
                        } => Some(u64::from(*n)),
                        _ => None,
                    })
                    .unwrap_or(0);
                labels.extend((0..count).map(|i| format!("{name}[{i}]")));
            }
            _ => {}
        }
        return;
    }
    for child in &node.children {
        column_labels(child, labels);
    }
}

/// Sets the label of each cell of each row under `node`.
fn label_cells(node: &mut Node, labels: &[String]) {
    if &*node.ty == "row" {
        for (cell, label) in node.children.iter_mut().zip(labels) {
            cell.note = format!("column {label}");
            // A number cell is shown as its value alone.
            if let [only] = cell.children.as_mut_slice() {
                if matches!(only.kind, Kind::Number { .. } | Kind::Fixed { .. }) {
                    only.note = format!("column {label}");
                }
            }
        }
        return;
    }
    for child in &mut node.children {
        label_cells(child, labels);
    }
}

/// The first node below `node` (itself included) that `pred` accepts.
fn find<'a>(node: &'a Node, pred: &dyn Fn(&Node) -> bool) -> Option<&'a Node> {
    if pred(node) {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, pred))
}

/// Keeps only the parts of the tree whose path starts with `prefix` (and
/// the records that lead to them), so that one table of a large file can
/// be dumped: `File.tables[3]`, or a table's name. Returns whether
/// anything was kept.
pub fn filter(node: &mut Node, prefix: &str) -> bool {
    if node.path.starts_with(prefix) {
        return true;
    }
    node.children.retain_mut(|c| filter(c, prefix));
    !node.children.is_empty()
}
