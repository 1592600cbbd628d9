//! A YAML value read whole, each part with its position: for texts whose
//! shape is decided by keys found anywhere in a mapping (msyt's `kind:`
//! beside the fields it selects), where reading event by event would need
//! the key before the fields. The readers that can go event by event (the
//! BYML, AAMP and MSBT editors' texts) do, and never build this.

use super::read::{describe, err, Events, Scalar};
use super::TextError;
use saphyr_parser::{Event, Span};
use std::borrow::Cow;
use std::collections::HashMap;

/// One YAML value: a scalar, a sequence or a mapping (keys are scalars,
/// in the order written).
pub enum Node<'a> {
    Scalar(Scalar<'a>),
    Seq(Vec<Node<'a>>, Span),
    Map(Vec<(Scalar<'a>, Node<'a>)>, Span),
}

impl<'a> Node<'a> {
    /// The value whose first event is `first`, read to its end.
    pub fn read(ev: &mut Events<'a>, first: (Event<'a>, Span)) -> Result<Node<'a>, TextError> {
        match first {
            (ev @ Event::Scalar(..), span) => Ok(Node::Scalar(
                Scalar::of(ev, span).unwrap_or_else(|_| unreachable!("matched a scalar")),
            )),
            (Event::SequenceStart(..), span) => {
                let mut items = Vec::new();
                loop {
                    let next = ev.next()?;
                    if matches!(next.0, Event::SequenceEnd) {
                        return Ok(Node::Seq(items, span));
                    }
                    items.push(Node::read(ev, next)?);
                }
            }
            (Event::MappingStart(..), span) => {
                let mut entries: Vec<(Scalar, Node)> = Vec::new();
                // Each key's entry, to refuse one given twice: a search of
                // the entries so far made a mapping's read quadratic (issue
                // 70: msyt's 100,000 entries took over a minute).
                let mut seen: HashMap<Cow<'a, str>, usize> = HashMap::new();
                while let Some(key) = ev.key_or_end("a key (a scalar)")? {
                    if let Some(&i) = seen.get(&key.text) {
                        return Err(err(
                            key.span,
                            format!(
                                "the key `{}` is given twice (first on line {})",
                                key.text,
                                entries[i].0.span.start.line()
                            ),
                        ));
                    }
                    seen.insert(key.text.clone(), entries.len());
                    let next = ev.next()?;
                    entries.push((key, Node::read(ev, next)?));
                }
                Ok(Node::Map(entries, span))
            }
            (other, span) => Err(err(
                span,
                format!("expected a value, found {}", describe(&other)),
            )),
        }
    }

    /// Where the value starts.
    pub fn span(&self) -> Span {
        match self {
            Node::Scalar(s) => s.span,
            Node::Seq(_, span) | Node::Map(_, span) => *span,
        }
    }

    /// What the value is, for messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Node::Scalar(_) => "a scalar",
            Node::Seq(..) => "a sequence",
            Node::Map(..) => "a mapping",
        }
    }

    /// The value of `key` when this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Map(entries, _) => entries.iter().find(|(k, _)| k.text == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value as JSON: plain scalars that read as integers become
    /// numbers, every other scalar a string.
    pub fn to_json(&self) -> Result<serde_json::Value, TextError> {
        use serde_json::Value as Json;
        Ok(match self {
            Node::Scalar(s) => {
                if !s.quoted() {
                    if let Some(n) = super::number::parse_int(s.text.trim()) {
                        return u64::try_from(n)
                            .map(Json::from)
                            .map_err(|_| err(s.span, format!("{} is out of range", s.text)));
                    }
                }
                Json::String(s.text.to_string())
            }
            Node::Seq(items, _) => {
                Json::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            Node::Map(entries, _) => Json::Object(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.text.to_string(), v.to_json()?)))
                    .collect::<Result<_, TextError>>()?,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<serde_json::Value, TextError> {
        let mut ev = Events::new(text);
        ev.document_start("empty")?;
        let first = ev.next()?;
        let node = Node::read(&mut ev, first)?;
        // The keys in the order written, each value with its position.
        if let Node::Map(entries, _) = &node {
            let keys: Vec<_> = entries.iter().map(|(k, _)| k.text.to_string()).collect();
            assert_eq!(keys, ["b", "a"]);
            assert_eq!(node.get("a").unwrap().span().start.line(), 2);
        }
        node.to_json()
    }

    #[test]
    fn a_value_is_read_whole_in_order() {
        let v = read("b: [1, '2', x, -3]\na: {c: '0x10', d: 0x10}\n").unwrap_err();
        assert!(v.message.contains("-3 is out of range"), "{v}");
        let v = read("b: [1, '2', x]\na: {c: '0x10', d: 0x10}\n").unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"a":{"c":"0x10","d":16},"b":[1,"2","x"]}"#
        );
    }

    #[test]
    fn a_key_given_twice_is_named_with_both_lines() {
        let e = read("b: 1\na: 2\nb: 3\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 1));
        assert!(
            e.message.contains("`b` is given twice (first on line 1)"),
            "{e}"
        );
    }
}
