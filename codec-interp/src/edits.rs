//! The edit probe: proves a schema lays out *edited* documents, not only
//! the files it read (issue 72). A schema whose offsets, sizes and counts
//! are stored numbers re-encodes every file it read byte for byte, since
//! the stale numbers come back as they were; it breaks on the first string
//! made longer. So after the identity round trip, [`probe`] edits the
//! document in the ways the schema says are free, encodes each edited
//! document, decodes the bytes again and compares them with the edit:
//!
//! - every variable-length string (no fixed size, no maximum) made longer
//!   and shorter;
//! - an element appended to and removed from every list whose count or end
//!   the writer derives (a sibling `derive: Count`, `ToNext`, `End`, a
//!   count stored with the list);
//! - the integer payload of each union arm present changed.
//!
//! Each place of the schema (a record's field, an arm) is edited once per
//! file, at the first value that allows the edit: what is proved is the
//! schema's layout, and the cost stays a few encodes per field of the
//! schema, not per value of the file. An edit that does not come back as
//! made is reported with the path of the value edited and the first place
//! the document read back departs from it.

use super::{Hooks, Kind, Node, Value};
use codec_runtime::Limits;
use codec_schema::{Checked, Count, Derive, StructDef, Type, TypeDef};
use serde::Serialize;
use std::collections::HashSet;

/// What the probe did to one document.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Edits encoded and decoded again.
    pub tried: usize,
    /// Edits that came back as made.
    pub held: usize,
    /// Those edits, each as its path and the edit.
    pub held_edits: Vec<String>,
    /// Edits the writer refused, saying why: what the format forbids (a
    /// column removed while the rows keep its cells), not a fault of the
    /// schema's layout.
    pub refused: Vec<Failure>,
    /// The others, in the order tried: written, but not read back as made.
    pub failed: Vec<Failure>,
}

/// An edit that did not come back as made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The value edited (`File.first_block.events[3].name`).
    pub path: String,
    /// The edit (`grew by 4 bytes`).
    pub edit: String,
    /// What happened instead.
    pub why: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}, {}", self.path, self.edit, self.why)
    }
}

/// At most this many edits per document: a schema has few places to edit,
/// and a hostile one cannot make the probe encode a file thousands of times.
pub const MAX_EDITS: usize = 256;

/// One step from a value to a value inside it.
#[derive(Debug, Clone, Copy)]
enum Step {
    Field(usize),
    Elem(usize),
    /// Into an optional value that is present, or a variant's payload.
    Inner,
}

#[derive(Debug, Clone)]
enum Edit {
    Grow,
    Shrink,
    Append,
    Remove,
    Bump,
}

impl Edit {
    fn says(&self, v: &Value) -> String {
        match (self, v) {
            (Edit::Grow, _) => format!("grew by {} bytes", GROWTH.len()),
            (Edit::Shrink, Value::Str(s)) => format!(
                "shrank by {} byte(s)",
                s.chars().last().map_or(0, char::len_utf8)
            ),
            (Edit::Shrink, Value::Seq(_)) => "its last character removed".into(),
            (Edit::Shrink, _) => "shrank".into(),
            (Edit::Append, Value::Seq(s)) => {
                format!("an element appended (a copy of [{}])", s.len() - 1)
            }
            (Edit::Append, _) => "an element appended".into(),
            (Edit::Remove, Value::Seq(s)) => format!("[{}] removed", s.len() - 1),
            (Edit::Remove, _) => "an element removed".into(),
            (Edit::Bump, v) => format!("{} changed to {}", short(v), short(&bumped(v))),
        }
    }
}

/// What a string grows by.
const GROWTH: &str = "Edit";

/// A place to edit in one document: where the value is, its path, and
/// the edit.
#[derive(Debug, Clone)]
pub struct Site {
    steps: Vec<Step>,
    /// The value's path (`File.nodes[0].name`).
    pub path: String,
    edit: Edit,
    /// The place of the schema and the edit, the same in every document
    /// the schema reads: a run edits each place once.
    pub place: Place,
}

/// A place of a schema (a field's or an arm's type, by its address in the
/// checked schema) and an edit of it.
pub type Place = (usize, u8);

/// Edits document `doc` (the root record's generic form, as read by schema
/// `c`) in the ways the schema says are free, and reports which came back.
pub fn probe(c: &Checked, read: &Node, hooks: &dyn Hooks) -> Report {
    let doc = read.to_value();
    try_sites(c, &doc, sites(c, &doc), &stored_offsets(c, read), hooks)
}

/// A stored number that holds the position of something the schema reads:
/// an offset kept as a number, unless a coincidence. An edit that moves
/// what it leads to and leaves the number as it was is the schema's fault.
#[derive(Debug, Clone)]
pub struct Suspect {
    /// The number's field (`File.first_block.name_ptr`).
    field: String,
    /// The number.
    pub value: u64,
    /// Is it 4 bytes wide or more (as most offsets are)?
    pub wide: bool,
    /// Where the number is stored, and its width in bytes.
    pub at: u64,
    pub size: u64,
    /// What starts there (by its path), and how far into it the number
    /// leads (a string's characters after its length).
    target: String,
    into: u64,
}

impl Suspect {
    /// The number's field (`File.first_block.name_ptr`).
    pub fn field(&self) -> &str {
        &self.field
    }

    /// What the number leads to: `File.title`, or a string's characters
    /// `File.names[2].text (+2)`.
    pub fn target_text(&self) -> String {
        match self.into {
            0 => self.target.clone(),
            k => format!("{} (+{k})", self.target),
        }
    }

    /// The number's field with no element indices: the place of the schema
    /// it is read by (`File.first_block.events[].name_ptr`).
    pub fn place(&self) -> String {
        place_of(&self.field)
    }
}

/// A path with its element indices taken out.
pub fn place_of(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut skip = false;
    for ch in path.chars() {
        match ch {
            '[' => {
                skip = true;
                out.push('[');
            }
            ']' => {
                skip = false;
                out.push(']');
            }
            _ if skip => {}
            _ => out.push(ch),
        }
    }
    out
}

/// The places (as [`place_of`]) of the stored numbers of a file read as
/// `read` that are not zero: with [`Suspect`]s of many files, tells an
/// offset kept as a number (its place matches in every file that holds
/// it, at positions that differ) from a coincidence (a version that
/// equals a position in one file).
pub fn number_places(read: &Node) -> HashSet<String> {
    let mut out = HashSet::new();
    read.walk(&mut |n, _| {
        if let Kind::Number { value } = &n.kind {
            if !matches!(
                value,
                Value::U8(0)
                    | Value::U16(0)
                    | Value::U32(0)
                    | Value::U64(0)
                    | Value::I32(0)
                    | Value::I64(0)
            ) {
                out.insert(place_of(&n.path));
            }
        }
    });
    out
}

/// What the stored numbers of one place of a schema say over the files
/// read.
#[derive(Debug, Default)]
struct Numbers {
    /// Files where it is not zero.
    present: usize,
    /// Files where it equals the position of something read.
    matched: usize,
    /// Some of the positions it equals (two tell it is no constant).
    values: HashSet<u64>,
    /// 4 bytes wide or more.
    wide: bool,
}

impl Numbers {
    /// Is this place an offset kept as a number? It equals a position in
    /// nearly every file that holds it, and the positions differ (a version
    /// number that equals one position in every file is a constant), or the
    /// only file holds it, 4 bytes wide.
    fn offset_like(&self) -> bool {
        self.matched * 10 >= self.present * 9
            && (self.values.len() >= 2 || (self.present == 1 && self.wide))
    }
}

/// The stored numbers of a schema's places over many files: which places
/// hold offsets kept as numbers, and which match a position by chance
/// (`check`'s edit probe and `coverage` ask it).
#[derive(Debug, Default)]
pub struct NumberPlaces {
    places: std::collections::HashMap<String, Numbers>,
}

impl NumberPlaces {
    /// Adds one file: its [`number_places`] and its [`stored_offsets`].
    pub fn add_file(&mut self, numbers: HashSet<String>, suspects: &[Suspect]) {
        for place in numbers {
            self.places.entry(place).or_default().present += 1;
        }
        let mut places: Vec<(String, u64, bool)> = suspects
            .iter()
            .map(|s| (s.place(), s.value, s.wide))
            .collect();
        places.sort();
        places.dedup_by(|a, b| a.0 == b.0);
        for (place, value, wide) in places {
            let n = self.places.entry(place).or_default();
            n.matched += 1;
            n.wide |= wide;
            if n.values.len() < 2 {
                n.values.insert(value);
            }
        }
    }

    /// Is `s` an offset kept as a number, judged over every file added?
    pub fn offset_like(&self, s: &Suspect) -> bool {
        self.places
            .get(&s.place())
            .is_some_and(Numbers::offset_like)
    }
}

/// Where a stored number is taken for an offset: past the first bytes,
/// where small counts and sizes would match by chance.
const MIN_OFFSET: u64 = 0x10;

/// The stored numbers of a file read by schema `c` as `read` that equal
/// the position of something read (a record, a list, a string, or a
/// string's characters after a length of 1, 2 or 4 bytes). A number the
/// schema uses as an alignment (`align_by`) is explained by that use: data
/// aligned to 4,096 that starts at 4,096 is no offset.
pub fn stored_offsets(c: &Checked, read: &Node) -> Vec<Suspect> {
    let alignments: HashSet<&str> = c
        .schema
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(st) => Some(st.fields.iter().filter_map(|f| f.align_by.as_deref())),
            TypeDef::Union(_) => None,
        })
        .flatten()
        .collect();
    let an_alignment = |path: &str| {
        let last = path.rsplit(['.', ':']).next().unwrap_or(path);
        alignments.contains(last)
    };
    // Records, lists and sections first; a string's characters only
    // where nothing else starts.
    let mut starts: std::collections::HashMap<u64, (&str, u64)> = Default::default();
    let mut chars: std::collections::HashMap<u64, (&str, u64)> = Default::default();
    read.walk(&mut |n, _| {
        // An empty section holds nothing, but a derived start says where.
        if let Some(at) = section_start(n) {
            if at >= MIN_OFFSET {
                starts.entry(at).or_insert((&n.path, 0));
            }
            return;
        }
        let placed = matches!(
            n.kind,
            Kind::Record { .. }
                | Kind::Seq
                | Kind::Numbers { .. }
                | Kind::Octets { .. }
                | Kind::Str { .. }
                | Kind::Bytes { .. }
        );
        if !placed || n.size == 0 || n.offset < MIN_OFFSET {
            return;
        }
        if let Kind::Str { .. } = n.kind {
            for k in [0, 1, 2, 4] {
                chars.entry(n.offset + k).or_insert((&n.path, k));
            }
        } else {
            starts.entry(n.offset).or_insert((&n.path, 0));
        }
    });
    let mut out = Vec::new();
    // Per place: its values that are not zero, and those that match.
    let mut tally: std::collections::HashMap<String, (usize, usize)> = Default::default();
    read.walk(&mut |n, _| {
        let Kind::Number { value } = &n.kind else {
            return;
        };
        let Some(v) = position(value) else {
            return;
        };
        if an_alignment(&n.path) {
            return;
        }
        let matched = starts.get(&v).or_else(|| chars.get(&v));
        if v > 0 {
            let t = tally.entry(place_of(&n.path)).or_default();
            t.0 += 1;
            t.1 += usize::from(matched.is_some());
        }
        if let Some(&(target, into)) = matched {
            if target != n.path {
                out.push(Suspect {
                    field: n.path.clone(),
                    value: v,
                    wide: n.size >= 4,
                    at: n.offset,
                    size: n.size,
                    target: target.to_owned(),
                    into,
                });
            }
        }
    });
    // A place of many values that land by chance now and then (an index
    // into 3,000 messages equal to a label's position) is no offset: most
    // of its values must land.
    out.retain(|s| {
        tally
            .get(&s.place())
            .is_some_and(|&(nonzero, matched)| matched * 10 >= nonzero * 9)
    });
    out
}

/// The places document `doc` of schema `c` can be edited, each place of the
/// schema once (at its first value that allows the edit).
pub fn sites(c: &Checked, doc: &Value) -> Vec<Site> {
    let mut find = Finder {
        c,
        seen: HashSet::new(),
        sites: Vec::new(),
        steps: Vec::new(),
    };
    let root = c.root();
    find.record(root, doc, &root.name, 0);
    find.sites
}

/// Tries the edits `sites` (of [`sites`]) on document `doc`, whose file
/// held the stored numbers `suspects` (of [`stored_offsets`]).
pub fn try_sites(
    c: &Checked,
    doc: &Value,
    sites: Vec<Site>,
    suspects: &[Suspect],
    hooks: &dyn Hooks,
) -> Report {
    let mut report = Report::default();
    for site in sites {
        let mut edited = doc.clone();
        let Some(target) = reach(&mut edited, &site.steps) else {
            continue;
        };
        let edit = site.edit.says(target);
        apply(target, &site.edit);
        report.tried += 1;
        match check(c, &edited, suspects, hooks) {
            Ok(()) => {
                report.held += 1;
                report.held_edits.push(format!("{}: {edit}", site.path));
            }
            Err(Outcome::Refused(why)) => report.refused.push(Failure {
                path: site.path,
                edit,
                why,
            }),
            Err(Outcome::Failed(why)) => report.failed.push(Failure {
                path: site.path,
                edit,
                why,
            }),
        }
    }
    report
}

/// Encodes `edited`, decodes the bytes and compares; then looks for a
/// stored number left behind by what it led to.
fn check(
    c: &Checked,
    edited: &Value,
    suspects: &[Suspect],
    hooks: &dyn Hooks,
) -> Result<(), Outcome> {
    let bytes = super::encode(c, edited, hooks)
        .map_err(|e| Outcome::Refused(format!("refused on writing: {e}")))?;
    let read = super::decode_partial_with(c, &bytes, Limits::default(), hooks);
    if let Some(e) = read.error {
        return Err(Outcome::Failed(format!(
            "the written file does not decode: {e}"
        )));
    }
    compare(c, edited, read.root.to_value()).map_err(Outcome::Failed)?;
    stale(&read.root, suspects).map_err(Outcome::Failed)
}

/// Why an edit did not hold.
enum Outcome {
    /// The writer refused the edited document.
    Refused(String),
    /// It was written, and read back otherwise.
    Failed(String),
}

/// The number a field holds, when it could be a position: 2 bytes wide or
/// more, and not negative.
pub fn position(v: &Value) -> Option<u64> {
    match v {
        Value::U16(x) => Some(u64::from(*x)),
        Value::U32(x) => Some(u64::from(*x)),
        Value::U64(x) => Some(*x),
        Value::I32(x) => u64::try_from(*x).ok(),
        Value::I64(x) => u64::try_from(*x).ok(),
        _ => None,
    }
}

/// Where a section starts, when `n` is a derived field that says so.
fn section_start(n: &Node) -> Option<u64> {
    match &n.kind {
        Kind::Derived { raw, meaning } if meaning.starts_with("start of section") => Some(*raw),
        _ => None,
    }
}

/// The first stored number of `suspects` whose target moved in the file
/// read as `read` while the number stayed.
fn stale(read: &Node, suspects: &[Suspect]) -> Result<(), String> {
    match moved_from(read, suspects).into_iter().next() {
        None => Ok(()),
        Some((s, moved, now)) => Err(format!(
            "{} is a stored number, 0x{:x}, the position of {} in the file read; after the \
             edit that is at 0x{:x} and the number still says 0x{:x}: declare the field as an \
             offset (`Ptr`) so that the writer derives it",
            s.field,
            s.value,
            s.target_text(),
            moved,
            now
        )),
    }
}

/// The stored numbers of `suspects` (found in a file a text was made
/// from) that still hold the old position of what they led to, now that
/// the file written from the edited text reads as `read`: one line each
/// (`from-text --schema` warns with them).
pub fn stale_numbers(read: &Node, suspects: &[Suspect]) -> Vec<String> {
    moved_from(read, suspects)
        .into_iter()
        .map(|(s, moved, now)| {
            format!(
                "{} is a stored number, 0x{now:x}, the position of {} in the file the text was \
                 made from; in the file written that is at 0x{moved:x}: if the number is an \
                 offset, its readers will look in the wrong place (set it, or declare the field \
                 as an offset, `Ptr`, so that the writer derives it)",
                s.field,
                s.target_text(),
            )
        })
        .collect()
}

impl Suspect {
    /// The suspect as the generic text keeps it: `{"field", "value",
    /// "target", "into"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "field": self.field,
            "value": self.value,
            "target": self.target,
            "into": self.into,
        })
    }

    /// A suspect the generic text kept ([`Suspect::to_json`]).
    pub fn from_json(v: &serde_json::Value) -> Option<Suspect> {
        Some(Suspect {
            field: v.get("field")?.as_str()?.to_owned(),
            value: v.get("value")?.as_u64()?,
            wide: true,
            at: 0,
            size: 0,
            target: v.get("target")?.as_str()?.to_owned(),
            into: v.get("into")?.as_u64()?,
        })
    }
}

/// The suspects whose target moved in the file read as `read` while the
/// number stayed: each with where its target is now and the number.
fn moved_from<'s>(read: &Node, suspects: &'s [Suspect]) -> Vec<(&'s Suspect, u64, u64)> {
    if suspects.is_empty() {
        return Vec::new();
    }
    let mut at: std::collections::HashMap<&str, (u64, Option<u64>)> = Default::default();
    read.walk(&mut |n, _| {
        let e = at.entry(&n.path).or_insert((u64::MAX, None));
        if let (Some(start), u64::MAX) = (section_start(n), e.0) {
            e.0 = start;
        }
        match &n.kind {
            Kind::Number { value } => e.1 = position(value),
            Kind::Record { .. }
            | Kind::Seq
            | Kind::Numbers { .. }
            | Kind::Octets { .. }
            | Kind::Str { .. }
            | Kind::Bytes { .. }
                if e.0 == u64::MAX =>
            {
                e.0 = n.offset
            }
            _ => {}
        }
    });
    let mut out = Vec::new();
    for s in suspects {
        let (Some(&(moved, _)), Some(&(_, Some(now)))) =
            (at.get(s.target.as_str()), at.get(s.field.as_str()))
        else {
            continue;
        };
        if moved != u64::MAX && now == s.value && moved + s.into != s.value {
            out.push((s, moved + s.into, now));
        }
    }
    out
}

/// Compares the edited document with the one read back, less what the
/// writer decides ([`normalize`]).
fn compare(c: &Checked, edited: &Value, mut back: Value) -> Result<(), String> {
    let mut made = edited.clone();
    let root = c.root();
    normalize(c, root, &mut made, 0);
    normalize(c, root, &mut back, 0);
    match first_difference(&made, &back, &root.name) {
        None => Ok(()),
        Some((path, made, read)) => Err(format!(
            "decoded back different: {path} is {read} where the edit made it {made}"
        )),
    }
}

/// The first place two documents differ: its path, and each side there.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<(String, String, String)> {
    if a == b {
        return None;
    }
    match (a, b) {
        (Value::Struct { fields: fa, .. }, Value::Struct { fields: fb, .. })
            if fa.len() == fb.len() =>
        {
            fa.iter()
                .zip(fb)
                .find_map(|((n, x), (_, y))| first_difference(x, y, &format!("{path}.{n}")))
        }
        (Value::Seq(xa), Value::Seq(xb)) if xa.len() == xb.len() => xa
            .iter()
            .zip(xb)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]"))),
        (Value::Seq(xa), Value::Seq(xb)) => Some((
            path.to_owned(),
            format!("{} element(s)", xa.len()),
            format!("{} element(s)", xb.len()),
        )),
        (Value::Option(Some(x)), Value::Option(Some(y))) => first_difference(x, y, path),
        (
            Value::Variant {
                variant: va,
                value: x,
                ..
            },
            Value::Variant {
                variant: vb,
                value: y,
                ..
            },
        ) if va == vb => first_difference(x, y, &format!("{path}::{va}")),
        _ => Some((path.to_owned(), short(a), short(b))),
    }
}

/// A value as a report shows it: scalars and strings whole (strings cut
/// at 40 characters), anything else by its kind.
fn short(v: &Value) -> String {
    match v {
        Value::Str(s) if s.chars().count() > 40 => {
            format!("{:?}…", s.chars().take(40).collect::<String>())
        }
        Value::Str(s) => format!("{s:?}"),
        Value::Seq(s) => format!("{} element(s)", s.len()),
        Value::Struct { name, .. } => format!("a {name}"),
        Value::Variant { variant, .. } => format!("variant {variant}"),
        Value::Option(None) => "absent".into(),
        Value::Option(Some(x)) => short(x),
        Value::Bytes(b) => format!("{} byte(s)", b.len()),
        other => format!("{other:?}")
            .trim_start_matches(|c: char| c.is_alphanumeric())
            .trim_matches(|c| c == '(' || c == ')')
            .to_owned(),
    }
}

/// The value `steps` lead to.
fn reach<'v>(mut v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    for s in steps {
        v = match (s, v) {
            (Step::Field(i), Value::Struct { fields, .. }) => &mut fields.get_mut(*i)?.1,
            (Step::Elem(i), Value::Seq(xs)) => xs.get_mut(*i)?,
            (Step::Inner, Value::Option(Some(x))) => x,
            (Step::Inner, Value::Variant { value, .. }) => value,
            _ => return None,
        };
    }
    Some(v)
}

fn apply(v: &mut Value, edit: &Edit) {
    match (edit, v) {
        (Edit::Grow, Value::Str(s)) => s.push_str(GROWTH),
        (Edit::Shrink, Value::Str(s)) => {
            s.pop();
        }
        // Text with tags grows and shrinks at its end.
        (Edit::Grow, Value::Seq(runs)) => match runs.last_mut() {
            Some(Value::Str(s)) => s.push_str(GROWTH),
            _ => runs.push(Value::Str(GROWTH.into())),
        },
        (Edit::Shrink, Value::Seq(runs)) => {
            if let Some(Value::Str(s)) = runs.last_mut() {
                s.pop();
            }
        }
        (Edit::Append, Value::Seq(xs)) => {
            if let Some(mut last) = xs.last().cloned() {
                // A copy with a key of its own: its first string grown,
                // else its first number changed.
                if let Some(s) = first_string(&mut last) {
                    s.push_str(GROWTH);
                } else if let Some(x) = first_integer(&mut last) {
                    *x = bumped(x);
                }
                xs.push(last);
            }
        }
        (Edit::Remove, Value::Seq(xs)) => {
            xs.pop();
        }
        (Edit::Bump, v) => *v = bumped(v),
        _ => {}
    }
}

/// The first string of a value, depth first.
fn first_string(v: &mut Value) -> Option<&mut String> {
    match v {
        Value::Str(s) => Some(s),
        Value::Struct { fields, .. } => fields.iter_mut().find_map(|(_, x)| first_string(x)),
        Value::Seq(xs) => xs.iter_mut().find_map(first_string),
        Value::Option(Some(x)) => first_string(x),
        Value::Variant { value, .. } => first_string(value),
        _ => None,
    }
}

/// The first integer of a value, depth first.
fn first_integer(v: &mut Value) -> Option<&mut Value> {
    match v {
        Value::U8(_)
        | Value::U16(_)
        | Value::U32(_)
        | Value::U64(_)
        | Value::I8(_)
        | Value::I16(_)
        | Value::I32(_)
        | Value::I64(_) => Some(v),
        Value::Struct { fields, .. } => fields.iter_mut().find_map(|(_, x)| first_integer(x)),
        Value::Option(Some(x)) => first_integer(x),
        Value::Variant { value, .. } => first_integer(value),
        _ => None,
    }
}

/// What the writer decides and the reader infers again, taken out of a
/// document before an edit is compared with what was read back: a string
/// pool's list (the writer adds each new string, and keeps the old ones),
/// a kept alignment (read back as the largest the new place allows), the
/// byte padding was filled with, the order of a list the writer sorts or
/// spreads over hash slots.
fn normalize(c: &Checked, st: &StructDef, v: &mut Value, depth: usize) {
    let Value::Struct { fields, .. } = v else {
        return;
    };
    for (name, fv) in fields.iter_mut() {
        let Some(f) = st.fields.iter().find(|f| &f.name == name) else {
            continue;
        };
        // The byte padding was found filled with: none found before an
        // edit, the writer's fill after it.
        if let Type::Pad { .. } = f.ty {
            *fv = Value::Unit;
            continue;
        }
        normalize_value(c, &f.ty, fv, depth + 1);
        if let (Some(_), Value::Seq(xs)) = (&f.sort_by, &mut *fv) {
            xs.sort_by_cached_key(|x| format!("{x:?}"));
        }
    }
}

fn normalize_value(c: &Checked, t: &Type, v: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match (t, v) {
        (_, Value::Option(Some(x))) => normalize_value(c, t, x, depth + 1),
        (Type::Named(n), v) => match c.get(n) {
            Some(TypeDef::Struct(st)) => normalize(c, st, v, depth),
            Some(TypeDef::Union(u)) => normalize_payload(c, u, v, depth),
            None => {}
        },
        (Type::Switch { union, .. }, v) => {
            if let Some(TypeDef::Union(u)) = c.get(union) {
                normalize_payload(c, u, v, depth);
            }
        }
        (Type::Ptr(p), v) if matches!(p.to, Type::Pool {}) => *v = Value::Unit,
        (Type::Ptr(p), v) => {
            if p.align.is_some() {
                if let Value::Struct { fields, .. } = v {
                    fields.retain(|(n, _)| n != "align");
                    for (_, x) in fields.iter_mut() {
                        normalize_value(c, &p.to, x, depth + 1);
                    }
                    return;
                }
            }
            normalize_value(c, &p.to, v, depth + 1)
        }
        (Type::Follows { to, .. }, v) => normalize_value(c, to, v, depth + 1),
        // Records spread over hash slots are read back slot by slot.
        (Type::HashSlots { of, .. }, Value::Seq(xs)) => {
            if let Some(TypeDef::Struct(st)) = c.get(of) {
                for x in xs.iter_mut() {
                    normalize(c, st, x, depth + 1);
                }
            }
            xs.sort_by_cached_key(|x| format!("{x:?}"));
        }
        (Type::List { of, .. } | Type::Array { of, .. }, Value::Seq(xs)) => {
            for x in xs {
                normalize_value(c, of, x, depth + 1);
            }
        }
        (Type::Groups { of, .. }, Value::Seq(groups)) => {
            for g in groups {
                if let Value::Seq(xs) = g {
                    for x in xs {
                        normalize_value(c, of, x, depth + 1);
                    }
                }
            }
        }
        _ => {}
    }
}

fn normalize_payload(c: &Checked, u: &codec_schema::UnionDef, v: &mut Value, depth: usize) {
    if let Value::Variant { variant, value, .. } = v {
        if let Some(var) = u.variants.iter().find(|x| &x.name == variant) {
            normalize_value(c, &var.ty, value, depth + 1);
        }
    }
}

/// An integer one more (wrapping at its width).
fn bumped(v: &Value) -> Value {
    match v {
        Value::U8(x) => Value::U8(x.wrapping_add(1)),
        Value::U16(x) => Value::U16(x.wrapping_add(1)),
        Value::U32(x) => Value::U32(x.wrapping_add(1)),
        Value::U64(x) => Value::U64(x.wrapping_add(1)),
        Value::I8(x) => Value::I8(x.wrapping_add(1)),
        Value::I16(x) => Value::I16(x.wrapping_add(1)),
        Value::I32(x) => Value::I32(x.wrapping_add(1)),
        Value::I64(x) => Value::I64(x.wrapping_add(1)),
        other => other.clone(),
    }
}

/// Walks a document with its schema and collects the places to edit.
struct Finder<'c> {
    c: &'c Checked,
    /// The places of the schema edited already, with the edit.
    seen: HashSet<(usize, u8)>,
    sites: Vec<Site>,
    steps: Vec<Step>,
}

/// How deep the walk goes: as deep as the reader allows documents to nest.
const MAX_DEPTH: usize = 256;

impl<'c> Finder<'c> {
    fn full(&self) -> bool {
        self.sites.len() >= MAX_EDITS
    }

    /// Edit `edit` of the schema place at address `place` once.
    fn add(&mut self, place: *const Type, edit: Edit, path: &str) {
        let kind = edit.clone() as u8;
        let key = (place as usize, kind);
        if self.full() || !self.seen.insert(key) {
            return;
        }
        self.sites.push(Site {
            steps: self.steps.clone(),
            path: path.to_owned(),
            edit,
            place: key,
        });
    }

    fn record(&mut self, st: &'c StructDef, v: &Value, path: &str, depth: usize) {
        let Value::Struct { fields, .. } = v else {
            return;
        };
        for (i, (name, fv)) in fields.iter().enumerate() {
            let Some(f) = st.fields.iter().find(|f| &f.name == name) else {
                continue;
            };
            if f.derive.is_some() {
                continue;
            }
            let list = match &f.ty {
                Type::Ptr(p) => &p.to,
                t => t,
            };
            let derived_len = match list {
                Type::List { count, .. } => self.derived_count(st, count),
                _ => false,
            };
            self.steps.push(Step::Field(i));
            self.value(&f.ty, fv, &format!("{path}.{name}"), derived_len, depth + 1);
            self.steps.pop();
        }
    }

    /// Does the writer derive the count of a list counted by `count`?
    fn derived_count(&self, st: &StructDef, count: &Count) -> bool {
        match count {
            Count::Field(n) => st
                .fields
                .iter()
                .any(|f| &f.name == n && matches!(f.derive, Some(Derive::Count(_)))),
            Count::Before(_) | Count::Prefix(_) | Count::ToNext | Count::End(_) => true,
            Count::Sum(_) => false,
        }
    }

    fn value(&mut self, t: &'c Type, v: &Value, path: &str, derived_len: bool, depth: usize) {
        if depth > MAX_DEPTH || self.full() {
            return;
        }
        match (t, v) {
            (_, Value::Option(None)) => {}
            (_, Value::Option(Some(x))) => {
                self.steps.push(Step::Inner);
                self.value(t, x, path, derived_len, depth + 1);
                self.steps.pop();
            }
            (Type::Named(n), _) => match self.c.get(n) {
                Some(TypeDef::Struct(st)) => self.record(st, v, path, depth),
                Some(TypeDef::Union(u)) => self.payload(u, v, path, depth),
                None => {}
            },
            (Type::Switch { union, .. }, _) => {
                if let Some(TypeDef::Union(u)) = self.c.get(union) {
                    self.payload(u, v, path, depth);
                }
            }
            (Type::Ptr(p), _) => {
                let derived = match &p.to {
                    Type::List { count, .. } => matches!(
                        **count,
                        Count::Before(_) | Count::Prefix(_) | Count::ToNext | Count::End(_)
                    ),
                    _ => false,
                };
                self.value(&p.to, v, path, derived_len || derived, depth + 1)
            }
            (Type::Follows { to, .. }, _) => self.value(to, v, path, derived_len, depth + 1),
            (
                Type::PString { .. }
                | Type::Str { .. }
                | Type::Index { .. }
                | Type::Text { .. }
                | Type::CString {
                    size: None,
                    max: None,
                    ..
                },
                Value::Str(s),
            ) => {
                self.add(t, Edit::Grow, path);
                if !s.is_empty() {
                    self.add(t, Edit::Shrink, path);
                }
            }
            // Text with tags: a list of runs of characters and tags.
            (Type::Text { .. }, Value::Seq(runs)) => {
                self.add(t, Edit::Grow, path);
                if matches!(runs.last(), Some(Value::Str(s)) if s.chars().count() > 1) {
                    self.add(t, Edit::Shrink, path);
                }
            }
            // Records spread over hash slots: the slots are derived.
            (Type::HashSlots { of, .. }, Value::Seq(xs)) => {
                if !xs.is_empty() {
                    self.add(t, Edit::Append, path);
                    self.add(t, Edit::Remove, path);
                }
                if let Some(TypeDef::Struct(st)) = self.c.get(of) {
                    for (i, x) in xs.iter().enumerate() {
                        self.steps.push(Step::Elem(i));
                        self.record(st, x, &format!("{path}[{i}]"), depth + 1);
                        self.steps.pop();
                    }
                }
            }
            (Type::List { of, .. } | Type::Array { of, .. }, Value::Seq(xs)) => {
                if derived_len && matches!(t, Type::List { .. }) && !xs.is_empty() {
                    self.add(t, Edit::Append, path);
                    self.add(t, Edit::Remove, path);
                }
                for (i, x) in xs.iter().enumerate() {
                    self.steps.push(Step::Elem(i));
                    self.value(of, x, &format!("{path}[{i}]"), false, depth + 1);
                    self.steps.pop();
                }
            }
            (Type::Groups { of, .. }, Value::Seq(groups)) => {
                for (g, group) in groups.iter().enumerate() {
                    let Value::Seq(xs) = group else { continue };
                    self.steps.push(Step::Elem(g));
                    for (i, x) in xs.iter().enumerate() {
                        self.steps.push(Step::Elem(i));
                        self.value(of, x, &format!("{path}[{g}][{i}]"), false, depth + 1);
                        self.steps.pop();
                    }
                    self.steps.pop();
                }
            }
            _ => {}
        }
    }

    /// A union's payload: an integer one is changed, anything else walked.
    fn payload(&mut self, u: &'c codec_schema::UnionDef, v: &Value, path: &str, depth: usize) {
        let Value::Variant { variant, value, .. } = v else {
            return;
        };
        let Some(var) = u.variants.iter().find(|x| &x.name == variant) else {
            return;
        };
        let path = format!("{path}::{variant}");
        self.steps.push(Step::Inner);
        match (&var.ty, &**value) {
            // A number (an integer: a float is not bumped).
            (t, x) if codec_schema::is_number(t) && bumped(x) != *x => {
                self.add(t, Edit::Bump, &path)
            }
            (t, x) => self.value(t, x, &path, false, depth + 1),
        }
        self.steps.pop();
    }
}
