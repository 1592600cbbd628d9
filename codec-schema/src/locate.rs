//! Where each item of a schema file starts, so that semantic errors (found
//! after serde has forgotten positions) still name `file:line:col`.
//!
//! A small RON scanner records the start of every value by its path of keys
//! and list indices, e.g. `["types", 3, "fields", 2, "type"]`. It never
//! rejects input: syntax errors are ron's to report.

use std::collections::HashMap;

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// One step of a location path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    Key(String),
    Index(usize),
}

impl From<&str> for Step {
    fn from(s: &str) -> Self {
        Step::Key(s.to_owned())
    }
}

impl From<usize> for Step {
    fn from(i: usize) -> Self {
        Step::Index(i)
    }
}

/// Positions of the values of a RON document, by path.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    map: HashMap<Vec<Step>, Pos>,
}

impl Locations {
    pub fn scan(src: &str) -> Self {
        let tokens = lex(src);
        let mut p = Parser {
            toks: &tokens,
            i: 0,
            out: HashMap::new(),
        };
        let mut path = Vec::new();
        p.value(&mut path);
        Locations { map: p.out }
    }

    /// A copy whose paths are rewritten by `f`; entries it maps to `None`
    /// are dropped. (A variant's concrete schema, whose fields are a subset
    /// of the written ones, finds its items at their written positions.)
    pub fn remap(&self, f: impl Fn(&[Step]) -> Option<Vec<Step>>) -> Locations {
        Locations {
            map: self
                .map
                .iter()
                .filter_map(|(k, v)| f(k).map(|k| (k, *v)))
                .collect(),
        }
    }

    /// The position of the value at `path`, or of its nearest located ancestor.
    pub fn find(&self, path: &[Step]) -> Pos {
        for n in (0..=path.len()).rev() {
            if let Some(p) = self.map.get(&path[..n]) {
                return *p;
            }
        }
        Pos { line: 1, col: 1 }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    Other,
}

/// A cursor over the source that keeps the line and column.
struct Cursor {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
}

impl Cursor {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn bump_n(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    /// A quoted string with escapes; the cursor is on the opening quote.
    fn quoted(&mut self, quote: char) -> String {
        let mut s = String::new();
        self.bump();
        while let Some(c) = self.peek(0) {
            if c == quote {
                self.bump();
                break;
            }
            if c == '\\' {
                self.bump();
                if let Some(e) = self.bump() {
                    s.push(e);
                }
                continue;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    /// The number of `#` of a raw string whose `r` is at `k`
    /// (`r"`, `r#"`, `r##"`, ...), or None if no raw string starts there.
    fn raw_string_hashes(&self, k: usize) -> Option<usize> {
        if self.peek(k) != Some('r') {
            return None;
        }
        let mut n = 0;
        while self.peek(k + 1 + n) == Some('#') {
            n += 1;
        }
        (self.peek(k + 1 + n) == Some('"')).then_some(n)
    }

    /// A raw string without escapes; `prefix` is the length of `r` or `br`.
    fn raw_string(&mut self, prefix: usize, hashes: usize) -> String {
        self.bump_n(prefix + hashes + 1);
        let mut s = String::new();
        while let Some(c) = self.peek(0) {
            if c == '"' && (1..=hashes).all(|k| self.peek(k) == Some('#')) {
                self.bump_n(1 + hashes);
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    fn ident(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek(0).filter(|c| is_ident_char(*c)) {
            s.push(c);
            self.bump();
        }
        s
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn lex(src: &str) -> Vec<(Tok, Pos)> {
    let mut cur = Cursor {
        chars: src.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    while let Some(c) = cur.peek(0) {
        let pos = cur.pos();
        let next = cur.peek(1);
        if c.is_whitespace() {
            cur.bump();
        } else if c == '/' && next == Some('/') {
            while cur.peek(0).is_some_and(|c| c != '\n') {
                cur.bump();
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while let Some(c) = cur.peek(0) {
                if c == '/' && cur.peek(1) == Some('*') {
                    depth += 1;
                    cur.bump_n(2);
                } else if c == '*' && cur.peek(1) == Some('/') {
                    depth -= 1;
                    cur.bump_n(2);
                    if depth == 0 {
                        break;
                    }
                } else {
                    cur.bump();
                }
            }
        } else if c == '"' {
            let s = cur.quoted('"');
            out.push((Tok::Str(s), pos));
        } else if c == 'b' && next == Some('"') {
            // A byte string: `b"..."`.
            cur.bump();
            let s = cur.quoted('"');
            out.push((Tok::Str(s), pos));
        } else if let Some(h) = cur.raw_string_hashes(0) {
            // A raw string: `r"..."`, `r#"..."#`.
            let s = cur.raw_string(1, h);
            out.push((Tok::Str(s), pos));
        } else if let Some(h) = (c == 'b').then(|| cur.raw_string_hashes(1)).flatten() {
            // A raw byte string: `br"..."`, `br#"..."#`.
            let s = cur.raw_string(2, h);
            out.push((Tok::Str(s), pos));
        } else if c == 'r' && next == Some('#') && cur.peek(2).is_some_and(is_ident_start) {
            // A raw identifier: `r#type`.
            cur.bump_n(2);
            let s = cur.ident();
            out.push((Tok::Ident(s), pos));
        } else if is_ident_start(c) {
            let s = cur.ident();
            out.push((Tok::Ident(s), pos));
        } else if c == '\'' {
            // A char literal, such as `'"'` or `'\''`.
            cur.quoted('\'');
            out.push((Tok::Other, pos));
        } else if "()[]{},:".contains(c) {
            cur.bump();
            out.push((Tok::Punct(c), pos));
        } else if c == '#' && next == Some('!') {
            // `#![enable(...)]`: skip to the closing bracket.
            while cur.peek(0).is_some_and(|c| c != ']') {
                cur.bump();
            }
            cur.bump();
        } else {
            // Numbers, signs and anything else: one opaque token per run.
            cur.bump();
            while let Some(c) = cur.peek(0) {
                let comment = c == '/' && matches!(cur.peek(1), Some('/' | '*'));
                if c.is_whitespace() || "()[]{},:\"'".contains(c) || comment {
                    break;
                }
                cur.bump();
            }
            out.push((Tok::Other, pos));
        }
    }
    out
}

struct Parser<'t> {
    toks: &'t [(Tok, Pos)],
    i: usize,
    out: HashMap<Vec<Step>, Pos>,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.0)
    }

    fn value(&mut self, path: &mut Vec<Step>) {
        let Some((tok, pos)) = self.toks.get(self.i).cloned() else {
            return;
        };
        self.out.entry(path.clone()).or_insert(pos);
        match tok {
            Tok::Ident(_) => {
                self.i += 1;
                if self.peek(0) == Some(&Tok::Punct('(')) {
                    self.i += 1;
                    self.group(path, ')');
                }
            }
            Tok::Punct('(') => {
                self.i += 1;
                self.group(path, ')');
            }
            Tok::Punct('[') => {
                self.i += 1;
                self.group(path, ']');
            }
            Tok::Punct('{') => {
                self.i += 1;
                self.map(path);
            }
            _ => self.i += 1,
        }
    }

    /// The inside of `( ... )` or `[ ... ]`: named fields or positional items.
    fn group(&mut self, path: &mut Vec<Step>, close: char) {
        let mut index = 0;
        loop {
            match self.peek(0) {
                None => return,
                Some(Tok::Punct(c)) if *c == close => {
                    self.i += 1;
                    return;
                }
                Some(Tok::Punct(',')) => self.i += 1,
                Some(Tok::Ident(name)) if self.peek(1) == Some(&Tok::Punct(':')) => {
                    let name = name.clone();
                    self.i += 2;
                    path.push(Step::Key(name));
                    self.value(path);
                    path.pop();
                }
                Some(Tok::Punct(')' | ']' | '}')) => {
                    // Mismatched bracket: stop here, ron reports the error.
                    self.i += 1;
                    return;
                }
                Some(_) => {
                    path.push(Step::Index(index));
                    let before = self.i;
                    self.value(path);
                    path.pop();
                    index += 1;
                    if self.i == before {
                        self.i += 1;
                    }
                }
            }
        }
    }

    fn map(&mut self, path: &mut Vec<Step>) {
        loop {
            match self.peek(0).cloned() {
                None => return,
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    return;
                }
                Some(Tok::Punct(',')) => self.i += 1,
                Some(Tok::Str(key)) if self.peek(1) == Some(&Tok::Punct(':')) => {
                    self.i += 2;
                    path.push(Step::Key(key));
                    self.value(path);
                    path.pop();
                }
                Some(_) => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_items() {
        let src = "Schema(\n  name: \"x\",\n  types: [\n    Struct(name: \"A\", fields: [\n      (name: \"f\", type: U8),\n    ]),\n  ],\n)";
        let l = Locations::scan(src);
        let p = |v: Vec<Step>| l.find(&v);
        assert_eq!(p(vec!["name".into()]), Pos { line: 2, col: 9 });
        assert_eq!(p(vec!["types".into(), 0.into()]), Pos { line: 4, col: 5 });
        assert_eq!(
            p(vec![
                "types".into(),
                0.into(),
                "fields".into(),
                0.into(),
                "type".into()
            ]),
            Pos { line: 5, col: 25 }
        );
        // Unknown paths fall back to the nearest ancestor.
        assert_eq!(
            p(vec!["types".into(), 0.into(), "fields".into(), 7.into()]),
            Pos { line: 4, col: 31 }
        );
    }

    #[test]
    fn raw_strings_and_chars_do_not_derail_positions() {
        // Quotes, brackets and `#` inside raw strings, a raw byte string, a
        // raw identifier and char literals: the values after them keep
        // their positions.
        let src = concat!(
            "Schema(\n",
            "  a: r#\"say \"hi\" ] #\"#,\n",
            "  b: r\"C:\\dir\\\",\n",
            "  c: br##\"x\"# ]\"##,\n",
            "  d: ['\"', '\\'', ']'],\n",
            "  r#type: b\"\\\"]\",\n",
            "  e: 7,\n",
            ")"
        );
        let l = Locations::scan(src);
        let p = |v: Vec<Step>| l.find(&v);
        assert_eq!(p(vec!["a".into()]), Pos { line: 2, col: 6 });
        assert_eq!(p(vec!["b".into()]), Pos { line: 3, col: 6 });
        assert_eq!(p(vec!["c".into()]), Pos { line: 4, col: 6 });
        assert_eq!(p(vec!["d".into(), 2.into()]), Pos { line: 5, col: 18 });
        assert_eq!(p(vec!["type".into()]), Pos { line: 6, col: 11 });
        assert_eq!(p(vec!["e".into()]), Pos { line: 7, col: 6 });
    }
}
