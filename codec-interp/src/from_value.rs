//! The way back from a [`Value`]: a serde `Deserializer` over it, so a
//! value taken out of a typed document with [`to_value`](super::to_value)
//! and changed (an edit in `codec explore`) becomes the typed document
//! again and is written by its compiled codec.
//!
//! It reads exactly the shapes [`to_value`](super::to_value) makes: a
//! newtype struct is its content, a struct a map of its fields, a variant
//! its name with its payload (unit, one value, a sequence or a struct). A
//! value of another shape than the type asks for is an error naming both.

use super::value::{Value, ValueError};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::fmt;

impl de::Error for ValueError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ValueError(msg.to_string())
    }
}

/// The typed value `v` is the generic form of.
pub fn from_value<T: DeserializeOwned>(v: Value) -> Result<T, ValueError> {
    T::deserialize(v)
}

impl<'de> IntoDeserializer<'de, ValueError> for Value {
    type Deserializer = Value;
    fn into_deserializer(self) -> Value {
        self
    }
}

impl<'de> de::Deserializer<'de> for Value {
    type Error = ValueError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, ValueError> {
        match self {
            Value::Unit => v.visit_unit(),
            Value::Bool(x) => v.visit_bool(x),
            Value::U8(x) => v.visit_u8(x),
            Value::U16(x) => v.visit_u16(x),
            Value::U32(x) => v.visit_u32(x),
            Value::U64(x) => v.visit_u64(x),
            Value::I8(x) => v.visit_i8(x),
            Value::I16(x) => v.visit_i16(x),
            Value::I32(x) => v.visit_i32(x),
            Value::I64(x) => v.visit_i64(x),
            Value::F32(x) => v.visit_f32(x),
            Value::F64(x) => v.visit_f64(x),
            Value::Char(x) => v.visit_char(x),
            Value::Str(x) => v.visit_string(x),
            Value::Bytes(x) => v.visit_byte_buf(x),
            Value::Option(None) => v.visit_none(),
            Value::Option(Some(x)) => v.visit_some(*x),
            Value::Seq(x) => v.visit_seq(Items(x.into_iter())),
            Value::Map(x) => v.visit_map(Entries {
                entries: x.into_iter(),
                value: None,
            }),
            Value::Struct { fields, .. } => v.visit_map(Entries {
                entries: fields
                    .into_iter()
                    .map(|(k, x)| (Value::Str(k), x))
                    .collect::<Vec<_>>()
                    .into_iter(),
                value: None,
            }),
            Value::Variant { variant, value, .. } => v.visit_enum(Variant {
                name: variant,
                value: *value,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, ValueError> {
        match self {
            Value::Option(None) => v.visit_none(),
            Value::Option(Some(x)) => v.visit_some(*x),
            other => v.visit_some(other),
        }
    }

    /// Transparent, as [`to_value`](super::to_value) writes it.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, ValueError> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, ValueError> {
        match self {
            Value::Unit => v.visit_unit(),
            Value::Struct { fields, .. } if fields.is_empty() => v.visit_unit(),
            other => Err(ValueError(format!(
                "expected the unit struct {name}, found {}",
                other.short()
            ))),
        }
    }

    /// Bytes written as a byte string read back as a sequence too.
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, ValueError> {
        match self {
            Value::Bytes(b) => v.visit_seq(Items(
                b.into_iter().map(Value::U8).collect::<Vec<_>>().into_iter(),
            )),
            other => other.deserialize_any(v),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, ValueError> {
        self.deserialize_seq(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, ValueError> {
        match self {
            Value::Variant { variant, value, .. } => v.visit_enum(Variant {
                name: variant,
                value: *value,
            }),
            // A unit variant by its name alone.
            Value::Str(variant) => v.visit_enum(Variant {
                name: variant,
                value: Value::Unit,
            }),
            other => Err(ValueError(format!(
                "expected a variant of {name}, found {}",
                other.short()
            ))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit tuple_struct map struct identifier ignored_any
    }
}

/// The elements of a sequence.
struct Items(std::vec::IntoIter<Value>);

impl<'de> de::SeqAccess<'de> for Items {
    type Error = ValueError;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, ValueError> {
        self.0.next().map(|x| seed.deserialize(x)).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The entries of a map, or a struct's fields by name.
struct Entries {
    entries: std::vec::IntoIter<(Value, Value)>,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = ValueError;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ValueError> {
        match self.entries.next() {
            Some((k, x)) => {
                self.value = Some(x);
                seed.deserialize(k).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<X: de::DeserializeSeed<'de>>(
        &mut self,
        seed: X,
    ) -> Result<X::Value, ValueError> {
        let x = self
            .value
            .take()
            .ok_or_else(|| ValueError("a map value asked for before its key".into()))?;
        seed.deserialize(x)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// One variant: its name and payload.
struct Variant {
    name: String,
    value: Value,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = ValueError;
    type Variant = Value;
    fn variant_seed<S: de::DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Value), ValueError> {
        let name = seed.deserialize(Value::Str(self.name))?;
        Ok((name, self.value))
    }
}

impl<'de> de::VariantAccess<'de> for Value {
    type Error = ValueError;
    fn unit_variant(self) -> Result<(), ValueError> {
        match self {
            Value::Unit => Ok(()),
            other => Err(ValueError(format!(
                "expected a unit variant, found {}",
                other.short()
            ))),
        }
    }
    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, ValueError> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, ValueError> {
        de::Deserializer::deserialize_seq(self, v)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, ValueError> {
        de::Deserializer::deserialize_any(self, v)
    }
}
