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
#[derive(Debug, Default)]
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

fn lex(src: &str) -> Vec<(Tok, Pos)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let advance = |i: &mut usize, line: &mut usize, col: &mut usize, c: char| {
        *i += 1;
        if c == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let pos = Pos { line, col };
        if c.is_whitespace() {
            advance(&mut i, &mut line, &mut col, c);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    advance(&mut i, &mut line, &mut col, '/');
                    advance(&mut i, &mut line, &mut col, '*');
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    advance(&mut i, &mut line, &mut col, '*');
                    advance(&mut i, &mut line, &mut col, '/');
                    if depth == 0 {
                        break;
                    }
                } else {
                    {
                        let ch = chars[i];
                        advance(&mut i, &mut line, &mut col, ch);
                    }
                }
            }
        } else if c == '"' {
            let mut s = String::new();
            advance(&mut i, &mut line, &mut col, c);
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    advance(&mut i, &mut line, &mut col, '\\');
                }
                s.push(chars[i]);
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
            }
            if i < chars.len() {
                advance(&mut i, &mut line, &mut col, '"');
            }
            out.push((Tok::Str(s), pos));
        } else if c.is_alphabetic() || c == '_' {
            let mut s = String::new();
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                s.push(chars[i]);
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
            }
            out.push((Tok::Ident(s), pos));
        } else if "()[]{},:".contains(c) {
            advance(&mut i, &mut line, &mut col, c);
            out.push((Tok::Punct(c), pos));
        } else if c == '#' {
            // `#![enable(...)]`: skip to the closing bracket.
            while i < chars.len() && chars[i] != ']' {
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
            }
            if i < chars.len() {
                advance(&mut i, &mut line, &mut col, ']');
            }
        } else {
            // Numbers, signs, chars: one opaque token per run.
            while i < chars.len() && !chars[i].is_whitespace() && !"()[]{},:\"".contains(chars[i]) {
                {
                    let ch = chars[i];
                    advance(&mut i, &mut line, &mut col, ch);
                }
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
}
