//! `serde::Serialize` for the run-time types generated types hold (the
//! `serde` feature): a [`Text`] as a string, or as its bytes (a sequence of
//! `u8`) when it is not UTF-8; [`Rows`] as a sequence of rows, each a
//! sequence of cells; a [`StringPool`] as a struct of its strings and odd
//! references.

use crate::rows::{RowCell, Rows};
use crate::{StringPool, Text};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

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

impl<T: Serialize> Serialize for crate::Aligned<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Aligned", 2)?;
        st.serialize_field("align", &self.align)?;
        st.serialize_field("value", &self.value)?;
        st.end()
    }
}
