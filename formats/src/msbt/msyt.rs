//! msyt's YAML (BotW's MSBT text, written by msyt 1.1.0), read into the
//! same generic document as the editors' text, so that the interpreter
//! lays the file out by `schemas/msbt.ron`:
//!
//! ```yaml
//! group_count: 19
//! entries:
//!   Talk_00:
//!     contents:
//!       - control:
//!           kind: raw
//!           three: {field_1: 0, field_2: [11, 0]}
//!       - text: Huh? Who is it?!
//! ```
//!
//! What msyt's model means in bytes (each control is a tag of group,
//! type and parameters):
//!
//! - named kinds: `set_colour`/`reset_colour` (0.3), `font` (0.1),
//!   `text_size` (0.2), `pause` with `frames` (1.0) or `length` (5.0–5.2),
//!   `auto_advance` (1.3), `choice` (1.4–1.6 by the number of labels),
//!   `icon` (1.7), `single_choice` (1.10), `variable` (2.N), `sound` (3.1),
//!   `sound2` (4.1), `animation` (4.2), `localisation` (201.N);
//! - `kind: raw` with the group (`zero` … `five`, `two_hundred_one`) and
//!   its sub-kind: the fields in file order. A field msyt names `field_1`
//!   before the others is the stored parameter size: here the size is
//!   derived, so one that does not match the fields is an error rather
//!   than a file whose tag runs into the text.
//! - a closing tag is not in msyt's model: its export leaves the units in
//!   the text (`"\u000f\u0003\u0001"`), and they are read as the closing
//!   tag they are.
//!
//! The messages are written in the order listed, as msyt's `create` does
//! (its export lists them sorted by label: the file's own order is lost
//! there, so such a file comes back as the same document in another
//! order). The blocks are laid out in Nintendo's order (LBL1, NLI1, ATO1,
//! ATR1, TSY1, TXT2) where msyt's builder appends the optional ones after
//! TXT2. The byte order and encoding are not in the YAML (msyt's
//! `--platform` and `--encoding`): little-endian UTF-16 unless told.

use super::text::{document, Settings};
use crate::yaml::read::{err, Events, Scalar};
use crate::yaml::tree::Node;
use crate::yaml::TextError;
use base64::Engine as _;
use saphyr_parser::Span;
use serde_json::{json, Value as Json};

/// Is `source` msyt's YAML: a top-level `group_count` and `entries`?
pub fn looks_like_msyt(source: &str) -> bool {
    let top = |key: &str| source.lines().any(|l| l.starts_with(key));
    top("group_count:") && top("entries:")
}

/// Reads msyt's YAML: the variant to write (`variant` names the byte order
/// and encoding, `Le` as msyt's default) and the document in its generic
/// form.
pub fn read(source: &str, variant: &str) -> Result<(&'static str, Json), TextError> {
    let mut ev = Events::new(source);
    ev.document_start("an empty text: msyt's YAML is a mapping with `group_count` and `entries`")?;
    let first = ev.next()?;
    let root = Node::read(&mut ev, first)?;
    ev.document_end("msyt's YAML holds one mapping")?;
    let file = File::of(variant);

    let top = Fields::of(&root, "", TOP)?;
    let mut settings = Settings {
        big: file.big,
        encoding: file.encoding.into(),
        ..Settings::default()
    };
    settings.slots = Some(top.uint("group_count", u32::MAX.into())?);
    let entries_node = top.need("entries")?;
    let Node::Map(list, _) = entries_node else {
        return Err(err(
            entries_node.span(),
            format!(
                "`entries` must be a mapping of labels to entries, found {}",
                entries_node.describe()
            ),
        ));
    };

    let mut entries = Vec::with_capacity(list.len());
    let mut attributes = Vec::with_capacity(list.len());
    for (label, entry) in list {
        let at = format!("entries.{}", label.text);
        let fields = Fields::of(entry, &at, &["attributes", "contents"])?;
        attributes.push(match fields.get("attributes") {
            Some(a) => Some(
                scalar(a, &format!("{at}.attributes"), "a string")?
                    .text
                    .clone(),
            ),
            None => None,
        });
        let contents = fields.need("contents")?;
        let Node::Seq(items, _) = contents else {
            return Err(err(
                contents.span(),
                format!("`{at}.contents` must be a list of `text` and `control` items"),
            ));
        };
        let mut runs = Vec::new();
        // A tag still owed parameter bytes by the text after it.
        let mut owing: Option<(Tagged, String)> = None;
        for (i, item) in items.iter().enumerate() {
            let at = format!("{at}.contents[{i}]");
            let one = Fields::of(item, &at, &["text", "control"])?;
            match (one.get("text"), one.get("control")) {
                (Some(t), None) => {
                    let t = scalar(t, &format!("{at}.text"), "a string")?;
                    let mut text = &*t.text;
                    if let Some((mut tag, tag_at)) = owing.take() {
                        text = repay(&mut tag, text, &file)
                            .ok_or_else(|| err(t.span, owed_error(&tag, &tag_at)))?;
                        runs.push(tag.run());
                    }
                    text_runs(text, t.span, &format!("{at}.text"), &mut runs)?
                }
                (None, Some(c)) => {
                    if let Some((tag, tag_at)) = owing.take() {
                        return Err(err(c.span(), owed_error(&tag, &tag_at)));
                    }
                    let at = format!("{at}.control");
                    let tag = control(c, &at, &file)?;
                    if tag.owed > 0 {
                        owing = Some((tag, at));
                    } else {
                        runs.push(tag.run());
                    }
                }
                _ => {
                    return Err(err(
                        item.span(),
                        format!("`{at}` must have one key, `text` or `control`"),
                    ))
                }
            }
        }
        if let Some((tag, tag_at)) = owing {
            return Err(err(contents.span(), owed_error(&tag, &tag_at)));
        }
        entries.push((label.text.to_string(), runs));
    }

    // The blocks msyt's header names, in Nintendo's order.
    let mut blocks = vec![json!("LBL1")];
    if let Some(nli1) = top.get("nli1") {
        blocks.push(json!({ "NLI1": hex(&numeric_labels(nli1, &file)?) }));
    }
    if let Some(ato1) = top.get("ato1") {
        blocks.push(json!({ "ATO1": hex(&base64_of(ato1, "ato1")?) }));
    }
    if top.get("atr1_unknown").is_some() {
        let size = top.uint("atr1_unknown", u32::MAX.into())?;
        blocks.push(json!("ATR1"));
        settings.attributes = Some(attribute_block(&attributes, size, &file));
    }
    if let Some(tsy1) = top.get("tsy1") {
        blocks.push(json!({ "TSY1": hex(&base64_of(tsy1, "tsy1")?) }));
    }
    blocks.push(json!("TXT2"));
    settings.blocks = blocks;
    document(&settings, entries, root.span())
}

/// The top-level keys msyt writes.
const TOP: &[&str] = &[
    "group_count",
    "atr1_unknown",
    "ato1",
    "tsy1",
    "nli1",
    "entries",
];

/// The byte order and encoding the file is written in.
struct File {
    big: bool,
    encoding: &'static str,
}

impl File {
    fn of(variant: &str) -> File {
        let variant = super::variant_named(variant).unwrap_or("Le");
        let (big, encoding) = super::text::order_and_encoding(variant);
        File { big, encoding }
    }

    fn u16(&self, n: u16) -> [u8; 2] {
        if self.big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    }

    fn u32(&self, n: u32) -> [u8; 4] {
        if self.big {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    }

    /// A string's code units in the file's encoding and byte order.
    fn units(&self, s: &str) -> Vec<u8> {
        match self.encoding {
            "utf-8" => s.as_bytes().to_vec(),
            "utf-32" => s.chars().flat_map(|c| self.u32(c as u32)).collect(),
            _ => s.encode_utf16().flat_map(|u| self.u16(u)).collect(),
        }
    }
}

/// A mapping's entries, each key checked against the ones it may have.
struct Fields<'n, 'a> {
    node: &'n Node<'a>,
    at: String,
}

impl<'n, 'a> Fields<'n, 'a> {
    fn of(node: &'n Node<'a>, at: &str, known: &[&str]) -> Result<Fields<'n, 'a>, TextError> {
        let Node::Map(entries, _) = node else {
            return Err(err(
                node.span(),
                format!("{} must be a mapping, found {}", whole(at), node.describe()),
            ));
        };
        if let Some((k, _)) = entries.iter().find(|(k, _)| !known.contains(&&*k.text)) {
            return Err(err(
                k.span,
                format!(
                    "{} has no field `{}` (msyt's fields here: {})",
                    whole(at),
                    k.text,
                    known.join(", ")
                ),
            ));
        }
        Ok(Fields {
            node,
            at: at.to_string(),
        })
    }

    fn get(&self, key: &str) -> Option<&'n Node<'a>> {
        self.node.get(key)
    }

    fn need(&self, key: &str) -> Result<&'n Node<'a>, TextError> {
        self.get(key).ok_or_else(|| {
            err(
                self.node.span(),
                format!("{} needs `{key}`", whole(&self.at)),
            )
        })
    }

    fn path(&self, key: &str) -> String {
        if self.at.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.at)
        }
    }

    /// An unsigned integer field up to `max`.
    fn uint(&self, key: &str, max: u64) -> Result<u64, TextError> {
        uint(self.need(key)?, &self.path(key), max)
    }

    fn u8(&self, key: &str) -> Result<u8, TextError> {
        Ok(self.uint(key, 0xFF)? as u8)
    }

    fn u16(&self, key: &str) -> Result<u16, TextError> {
        Ok(self.uint(key, 0xFFFF)? as u16)
    }

    fn u32(&self, key: &str) -> Result<u32, TextError> {
        Ok(self.uint(key, u32::MAX.into())? as u32)
    }

    fn string(&self, key: &str) -> Result<String, TextError> {
        Ok(scalar(self.need(key)?, &self.path(key), "a string")?
            .text
            .to_string())
    }

    /// A list of integers up to `max` each; `len`: exactly that many.
    fn uints(&self, key: &str, max: u64, len: Option<usize>) -> Result<Vec<u64>, TextError> {
        let node = self.need(key)?;
        let at = self.path(key);
        let Node::Seq(items, span) = node else {
            return Err(err(
                node.span(),
                format!("`{at}` must be a list of numbers"),
            ));
        };
        if let Some(n) = len.filter(|&n| n != items.len()) {
            return Err(err(
                *span,
                format!("`{at}` must list {n} numbers, not {}", items.len()),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, v)| uint(v, &format!("{at}[{i}]"), max))
            .collect()
    }

    fn bytes(&self, key: &str, len: Option<usize>) -> Result<Vec<u8>, TextError> {
        Ok(self
            .uints(key, 0xFF, len)?
            .into_iter()
            .map(|b| b as u8)
            .collect())
    }

    /// A name among `names` (msyt's snake_case enum variants), as its index.
    fn one_of(&self, key: &str, names: &[&str]) -> Result<usize, TextError> {
        let node = self.need(key)?;
        let s = scalar(node, &self.path(key), "a name")?;
        names.iter().position(|n| *n == s.text).ok_or_else(|| {
            err(
                s.span,
                format!(
                    "`{}` is `{}`, not one of {}",
                    self.path(key),
                    s.text,
                    names.join(", ")
                ),
            )
        })
    }
}

/// A path for messages: the whole text where it is empty.
fn whole(at: &str) -> String {
    if at.is_empty() {
        "msyt's YAML".into()
    } else {
        format!("`{at}`")
    }
}

fn scalar<'n, 'a>(node: &'n Node<'a>, at: &str, what: &str) -> Result<&'n Scalar<'a>, TextError> {
    match node {
        Node::Scalar(s) => Ok(s),
        other => Err(err(
            other.span(),
            format!("`{at}` must be {what}, found {}", other.describe()),
        )),
    }
}

fn uint(node: &Node, at: &str, max: u64) -> Result<u64, TextError> {
    let s = scalar(node, at, "a number")?;
    Ok(s.int_in(0, max.into(), &format!("`{at}`"))? as u64)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64_of(node: &Node, at: &str) -> Result<Vec<u8>, TextError> {
    let s = scalar(node, at, "base64 text")?;
    let compact: String = s.text.split_whitespace().collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|e| err(s.span, format!("`{at}` is not base64: {e}")))
}

/// NLI1's data as msyt's builder writes it: the id count, then (id,
/// message) pairs in message order.
fn numeric_labels(node: &Node, file: &File) -> Result<Vec<u8>, TextError> {
    let f = Fields::of(node, "nli1", &["id_count", "global_ids"])?;
    let mut out = file.u32(f.u32("id_count")?).to_vec();
    let ids = f.need("global_ids")?;
    let Node::Map(pairs, _) = ids else {
        return Err(err(
            ids.span(),
            "`nli1.global_ids` must map message numbers to ids",
        ));
    };
    let mut sorted = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        let message = k.int_in(0, u32::MAX.into(), "a message number of `nli1.global_ids`")?;
        let id = uint(v, &format!("nli1.global_ids.{}", k.text), u32::MAX.into())?;
        sorted.push((message as u32, id as u32));
    }
    sorted.sort_unstable();
    for (message, id) in sorted {
        out.extend(file.u32(id));
        out.extend(file.u32(message));
    }
    Ok(out)
}

/// ATR1 as msyt's builder writes it: with an attribute string on every
/// entry, an offset to each (NUL-terminated, in the file's encoding) after
/// the table; otherwise the message count and no data.
fn attribute_block(attributes: &[Option<std::borrow::Cow<str>>], size: u64, file: &File) -> Json {
    let all: Option<Vec<&str>> = attributes.iter().map(|a| a.as_deref()).collect();
    let mut bytes = Vec::new();
    if let Some(all) = all {
        let strings: Vec<Vec<u8>> = all.iter().map(|s| file.units(&format!("{s}\0"))).collect();
        let mut offset = 8 + 4 * strings.len();
        for s in &strings {
            bytes.extend(file.u32(offset as u32));
            offset += s.len();
        }
        for s in strings {
            bytes.extend(s);
        }
    }
    json!({"count": attributes.len(), "size": size, "bytes": hex(&bytes)})
}

/// Moves the bytes `tag` is owed from the start of `text` (as units in
/// the file's encoding) into its parameters: the rest of the text, or
/// `None` when the text does not start with whole units of that length.
fn repay<'t>(tag: &mut Tagged, text: &'t str, file: &File) -> Option<&'t str> {
    let mut taken = 0;
    for (i, c) in text.char_indices() {
        if taken == tag.owed {
            tag.params.extend(file.units(&text[..i]));
            tag.owed = 0;
            return Some(&text[i..]);
        }
        taken += file.units(c.encode_utf8(&mut [0; 4])).len();
        if taken > tag.owed {
            return None;
        }
    }
    (taken == tag.owed).then(|| {
        tag.params.extend(file.units(text));
        tag.owed = 0;
        ""
    })
}

fn owed_error(tag: &Tagged, at: &str) -> String {
    format!(
        "`{at}` (tag {}.{}) has a stored size {} bytes above its fields: those bytes \
         must start the text right after it, as msyt exports them",
        tag.group, tag.kind, tag.owed
    )
}

/// A text item's runs: characters, and the closing tags msyt leaves in the
/// text (U+000F, group, type).
fn text_runs(text: &str, span: Span, at: &str, runs: &mut Vec<Json>) -> Result<(), TextError> {
    let mut plain = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\u{f}' => {
                let (Some(g), Some(t)) = (chars.next(), chars.next()) else {
                    return Err(err(
                        span,
                        format!("`{at}`: a closing tag (U+000F) needs its group and type after it"),
                    ));
                };
                let (g, t) = (g as u32, t as u32);
                if g > 0xFFFF || t > 0xFFFF {
                    return Err(err(
                        span,
                        format!("`{at}`: a closing tag's group and type are two UTF-16 units"),
                    ));
                }
                if !plain.is_empty() {
                    runs.push(Json::String(std::mem::take(&mut plain)));
                }
                runs.push(json!({"Close": {"group": g, "kind": t}}));
            }
            '\u{e}' => {
                return Err(err(
                    span,
                    format!("`{at}` holds U+000E, which opens a tag: write the tag as a `control`"),
                ))
            }
            c => plain.push(c),
        }
    }
    if !plain.is_empty() {
        runs.push(Json::String(plain));
    }
    Ok(())
}

/// A tag read from a control, and how many bytes of parameters its stored
/// size says follow the fields msyt knows (see [`sized`]).
struct Tagged {
    group: u16,
    kind: u16,
    params: Vec<u8>,
    owed: usize,
}

impl Tagged {
    /// The tag in the generic form.
    fn run(&self) -> Json {
        json!({"Tag": {"group": self.group, "kind": self.kind, "params": hex(&self.params)}})
    }
}

fn tag(group: u16, kind: u16, params: &[u8]) -> Tagged {
    Tagged {
        group,
        kind,
        params: params.to_vec(),
        owed: 0,
    }
}

/// A tag whose size msyt stores in a field. A size above the fields'
/// length is how msyt exports parameters it does not model: it stops
/// after its fields and reads the rest as text (a variable's trailing
/// `00 CD` becomes the character U+CD00 at the start of the next text), so
/// that many bytes are taken back from the text that follows. A size
/// below it would cut the fields: an error.
fn sized(
    f: &Fields,
    size_field: &str,
    group: u16,
    kind: u16,
    params: &[u8],
) -> Result<Tagged, TextError> {
    let size = usize::from(f.u16(size_field)?);
    if size < params.len() {
        return Err(err(
            f.need(size_field)?.span(),
            format!(
                "`{}` is {size}, the size of the tag's parameters, but its fields \
                 take {} bytes",
                f.path(size_field),
                params.len()
            ),
        ));
    }
    Ok(Tagged {
        owed: size - params.len(),
        ..tag(group, kind, params)
    })
}

/// A string with a u16 byte length before it.
fn prefixed(file: &File, s: &str) -> Vec<u8> {
    let units = file.units(s);
    let mut out = file.u16(units.len() as u16).to_vec();
    out.extend(units);
    out
}

const COLOURS: &[&str] = &[
    "red",
    "light_green1",
    "blue",
    "grey",
    "light_green4",
    "orange",
    "light_grey",
];

/// Icons msyt names, with their byte; `a`, `x` and `zl` carry theirs.
const ICONS: &[(&str, u8)] = &[
    ("l_stick_forward", 0),
    ("l_stick_back", 1),
    ("l_stick_left", 2),
    ("l_stick_right", 3),
    ("r_stick_vertical", 4),
    ("r_stick_horizontal", 5),
    ("d_pad_up", 6),
    ("d_pad_down", 7),
    ("d_pad_left", 8),
    ("d_pad_right", 9),
    ("y", 13),
    ("b", 17),
    ("l", 20),
    ("r", 21),
    ("plus", 23),
    ("minus", 24),
    ("right_arrow", 25),
    ("left_arrow", 26),
    ("up_arrow", 27),
    ("l_stick_press", 33),
    ("r_stick_press", 34),
    ("gamepad", 36),
];

/// One `control` item as a tag of the generic form.
fn control(node: &Node, at: &str, file: &File) -> Result<Tagged, TextError> {
    let kind_node = node.get("kind").ok_or_else(|| {
        err(
            node.span(),
            format!("`{at}` needs `kind` (raw, set_colour, pause, variable, ...)"),
        )
    })?;
    let kind = scalar(kind_node, &format!("{at}.kind"), "a name")?;
    let fields = |known: &[&str]| {
        let mut all = vec!["kind"];
        all.extend_from_slice(known);
        Fields::of(node, at, &all)
    };
    let u16s = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|&n| file.u16(n)).collect() };
    Ok(match &*kind.text {
        "raw" => {
            let f = fields(&[
                "zero",
                "one",
                "two",
                "three",
                "four",
                "five",
                "two_hundred_one",
            ])?;
            let Node::Map(entries, _) = node else {
                unreachable!("Fields::of checked a mapping")
            };
            let groups: Vec<_> = entries.iter().filter(|(k, _)| k.text != "kind").collect();
            let [(group, body)] = groups.as_slice() else {
                return Err(err(
                    node.span(),
                    format!("`{at}` (kind: raw) needs one group: zero, one, two, three, four, five or two_hundred_one"),
                ));
            };
            raw(&group.text, body, &f.path(&group.text), file)?
        }
        "set_colour" => {
            let f = fields(&["colour"])?;
            tag(0, 3, &file.u16(f.one_of("colour", COLOURS)? as u16))
        }
        "reset_colour" => {
            fields(&[])?;
            tag(0, 3, &file.u16(0xFFFF))
        }
        "font" => {
            let f = fields(&["font_kind"])?;
            let value = [0xFFFF, 0][f.one_of("font_kind", &["normal", "hylian"])?];
            tag(0, 1, &file.u16(value))
        }
        "text_size" => {
            let f = fields(&["percent"])?;
            tag(0, 2, &file.u16(f.u16("percent")?))
        }
        "pause" => {
            let f = fields(&["frames", "length"])?;
            match (f.get("frames"), f.get("length")) {
                (Some(_), None) => tag(1, 0, &file.u32(f.u32("frames")?)),
                (None, Some(_)) => {
                    let length = f.one_of("length", &["short", "long", "longer"])?;
                    tag(5, length as u16, &[])
                }
                _ => {
                    return Err(err(
                        node.span(),
                        format!("`{at}` (kind: pause) needs `frames` or `length`"),
                    ))
                }
            }
        }
        "auto_advance" => {
            let f = fields(&["frames"])?;
            tag(1, 3, &file.u32(f.u32("frames")?))
        }
        "choice" => {
            let f = fields(&["choice_labels", "selected_index", "cancel_index", "unknown"])?;
            let labels = f.uints("choice_labels", 0xFFFF, None)?;
            if !(2..=4).contains(&labels.len()) {
                return Err(err(
                    f.need("choice_labels")?.span(),
                    format!(
                        "`{}` lists {} labels: a choice has 2 to 4",
                        f.path("choice_labels"),
                        labels.len()
                    ),
                ));
            }
            let labels: Vec<u16> = labels.into_iter().map(|l| l as u16).collect();
            let mut params = u16s(&labels);
            params.extend([f.u8("selected_index")?, f.u8("cancel_index")?]);
            sized(&f, "unknown", 1, labels.len() as u16 + 2, &params)?
        }
        "single_choice" => {
            let f = fields(&["label"])?;
            let mut params = file.u16(f.u16("label")?).to_vec();
            params.extend([1, 0xCD]);
            tag(1, 10, &params)
        }
        "icon" => {
            let f = fields(&["icon"])?;
            let icon = f.need("icon")?;
            let byte = match icon {
                Node::Scalar(s) => ICONS
                    .iter()
                    .find(|(n, _)| *n == s.text)
                    .map(|(_, b)| *b)
                    .ok_or_else(|| {
                        err(
                            s.span,
                            format!("`{at}.icon` is `{}`, an icon msyt has no name for", s.text),
                        )
                    })?,
                _ => {
                    let one = Fields::of(icon, &f.path("icon"), &["zl", "x", "a", "unknown"])?;
                    let Node::Map(e, span) = icon else {
                        unreachable!("Fields::of checked a mapping")
                    };
                    let [(name, _)] = e.as_slice() else {
                        return Err(err(*span, format!("`{at}.icon` names one icon")));
                    };
                    one.u8(&name.text)?
                }
            };
            tag(1, 7, &[byte, 0xCD])
        }
        "variable" => {
            let f = fields(&["variable_kind", "name"])?;
            let mut params = prefixed(file, &f.string("name")?);
            params.extend(file.u16(0));
            tag(2, f.u16("variable_kind")?, &params)
        }
        "sound" => {
            let f = fields(&["unknown"])?;
            tag(3, 1, &f.bytes("unknown", None)?)
        }
        "sound2" => {
            let f = fields(&["unknown"])?;
            tag(4, 1, &f.bytes("unknown", None)?)
        }
        "animation" => {
            let f = fields(&["name"])?;
            tag(4, 2, &prefixed(file, &f.string("name")?))
        }
        "localisation" => {
            let f = fields(&["localisation_kind", "options"])?;
            let kind =
                localisation_kind(f.need("localisation_kind")?, &f.path("localisation_kind"))?;
            let options = f.need("options")?;
            tag(201, kind, &localised(options, &f.path("options"), file)?)
        }
        other => {
            return Err(err(
                kind.span,
                format!(
                "`{at}.kind` is `{other}`, not a kind msyt writes (raw, set_colour, reset_colour, \
                     font, text_size, pause, auto_advance, choice, single_choice, icon, variable, \
                     sound, sound2, animation, localisation)"
            ),
            ))
        }
    })
}

/// msyt's `Localisation`: `gender` (201.5), `plural` (201.6) or
/// `{unknown: N}` (201.N), as the tag's type.
fn localisation_kind(node: &Node, at: &str) -> Result<u16, TextError> {
    match node {
        Node::Scalar(s) if s.text == "gender" => Ok(5),
        Node::Scalar(s) if s.text == "plural" => Ok(6),
        other => Fields::of(other, at, &["unknown"])?.u16("unknown"),
    }
}

/// Word forms: each string with its byte length before it (u16, or u8 in
/// UTF-8).
fn localised(node: &Node, at: &str, file: &File) -> Result<Vec<u8>, TextError> {
    let Node::Seq(items, _) = node else {
        return Err(err(
            node.span(),
            format!("`{at}` must be a list of strings"),
        ));
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let s = scalar(item, &format!("{at}[{i}]"), "a string")?;
        let units = file.units(&s.text);
        if file.encoding == "utf-8" {
            let len = u8::try_from(units.len())
                .map_err(|_| err(s.span, format!("`{at}[{i}]` is longer than 255 bytes")))?;
            out.push(len);
        } else {
            out.extend(file.u16(units.len() as u16));
        }
        out.extend(units);
    }
    Ok(out)
}

/// A `kind: raw` control: `group` names the tag's group, `body` its
/// sub-kind and fields.
fn raw(group: &str, body: &Node, at: &str, file: &File) -> Result<Tagged, TextError> {
    // Groups 3 and 5 have no sub-kind: their fields are the type and the
    // parameters (3) or the type and the size (5).
    match group {
        "three" => {
            let f = Fields::of(body, at, &["field_1", "field_2"])?;
            return Ok(tag(3, f.u16("field_1")?, &f.bytes("field_2", None)?));
        }
        "five" => {
            let f = Fields::of(body, at, &["field_1", "field_2"])?;
            return sized(&f, "field_2", 5, f.u16("field_1")?, &[]);
        }
        _ => {}
    }
    let number = match group {
        "zero" => 0,
        "one" => 1,
        "two" => 2,
        "four" => 4,
        "two_hundred_one" => 201,
        other => {
            return Err(err(
                body.span(),
                format!("`{at}`: `{other}` is not a group msyt writes"),
            ))
        }
    };
    // Groups 2 and 201 give the type as a number beside the fields.
    if number == 2 || number == 201 {
        let Node::Map(entries, span) = body else {
            return Err(err(body.span(), format!("`{at}` must be a mapping")));
        };
        let [(sub, pair)] = entries.as_slice() else {
            return Err(err(*span, format!("`{at}` names one sub-kind")));
        };
        let at = format!("{at}.{}", sub.text);
        let Node::Seq(pair, span) = pair else {
            return Err(err(pair.span(), format!("`{at}` must be [type, fields]")));
        };
        let [kind, fields] = pair.as_slice() else {
            return Err(err(*span, format!("`{at}` must be [type, fields]")));
        };
        let kind_at = format!("{at}[0]");
        let fields_at = format!("{at}[1]");
        return match (number, &*sub.text) {
            (_, "one_field") => {
                let f = Fields::of(fields, &fields_at, &["field_1"])?;
                sized(
                    &f,
                    "field_1",
                    number,
                    uint(kind, &kind_at, 0xFFFF)? as u16,
                    &[],
                )
            }
            (2, "variable") => {
                let f = Fields::of(fields, &fields_at, &["field_1", "string", "field_3"])?;
                let mut params = prefixed(file, &f.string("string")?);
                params.extend(file.u16(f.u16("field_3")?));
                sized(
                    &f,
                    "field_1",
                    2,
                    uint(kind, &kind_at, 0xFFFF)? as u16,
                    &params,
                )
            }
            (201, "dynamic") => {
                let f = Fields::of(fields, &fields_at, &["len", "field_2"])?;
                let bytes = f.bytes("field_2", None)?;
                sized(&f, "len", 201, uint(kind, &kind_at, 0xFFFF)? as u16, &bytes)
            }
            (201, "localisation") => {
                let kind = localisation_kind(kind, &kind_at)?;
                let f = Fields::of(fields, &fields_at, &["strings"])?;
                Ok(tag(
                    201,
                    kind,
                    &localised(f.need("strings")?, &f.path("strings"), file)?,
                ))
            }
            (_, other) => {
                return Err(err(
                    sub.span,
                    format!("`{at}`: `{other}` is not a sub-kind msyt writes in this group"),
                ))
            }
        };
    }
    let Node::Map(entries, span) = body else {
        return Err(err(body.span(), format!("`{at}` must be a mapping")));
    };
    let [(sub, fields)] = entries.as_slice() else {
        return Err(err(
            *span,
            format!("`{at}` names one sub-kind (zero, one, ...)"),
        ));
    };
    let at = format!("{at}.{}", sub.text);
    let kind = match &*sub.text {
        "zero" => 0,
        "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        other => {
            return Err(err(
                sub.span,
                format!("`{at}`: `{other}` is not a sub-kind msyt writes"),
            ))
        }
    };
    let u16s = |f: &Fields, keys: &[&str]| -> Result<Vec<u8>, TextError> {
        let mut out = Vec::new();
        for k in keys {
            out.extend(file.u16(f.u16(k)?));
        }
        Ok(out)
    };
    let with = |known: &[&str]| Fields::of(fields, &at, known);
    Ok(match (number, kind) {
        (0, 0) => {
            let f = with(&["field_1", "field_2", "field_3"])?;
            sized(&f, "field_1", 0, 0, &u16s(&f, &["field_2", "field_3"])?)?
        }
        (0, 1..=3) => {
            let f = with(&["field_1", "field_2"])?;
            sized(&f, "field_1", 0, kind, &u16s(&f, &["field_2"])?)?
        }
        (0, 4) | (1, 2) | (4, 3) => {
            let f = with(&["field_1"])?;
            sized(&f, "field_1", number, kind, &[])?
        }
        (1, 0) | (1, 1) | (1, 3) => {
            let f = with(&["field_1", "field_2"])?;
            sized(&f, "field_1", 1, kind, &file.u32(f.u32("field_2")?))?
        }
        (1, 4..=6) => {
            // A choice of 2 to 4 labels, then two bytes.
            let names = ["field_2", "field_3", "field_4", "field_5", "field_6"];
            let labels = usize::from(kind) - 2;
            let last = names[labels];
            let mut known = vec!["field_1"];
            known.extend_from_slice(&names[..=labels]);
            let f = with(&known)?;
            let mut params = u16s(&f, &names[..labels])?;
            params.extend(f.bytes(last, Some(2))?);
            sized(&f, "field_1", 1, kind, &params)?
        }
        (1, 7) => {
            let f = with(&["field_1", "field_2"])?;
            sized(&f, "field_1", 1, 7, &f.bytes("field_2", Some(2))?)?
        }
        (1, 8) => {
            let f = with(&["unknown_1", "field_1", "field_2"])?;
            let mut params = Vec::new();
            let unknown = f.need("unknown_1")?;
            let Node::Seq(groups, _) = unknown else {
                return Err(err(
                    unknown.span(),
                    format!("`{}` must be a list of 4-byte lists", f.path("unknown_1")),
                ));
            };
            for (i, g) in groups.iter().enumerate() {
                let at = format!("{}[{i}]", f.path("unknown_1"));
                let Node::Seq(b, span) = g else {
                    return Err(err(g.span(), format!("`{at}` must be 4 bytes")));
                };
                if b.len() != 4 {
                    return Err(err(*span, format!("`{at}` must be 4 bytes")));
                }
                for (j, v) in b.iter().enumerate() {
                    params.push(uint(v, &format!("{at}[{j}]"), 0xFF)? as u8);
                }
            }
            for v in f.uints("field_1", 0xFFFF, None)? {
                params.extend(file.u16(v as u16));
            }
            params.extend(f.bytes("field_2", Some(4))?);
            tag(1, 8, &params)
        }
        (1, 9) => {
            let f = with(&[
                "unknown_1",
                "strings",
                "field_3",
                "field_4",
                "unknown_2",
                "field_6",
            ])?;
            let mut params = Vec::new();
            if f.get("unknown_1").is_some() {
                params.extend(f.bytes("unknown_1", Some(12))?);
            }
            let strings = f.need("strings")?;
            let Node::Seq(items, span) = strings else {
                return Err(err(
                    strings.span(),
                    format!("`{}` must be a list", f.path("strings")),
                ));
            };
            if items.len() != 4 {
                return Err(err(
                    *span,
                    format!("`{}` must list 4 strings", f.path("strings")),
                ));
            }
            for (i, item) in items.iter().enumerate() {
                let s = Fields::of(
                    item,
                    &format!("{}[{i}]", f.path("strings")),
                    &["field_1", "string"],
                )?;
                params.extend(file.u16(s.u16("field_1")?));
                params.extend(prefixed(file, &s.string("string")?));
            }
            params.extend(u16s(&f, &["field_3", "field_4"])?);
            if f.get("unknown_2").is_some() {
                params.extend(f.bytes("unknown_2", Some(12))?);
            }
            params.extend(f.bytes("field_6", Some(2))?);
            tag(1, 9, &params)
        }
        (1, 10) => {
            let f = with(&["field_1", "field_2", "field_3"])?;
            let mut params = u16s(&f, &["field_2"])?;
            params.extend(f.bytes("field_3", Some(2))?);
            sized(&f, "field_1", 1, 10, &params)?
        }
        (4, 0) | (4, 2) => {
            let f = with(&["field_1", "string"])?;
            sized(
                &f,
                "field_1",
                4,
                kind,
                &prefixed(file, &f.string("string")?),
            )?
        }
        (4, 1) => {
            let f = with(&["field_1"])?;
            tag(4, 1, &f.bytes("field_1", None)?)
        }
        _ => {
            return Err(err(
                sub.span,
                format!("`{at}`: msyt has no sub-kind {kind} in group {number}"),
            ))
        }
    })
}
