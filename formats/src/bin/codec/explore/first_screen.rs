//! The page as the server sends it: the first file's name, its document's
//! top entries and its first rows of bytes are in the HTML, so the first
//! screen shows the file before (and without) the script; the script then
//! takes the same places over and adds the interaction. The markup is the
//! script's own (`docEl`, `renderHex` in `page/explore.js`).

use super::session::Session;
use serde_json::Value as Json;
use std::fmt::Write;

/// Rows of bytes drawn by the server (the script draws the rows in view).
const HEX_ROWS: usize = 48;
/// Bytes a row, and pixels a row (the script's `WIDTH` and `ROW`).
const WIDTH: usize = 16;
const ROW_PX: usize = 18;
/// The script's tallest scroll area (`MAX_PX`).
const MAX_PX: usize = 15_000_000;

/// `page` (index.html) with the first document filled in.
pub fn render(page: &str, s: &Session) -> String {
    let mut docs = String::new();
    for (i, d) in s.docs.iter().enumerate() {
        let dirty = if d.dirty { "● " } else { "" };
        let _ = write!(
            docs,
            "<option value=\"{i}\"{}>{dirty}{}</option>",
            if i == 0 { " selected" } else { "" },
            escape(&d.label)
        );
    }
    let (document, hex, spacer, info) = match s.docs.first() {
        None => (String::new(), String::new(), String::new(), String::new()),
        Some(d) => {
            let summary = d.summary(0);
            let document = if d.pending {
                "<div class=\"muted\">reading the file…</div>".to_owned()
            } else {
                match d.document(&[]) {
                    Some(Json::Array(entries)) => entries.iter().map(entry_row).collect(),
                    _ => "No schema reads this file.".to_owned(),
                }
            };
            let rows = d.data.len().div_ceil(WIDTH);
            let spacer = format!(" style=\"height: {}px\"", (rows * ROW_PX).min(MAX_PX));
            let info = format!(
                "{} bytes · {} · {}",
                d.data.len(),
                d.format.map_or("no built-in format", |e| e.name),
                d.read_only().unwrap_or_else(|| "editable".to_owned())
            );
            let runs = summary["runs"].as_array().cloned().unwrap_or_default();
            (document, hex_rows(&d.data, &runs), spacer, escape(&info))
        }
    };
    page.replacen("<!--docs-->", &docs, 1)
        .replacen("<!--document-->", &document, 1)
        .replacen("<!--hex-->", &hex, 1)
        .replacen("<!--spacer-->", &spacer, 1)
        .replacen("<!--info-->", &info, 1)
}

/// One document entry, as the script's `docEl` draws it.
fn entry_row(e: &Json) -> String {
    let s = |k: &str| e[k].as_str().unwrap_or("");
    let tog = if e["kids"].as_u64().unwrap_or(0) > 0 {
        "▸"
    } else {
        " "
    };
    let value = match e["value"].as_str() {
        Some(v) => format!("<span class=\"val\">= {}</span>", escape(v)),
        None => String::new(),
    };
    format!(
        "<div class=\"node\" data-key=\"{}\"><div class=\"line\" style=\"--d: 0\" title=\"{}\">\
         <span class=\"tog\">{tog}</span><span class=\"name\">{}</span>{value}</div></div>",
        escape(s("key")),
        escape(s("docpath")),
        escape(s("segment")),
    )
}

/// The first rows of bytes, coloured by coverage, as `renderHex` draws them.
fn hex_rows(data: &[u8], runs: &[Json]) -> String {
    let runs: Vec<u64> = runs.iter().filter_map(Json::as_u64).collect();
    let class = |o: u64| {
        runs.chunks_exact(3)
            .find(|r| o >= r[0] && o < r[1])
            .map_or(3, |r| r[2])
    };
    let mut out = String::new();
    for (r, row) in data.chunks(WIDTH).take(HEX_ROWS).enumerate() {
        let _ = write!(
            out,
            "<div class=\"row\" style=\"top: {}px\"><span class=\"off\">{:08x}</span>",
            r * ROW_PX,
            r * WIDTH
        );
        let mut text = String::new();
        for i in 0..WIDTH {
            let o = r * WIDTH + i;
            match row.get(i) {
                Some(&x) => {
                    let c = class(o as u64);
                    let _ = write!(out, "<b class=\"c{c}\" data-o=\"{o}\">{x:02x}</b>");
                    let ch = if (0x20..0x7f).contains(&x) {
                        escape(&(x as char).to_string())
                    } else {
                        ".".to_owned()
                    };
                    let _ = write!(text, "<i class=\"c{c}\" data-o=\"{o}\">{ch}</i>");
                }
                None => {
                    out.push_str("<b>  </b>");
                    text.push_str("<i> </i>");
                }
            }
        }
        let _ = write!(out, "<span class=\"asc\">{text}</span></div>");
    }
    out
}

/// Text for HTML, in an element or an attribute in double quotes.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_a_file_cannot_open_markup() {
        assert_eq!(
            escape("<b a=\"x\">&'"),
            "&lt;b a=&quot;x&quot;&gt;&amp;&#39;"
        );
        let rows = hex_rows(b"<a>", &[]);
        assert!(
            rows.contains("<i class=\"c3\" data-o=\"0\">&lt;</i>"),
            "{rows}"
        );
        assert!(!rows.contains("<a>"), "{rows}");
    }
}
