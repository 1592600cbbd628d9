//! Located errors: every decode error names the byte offset, the field path
//! and what was expected. The path is built lazily while the error travels
//! up through the generated decoders, so the success path pays nothing.

use std::borrow::Cow;
use std::fmt;

/// One step of a field path such as `ParameterList.objects[3].params[7]`.
#[derive(Debug, Clone, PartialEq, Eq)]
///
/// Names are the schema's: `&'static str` in generated code, owned where a
/// schema is read at run time (the interpreter), one type for both.
pub enum PathSeg {
    /// The type the path starts at (`ParameterList`).
    Type(Cow<'static, str>),
    /// A named field (`.objects`).
    Field(Cow<'static, str>),
    /// An element of an array (`[3]`).
    Index(usize),
    /// The variant of a tagged union that was being read (`::String32`).
    Variant(Cow<'static, str>),
}

/// What went wrong, without the location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// Fewer bytes remain than the field needs.
    UnexpectedEof { needed: u64, available: u64 },
    /// Magic bytes differ from the schema's literal.
    BadMagic { expected: Vec<u8>, found: Vec<u8> },
    /// An offset points outside the file.
    OffsetOutOfRange { target: u64, len: u64 },
    /// A count promises more elements than the bytes left can hold.
    CountTooLarge {
        count: u64,
        elem_size: u64,
        available: u64,
    },
    /// Following an offset leads back to a record that is still being read.
    CyclicOffset { target: u64 },
    /// Offsets nest deeper than the decoder allows.
    TooDeep { limit: u32 },
    /// The file makes the decoder read far more than its own size (shared targets).
    BudgetExhausted { limit: u64 },
    /// A tag byte names no variant of the union.
    UnknownTag { union: Cow<'static, str>, tag: u64 },
    /// A tag the schema knows of but does not read (`reserved` in the
    /// schema), with the reason.
    ReservedTag {
        union: Cow<'static, str>,
        tag: u64,
        name: Cow<'static, str>,
        why: Cow<'static, str>,
    },
    /// A string has no NUL terminator within its capacity or the file.
    UnterminatedString { capacity: Option<u64> },
    /// A string's bytes are not UTF-8.
    InvalidUtf8,
    /// Anything else a format's glue rejects, in words.
    Invalid(String),
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEof { needed, available } => write!(
                f,
                "expected {needed} more byte(s), but only {available} remain"
            ),
            ErrorKind::BadMagic { expected, found } => write!(
                f,
                "expected magic {}, found {}",
                magic_text(expected),
                magic_text(found)
            ),
            ErrorKind::OffsetOutOfRange { target, len } => write!(
                f,
                "offset points to 0x{target:x}, outside the file (length 0x{len:x})"
            ),
            ErrorKind::CountTooLarge { count, elem_size, available } => write!(
                f,
                "count {count} of {elem_size}-byte elements needs {} bytes, but only {available} remain",
                (*count as u128) * (*elem_size as u128)
            ),
            ErrorKind::CyclicOffset { target } => write!(
                f,
                "offset to 0x{target:x} leads back to a record that contains it (cycle)"
            ),
            ErrorKind::TooDeep { limit } => {
                write!(f, "offsets nest deeper than {limit} levels")
            }
            ErrorKind::BudgetExhausted { limit } => write!(
                f,
                "the file's offsets make the decoder read more than {limit} bytes; refusing"
            ),
            ErrorKind::UnknownTag { union, tag } => {
                write!(f, "tag {tag} (0x{tag:x}) names no variant of {union}")
            }
            ErrorKind::ReservedTag {
                union,
                tag,
                name,
                why,
            } => {
                write!(f, "tag {tag} (0x{tag:x}) is {union}'s {name}, which is not read")?;
                if !why.is_empty() {
                    write!(f, ": {why}")?;
                }
                Ok(())
            }
            ErrorKind::UnterminatedString { capacity: Some(c) } => {
                write!(f, "expected a NUL-terminated string within {c} bytes")
            }
            ErrorKind::UnterminatedString { capacity: None } => {
                write!(f, "expected a NUL-terminated string before the end of the file")
            }
            ErrorKind::InvalidUtf8 => write!(f, "expected UTF-8 text"),
            ErrorKind::Invalid(msg) => f.write_str(msg),
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    offset: u64,
    kind: ErrorKind,
    /// Innermost segment first; reversed when displayed.
    path: Vec<PathSeg>,
}

/// A decode error: byte offset, field path and what was expected.
///
/// Boxed so that `Result<T, DecodeError>` stays one word wide.
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Inner>);

/// Magic bytes as a message shows them: quoted when printable ASCII
/// (`"SARC"`), else in hex (`FE FF`, a byte-order mark).
fn magic_text(b: &[u8]) -> String {
    if !b.is_empty() && b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
        format!("{:?}", String::from_utf8_lossy(b))
    } else {
        let hex: Vec<String> = b.iter().map(|c| format!("{c:02X}")).collect();
        hex.join(" ")
    }
}

impl DecodeError {
    /// An error a format's rules (glue, the interpreter) state in words.
    #[cold]
    pub fn invalid(offset: u64, message: impl Into<String>) -> Self {
        DecodeError::new(offset, ErrorKind::Invalid(message.into()))
    }

    pub fn new(offset: u64, kind: ErrorKind) -> Self {
        DecodeError(Box::new(Inner {
            offset,
            kind,
            path: Vec::new(),
        }))
    }

    /// Adds an outer path segment (called by the generated decoders on the way up).
    #[cold]
    pub fn within(mut self, seg: PathSeg) -> Self {
        self.0.path.push(seg);
        self
    }

    #[cold]
    pub fn in_field(self, name: impl Into<Cow<'static, str>>) -> Self {
        self.within(PathSeg::Field(name.into()))
    }

    #[cold]
    pub fn at_index(self, index: usize) -> Self {
        self.within(PathSeg::Index(index))
    }

    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// The path's segments, innermost first (what `path` shows reversed).
    pub fn segments(&self) -> &[PathSeg] {
        &self.0.path
    }

    /// Moves the error's offset by `by` bytes: an error found in a unit's own
    /// bytes (offsets from the unit's start) becomes an offset in the file.
    #[cold]
    pub fn shifted(mut self, by: u64) -> Self {
        self.0.offset = self.0.offset.saturating_add(by);
        self
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The field path, outermost first, e.g. `ParameterList.objects[3].params[7]`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                PathSeg::Type(t) => {
                    if !out.is_empty() {
                        out.push_str(" > ");
                    }
                    out.push_str(t)
                }
                PathSeg::Field(n) => {
                    out.push('.');
                    out.push_str(n)
                }
                PathSeg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']')
                }
                PathSeg::Variant(v) => {
                    out.push_str("::");
                    out.push_str(v)
                }
            }
        }
        out
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        if path.is_empty() {
            write!(f, "at offset 0x{:x}: {}", self.0.offset, self.0.kind)
        } else {
            write!(
                f,
                "at offset 0x{:x}, {}: {}",
                self.0.offset, path, self.0.kind
            )
        }
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DecodeError({self})")
    }
}

impl std::error::Error for DecodeError {}

/// An encode error: a value that the layout cannot represent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    pub path: String,
    pub message: String,
}

impl EncodeError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        EncodeError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for EncodeError {}

pub type DecodeResult<T> = Result<T, DecodeError>;
pub type EncodeResult<T> = Result<T, EncodeError>;

/// The error for tag `tag` of union `union` that names none of its
/// variants, read at `pos`: `ReservedTag` when the schema lists it among the
/// union's `reserved` tags (`(tag, name, why)`), else `UnknownTag`. The
/// generated decoders, the views and the interpreter all report it so (the
/// generated code with its static names, the interpreter with the names of
/// the schema it loaded).
#[cold]
pub fn unknown_tag(
    pos: u64,
    union: impl Into<Cow<'static, str>>,
    tag: u64,
    reserved: &[(u64, &str, &str)],
) -> DecodeError {
    let union = union.into();
    let kind = match reserved.iter().find(|r| r.0 == tag) {
        Some(&(_, name, why)) => ErrorKind::ReservedTag {
            union,
            tag,
            name: Cow::Owned(name.to_owned()),
            why: Cow::Owned(why.to_owned()),
        },
        None => ErrorKind::UnknownTag { union, tag },
    };
    DecodeError::new(pos, kind)
}
