//! Values whose type an edit changed: a modder who types `Fovy: 9O.0` (a
//! letter O) or `ture` in a YAML file gets a string where the game reads a
//! float or a bool, and the file still encodes. [`changes`] compares the
//! document an edited text gives with the one it was made from, key by key,
//! and names every value whose type is not the one it had; `from-text`
//! warns of each (or refuses them with `--strict`), with the text's line.

use crate::aamp::{ParameterIO, ParameterList};
use crate::byml::{Container, Header, Node};

/// One value whose type changed: where (the keys leading to it, joined by
/// `.`), what it was and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeChange {
    pub key: String,
    /// The last key alone, as the text writes it (to find its line).
    pub last: String,
    pub was: String,
    pub now: String,
}

/// The values of `new` whose type differs from the same key's in `old`,
/// when both are AAMP or both BYML (else none). AAMP keys are written as
/// the names `names` knows, else as hashes.
pub fn changes(old: &[u8], new: &[u8], names: &crate::aamp::names::NameTable) -> Vec<TypeChange> {
    let mut out = Vec::new();
    if old.starts_with(crate::aamp::MAGIC) && new.starts_with(crate::aamp::MAGIC) {
        if let (Ok(a), Ok(b)) = (crate::aamp::decode(old), crate::aamp::decode(new)) {
            aamp(&a, &b, names, &mut out);
        }
    } else if crate::byml::looks_like(old) && crate::byml::looks_like(new) {
        if let (Ok((_, a)), Ok((_, b))) = (crate::byml::decode(old), crate::byml::decode(new)) {
            byml(&a, &b, &mut out);
        }
    }
    out
}

/// The name of an enum value's variant, from its `Debug` form.
fn variant<T: std::fmt::Debug>(v: &T) -> String {
    let s = format!("{v:?}");
    s.split(['(', ' ', '{'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn aamp(
    old: &ParameterIO,
    new: &ParameterIO,
    names: &crate::aamp::names::NameTable,
    out: &mut Vec<TypeChange>,
) {
    let _ = old;
    let name = |hash: u32| {
        names
            .get(hash)
            .map_or_else(|| hash.to_string(), str::to_owned)
    };
    fn lists(
        a: &ParameterList,
        b: &ParameterList,
        at: &str,
        name: &dyn Fn(u32) -> String,
        out: &mut Vec<TypeChange>,
    ) {
        for ob in &b.objects {
            let Some(oa) = a.objects.iter().find(|o| o.name == ob.name) else {
                continue;
            };
            for pb in &ob.params {
                let Some(pa) = oa.params.iter().find(|p| p.name == pb.name) else {
                    continue;
                };
                let (was, now) = (variant(&pa.value), variant(&pb.value));
                if was != now {
                    let last = name(pb.name);
                    out.push(TypeChange {
                        key: format!("{at}{}.{last}", name(ob.name)),
                        last,
                        was,
                        now,
                    });
                }
            }
        }
        for lb in &b.lists {
            if let Some(la) = a.lists.iter().find(|l| l.name == lb.name) {
                lists(la, lb, &format!("{at}{}.", name(lb.name)), name, out);
            }
        }
    }
    lists(&old.root, &new.root, "", &name, out);
}

/// Is a BYML node kind (its variant's name) a number?
fn number(kind: &str) -> bool {
    matches!(
        kind,
        "Int" | "UInt" | "Float" | "Double" | "Int64" | "UInt64"
    )
}

/// A string among numbers that reads as numbers itself: `[1.6 2.4, 3.2]`
/// (a comma left out) gives the string `"1.6 2.4"` where the rest of the
/// array is floats. Found with no original at hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberLikeString {
    /// Where (`Params.Bow.Points[0]`).
    pub key: String,
    pub text: String,
}

/// The [`NumberLikeString`]s of a BYML document's arrays (none for other
/// formats: AAMP's buffers are typed).
pub fn number_like_strings(new: &[u8]) -> Vec<NumberLikeString> {
    fn node(n: &Node, at: &str, out: &mut Vec<NumberLikeString>) {
        match n {
            Node::Hash(h) => hash(h, at, out),
            Node::Array(a) => array(a, at, out),
            _ => {}
        }
    }
    fn hash(h: &crate::byml::Hash, at: &str, out: &mut Vec<NumberLikeString>) {
        for e in &h.entries {
            let key = if at.is_empty() {
                e.key.to_string()
            } else {
                format!("{at}.{}", e.key)
            };
            node(&e.value, &key, out);
        }
    }
    fn array(a: &crate::byml::Array, at: &str, out: &mut Vec<NumberLikeString>) {
        let numbers = a
            .items
            .iter()
            .filter(|x| number(&variant::<Node>(x)))
            .count();
        for (i, x) in a.items.iter().enumerate() {
            let x: &Node = &x;
            match x {
                Node::String(s) if numbers > 0 && numbers + 1 == a.items.len() => {
                    let t: &str = &s[..];
                    let reads_as_numbers = !t.trim().is_empty()
                        && t.split_whitespace().all(|w| w.parse::<f64>().is_ok());
                    if reads_as_numbers {
                        out.push(NumberLikeString {
                            key: format!("{at}[{i}]"),
                            text: t.to_owned(),
                        });
                    }
                }
                other => node(other, &format!("{at}[{i}]"), out),
            }
        }
    }
    let mut out = Vec::new();
    if !crate::byml::looks_like(new) {
        return out;
    }
    let Ok((_, doc)) = crate::byml::decode(new) else {
        return out;
    };
    match &doc.root {
        Some(Container::Hash(h)) => hash(h, "", &mut out),
        Some(Container::Array(a)) => array(a, "", &mut out),
        _ => {}
    }
    out
}

fn byml(old: &Header, new: &Header, out: &mut Vec<TypeChange>) {
    fn node(a: &Node, b: &Node, at: &str, last: &str, out: &mut Vec<TypeChange>) {
        match (a, b) {
            (Node::Hash(x), Node::Hash(y)) => hash(x, y, at, out),
            (Node::Array(x), Node::Array(y)) => array(x, y, at, out),
            _ => {
                let (was, now) = (variant(a), variant(b));
                // A number that stays a number is not a change of kind a
                // modder makes by mistake (1 → 1.5 is a float now).
                if was != now && !(number(&was) && number(&now)) {
                    out.push(TypeChange {
                        key: at.to_owned(),
                        last: last.to_owned(),
                        was,
                        now,
                    });
                }
            }
        }
    }
    fn hash(a: &crate::byml::Hash, b: &crate::byml::Hash, at: &str, out: &mut Vec<TypeChange>) {
        for eb in &b.entries {
            if let Some(ea) = a.entries.iter().find(|e| e.key == eb.key) {
                let key = if at.is_empty() {
                    eb.key.to_string()
                } else {
                    format!("{at}.{}", eb.key)
                };
                node(&ea.value, &eb.value, &key, &eb.key, out);
            }
        }
    }
    fn array(a: &crate::byml::Array, b: &crate::byml::Array, at: &str, out: &mut Vec<TypeChange>) {
        if a.items.len() != b.items.len() {
            // Elements of one kind before: an element of another kind now
            // (`[1.6 2.4, 3.2]`, a comma left out, is a string and a float
            // where there were three floats).
            let kinds: std::collections::BTreeSet<String> =
                a.items.iter().map(|x| variant::<Node>(&x)).collect();
            if let (1, Some(was)) = (kinds.len(), kinds.first()) {
                for (i, y) in b.items.iter().enumerate() {
                    let now = variant::<Node>(&y);
                    if now != *was && !(number(was) && number(&now)) {
                        out.push(TypeChange {
                            key: format!("{at}[{i}]"),
                            last: String::new(),
                            was: format!("{was} (as every element of the array)"),
                            now,
                        });
                    }
                }
            }
            return;
        }
        for (i, (x, y)) in a.items.iter().zip(&b.items).enumerate() {
            node(&x, &y, &format!("{at}[{i}]"), "", out);
        }
    }
    match (&old.root, &new.root) {
        (Some(Container::Hash(a)), Some(Container::Hash(b))) => hash(a, b, "", out),
        (Some(Container::Array(a)), Some(Container::Array(b))) => array(a, b, "", out),
        _ => {}
    }
}

/// The names a YAML text writes as keys (`Name:`), for [`changes`] to
/// name AAMP hashes as the text does.
pub fn names_in(text: &str) -> crate::aamp::names::NameTable {
    let mut table = crate::aamp::names::NameTable::new();
    for line in text.lines() {
        for part in line.split([',', '{']) {
            let part = part.trim().trim_start_matches("- ");
            if let Some((key, _)) = part.split_once(':') {
                let key = key.trim().trim_matches('"');
                if !key.is_empty() && !key.contains(' ') {
                    table.add_name(key);
                }
            }
        }
    }
    table
}

/// The line (from 1) of `text` where `key` is first written as a key
/// (`key:`), if it is.
pub fn line_of(text: &str, key: &str) -> Option<usize> {
    if key.is_empty() {
        return None;
    }
    text.lines()
        .position(|l| {
            let t = l
                .trim_start()
                .trim_start_matches("- ")
                .trim_start_matches('{');
            t.starts_with(&format!("{key}:"))
                || t.starts_with(&format!("\"{key}\":"))
                || l.contains(&format!(" {key}: "))
                || l.contains(&format!("{{{key}: "))
        })
        .map(|i| i + 1)
}
