//! Wiki pages from a checked schema: one page per schema in Markdown and in
//! MediaWiki table syntax, and one SVG byte-layout picture per struct.
//!
//! The page is built once as a small document model ([`page`]) and then
//! rendered twice, so the Markdown and the MediaWiki pages say the same
//! thing. `codec docs` writes them; `docs/formats/` holds the checked-in
//! copies and CI proves they are fresh.

mod page;
mod render;
mod svg;

pub use svg::struct_svg;

use crate::{Base, Checked, Count, Derive, Type};

/// Which pages to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocFormat {
    Markdown,
    MediaWiki,
    Svg,
}

impl DocFormat {
    pub const ALL: [DocFormat; 3] = [DocFormat::Markdown, DocFormat::MediaWiki, DocFormat::Svg];
}

/// One generated file: its name (`aamp.md`, `aamp-File.svg`) and contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocFile {
    pub name: String,
    pub contents: String,
}

/// The file-name stem of a schema's pages (`aamp`).
pub fn stem(c: &Checked) -> String {
    c.schema
        .name
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// The name of a struct's SVG picture (`aamp-File.svg`).
pub fn svg_name(c: &Checked, type_name: &str) -> String {
    format!("{}-{type_name}.svg", stem(c))
}

/// The Markdown page.
pub fn markdown(c: &Checked) -> String {
    render::markdown(&page::build(c))
}

/// The MediaWiki page (tables in `{| class="wikitable"` syntax).
pub fn mediawiki(c: &Checked) -> String {
    render::mediawiki(&page::build(c))
}

/// The SVG pictures, one per struct that has at least one field at a fixed
/// offset, in schema order.
pub fn svgs(c: &Checked) -> Vec<DocFile> {
    c.schema
        .types
        .iter()
        .filter_map(|t| match t {
            crate::TypeDef::Struct(s) => struct_svg(c, s).map(|contents| DocFile {
                name: svg_name(c, &s.name),
                contents,
            }),
            crate::TypeDef::Union(_) => None,
        })
        .collect()
}

/// Every file of the requested formats, in a stable order.
pub fn generate(c: &Checked, formats: &[DocFormat]) -> Vec<DocFile> {
    let mut out = Vec::new();
    let stem = stem(c);
    for f in formats {
        match f {
            DocFormat::Markdown => out.push(DocFile {
                name: format!("{stem}.md"),
                contents: markdown(c),
            }),
            DocFormat::MediaWiki => out.push(DocFile {
                name: format!("{stem}.mediawiki"),
                contents: mediawiki(c),
            }),
            DocFormat::Svg => out.extend(svgs(c)),
        }
    }
    out
}

/// A type in a few words, as the dump's and the docs' type columns show it:
/// `u32`, `f32[30]`, `cstring (pad 4)`, `u16 offset ×4 → ParameterList[]`.
pub fn type_label(t: &Type) -> String {
    match t {
        Type::U8 => "u8".into(),
        Type::U16 => "u16".into(),
        Type::U24 => "u24".into(),
        Type::U32 => "u32".into(),
        Type::U64 => "u64".into(),
        Type::I8 => "i8".into(),
        Type::I16 => "i16".into(),
        Type::I32 => "i32".into(),
        Type::I64 => "i64".into(),
        Type::F32 => "f32".into(),
        Type::F64 => "f64".into(),
        Type::Bool8 => "bool8".into(),
        Type::Bool32 => "bool32".into(),
        Type::Magic(m) => format!("magic {}", crate::magic_label(m)),
        Type::Bytes(n) => format!("bytes[{n}]"),
        Type::HashSlots { of, slots, .. } => format!("{of}[] in {slots} hash slots"),
        Type::Text {
            tags,
            encoding,
            lossless,
        } => format!(
            "text ({:?}{}{})",
            encoding,
            tags.as_ref()
                .map(|t| format!(", tags {t}"))
                .unwrap_or_default(),
            if *lossless { ", lossless" } else { "" }
        ),
        Type::PString { len, encoding, nul } => format!(
            "pstring ({} length{}{})",
            type_label(len),
            match encoding {
                crate::Encoding::Utf8 => "",
                crate::Encoding::Utf16 => ", UTF-16",
                crate::Encoding::Utf32 => ", UTF-32",
            },
            if *nul { ", NUL-terminated" } else { "" }
        ),
        Type::Pad { align, fill } => format!("padding to {align} (0x{fill:02X})"),
        Type::CString {
            max,
            pad,
            lossless,
            encoding,
            size,
        } => {
            let mut extra = Vec::new();
            if let Some(n) = size {
                extra.push(format!("in {n} bytes"));
            }
            match encoding {
                crate::Encoding::Utf8 => {}
                crate::Encoding::Utf16 => extra.push("UTF-16".to_owned()),
                crate::Encoding::Utf32 => extra.push("UTF-32".to_owned()),
            }
            if *lossless {
                extra.push("any bytes".to_owned());
            }
            if let Some(m) = max {
                extra.push(format!("max {m}"));
            }
            if let Some(p) = pad {
                extra.push(format!("pad {p}"));
            }
            if extra.is_empty() {
                "cstring".into()
            } else {
                format!("cstring ({})", extra.join(", "))
            }
        }
        Type::Index { table, width } => format!("{} index → {table}", type_label(width)),
        Type::Table { offsets, .. } => format!("sorted strings ({} offsets)", type_label(offsets)),
        Type::Named(n) => n.clone(),
        Type::Array { of, len } => format!("{}[{len}]", type_label(of)),
        Type::Bits { word, .. } => format!("bits ({})", type_label(word)),
        Type::Ptr(p) => {
            let scale = if p.scale > 1 {
                format!(" ×{}", p.scale)
            } else {
                String::new()
            };
            format!(
                "{} offset{scale} → {}",
                type_label(&p.width),
                target_label(&p.to)
            )
        }
        Type::List { of, count } => match &**count {
            Count::Field(_) => format!("{}[]", type_label(of)),
            Count::Before(ct) => format!("{}[] ({} count before)", type_label(of), type_label(ct)),
            Count::Prefix(ct) => format!("{}[] ({} count first)", type_label(of), type_label(ct)),
            Count::ToNext => format!("{}[] (to the next target)", type_label(of)),
            Count::Sum(ps) => format!("{}[] (count: {})", type_label(of), ps.join(" + ")),
            Count::End(e) => format!("{}[] (to the end in {e})", type_label(of)),
        },
        Type::Switch { union, .. } | Type::Select { union, .. } => union.clone(),
        Type::Str { pool, width } => format!("{} string offset in {pool}", type_label(width)),
        Type::Pool {} => "string pool".into(),
        Type::SharesEqual { section } => format!("sharing of {section} (no bytes)"),
        Type::Groups {
            of,
            groups,
            count,
            base,
        } => format!(
            "{groups} groups of {} ({} count, {} base each)",
            type_label(of),
            type_label(count),
            type_label(base)
        ),
        Type::Fixed { raw, frac } => format!("fixed {} /2^{frac}", type_label(raw)),
        Type::Ref { width, to, .. } => format!("{} ref → {to}", type_label(width)),
        Type::Hash { of, width, .. } => format!("hash index of {} → {of}", type_label(width)),
        Type::Rows { cells, .. } => format!("rows of {cells}"),
        Type::Follows { after, to, .. } => format!("{} after {after}", target_label(to)),
    }
}

/// What an offset points to, in a few words (`ParameterList[]`).
fn target_label(t: &Type) -> String {
    match t {
        Type::List { of, .. } => format!("{}[]", type_label(of)),
        other => type_label(other),
    }
}

/// What a derived field holds, in a few words (`number of elements of lists`).
pub fn derive_label(d: &Derive) -> String {
    match d {
        Derive::Count(f) => format!("number of elements of {f}"),
        Derive::Total { list, of } => format!("number of elements of {list}[].{of}, summed"),
        Derive::Size(f) => format!("length in bytes of {f}"),
        Derive::Tag(f) => format!("tag of the variant in {f}"),
        Derive::Tags(f) => match crate::tags_source(f) {
            (list, None) => format!("tags of the variants in {list}"),
            (list, Some(field)) => format!("tags of the variants in {list}[].{field}"),
        },
        Derive::Interned => "sorted string table built on encode".into(),
        Derive::FileSize => "length of the file".into(),
        Derive::RecordCount(t) => format!("number of {t} records"),
        Derive::SectionSize(s) => format!("length of section {s}"),
        Derive::SectionEnd(s) => format!("end of section {s}"),
        Derive::SortedStrings(s) => {
            format!("strings of sorted section {s}, the empty one left out")
        }
        Derive::SectionStart(s) => format!("start of section {s}"),
        Derive::Checksum { hook, from, to } => {
            format!("checksum ({hook}) of bytes 0x{from:x} to the end of section {to}")
        }
        Derive::Stride(f) => format!("row length of {f}"),
        Derive::CellOffset(_) => "offset of the cells in a row".into(),
        Derive::HashNext => "next record of the hash chain".into(),
        Derive::End(f) => format!("end of the target of {f}"),
        Derive::RecordEnd => "where this record ends".into(),
        Derive::KeyHash { key, .. } => format!("hash of {key} (sort key)"),
    }
}

/// How an offset is measured, spelled out: `u16, ×4 bytes, relative to the
/// start of this record`.
pub fn offset_semantics(p: &crate::Ptr) -> String {
    let unit = if p.scale == 1 {
        "in bytes".to_owned()
    } else {
        format!("×{} bytes", p.scale)
    };
    let base = match &p.base {
        Base::File => "relative to the start of the file".to_owned(),
        Base::Absolute(n) => format!("relative to file offset 0x{n:x}"),
        Base::Record => "relative to the start of this record".to_owned(),
        Base::Unit => "relative to the start of the unit".to_owned(),
        Base::Section(s) => format!("relative to the start of section {s}"),
    };
    format!("{}, {unit}, {base}", type_label(&p.width))
}
