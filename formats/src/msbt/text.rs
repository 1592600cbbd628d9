//! MSBT's text: the form Tears of the Kingdom's editors read and write
//! (TotkBits through EPD's library, NX-Editor through MessageStudio), one
//! entry per message in message order, the label as the key and the
//! message as the value, tags written inline:
//!
//! ```yaml
//! Talk_00: |-
//!   <3 Type='0' Data='0x0B00'/>Huh? Who is it?!
//! Talk_01: |-
//!   Two lines
//!   of text.
//! ```
//!
//! A tag is `<GROUP Type='TYPE' Data='0xHEX'/>` (no `Data` when it has no
//! parameters, as MessageStudio writes it; `Data` without `0x` is read too,
//! as EPD's C++ library writes it), a closing tag `<[GROUP|TYPE]>`.
//! Parameters stay bytes: no table of tag meanings covers every kind the
//! games use (`../shared/research/msbt.md` §5).
//!
//! Why not codec's generic JSON: both editors read only this form, and
//! it is what modders share. Why not msyt's YAML: it is BotW's, sorts the
//! entries by label (losing the message order) and cannot write tag kinds
//! it has no name for.
//!
//! What the editors leave to their writer is added here, so that the text
//! gives back the same bytes, and only where a file departs from TotK's
//! defaults (little-endian UTF-16, version 3, LBL1 then TXT2, the slot
//! count by TotK's rule, 0xAB padding): then a first entry `$msbt` holds
//! the differences (`byte_order: big`, `slots: 1`, `padding: 0`, `blocks:
//! [LBL1, ATR1, TXT2, {TSY1: [0, 2]}]`, ...). A TotK file's text has no
//! such entry and
//! nothing before its first label (both editors would take a comment
//! line for a label).
//!
//! A message a bare `|-` block cannot hold exactly (empty, ending in a line
//! break, starting with a space, holding a control character) is written
//! in double quotes, which any YAML reader reads back the same.
//!
//! The text is made from and read into the generic form of the schema's
//! document (`docs/generic-text.md`), so the interpreter writes the bytes:
//! this module only rearranges; every layout rule stays in
//! `schemas/msbt.ron`.

use crate::yaml::read::{err, Events};
use crate::yaml::tree::Node;
use crate::yaml::TextError;
use saphyr_parser::{Event, Span};
use serde_json::{json, Map, Value as Json};
use std::fmt::Write as _;

/// The key of the entry that holds a file's departures from the defaults.
pub const SETTINGS: &str = "$msbt";

/// The padding byte Nintendo's writer uses.
const DEFAULT_PADDING: u64 = 0xAB;
const DEFAULT_VERSION: u64 = 3;

/// The slot count of a new label table: the schema's rule (`rule` of the
/// `HashSlots` of `Labels` in `schemas/msbt.ron`: TotK's, the smallest
/// prime p with 2p above the number of labels, at most 101).
pub fn slot_rule(labels: usize) -> u64 {
    use codec_schema::{Type, TypeDef};
    let rule = super::schema().schema.types.iter().find_map(|t| match t {
        TypeDef::Struct(st) if st.name == "Labels" => st.fields.iter().find_map(|f| match &f.ty {
            Type::HashSlots { rule, .. } => *rule,
            _ => None,
        }),
        _ => None,
    });
    rule.expect("schemas/msbt.ron gives the label table a slot rule (a test asserts it)")
        .slots(labels as u64)
}

/// Which variant of `schemas/msbt.ron` a byte order and an encoding are.
fn variant_of(big: bool, encoding: &str) -> &'static str {
    match (big, encoding) {
        (false, "utf-8") => "LeUtf8",
        (true, "utf-8") => "BeUtf8",
        (false, "utf-32") => "LeUtf32",
        (true, "utf-32") => "BeUtf32",
        (false, _) => "Le",
        (true, _) => "Be",
    }
}

/// A variant's byte order (big-endian?) and encoding: the inverse of
/// [`variant_of`].
pub(super) fn order_and_encoding(variant: &str) -> (bool, &'static str) {
    let encoding = if variant.ends_with("Utf8") {
        "utf-8"
    } else if variant.ends_with("Utf32") {
        "utf-32"
    } else {
        "utf-16"
    };
    (variant.starts_with("Be"), encoding)
}

/// The key of the message list in the generic form of each encoding.
fn messages_key(encoding: &str) -> &'static str {
    match encoding {
        "utf-8" => "messages_utf8",
        "utf-32" => "messages_utf32",
        _ => "messages",
    }
}

// ---------------------------------------------------------------- writing

/// A file's messages as the text holds them: the `$msbt` settings (empty
/// where the file keeps TotK's defaults) and each message's label and text,
/// tags inline, in message order. What [`write`] writes, and what a Python
/// tool reads as a dict (`codec.read`).
#[derive(Debug, Clone, PartialEq)]
pub struct Messages {
    pub settings: Map<String, Json>,
    pub messages: Vec<(String, String)>,
}

/// The text of a document given in its generic form (the `document` of
/// `to-text --schema`) and its variant's name.
pub fn write(doc: &Json, variant: &str) -> Result<String, String> {
    let Messages { settings, messages } = messages_of(doc, variant)?;
    let mut out = String::new();
    if !settings.is_empty() {
        out.push_str(SETTINGS);
        out.push_str(":\n");
        for (k, v) in &settings {
            let _ = writeln!(out, "  {k}: {}", flow(v));
        }
    }
    for (name, text) in &messages {
        write_key(&mut out, name);
        write_message(&mut out, text);
    }
    if out.is_empty() {
        // No message and nothing to settle: an empty mapping, which every
        // YAML reader reads (an empty text is no document at all).
        out.push_str("{}\n");
    }
    Ok(out)
}

/// The messages of a document given in its generic form and its variant's
/// name (see [`Messages`]).
pub fn messages_of(doc: &Json, variant: &str) -> Result<Messages, String> {
    let field = |v: &Json, k: &str| -> Result<Json, String> {
        v.get(k)
            .cloned()
            .ok_or_else(|| format!("the document has no `{k}`"))
    };
    let number = |v: &Json, k: &str| -> Result<u64, String> {
        field(v, k)?
            .as_u64()
            .ok_or_else(|| format!("`{k}` is not a number"))
    };
    let mut settings = Map::new();
    let (big, encoding) = order_and_encoding(variant);
    if big {
        settings.insert("byte_order".into(), json!("big"));
    }
    if encoding != "utf-16" {
        settings.insert("encoding".into(), json!(encoding));
    }
    let version = number(doc, "version")?;
    if version != DEFAULT_VERSION {
        settings.insert("version".into(), json!(version));
    }
    for k in ["unknown_0a", "unknown_10"] {
        let n = number(doc, k)?;
        if n != 0 {
            settings.insert(k.into(), json!(n));
        }
    }
    let reserved = field(doc, "reserved")?;
    if reserved
        .as_str()
        .is_some_and(|h| h.bytes().any(|b| b != b'0'))
    {
        settings.insert("reserved".into(), reserved);
    }

    let blocks = field(doc, "blocks")?;
    let blocks = blocks.as_array().ok_or("`blocks` is not a list")?;
    let mut kinds: Vec<Json> = Vec::new();
    let mut paddings: Vec<u64> = Vec::new();
    let mut labels: Option<&Json> = None;
    let mut texts: Option<&Json> = None;
    let mut attributes: Option<&Json> = None;
    for (i, block) in blocks.iter().enumerate() {
        let (kind, body) = block
            .as_object()
            .and_then(|o| o.iter().next())
            .ok_or_else(|| format!("blocks[{i}] is not a block"))?;
        let reserved = body.get("reserved").and_then(Json::as_str).unwrap_or("");
        if reserved.bytes().any(|b| b != b'0') {
            return Err(format!(
                "blocks[{i}] ({kind}) has nonzero reserved bytes {reserved}, which this text \
                 cannot hold; write the generic form with `to-text --schema schemas/msbt.ron`"
            ));
        }
        paddings.push(number(body, "padding")?);
        let once = |slot: &mut Option<&Json>, data: &'static str| -> Result<(), String> {
            if slot.is_some() {
                return Err(format!(
                    "a second {data} block (blocks[{i}]): this text holds one; write the \
                     generic form with `to-text --schema schemas/msbt.ron`"
                ));
            }
            Ok(())
        };
        match kind.as_str() {
            "Labels" => {
                once(&mut labels, "LBL1")?;
                labels = body.get("data");
                kinds.push(json!("LBL1"));
            }
            "Texts" => {
                once(&mut texts, "TXT2")?;
                texts = body.get("data");
                kinds.push(json!("TXT2"));
            }
            "Attributes" => {
                once(&mut attributes, "ATR1")?;
                attributes = body.get("data");
                kinds.push(json!("ATR1"));
            }
            "Styles" => {
                let styles = body.get("data").and_then(|d| d.get("styles")).cloned();
                kinds.push(json!({ "TSY1": styles.unwrap_or(json!([])) }));
            }
            "NumericLabels" => {
                return Err(format!(
                    "blocks[{i}] is NLI1: its messages are named by number, which this text \
                     (labels as keys) does not hold; write the generic form with \
                     `to-text --schema schemas/msbt.ron`"
                ))
            }
            _ => {
                let magic = body.get("magic").and_then(Json::as_str).unwrap_or("");
                let name = hex_to_bytes(magic)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .filter(|s| s.len() == 4 && s.bytes().all(|c| c.is_ascii_alphanumeric()))
                    .ok_or_else(|| {
                        format!(
                            "blocks[{i}]: a block whose magic {magic} is not 4 letters or digits"
                        )
                    })?;
                let mut one = Map::new();
                one.insert(name, field(body, "data")?);
                kinds.push(Json::Object(one));
            }
        }
    }
    let texts = texts.ok_or(
        "the file has no TXT2 block; write the generic form with `to-text --schema schemas/msbt.ron`",
    )?;
    let messages = texts
        .get(messages_key(encoding))
        .and_then(Json::as_array)
        .ok_or("the TXT2 block has no messages")?;
    let labels = labels.ok_or(
        "the file has no LBL1 block, so its messages have no labels; write the generic form \
         with `to-text --schema schemas/msbt.ron`",
    )?;
    let slot_count = number(labels, "slot_count")?;
    let label_list = labels
        .get("labels")
        .and_then(Json::as_array)
        .ok_or("the LBL1 block has no labels")?;
    // The label of each message: exactly one each.
    let mut names: Vec<Option<&str>> = vec![None; messages.len()];
    for (i, label) in label_list.iter().enumerate() {
        let name = label.get("name").and_then(Json::as_str).unwrap_or("");
        let index = label
            .get("message")
            .and_then(Json::as_u64)
            .unwrap_or(u64::MAX);
        let slot = usize::try_from(index)
            .ok()
            .and_then(|m| names.get_mut(m))
            .ok_or_else(|| {
                format!(
                    "label {i} ({name:?}) names message {index}, but there are {} messages",
                    messages.len()
                )
            })?;
        if let Some(other) = slot.replace(name) {
            return Err(format!(
                "message {index} has two labels ({other:?} and {name:?}); this text gives each \
                 message one: write the generic form with `to-text --schema schemas/msbt.ron`"
            ));
        }
    }
    if slot_count != slot_rule(label_list.len()) {
        settings.insert("slots".into(), json!(slot_count));
    }
    if paddings.iter().any(|&p| p != DEFAULT_PADDING) {
        let first = paddings[0];
        if paddings.iter().all(|&p| p == first) {
            settings.insert("padding".into(), json!(first));
        } else {
            settings.insert("padding".into(), json!(paddings));
        }
    }
    if kinds != [json!("LBL1"), json!("TXT2")] {
        settings.insert("blocks".into(), Json::Array(kinds));
    }
    if let Some(a) = attributes {
        let count = number(a, "count")?;
        let size = number(a, "attribute_size")?;
        let bytes = match a.get("bytes") {
            Some(Json::String(s)) => s.clone(),
            _ => String::new(),
        };
        if count != messages.len() as u64 || size != 0 || !bytes.is_empty() {
            settings.insert(
                "attributes".into(),
                json!({"count": count, "size": size, "bytes": bytes}),
            );
        }
    }

    let mut out = Vec::with_capacity(messages.len());
    for (index, (message, name)) in messages.iter().zip(&names).enumerate() {
        let name = name.ok_or_else(|| {
            format!(
                "message {index} has no label; this text names each message by its label: \
                 write the generic form with `to-text --schema schemas/msbt.ron`"
            )
        })?;
        let runs = message
            .as_array()
            .ok_or_else(|| format!("message {index} is not a list of runs"))?;
        let text = message_text(runs).map_err(|e| format!("message {index} ({name}): {e}"))?;
        out.push((name.to_owned(), text));
    }
    Ok(Messages {
        settings,
        messages: out,
    })
}

/// A message's runs (text, tags, closing tags, bytes that are no text) as
/// one string with the tags inline.
fn message_text(runs: &[Json]) -> Result<String, String> {
    let mut s = String::new();
    for run in runs {
        match run {
            Json::String(t) => {
                // A `<` that starts what reads as a tag would come back as
                // one: the form has no escape for it.
                for (at, _) in t.match_indices('<') {
                    if starts_tag(&t[at..]) {
                        return Err(format!(
                            "its text holds {:?}, which reads as a tag; write the generic \
                             form with `to-text --schema schemas/msbt.ron`",
                            t[at..].chars().take(24).collect::<String>()
                        ));
                    }
                }
                s.push_str(t);
            }
            Json::Object(o) => {
                let (kind, body) = o.iter().next().ok_or("an empty run")?;
                let n = |k: &str| body.get(k).and_then(Json::as_u64).unwrap_or(0);
                let hex = |v: &Json| v.as_str().unwrap_or("").to_ascii_uppercase();
                match kind.as_str() {
                    "Tag" => {
                        let _ = write!(s, "<{} Type='{}'", n("group"), n("kind"));
                        let params = body.get("params").map(hex).unwrap_or_default();
                        if !params.is_empty() {
                            let _ = write!(s, " Data='0x{params}'");
                        }
                        s.push_str("/>");
                    }
                    "Close" => {
                        let _ = write!(s, "<[{}|{}]>", n("group"), n("kind"));
                    }
                    "Bytes" => {
                        let _ = write!(s, "<Bytes Data='0x{}'/>", hex(body));
                    }
                    other => return Err(format!("a run of unknown kind `{other}`")),
                }
            }
            _ => return Err("a run that is neither text nor a tag".into()),
        }
    }
    Ok(s)
}

fn write_key(out: &mut String, name: &str) {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "inf" | "nan"
        );
    if plain {
        out.push_str(name);
    } else {
        double_quoted(out, name);
    }
    out.push(':');
}

/// Whether a character may stand as itself in a block scalar (YAML's
/// printable characters, less the ones some readers take for line breaks).
fn block_safe(c: char) -> bool {
    matches!(c, '\t' | '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{FEFF}' | '\u{2028}' | '\u{2029}')
}

fn write_message(out: &mut String, text: &str) {
    let first_line = text.split('\n').find(|l| !l.is_empty()).unwrap_or("");
    let literal = !text.is_empty()
        && !text.ends_with('\n')
        && !first_line.starts_with([' ', '\t'])
        && !text.split('\n').any(|l| l.starts_with('\t'))
        && text.chars().all(block_safe);
    if literal {
        out.push_str(" |-\n");
        for line in text.split('\n') {
            if !line.is_empty() {
                out.push_str("  ");
                out.push_str(line);
            }
            out.push('\n');
        }
    } else {
        out.push(' ');
        double_quoted(out, text);
        out.push('\n');
    }
}

/// `s` in double quotes, escaped as libyaml escapes (the project's YAML
/// writer, `crate::yaml::emit`).
fn double_quoted(out: &mut String, s: &str) {
    let mut w = crate::yaml::emit::Writer::new(s.len() + 2);
    w.write_double_quoted(s, false, 0);
    out.push_str(&w.into_string());
}

/// A settings value in YAML's flow form.
fn flow(v: &Json) -> String {
    match v {
        Json::Number(n) => n.to_string(),
        Json::String(s)
            if s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') =>
        {
            s.clone()
        }
        Json::String(s) => format!("'{}'", s.replace('\'', "''")),
        Json::Array(a) => format!("[{}]", a.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Json::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{k}: {}", flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Json::Bool(b) => b.to_string(),
        Json::Null => "null".into(),
    }
}

// ---------------------------------------------------------------- reading

/// One inline element of a message, parsed from the text.
#[derive(Debug, PartialEq)]
enum Inline {
    Tag {
        group: u32,
        kind: u32,
        params: String,
    },
    Close {
        group: u32,
        kind: u32,
    },
    Bytes(String),
}

/// Does `s` (which starts with `<`) start a tag? A `<` before a digit, `[`
/// or `Bytes` does, and must then be a whole tag; any other `<` is text.
/// The form has no escape: text that starts a tag is written in the
/// generic form instead (`to-text --schema`).
fn starts_tag(s: &str) -> bool {
    let rest = &s[1..];
    rest.starts_with(|c: char| c.is_ascii_digit() || c == '[') || rest.starts_with("Bytes")
}

/// The tag that `s` starts with (it starts with `<`), and its length; or,
/// when `s` starts a tag (see [`starts_tag`]) that is not whole, what is
/// wrong with it. `Ok(None)`: the `<` is text.
fn parse_tag(s: &str) -> Result<Option<(Inline, usize)>, String> {
    if !starts_tag(s) {
        return Ok(None);
    }
    tag(s).map(Some)
}

/// The tag `s` starts with, or what is wrong with it.
fn tag(s: &str) -> Result<(Inline, usize), String> {
    fn digits<'s>(s: &'s str, what: &str) -> Result<(u32, &'s str), String> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        if end == 0 {
            return Err(format!("expected the tag's {what} (a number)"));
        }
        match s[..end].parse::<u32>() {
            Ok(n) if end <= 5 => Ok((n, &s[end..])),
            _ => Err(format!(
                "the tag's {what} {} is out of range (0 to 65535)",
                &s[..end]
            )),
        }
    }
    fn data(s: &str) -> Result<Option<(String, &str)>, String> {
        let Some(s) = s.strip_prefix(" Data='") else {
            return Ok(None);
        };
        let end = s
            .find('\'')
            .ok_or("the tag's `Data='` has no closing `'`")?;
        let hex = &s[..end];
        let hex = hex
            .strip_prefix("0x")
            .or_else(|| hex.strip_prefix("0X"))
            .unwrap_or(hex);
        if let Some(c) = hex.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(format!(
                "the tag's Data holds {c:?}, which is not a hex digit"
            ));
        }
        if hex.len() % 2 != 0 {
            return Err(format!(
                "the tag's Data has {} hex digits, an odd number: bytes take two each",
                hex.len()
            ));
        }
        Ok(Some((hex.to_ascii_lowercase(), &s[end + 1..])))
    }
    fn close(s: &str) -> Result<&str, String> {
        s.strip_prefix("/>")
            .or_else(|| s.strip_prefix(" />"))
            .ok_or_else(|| match s.chars().next() {
                Some('>') => "the tag ends with `>`, not `/>`".to_owned(),
                Some(c) => format!("expected `/>` to end the tag, found {c:?}"),
                None => "the tag is not closed (`/>`)".to_owned(),
            })
    }
    let rest = &s[1..];
    if let Some(r) = rest.strip_prefix('[') {
        let (group, r) = digits(r, "group")?;
        let r = r
            .strip_prefix('|')
            .ok_or("expected `|` between a closing tag's group and type (`<[GROUP|TYPE]>`)")?;
        let (kind, r) = digits(r, "type")?;
        let r = r
            .strip_prefix("]>")
            .ok_or("expected `]>` to end the closing tag (`<[GROUP|TYPE]>`)")?;
        return Ok((Inline::Close { group, kind }, s.len() - r.len()));
    }
    if let Some(r) = rest.strip_prefix("Bytes") {
        let (hex, r) = data(r)?.ok_or("expected ` Data='0x…'` after `<Bytes`")?;
        let r = close(r)?;
        return Ok((Inline::Bytes(hex), s.len() - r.len()));
    }
    let (group, r) = digits(rest, "group")?;
    let r = r
        .strip_prefix(" Type='")
        .ok_or("expected ` Type='` after the tag's group (`<GROUP Type='TYPE' Data='0x…'/>`)")?;
    let (kind, r) = digits(r, "type")?;
    let r = r
        .strip_prefix('\'')
        .ok_or("expected `'` after the tag's type")?;
    let (params, r) = match data(r)? {
        Some(found) => found,
        None => (String::new(), r),
    };
    let r = close(r)?;
    Ok((
        Inline::Tag {
            group,
            kind,
            params,
        },
        s.len() - r.len(),
    ))
}

/// The error `why` at byte `i` of a message read from `m` in `source`: its
/// line and column when the message is a `|-` block, whose lines stand in
/// the source as they are (after their indentation); else the message's
/// start, and where in it.
fn locate_in_message(
    source: &str,
    m: &crate::yaml::read::Scalar<'_>,
    i: usize,
    label: &str,
    why: String,
) -> TextError {
    let text = m.text.as_ref();
    let k = text[..i].matches('\n').count();
    let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
    let line_end = text[i..].find('\n').map_or(text.len(), |p| i + p);
    let msg_line = &text[line_start..line_end];
    if m.style == saphyr_parser::ScalarStyle::Literal {
        // The block's lines follow the `|-` line (the span starts at the
        // first of them, or at the indicator).
        for number in [m.span.start.line() + k, m.span.start.line() + 1 + k] {
            let Some(src) = number.checked_sub(1).and_then(|n| source.lines().nth(n)) else {
                continue;
            };
            if let Some(before) = src.strip_suffix(msg_line) {
                let indent = before.chars().count();
                let column = indent + text[line_start..i].chars().count() + 1;
                return TextError {
                    line: number,
                    column,
                    message: format!("in the message of `{label}`: {why}"),
                };
            }
        }
    }
    err(
        m.span,
        format!(
            "in the message of `{label}`, at character {}: {why}",
            text[..i].chars().count() + 1
        ),
    )
}

/// A message's text as the generic form's runs; `at(i, why)` is the error
/// for a malformed tag at byte `i` of `text`.
fn runs_of(text: &str, at: &dyn Fn(usize, String) -> TextError) -> Result<Vec<Json>, TextError> {
    let mut runs = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        plain.push_str(&rest[..i]);
        let here = text.len() - rest.len() + i;
        let fail = |why: String| {
            let shown: String = rest[i..]
                .chars()
                .take_while(|&c| c != '\n')
                .take(40)
                .collect();
            at(
                here,
                format!(
                    "{shown:?} starts a tag but is not one: {why} (a `<` before a digit, `[` or `Bytes` starts a tag; see docs/msbt-text.md)"
                ),
            )
        };
        match parse_tag(&rest[i..]).map_err(fail)? {
            Some((inline, len)) => {
                if !plain.is_empty() {
                    runs.push(Json::String(std::mem::take(&mut plain)));
                }
                let u16_of = |n: u32, what: &str| -> Result<u32, TextError> {
                    if n > 0xFFFF {
                        return Err(fail(format!("its {what} {n} is out of range (0 to 65535)")));
                    }
                    Ok(n)
                };
                runs.push(match inline {
                    Inline::Tag { group, kind, params } => {
                        if params.len() / 2 > 0xFFFF {
                            return Err(fail("its parameters are longer than 65535 bytes".into()));
                        }
                        json!({"Tag": {"group": u16_of(group, "group")?, "kind": u16_of(kind, "type")?, "params": params}})
                    }
                    Inline::Close { group, kind } => {
                        json!({"Close": {"group": u16_of(group, "group")?, "kind": u16_of(kind, "type")?}})
                    }
                    Inline::Bytes(hex) => json!({ "Bytes": hex }),
                });
                rest = &rest[i + len..];
            }
            None => {
                plain.push('<');
                rest = &rest[i + 1..];
            }
        }
    }
    plain.push_str(rest);
    if !plain.is_empty() {
        runs.push(Json::String(plain));
    }
    Ok(runs)
}

/// How a file departs from TotK's defaults (the settings entry of a text;
/// msyt's header fields).
pub(super) struct Settings {
    pub big: bool,
    pub encoding: String,
    pub version: u64,
    pub unknown_0a: u64,
    pub unknown_10: u64,
    pub reserved: String,
    /// The slot count; `None`: the schema's rule.
    pub slots: Option<u64>,
    /// One byte for every block, one per block, or none (0xAB).
    pub padding: Vec<u64>,
    /// `LBL1`, `ATR1`, `TXT2`, `{TSY1: [style, ...]}` or `{MAGIC: hex}`.
    pub blocks: Vec<Json>,
    /// ATR1's `count`, `size` and `bytes` (hex) where they are not the
    /// message count, 0 and none.
    pub attributes: Option<Json>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            big: false,
            encoding: "utf-16".into(),
            version: DEFAULT_VERSION,
            unknown_0a: 0,
            unknown_10: 0,
            reserved: "0".repeat(20),
            slots: None,
            padding: Vec::new(),
            blocks: vec![json!("LBL1"), json!("TXT2")],
            attributes: None,
        }
    }
}

const SETTING_NAMES: &str =
    "byte_order, encoding, version, unknown_0a, unknown_10, reserved, slots, padding, blocks, attributes";

impl Settings {
    fn read(v: Json, span: Span) -> Result<Settings, TextError> {
        let mut s = Settings::default();
        let Json::Object(map) = v else {
            return Err(err(
                span,
                format!("`{SETTINGS}` must be a mapping ({SETTING_NAMES})"),
            ));
        };
        let bad = |k: &str, want: &str| err(span, format!("`{SETTINGS}.{k}` must be {want}"));
        let number = |k: &str, v: &Json, max: u64| -> Result<u64, TextError> {
            v.as_u64()
                .filter(|&n| n <= max)
                .ok_or_else(|| bad(k, &format!("a number from 0 to {max}")))
        };
        for (k, v) in map {
            match k.as_str() {
                "byte_order" => {
                    s.big = match v.as_str() {
                        Some("little") => false,
                        Some("big") => true,
                        _ => return Err(bad(&k, "`little` or `big`")),
                    }
                }
                "encoding" => match v.as_str() {
                    Some(e @ ("utf-8" | "utf-16" | "utf-32")) => s.encoding = e.into(),
                    _ => return Err(bad(&k, "`utf-8`, `utf-16` or `utf-32`")),
                },
                "version" => s.version = number(&k, &v, 0xFF)?,
                "unknown_0a" => s.unknown_0a = number(&k, &v, 0xFFFF)?,
                "unknown_10" => s.unknown_10 = number(&k, &v, 0xFFFF)?,
                "reserved" => match v.as_str() {
                    Some(h) if h.len() == 20 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                        s.reserved = h.into()
                    }
                    _ => return Err(bad(&k, "10 bytes in hex digits")),
                },
                "slots" => s.slots = Some(number(&k, &v, u64::from(u32::MAX))?),
                "padding" => {
                    s.padding = match &v {
                        Json::Array(a) => a
                            .iter()
                            .map(|p| number(&k, p, 0xFF))
                            .collect::<Result<_, _>>()?,
                        one => vec![number(&k, one, 0xFF)?],
                    }
                }
                "blocks" => match v {
                    Json::Array(a) => s.blocks = a,
                    _ => {
                        return Err(bad(
                            &k,
                            "a list of blocks (LBL1, ATR1, TXT2, or {MAGIC: hex})",
                        ))
                    }
                },
                "attributes" => s.attributes = Some(v),
                other => {
                    return Err(err(
                        span,
                        format!("`{SETTINGS}` has no setting `{other}` (known: {SETTING_NAMES})"),
                    ))
                }
            }
        }
        Ok(s)
    }
}

/// Reads a text: the variant to write and the document in its generic
/// form (the JSON `from-text --schema` reads).
pub fn read(text: &str) -> Result<(&'static str, Json), TextError> {
    let mut ev = Events::new(text);
    let start = Span::default();
    ev.document_start("an empty text: an MSBT text is a mapping of labels to messages")?;
    let (e, span) = ev.next()?;
    if !matches!(e, Event::MappingStart(..)) {
        return Err(err(
            span,
            format!(
                "expected a mapping of labels to messages, found {}",
                crate::yaml::read::describe(&e)
            ),
        ));
    }
    let mut settings: Option<(Json, Span)> = None;
    let mut entries: Vec<(String, Vec<Json>)> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    while let Some(key) = ev.key_or_end("a label")? {
        let span = key.span;
        if key.text == SETTINGS {
            if settings.is_some() || !entries.is_empty() {
                return Err(err(
                    span,
                    format!("`{SETTINGS}` must be the first entry, once"),
                ));
            }
            let next = ev.next()?;
            settings = Some((Node::read(&mut ev, next)?.to_json()?, span));
            continue;
        }
        let label = key.text.into_owned();
        if let Some(line) = seen.insert(label.clone(), span.start.line()) {
            return Err(err(
                span,
                format!("the label `{label}` is given twice (first on line {line})"),
            ));
        }
        let message = ev.scalar(&format!("the message of `{label}` (a string)"))?;
        let runs = runs_of(&message.text, &|i, why| {
            locate_in_message(text, &message, i, &label, why)
        })?;
        entries.push((label, runs));
    }
    ev.document_end("an MSBT text holds one mapping")?;

    let (settings, at) = match settings {
        Some((v, span)) => (Settings::read(v, span)?, span),
        None => (Settings::read(json!({}), start)?, start),
    };
    document(&settings, entries, at)
}

/// The generic document (and its variant) of [`Messages`], as [`read`]
/// makes it of a text: an error names the label, and the character of the
/// message where a tag does not parse.
pub fn document_of_messages(m: Messages) -> Result<(&'static str, Json), String> {
    let start = Span::default();
    let settings = Settings::read(Json::Object(m.settings), start).map_err(|e| e.message)?;
    let mut entries = Vec::with_capacity(m.messages.len());
    let mut seen = std::collections::HashSet::new();
    for (label, text) in m.messages {
        if !seen.insert(label.clone()) {
            return Err(format!("the label `{label}` is given twice"));
        }
        let runs = runs_of(&text, &|i, why| {
            err(
                start,
                format!(
                    "in the message of `{label}`, at character {}: {why}",
                    text[..i].chars().count() + 1
                ),
            )
        })
        .map_err(|e| e.message)?;
        entries.push((label, runs));
    }
    document(&settings, entries, start).map_err(|e| e.message)
}

/// The generic document (and its variant) of messages given as (label,
/// runs) in message order, laid out as `settings` says; `at` is where the
/// settings were written, for errors.
pub(super) fn document(
    settings: &Settings,
    entries: Vec<(String, Vec<Json>)>,
    at: Span,
) -> Result<(&'static str, Json), TextError> {
    let variant = variant_of(settings.big, &settings.encoding);
    let n = entries.len();
    // The messages are moved into the document, not copied: `json!` copies
    // what it is given, and a message's runs were held three times over.
    let (names, mut runs): (Vec<String>, Vec<Vec<Json>>) = entries.into_iter().unzip();
    let mut texts_left = settings
        .blocks
        .iter()
        .filter(|k| k.as_str() == Some("TXT2"))
        .count();
    if !settings.padding.is_empty()
        && settings.padding.len() != 1
        && settings.padding.len() != settings.blocks.len()
    {
        return Err(err(
            at,
            format!(
                "`{SETTINGS}.padding` lists {} bytes for {} blocks",
                settings.padding.len(),
                settings.blocks.len()
            ),
        ));
    }
    let padding = |i: usize| match settings.padding.as_slice() {
        [] => DEFAULT_PADDING,
        [one] => *one,
        all => all[i],
    };
    let zero8 = "0".repeat(16);
    let mut blocks = Vec::new();
    let mut has = (false, false);
    for (i, kind) in settings.blocks.iter().enumerate() {
        let block = match kind.as_str() {
            Some("LBL1") => {
                has.0 = true;
                let labels: Vec<Json> = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| object([("name", json!(name)), ("message", json!(i))]))
                    .collect();
                // Without a slot count, the schema's rule gives one.
                let mut data = object([("labels", Json::Array(labels))]);
                if let Some(slots) = settings.slots {
                    data["slot_count"] = json!(slots);
                }
                let block = object([
                    ("reserved", json!(zero8)),
                    ("data", data),
                    ("padding", json!(padding(i))),
                ]);
                object([("Labels", block)])
            }
            Some("TXT2") => {
                has.1 = true;
                texts_left -= 1;
                let taken = if texts_left == 0 {
                    std::mem::take(&mut runs)
                } else {
                    runs.clone()
                };
                let messages: Vec<Json> = taken.into_iter().map(Json::Array).collect();
                let data = object([(messages_key(&settings.encoding), Json::Array(messages))]);
                let block = object([
                    ("reserved", json!(zero8)),
                    ("data", data),
                    ("padding", json!(padding(i))),
                ]);
                object([("Texts", block)])
            }
            Some("ATR1") => {
                let a = settings.attributes.clone().unwrap_or(json!({}));
                let count = a.get("count").cloned().unwrap_or(json!(n));
                let size = a.get("size").cloned().unwrap_or(json!(0));
                let bytes = a.get("bytes").cloned().unwrap_or(json!(""));
                // The records must fit in the bytes given: a count or a
                // size mistyped wrote a block the game reads past.
                let need = count
                    .as_u64()
                    .zip(size.as_u64())
                    .map(|(c, z)| u128::from(c) * u128::from(z));
                let have = bytes.as_str().map(|h| h.len() / 2);
                match (need, have) {
                    (Some(need), Some(have)) if need > have as u128 => {
                        return Err(err(
                            at,
                            format!(
                                "`{SETTINGS}.attributes`: {count} records of {size} bytes need {need} bytes, but `bytes` holds {have}"
                            ),
                        ))
                    }
                    (None, _) | (_, None) => {
                        return Err(err(
                            at,
                            format!("`{SETTINGS}.attributes` needs numbers `count` and `size` and hex `bytes`"),
                        ))
                    }
                    _ => {}
                }
                json!({"Attributes": {"reserved": zero8, "data": {"count": count, "attribute_size": size, "bytes": bytes}, "padding": padding(i)}})
            }
            _ if kind.get("TSY1").is_some_and(Json::is_array) => {
                json!({"Styles": {"reserved": zero8, "data": {"styles": kind["TSY1"]}, "padding": padding(i)}})
            }
            _ => {
                let other = kind.as_object().filter(|o| o.len() == 1).and_then(|o| {
                    let (magic, data) = o.iter().next()?;
                    (magic.len() == 4).then(|| (magic.clone(), data.clone()))
                });
                let Some((magic, data)) = other else {
                    return Err(err(
                        at,
                        format!(
                            "`{SETTINGS}.blocks[{i}]` is not LBL1, ATR1, TXT2 or {{MAGIC: hex}}"
                        ),
                    ));
                };
                let magic_hex: String = magic.bytes().map(|b| format!("{b:02x}")).collect();
                json!({"Other": {"magic": magic_hex, "reserved": zero8, "data": data, "padding": padding(i)}})
            }
        };
        blocks.push(block);
    }
    if !has.1 && n > 0 {
        return Err(err(
            at,
            format!("`{SETTINGS}.blocks` has no TXT2 for the messages"),
        ));
    }
    if !has.0 && n > 0 {
        return Err(err(
            at,
            format!("`{SETTINGS}.blocks` has no LBL1 for the labels"),
        ));
    }
    let doc = object([
        ("unknown_0a", json!(settings.unknown_0a)),
        ("version", json!(settings.version)),
        ("unknown_10", json!(settings.unknown_10)),
        ("reserved", json!(settings.reserved)),
        ("blocks", Json::Array(blocks)),
    ]);
    Ok((variant, doc))
}

/// A JSON object of these members, moved in (`json!` copies its values).
fn object<const N: usize>(members: [(&str, Json); N]) -> Json {
    Json::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn hex_to_bytes(s: &str) -> Result<Vec<u8>, ()> {
    if s.len() % 2 != 0 {
        return Err(());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2).ok_or(())?, 16).map_err(|_| ()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slot_rule_is_the_schemas() {
        // msbt.md §2: 54 labels → 29 slots; 2874 → 101 (the most).
        assert_eq!(slot_rule(54), 29);
        assert_eq!(slot_rule(2874), 101);
    }

    #[test]
    fn tags_are_read_in_both_editors_spellings() {
        let got = runs(
            "a<3 Type='0' Data='0x0B00'/>b<0 Type='4'/><2 Type='7' Data='ff00' /><[3|1]>c < d<e <",
        )
        .unwrap();
        assert_eq!(
            got,
            vec![
                json!("a"),
                json!({"Tag": {"group": 3, "kind": 0, "params": "0b00"}}),
                json!("b"),
                json!({"Tag": {"group": 0, "kind": 4, "params": ""}}),
                json!({"Tag": {"group": 2, "kind": 7, "params": "ff00"}}),
                json!({"Close": {"group": 3, "kind": 1}}),
                json!("c < d<e <"),
            ]
        );
        let e = runs("<70000 Type='1'/>").unwrap_err();
        assert!(e.message.contains("group 70000 is out of range"), "{e}");
    }

    /// The runs of `text`; an error's column is the byte where it is.
    fn runs(text: &str) -> Result<Vec<Json>, TextError> {
        runs_of(text, &|i, why| TextError {
            line: 1,
            column: i,
            message: why,
        })
    }

    // Issue 70 and 74: a translator's typo in a tag was written as visible
    // characters, exit 0; the game would show the raw markup. Each is an
    // error saying what is wrong, at the tag.
    #[test]
    fn a_malformed_tag_is_an_error_at_the_tag() {
        for (text, at, why) in [
            ("ab<3 Type='0' Data='0x0C00'>", 2, "ends with `>`, not `/>`"),
            ("<3 Typ='0'/>", 0, "expected ` Type='`"),
            (
                "x <0 Type='3' Data='0x080'/>",
                2,
                "3 hex digits, an odd number",
            ),
            (
                "<0 Type='3' Data='0x0G'/>",
                0,
                "'G', which is not a hex digit",
            ),
            ("<0 Type='3' Data='0x00", 0, "no closing `'`"),
            ("<0 Type='3'", 0, "not closed"),
            ("<[3 1]>", 0, "expected `|`"),
            ("<Bytes/>", 0, "expected ` Data='0x…'`"),
            ("<9 Type", 0, "expected ` Type='`"),
        ] {
            let e = runs(text).expect_err(text);
            assert_eq!(e.column, at, "{text}: {e}");
            assert!(e.message.contains(why), "{text}: {e}");
            assert!(e.message.contains("starts a tag but is not one"), "{e}");
        }
    }

    #[test]
    fn a_malformed_tag_in_a_block_is_located_by_line_and_column() {
        let text = "A: |-\n  first line\n  then <3 Type='0' Data='0x0C00'> here\nB: ok\n";
        let e = read(text).unwrap_err();
        assert_eq!((e.line, e.column), (3, 8), "{e}");
        assert!(e.message.contains("in the message of `A`"), "{e}");
        let quoted = "A: \"then <3 Typ='0'/>\"\n";
        let e = read(quoted).unwrap_err();
        assert_eq!(e.line, 1, "{e}");
        assert!(e.message.contains("at character 6"), "{e}");
    }

    // The writer never writes text that would read back as a tag (or as a
    // malformed one): it points to the generic form instead.
    #[test]
    fn text_that_starts_a_tag_is_not_written_as_text() {
        let e = message_text(&[json!("a <3 b")]).unwrap_err();
        assert!(e.contains("reads as a tag"), "{e}");
        assert_eq!(message_text(&[json!("a < b <c")]).unwrap(), "a < b <c");
    }

    /// A file without messages has a text that reads back: `{}`, not an
    /// empty text (found by the `msbt_text` fuzz target).
    // Issue 70: ATR1's count and size were written unchecked.
    #[test]
    fn attribute_records_must_fit_their_bytes() {
        let text = |bytes: &str| {
            format!(
                "$msbt:\n  blocks: [LBL1, ATR1, TXT2]\n  attributes: {{count: 2, size: 4, bytes: '{bytes}'}}\nA: x\nB: y\n"
            )
        };
        let e = read(&text("01000000")).unwrap_err();
        assert!(
            e.message
                .contains("2 records of 4 bytes need 8 bytes, but `bytes` holds 4"),
            "{e}"
        );
        assert!(read(&text("0100000002000000")).is_ok());
    }

    #[test]
    fn a_file_without_messages_reads_back() {
        let data = super::super::from_text("{}").unwrap();
        let text = super::super::to_text(&data).unwrap();
        assert_eq!(text, "{}\n");
        assert_eq!(super::super::from_text(&text).unwrap(), data);
    }

    #[test]
    fn messages_a_block_cannot_hold_are_quoted() {
        let mut out = String::new();
        for m in [
            "Two\nlines",
            "",
            "ends in a break\n",
            " leading",
            "a\u{0}b",
            "\ttab",
        ] {
            write_message(&mut out, m);
        }
        assert_eq!(
            out,
            " |-\n  Two\n  lines\n \"\"\n \"ends in a break\\n\"\n \" leading\"\n \"a\\0b\"\n \"\\ttab\"\n"
        );
    }
}
