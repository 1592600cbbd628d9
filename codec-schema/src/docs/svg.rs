//! A byte-layout picture of a struct, as plain SVG text: rows of bytes,
//! each field a box across the bytes it occupies, coloured by what it is
//! (a plain field, an offset, a derived value, magic, unknown), in the style
//! of the packet diagrams of format specifications.

use super::type_label;
use crate::{Checked, Field, StructDef, Type};
use std::fmt::Write;

/// Width of the byte area in pixels.
const AREA: f64 = 640.0;
const LEFT: f64 = 56.0;
const TOP: f64 = 40.0;
const ROW_H: f64 = 40.0;
/// At most this many rows: larger structs get more bytes per row.
const MAX_ROWS: u64 = 32;
/// Approximate width of one character of the label font.
const CHAR_W: f64 = 6.6;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Field,
    Offset,
    Derived,
    Magic,
    Unknown,
    Variable,
}

impl Class {
    fn of(f: &Field) -> Class {
        if f.is_unknown() {
            Class::Unknown
        } else if f.derive.is_some() {
            Class::Derived
        } else if matches!(f.ty, Type::Magic(_)) {
            Class::Magic
        } else if matches!(f.ty, Type::Ptr(_)) {
            Class::Offset
        } else {
            Class::Field
        }
    }

    fn fill(self) -> &'static str {
        match self {
            Class::Field => "#dbeafe",
            Class::Offset => "#dcfce7",
            Class::Derived => "#fef3c7",
            Class::Magic => "#e5e7eb",
            Class::Unknown => "#fecaca",
            Class::Variable => "#ffffff",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Class::Field => "field",
            Class::Offset => "offset",
            Class::Derived => "derived",
            Class::Magic => "magic",
            Class::Unknown => "unknown",
            Class::Variable => "variable size",
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The picture of `st`, or `None` when it has no field at a fixed offset.
/// Fields are drawn up to and including the first one of variable size
/// (as a dashed box).
pub fn struct_svg(c: &Checked, st: &StructDef) -> Option<String> {
    let offsets = c.field_offsets(st);
    // (start, length, field, class)
    let mut boxes: Vec<(u64, u64, &Field, Class)> = Vec::new();
    for (f, off) in st.fields.iter().zip(&offsets) {
        let Some(o) = *off else { break };
        match c.fixed_size(&f.ty) {
            Some(n) if n > 0 => boxes.push((o, n, f, Class::of(f))),
            Some(_) => {}
            None => {
                boxes.push((o, 4, f, Class::Variable));
                break;
            }
        }
    }
    let &(last_start, last_len, ..) = boxes.last()?;
    let total = last_start + last_len;
    let per_row = if total <= 16 {
        total.div_ceil(4) * 4
    } else {
        (total.div_ceil(MAX_ROWS)).next_power_of_two().max(16)
    };
    let rows = total.div_ceil(per_row);
    let px = AREA / per_row as f64;
    let height = TOP + rows as f64 * ROW_H + 56.0;
    let width = LEFT + AREA + 16.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
    );
    let size = match c.fixed_size(&Type::Named(st.name.clone())) {
        Some(n) => format!("0x{n:x} bytes"),
        None => "variable size".into(),
    };
    let _ = writeln!(s, r#"<title>{}: {}</title>"#, esc(&st.name), esc(&size));
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{} ({})</text>"#,
        esc(&st.name),
        esc(&size)
    );
    // Byte positions across the top.
    let step = (per_row / 16).max(1);
    let mut b = 0;
    while b < per_row {
        let x = LEFT + (b as f64 + 0.5) * px;
        let _ = writeln!(
            s,
            r##"<text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#6b7280">{b:x}</text>"##,
            TOP - 6.0
        );
        b += step;
    }
    // Row offsets down the left.
    for r in 0..rows {
        let y = TOP + r as f64 * ROW_H + ROW_H / 2.0 + 4.0;
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{y:.1}" text-anchor="end" fill="#6b7280">0x{:02x}</text>"##,
            LEFT - 6.0,
            r * per_row
        );
    }
    for &(start, len, f, class) in &boxes {
        let tip = format!(
            "{} @0x{start:x}, {}: {}",
            f.name,
            if class == Class::Variable {
                "variable size".to_owned()
            } else {
                format!("{len} byte(s)")
            },
            type_label(&f.ty)
        );
        // Split the field at row boundaries; label the widest piece.
        let mut pieces = Vec::new();
        let mut a = start;
        let end = start + len;
        while a < end {
            let row_end = (a / per_row + 1) * per_row;
            let b = end.min(row_end);
            pieces.push((a, b));
            a = b;
        }
        let widest = pieces
            .iter()
            .enumerate()
            .max_by_key(|&(i, (a, b))| (b - a, std::cmp::Reverse(i)))
            .map_or(0, |(i, _)| i);
        for (i, &(a, b)) in pieces.iter().enumerate() {
            let row = a / per_row;
            let x = LEFT + (a % per_row) as f64 * px;
            let w = (b - a) as f64 * px;
            let y = TOP + row as f64 * ROW_H;
            let dash = if class == Class::Variable {
                r#" stroke-dasharray="4 3""#
            } else {
                ""
            };
            let _ = writeln!(
                s,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{ROW_H}" fill="{}" stroke="#374151"{dash}><title>{}</title></rect>"##,
                class.fill(),
                esc(&tip)
            );
            if i == widest {
                let fits = ((w - 6.0) / CHAR_W).floor().max(0.0) as usize;
                let name = &f.name;
                let text = if name.chars().count() <= fits {
                    name.clone()
                } else if fits >= 2 {
                    let mut t: String = name.chars().take(fits - 1).collect();
                    t.push('…');
                    t
                } else {
                    String::new()
                };
                if !text.is_empty() {
                    let _ = writeln!(
                        s,
                        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                        x + w / 2.0,
                        y + ROW_H / 2.0 + 4.0,
                        esc(&text)
                    );
                }
            }
        }
    }
    // Legend: the classes that occur, in a fixed order.
    let mut x = LEFT;
    let y = TOP + rows as f64 * ROW_H + 24.0;
    for class in [
        Class::Field,
        Class::Offset,
        Class::Derived,
        Class::Magic,
        Class::Unknown,
        Class::Variable,
    ] {
        if !boxes.iter().any(|b| b.3 == class) {
            continue;
        }
        let dash = if class == Class::Variable {
            r#" stroke-dasharray="4 3""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r##"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}" stroke="#374151"{dash}/>"##,
            y - 10.0,
            class.fill()
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{y:.1}">{}</text>"#,
            x + 16.0,
            class.label()
        );
        x += 16.0 + class.label().len() as f64 * CHAR_W + 18.0;
    }
    s.push_str("</svg>\n");
    Some(s)
}
