//! Reading YAML: saphyr-parser's events (with tags and positions), from
//! the fast reader where it can, and errors that say where and what was
//! expected.

use saphyr_parser::{Event, Parser, ScalarStyle, Span, StrInput, Tag};
use std::borrow::Cow;
use std::fmt;

/// An error in a YAML document: where (line and column, both from 1) and
/// what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for TextError {}

/// An error at the start of `span`.
pub fn err(span: Span, message: impl Into<String>) -> TextError {
    TextError {
        line: span.start.line(),
        column: span.start.col() + 1,
        message: message.into(),
    }
}

/// What an unexpected event is, for messages.
pub fn describe(ev: &Event<'_>) -> &'static str {
    match ev {
        Event::Scalar(..) => "a scalar",
        Event::SequenceStart(..) => "a sequence",
        Event::MappingStart(..) => "a mapping",
        Event::SequenceEnd => "the end of a sequence",
        Event::MappingEnd => "the end of a mapping",
        Event::Alias(..) => "an alias (aliases are not supported)",
        Event::DocumentStart(..) => "a document start",
        Event::DocumentEnd => "the end of the document",
        Event::StreamStart | Event::StreamEnd | Event::Nothing => "the end of the input",
    }
}

/// How a tag is spelled in messages (`!u`, `!!binary`).
pub fn tag_text(tag: &Tag) -> String {
    if tag.handle == "!" {
        format!("!{}", tag.suffix)
    } else if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else {
        tag.to_string()
    }
}

/// A scalar event's parts.
pub struct Scalar<'a> {
    pub text: Cow<'a, str>,
    pub style: ScalarStyle,
    pub tag: Option<Cow<'a, Tag>>,
    pub span: Span,
}

impl<'a> Scalar<'a> {
    /// The scalar an event holds, or the event back when it is something
    /// else.
    pub fn of(ev: Event<'a>, span: Span) -> Result<Scalar<'a>, Event<'a>> {
        match ev {
            Event::Scalar(text, style, _, tag) => Ok(Scalar {
                text,
                style,
                tag,
                span,
            }),
            other => Err(other),
        }
    }

    /// Written in quotes (`'…'` or `"…"`): never a number, bool or null.
    pub fn quoted(&self) -> bool {
        matches!(
            self.style,
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted
        )
    }
}

impl Scalar<'_> {
    /// The scalar as an integer (oead's syntax: decimal, `0x` hex, leading-0
    /// octal) within `min..=max`; `what` names the type in the error.
    pub fn int_in(&self, min: i128, max: i128, what: &str) -> Result<i128, TextError> {
        let n = super::number::parse_int(self.text.trim()).ok_or_else(|| {
            err(
                self.span,
                format!("expected an integer for {what}, found `{}`", self.text),
            )
        })?;
        if !(min..=max).contains(&n) {
            return Err(err(
                self.span,
                format!("{} is out of range for {what} ({min} to {max})", self.text),
            ));
        }
        Ok(n)
    }
}

/// The events of one YAML text, each with its position: from the fast
/// reader when the text is in its subset (see [`super::fast`]), else from
/// saphyr-parser.
pub struct Events<'a> {
    source: Source<'a>,
    /// The position of the last event, for errors at the end of the input.
    last: Span,
}

enum Source<'a> {
    Fast(super::fast::Events<'a>),
    Full(Box<Parser<'a, StrInput<'a>>>),
}

impl<'a> Events<'a> {
    pub fn new(text: &'a str) -> Self {
        let source = match super::fast::scan(text) {
            Some(events) => Source::Fast(events),
            None => Source::Full(Box::new(Parser::new_from_str(text))),
        };
        Events {
            source,
            last: Span::default(),
        }
    }

    /// The next event; a syntax error or the end of the input is an error.
    pub fn next(&mut self) -> Result<(Event<'a>, Span), TextError> {
        let next = match &mut self.source {
            Source::Fast(events) => events.next().map(Ok),
            Source::Full(parser) => parser.next_event(),
        };
        match next {
            Some(Ok((ev, span))) => {
                self.last = span;
                Ok((ev, span))
            }
            Some(Err(e)) => Err(TextError {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                message: format!("invalid YAML: {}", e.info()),
            }),
            None => Err(err(self.last, "unexpected end of the input")),
        }
    }

    /// The next event, which must be a scalar (`what` says which, for the
    /// error).
    pub fn scalar(&mut self, what: &str) -> Result<Scalar<'a>, TextError> {
        let (ev, span) = self.next()?;
        Scalar::of(ev, span)
            .map_err(|other| err(span, format!("expected {what}, found {}", describe(&other))))
    }

    /// The next key of a mapping, or `None` at the mapping's end; `what`
    /// says what the key is, for the error.
    pub fn key_or_end(&mut self, what: &str) -> Result<Option<Scalar<'a>>, TextError> {
        let (ev, span) = self.next()?;
        if matches!(ev, Event::MappingEnd) {
            return Ok(None);
        }
        Scalar::of(ev, span)
            .map(Some)
            .map_err(|other| err(span, format!("expected {what}, found {}", describe(&other))))
    }

    /// The start of the input and of its one document; `empty` is the
    /// message when there is no document.
    pub fn document_start(&mut self, empty: &str) -> Result<(), TextError> {
        let (ev, span) = self.next()?;
        if !matches!(ev, Event::StreamStart) {
            return Err(err(span, "expected the start of the input"));
        }
        let (ev, span) = self.next()?;
        if !matches!(ev, Event::DocumentStart(_)) {
            return Err(err(span, empty));
        }
        Ok(())
    }

    /// The end of the document and of the input; `one` says what a text
    /// holds, for the error on a second document.
    pub fn document_end(&mut self, one: &str) -> Result<(), TextError> {
        let (ev, span) = self.next()?;
        if !matches!(ev, Event::DocumentEnd) {
            return Err(err(span, "expected the end of the document"));
        }
        let (ev, span) = self.next()?;
        match ev {
            Event::StreamEnd => Ok(()),
            _ => Err(err(span, format!("a second document: {one}"))),
        }
    }
}
