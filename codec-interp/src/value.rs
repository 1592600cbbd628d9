//! A self-describing value with the shape serde gives the generated types.
//!
//! The interpreter produces a [`Value`] for a decoded file
//! ([`super::Node::to_value`]); [`to_value`] turns any `serde::Serialize`
//! value, such as a compiled codec's typed value, into the same shape. The
//! two compare with `==`, floats by their bits (so a NaN equals itself and
//! `0.0` differs from `-0.0`).

use serde::ser::{self, Serialize};
use std::fmt;

/// A decoded value: numbers keep their Rust type, structs and variants their
/// names.
#[derive(Debug, Clone)]
pub enum Value {
    Unit,
    Bool(bool),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Char(char),
    Str(String),
    /// Bytes serialized as a byte string (`serialize_bytes`), and the
    /// interpreter's lists of `u8` (one value, not one per byte); a typed
    /// document's arrays of `u8` are a [`Value::Seq`] of [`Value::U8`],
    /// which compares equal to the same bytes in this form.
    Bytes(Vec<u8>),
    Option(Option<Box<Value>>),
    /// Arrays, tuples and lists alike.
    Seq(Vec<Value>),
    Map(Vec<(Value, Value)>),
    /// A struct (or a unit or tuple struct: its fields are then `0`, `1`, …).
    Struct {
        name: String,
        fields: Vec<(String, Value)>,
    },
    /// One variant of an enum with its payload ([`Value::Unit`] for a unit variant).
    Variant {
        union: String,
        variant: String,
        value: Box<Value>,
    },
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Unit, Unit) => true,
            (Bool(a), Bool(b)) => a == b,
            (U8(a), U8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            // A list of `u8` is one or the other form: the interpreter
            // keeps bytes as bytes, a typed document serializes a `Vec<u8>`
            // element by element.
            (Bytes(a), Seq(b)) | (Seq(b), Bytes(a)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| *y == U8(*x))
            }
            (Option(a), Option(b)) => a == b,
            (Seq(a), Seq(b)) => a == b,
            (Map(a), Map(b)) => a == b,
            (
                Struct {
                    name: n1,
                    fields: f1,
                },
                Struct {
                    name: n2,
                    fields: f2,
                },
            ) => n1 == n2 && f1 == f2,
            (
                Variant {
                    union: u1,
                    variant: v1,
                    value: x1,
                },
                Variant {
                    union: u2,
                    variant: v2,
                    value: x2,
                },
            ) => u1 == u2 && v1 == v2 && x1 == x2,
            _ => false,
        }
    }
}

impl Value {
    /// What kind of value this is, in words, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Unit => "nothing",
            Value::Bool(_) => "a bool",
            Value::U8(_) => "a u8",
            Value::U16(_) => "a u16",
            Value::U32(_) => "a u32",
            Value::U64(_) => "a u64",
            Value::I8(_) => "an i8",
            Value::I16(_) => "an i16",
            Value::I32(_) => "an i32",
            Value::I64(_) => "an i64",
            Value::F32(_) => "an f32",
            Value::F64(_) => "an f64",
            Value::Char(_) => "a character",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Option(_) => "an optional value",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a map",
            Value::Struct { .. } => "a record",
            Value::Variant { .. } => "a variant",
        }
    }

    /// The first place where two values differ, as a path (`.root.lists[2]`)
    /// and both sides in short form; `None` when they are equal. For test
    /// messages that a human can act on.
    pub fn first_difference(&self, other: &Value) -> Option<String> {
        fn walk(a: &Value, b: &Value, path: &mut String) -> Option<String> {
            match (a, b) {
                (Value::Seq(x), Value::Seq(y)) => {
                    if x.len() != y.len() {
                        return Some(format!("{path}: {} elements vs {}", x.len(), y.len()));
                    }
                    for (i, (p, q)) in x.iter().zip(y).enumerate() {
                        let n = path.len();
                        path.push_str(&format!("[{i}]"));
                        if let Some(d) = walk(p, q, path) {
                            return Some(d);
                        }
                        path.truncate(n);
                    }
                    None
                }
                (
                    Value::Struct {
                        name: n1,
                        fields: f1,
                    },
                    Value::Struct {
                        name: n2,
                        fields: f2,
                    },
                ) if n1 == n2 && f1.len() == f2.len() => {
                    for ((k1, v1), (k2, v2)) in f1.iter().zip(f2) {
                        if k1 != k2 {
                            return Some(format!("{path}: field `{k1}` vs `{k2}`"));
                        }
                        let n = path.len();
                        path.push('.');
                        path.push_str(k1);
                        if let Some(d) = walk(v1, v2, path) {
                            return Some(d);
                        }
                        path.truncate(n);
                    }
                    None
                }
                (
                    Value::Variant {
                        union: u1,
                        variant: v1,
                        value: x1,
                    },
                    Value::Variant {
                        union: u2,
                        variant: v2,
                        value: x2,
                    },
                ) if u1 == u2 && v1 == v2 => {
                    let n = path.len();
                    path.push_str("::");
                    path.push_str(v1);
                    let d = walk(x1, x2, path);
                    path.truncate(n);
                    d
                }
                (Value::Option(Some(x)), Value::Option(Some(y))) => walk(x, y, path),
                _ if a == b => None,
                _ => Some(format!("{path}: {} vs {}", a.short(), b.short())),
            }
        }
        walk(self, other, &mut String::new())
    }

    /// A one-line form for messages: scalars in full, containers by shape.
    pub fn short(&self) -> String {
        match self {
            Value::Seq(v) => format!("[{} elements]", v.len()),
            Value::Map(v) => format!("{{{} entries}}", v.len()),
            Value::Struct { name, fields } => format!("{name} {{{} fields}}", fields.len()),
            Value::Variant { union, variant, .. } => format!("{union}::{variant}(…)"),
            Value::Option(None) => "None".into(),
            Value::Option(Some(v)) => format!("Some({})", v.short()),
            other => other.to_string(),
        }
    }
}

/// Scalars as a researcher reads them: integers in decimal with their hex
/// form from 10 up, floats in their shortest exact form, strings quoted.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn int(f: &mut fmt::Formatter<'_>, v: u64) -> fmt::Result {
            if v < 10 {
                write!(f, "{v}")
            } else {
                write!(f, "{v} (0x{v:x})")
            }
        }
        match self {
            Value::Unit => f.write_str("()"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::U8(v) => int(f, u64::from(*v)),
            Value::U16(v) => int(f, u64::from(*v)),
            Value::U32(v) => int(f, u64::from(*v)),
            Value::U64(v) => int(f, *v),
            Value::I8(v) => write!(f, "{v}"),
            Value::I16(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v:?}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::Char(c) => write!(f, "{c:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => {
                for (i, x) in b.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{x:02x}")?;
                }
                Ok(())
            }
            other => f.write_str(&other.short()),
        }
    }
}

/// JSON-friendly: numbers as numbers (non-finite floats as strings such as
/// `"NaN"`), structs as maps of their fields, variants as
/// `{"Variant": payload}`.
impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Unit => s.serialize_unit(),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::U8(v) => s.serialize_u8(*v),
            Value::U16(v) => s.serialize_u16(*v),
            Value::U32(v) => s.serialize_u32(*v),
            Value::U64(v) => s.serialize_u64(*v),
            Value::I8(v) => s.serialize_i8(*v),
            Value::I16(v) => s.serialize_i16(*v),
            Value::I32(v) => s.serialize_i32(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::F32(v) if v.is_finite() => s.serialize_f32(*v),
            Value::F64(v) if v.is_finite() => s.serialize_f64(*v),
            Value::F32(v) => s.serialize_str(&format!("{v:?}")),
            Value::F64(v) => s.serialize_str(&format!("{v:?}")),
            Value::Char(c) => s.serialize_char(*c),
            Value::Str(v) => s.serialize_str(v),
            Value::Bytes(b) => s.serialize_bytes(b),
            Value::Option(None) => s.serialize_none(),
            Value::Option(Some(v)) => s.serialize_some(v),
            Value::Seq(v) => {
                let mut q = s.serialize_seq(Some(v.len()))?;
                for e in v {
                    q.serialize_element(e)?;
                }
                q.end()
            }
            Value::Map(v) => {
                let mut m = s.serialize_map(Some(v.len()))?;
                for (k, x) in v {
                    m.serialize_entry(k, x)?;
                }
                m.end()
            }
            Value::Struct { fields, .. } => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for (k, x) in fields {
                    m.serialize_entry(k, x)?;
                }
                m.end()
            }
            Value::Variant { variant, value, .. } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(variant, value)?;
                m.end()
            }
        }
    }
}

/// Why a value could not be turned into a [`Value`] (only custom
/// `Serialize` impls can fail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError(pub String);

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

impl ser::Error for ValueError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ValueError(msg.to_string())
    }
}

/// Serializes `v` into a [`Value`].
pub fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<Value, ValueError> {
    v.serialize(ValueSerializer)
}

/// The serde serializer behind [`to_value`].
#[derive(Debug, Clone, Copy)]
pub struct ValueSerializer;

/// Collects the elements of a sequence, tuple or tuple struct.
#[derive(Debug)]
pub struct SeqBuilder {
    items: Vec<Value>,
    /// For tuple variants: the enum and variant names.
    variant: Option<(&'static str, &'static str)>,
}

/// Collects the fields of a struct or struct variant.
#[derive(Debug)]
pub struct StructBuilder {
    name: &'static str,
    fields: Vec<(String, Value)>,
    variant: Option<&'static str>,
}

/// Collects the entries of a map.
#[derive(Debug)]
pub struct MapBuilder {
    entries: Vec<(Value, Value)>,
    key: Option<Value>,
}

fn variant(union: &str, name: &str, value: Value) -> Value {
    Value::Variant {
        union: union.to_owned(),
        variant: name.to_owned(),
        value: Box::new(value),
    }
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = ValueError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = SeqBuilder;
    type SerializeMap = MapBuilder;
    type SerializeStruct = StructBuilder;
    type SerializeStructVariant = StructBuilder;

    fn serialize_bool(self, v: bool) -> Result<Value, ValueError> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, ValueError> {
        Ok(Value::I8(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, ValueError> {
        Ok(Value::I16(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, ValueError> {
        Ok(Value::I32(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, ValueError> {
        Ok(Value::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, ValueError> {
        Ok(Value::U8(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, ValueError> {
        Ok(Value::U16(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, ValueError> {
        Ok(Value::U32(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, ValueError> {
        Ok(Value::U64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, ValueError> {
        Ok(Value::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, ValueError> {
        Ok(Value::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, ValueError> {
        Ok(Value::Char(v))
    }
    fn serialize_str(self, v: &str) -> Result<Value, ValueError> {
        Ok(Value::Str(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, ValueError> {
        Ok(Value::Bytes(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value, ValueError> {
        Ok(Value::Option(None))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, ValueError> {
        Ok(Value::Option(Some(Box::new(v.serialize(self)?))))
    }
    fn serialize_unit(self) -> Result<Value, ValueError> {
        Ok(Value::Unit)
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Value, ValueError> {
        Ok(Value::Struct {
            name: name.to_owned(),
            fields: Vec::new(),
        })
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _index: u32,
        v: &'static str,
    ) -> Result<Value, ValueError> {
        Ok(variant(name, v, Value::Unit))
    }
    /// Transparent, like `Box`: a newtype struct is its content.
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<Value, ValueError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _index: u32,
        v: &'static str,
        value: &T,
    ) -> Result<Value, ValueError> {
        Ok(variant(name, v, value.serialize(self)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, ValueError> {
        Ok(SeqBuilder {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, ValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, ValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        v: &'static str,
        len: usize,
    ) -> Result<SeqBuilder, ValueError> {
        let mut b = self.serialize_seq(Some(len))?;
        b.variant = Some((name, v));
        Ok(b)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder, ValueError> {
        Ok(MapBuilder {
            entries: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructBuilder, ValueError> {
        Ok(StructBuilder {
            name,
            fields: Vec::with_capacity(len),
            variant: None,
        })
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        v: &'static str,
        len: usize,
    ) -> Result<StructBuilder, ValueError> {
        Ok(StructBuilder {
            name,
            fields: Vec::with_capacity(len),
            variant: Some(v),
        })
    }
}

impl SeqBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ValueError> {
        self.items.push(v.serialize(ValueSerializer)?);
        Ok(())
    }
    fn finish(self) -> Value {
        let seq = Value::Seq(self.items);
        match self.variant {
            Some((u, v)) => variant(u, v, seq),
            None => seq,
        }
    }
}

/// serde splits "a sequence" into four traits whose methods differ only in
/// name; a [`SeqBuilder`] takes the elements of all four the same way
/// (`push`, then `finish`), so their impls are written once, here.
macro_rules! seq_builder_impls {
    ($($trait:ident :: $method:ident),+ $(,)?) => {$(
        impl ser::$trait for SeqBuilder {
            type Ok = Value;
            type Error = ValueError;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ValueError> {
                self.push(v)
            }
            fn end(self) -> Result<Value, ValueError> {
                Ok(self.finish())
            }
        }
    )+};
}

seq_builder_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

impl ser::SerializeMap for MapBuilder {
    type Ok = Value;
    type Error = ValueError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), ValueError> {
        self.key = Some(k.serialize(ValueSerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), ValueError> {
        let k = self
            .key
            .take()
            .ok_or_else(|| ValueError("a map value came without its key".into()))?;
        self.entries.push((k, v.serialize(ValueSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Value, ValueError> {
        Ok(Value::Map(self.entries))
    }
}

impl StructBuilder {
    fn push<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<(), ValueError> {
        self.fields
            .push((k.to_owned(), v.serialize(ValueSerializer)?));
        Ok(())
    }
    fn finish(self) -> Value {
        match self.variant {
            Some(v) => variant(
                self.name,
                v,
                Value::Struct {
                    name: v.to_owned(),
                    fields: self.fields,
                },
            ),
            None => Value::Struct {
                name: self.name.to_owned(),
                fields: self.fields,
            },
        }
    }
}

/// Likewise a struct and a struct variant: a [`StructBuilder`] takes the
/// fields of both the same way, so their impls are written once, here.
macro_rules! struct_builder_impls {
    ($($trait:ident),+ $(,)?) => {$(
        impl ser::$trait for StructBuilder {
            type Ok = Value;
            type Error = ValueError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                k: &'static str,
                v: &T,
            ) -> Result<(), ValueError> {
                self.push(k, v)
            }
            fn end(self) -> Result<Value, ValueError> {
                Ok(self.finish())
            }
        }
    )+};
}

struct_builder_impls!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Pair {
        a: u32,
        b: [f32; 2],
    }

    #[derive(serde::Serialize)]
    enum E {
        One(Box<Pair>),
        Two(Vec<i8>),
    }

    #[test]
    fn shapes() {
        let v = to_value(&E::One(Box::new(Pair {
            a: 7,
            b: [f32::NAN, -0.0],
        })))
        .unwrap();
        let expected = Value::Variant {
            union: "E".into(),
            variant: "One".into(),
            value: Box::new(Value::Struct {
                name: "Pair".into(),
                fields: vec![
                    ("a".into(), Value::U32(7)),
                    (
                        "b".into(),
                        Value::Seq(vec![Value::F32(f32::NAN), Value::F32(-0.0)]),
                    ),
                ],
            }),
        };
        assert_eq!(v, expected);
        // Floats compare by bits: 0.0 is not -0.0.
        let other = to_value(&E::One(Box::new(Pair {
            a: 7,
            b: [f32::NAN, 0.0],
        })))
        .unwrap();
        assert_ne!(v, other);
        assert_eq!(
            v.first_difference(&other).as_deref(),
            Some("::One.b[1]: -0.0 vs 0.0")
        );
        assert_eq!(
            to_value(&E::Two(vec![-1])).unwrap(),
            Value::Variant {
                union: "E".into(),
                variant: "Two".into(),
                value: Box::new(Value::Seq(vec![Value::I8(-1)]))
            }
        );
    }
}
