//! [`Text`]: a NUL-terminated string that keeps its bytes when they are not
//! UTF-8 (the Rust type of `CString(lossless: true)`).

use crate::base::Str;
use std::fmt;

/// A string read from a file: UTF-8 text (short ones stored inline), or the
/// exact bytes when they are not UTF-8 (Shift-JIS names, say), so that a file
/// round-trips whatever its encoding.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Text {
    Utf8(Str),
    Bytes(Box<[u8]>),
}

impl Text {
    /// The text of these bytes: UTF-8 when they are, the bytes otherwise.
    #[inline]
    pub fn from_bytes(b: &[u8]) -> Text {
        match std::str::from_utf8(b) {
            Ok(s) => Text::Utf8(Str::new(s)),
            Err(_) => Text::Bytes(b.into()),
        }
    }

    /// The bytes as stored (without the NUL).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Text::Utf8(s) => s.as_bytes(),
            Text::Bytes(b) => b,
        }
    }

    /// The text, when it is UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Text::Utf8(s) => Some(s),
            Text::Bytes(_) => None,
        }
    }

    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }
}

impl AsRef<[u8]> for Text {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::Utf8(Str::default())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::Utf8(Str::new(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Utf8(Str::from(s))
    }
}

impl From<Str> for Text {
    fn from(s: Str) -> Self {
        Text::Utf8(s)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

/// UTF-8 text as it is; other bytes lossily, for messages.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Text::Utf8(s) => f.write_str(s),
            Text::Bytes(b) => f.write_str(&String::from_utf8_lossy(b)),
        }
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Text::Utf8(s) => fmt::Debug::fmt(s.as_str(), f),
            Text::Bytes(b) => write!(f, "bytes{b:02x?}"),
        }
    }
}
