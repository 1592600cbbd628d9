//! MSBT, the message text of Nintendo's LMS library, from
//! `schemas/msbt.ron` alone: no glue. Its constructs (inline units sized by
//! their block header, padding of a kept byte, blocks of unknown kinds kept
//! in place, counted lists whose elements differ in size, text with control
//! records, a table of hash slots) are in the language; the compiled codec
//! ([`compiled`]) reads and writes the files, and the schema interpreter
//! gives the same values and bytes (`formats/tests/msbt_compiled.rs`). The
//! text forms work on the generic form ([`Value`]): the editors' YAML
//! ([`text`]), msyt's ([`msyt`]) and the generic JSON
//! (`docs/generic-text.md`).

pub mod msyt;
pub mod text;

/// The compiled codec generated from `schemas/msbt.ron`: plain Rust types,
/// `decode(data, Variant)` and `encode(&doc, Variant)`.
#[allow(clippy::all, clippy::pedantic, missing_docs, unused_qualifications)]
pub mod compiled {
    codec_derive::schema!("../schemas/msbt.ron", serde);
}

use codec_interp::{self as interp, Value};
use codec_runtime::{DecodeError, ErrorKind};
use codec_schema::Checked;
use std::sync::OnceLock;

/// The schema, built into the binary.
pub const SCHEMA_SOURCE: &str = include_str!("../../../schemas/msbt.ron");

/// The file magic.
pub const MAGIC: &[u8; 8] = b"MsgStdBn";

/// The schema, checked once.
pub fn schema() -> &'static Checked {
    static SCHEMA: OnceLock<Checked> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        codec_schema::parse_str(SCHEMA_SOURCE, "schemas/msbt.ron")
            .expect("schemas/msbt.ron checks (a test asserts it)")
    })
}

/// The variant a file is written in, from its byte-order mark and its
/// encoding byte: `Le`, `Be`, `LeUtf8`, `BeUtf8`, `LeUtf32`, `BeUtf32`.
pub fn detect(data: &[u8]) -> Option<&'static str> {
    if !data.starts_with(MAGIC) {
        return None;
    }
    let big = match data.get(8..10)? {
        [0xFF, 0xFE] => false,
        [0xFE, 0xFF] => true,
        _ => return None,
    };
    Some(match (big, *data.get(12)?) {
        (false, 1) => "Le",
        (true, 1) => "Be",
        (false, 0) => "LeUtf8",
        (true, 0) => "BeUtf8",
        (false, 2) => "LeUtf32",
        (true, 2) => "BeUtf32",
        _ => return None,
    })
}

/// The schema of a variant named as a user types it (any case).
pub fn variant_named(name: &str) -> Option<&'static str> {
    ["Le", "Be", "LeUtf8", "BeUtf8", "LeUtf32", "BeUtf32"]
        .into_iter()
        .find(|v| v.eq_ignore_ascii_case(name))
}

fn variant(name: &str) -> Result<&'static Checked, String> {
    schema()
        .variant(name)
        .ok_or_else(|| format!("schemas/msbt.ron has no variant `{name}`"))
}

fn not_msbt(data: &[u8]) -> DecodeError {
    let (at, what) = if data.starts_with(MAGIC) {
        (
            8,
            "neither byte-order mark (FF FE, FE FF) with an encoding byte of 0, 1 or 2 at 0xc",
        )
    } else {
        (0, "not an MSBT file (magic \"MsgStdBn\")")
    };
    DecodeError::new(at, ErrorKind::Invalid(what.into()))
}

/// Is `text` the generic JSON of an MSBT document (`"schema": "msbt"` in
/// its first lines, as `to-text` writes it)?
pub fn looks_like_text(text: &str) -> bool {
    let head: String = text.lines().take(3).collect();
    head.trim_start().starts_with('{') && head.contains("\"schema\": \"msbt\"")
}

/// The compiled codec's variant named as the schema names it.
fn compiled_variant(name: &str) -> Result<compiled::Variant, String> {
    compiled::Variant::from_name(name)
        .ok_or_else(|| format!("schemas/msbt.ron has no variant `{name}`"))
}

/// Decodes a file with the compiled codec: its variant and its typed
/// document.
pub fn decode_typed(data: &[u8]) -> Result<(&'static str, compiled::Msbt), DecodeError> {
    let name = detect(data).ok_or_else(|| not_msbt(data))?;
    let v = compiled_variant(name).map_err(|e| DecodeError::new(0, ErrorKind::Invalid(e)))?;
    compiled::decode(data, v).map(|doc| (name, doc))
}

/// Encodes a typed document as the variant named.
pub fn encode_typed(
    doc: &compiled::Msbt,
    variant_name: &str,
) -> Result<Vec<u8>, codec_runtime::EncodeError> {
    let v = compiled_variant(variant_name).map_err(|e| codec_runtime::EncodeError::new("", e))?;
    compiled::encode(doc, v)
}

/// Decodes a file: its variant and its document in the generic form.
pub fn decode(data: &[u8]) -> Result<(&'static str, Value), String> {
    decode_located(data).map_err(|e| e.to_string())
}

/// [`decode`], its error located at the offset where the file departs from
/// the schema (the field path leads its message).
pub fn decode_located(data: &[u8]) -> Result<(&'static str, Value), DecodeError> {
    let (name, doc) = decode_typed(data)?;
    let value = interp::to_value(&doc)
        .map_err(|e| DecodeError::new(0, ErrorKind::Invalid(e.to_string())))?;
    Ok((name, value))
}

/// Encodes a document in the generic form as the variant named.
pub fn encode(doc: &Value, variant_name: &str) -> Result<Vec<u8>, String> {
    encode_value(doc.clone(), variant_name)
}

/// [`encode`], taking the document.
pub fn encode_value(doc: Value, variant_name: &str) -> Result<Vec<u8>, String> {
    let typed: compiled::Msbt = interp::from_value(doc).map_err(|e| e.to_string())?;
    encode_typed(&typed, variant_name).map_err(|e| e.to_string())
}

/// The text of a file (see [`text`]): the form TotK's editors read, with
/// what gives back the same bytes added where the file departs from TotK's
/// defaults.
pub fn to_text(data: &[u8]) -> Result<String, String> {
    let (name, doc) = decode(data)?;
    let generic = interp::json::to_json(variant(name)?, &doc, &[]);
    let generic: serde_json::Value =
        serde_json::from_str(&generic).map_err(|e| format!("the generic form: {e}"))?;
    let text = text::write(&generic["document"], name)?;
    // The text must give back this file: where it would not (labels in
    // an order no writer gives them, say), say so rather than let an edit
    // change what the user did not touch.
    let back = from_text(&text).map_err(|e| format!("the text does not read back: {e}"))?;
    if back != data {
        let at = back
            .iter()
            .zip(data)
            .position(|(a, b)| a != b)
            .unwrap_or(back.len().min(data.len()));
        return Err(format!(
            "the editors' text would not give back this file (its bytes differ from offset \
             {at:#x}: a layout no known writer produces); write the generic form with \
             `to-text --schema schemas/msbt.ron`"
        ));
    }
    Ok(text)
}

/// A file's messages (see [`text::Messages`]), checked to give back the
/// file's bytes (as [`to_text`] checks its text).
///
/// ```
/// use formats::msbt::{from_messages, messages, text::Messages};
/// let written = Messages {
///     settings: Default::default(),
///     messages: vec![("Talk_00".into(), "<3 Type='0' Data='0x0B00'/>Huh?".into())],
/// };
/// let data = from_messages(written.clone()).unwrap();
/// assert_eq!(messages(&data).unwrap(), written);
/// // A tag that does not parse names the label and the character.
/// let typo = Messages {
///     settings: Default::default(),
///     messages: vec![("Talk_00".into(), "Hi <3 Type='0' Data='0x0C00'>".into())],
/// };
/// let e = from_messages(typo).unwrap_err();
/// assert!(e.contains("`Talk_00`, at character 4"), "{e}");
/// ```
pub fn messages(data: &[u8]) -> Result<text::Messages, String> {
    let (name, doc) = decode(data)?;
    let generic = interp::json::to_json(variant(name)?, &doc, &[]);
    let generic: serde_json::Value =
        serde_json::from_str(&generic).map_err(|e| format!("the generic form: {e}"))?;
    let messages = text::messages_of(&generic["document"], name)?;
    let back = from_messages(messages.clone())
        .map_err(|e| format!("the messages do not write back: {e}"))?;
    if back != data {
        return Err(
            "the messages by label would not give back this file (a layout no known writer \
             produces); read it in the generic form (codec.Schema(\"schemas/msbt.ron\"))"
                .into(),
        );
    }
    Ok(messages)
}

/// The file [`text::Messages`] describe, laid out as Nintendo's writer lays
/// it out.
pub fn from_messages(m: text::Messages) -> Result<Vec<u8>, String> {
    let (name, doc) = text::document_of_messages(m)?;
    write_generic(name, doc)
}

/// The file a text (see [`text`]) describes, laid out as Nintendo's writer
/// lays it out.
pub fn from_text(source: &str) -> Result<Vec<u8>, String> {
    let (name, doc) = text::read(source).map_err(|e| e.to_string())?;
    write_generic(name, doc)
}

/// The file msyt's YAML (see [`msyt`]) describes, in `variant`'s byte
/// order and encoding (msyt's `--platform` and `--encoding`; `Le` is
/// Switch UTF-16), laid out as Nintendo's writer lays it out.
pub fn from_msyt(source: &str, variant: &str) -> Result<Vec<u8>, String> {
    let (name, doc) = msyt::read(source, variant).map_err(|e| e.to_string())?;
    write_generic(name, doc)
}

/// The bytes of a document in the generic form, written by the
/// interpreter.
fn write_generic(name: &str, doc: serde_json::Value) -> Result<Vec<u8>, String> {
    let value = interp::json::document_of(variant(name)?, &doc)?;
    encode_value(value, name)
}

/// Is `text` MSBT's text rather than another format's YAML? It starts with
/// the settings entry, or its first entry is a label whose message is a
/// `|-` block or a quoted string and it holds a tag or no YAML tag at all.
pub fn looks_like_editor_text(source: &str) -> bool {
    let first = source
        .lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with("---"));
    match first {
        Some(l) if l.starts_with(text::SETTINGS) => true,
        Some(l) => {
            !l.starts_with([' ', '-', '!', '{', '['])
                && (l.ends_with(": |-") || l.contains(": \""))
                && !source.contains(": !")
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_detected_by_its_mark_and_encoding_byte() {
        let mut head = b"MsgStdBn\xFF\xFE\0\0\x01\x03".to_vec();
        assert_eq!(detect(&head), Some("Le"));
        head[8..10].copy_from_slice(&[0xFE, 0xFF]);
        head[12] = 2;
        assert_eq!(detect(&head), Some("BeUtf32"));
        head[12] = 3;
        assert_eq!(detect(&head), None);
        assert!(decode(&head).unwrap_err().contains("encoding byte"));
        for v in ["Le", "Be", "LeUtf8", "BeUtf8", "LeUtf32", "BeUtf32"] {
            assert!(schema().variant(v).is_some(), "{v}");
        }
    }
}
