//! Byte coverage: which bytes of a file the schema explains.
//!
//! Every byte falls in one class:
//!
//! - **known**: inside a field the schema names (a number, a string, magic,
//!   an offset, a count, opaque `Bytes`, …);
//! - **unknown**: inside a field the schema declares unknown
//!   ([`codec_schema::Field::is_unknown`]) and in no known field;
//! - **padding**: zero bytes the layout rules require: the padding the
//!   interpreter found zero where the layout puts it ([`Node::padding`]: a
//!   `CString`'s `pad`, a row's tail up to its rounded-up length, a unit's
//!   section alignment and padding; checked in the bytes the node was
//!   decoded from, which for a scrambled unit are not the file's), and
//!   zeros from the end of explained data up to the next multiple of an
//!   alignment the schema declares (a section's `align` or `item_align`, a
//!   variant's `align`, `end_align`), counted from the start of the unit
//!   the data lies in, or of the file;
//! - **unexplained**: everything else, reported as ranges (the gaps); and,
//!   once [`Coverage::doubt_stored_positions`] is given them, the stored
//!   numbers that hold where something starts: most likely offsets the
//!   schema keeps as numbers, which go stale on the first edit. A name
//!   does not explain them; declaring them as offsets does.
//!
//! Bytes shared by several values (dedup pools) count once.
//!
//! **Overlaps**: bytes that two different fields read, which a coverage of
//! 100 % would otherwise hide (a list that runs into the next one, an
//! offset into the middle of another field). One value reached twice (a
//! shared subtree: the same range read as the same type) is not one. Nor,
//! in a schema with a section that shares bytes between values (`dedup:
//! Exact` or `ByteSearch`, where AAMP's writer lets a `true` and an `1`, or
//! a vector and the start of a colour, be one word), are two values that
//! offsets lead to.

use super::{Kind, Node};
use codec_runtime::align_up;
use codec_schema::Checked;
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
    /// Bytes read by two different fields, in file order.
    pub overlaps: Vec<Overlap>,
    /// Stored numbers that hold where something starts, in file order:
    /// not in `known`, counted unexplained.
    pub stored_positions: Vec<StoredPosition>,
}

/// A stored number that holds the position of something the schema reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredPosition {
    pub offset: u64,
    pub len: u64,
    /// The number's field, and what starts where it says.
    pub field: String,
    pub target: String,
}

/// Bytes that two different fields read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Overlap {
    pub offset: u64,
    pub len: u64,
    /// The two fields, each as its path and type, the one starting first
    /// first.
    pub first: String,
    pub second: String,
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
    /// Bytes nothing explains: the gaps and the stored positions.
    pub fn unexplained(&self) -> u64 {
        self.gaps.iter().map(|g| g.len).sum::<u64>()
            + self.stored_positions.iter().map(|p| p.len).sum::<u64>()
    }

    /// The unexplained ranges: gaps and stored positions.
    pub fn ranges(&self) -> usize {
        self.gaps.len() + self.stored_positions.len()
    }

    /// Counts the stored numbers of `suspects` (of the file this is the
    /// coverage of, [`super::edits::stored_offsets`]) as unexplained: their
    /// bytes leave `known`.
    pub fn doubt_stored_positions(&mut self, suspects: &[super::edits::Suspect]) {
        let mut seen = std::collections::HashSet::new();
        for s in suspects.iter().filter(|s| s.wide && s.size > 0) {
            if !seen.insert(s.at) {
                continue;
            }
            self.known = self.known.saturating_sub(s.size);
            self.stored_positions.push(StoredPosition {
                offset: s.at,
                len: s.size,
                field: s.field().to_owned(),
                target: s.target_text(),
            });
        }
        self.stored_positions.sort_by_key(|p| p.offset);
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
    let (class, gaps) = classify(c, root, data);
    let count = |cls: u8| class.iter().filter(|&&x| x == cls).count() as u64;
    Coverage {
        len: data.len() as u64,
        known: count(KNOWN),
        unknown: count(UNKNOWN),
        padding: count(PADDING),
        gaps,
        overlaps: overlaps(c, root),
        stored_positions: Vec::new(),
    }
}

/// What explains a run of bytes, as [`coverage`] counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Unexplained,
    Padding,
    Unknown,
    Known,
}

/// The file as runs of bytes of one [`Class`] each, `(from, to, class)` in
/// file order, covering every byte: what a hex view colours.
pub fn runs(c: &Checked, root: &Node, data: &[u8]) -> Vec<(u64, u64, Class)> {
    let (class, _) = classify(c, root, data);
    let mut out: Vec<(u64, u64, Class)> = Vec::new();
    for (i, &x) in class.iter().enumerate() {
        let cls = match x {
            NONE => Class::Unexplained,
            PADDING => Class::Padding,
            UNKNOWN => Class::Unknown,
            _ => Class::Known,
        };
        match out.last_mut() {
            Some(r) if r.2 == cls => r.1 = i as u64 + 1,
            _ => out.push((i as u64, i as u64 + 1, cls)),
        }
    }
    out
}

/// Each byte's class and the gaps (runs nothing explains, less the zeros
/// an alignment accounts for).
fn classify(c: &Checked, root: &Node, data: &[u8]) -> (Vec<u8>, Vec<Gap>) {
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
    // Where each unit starts and ends: alignment inside counts from its start.
    let mut units: Vec<(u64, u64)> = Vec::new();
    root.walk(&mut |n, _| {
        for &(a, b) in &n.padding {
            mark(a, b, PADDING);
        }
        if let Kind::Record { type_name, .. } = &n.kind {
            if matches!(c.get(type_name), Some(codec_schema::TypeDef::Struct(s)) if s.layout.is_some()) {
                let mut end = None;
                n.walk(&mut |d, _| {
                    let e =
                        (d.offset + d.size).max(d.padding.iter().map(|p| p.1).max().unwrap_or(0));
                    end = Some(end.map_or(e, |x: u64| x.max(e)));
                });
                units.push((n.offset, end.unwrap_or(n.offset)));
            }
        }
        let own = !matches!(
            n.kind,
            Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::BitRange { .. }
        );
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
    units.sort_unstable();

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
        // The unit the run lies in (the innermost one starting before it).
        let s = start as u64;
        let base = units
            .iter()
            .rev()
            .find(|u| u.0 <= s && s < u.1)
            .map_or(0, |u| u.0);
        // Zeros from here up to the next multiple of a declared alignment
        // are padding (the widest such stretch); what follows is a gap.
        let pad_end = aligns
            .iter()
            .map(|&al| base + align_up(s - base, al))
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
    (class, gaps)
}

/// A field's bytes, for the overlaps: (start, end, path, type, whether an
/// offset leads straight to it).
type Leaf<'a> = (u64, u64, &'a str, &'a str, bool);

/// The overlaps of the tree's fields (see the module's docs). The fields
/// are swept in order of start, the furthest-reaching earlier one kept:
/// one sort.
fn overlaps(c: &Checked, root: &Node) -> Vec<Overlap> {
    fn leaves<'a>(n: &'a Node, behind_offset: bool, out: &mut Vec<Leaf<'a>>) {
        let own = !matches!(
            n.kind,
            Kind::Record { .. } | Kind::Seq | Kind::Variant { .. } | Kind::BitRange { .. }
        );
        if own && n.size > 0 {
            out.push((n.offset, n.offset + n.size, &n.path, &n.ty, behind_offset));
        }
        let offset = matches!(n.kind, Kind::Offset { .. });
        for ch in &n.children {
            leaves(ch, offset || (behind_offset && !own), out);
        }
    }
    let sharing = codec_schema::all_sections(&c.schema).iter().any(|s| {
        matches!(
            s.dedup,
            codec_schema::Dedup::Exact | codec_schema::Dedup::ByteSearch { .. }
        )
    });
    let mut all = Vec::new();
    leaves(root, false, &mut all);
    all.sort_unstable_by_key(|l| (l.0, std::cmp::Reverse(l.1)));
    let mut out: Vec<Overlap> = Vec::new();
    let mut reach: Option<Leaf<'_>> = None;
    for l in all {
        let Some(r) = reach else {
            reach = Some(l);
            continue;
        };
        let one_value = r.0 == l.0 && r.1 == l.1 && r.3 == l.3;
        let pooled = sharing && r.4 && l.4;
        if l.0 < r.1 && !one_value && !pooled {
            let end = l.1.min(r.1);
            match out.last_mut() {
                // Pairs over adjacent bytes with the same first field: once.
                Some(o) if o.offset + o.len >= l.0 && o.first == format!("{} ({})", r.2, r.3) => {
                    o.len = o.len.max(end - o.offset);
                }
                _ => out.push(Overlap {
                    offset: l.0,
                    len: end - l.0,
                    first: format!("{} ({})", r.2, r.3),
                    second: format!("{} ({})", l.2, l.3),
                }),
            }
        }
        if l.1 > r.1 {
            reach = Some(l);
        }
    }
    out
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
            codec_schema::TypeDef::Union(u) => u.variants.iter().filter_map(|v| v.align).collect(),
            codec_schema::TypeDef::Struct(_) => Vec::new(),
        }))
        .filter(|&a| a > 1)
        .collect();
    // Values that keep their own alignment may sit at any power of two (up
    // to the runtime's bound): zeros up to one are their padding.
    if kept_alignment(c) {
        let max = codec_runtime::placement::MAX_KEPT_ALIGN;
        out.extend((1..).map(|k| 1u64 << k).take_while(|&a| a <= max));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Does any offset of the schema keep its target's alignment?
fn kept_alignment(c: &Checked) -> bool {
    c.schema.types.iter().any(|t| match t {
        codec_schema::TypeDef::Struct(st) => st
            .fields
            .iter()
            .any(|f| matches!(&f.ty, codec_schema::Type::Ptr(p) if p.align.is_some())),
        codec_schema::TypeDef::Union(_) => false,
    })
}
