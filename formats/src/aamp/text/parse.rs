//! The YAML reader: saphyr-parser's events (with tags and positions) into a
//! [`ParameterIO`], with errors that say where and what was expected.

use crate::aamp::{
    Curve, Parameter, ParameterIO, ParameterList, ParameterObject, ParameterValue, ROOT_NAME,
};
use crate::yaml::number::{self, Plain, CANONICAL_NAN};
use crate::yaml::read::{describe, err, tag_text, Events, Scalar};
use crate::yaml::TextError;
use codec_runtime::{crc32, Str};
use saphyr_parser::{Event, ScalarStyle, Span, Tag};
use std::borrow::Cow;

use super::tags::Kind;

/// Parses an AAMP text document.
pub fn parse(text: &str) -> Result<ParameterIO, TextError> {
    let mut r = Reader {
        events: Events::new(text),
        depth: 0,
    };
    r.document()
}

/// The deepest nesting of lists read (far beyond real files; it keeps the
/// recursion bounded).
const MAX_DEPTH: usize = 256;

fn kind(tag: &Tag) -> Option<Kind> {
    if tag.handle == "!" {
        Kind::dialect(&tag.suffix)
    } else if tag.is_yaml_core_schema() {
        Kind::core(&tag.suffix)
    } else {
        None
    }
}

/// The dialect's tag of a scalar.
trait ScalarKind {
    fn kind(&self) -> Result<Option<Kind>, TextError>;
}

impl ScalarKind for Scalar<'_> {
    fn kind(&self) -> Result<Option<Kind>, TextError> {
        match &self.tag {
            None => Ok(None),
            Some(tag) => kind(tag).map(Some).ok_or_else(|| {
                err(
                    self.span,
                    format!(
                        "unknown tag {}; expected {}",
                        tag_text(tag),
                        Kind::parameter_tags()
                    ),
                )
            }),
        }
    }
}

struct Reader<'a> {
    events: Events<'a>,
    /// How many lists enclose the one being read.
    depth: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Result<(Event<'a>, Span), TextError> {
        self.events.next()
    }

    fn document(&mut self) -> Result<ParameterIO, TextError> {
        self.events
            .document_start("empty input: expected an AAMP document (a mapping tagged !io)")?;
        let (ev, span) = self.next()?;
        let pio = match ev {
            Event::MappingStart(_, tag) => {
                match tag.as_deref() {
                    None => {}
                    Some(t) if kind(t) == Some(Kind::Io) => {}
                    Some(t) => {
                        return Err(err(
                            span,
                            format!(
                                "expected the document's root mapping tagged !io, found the tag {}",
                                tag_text(t)
                            ),
                        ))
                    }
                }
                self.io(span)?
            }
            other => {
                return Err(err(
                    span,
                    format!(
                        "expected the document's root mapping tagged !io, found {}",
                        describe(&other)
                    ),
                ))
            }
        };
        self.events.document_end("an AAMP text holds exactly one")?;
        Ok(pio)
    }

    /// A key of a fixed-shape mapping (`version`, `objects`, ...), or `None`
    /// at the end of the mapping.
    fn word_key(&mut self, within: &str) -> Result<Option<(Cow<'a, str>, Span)>, TextError> {
        let (ev, span) = self.next()?;
        match ev {
            Event::MappingEnd => Ok(None),
            Event::Scalar(text, ..) => Ok(Some((text, span))),
            other => Err(err(
                span,
                format!("expected a key of {within}, found {}", describe(&other)),
            )),
        }
    }

    fn io(&mut self, start: Span) -> Result<ParameterIO, TextError> {
        let mut version = None;
        let mut data_type: Option<Str> = None;
        let mut root = None;
        while let Some((key, span)) = self.word_key("the !io mapping")? {
            let seen = match &*key {
                "version" => version.replace(self.u32_value("version")?).is_some(),
                "type" => {
                    let s = self.scalar("the type (a string)")?;
                    data_type.replace(Str::from(&*s.text)).is_some()
                }
                "param_root" => {
                    let (ev, span) = self.next()?;
                    root.replace(self.list(ev, span, "param_root")?).is_some()
                }
                other => {
                    return Err(err(
                        span,
                        format!("unknown key `{other}` in the !io mapping; expected version, type or param_root"),
                    ))
                }
            };
            if seen {
                return Err(err(
                    span,
                    format!("`{key}` appears twice in the !io mapping"),
                ));
            }
        }
        let missing = |what: &str| err(start, format!("the !io mapping has no `{what}`"));
        let mut pio = ParameterIO::new("");
        pio.version = version.ok_or_else(|| missing("version"))?;
        pio.data_type = data_type.ok_or_else(|| missing("type"))?;
        let mut root: ParameterList = root.ok_or_else(|| missing("param_root"))?;
        root.name = ROOT_NAME.0;
        pio.root = root;
        Ok(pio)
    }

    /// The next event, which must be a scalar.
    fn scalar(&mut self, what: &str) -> Result<Scalar<'a>, TextError> {
        self.events.scalar(what)
    }

    fn u32_value(&mut self, what: &str) -> Result<u32, TextError> {
        let s = self.scalar(what)?;
        int_in(&s, 0, i128::from(u32::MAX), what).map(|v| v as u32)
    }

    fn list(&mut self, ev: Event<'a>, span: Span, name: &str) -> Result<ParameterList, TextError> {
        match ev {
            Event::MappingStart(_, tag) => {
                if let Some(t) = tag.as_deref() {
                    if kind(t) != Some(Kind::List) {
                        return Err(err(
                            span,
                            format!(
                                "`{name}` is a list: expected a mapping tagged !list, found the tag {}",
                                tag_text(t)
                            ),
                        ));
                    }
                }
            }
            other => {
                return Err(err(
                    span,
                    format!(
                        "`{name}` is a list: expected a mapping tagged !list, found {}",
                        describe(&other)
                    ),
                ))
            }
        }
        if self.depth >= MAX_DEPTH {
            return Err(err(
                span,
                format!("lists nested more than {MAX_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        let list = self.list_body(name);
        self.depth -= 1;
        list
    }

    fn list_body(&mut self, name: &str) -> Result<ParameterList, TextError> {
        let mut list = ParameterList::new(0);
        let (mut objects, mut lists) = (false, false);
        while let Some((key, kspan)) = self.word_key("a !list")? {
            let seen = match &*key {
                "objects" => {
                    self.map_start("objects", name)?;
                    while let Some((hash, key_text, _)) = self.name_key()? {
                        let (ev, span) = self.next()?;
                        let object = self.object(ev, span, &key_text, hash)?;
                        list.objects.push(object);
                    }
                    std::mem::replace(&mut objects, true)
                }
                "lists" => {
                    self.map_start("lists", name)?;
                    while let Some((hash, key_text, _)) = self.name_key()? {
                        let (ev, span) = self.next()?;
                        let mut child = self.list(ev, span, &key_text)?;
                        child.name = hash;
                        list.lists.push(child);
                    }
                    std::mem::replace(&mut lists, true)
                }
                other => {
                    return Err(err(
                        kspan,
                        format!("unknown key `{other}` in a !list; expected objects or lists"),
                    ))
                }
            };
            if seen {
                return Err(err(kspan, format!("`{key}` appears twice in a !list")));
            }
        }
        Ok(list)
    }

    /// The start of an untagged mapping (the `objects` and `lists` maps).
    fn map_start(&mut self, word: &str, list: &str) -> Result<(), TextError> {
        let (ev, span) = self.next()?;
        let what = format_args!("the {word} of `{list}`");
        match ev {
            Event::MappingStart(_, None) => Ok(()),
            Event::MappingStart(_, Some(t)) => Err(err(
                span,
                format!(
                    "expected {what} as an untagged mapping, found the tag {}",
                    tag_text(&t)
                ),
            )),
            other => Err(err(
                span,
                format!("expected {what} as a mapping, found {}", describe(&other)),
            )),
        }
    }

    /// A key naming a list, object or parameter: a bare integer is the hash
    /// itself, anything else (a quoted number too) is hashed. `None` at the
    /// end of the mapping.
    fn name_key(&mut self) -> Result<Option<(u32, Cow<'a, str>, Span)>, TextError> {
        let (ev, span) = self.next()?;
        match ev {
            Event::MappingEnd => Ok(None),
            Event::Scalar(text, style, _, tag) => {
                if style == ScalarStyle::Plain && tag.is_none() {
                    if let Some(n) = number::parse_int(&text) {
                        if !(0..=i128::from(u32::MAX)).contains(&n) {
                            return Err(err(
                                span,
                                format!("the hash {text} is out of range (0 to 4294967295); quote the key to use it as a name"),
                            ));
                        }
                        return Ok(Some((n as u32, text, span)));
                    }
                }
                let hash = crc32(text.as_bytes());
                Ok(Some((hash, text, span)))
            }
            other => Err(err(
                span,
                format!(
                    "expected a key (a name or a hash), found {}",
                    describe(&other)
                ),
            )),
        }
    }

    fn object(
        &mut self,
        ev: Event<'a>,
        span: Span,
        name: &str,
        hash: u32,
    ) -> Result<ParameterObject, TextError> {
        match ev {
            Event::MappingStart(_, tag) => {
                if let Some(t) = tag.as_deref() {
                    if kind(t) != Some(Kind::Obj) {
                        return Err(err(
                            span,
                            format!(
                                "`{name}` is an object: expected a mapping tagged !obj, found the tag {}",
                                tag_text(t)
                            ),
                        ));
                    }
                }
            }
            other => {
                return Err(err(
                    span,
                    format!(
                        "`{name}` is an object: expected a mapping tagged !obj, found {}",
                        describe(&other)
                    ),
                ))
            }
        }
        let mut object = ParameterObject::new(hash);
        while let Some((hash, _, _)) = self.name_key()? {
            let (ev, span) = self.next()?;
            let value = self.value(ev, span)?;
            object.params.push(Parameter { name: hash, value });
        }
        Ok(object)
    }

    fn value(&mut self, ev: Event<'a>, span: Span) -> Result<ParameterValue, TextError> {
        match ev {
            Event::Scalar(text, style, _, tag) => scalar_value(Scalar {
                text,
                style,
                tag,
                span,
            }),
            Event::SequenceStart(_, tag) => {
                let Some(tag) = tag else {
                    return Err(err(
                        span,
                        format!(
                            "a sequence parameter needs a tag: {}",
                            Kind::sequence_tags()
                        ),
                    ));
                };
                let k = kind(&tag).ok_or_else(|| {
                    err(
                        span,
                        format!(
                            "unknown tag {}; expected {}",
                            tag_text(&tag),
                            Kind::parameter_tags()
                        ),
                    )
                })?;
                self.sequence(k, &tag_text(&tag), span)
            }
            other => Err(err(
                span,
                format!(
                    "expected a parameter value (a scalar or a tagged sequence), found {}",
                    describe(&other)
                ),
            )),
        }
    }

    /// The next item of a flow sequence, or `None` at its end.
    fn item(&mut self, tag: &str) -> Result<Option<Scalar<'a>>, TextError> {
        let (ev, span) = self.next()?;
        match ev {
            Event::SequenceEnd => Ok(None),
            Event::Scalar(text, style, _, t) => Ok(Some(Scalar {
                text,
                style,
                tag: t,
                span,
            })),
            other => Err(err(
                span,
                format!(
                    "expected a number in the {tag} sequence, found {}",
                    describe(&other)
                ),
            )),
        }
    }

    fn floats<const N: usize>(&mut self, tag: &str, span: Span) -> Result<[f32; N], TextError> {
        let mut out = [0f32; N];
        let mut n = 0;
        while let Some(s) = self.item(tag)? {
            if n < N {
                out[n] = float_of(&s)?;
            }
            n += 1;
        }
        if n != N {
            return Err(err(span, format!("{tag} needs {N} numbers, found {n}")));
        }
        Ok(out)
    }

    fn sequence(&mut self, k: Kind, tag: &str, span: Span) -> Result<ParameterValue, TextError> {
        Ok(match k {
            Kind::Vec2 => ParameterValue::Vec2(self.floats::<2>(tag, span)?),
            Kind::Vec3 => ParameterValue::Vec3(self.floats::<3>(tag, span)?),
            Kind::Vec4 => ParameterValue::Vec4(self.floats::<4>(tag, span)?),
            Kind::Color => ParameterValue::Color(self.floats::<4>(tag, span)?),
            Kind::Quat => ParameterValue::Quat(self.floats::<4>(tag, span)?),
            Kind::BufferF32 => {
                let mut v = Vec::new();
                while let Some(s) = self.item(tag)? {
                    v.push(float_of(&s)?);
                }
                ParameterValue::BufferF32(v)
            }
            Kind::BufferInt => {
                let mut v = Vec::new();
                while let Some(s) = self.item(tag)? {
                    v.push(int_in(
                        &s,
                        i128::from(i32::MIN),
                        i128::from(i32::MAX),
                        "an item of !buffer_int",
                    )? as i32);
                }
                ParameterValue::BufferInt(v)
            }
            Kind::BufferU32 => {
                let mut v = Vec::new();
                while let Some(s) = self.item(tag)? {
                    v.push(int_in(&s, 0, i128::from(u32::MAX), "an item of !buffer_u32")? as u32);
                }
                ParameterValue::BufferU32(v)
            }
            Kind::BufferBinary => {
                let mut v = Vec::new();
                while let Some(s) = self.item(tag)? {
                    v.push(int_in(&s, 0, 255, "a byte of !buffer_binary")? as u8);
                }
                ParameterValue::BufferBinary(v.into())
            }
            Kind::Curve => {
                let mut curves: Vec<Curve> = Vec::with_capacity(1);
                let mut n = 0usize;
                while let Some(s) = self.item(tag)? {
                    let i = n % 32;
                    if i == 0 {
                        curves.push(Curve {
                            a: 0,
                            b: 0,
                            floats: [0.0; 30],
                        });
                    }
                    if curves.len() <= 4 {
                        let c = curves.last_mut().expect("pushed above");
                        match i {
                            0 => {
                                c.a =
                                    int_in(&s, 0, i128::from(u32::MAX), "a curve's first integer")?
                                        as u32
                            }
                            1 => {
                                c.b =
                                    int_in(&s, 0, i128::from(u32::MAX), "a curve's second integer")?
                                        as u32
                            }
                            _ => c.floats[i - 2] = float_of(&s)?,
                        }
                    }
                    n += 1;
                }
                let wrong = || {
                    err(
                        span,
                        format!("!curve needs 32, 64, 96 or 128 numbers (per curve: 2 integers and 30 floats), found {n}"),
                    )
                };
                if n % 32 != 0 {
                    return Err(wrong());
                }
                let mut it = curves.into_iter();
                let mut take = || it.next().ok_or_else(wrong);
                match n / 32 {
                    1 => ParameterValue::Curve1(Box::new([take()?])),
                    2 => ParameterValue::Curve2(Box::new([take()?, take()?])),
                    3 => ParameterValue::Curve3(Box::new([take()?, take()?, take()?])),
                    4 => ParameterValue::Curve4(Box::new([take()?, take()?, take()?, take()?])),
                    _ => return Err(wrong()),
                }
            }
            _ => {
                return Err(err(
                    span,
                    format!(
                        "{tag} does not take a sequence; sequences take {}",
                        Kind::sequence_tags()
                    ),
                ))
            }
        })
    }
}

/// A string with a capacity (NUL included) checked.
fn string_of(s: &Scalar<'_>, capacity: Option<usize>, tag: &str) -> Result<Str, TextError> {
    let text: &str = &s.text;
    if text.contains('\0') {
        return Err(err(s.span, "a string cannot contain a NUL character"));
    }
    if let Some(cap) = capacity {
        if text.len() >= cap {
            return Err(err(
                s.span,
                format!(
                    "the string is too long for {tag}: {} bytes, at most {} fit",
                    text.len(),
                    cap - 1
                ),
            ));
        }
    }
    Ok(Str::from(text))
}

/// An integer scalar within `min..=max`.
fn int_in(s: &Scalar<'_>, min: i128, max: i128, what: &str) -> Result<i128, TextError> {
    let ok_tag = match s.kind()? {
        None => s.style == ScalarStyle::Plain,
        Some(Kind::U | Kind::CoreInt) => true,
        Some(_) => false,
    };
    if !ok_tag {
        return Err(err(
            s.span,
            format!("expected an integer for {what}, found `{}`", s.text),
        ));
    }
    s.int_in(min, max, what)
}

/// An f64 read from the text, rounded to f32 (roead writes f32 values
/// widened to f64; oead rounds the same way).
fn to_f32(value: f64, s: &Scalar<'_>) -> Result<f32, TextError> {
    if value.is_nan() {
        return Ok(f32::from_bits(CANONICAL_NAN));
    }
    let v = value as f32;
    if v.is_infinite() && (value.is_finite() || !number::is_inf_literal(&s.text)) {
        return Err(err(
            s.span,
            format!("{} is out of range for a 32-bit float", s.text),
        ));
    }
    Ok(v)
}

/// A float item or value: a plain number (an integer is accepted too), or
/// `!f32` with a number or the bits in hex.
fn float_of(s: &Scalar<'_>) -> Result<f32, TextError> {
    match s.kind()? {
        None if s.style == ScalarStyle::Plain => match number::resolve_plain(&s.text) {
            Plain::Float(f) => to_f32(f, s),
            Plain::Int(n) if n.unsigned_abs() < (1 << 64) => to_f32(n as f64, s),
            _ => Err(err(
                s.span,
                format!("expected a number, found `{}`", s.text),
            )),
        },
        Some(Kind::F32 | Kind::CoreFloat) => explicit_f32(s),
        _ => Err(err(
            s.span,
            format!("expected a number, found `{}`", s.text),
        )),
    }
}

/// The text of a `!f32` scalar: `0x` and 8 hex digits are the bits,
/// anything else a number.
fn explicit_f32(s: &Scalar<'_>) -> Result<f32, TextError> {
    let text: &str = &s.text;
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if let Ok(bits) = u32::from_str_radix(hex, 16) {
            return Ok(f32::from_bits(bits));
        }
    }
    if let Some(f) = number::parse_float(text) {
        return to_f32(f, s);
    }
    match number::parse_int(text) {
        Some(n) if n.unsigned_abs() < (1 << 64) => to_f32(n as f64, s),
        _ => Err(err(s.span, format!("expected a float, found `{text}`"))),
    }
}

fn scalar_value(s: Scalar<'_>) -> Result<ParameterValue, TextError> {
    let kind = s.kind()?;
    Ok(match kind {
        None if s.style != ScalarStyle::Plain => ParameterValue::StringRef(string_of(&s, None, "")?),
        None => match number::resolve_plain(&s.text) {
            Plain::Bool(b) => ParameterValue::Bool(b),
            Plain::Int(n) => {
                if !(i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(&n) {
                    return Err(err(
                        s.span,
                        format!(
                            "{} is out of range for an int (-2147483648 to 2147483647); write `!u {}` for an unsigned value",
                            s.text, s.text
                        ),
                    ));
                }
                ParameterValue::Int(n as i32)
            }
            Plain::Float(f) => ParameterValue::F32(to_f32(f, &s)?),
            Plain::Null => {
                return Err(err(
                    s.span,
                    "null is not a parameter value; quote it ('null') for the text, or write '' for an empty string",
                ))
            }
            Plain::Str => ParameterValue::StringRef(string_of(&s, None, "")?),
        },
        Some(Kind::U) => ParameterValue::U32(int_in(&s, 0, i128::from(u32::MAX), Kind::U.text())? as u32),
        Some(Kind::CoreInt) => ParameterValue::Int(int_in(
            &s,
            i128::from(i32::MIN),
            i128::from(i32::MAX),
            Kind::CoreInt.text(),
        )? as i32),
        Some(Kind::F32 | Kind::CoreFloat) => ParameterValue::F32(explicit_f32(&s)?),
        Some(Kind::CoreBool) => match &*s.text {
            "true" => ParameterValue::Bool(true),
            "false" => ParameterValue::Bool(false),
            other => return Err(err(s.span, format!("expected true or false, found `{other}`"))),
        },
        Some(Kind::CoreStr) => ParameterValue::StringRef(string_of(&s, None, "")?),
        Some(Kind::Str32) => ParameterValue::String32(string_of(&s, Some(32), Kind::Str32.text())?),
        Some(Kind::Str64) => ParameterValue::String64(string_of(&s, Some(64), Kind::Str64.text())?),
        Some(Kind::Str256) => ParameterValue::String256(string_of(&s, Some(256), Kind::Str256.text())?),
        Some(k) => {
            let tag = s.tag.as_deref().map(tag_text).unwrap_or_default();
            let message = match k {
                k if k.is_sequence() => {
                    format!("{tag} takes a sequence such as [1.0, 2.0], found a scalar")
                }
                _ => format!(
                    "{tag} is not a parameter tag; expected {}",
                    Kind::parameter_tags()
                ),
            };
            return Err(err(s.span, message));
        }
    })
}
