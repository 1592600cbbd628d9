//! Byte coverage: which bytes of a file the schema explains.
//!
//! Every byte falls in one class:
//!
//! - **known**: inside a field the schema names (a number, a string, magic,
//!   an offset, a count, opaque `Bytes`, …);
//! - **unknown**: inside a field the schema declares unknown
//!   ([`crate::Field::is_unknown`]) and in no known field;
//! - **padding**: zero bytes the layout rules require: a `CString`'s `pad`,
//!   and zeros from the end of explained data up to the next multiple of an
//!   alignment the schema declares (a section's `align` or `item_align`, a
//!   variant's `align`, `end_align`);
//! - **unexplained**: everything else, reported as ranges (the gaps).
//!
//! Bytes shared by several values (dedup pools) count once.

use super::{Kind, Node};
use crate::Checked;
use codec_runtime::align_up;
use serde::Serialize;

/// How many bytes of a gap are kept for its preview.
pub const PREVIEW_BYTES: usize = 16;

/// The coverage of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The file's length.
    pub len: u64,
    /// Bytes of fields the schema names.
    pub known: u64,
    /// Bytes of fields the schema declares unknown.
    pub unknown: u64,
    /// Zero bytes the layout's alignment and padding rules require.
    pub padding: u64,
    /// The ranges nothing explains, in file order.
    pub gaps: Vec<Gap>,
}

/// A range of bytes that nothing explains.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub offset: u64,
    pub len: u64,
    /// The first bytes of the range (at most [`PREVIEW_BYTES`]).
    pub preview: Vec<u8>,
    /// The path of the field that ends nearest before the gap, if any.
    pub after: Option<String>,
}

impl Coverage {
    /// Bytes nothing explains.
    pub fn unexplained(&self) -> u64 {
        self.gaps.iter().map(|g| g.len).sum()
    }

    /// Known fields and padding: what the schema explains.
    pub fn explained(&self) -> u64 {
        self.known + self.padding
    }
}

const NONE: u8 = 0;
const PADDING: u8 = 1;
const UNKNOWN: u8 = 2;
const KNOWN: u8 = 3;

/// Computes the coverage of `data` by the (possibly partial) tree `root`.
pub fn coverage(c: &Checked, root: &Node, data: &[u8]) -> Coverage {
    let len = data.len();
    let mut class = vec![NONE; len];
    // Leaf ranges (start, end, path) to name the field before each gap.
    let mut ends: Vec<(u64, &str)> = Vec::new();
    let mut mark = |from: u64, to: u64, cls: u8| {
        let from = (from as usize).min(len);
        let to = (to as usize).min(len);
        for b in &mut class[from..to] {
            *b = (*b).max(cls);
        }
    };
    root.walk(&mut |n, _| {
        let own = match &n.kind {
            Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::BitRange { .. } => false,
            Kind::Str { pad, .. } => {
                let end = n.offset + n.size;
                let pad_end = end.saturating_add(*pad);
                let zeros = data
                    .get(end as usize..(pad_end as usize).min(len))
                    .is_some_and(|b| b.iter().all(|&x| x == 0));
                if zeros {
                    mark(end, pad_end, PADDING);
                }
                true
            }
            _ => true,
        };
        if own && n.size > 0 {
            mark(
                n.offset,
                n.offset + n.size,
                if n.unknown { UNKNOWN } else { KNOWN },
            );
            ends.push((n.offset + n.size, n.path.as_str()));
        }
    });
    ends.sort_unstable_by_key(|e| e.0);

    let aligns = alignments(c);
    // Runs of unexplained bytes: alignment padding, or gaps.
    let mut gaps = Vec::new();
    let mut i = 0;
    while i < len {
        if class[i] != NONE {
            i += 1;
            continue;
        }
        let start = i;
        while i < len && class[i] == NONE {
            i += 1;
        }
        let b = i as u64;
        // Zeros from here up to the next multiple of a declared alignment
        // are padding (the widest such stretch); what follows is a gap.
        let pad_end = aligns
            .iter()
            .map(|&al| align_up(start as u64, al))
            .filter(|&p| p <= b && data[start..p as usize].iter().all(|&x| x == 0))
            .max()
            .unwrap_or(start as u64);
        class[start..pad_end as usize].fill(PADDING);
        if pad_end == b {
            continue;
        }
        let (a, start) = (pad_end, pad_end as usize);
        let k = ends.partition_point(|e| e.0 <= a);
        gaps.push(Gap {
            offset: a,
            len: b - a,
            preview: data[start..i.min(start + PREVIEW_BYTES)].to_vec(),
            after: k.checked_sub(1).map(|k| ends[k].1.to_owned()),
        });
    }
    let count = |cls: u8| class.iter().filter(|&&x| x == cls).count() as u64;
    Coverage {
        len: len as u64,
        known: count(KNOWN),
        unknown: count(UNKNOWN),
        padding: count(PADDING),
        gaps,
    }
}

/// The alignments the schema's layout rules declare (each above 1, once).
pub fn alignments(c: &Checked) -> Vec<u64> {
    let s = &c.schema;
    let mut out: Vec<u64> = s
        .sections
        .iter()
        .flat_map(|sec| [sec.align, sec.item_align])
        .chain(std::iter::once(s.end_align))
        .chain(s.types.iter().flat_map(|t| match t {
            crate::TypeDef::Union(u) => u.variants.iter().filter_map(|v| v.align).collect(),
            crate::TypeDef::Struct(_) => Vec::new(),
        }))
        .filter(|&a| a > 1)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
