//! The text form of a resource size table: JSON a modder edits, one entry
//! a line. Hashes are written in hex as strings (`"0x1a2b3c4d"`), sizes as
//! numbers; the byte order and the compression layers the file was found
//! in are kept, so that `from-text` writes the same bytes back:
//!
//! ```json
//! {
//!   "byte_order": "little",
//!   "layers": "Yaz0 alignment 0",
//!   "crcs": [
//!     {"crc": "0x00030e20", "size": 3536},
//!     ...
//!   ],
//!   "names": [
//!     {"name": "Actor/Physics/SwitchStepL.bphysics", "size": 14800}
//!   ]
//! }
//! ```
//!
//! `crcs` must stay in ascending hash order, as the game searches them by
//! bisection; a text that breaks the order is refused with the entry.

use super::{CrcEntry, NameEntry, Table, Variant};
use crate::layer::Layer;
use serde::Deserialize;
use std::fmt::Write as _;

/// Where a text is wrong and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The JSON of `doc`, found in `variant`'s byte order inside `layers`.
pub fn to_json(doc: &Table, variant: Variant, layers: &[Layer]) -> String {
    let mut out = String::with_capacity(40 * (doc.crcs.len() + doc.names.len()) + 100);
    let order = match variant {
        Variant::Le => "little",
        Variant::Be => "big",
    };
    let _ = writeln!(out, "{{\n  \"byte_order\": \"{order}\",");
    if !layers.is_empty() {
        let named = crate::layer::describe(layers);
        let _ = writeln!(out, "  \"layers\": {},", json_string(&named));
    }
    out.push_str("  \"crcs\": [");
    for (i, e) in doc.crcs.iter().enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            out,
            "{sep}    {{\"crc\": \"0x{:08x}\", \"size\": {}}}",
            e.crc, e.size
        );
    }
    out.push_str(if doc.crcs.is_empty() {
        "],\n"
    } else {
        "\n  ],\n"
    });
    out.push_str("  \"names\": [");
    for (i, e) in doc.names.iter().enumerate() {
        let sep = if i == 0 { "\n" } else { ",\n" };
        let _ = write!(
            out,
            "{sep}    {{\"name\": {}, \"size\": {}}}",
            json_string(&e.name),
            e.size
        );
    }
    out.push_str(if doc.names.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    byte_order: String,
    #[serde(default)]
    layers: Option<String>,
    crcs: Vec<Crc>,
    names: Vec<Name>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Crc {
    crc: String,
    size: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Name {
    name: String,
    size: u32,
}

/// Whether `text` looks like this form (a JSON object with `crcs` and
/// `names`).
pub fn looks_like_rstb_text(text: &str) -> bool {
    let t = text.trim_start_matches('\u{FEFF}').trim_start();
    t.starts_with('{') && text.contains("\"crcs\"") && text.contains("\"names\"")
}

/// The table a text describes, its byte order and the layers to wrap it in.
pub fn from_json(text: &str) -> Result<(Variant, Table, Vec<Layer>), TextError> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| {
        let (_, what) = crate::json_syntax(&e);
        TextError {
            line: e.line(),
            column: e.column(),
            message: what,
        }
    })?;
    // Entries are one a line: errors about one name the line it is on.
    let line_of = |needle: &str| -> (usize, usize) {
        text.lines()
            .enumerate()
            .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
            .unwrap_or((1, 1))
    };
    let err = |needle: &str, message: String| {
        let (line, column) = line_of(needle);
        TextError {
            line,
            column,
            message,
        }
    };
    let variant = match doc.byte_order.as_str() {
        "little" => Variant::Le,
        "big" => Variant::Be,
        other => {
            return Err(err(
                "\"byte_order\"",
                format!("byte_order is `little` or `big`, not `{other}`"),
            ))
        }
    };
    let layers = match &doc.layers {
        None => Vec::new(),
        Some(named) => crate::layer::parse(named).map_err(|e| err("\"layers\"", e))?,
    };
    let mut crcs = Vec::with_capacity(doc.crcs.len());
    for c in &doc.crcs {
        let digits = c.crc.trim_start_matches("0x").trim_start_matches("0X");
        let crc = u32::from_str_radix(digits, 16).map_err(|_| {
            err(
                &format!("\"{}\"", c.crc),
                format!("`{}` is not a hash (8 hex digits, 0x first)", c.crc),
            )
        })?;
        if let Some(prev) = crcs.last().map(|e: &CrcEntry| e.crc) {
            if crc <= prev {
                return Err(err(
                    &format!("\"{}\"", c.crc),
                    format!(
                        "hash {} comes after 0x{prev:08x}: the hashes must ascend (the game bisects them)",
                        c.crc
                    ),
                ));
            }
        }
        crcs.push(CrcEntry { crc, size: c.size });
    }
    let names = doc
        .names
        .into_iter()
        .map(|n| NameEntry {
            name: n.name.as_str().into(),
            size: n.size,
        })
        .collect();
    Ok((variant, Table { crcs, names }, layers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            crcs: vec![
                CrcEntry {
                    crc: 0x10,
                    size: 64,
                },
                CrcEntry {
                    crc: 0xfedc_ba98,
                    size: 4096,
                },
            ],
            names: vec![NameEntry {
                name: "Actor/Pack/\"Quoted\".bactorpack".into(),
                size: 8,
            }],
        }
    }

    #[test]
    fn text_and_back() {
        let layers = [Layer::Yaz0 { alignment: 0 }];
        let text = to_json(&table(), Variant::Be, &layers);
        assert!(
            text.contains("{\"crc\": \"0xfedcba98\", \"size\": 4096}"),
            "{text}"
        );
        assert_eq!(
            from_json(&text).unwrap(),
            (Variant::Be, table(), layers.to_vec())
        );
        let empty = Table {
            crcs: vec![],
            names: vec![],
        };
        let text = to_json(&empty, Variant::Le, &[]);
        assert_eq!(from_json(&text).unwrap(), (Variant::Le, empty, vec![]));
    }

    #[test]
    fn an_out_of_order_hash_is_refused_at_its_line() {
        let text = to_json(&table(), Variant::Le, &[]).replace("0xfedcba98", "0x00000001");
        let e = from_json(&text).unwrap_err();
        assert_eq!(e.line, 5, "{e:?}");
        assert!(e.message.contains("must ascend"), "{e:?}");
        let e = from_json(&to_json(&table(), Variant::Le, &[]).replace("little", "middle"))
            .unwrap_err();
        assert_eq!(e.line, 2);
    }
}
