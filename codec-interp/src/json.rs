//! The generic text form of any schema's document (`codec to-text --schema`
//! and `from-text --schema`): JSON that says everything the interpreter's
//! writer needs to give back the same bytes, and nothing it derives.
//!
//! ```json
//! {
//!   "schema": "sarc",
//!   "variant": "Little",
//!   "document": {
//!     "header_size": 20,
//!     "nodes": [
//!       {"name_flag": 1, "name": "Actor/x.bxml", "data": {"align": 16, "value": "414141..."}}
//!     ]
//!   }
//! }
//! ```
//!
//! - A record is an object of its stored fields, by name. Magic, derived
//!   fields (counts, sizes, offsets' values, tags) are left out: they are
//!   written from the rest.
//! - A list or array is an array; a list of bytes is a string of hex
//!   digits.
//! - A number is a JSON number. A float is written in its shortest form
//!   that reads back to the same bits; one that does not (NaN, infinities,
//!   or a decimal JSON readers would round otherwise) is the string
//!   `"f32:0x7fc00000"` (or `"f64:0x…"`) of its bits.
//! - A union's value is an object of one key, the variant's name; an
//!   offset that may be absent is `null` when it is; a target whose
//!   alignment is kept is `{"align": N, "value": …}` (0: chosen by glue).
//!
//! Reading is guided by the schema: each key must be a field the record
//! stores (a misspelt key is an error naming the ones it could be), each
//! value of the field's type; errors give the path in the document.

use super::Value;
use codec_schema::names::bits_struct_name;
use codec_schema::{Checked, StructDef, Type, TypeDef};
use std::fmt::{self, Write as _};

/// The document `v` (decoded with schema variant `c`) as generic JSON, with
/// `extra` members after `schema` and `variant` (the layers around it, the
/// stored numbers that were positions).
pub fn to_json(c: &Checked, v: &Value, extra: &[(&str, serde_json::Value)]) -> String {
    let mut out = String::from("{\n");
    let _ = writeln!(out, "  \"schema\": {},", quoted(&c.schema.name));
    if let Some(name) = c.variant_name() {
        let _ = writeln!(out, "  \"variant\": {},", quoted(name));
    }
    for (k, x) in extra {
        let _ = writeln!(out, "  {}: {},", quoted(k), x);
    }
    out.push_str("  \"document\": ");
    write_value(c, v, &mut out, 1);
    out.push_str("\n}\n");
    out
}

/// A generic JSON document read back: the schema variant named (`None`
/// for a schema without variants), the document, and the other members
/// (`layers`).
#[derive(Debug)]
pub struct Read {
    pub variant: Option<String>,
    pub document: Value,
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Reads generic JSON written for schema `c` (its variants: the one the
/// text names). The error says where.
pub fn from_json(c: &Checked, text: &str) -> Result<(Checked, Read), String> {
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("line {}, column {}: {e}", e.line(), e.column()))?;
    from_json_value(c, json)
}

/// [`from_json`] of JSON already parsed: a text reader that builds the
/// generic form hands it over as it is, not as a string to parse again (a
/// copy and a string of the whole document: MSBT text of 200,000 tags took
/// 380 times its size).
pub fn from_json_value(c: &Checked, json: serde_json::Value) -> Result<(Checked, Read), String> {
    let serde_json::Value::Object(mut top) = json else {
        return Err("the document is not a JSON object".into());
    };
    match top.remove("schema") {
        Some(serde_json::Value::String(s)) if s == c.schema.name => {}
        Some(serde_json::Value::String(s)) => {
            return Err(format!(
                "the text is of schema `{s}`, not `{}`",
                c.schema.name
            ))
        }
        _ => return Err("no `schema` member naming the schema".into()),
    }
    let variant = match top.remove("variant") {
        Some(serde_json::Value::String(s)) => Some(s),
        None => None,
        Some(_) => return Err("`variant` is not a string".into()),
    };
    let cv = match (&variant, c.variants().is_empty()) {
        (Some(v), _) => c
            .variant(v)
            .ok_or_else(|| format!("schema `{}` has no variant `{v}`", c.schema.name))?,
        (None, true) => c,
        (None, false) => {
            return Err(format!(
                "schema `{}` has variants: the text must name one (`variant`)",
                c.schema.name
            ))
        }
    };
    let doc = top
        .remove("document")
        .ok_or("no `document` member holding the document")?;
    let document = document_of(cv, &doc)?;
    Ok((
        cv.clone(),
        Read {
            variant,
            document,
            extra: top,
        },
    ))
}

/// The document of the generic form's `document` member, read as the
/// concrete schema `cv` (a variant's) says: [`from_json_value`] without
/// the envelope, for a caller that knows the variant already.
pub fn document_of(cv: &Checked, doc: &serde_json::Value) -> Result<Value, String> {
    Reader { c: cv }.record(cv.root(), doc, &At::Root("document"))
}

/// A place in the document, as errors name it (`document.blocks[2]::Texts`):
/// built as the reader descends, turned into text only for an error.
#[derive(Clone, Copy)]
enum At<'a> {
    Root(&'a str),
    Field(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
    Variant(&'a At<'a>, &'a str),
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Root(name) => f.write_str(name),
            At::Field(up, name) => write!(f, "{up}.{name}"),
            At::Index(up, i) => write!(f, "{up}[{i}]"),
            At::Variant(up, name) => write!(f, "{up}::{name}"),
        }
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A scalar (written on one line inside an array).
fn is_scalar(v: &Value) -> bool {
    !matches!(
        v,
        Value::Seq(_) | Value::Map(_) | Value::Struct { .. } | Value::Variant { .. }
    ) && !matches!(v, Value::Option(Some(x)) if !is_scalar(x))
}

fn write_value(c: &Checked, v: &Value, out: &mut String, depth: usize) {
    let pad = |out: &mut String, d: usize| {
        for _ in 0..d {
            out.push_str("  ");
        }
    };
    match v {
        Value::Unit | Value::Option(None) => out.push_str("null"),
        Value::Option(Some(x)) => write_value(c, x, out, depth),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::U8(x) => write_num(out, x),
        Value::U16(x) => write_num(out, x),
        Value::U32(x) => write_num(out, x),
        Value::U64(x) => write_num(out, x),
        Value::I8(x) => write_num(out, x),
        Value::I16(x) => write_num(out, x),
        Value::I32(x) => write_num(out, x),
        Value::I64(x) => write_num(out, x),
        // A negative zero as `-0.0`: `-0` is an integer to a JSON reader
        // (Python's `json`), which loses the sign.
        Value::F32(x) if *x == 0.0 && x.is_sign_negative() => out.push_str("-0.0"),
        Value::F64(x) if *x == 0.0 && x.is_sign_negative() => out.push_str("-0.0"),
        Value::F32(x) => {
            let s = format!("{x}");
            let back = serde_json::from_str::<f64>(&s).map(|d| d as f32);
            if x.is_finite() && back.is_ok_and(|b| b.to_bits() == x.to_bits()) {
                out.push_str(&s);
            } else {
                let _ = write!(out, "\"f32:0x{:08x}\"", x.to_bits());
            }
        }
        Value::F64(x) => {
            let s = format!("{x}");
            let back = serde_json::from_str::<f64>(&s);
            if x.is_finite() && back.is_ok_and(|b| b.to_bits() == x.to_bits()) {
                out.push_str(&s);
            } else {
                let _ = write!(out, "\"f64:0x{:016x}\"", x.to_bits());
            }
        }
        Value::Char(c) => out.push_str(&quoted(&c.to_string())),
        Value::Str(s) => out.push_str(&quoted(s)),
        Value::Bytes(b) => write_hex(out, b.iter().copied()),
        Value::Seq(items)
            if !items.is_empty() && items.iter().all(|x| matches!(x, Value::U8(_))) =>
        {
            write_hex(
                out,
                items.iter().map(|x| match x {
                    Value::U8(b) => *b,
                    _ => 0,
                }),
            )
        }
        Value::Seq(items) if items.iter().all(is_scalar) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(c, x, out, depth + 1);
            }
            out.push(']');
        }
        Value::Seq(items) => {
            out.push_str("[\n");
            for (i, x) in items.iter().enumerate() {
                pad(out, depth + 1);
                write_value(c, x, out, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push(']');
        }
        Value::Map(pairs) => {
            out.push('[');
            for (i, (k, x)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('[');
                write_value(c, k, out, depth + 1);
                out.push_str(", ");
                write_value(c, x, out, depth + 1);
                out.push(']');
            }
            out.push(']');
        }
        Value::Struct { name, fields } => {
            // A record's typed form has the fields of every variant of the
            // schema; the text holds those this variant's record stores.
            let stored = |k: &str| match c.get(name) {
                Some(TypeDef::Struct(st)) => st
                    .fields
                    .iter()
                    .any(|f| f.name == k && Checked::is_stored(f)),
                _ => true,
            };
            let fields: Vec<&(String, Value)> = fields.iter().filter(|(k, _)| stored(k)).collect();
            if fields.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push_str("{\n");
            for (i, (k, x)) in fields.iter().enumerate() {
                pad(out, depth + 1);
                let _ = write!(out, "{}: ", quoted(k));
                write_value(c, x, out, depth + 1);
                out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push('}');
        }
        Value::Variant { variant, value, .. } => {
            let _ = write!(out, "{{{}: ", quoted(variant));
            write_value(c, value, out, depth);
            out.push('}');
        }
    }
}

fn write_num(out: &mut String, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn write_hex(out: &mut String, bytes: impl Iterator<Item = u8>) {
    out.push('"');
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out.push('"');
}

/// Reads JSON values as the schema's types.
struct Reader<'c> {
    c: &'c Checked,
}

type R<T> = Result<T, String>;

fn kind(j: &serde_json::Value) -> &'static str {
    match j {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a bool",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn expected(path: &dyn fmt::Display, what: &str, j: &serde_json::Value) -> String {
    format!("{path}: expected {what}, found {}", kind(j))
}

impl Reader<'_> {
    /// A record: an object of exactly its stored fields.
    fn record(&self, st: &StructDef, j: &serde_json::Value, path: &At<'_>) -> R<Value> {
        let serde_json::Value::Object(map) = j else {
            return Err(expected(
                path,
                &format!("a `{}` record (an object)", st.name),
                j,
            ));
        };
        let mut fields: Vec<(String, Value)> = Vec::new();
        for f in &st.fields {
            if !Checked::is_stored(f) || fields.iter().any(|(n, _)| n == &f.name) {
                continue;
            }
            let fpath = At::Field(path, &f.name);
            let Some(x) = map.get(&f.name) else {
                // A slot count left out is its table's rule's.
                if let Some(v) = rule_slots(st, &f.name, map) {
                    fields.push((f.name.clone(), self.value(&f.ty, &v.into(), &fpath)?));
                    continue;
                }
                return Err(format!("{path}: no `{}` (a `{}` has one)", f.name, st.name));
            };
            let v = self.field(st, f, x, &fpath)?;
            fields.push((f.name.clone(), v));
        }
        if let Some(k) = map.keys().find(|k| !fields.iter().any(|(n, _)| n == *k)) {
            let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            return Err(format!(
                "{path}: `{k}` is not a field `{}` stores (it stores: {})",
                st.name,
                names.join(", ")
            ));
        }
        Ok(Value::Struct {
            name: st.name.clone(),
            fields,
        })
    }

    fn field(
        &self,
        st: &StructDef,
        f: &codec_schema::Field,
        j: &serde_json::Value,
        path: &At<'_>,
    ) -> R<Value> {
        match &f.ty {
            Type::Bits { fields, .. } => {
                let serde_json::Value::Object(map) = j else {
                    return Err(expected(path, "an object of bit ranges", j));
                };
                let mut out = Vec::new();
                for b in fields {
                    let bpath = At::Field(path, &b.name);
                    let x = map
                        .get(&b.name)
                        .ok_or_else(|| format!("{path}: no bit range `{}`", b.name))?;
                    let v = match x {
                        serde_json::Value::Bool(v) => Value::Bool(*v),
                        serde_json::Value::String(s) if b.str.is_some() => Value::Str(s.clone()),
                        x => {
                            Value::U64(x.as_u64().ok_or_else(|| {
                                expected(&bpath, "an unsigned number or a bool", x)
                            })?)
                        }
                    };
                    out.push((b.name.clone(), v));
                }
                if let Some(k) = map.keys().find(|k| !fields.iter().any(|b| &b.name == *k)) {
                    return Err(format!("{path}: `{k}` is not one of its bit ranges"));
                }
                Ok(Value::Struct {
                    name: bits_struct_name(&st.name, &f.name),
                    fields: out,
                })
            }
            t => self.value(t, j, path),
        }
    }

    fn value(&self, t: &Type, j: &serde_json::Value, path: &At<'_>) -> R<Value> {
        use serde_json::Value as J;
        let int = |j: &J| -> R<i128> {
            if let Some(x) = j.as_u64() {
                return Ok(x.into());
            }
            j.as_i64()
                .map(i128::from)
                .ok_or_else(|| expected(path, "an integer", j))
        };
        let fits = |x: i128, lo: i128, hi: i128, name: &str| -> R<i128> {
            if x < lo || x > hi {
                Err(format!("{path}: {x} does not fit a {name}"))
            } else {
                Ok(x)
            }
        };
        Ok(match t {
            Type::U8 | Type::Pad { .. } => Value::U8(fits(int(j)?, 0, 0xFF, "u8")? as u8),
            Type::U16 => Value::U16(fits(int(j)?, 0, 0xFFFF, "u16")? as u16),
            Type::U24 => Value::U32(fits(int(j)?, 0, 0xFF_FFFF, "u24")? as u32),
            Type::U32 => Value::U32(fits(int(j)?, 0, u32::MAX.into(), "u32")? as u32),
            Type::U64 => Value::U64(fits(int(j)?, 0, u64::MAX.into(), "u64")? as u64),
            Type::I8 => Value::I8(fits(int(j)?, i8::MIN.into(), i8::MAX.into(), "i8")? as i8),
            Type::I16 => Value::I16(fits(int(j)?, i16::MIN.into(), i16::MAX.into(), "i16")? as i16),
            Type::I32 => Value::I32(fits(int(j)?, i32::MIN.into(), i32::MAX.into(), "i32")? as i32),
            Type::I64 => Value::I64(fits(int(j)?, i64::MIN.into(), i64::MAX.into(), "i64")? as i64),
            Type::F32 => Value::F32(match j {
                J::String(s) => f32::from_bits(bits(s, "f32:0x", path)? as u32),
                j => {
                    let x = j.as_f64().ok_or_else(|| expected(path, "a number", j))?;
                    if (x as f32).is_infinite() {
                        return Err(format!("{path}: {x} does not fit an f32"));
                    }
                    x as f32
                }
            }),
            Type::F64 => Value::F64(match j {
                J::String(s) => f64::from_bits(bits(s, "f64:0x", path)?),
                j => j.as_f64().ok_or_else(|| expected(path, "a number", j))?,
            }),
            Type::Bool8 | Type::Bool32 => {
                Value::Bool(j.as_bool().ok_or_else(|| expected(path, "a bool", j))?)
            }
            // An interned string is its text (the writer looks its index up).
            Type::CString { .. } | Type::PString { .. } | Type::Str { .. } | Type::Index { .. } => {
                Value::Str(
                    j.as_str()
                        .ok_or_else(|| expected(path, "a string", j))?
                        .to_owned(),
                )
            }
            Type::Fixed { raw, .. } => self.value(raw, j, path)?,
            Type::HashSlots { of, .. } => {
                let J::Array(items) = j else {
                    return Err(expected(path, "an array", j));
                };
                let t = Type::Named(of.clone());
                Value::Seq(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| self.value(&t, x, &At::Index(path, i)))
                        .collect::<R<_>>()?,
                )
            }
            // Runs of text as strings, records as a union's values.
            Type::Text { tags, lossless, .. } => {
                let J::Array(items) = j else {
                    return Err(expected(path, "an array of strings and tags", j));
                };
                let mut parts = Vec::with_capacity(items.len());
                for (i, x) in items.iter().enumerate() {
                    let ipath = At::Index(path, i);
                    let bytes = match x {
                        J::Object(m) if *lossless && m.len() == 1 => m.get(TEXT_BYTES),
                        _ => None,
                    };
                    parts.push(match (x, tags) {
                        (J::String(s), _) => Value::Str(s.clone()),
                        _ if bytes.is_some() => Value::Variant {
                            union: "Text".into(),
                            variant: TEXT_BYTES.into(),
                            value: Box::new(octets(bytes.unwrap_or(x), &ipath)?),
                        },
                        (x, Some(u)) => self.variant(u, x, &ipath)?,
                        (x, None) => return Err(expected(&ipath, "a string", x)),
                    });
                }
                Value::Seq(parts)
            }
            Type::Bytes(_) => octets(j, path)?,
            Type::Array { of, .. } | Type::List { of, .. } => match (&**of, j) {
                (Type::U8, J::String(_)) => octets(j, path)?,
                (of, J::Array(items)) => Value::Seq(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| self.value(of, x, &At::Index(path, i)))
                        .collect::<R<_>>()?,
                ),
                _ => return Err(expected(path, "an array", j)),
            },
            Type::Named(n) => match self.c.get(n) {
                Some(TypeDef::Struct(st)) => self.record(st, j, path)?,
                Some(TypeDef::Union(_)) => self.variant(n, j, path)?,
                None => return Err(format!("{path}: the schema has no type `{n}`")),
            },
            Type::Switch { union, .. } | Type::Select { union, .. } => {
                self.variant(union, j, path)?
            }
            Type::Ptr(p) => {
                if p.optional && j.is_null() {
                    return Ok(Value::Option(None));
                }
                let inner = match &p.align {
                    Some(_) => {
                        let J::Object(map) = j else {
                            return Err(expected(path, "an object of `align` and `value`", j));
                        };
                        if let Some(k) = map.keys().find(|k| *k != "align" && *k != "value") {
                            return Err(format!("{path}: `{k}` is neither `align` nor `value`"));
                        }
                        let a = map.get("align").and_then(J::as_u64).ok_or_else(|| {
                            format!("{path}.align: expected an alignment (0: chosen on writing)")
                        })?;
                        let v = map
                            .get("value")
                            .ok_or_else(|| format!("{path}: no `value`"))?;
                        Value::Struct {
                            name: "Aligned".into(),
                            fields: vec![
                                ("align".into(), Value::U64(a)),
                                (
                                    "value".into(),
                                    self.value(&p.to, v, &At::Field(path, "value"))?,
                                ),
                            ],
                        }
                    }
                    None => self.value(&p.to, j, path)?,
                };
                if p.optional {
                    Value::Option(Some(Box::new(inner)))
                } else {
                    inner
                }
            }
            Type::Magic(_) => Value::Unit,
            Type::Bits { .. } => {
                return Err(format!(
                    "{path}: bit ranges are read as a record's field (internal)"
                ))
            }
            Type::Follows { to, .. } => self.value(to, j, path)?,
            Type::Groups { of, .. } => {
                let J::Array(groups) = j else {
                    return Err(expected(path, "an array of groups", j));
                };
                let mut out = Vec::new();
                for (g, group) in groups.iter().enumerate() {
                    let gpath = At::Index(path, g);
                    out.push(self.value(
                        &Type::List {
                            of: of.clone(),
                            count: Box::new(codec_schema::Count::ToNext),
                        },
                        group,
                        &gpath,
                    )?);
                }
                Value::Seq(out)
            }
            Type::Pool {} => {
                let J::Object(map) = j else {
                    return Err(expected(path, "a string pool (`strings`, `odd`)", j));
                };
                if let Some(k) = map.keys().find(|k| *k != "strings" && *k != "odd") {
                    return Err(format!("{path}: `{k}` is neither `strings` nor `odd`"));
                }
                let text = |x: &J, at: &At<'_>| -> R<Value> {
                    x.as_str()
                        .map(|s| Value::Str(s.to_owned()))
                        .ok_or_else(|| expected(at, "a string", x))
                };
                let strings = match map.get("strings") {
                    Some(J::Array(a)) => a
                        .iter()
                        .enumerate()
                        .map(|(i, x)| text(x, &At::Index(&At::Field(path, "strings"), i)))
                        .collect::<R<Vec<_>>>()?,
                    Some(x) => return Err(expected(&At::Field(path, "strings"), "an array", x)),
                    None => Vec::new(),
                };
                let mut odd = Vec::new();
                if let Some(x) = map.get("odd") {
                    let J::Array(a) = x else {
                        return Err(expected(&At::Field(path, "odd"), "an array", x));
                    };
                    for (i, pair) in a.iter().enumerate() {
                        let odd_at = At::Field(path, "odd");
                        let at = At::Index(&odd_at, i);
                        match pair.as_array().map(Vec::as_slice) {
                            Some([off, t]) => odd.push(Value::Seq(vec![
                                Value::U64(
                                    off.as_u64()
                                        .ok_or_else(|| expected(&at, "an offset", off))?,
                                ),
                                text(t, &at)?,
                            ])),
                            _ => return Err(expected(&at, "[offset, text]", pair)),
                        }
                    }
                }
                Value::Struct {
                    name: "StringPool".into(),
                    fields: vec![
                        ("strings".into(), Value::Seq(strings)),
                        ("odd".into(), Value::Seq(odd)),
                    ],
                }
            }
            Type::SharesEqual { .. } => {
                Value::Bool(j.as_bool().ok_or_else(|| expected(path, "a bool", j))?)
            }
            Type::Table { .. } => {
                let J::Array(items) = j else {
                    return Err(expected(path, "an array of strings", j));
                };
                let mut out = Vec::with_capacity(items.len());
                for (i, x) in items.iter().enumerate() {
                    out.push(Value::Str(
                        x.as_str()
                            .ok_or_else(|| expected(&At::Index(path, i), "a string", x))?
                            .to_owned(),
                    ));
                }
                Value::Seq(out)
            }
            // A reference is the ordinal of the record it points at.
            Type::Ref { .. } => Value::U32(fits(int(j)?, 0, u32::MAX.into(), "u32")? as u32),
            // Rows are arrays of cells, each a variant of the cell union.
            Type::Rows { cells, .. } => {
                let J::Array(rows) = j else {
                    return Err(expected(path, "an array of rows", j));
                };
                let mut out = Vec::with_capacity(rows.len());
                for (i, row) in rows.iter().enumerate() {
                    let rpath = At::Index(path, i);
                    let J::Array(row) = row else {
                        return Err(expected(&rpath, "a row (an array of cells)", row));
                    };
                    let cells = row
                        .iter()
                        .enumerate()
                        .map(|(k, x)| self.variant(cells, x, &At::Index(&rpath, k)))
                        .collect::<R<Vec<_>>>()?;
                    out.push(Value::Seq(cells));
                }
                Value::Seq(out)
            }
            // Not held by the document: the writer builds it.
            Type::Hash { .. } => Value::Unit,
        })
    }

    /// A union's value: an object of one key, the variant's name.
    fn variant(&self, union: &str, j: &serde_json::Value, path: &At<'_>) -> R<Value> {
        let Some(TypeDef::Union(u)) = self.c.get(union) else {
            return Err(format!("{path}: `{union}` is not a union"));
        };
        let serde_json::Value::Object(map) = j else {
            return Err(expected(path, "an object naming the variant", j));
        };
        let mut it = map.iter();
        let (Some((name, x)), None) = (it.next(), it.next()) else {
            return Err(format!(
                "{path}: a union's value has one key, the variant's name"
            ));
        };
        let var = u.variants.iter().find(|v| &v.name == name).ok_or_else(|| {
            let names: Vec<&str> = u.variants.iter().map(|v| v.name.as_str()).collect();
            format!(
                "{path}: `{name}` is not a variant of `{union}` ({})",
                names.join(", ")
            )
        })?;
        Ok(Value::Variant {
            union: union.to_owned(),
            variant: var.name.clone(),
            value: Box::new(self.value(&var.ty, x, &At::Variant(path, name))?),
        })
    }
}

/// The part of lossless text that is no text: `{"Bytes": "cfffff"}`.
const TEXT_BYTES: &str = crate::TEXT_BYTES;

/// Bytes: a string of hex digits, or an array of numbers.
fn octets(j: &serde_json::Value, path: &At<'_>) -> R<Value> {
    match j {
        serde_json::Value::String(s) => {
            if s.len() % 2 != 0 {
                return Err(format!("{path}: an odd number of hex digits"));
            }
            let bytes = s.as_bytes();
            let mut out = Vec::with_capacity(bytes.len() / 2);
            for (i, pair) in bytes.chunks(2).enumerate() {
                let text = std::str::from_utf8(pair).unwrap_or("");
                let b = u8::from_str_radix(text, 16).map_err(|_| {
                    format!(
                        "{path}: `{text}` at character {} is not two hex digits",
                        i * 2
                    )
                })?;
                out.push(Value::U8(b));
            }
            Ok(Value::Seq(out))
        }
        serde_json::Value::Array(items) => items
            .iter()
            .map(|x| {
                x.as_u64()
                    .filter(|&b| b <= 0xFF)
                    .map(|b| Value::U8(b as u8))
                    .ok_or_else(|| expected(path, "bytes (0 to 255)", x))
            })
            .collect::<R<Vec<_>>>()
            .map(Value::Seq),
        j => Err(expected(path, "bytes (a string of hex digits)", j)),
    }
}

/// The bits of a float written as `"f32:0x…"`.
fn bits(s: &str, prefix: &str, path: &At<'_>) -> R<u64> {
    s.strip_prefix(prefix)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("{path}: `{s}` is not a number nor `{prefix}` and hex bits"))
}

/// The slot count of field `slots` of `st` when the document leaves it
/// out: the rule of the table of hash slots it counts, applied to that
/// table's number of records (`None` when no such table has a rule).
fn rule_slots(
    st: &StructDef,
    slots: &str,
    map: &serde_json::Map<String, serde_json::Value>,
) -> Option<u64> {
    st.fields.iter().find_map(|g| match &g.ty {
        Type::HashSlots {
            slots: s,
            rule: Some(rule),
            ..
        } if s == slots => {
            let records = map.get(&g.name)?.as_array()?.len() as u64;
            Some(rule.slots(records))
        }
        _ => None,
    })
}
