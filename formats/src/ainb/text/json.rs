//! A JSON value that keeps its keys in the order they were added, and its
//! printer: two-space indents like the dt-12345/AINB dumps (Python's
//! `json.dumps(indent=2, ensure_ascii=False)`), floats in the shortest form
//! that reads back as the same f32.

use std::fmt::Write;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    /// An f32, printed so that it reads back bit for bit; NaN and the
    /// infinities, which JSON cannot hold, as a string of their bits.
    F32(f32),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// An empty object.
    pub fn obj() -> J {
        J::Obj(Vec::new())
    }

    /// Adds a key (objects only).
    pub fn set(&mut self, key: &str, value: impl Into<J>) {
        if let J::Obj(v) = self {
            v.push((key.to_owned(), value.into()));
        }
    }

    /// Builder form of [`J::set`].
    pub fn with(mut self, key: &str, value: impl Into<J>) -> J {
        self.set(key, value);
        self
    }

    pub fn is_empty_obj(&self) -> bool {
        matches!(self, J::Obj(v) if v.is_empty())
    }

    /// The text, pretty-printed, with a final newline.
    pub fn print(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out.push('\n');
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(n) => {
                let _ = write!(out, "{n}");
            }
            J::F32(f) => write_f32(out, *f),
            J::Str(s) => write_str(out, s),
            J::Arr(v) if v.is_empty() => out.push_str("[]"),
            J::Obj(v) if v.is_empty() => out.push_str("{}"),
            J::Arr(v) => {
                out.push('[');
                for (i, e) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    e.write(out, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            J::Obj(v) => {
                out.push('{');
                for (i, (k, e)) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    write_str(out, k);
                    out.push_str(": ");
                    e.write(out, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
        }
    }
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Finite floats in Rust's shortest round-trip form (always with a `.` or an
/// exponent, so they read back as floats); others as `"f32:7fc00000"`.
fn write_f32(out: &mut String, f: f32) {
    if f.is_finite() {
        let _ = write!(out, "{f:?}");
    } else {
        let _ = write!(out, "\"f32:{:08x}\"", f.to_bits());
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}

impl From<f32> for J {
    fn from(v: f32) -> J {
        J::F32(v)
    }
}

impl From<&str> for J {
    fn from(v: &str) -> J {
        J::Str(v.to_owned())
    }
}

impl From<String> for J {
    fn from(v: String) -> J {
        J::Str(v)
    }
}

impl From<&codec_runtime::Str> for J {
    fn from(v: &codec_runtime::Str) -> J {
        J::Str(v.to_string())
    }
}

impl From<Vec<J>> for J {
    fn from(v: Vec<J>) -> J {
        J::Arr(v)
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for J {
            fn from(v: $t) -> J {
                J::Int(v as i64)
            }
        }
    )*};
}

from_int!(u8, u16, u32, i8, i16, i32, i64, usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_python_with_indent_2() {
        let j = J::obj()
            .with("a", 1u32)
            .with(
                "b",
                J::Arr(vec![J::F32(-0.0), J::F32(1.5), J::F32(f32::NAN)]),
            )
            .with("c", J::obj())
            .with("d", "その\"他");
        assert_eq!(
            j.print(),
            "{\n  \"a\": 1,\n  \"b\": [\n    -0.0,\n    1.5,\n    \"f32:7fc00000\"\n  ],\n  \"c\": {},\n  \"d\": \"その\\\"他\"\n}\n"
        );
    }
}
