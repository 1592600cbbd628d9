//! `serde::Serialize` and `Deserialize` for the run-time types generated
//! types hold (the `serde` feature): a [`Text`] as a string, or as its bytes
//! (a sequence of `u8`) when it is not UTF-8; [`Rows`] as a sequence of
//! rows, each a sequence of cells; a [`StringPool`] as a struct of its
//! strings and odd references. Each form reads back as it was written, so a
//! value taken out to a generic form (the research tools', an edit in the
//! explorer) comes back as the same typed value.

use crate::layout::StringPool;
use crate::rows::{RowCell, Rows};
use crate::text::Text;
use serde::de::{self, DeserializeSeed, EnumAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Text::Utf8(t) => s.serialize_str(t),
            Text::Bytes(b) => s.collect_seq(b.iter()),
        }
    }
}

/// Rows as a sequence of rows, each a sequence of cells; a string cell as
/// its variant holding the string (not its index in the rows' strings).
impl<C: Serialize + RowCell> Serialize for Rows<C> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Cell<'a, C>(&'a Rows<C>, &'a C);
        impl<C: Serialize + RowCell> Serialize for Cell<'_, C> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.1.string_ref() {
                    Some((index, name, id)) => match self.0.string(id) {
                        Some(t) => {
                            s.serialize_newtype_variant(C::UNION, index, name, &Text::from_bytes(t))
                        }
                        None => self.1.serialize(s),
                    },
                    None => self.1.serialize(s),
                }
            }
        }
        struct Row<'a, C>(&'a Rows<C>, &'a [C]);
        impl<C: Serialize + RowCell> Serialize for Row<'_, C> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.1.iter().map(|c| Cell(self.0, c)))
            }
        }
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for row in self.iter() {
            seq.serialize_element(&Row(self, row))?;
        }
        seq.end()
    }
}

impl Serialize for StringPool {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("StringPool", 2)?;
        st.serialize_field("strings", &self.strings)?;
        st.serialize_field("odd", &self.odd)?;
        st.end()
    }
}

impl<T: Serialize> Serialize for crate::placement::Aligned<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Aligned", 2)?;
        st.serialize_field("align", &self.align)?;
        st.serialize_field("value", &self.value)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string, or its bytes when it is not UTF-8")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::Utf8(crate::base::Str::new(v)))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Text, E> {
                Ok(Text::Bytes(v.into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Text, A::Error> {
                let mut b = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(x) = a.next_element::<u8>()? {
                    b.push(x);
                }
                Ok(Text::Bytes(b.into()))
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of a [`StringPool`] as it is written.
#[derive(Deserialize)]
#[serde(rename = "StringPool")]
struct PoolForm {
    strings: Vec<crate::base::Str>,
    odd: Vec<(u64, crate::base::Str)>,
}

impl<'de> Deserialize<'de> for StringPool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let p = PoolForm::deserialize(d)?;
        let mut pool = StringPool::new(p.strings);
        pool.odd = p.odd;
        Ok(pool)
    }
}

/// The fields of an [`Aligned`](crate::placement::Aligned) as it is written.
#[derive(Deserialize)]
#[serde(rename = "Aligned")]
struct AlignedForm<T> {
    align: u64,
    value: T,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for crate::placement::Aligned<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let a = AlignedForm::<T>::deserialize(d)?;
        Ok(crate::placement::Aligned::with_align(a.value, a.align))
    }
}

/// An array of any length written as a tuple (serde's own stop at 32).
pub fn array<'de, T: Deserialize<'de>, const N: usize, D: Deserializer<'de>>(
    d: D,
) -> Result<[T; N], D::Error> {
    struct V<T, const N: usize>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for V<T, N> {
        type Value = [T; N];
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "{N} elements")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<[T; N], A::Error> {
            let mut v = Vec::with_capacity(N);
            while let Some(x) = a.next_element()? {
                if v.len() == N {
                    return Err(de::Error::invalid_length(N + 1, &self));
                }
                v.push(x);
            }
            let n = v.len();
            v.try_into()
                .map_err(|_| de::Error::invalid_length(n, &self))
        }
    }
    d.deserialize_tuple(N, V::<T, N>(PhantomData))
}

/// Rows read back: a string cell (its variant holding the string) adds the
/// string to the rows' strings and points at it; any other cell is the
/// union's own form.
impl<'de, C: Deserialize<'de> + RowCell> Deserialize<'de> for Rows<C> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct RowsV<C>(PhantomData<C>);
        impl<'de, C: Deserialize<'de> + RowCell> Visitor<'de> for RowsV<C> {
            type Value = Rows<C>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a sequence of rows, each a sequence of cells")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Rows<C>, A::Error> {
                let mut rows = Rows::new(0);
                let mut row = Vec::new();
                while a
                    .next_element_seed(RowSeed {
                        rows: &mut rows,
                        row: &mut row,
                    })?
                    .is_some()
                {
                    if !rows.is_empty() && row.len() != rows.width() {
                        return Err(de::Error::custom(format!(
                            "row {} has {} cells where the rows before have {}",
                            rows.len(),
                            row.len(),
                            rows.width()
                        )));
                    }
                    rows.push(row.drain(..));
                }
                Ok(rows)
            }
        }
        d.deserialize_seq(RowsV(PhantomData))
    }
}

/// One row's cells, read into `row`.
struct RowSeed<'a, C> {
    rows: &'a mut Rows<C>,
    row: &'a mut Vec<C>,
}

impl<'de, C: Deserialize<'de> + RowCell> Visitor<'de> for RowSeed<'_, C> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row of cells")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while let Some(c) = a.next_element_seed(CellSeed {
            rows: &mut *self.rows,
        })? {
            self.row.push(c);
        }
        Ok(())
    }
}

impl<'de, C: Deserialize<'de> + RowCell> DeserializeSeed<'de> for RowSeed<'_, C> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

/// One cell: a string variant's string goes to the rows' strings.
struct CellSeed<'a, C> {
    rows: &'a mut Rows<C>,
}

impl<'de, C: Deserialize<'de> + RowCell> Visitor<'de> for CellSeed<'_, C> {
    type Value = C;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a cell of {}", C::UNION)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, a: A) -> Result<C, A::Error> {
        use serde::de::VariantAccess;
        let (name, variant): (String, _) = a.variant()?;
        if C::string_cell(&name, 0).is_some() {
            let text: Text = variant.newtype_variant()?;
            let id = self.rows.add_string(text.as_bytes());
            return C::string_cell(&name, id)
                .ok_or_else(|| de::Error::custom("a string cell without a string"));
        }
        C::deserialize(Replay { name, variant })
    }
}

impl<'de, C: Deserialize<'de> + RowCell> DeserializeSeed<'de> for CellSeed<'_, C> {
    type Value = C;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<C, D::Error> {
        d.deserialize_enum(C::UNION, &[], self)
    }
}

/// An enum whose variant is already read: hands the name and the rest of
/// the value to the union's own `Deserialize`.
struct Replay<A> {
    name: String,
    variant: A,
}

impl<'de, A: de::VariantAccess<'de>> Deserializer<'de> for Replay<A> {
    type Error = A::Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, A::Error> {
        v.visit_enum(self)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, A: de::VariantAccess<'de>> EnumAccess<'de> for Replay<A> {
    type Error = A::Error;
    type Variant = A;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, A), A::Error> {
        use serde::de::IntoDeserializer;
        let name: de::value::StringDeserializer<A::Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, self.variant))
    }
}

/// A part of text with control records: characters as a string, a record
/// as its union's variant, bytes that are no text as the variant
/// `Text::Bytes` holding them (the schema interpreter's generic form).
impl<T: Serialize> Serialize for crate::tagged_text::TextPart<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::tagged_text::{TextPart, BYTES_UNION, BYTES_VARIANT};
        /// The bytes as bytes, not as a sequence of numbers.
        struct Octets<'a>(&'a [u8]);
        impl Serialize for Octets<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        match self {
            TextPart::Chars(c) => s.serialize_str(c),
            TextPart::Record(v) => v.serialize(s),
            TextPart::Bytes(b) => {
                s.serialize_newtype_variant(BYTES_UNION, 0, BYTES_VARIANT, &Octets(b))
            }
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for crate::tagged_text::TextPart<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::tagged_text::{TextPart, BYTES_VARIANT};
        struct PartVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for PartVisitor<T> {
            type Value = TextPart<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("characters, a control record or `Text::Bytes`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(TextPart::Chars(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(TextPart::Chars(v))
            }
            fn visit_enum<A: EnumAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                use serde::de::VariantAccess;
                let (name, variant): (String, _) = a.variant()?;
                if name == BYTES_VARIANT {
                    let b: serde_bytes_buf::ByteBuf = variant.newtype_variant()?;
                    return Ok(TextPart::Bytes(b.0));
                }
                T::deserialize(Replay { name, variant }).map(TextPart::Record)
            }
        }
        d.deserialize_any(PartVisitor(PhantomData))
    }
}

/// Bytes read from a byte buffer or a sequence of numbers.
mod serde_bytes_buf {
    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer};
    use std::fmt;

    pub(super) struct ByteBuf(pub(super) Vec<u8>);

    impl<'de> Deserialize<'de> for ByteBuf {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = ByteBuf;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v.to_vec()))
                }
                fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ByteBuf, A::Error> {
                    let mut b = Vec::new();
                    while let Some(x) = a.next_element::<u8>()? {
                        b.push(x);
                    }
                    Ok(ByteBuf(b))
                }
            }
            d.deserialize_byte_buf(V)
        }
    }
}
