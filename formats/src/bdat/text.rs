//! Legacy BDAT as text: bdat-toolset's JSON (format_version 2: a `.bschema`
//! per file, a `{"schema", "rows"}` document per table), extended so that
//! nothing is lost, and CSV (export only).
//!
//! What bdat-toolset writes, this writes the same way, byte for byte: the
//! schema lists the value and array columns with their flags, the rows give
//! `$id` and one value per column name, floats are the f32 widened to f64.
//! Whatever that form cannot hold goes into a top-level `$codec` object,
//! which bdat-toolset ignores, and only when it is needed:
//!
//! - `scrambled`: the table was scrambled (it is scrambled again);
//! - `base_id`: the first row's id, when there are no rows to show it;
//! - `header`: header bytes other than the defaults (`flags`, `reserved_05`,
//!   `format_constant`, `hash_slots`, `reserved`; `unknown_05` and
//!   `unknown_14`, their names before `codec survey`, are read too);
//! - `order`: the columns' file order, when flags do not follow their
//!   parents as the schema lists them;
//! - `duplicates`: the values of the second and later columns of a name,
//!   and of a column named `$id`, one per row (a row object holds one
//!   value per name, and its `$id` is the row's id);
//! - `raw`: a flag parent's bits that no flag gives back (no mask covers
//!   them, the shift drops them: a flag's `index` is any byte, as in the
//!   file, and one of 32 or more is always 0; or the flag shares an earlier
//!   flag's label, and the row's object holds the earlier one), one per row;
//! - `name`: the table's name, when the file stem differs from it.
//!
//! Strings that are not UTF-8 are written `{"$bytes": "<hex>"}`. Row ids
//! must be consecutive: a gap is an error, not a renumbering. A table the
//! `.bschema` lists but whose file is missing is an error.

use super::{
    BdatFile, Cell, CellType, Column, ColumnInfo, FlagInfo, ListInfo, Table, ValueInfo, Variant,
};
use codec_runtime::rows::StringList;
use codec_runtime::Text;
use serde_json::Value;
use std::fmt::{self, Write as _};

/// Where text could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    /// The file (table or `.bschema`) the error is in.
    pub file: String,
    /// Where in it: `rows[3].Price`, `schema[2]`, or `line 4, column 9`.
    pub at: String,
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file.is_empty(), self.at.is_empty()) {
            (false, false) => write!(f, "{}: {}: {}", self.file, self.at, self.message),
            (false, true) => write!(f, "{}: {}", self.file, self.message),
            (true, false) => write!(f, "{}: {}", self.at, self.message),
            (true, true) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TextError {}

fn err(at: impl Into<String>, message: impl Into<String>) -> TextError {
    TextError {
        file: String::new(),
        at: at.into(),
        message: message.into(),
    }
}

/// The name bdat-toolset gives a variant in a `.bschema`.
pub fn version_name(v: Variant) -> &'static str {
    v.name()
}

// ---------------------------------------------------------------------------
// An ordered JSON tree and serde_json's pretty layout.

/// JSON with its keys in the order they are written.
#[derive(Debug, Clone)]
enum J {
    Raw(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn num<T: serde::Serialize>(v: T) -> J {
    J::Raw(serde_json::to_string(&v).unwrap_or_else(|_| "null".into()))
}

fn text_json(t: &Text) -> J {
    bytes_json(t.as_bytes())
}

/// A string as JSON: itself when UTF-8, `{"$bytes": "<hex>"}` otherwise.
fn bytes_json(b: &[u8]) -> J {
    match std::str::from_utf8(b) {
        Ok(s) => num(s),
        Err(_) => J::Obj(vec![("$bytes".into(), num(hex(b)))]),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .fold(String::with_capacity(b.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// Writes `j` as serde_json's pretty printer does (two spaces per level).
fn pretty(j: &J, indent: usize, out: &mut String) {
    match j {
        J::Raw(s) => out.push_str(s),
        J::Arr(v) if v.is_empty() => out.push_str("[]"),
        J::Obj(v) if v.is_empty() => out.push_str("{}"),
        J::Arr(v) => {
            out.push('[');
            for (i, x) in v.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 1);
                pretty(x, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
        J::Obj(v) => {
            out.push('{');
            for (i, (k, x)) in v.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 1);
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                pretty(x, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push('}');
        }
    }
}

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push_str("  ");
    }
}

// ---------------------------------------------------------------------------
// Table -> JSON.

/// The bdat-toolset view of a table's columns: the value and array columns,
/// each with its flags in file order.
struct View {
    /// File indices of the value and array columns, in file order.
    cells: Vec<usize>,
    /// For each of them, the file indices of its flags.
    flags: Vec<Vec<usize>>,
    /// Flags whose parent is not a value column of an integer type.
    orphans: Vec<usize>,
}

fn view(t: &Table) -> View {
    let cells: Vec<usize> = (0..t.columns.len())
        .filter(|&i| !matches!(t.columns[i].info, ColumnInfo::Flag(_)))
        .collect();
    let mut flags = vec![Vec::new(); cells.len()];
    let mut orphans = Vec::new();
    for (i, c) in t.columns.iter().enumerate() {
        if let ColumnInfo::Flag(f) = &c.info {
            let parent = f.parent as usize;
            let ok = matches!(t.columns.get(parent).map(|p| &p.info), Some(ColumnInfo::Value(v)) if is_int(v.cell_type));
            match cells.iter().position(|&p| p == parent) {
                Some(k) if ok => flags[k].push(i),
                _ => orphans.push(i),
            }
        }
    }
    View {
        cells,
        flags,
        orphans,
    }
}

fn is_int(t: u8) -> bool {
    (1..=6).contains(&t)
}

/// The file order the schema implies: the value and array columns, then
/// each one's flags in turn.
fn canonical(v: &View) -> Vec<usize> {
    let mut out = v.cells.clone();
    for f in &v.flags {
        out.extend(f);
    }
    out.extend(&v.orphans);
    out
}

/// The JSON key of each value and array column: its name, or for the
/// second and later columns of a name and for a column named `$id`,
/// `None` (their values go to `$codec.duplicates`).
fn keys(t: &Table, v: &View) -> Vec<Option<String>> {
    row_keys(v.cells.iter().map(|&i| t.columns[i].name.to_string()))
}

/// The key in a row of each column of `names`, in order: its name, or
/// `None` for a name a row already uses (the row's `$id`, or an earlier
/// column's name). The writer and the reader both take the keys from here.
fn row_keys(names: impl Iterator<Item = String>) -> Vec<Option<String>> {
    let mut seen = std::collections::HashSet::from(["$id".to_owned()]);
    names.map(|n| seen.insert(n.clone()).then_some(n)).collect()
}

fn cell_json(c: &Cell, strings: &StringList) -> J {
    match c {
        Cell::U8(v) => num(v),
        Cell::U16(v) => num(v),
        Cell::U32(v) => num(v),
        Cell::I8(v) => num(v),
        Cell::I16(v) => num(v),
        Cell::I32(v) => num(v),
        Cell::String(i) => strings.get(*i).map_or(J::Raw("null".into()), bytes_json),
        Cell::Float(f) if f.is_finite() => num(f64::from(*f)),
        Cell::Float(f) => J::Obj(vec![("$f32".into(), num(format!("{:08x}", f.to_bits())))]),
        Cell::Fixed(raw) => num(f64::from(*raw) / 4096.0),
    }
}

/// A table as bdat-toolset's JSON document (pretty, as `--pretty` writes it),
/// with the `$codec` extension where it is needed. `stem` is the file name
/// the table is written under.
pub fn table_to_json(t: &Table, stem: &str) -> String {
    let v = view(t);
    let ranges = t.cell_ranges();
    let keys = keys(t, &v);
    let mut schema = Vec::new();
    for (k, &i) in v.cells.iter().enumerate() {
        let c = &t.columns[i];
        let (ty, count) = match &c.info {
            ColumnInfo::Value(x) => (x.cell_type, None),
            ColumnInfo::List(x) => (x.cell_type, Some(x.count)),
            ColumnInfo::Flag(_) => unreachable!("flags are listed under their parent"),
        };
        let mut o = vec![
            ("name".into(), text_json(&c.name)),
            ("type".into(), num(ty)),
        ];
        if let Some(n) = count {
            o.push(("count".into(), num(n)));
        }
        if !v.flags[k].is_empty() {
            let flags = v.flags[k]
                .iter()
                .map(|&fi| {
                    let ColumnInfo::Flag(f) = &t.columns[fi].info else {
                        unreachable!()
                    };
                    J::Obj(vec![
                        ("label".into(), text_json(&t.columns[fi].name)),
                        ("mask".into(), num(f.mask)),
                        ("index".into(), num(f.shift)),
                    ])
                })
                .collect();
            o.push(("flags".into(), J::Arr(flags)));
        }
        schema.push(J::Obj(o));
    }
    let mut rows = Vec::with_capacity(t.rows.len());
    for (r, row) in t.rows.iter().enumerate() {
        let mut o = vec![("$id".into(), num(t.row_id(r)))];
        for (k, &i) in v.cells.iter().enumerate() {
            let Some(key) = &keys[k] else { continue };
            o.push((key.clone(), cell_value(t, &v, k, i, &ranges, row)));
        }
        rows.push(J::Obj(o));
    }
    let mut doc = vec![
        ("schema".into(), J::Arr(schema)),
        ("rows".into(), J::Arr(rows)),
    ];
    let ext = extension(t, &v, &keys, &ranges, stem);
    if !ext.is_empty() {
        doc.push(("$codec".into(), J::Obj(ext)));
    }
    let mut out = String::new();
    pretty(&J::Obj(doc), 0, &mut out);
    out
}

/// The JSON value of value/array column `i` (the `k`-th of the view) in `row`.
fn cell_value(
    t: &Table,
    v: &View,
    k: usize,
    i: usize,
    ranges: &[Option<(usize, usize)>],
    row: &[Cell],
) -> J {
    let Some((first, n)) = ranges[i] else {
        return J::Raw("null".into());
    };
    let cells = row.get(first..first + n).unwrap_or(&[]);
    match &t.columns[i].info {
        ColumnInfo::List(_) => J::Arr(
            cells
                .iter()
                .map(|c| cell_json(c, t.rows.strings()))
                .collect(),
        ),
        _ if !v.flags[k].is_empty() => {
            let raw = cells.first().and_then(Cell::as_u32).unwrap_or(0);
            J::Obj(
                labelled(t, &v.flags[k])
                    .into_iter()
                    .map(|fi| {
                        let ColumnInfo::Flag(f) = &t.columns[fi].info else {
                            unreachable!()
                        };
                        let val = (raw & f.mask).checked_shr(u32::from(f.shift)).unwrap_or(0);
                        (t.columns[fi].name.to_string(), num(val))
                    })
                    .collect(),
            )
        }
        _ => cells
            .first()
            .map(|c| cell_json(c, t.rows.strings()))
            .unwrap_or(J::Raw("null".into())),
    }
}

/// The bits of a flag parent's value that its flags do not give back: those
/// no mask covers, and those a flag's shift drops (mask bits below the
/// shift; all of them when the shift, a byte in the file, is 32 or more).
fn flag_rest(t: &Table, flags: &[usize], raw: u32) -> u32 {
    let covered = labelled(t, flags)
        .into_iter()
        .fold(0u32, |m, fi| match &t.columns[fi].info {
            ColumnInfo::Flag(f) => m | kept_bits(f),
            _ => m,
        });
    raw & !covered
}

/// The flags of a parent that the row's flags object holds a value of: the
/// first of each label (an object holds one value per key). A later flag of
/// the same label gives back nothing; its bits stay in `$codec.raw`.
fn labelled(t: &Table, flags: &[usize]) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    flags
        .iter()
        .copied()
        .filter(|&fi| seen.insert(t.columns[fi].name.to_string()))
        .collect()
}

/// The bits of the parent a flag's value gives back: `(v << shift) & mask`
/// of `v = (raw & mask) >> shift` is `raw & kept_bits`.
fn kept_bits(f: &FlagInfo) -> u32 {
    f.mask & u32::MAX.checked_shl(u32::from(f.shift)).unwrap_or(0)
}

fn extension(
    t: &Table,
    v: &View,
    keys: &[Option<String>],
    ranges: &[Option<(usize, usize)>],
    stem: &str,
) -> Vec<(String, J)> {
    let mut ext = Vec::new();
    if t.flags.scrambled {
        ext.push(("scrambled".into(), J::Raw("true".into())));
    }
    if t.rows.is_empty() {
        ext.push(("base_id".into(), num(t.base_id)));
    }
    let defaults = Table::new("");
    let mut header = Vec::new();
    let flag_bits = u8::from(t.flags.unknown_0) | t.flags.reserved_2 << 2;
    if flag_bits != 0 {
        header.push(("flags".into(), num(flag_bits)));
    }
    if t.reserved_05 != defaults.reserved_05 {
        header.push(("reserved_05".into(), num(t.reserved_05)));
    }
    if t.format_constant != defaults.format_constant {
        header.push(("format_constant".into(), num(t.format_constant)));
    }
    if t.hash_slots != defaults.hash_slots {
        header.push(("hash_slots".into(), num(t.hash_slots)));
    }
    if t.reserved != defaults.reserved {
        header.push(("reserved".into(), num(hex(&t.reserved))));
    }
    if !header.is_empty() {
        ext.push(("header".into(), J::Obj(header)));
    }
    let canon = canonical(v);
    if canon != (0..t.columns.len()).collect::<Vec<_>>() || !v.orphans.is_empty() {
        // order[file index] = index in the schema's order.
        let mut order = vec![0usize; canon.len()];
        for (pos, &fi) in canon.iter().enumerate() {
            order[fi] = pos;
        }
        ext.push(("order".into(), J::Arr(order.iter().map(num).collect())));
    }
    if !v.orphans.is_empty() {
        let o = v
            .orphans
            .iter()
            .map(|&fi| {
                let ColumnInfo::Flag(f) = &t.columns[fi].info else {
                    unreachable!()
                };
                let parent = canon
                    .iter()
                    .position(|&x| x == f.parent as usize)
                    .unwrap_or(0);
                J::Obj(vec![
                    ("label".into(), text_json(&t.columns[fi].name)),
                    ("mask".into(), num(f.mask)),
                    ("index".into(), num(f.shift)),
                    ("parent".into(), num(parent)),
                ])
            })
            .collect();
        ext.push(("orphan_flags".into(), J::Arr(o)));
    }
    // The second and later columns of a name, where their values are not
    // the first one's (as a reader that knows no `$codec` would set them),
    // and every column named `$id`.
    // Names compare as their JSON keys (`keys`): two names of different
    // bytes can share one (a name that is not UTF-8 is keyed by its lossy
    // text).
    let first_of = |k: usize| {
        let key = t.columns[v.cells[k]].name.to_string();
        (0..k)
            .find(|&j| t.columns[v.cells[j]].name.to_string() == key)
            .unwrap_or(k)
    };
    let same = |a: usize, b: usize| {
        t.rows.iter().all(|row| {
            let cells = |k: usize| ranges[v.cells[k]].map(|(f, n)| row.get(f..f + n));
            cells(a) == cells(b)
        }) && t.columns[v.cells[a]].info == t.columns[v.cells[b]].info
            && v.flags[a].is_empty()
            && v.flags[b].is_empty()
    };
    let dups: Vec<J> = v
        .cells
        .iter()
        .enumerate()
        .filter(|(k, _)| {
            // A reader copies a keyless column from the keyed column of its
            // name; with none (columns named `$id`, whose key is the row
            // id), the values are always written.
            let first = first_of(*k);
            keys[*k].is_none() && (keys[first].is_none() || !same(first, *k))
        })
        .map(|(k, &i)| {
            let values = t
                .rows
                .iter()
                .map(|row| cell_value(t, v, k, i, ranges, row))
                .collect();
            J::Obj(vec![
                ("column".into(), num(k)),
                ("values".into(), J::Arr(values)),
            ])
        })
        .collect();
    if !dups.is_empty() {
        ext.push(("duplicates".into(), J::Arr(dups)));
    }
    let mut raws = Vec::new();
    for (k, &i) in v.cells.iter().enumerate() {
        if v.flags[k].is_empty() {
            continue;
        }
        let Some((first, _)) = ranges[i] else {
            continue;
        };
        let rest: Vec<u32> = t
            .rows
            .iter()
            .map(|row| {
                flag_rest(
                    t,
                    &v.flags[k],
                    row.get(first).and_then(Cell::as_u32).unwrap_or(0),
                )
            })
            .collect();
        if rest.iter().any(|&x| x != 0) {
            raws.push(J::Obj(vec![
                ("column".into(), num(k)),
                ("values".into(), J::Arr(rest.iter().map(num).collect())),
            ]));
        }
    }
    if !raws.is_empty() {
        ext.push(("raw".into(), J::Arr(raws)));
    }
    if t.name.as_str() != Some(stem) {
        ext.push(("name".into(), text_json(&t.name)));
    }
    ext
}

// ---------------------------------------------------------------------------
// JSON -> Table.

fn get<'a>(o: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key)
}

fn as_text(v: &Value, at: &str) -> Result<Text, TextError> {
    match v {
        Value::String(s) => Ok(Text::from(s.as_str())),
        Value::Object(o) if o.len() == 1 && o.contains_key("$bytes") => {
            let h = o["$bytes"]
                .as_str()
                .ok_or_else(|| err(at, "`$bytes` holds a hex string"))?;
            unhex(h)
                .map(|b| Text::from_bytes(&b))
                .ok_or_else(|| err(at, format!("`{h}` is not hex")))
        }
        other => Err(err(at, format!("expected a string, found {}", kind(other)))),
    }
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    if h.len() % 2 != 0 {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn uint(v: &Value, max: u64, at: &str) -> Result<u64, TextError> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        Some(n) => Err(err(at, format!("{n} is more than {max}"))),
        None => Err(err(at, format!("expected an unsigned integer, found {v}"))),
    }
}

fn int(v: &Value, min: i64, max: i64, at: &str) -> Result<i64, TextError> {
    match v.as_i64() {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        Some(n) => Err(err(at, format!("{n} is outside {min}..={max}"))),
        None => Err(err(at, format!("expected an integer, found {v}"))),
    }
}

/// A cell of type `ty` from JSON.
/// The strings of the rows being read: one index per distinct string.
#[derive(Default)]
struct Strings {
    list: Vec<Text>,
    seen: std::collections::HashMap<Text, u32>,
}

impl Strings {
    fn id(&mut self, t: Text) -> u32 {
        if let Some(&i) = self.seen.get(&t) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(t.clone());
        self.seen.insert(t, i);
        i
    }
}

fn cell_from(
    ty: u8,
    fixed: bool,
    v: &Value,
    at: &str,
    strings: &mut Strings,
) -> Result<Cell, TextError> {
    Ok(match CellType::from_u8(ty) {
        Some(CellType::U8) => Cell::U8(uint(v, u8::MAX.into(), at)? as u8),
        Some(CellType::U16) => Cell::U16(uint(v, u16::MAX.into(), at)? as u16),
        Some(CellType::U32) => Cell::U32(uint(v, u32::MAX.into(), at)? as u32),
        Some(CellType::I8) => Cell::I8(int(v, i8::MIN.into(), i8::MAX.into(), at)? as i8),
        Some(CellType::I16) => Cell::I16(int(v, i16::MIN.into(), i16::MAX.into(), at)? as i16),
        Some(CellType::I32) => Cell::I32(int(v, i32::MIN.into(), i32::MAX.into(), at)? as i32),
        Some(CellType::String) => Cell::String(strings.id(as_text(v, at)?)),
        Some(CellType::Float) if fixed => {
            let f = v
                .as_f64()
                .ok_or_else(|| err(at, format!("expected a number, found {v}")))?;
            // serde_json's number parser is not correctly rounded: what we
            // write exactly (raw / 4096) can come back a few f64 steps off
            // (under 2^-20 at this scale), so the nearest multiple is taken
            // when it is that close.
            let scaled = f * 4096.0;
            let raw = scaled.round();
            if (scaled - raw).abs() > 1e-3 || !(0.0..=f64::from(u32::MAX)).contains(&raw) {
                return Err(err(at, format!("{f} is not a 20.12 fixed-point value (a multiple of 1/4096 from 0 to 2^20)")));
            }
            Cell::Fixed(raw as u32)
        }
        Some(CellType::Float) => match v {
            Value::Object(o) if o.contains_key("$f32") => {
                let bits = o["$f32"]
                    .as_str()
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                Cell::Float(f32::from_bits(
                    bits.ok_or_else(|| err(at, "`$f32` holds 8 hex digits"))?,
                ))
            }
            _ => Cell::Float(
                v.as_f64()
                    .ok_or_else(|| err(at, format!("expected a number, found {v}")))?
                    as f32,
            ),
        },
        None => {
            return Err(err(
                at,
                format!("unknown cell type {ty} (types are 1 to 8)"),
            ))
        }
    })
}

/// One value or array column of the schema, as read.
struct SchemaColumn {
    name: Text,
    info: ColumnInfo,
    flags: Vec<(Text, u32, u8)>,
}

fn read_flag(f: &Value, at: &str) -> Result<(Text, u32, u8), TextError> {
    let o = f
        .as_object()
        .ok_or_else(|| err(at, "a flag is an object"))?;
    let label = as_text(
        get(o, "label").ok_or_else(|| err(at, "a flag needs a `label`"))?,
        at,
    )?;
    let mask = uint(
        get(o, "mask").ok_or_else(|| err(at, "a flag needs a `mask`"))?,
        u32::MAX.into(),
        at,
    )? as u32;
    // The file holds the shift in a byte: any value of it reads back (a
    // shift past the parent's bits gives a flag that is always 0).
    let shift = uint(
        get(o, "index").ok_or_else(|| err(at, "a flag needs an `index` (its shift)"))?,
        u8::MAX.into(),
        at,
    )? as u8;
    Ok((label, mask, shift))
}

/// A table from its JSON document; `stem` is its file name (its name unless
/// `$codec.name` says otherwise).
pub fn table_from_json(text: &str, stem: &str, variant: Variant) -> Result<Table, TextError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let (at, what) = crate::json_syntax(&e);
        err(at, what)
    })?;
    let doc = doc
        .as_object()
        .ok_or_else(|| err("", "a table is a JSON object"))?;
    let fixed = variant == Variant::X;
    let schema = get(doc, "schema")
        .ok_or_else(|| {
            err(
                "",
                "no `schema`: a table without types cannot be packed (was it extracted with -u?)",
            )
        })?
        .as_array()
        .ok_or_else(|| err("schema", "`schema` is an array"))?;
    let mut cols = Vec::with_capacity(schema.len());
    for (k, c) in schema.iter().enumerate() {
        let at = format!("schema[{k}]");
        let o = c
            .as_object()
            .ok_or_else(|| err(&at, "a column is an object"))?;
        let name = as_text(
            get(o, "name").ok_or_else(|| err(&at, "a column needs a `name`"))?,
            &at,
        )?;
        let ty = uint(
            get(o, "type").ok_or_else(|| err(&at, "a column needs a `type`"))?,
            255,
            &at,
        )? as u8;
        if CellType::from_u8(ty).is_none() {
            return Err(err(
                &at,
                format!("unknown cell type {ty} (types are 1 to 8)"),
            ));
        }
        let info = match get(o, "count") {
            Some(n) => ColumnInfo::List(ListInfo {
                cell_type: ty,
                count: uint(n, u16::MAX.into(), &at)? as u16,
            }),
            None => ColumnInfo::Value(ValueInfo { cell_type: ty }),
        };
        let mut flags = Vec::new();
        if let Some(fs) = get(o, "flags") {
            let fs = fs
                .as_array()
                .ok_or_else(|| err(&at, "`flags` is an array"))?;
            if !fs.is_empty()
                && !matches!(info, ColumnInfo::Value(ValueInfo { cell_type }) if is_int(cell_type))
            {
                return Err(err(&at, "only a value column of an integer type has flags"));
            }
            for (j, f) in fs.iter().enumerate() {
                flags.push(read_flag(f, &format!("{at}.flags[{j}]"))?);
            }
        }
        cols.push(SchemaColumn { name, info, flags });
    }
    let ext = match get(doc, "$codec") {
        Some(Value::Object(o)) => o.clone(),
        Some(_) => return Err(err("$codec", "`$codec` is an object")),
        None => serde_json::Map::new(),
    };
    // Columns in the schema's order: the value and array columns, then the flags.
    let ncell = cols.len();
    let mut columns: Vec<Column> = cols
        .iter()
        .map(|c| Column {
            info: c.info.clone(),
            name: c.name.clone(),
        })
        .collect();
    // (schema column, column index of each of its flags)
    let mut flag_cols: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, c) in cols.iter().enumerate() {
        let mut idx = Vec::new();
        for (label, mask, shift) in &c.flags {
            idx.push(columns.len());
            columns.push(Column {
                info: ColumnInfo::Flag(FlagInfo {
                    shift: *shift,
                    mask: *mask,
                    parent: k as u32,
                }),
                name: label.clone(),
            });
        }
        flag_cols.push((k, idx));
    }
    if let Some(o) = get(&ext, "orphan_flags") {
        let o = o
            .as_array()
            .ok_or_else(|| err("$codec.orphan_flags", "an array"))?;
        for (j, f) in o.iter().enumerate() {
            let at = format!("$codec.orphan_flags[{j}]");
            let (label, mask, shift) = read_flag(f, &at)?;
            let parent = f
                .get("parent")
                .map(|p| uint(p, u32::MAX.into(), &at))
                .transpose()?
                .unwrap_or(0) as u32;
            columns.push(Column {
                info: ColumnInfo::Flag(FlagInfo {
                    shift,
                    mask,
                    parent,
                }),
                name: label,
            });
        }
    }
    // The rows, in the schema's column order.
    let rows_json = get(doc, "rows")
        .ok_or_else(|| err("", "no `rows`"))?
        .as_array()
        .ok_or_else(|| err("rows", "`rows` is an array"))?;
    let keys = row_keys(cols.iter().map(|c| c.name.to_string()));
    let seen: std::collections::HashSet<&str> = keys.iter().flatten().map(String::as_str).collect();
    let dup_values = per_column(&ext, "duplicates", ncell, rows_json.len())?;
    let raw_values = per_column(&ext, "raw", ncell, rows_json.len())?;
    let base_id = match rows_json.first() {
        Some(r) => {
            let id = r
                .get("$id")
                .ok_or_else(|| err("rows[0]", "a row needs its `$id`"))?;
            uint(id, u16::MAX.into(), "rows[0].$id")? as u16
        }
        None => match get(&ext, "base_id") {
            Some(b) => uint(b, u16::MAX.into(), "$codec.base_id")? as u16,
            None => 1,
        },
    };
    let width: usize = cols
        .iter()
        .map(|c| match &c.info {
            ColumnInfo::List(l) => usize::from(l.count),
            _ => 1,
        })
        .sum();
    let mut rows = super::Rows::new(width);
    let mut strings = Strings::default();
    for (r, row) in rows_json.iter().enumerate() {
        let at = format!("rows[{r}]");
        let o = row
            .as_object()
            .ok_or_else(|| err(&at, "a row is an object"))?;
        let want = u64::from(base_id) + r as u64;
        let id = uint(
            get(o, "$id").ok_or_else(|| err(&at, "a row needs its `$id`"))?,
            u64::MAX,
            &at,
        )?;
        if id != want {
            return Err(err(
                format!("{at}.$id"),
                format!("row ids count up by one from the first row's ({base_id}): expected {want}, found {id}"),
            ));
        }
        for key in o.keys() {
            if key != "$id" && !seen.contains(key.as_str()) {
                return Err(err(
                    format!("{at}.{key}"),
                    "no column of the schema has this name",
                ));
            }
        }
        let mut cells = Vec::new();
        for (k, c) in cols.iter().enumerate() {
            let key = c.name.to_string();
            let cat = format!("{at}.{key}");
            let value = match (&keys[k], &dup_values[k]) {
                (None, Some(vals)) => vals.get(r),
                _ => o.get(&key),
            }
            .ok_or_else(|| err(&cat, "the row has no value for this column"))?;
            match &c.info {
                ColumnInfo::List(l) => {
                    let a = value.as_array().ok_or_else(|| {
                        err(&cat, format!("expected an array, found {}", kind(value)))
                    })?;
                    if a.len() != usize::from(l.count) {
                        return Err(err(
                            &cat,
                            format!("expected {} values, found {}", l.count, a.len()),
                        ));
                    }
                    for (j, x) in a.iter().enumerate() {
                        cells.push(cell_from(
                            l.cell_type,
                            fixed,
                            x,
                            &format!("{cat}[{j}]"),
                            &mut strings,
                        )?);
                    }
                }
                ColumnInfo::Value(v) if !c.flags.is_empty() => {
                    let fo = value.as_object().ok_or_else(|| {
                        err(
                            &cat,
                            format!("expected the flags as an object, found {}", kind(value)),
                        )
                    })?;
                    // The parent's cell holds this many bits; a flag or raw
                    // value past them would be cut when the cell is written.
                    let width = int_bits(v.cell_type);
                    let mut raw = match &raw_values[k] {
                        Some(vals) => uint(
                            vals.get(r).unwrap_or(&Value::Null),
                            width.into(),
                            &format!("{cat} ($codec.raw)"),
                        )? as u32,
                        None => 0,
                    };
                    let mut seen = std::collections::HashSet::new();
                    for (label, mask, shift) in &c.flags {
                        if !seen.insert(label.to_string()) {
                            // A later flag of a label: its bits are in `raw`.
                            continue;
                        }
                        let fat = format!("{cat}.{label}");
                        let fv = fo
                            .get(&label.to_string())
                            .ok_or_else(|| err(&fat, "the row has no value for this flag"))?;
                        let fv = uint(fv, u32::MAX.into(), &fat)? as u32;
                        let bits = fv.checked_shl(u32::from(*shift)).unwrap_or(0);
                        if bits & !mask != 0
                            || bits.checked_shr(u32::from(*shift)).unwrap_or(0) != fv
                        {
                            return Err(err(
                                &fat,
                                format!("{fv} does not fit the flag's mask 0x{mask:x}"),
                            ));
                        }
                        if bits & !width != 0 {
                            return Err(err(
                                &fat,
                                format!(
                                    "{fv} sets bits 0x{:x} past the parent's cell (type {}, 0x{width:x})",
                                    bits & !width,
                                    v.cell_type
                                ),
                            ));
                        }
                        raw |= bits;
                    }
                    cells.push(int_cell(v.cell_type, raw));
                }
                ColumnInfo::Value(v) => {
                    cells.push(cell_from(v.cell_type, fixed, value, &cat, &mut strings)?)
                }
                ColumnInfo::Flag(_) => {}
            }
        }
        rows.push(cells);
    }
    {
        rows.set_strings(StringList::unique(strings.list.iter().map(Text::as_bytes)));
    }
    // The file's column order, when it is not the schema's.
    if let Some(order) = get(&ext, "order") {
        let order = order
            .as_array()
            .ok_or_else(|| err("$codec.order", "an array"))?;
        let n = columns.len();
        let mut pos: Vec<usize> = Vec::with_capacity(n);
        for (i, o) in order.iter().enumerate() {
            pos.push(uint(o, n.saturating_sub(1) as u64, &format!("$codec.order[{i}]"))? as usize);
        }
        let mut check = pos.clone();
        check.sort_unstable();
        if pos.len() != n || check.iter().enumerate().any(|(i, &p)| i != p) {
            return Err(err(
                "$codec.order",
                format!("expected a permutation of the {n} columns"),
            ));
        }
        // pos[file index] = schema index; rows keep the cell order of the
        // value and array columns, which `order` must not change.
        let mut file = vec![None; n];
        for (fi, &si) in pos.iter().enumerate() {
            file[fi] = Some(si);
        }
        let schema_to_file: Vec<usize> = {
            let mut v = vec![0; n];
            for (fi, &si) in pos.iter().enumerate() {
                v[si] = fi;
            }
            v
        };
        let cell_order: Vec<usize> = (0..ncell).map(|k| schema_to_file[k]).collect();
        if cell_order.windows(2).any(|w| w[0] > w[1]) {
            return Err(err(
                "$codec.order",
                "the value and array columns keep the schema's order",
            ));
        }
        let mut reordered: Vec<Column> = pos.iter().map(|&si| columns[si].clone()).collect();
        for c in &mut reordered {
            if let ColumnInfo::Flag(f) = &mut c.info {
                f.parent = schema_to_file.get(f.parent as usize).copied().unwrap_or(0) as u32;
            }
        }
        columns = reordered;
    }
    let mut t = Table::new(match get(&ext, "name") {
        Some(n) => as_text(n, "$codec.name")?,
        None => Text::from(stem),
    });
    t.columns = columns;
    t.rows = rows;
    t.base_id = base_id;
    t.flags.scrambled = matches!(get(&ext, "scrambled"), Some(Value::Bool(true)));
    if let Some(h) = get(&ext, "header") {
        let h = h
            .as_object()
            .ok_or_else(|| err("$codec.header", "an object"))?;
        if let Some(f) = h.get("flags") {
            let f = uint(f, 0xff, "$codec.header.flags")? as u8;
            if f & 2 != 0 {
                return Err(err(
                    "$codec.header.flags",
                    "bit 1 is the scramble flag, which `$codec.scrambled` gives",
                ));
            }
            t.flags.unknown_0 = f & 1 != 0;
            t.flags.reserved_2 = f >> 2;
        }
        if let Some(x) = h.get("reserved_05").or_else(|| h.get("unknown_05")) {
            t.reserved_05 = uint(x, 0xff, "$codec.header.reserved_05")? as u8;
        }
        if let Some(x) = h.get("format_constant").or_else(|| h.get("unknown_14")) {
            t.format_constant = uint(x, 0xffff, "$codec.header.format_constant")? as u16;
        }
        if let Some(x) = h.get("hash_slots") {
            t.hash_slots = uint(x, 0xffff, "$codec.header.hash_slots")? as u16;
        }
        if let Some(x) = h.get("reserved") {
            let b = x.as_str().and_then(unhex).filter(|b| b.len() == 28);
            t.reserved = b
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| err("$codec.header.reserved", "28 bytes as hex"))?;
        }
    }
    Ok(t)
}

/// The bits an integer cell of type `ty` holds.
fn int_bits(ty: u8) -> u32 {
    match ty {
        1 | 4 => 0xff,
        2 | 5 => 0xffff,
        _ => u32::MAX,
    }
}

fn int_cell(ty: u8, raw: u32) -> Cell {
    match ty {
        1 => Cell::U8(raw as u8),
        2 => Cell::U16(raw as u16),
        4 => Cell::I8(raw as i8),
        5 => Cell::I16(raw as i16),
        6 => Cell::I32(raw as i32),
        _ => Cell::U32(raw),
    }
}

/// `$codec.<key>`: per schema column, its values, one per row.
fn per_column(
    ext: &serde_json::Map<String, Value>,
    key: &str,
    ncols: usize,
    nrows: usize,
) -> Result<Vec<Option<Vec<Value>>>, TextError> {
    let mut out = vec![None; ncols];
    let Some(list) = ext.get(key) else {
        return Ok(out);
    };
    let list = list
        .as_array()
        .ok_or_else(|| err(format!("$codec.{key}"), "an array"))?;
    for (j, e) in list.iter().enumerate() {
        let at = format!("$codec.{key}[{j}]");
        let col = uint(
            e.get("column").unwrap_or(&Value::Null),
            ncols.saturating_sub(1) as u64,
            &at,
        )? as usize;
        let vals = e
            .get("values")
            .and_then(Value::as_array)
            .ok_or_else(|| err(&at, "`values` is an array"))?;
        if vals.len() != nrows {
            return Err(err(
                &at,
                format!(
                    "expected {nrows} values (one per row), found {}",
                    vals.len()
                ),
            ));
        }
        out[col] = Some(vals.clone());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Files and `.bschema`.

/// A file's tables as text: the `.bschema` document and, per table, its
/// file stem and JSON.
#[derive(Debug, Clone)]
pub struct TextFiles {
    pub bschema: String,
    pub tables: Vec<(String, String)>,
}

/// A file stem for a table name: the name when it is a safe file name and
/// not taken, else a safe form with `#n`.
fn stem_for(name: &Text, taken: &mut std::collections::HashSet<String>) -> String {
    let base: String = match name.as_str() {
        Some(s) if !s.is_empty() && s != "." && s != ".." => s
            .chars()
            .map(|c| {
                if c.is_control() || "/\\:*?\"<>|".contains(c) {
                    '_'
                } else {
                    c
                }
            })
            .collect(),
        _ => format!("table_{}", hex(name.as_bytes())),
    };
    let mut stem = base.clone();
    let mut n = 2;
    while !taken.insert(stem.to_ascii_lowercase()) {
        stem = format!("{base}#{n}");
        n += 1;
    }
    stem
}

/// The text of a whole file: `file_name` is the name its `.bschema` gives.
pub fn file_to_text(file: &BdatFile, variant: Variant, file_name: &str) -> TextFiles {
    let mut taken = std::collections::HashSet::new();
    let mut tables = Vec::with_capacity(file.tables.len());
    for t in &file.tables {
        let stem = stem_for(&t.name, &mut taken);
        let json = table_to_json(t, &stem);
        tables.push((stem, json));
    }
    let names: Vec<J> = tables.iter().map(|(s, _)| num(s)).collect();
    let schema = J::Obj(vec![
        ("file_name".into(), num(file_name)),
        (
            "version".into(),
            J::Obj(vec![("Legacy".into(), num(version_name(variant)))]),
        ),
        ("format_version".into(), num(2)),
        ("tables".into(), J::Arr(names)),
    ]);
    let mut bschema = String::new();
    compact(&schema, &mut bschema);
    TextFiles { bschema, tables }
}

fn compact(j: &J, out: &mut String) {
    match j {
        J::Raw(s) => out.push_str(s),
        J::Arr(v) => {
            out.push('[');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(x, out);
            }
            out.push(']');
        }
        J::Obj(v) => {
            out.push('{');
            for (i, (k, x)) in v.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                compact(x, out);
            }
            out.push('}');
        }
    }
}

/// What a `.bschema` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSchema {
    pub file_name: String,
    pub variant: Variant,
    pub tables: Vec<String>,
}

/// Whether a name from a `.bschema` can name a file beside it: not empty,
/// not `.` or `..`, and without a folder separator (or NUL), so that a
/// `.bschema` cannot lead reads or writes to other folders.
fn plain_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0'])
}

/// Reads a `.bschema` document.
pub fn read_bschema(text: &str) -> Result<FileSchema, TextError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let (at, what) = crate::json_syntax(&e);
        err(at, what)
    })?;
    let o = doc
        .as_object()
        .ok_or_else(|| err("", "a .bschema is a JSON object"))?;
    let file_name = get(o, "file_name")
        .and_then(Value::as_str)
        .ok_or_else(|| err("file_name", "expected the file's name (a string)"))?
        .to_owned();
    if !plain_name(&file_name) {
        return Err(err(
            "file_name",
            format!("`{file_name}` is not a file name (the tables' folder and the default output are named after it, beside the .bschema)"),
        ));
    }
    if let Some(v) = get(o, "format_version") {
        if v.as_u64() != Some(2) {
            return Err(err(
                "format_version",
                format!("only format_version 2 is read, not {v}"),
            ));
        }
    }
    let version = get(o, "version").ok_or_else(|| err("version", "missing"))?;
    let legacy = version
        .get("Legacy")
        .and_then(Value::as_str)
        .ok_or_else(|| err("version", format!("expected {{\"Legacy\": \"Switch\" | \"X\" | \"Wii\" | \"New3ds\"}}, found {version} (modern XC3 tables are another format)")))?;
    let variant = Variant::from_name(legacy).ok_or_else(|| {
        err(
            "version.Legacy",
            format!("unknown game `{legacy}` (Switch, X, Wii or New3ds)"),
        )
    })?;
    let tables = get(o, "tables")
        .and_then(Value::as_array)
        .ok_or_else(|| err("tables", "expected the table names (an array)"))?
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let stem = t
                .as_str()
                .ok_or_else(|| err(format!("tables[{i}]"), "a table name is a string"))?;
            if !plain_name(stem) {
                return Err(err(
                    format!("tables[{i}]"),
                    format!("`{stem}` is not a file name (the table's file is named after it, in the tables' folder)"),
                ));
            }
            Ok(stem.to_owned())
        })
        .collect::<Result<_, _>>()?;
    Ok(FileSchema {
        file_name,
        variant,
        tables,
    })
}

/// A whole file from its `.bschema` and a reader of table documents by stem
/// (which fails for a missing table: every listed table is required).
pub fn file_from_text(
    schema: &FileSchema,
    variant: Variant,
    mut read: impl FnMut(&str) -> Result<String, TextError>,
) -> Result<BdatFile, TextError> {
    let mut tables = Vec::with_capacity(schema.tables.len());
    for stem in &schema.tables {
        let text = read(stem)?;
        let t = table_from_json(&text, stem, variant).map_err(|mut e| {
            if e.file.is_empty() {
                e.file = format!("{stem}.json");
            }
            e
        })?;
        tables.push(t);
    }
    Ok(BdatFile { tables })
}

// ---------------------------------------------------------------------------
// CSV (export only, as bdat-toolset writes it).

fn csv_field(s: &str, out: &mut String) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn csv_cell(c: &Cell, strings: &StringList) -> String {
    match c {
        Cell::U8(v) => v.to_string(),
        Cell::U16(v) => v.to_string(),
        Cell::U32(v) => v.to_string(),
        Cell::I8(v) => v.to_string(),
        Cell::I16(v) => v.to_string(),
        Cell::I32(v) => v.to_string(),
        Cell::Float(f) => serde_json::to_string(f).unwrap_or_else(|_| f.to_string()),
        Cell::Fixed(raw) => {
            serde_json::to_string(&((f64::from(*raw) / 4096.0) as f32)).unwrap_or_default()
        }
        Cell::String(i) => strings
            .get(*i)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
    }
}

/// A table as CSV: a header `name {type}` per value or array column, `name
/// [flag] {type}` per flag; an array is one cell holding its JSON array.
pub fn table_to_csv(t: &Table) -> String {
    let v = view(t);
    let ranges = t.cell_ranges();
    let mut out = String::new();
    let mut head = Vec::new();
    for (k, &i) in v.cells.iter().enumerate() {
        let c = &t.columns[i];
        let ty = match &c.info {
            ColumnInfo::Value(x) => x.cell_type,
            ColumnInfo::List(x) => x.cell_type,
            ColumnInfo::Flag(_) => 0,
        };
        if v.flags[k].is_empty() {
            head.push(format!("{} {{{ty}}}", c.name));
        } else {
            for &fi in &v.flags[k] {
                head.push(format!("{} [{}] {{{ty}}}", c.name, t.columns[fi].name));
            }
        }
    }
    for (i, h) in head.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        csv_field(h, &mut out);
    }
    out.push('\n');
    for row in &t.rows {
        let mut fields = Vec::new();
        for (k, &i) in v.cells.iter().enumerate() {
            let Some((first, n)) = ranges[i] else {
                continue;
            };
            let cells = row.get(first..first + n).unwrap_or(&[]);
            match &t.columns[i].info {
                ColumnInfo::List(_) => {
                    let mut s = String::new();
                    let list = cells
                        .iter()
                        .map(|c| cell_json_f32(c, t.rows.strings()))
                        .collect();
                    compact(&J::Arr(list), &mut s);
                    fields.push(s);
                }
                _ if !v.flags[k].is_empty() => {
                    let raw = cells.first().and_then(Cell::as_u32).unwrap_or(0);
                    for &fi in &v.flags[k] {
                        if let ColumnInfo::Flag(f) = &t.columns[fi].info {
                            fields.push(
                                ((raw & f.mask).checked_shr(u32::from(f.shift)).unwrap_or(0))
                                    .to_string(),
                            );
                        }
                    }
                }
                _ => fields.push(
                    cells
                        .first()
                        .map(|c| csv_cell(c, t.rows.strings()))
                        .unwrap_or_default(),
                ),
            }
        }
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            csv_field(f, &mut out);
        }
        out.push('\n');
    }
    out
}

/// A cell inside a CSV array cell: floats as f32 (as bdat-toolset prints them there).
fn cell_json_f32(c: &Cell, strings: &StringList) -> J {
    match c {
        Cell::Float(f) => num(f),
        _ => cell_json(c, strings),
    }
}
