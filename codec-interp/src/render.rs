//! Text forms of a decoded tree and of its coverage, as `codec dump` and
//! `codec coverage` print them.

use super::coverage::{Coverage, Gap};
use super::{Kind, Node, Value};
use std::fmt::Write;

/// Options of [`dump`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DumpOptions {
    /// Show the bytes of each field beside it.
    pub hex: bool,
    /// One line per field with its full path instead of an indented name.
    pub flat: bool,
    /// Each field's doc line from the schema after its value (`# …`).
    pub doc: bool,
}

/// How many bytes the hex column shows before `…`.
const HEX_BYTES: usize = 16;
/// How many numbers of an array are shown before `…`.
const MAX_NUMBERS: usize = 16;
/// Widest name and type columns (longer entries push the line).
const MAX_NAME: usize = 44;
const MAX_TYPE: usize = 36;

/// The line `codec dump` prints above the table.
pub fn dump_header(file: &str, len: usize, schema_file: &str, schema_name: &str) -> String {
    format!("# {file}: {len} bytes, schema {schema_file} ({schema_name})")
}

struct Row<'a> {
    depth: usize,
    /// The node whose offset, size, bytes, type and value the line shows.
    node: &'a Node,
    name: String,
    /// The doc line of the field (or variant) the line shows.
    doc: &'a str,
}

/// The annotated dump: a column header, then one line per field: offset,
/// size, (hex bytes,) the field's name indented by depth (or its path), its
/// type and its value.
///
/// The tree is shown a little flatter than [`Node`] holds it: the record or
/// list an offset leads to is not a line of its own (its fields or elements
/// follow the offset's line, one level deeper), and a union payload that is
/// a single value shares one line with its variant (`::F32`).
pub fn dump(root: &Node, data: &[u8], opts: DumpOptions) -> String {
    let mut out = Vec::new();
    dump_to(root, data, opts, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the dump is UTF-8")
}

/// [`dump`], written to `out` line by line: the tree is walked twice (once
/// for the columns' widths), and no line is kept, so the dump of a file
/// takes no more memory than its tree.
pub fn dump_to(
    root: &Node,
    data: &[u8],
    opts: DumpOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let label = |r: &Row<'_>| -> String {
        if opts.flat {
            r.node.path.clone()
        } else {
            format!("{:indent$}{}", "", r.name, indent = r.depth * 2)
        }
    };
    let (mut name_w, mut type_w) = (0, 0);
    visit(root, 0, false, &mut |r| {
        name_w = name_w.max(label(&r).chars().count());
        type_w = type_w.max(r.node.ty.chars().count());
    });
    let (name_w, type_w) = (name_w.min(MAX_NAME), type_w.min(MAX_TYPE));
    let hex_w = HEX_BYTES * 3 + 1;
    let mut head = String::new();
    let _ = write!(head, "{:<8}  {:>6}  ", "offset", "size");
    if opts.hex {
        let _ = write!(head, "{:<hex_w$}  ", "bytes");
    }
    let _ = writeln!(head, "{:<name_w$}  {:<type_w$}  value", "field", "type");
    out.write_all(head.as_bytes())?;
    let mut result = Ok(());
    let mut line = String::new();
    visit(root, 0, false, &mut |r| {
        if result.is_err() {
            return;
        }
        let n = r.node;
        line.clear();
        let _ = write!(line, "{:#08x}  {:>6}  ", n.offset, n.size);
        if opts.hex {
            let _ = write!(line, "{:<hex_w$}  ", hex_column(n, data));
        }
        let _ = write!(
            line,
            "{:<name_w$}  {:<type_w$}  {}",
            label(&r),
            n.ty,
            value_text(n)
        );
        let trimmed = line.trim_end().len();
        line.truncate(trimmed);
        if opts.doc && !r.doc.is_empty() {
            let _ = write!(line, "  # {}", r.doc.replace('\n', " "));
            let trimmed = line.trim_end().len();
            line.truncate(trimmed);
        }
        line.push('\n');
        result = out.write_all(line.as_bytes());
    });
    result
}

fn is_leaf(n: &Node) -> bool {
    !matches!(
        n.kind,
        Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::Offset { .. }
    )
}

/// Calls `f` with each line's row, in order.
fn visit<'a>(n: &'a Node, depth: usize, target: bool, f: &mut dyn FnMut(Row<'a>)) {
    // The record or list an offset leads to: its fields or elements follow.
    if target && matches!(n.kind, Kind::Record { .. } | Kind::Seq) {
        for c in &n.children {
            visit(c, depth, false, f);
        }
        return;
    }
    if let Kind::Variant { .. } = n.kind {
        if let [only] = n.children.as_slice() {
            if is_leaf(only) {
                f(Row {
                    depth,
                    node: only,
                    name: format!("::{}", n.name),
                    doc: &n.doc,
                });
                return;
            }
        }
    }
    let name = match n.kind {
        Kind::Variant { .. } => format!("::{}", n.name),
        _ if target => format!("→ {}", n.name),
        _ => n.name.to_string(),
    };
    f(Row {
        depth,
        node: n,
        name,
        doc: &n.doc,
    });
    let offset = matches!(n.kind, Kind::Offset { .. });
    for c in &n.children {
        // A count stored beside the target is not the target.
        let t = (offset || matches!(n.kind, Kind::Variant { .. })) && !is_count(c);
        visit(c, depth + 1, t, f);
    }
}

fn is_count(n: &Node) -> bool {
    matches!(n.kind, Kind::Derived { .. }) && n.name == "count"
}

fn hex_column(n: &Node, data: &[u8]) -> String {
    let leaf = !matches!(
        n.kind,
        Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::BitRange { .. }
    );
    if !leaf || n.size == 0 {
        return String::new();
    }
    let start = (n.offset as usize).min(data.len());
    let end = (n.offset.saturating_add(n.size) as usize).min(data.len());
    let shown = &data[start..end.min(start + HEX_BYTES)];
    let mut s = hex(shown);
    if end - start > HEX_BYTES {
        s.push_str(" …");
    }
    s
}

/// Bytes as `41 41 4d 50`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The value column of one node.
pub fn value_text(n: &Node) -> String {
    let mut s = match &n.kind {
        Kind::Record { .. } => String::new(),
        Kind::Seq => format!(
            "{} element(s)",
            n.children.iter().filter(|c| c.is_stored()).count()
        ),
        Kind::Numbers { values } => numbers(values),
        Kind::Octets { values } => numbers_of(values.iter().map(|&b| Value::U8(b)), values.len()),
        Kind::Number { value } | Kind::BitRange { value, .. } => value.to_string(),
        Kind::Fixed { value, frac } => {
            let raw = match value {
                Value::U8(v) => f64::from(*v),
                Value::U16(v) => f64::from(*v),
                Value::U32(v) => f64::from(*v),
                Value::U64(v) => *v as f64,
                Value::I8(v) => f64::from(*v),
                Value::I16(v) => f64::from(*v),
                Value::I32(v) => f64::from(*v),
                Value::I64(v) => *v as f64,
                _ => f64::NAN,
            };
            format!("{value} = {:?}", raw / 2f64.powi(*frac as i32))
        }
        Kind::Magic { text } => codec_schema::magic_label(text),
        Kind::Bytes { bytes } => {
            let mut s = hex(&bytes[..bytes.len().min(32)]);
            if bytes.len() > 32 {
                s.push_str(" …");
            }
            s
        }
        Kind::Str { value, pad } => {
            if *pad > 0 {
                format!("{value:?} (+{pad} padding)")
            } else {
                format!("{value:?}")
            }
        }
        Kind::Bits { word, .. } => format!("0x{word:x}"),
        Kind::Offset { raw, target, kept } => {
            let mut s = match (target, kept) {
                (Some(t), Some(a)) => format!("{} → 0x{t:x}, aligned {a}", Value::U64(*raw)),
                (Some(t), None) => format!("{} → 0x{t:x}", Value::U64(*raw)),
                // Only an optional offset reads 0 and leaves no target.
                (None, _) if *raw == 0 => "0 (none)".to_string(),
                (None, _) => format!("{} → outside the file", Value::U64(*raw)),
            };
            if let Some(list) = n.children.iter().find(|c| {
                matches!(
                    c.kind,
                    Kind::Seq | Kind::Numbers { .. } | Kind::Octets { .. }
                )
            }) {
                let count = match &list.kind {
                    Kind::Numbers { values } => values.len(),
                    Kind::Octets { values } => values.len(),
                    _ => list.children.iter().filter(|c| c.is_stored()).count(),
                };
                let _ = write!(s, ", {count} element(s)");
            }
            s
        }
        Kind::Derived { raw, meaning } => format!("{} = {meaning}", Value::U64(*raw)),
        Kind::Variant { tag, .. } => format!("tag {tag}"),
    };
    if !n.note.is_empty() {
        let _ = write!(s, " ({})", n.note);
    }
    if n.unknown {
        s.push_str("  [unknown]");
    }
    s
}

fn numbers(values: &[Value]) -> String {
    numbers_of(values.iter().cloned(), values.len())
}

/// The first numbers of a list of `len`, and how many more.
fn numbers_of(values: impl Iterator<Item = Value>, len: usize) -> String {
    let mut s = String::from("[");
    for (i, v) in values.take(MAX_NUMBERS).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        // Plain numbers in a list: no hex twin.
        match &v {
            Value::U8(x) => write!(s, "{x}"),
            Value::U16(x) => write!(s, "{x}"),
            Value::U32(x) => write!(s, "{x}"),
            Value::U64(x) => write!(s, "{x}"),
            other => write!(s, "{other}"),
        }
        .ok();
    }
    if len > MAX_NUMBERS {
        let _ = write!(s, ", … {} more", len - MAX_NUMBERS);
    }
    s.push(']');
    s
}

fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "n/a".into();
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

/// One file's coverage: a summary line, then one line per gap.
pub fn coverage_text(name: &str, cov: &Coverage) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{name}: {} bytes, {} explained ({} in fields, {} padding), {} in unknown fields, {} unexplained in {} range(s)",
        cov.len,
        percent(cov.explained(), cov.len),
        cov.known,
        cov.padding,
        cov.unknown,
        cov.unexplained(),
        cov.ranges()
    );
    for g in &cov.gaps {
        let _ = writeln!(out, "  {}", gap_text(g));
    }
    for p in &cov.stored_positions {
        let _ = writeln!(out, "  {}", stored_position_text(p));
    }
    for o in &cov.overlaps {
        let _ = writeln!(out, "  {}", overlap_text(o));
    }
    out
}

/// `overlap at 0x20, 3 byte(s) read two ways: by A (cstring) and by B (u16)`
pub fn overlap_text(o: &super::coverage::Overlap) -> String {
    format!(
        "overlap at 0x{:x}, {} byte(s) read two ways: by {} and by {}",
        o.offset, o.len, o.first, o.second
    )
}

/// `stored number at 0x8, 4 byte(s): File.title_at holds the position of
/// File.title …`
pub fn stored_position_text(p: &super::coverage::StoredPosition) -> String {
    format!(
        "stored number at 0x{:x}, {} byte(s): {} holds the position of {}: unexplained until \
         declared as an offset (`Ptr`)",
        p.offset, p.len, p.field, p.target
    )
}

/// `0x1234 +8 after File.root.name: 01 02 …`
pub fn gap_text(g: &Gap) -> String {
    let mut s = format!("gap at 0x{:x}, {} byte(s)", g.offset, g.len);
    if let Some(a) = &g.after {
        let _ = write!(s, " after {a}");
    }
    let _ = write!(s, ": {}", hex(&g.preview));
    if g.len as usize > g.preview.len() {
        s.push_str(" …");
    }
    s
}

/// Totals over many files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub files: u64,
    pub failed: u64,
    pub len: u64,
    pub known: u64,
    pub unknown: u64,
    pub padding: u64,
    pub unexplained: u64,
    pub gaps: u64,
}

impl Totals {
    pub fn add(&mut self, cov: &Coverage) {
        self.files += 1;
        self.len += cov.len;
        self.known += cov.known;
        self.unknown += cov.unknown;
        self.padding += cov.padding;
        self.unexplained += cov.unexplained();
        self.gaps += cov.ranges() as u64;
    }

    /// `coverage of N files (B bytes): E explained (K in fields, P padding), U in unknown fields, X unexplained in G range(s); F failed to decode`
    pub fn summary(&self) -> String {
        format!(
            "coverage of {} file(s), {} bytes: {} explained ({} in fields, {} padding), {} in unknown fields ({}), {} unexplained ({}) in {} range(s); {} failed to decode",
            self.files,
            self.len,
            percent(self.known + self.padding, self.len),
            self.known,
            self.padding,
            self.unknown,
            percent(self.unknown, self.len),
            self.unexplained,
            percent(self.unexplained, self.len),
            self.gaps,
            self.failed
        )
    }
}
