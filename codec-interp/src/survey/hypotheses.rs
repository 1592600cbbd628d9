//! The tests behind each hypothesis. Every test sees every value of every
//! file; a hypothesis holds when no value contradicts it, and is listed as
//! contradicted (with the files) when most files support it.

use super::facts::{KeyInfo, Role, Sample, Sym, Thing};
use super::num::{Class, Num};
use super::{Claim, Distribution, FieldReport, Hypothesis, Quantity, StructReport, Survey, Why};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Values listed in a distribution.
const COMMON: usize = 8;
/// At most this many distinct values make an enum.
const ENUM_MAX: usize = 12;
/// A hypothesis that fails is still listed when at least this share of the
/// files it applies to support it entirely.
const NEARLY: f64 = 0.8;
/// At most this many hypotheses of one claim are listed.
const PER_CLAIM: usize = 3;

/// Tally of one relation (equal to a quantity, an index into a list, an
/// offset to a thing, a hash): per file, the values it applies to and the
/// ones that agree.
#[derive(Debug, Default)]
struct Tally {
    /// Per file: (values it applies to, values that agree).
    files: BTreeMap<usize, (u64, u64)>,
    /// Two distinct agreeing values at most (to tell a relation from a
    /// coincidence of constants).
    distinct: Vec<i128>,
    /// Files where an index reaches the list's last element.
    reached: BTreeSet<usize>,
}

impl Tally {
    fn see(&mut self, fi: usize, agree: bool, value: i128) {
        let e = self.files.entry(fi).or_default();
        e.0 += 1;
        if agree {
            e.1 += 1;
            if self.distinct.len() < 2 && !self.distinct.contains(&value) {
                self.distinct.push(value);
            }
        }
    }

    fn agree(&self) -> u64 {
        self.files.values().map(|c| c.1).sum()
    }

    fn applicable(&self) -> u64 {
        self.files.values().map(|c| c.0).sum()
    }

    /// The files where some value disagrees.
    fn against(&self) -> Vec<usize> {
        self.files
            .iter()
            .filter(|(_, c)| c.1 < c.0)
            .map(|(&f, _)| f)
            .collect()
    }

    /// Worth listing: two distinct agreeing values, it applies in at least
    /// half of the `field_files` files that have the field, and nearly
    /// every file it applies in agrees entirely.
    fn listed(&self, field_files: usize) -> bool {
        let files = self.files.len();
        self.distinct.len() >= 2
            && files > 0
            && files * 2 >= field_files
            && (files - self.against().len()) as f64 >= NEARLY * files as f64
    }
}

/// Builds a hypothesis from a tally.
fn from_tally(s: &Survey, claim: Claim, text: String, t: &Tally, extra: &str) -> Hypothesis {
    let against = t.against();
    let files = t.files.len();
    Hypothesis {
        claim,
        text,
        evidence: format!(
            "{} of {} values agree, in {} of {} files{extra}",
            t.agree(),
            t.applicable(),
            files - against.len(),
            files
        ),
        holds: against.is_empty(),
        contradicted_by: against.iter().map(|&f| s.files[f].label.clone()).collect(),
    }
}

/// The distribution of values given as (bits, count), read as `like`.
fn distribution(counts: &HashMap<u64, u64>, like: Num) -> Distribution {
    let num = |bits| Num { bits, ..like };
    let mut common: Vec<(u64, u64)> = counts.iter().map(|(&b, &n)| (b, n)).collect();
    common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let order = |a: &u64, b: &u64| -> std::cmp::Ordering {
        match (num(*a).int(), num(*b).int()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => {
                let x = num(*a).as_float().unwrap_or(f64::NAN);
                let y = num(*b).as_float().unwrap_or(f64::NAN);
                x.total_cmp(&y)
            }
        }
    };
    let min = counts.keys().copied().min_by(order);
    let max = counts.keys().copied().max_by(order);
    Distribution {
        distinct: counts.len(),
        constant: counts.len() == 1,
        common: common
            .iter()
            .take(COMMON)
            .map(|&(b, n)| (num(b).show(), n))
            .collect(),
        min: min.map(|b| num(b).show()),
        max: max.map(|b| num(b).show()),
    }
}

/// Values of a suspect (a known field) that a first look tests, spread
/// over all of its values: only when a hypothesis holds on these is the
/// field tested in full.
const SUSPECT_LOOK: usize = 4096;

/// The report on numeric field `key`.
pub(super) fn field_report(
    s: &Survey,
    key: &str,
    gkey: Sym,
    info: &KeyInfo,
    why: Why,
) -> Option<FieldReport> {
    let samples: Vec<(usize, &Sample)> = s.samples(gkey).collect();
    let like = samples.first()?.1.num;
    let mut counts: HashMap<u64, u64> = HashMap::new();
    let mut per_variant: BTreeMap<String, HashMap<u64, u64>> = BTreeMap::new();
    let mut files = BTreeSet::new();
    for &(fi, sample) in &samples {
        let bits = sample.num.bits;
        *counts.entry(bits).or_default() += 1;
        if s.variants.len() > 1 {
            let v = s.files[fi].variant.clone().unwrap_or_default();
            *per_variant.entry(v).or_default().entry(bits).or_default() += 1;
        }
        files.insert(fi);
    }
    let mut hyps = Vec::new();
    basic(s, files.len(), &counts, like, &mut hyps);
    if let Some(h) = constant_per_variant(&counts, &per_variant, like) {
        hyps.push(h);
    }
    let related = counts.len() >= 2 && like.int().is_some();
    if why == Why::Suspicious && related && !hyps.iter().any(|h| h.claim == Claim::Float) {
        // A first look at a spread of the values, for what makes a known
        // field suspect only.
        let step = samples.len().div_ceil(SUSPECT_LOOK);
        let look: Vec<(usize, &Sample)> = samples.iter().step_by(step.max(1)).copied().collect();
        let mut first = Vec::new();
        relations(s, gkey, &look, true, &mut first);
        if !first.iter().any(|h| h.holds) {
            return None;
        }
    }
    if related {
        relations(s, gkey, &samples, why == Why::Suspicious, &mut hyps);
    }
    // A float, a hash or a relation to the rest of the file explains the
    // bits better than flags or an enum do.
    let explained = hyps.iter().any(|h| {
        h.holds
            && matches!(
                h.claim,
                Claim::Float | Claim::Hash | Claim::Equal | Claim::Offset | Claim::Index
            )
    });
    if explained {
        hyps.retain(|h| !matches!(h.claim, Claim::Flags | Claim::Enum));
    }
    hyps.sort_by_key(|h| (!h.holds, h.claim));
    Some(FieldReport {
        field: key.to_owned(),
        ty: info.ty.clone(),
        why,
        role: info.role,
        values: samples.len() as u64,
        files: files.len(),
        distribution: distribution(&counts, like),
        per_variant: per_variant
            .iter()
            .map(|(v, c)| (v.clone(), distribution(c, like)))
            .collect(),
        hypotheses: hyps,
    })
}

/// Not constant, but constant within each variant (a game's or version's
/// value).
fn constant_per_variant(
    counts: &HashMap<u64, u64>,
    per_variant: &BTreeMap<String, HashMap<u64, u64>>,
    like: Num,
) -> Option<Hypothesis> {
    if counts.len() < 2 || per_variant.len() < 2 || per_variant.values().any(|c| c.len() != 1) {
        return None;
    }
    let values: Vec<String> = per_variant
        .iter()
        .filter_map(|(v, c)| {
            let bits = *c.keys().next()?;
            Some(format!("{v}: {}", Num { bits, ..like }.show()))
        })
        .collect();
    let total: u64 = counts.values().sum();
    Some(Hypothesis {
        claim: Claim::Constant,
        text: format!("constant per variant ({})", values.join(", ")),
        evidence: format!("all {total} values, in {} variants", per_variant.len()),
        holds: true,
        contradicted_by: Vec::new(),
    })
}

/// The hypotheses the distribution alone decides: constant, boolean, enum,
/// flags, float.
fn basic(
    s: &Survey,
    files: usize,
    counts: &HashMap<u64, u64>,
    like: Num,
    out: &mut Vec<Hypothesis>,
) {
    let _ = s;
    let total: u64 = counts.values().sum();
    let everywhere = format!("all {total} values, in {files} files");
    let num = |bits| Num { bits, ..like };
    if counts.len() == 1 {
        let bits = *counts.keys().next().unwrap_or(&0);
        out.push(Hypothesis {
            claim: Claim::Constant,
            text: format!("always {}", num(bits).show()),
            evidence: everywhere.clone(),
            holds: true,
            contradicted_by: Vec::new(),
        });
    }
    if like.int().is_none() {
        return;
    }
    if counts.len() == 2 && counts.keys().all(|&b| b <= 1) {
        out.push(Hypothesis {
            claim: Claim::Boolean,
            text: "a boolean (0 or 1)".to_owned(),
            evidence: everywhere.clone(),
            holds: true,
            contradicted_by: Vec::new(),
        });
    }
    let nonzero: Vec<u64> = counts.keys().copied().filter(|&b| b != 0).collect();
    if !nonzero.is_empty()
        && like.class != Class::Bool
        && nonzero.iter().all(|&b| num(b).plausible_float())
        && (nonzero.len() >= 3 || counts.len() == 1)
    {
        let mut floats: Vec<(f64, u64)> = nonzero
            .iter()
            .filter_map(|&b| Some((num(b).as_float()?, b)))
            .collect();
        floats.sort_by(|a, b| a.0.total_cmp(&b.0));
        let text =
            |i: Option<&(f64, u64)>| i.map(|&(_, b)| num(b).float_text()).unwrap_or_default();
        let kind = if like.width == 64 { "f64" } else { "f32" };
        out.push(Hypothesis {
            claim: Claim::Float,
            text: format!("an {kind} stored in an integer field"),
            evidence: format!(
                "every nonzero value is a normal {kind} of magnitude 1e-6 to 1e9: {} to {} ({everywhere})",
                text(floats.first()),
                text(floats.last())
            ),
            holds: true,
            contradicted_by: Vec::new(),
        });
    }
    if counts.len() >= 3 && counts.len() <= ENUM_MAX && total >= 4 * counts.len() as u64 {
        out.push(Hypothesis {
            claim: Claim::Enum,
            text: format!("an enum of {} values", counts.len()),
            evidence: format!(
                "{} distinct values among {total}, in {files} files",
                counts.len()
            ),
            holds: true,
            contradicted_by: Vec::new(),
        });
    }
    if let Some(h) = flags(counts, like) {
        out.push(h);
    }
}

/// Flags: bits that vary while others never do, when the values do not
/// look like a plain small number (whose low bits all vary).
fn flags(counts: &HashMap<u64, u64>, like: Num) -> Option<Hypothesis> {
    if counts.len() < 2 || like.class == Class::Bool || counts.keys().all(|&b| b <= 1) {
        return None;
    }
    let any = counts.keys().fold(0u64, |a, &b| a | b);
    let all = counts.keys().fold(like.mask(), |a, &b| a & b);
    let varying = any & !all;
    // The varying bits shifted down to bit 0: a plain number (a count, an
    // aligned offset) varies in a run of low bits, 0b0…01…1.
    let shift = varying.trailing_zeros();
    let reduced = varying.checked_shr(shift).unwrap_or(0);
    let low_run = reduced.wrapping_add(1) & reduced == 0;
    let nonzero: Vec<u64> = counts.keys().copied().filter(|&b| b != 0).collect();
    let powers = nonzero.len() >= 3 && nonzero.iter().all(|b| b.is_power_of_two());
    // Many distinct values densely spread over their range: a number.
    let dense = counts.len() >= 8 && (counts.len() as u128) * 10 > u128::from(reduced);
    // Negative numbers set every high bit: not flags.
    let negative = like.class == Class::Signed
        && counts
            .keys()
            .any(|&b| Num { bits: b, ..like }.int() < Some(0));
    // Flags take few of the combinations their bits allow; values spread
    // over many combinations of many bits are a number (an offset).
    let spread = counts.len() > 8.max(2 * varying.count_ones() as usize);
    if (low_run && !powers) || dense || spread || negative || varying.count_ones() > 16 {
        return None;
    }
    let total: u64 = counts.values().sum();
    let bits = |mask: u64| -> String {
        let list: Vec<String> = (0..64)
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| i.to_string())
            .collect();
        list.join(", ")
    };
    let mut evidence = String::new();
    for i in (0..64).filter(|i| varying >> i & 1 == 1) {
        let set: u64 = counts
            .iter()
            .filter(|(&b, _)| b >> i & 1 == 1)
            .map(|(_, &n)| n)
            .sum();
        if !evidence.is_empty() {
            evidence.push_str("; ");
        }
        evidence.push_str(&format!("bit {i} set in {set} of {total}"));
    }
    let mut text = format!("flags: bits {} vary", bits(varying));
    if all != 0 {
        text.push_str(&format!(", bits {} always set", bits(all)));
    }
    text.push_str(", the others always clear");
    Some(Hypothesis {
        claim: Claim::Flags,
        text,
        evidence,
        holds: true,
        contradicted_by: Vec::new(),
    })
}

/// Where an offset may count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Base {
    File,
    Record,
    Field,
    Parent,
}

impl Base {
    fn text(self) -> &'static str {
        match self {
            Base::File => "from the file's start",
            Base::Record => "from the record's start",
            Base::Field => "from the field itself",
            Base::Parent => "from the parent record's start",
        }
    }
}

/// An offset's landing: counted from `Base`, scaled, at the start (or end)
/// of a thing.
type Landing = (Base, u8, bool, Thing);

/// The hypotheses that relate a value to the rest of its file: equal to a
/// quantity, an index into a list, an offset, a hash of a string. With
/// `suspect`, only what makes a known field suspect: equal to a count or a
/// size (not to another field), an offset, a hash.
fn relations(
    s: &Survey,
    gkey: Sym,
    samples: &[(usize, &Sample)],
    suspect: bool,
    out: &mut Vec<Hypothesis>,
) {
    let mut equal: HashMap<Quantity, Tally> = HashMap::new();
    let mut index: HashMap<Sym, Tally> = HashMap::new();
    let mut offsets: HashMap<Landing, Tally> = HashMap::new();
    let mut hashes: HashMap<usize, Tally> = HashMap::new();
    // Per file: nonzero values (what offsets and hashes apply to).
    let mut nonzero: BTreeMap<usize, u64> = BTreeMap::new();
    let mut offsets_seen: HashMap<Landing, BTreeMap<usize, u64>> = HashMap::new();
    let mut hashes_seen: HashMap<usize, BTreeMap<usize, u64>> = HashMap::new();
    let mut distinct_nonzero: BTreeSet<i128> = BTreeSet::new();
    let mut chain = Vec::new();
    let mut chain_of = None;
    let mut whole_file = Vec::new();
    let mut whole_file_of = None;
    let mut landings: Vec<Landing> = Vec::new();
    let mut examples: HashMap<usize, String> = HashMap::new();
    let mut with_field = BTreeSet::new();
    for &(fi, sample) in samples {
        with_field.insert(fi);
        let Some(v) = sample.num.int() else { continue };
        // Values of one record (or file) share its quantities.
        if chain_of != Some((fi, sample.record)) {
            s.chain(fi, sample.record, &mut chain);
            chain_of = Some((fi, sample.record));
        }
        if whole_file_of != Some(fi) {
            whole_file = s.file_quantities(fi);
            whole_file_of = Some(fi);
        }
        let in_chain = |q: &Quantity| chain.binary_search_by_key(q, |(c, _)| *c).is_ok();
        let quantities = chain
            .iter()
            .chain(whole_file.iter().filter(|(q, _)| !in_chain(q)));
        for &(q, x) in quantities {
            match q {
                Quantity::Field(k) if k == gkey || suspect => continue,
                _ => {}
            }
            equal.entry(q).or_default().see(fi, x == v, v);
            if let (Quantity::Len(list), false) = (q, suspect) {
                let t = index.entry(list).or_default();
                let in_range = (0..x).contains(&v) || sample.num.is_sentinel();
                t.see(fi, in_range, v);
                // Index 0 of a one-element list tells nothing.
                if v == x - 1 && v > 0 {
                    t.reached.insert(fi);
                }
            }
        }
        if v == 0 || sample.num.is_sentinel() {
            continue;
        }
        *nonzero.entry(fi).or_default() += 1;
        distinct_nonzero.insert(v);
        // A known number that lands where something starts in every file
        // is an offset the schema keeps as a number (issue 72): a suspect.
        {
            landings.clear();
            lands(s, fi, sample, v, &mut landings);
            for &l in &landings {
                *offsets_seen.entry(l).or_default().entry(fi).or_default() += 1;
            }
        }
        if let Some((mask, text)) = s.files[fi].hashes.get(&sample.num.bits) {
            for (i, h) in s.hashes.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    *hashes_seen.entry(i).or_default().entry(fi).or_default() += 1;
                    examples
                        .entry(i)
                        .or_insert_with(|| format!("{} = {}({text:?})", sample.num.show(), h.name));
                }
            }
        }
    }
    // Offsets and hashes apply to every nonzero value: a file agrees when
    // all of its nonzero values land (or hash) alike.
    let whole = |seen: &BTreeMap<usize, u64>, t: &mut Tally| {
        for (&fi, &n) in &nonzero {
            let agree = seen.get(&fi).copied().unwrap_or(0);
            t.files.insert(fi, (n, agree));
        }
        if distinct_nonzero.len() >= 2 {
            t.distinct = distinct_nonzero.iter().take(2).copied().collect();
        }
    };
    for (l, seen) in &offsets_seen {
        whole(seen, offsets.entry(*l).or_default());
    }
    for (h, seen) in &hashes_seen {
        whole(seen, hashes.entry(*h).or_default());
    }

    let field_files = with_field.len();
    let mut listed: Vec<(Quantity, &Tally)> = tallies_kept(&equal, |t| t.listed(field_files));
    listed.sort_by_key(|(q, t)| (!t.against().is_empty(), *q));
    for (q, t) in listed.into_iter().take(PER_CLAIM) {
        out.push(from_tally(
            s,
            Claim::Equal,
            format!("equal to {}", s.quantity_text(q)),
            t,
            "",
        ));
    }

    let mut listed: Vec<(Sym, &Tally)> = tallies_kept(&index, |t| {
        // Reaching the end of the list in a tenth of the files (two at
        // least) tells an index from any small number.
        t.listed(field_files) && t.reached.len() >= 2.max(t.files.len() / 10)
    });
    // The tightest list first: the one whose last element is reached in
    // the most files.
    listed.sort_by_key(|(k, t)| {
        (
            !t.against().is_empty(),
            std::cmp::Reverse(t.reached.len()),
            *k,
        )
    });
    for (k, t) in listed.into_iter().take(PER_CLAIM) {
        let extra = format!("; reaches the last element in {} files", t.reached.len());
        let text = format!("an index into {}", s.names[k as usize]);
        out.push(from_tally(s, Claim::Index, text, t, &extra));
    }

    let mut listed: Vec<(Landing, &Tally)> = tallies_kept(&offsets, |t| t.listed(field_files));
    // Holding first, then the best supported; among equals, the simplest
    // base and scale, a start before an end, a record before a list.
    listed.sort_by_key(|(l, t)| {
        let (base, scale, start, thing) = *l;
        (
            !t.against().is_empty(),
            std::cmp::Reverse(t.agree()),
            base,
            scale,
            !start,
            thing,
        )
    });
    for ((base, scale, start, thing), t) in listed.into_iter().take(PER_CLAIM) {
        let scaled = if scale == 1 {
            String::new()
        } else {
            format!(" ×{scale}")
        };
        let edge = if start { "the start of" } else { "the end of" };
        let text = format!(
            "an offset{scaled} {} to {edge} {}",
            base.text(),
            s.thing_text(thing)
        );
        let zeros = t.applicable();
        let extra = format!(
            "; 0 and all-ones values are taken as none ({} nonzero)",
            zeros
        );
        out.push(from_tally(s, Claim::Offset, text, t, &extra));
    }

    let mut listed: Vec<(usize, &Tally)> = tallies_kept(&hashes, |t| t.listed(field_files));
    listed.sort_by_key(|(h, t)| (!t.against().is_empty(), *h));
    for (h, t) in listed.into_iter().take(PER_CLAIM) {
        let name = s.hashes[h].name;
        let extra = examples
            .get(&h)
            .map(|e| format!("; e.g. {e}"))
            .unwrap_or_default();
        let text = format!("the {name} hash of a string of the file");
        out.push(from_tally(s, Claim::Hash, text, t, &extra));
    }
}

/// Every landing of value `v` of `sample`: from each base, scaled by 1 or
/// 4, at the start or end of something.
fn lands(s: &Survey, fi: usize, sample: &Sample, v: i128, out: &mut Vec<Landing>) {
    let f = &s.files[fi];
    let record = sample.record.and_then(|r| f.records.get(r as usize));
    let parent = record
        .and_then(|r| r.parent)
        .and_then(|p| f.records.get(p as usize));
    let bases = [
        (Base::File, Some(0)),
        (Base::Record, record.map(|r| r.offset)),
        (Base::Field, Some(sample.offset)),
        (Base::Parent, parent.map(|p| p.offset)),
    ];
    for (base, at) in bases {
        let Some(at) = at else { continue };
        for scale in [1u8, 4] {
            let pos = i128::from(at) + v * i128::from(scale);
            let Ok(pos) = u64::try_from(pos) else {
                continue;
            };
            if pos > f.len {
                continue;
            }
            for &t in f.starts.get(&pos).into_iter().flatten() {
                out.push((base, scale, true, s.thing(fi, t)));
            }
            for &t in f.ends.get(&pos).into_iter().flatten() {
                out.push((base, scale, false, s.thing(fi, t)));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// The report on a bytes or string field declared unknown: how long its
/// values are and which occur.
pub(super) fn blob_report(
    s: &Survey,
    key: &str,
    gkey: Sym,
    info: &KeyInfo,
    why: Why,
) -> FieldReport {
    let mut counts: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    let mut files = BTreeSet::new();
    let mut lens = BTreeSet::new();
    let mut zero = true;
    for (fi, f) in s.files.iter().enumerate() {
        for b in f.blobs.iter().filter(|b| s.global(fi, b.key) == gkey) {
            *counts.entry(b.bytes.clone()).or_default() += 1;
            files.insert(fi);
            lens.insert(b.bytes.len());
            zero &= b.bytes.iter().all(|&x| x == 0);
        }
    }
    let show = |b: &[u8]| -> String {
        let hex: Vec<String> = b.iter().take(16).map(|x| format!("{x:02x}")).collect();
        let more = if b.len() > 16 { " …" } else { "" };
        format!("{} byte(s): {}{more}", b.len(), hex.join(" "))
    };
    let mut common: Vec<(&Vec<u8>, &u64)> = counts.iter().collect();
    common.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let values: u64 = counts.values().sum();
    let mut hyps = Vec::new();
    if counts.len() == 1 || (zero && values > 0) {
        hyps.push(Hypothesis {
            claim: Claim::Constant,
            text: if zero {
                "always zero bytes".to_owned()
            } else {
                "always the same bytes".to_owned()
            },
            evidence: format!("all {values} values, in {} files", files.len()),
            holds: true,
            contradicted_by: Vec::new(),
        });
    }
    FieldReport {
        field: key.to_owned(),
        ty: info.ty.clone(),
        why,
        role: info.role,
        values,
        files: files.len(),
        distribution: Distribution {
            distinct: counts.len(),
            constant: counts.len() == 1,
            common: common
                .iter()
                .take(COMMON)
                .map(|(b, n)| (show(b), **n))
                .collect(),
            min: lens.first().map(|l| format!("{l} byte(s)")),
            max: lens.last().map(|l| format!("{l} byte(s)")),
        },
        per_variant: Vec::new(),
        hypotheses: hyps,
    }
}

/// The fields of records of type `ty` that always change together: pairs
/// whose values determine each other in every record, when each repeats
/// (fewer distinct values than half the records) and varies.
pub(super) fn together(s: &Survey, ty: &str) -> Option<StructReport> {
    let gty = *s.ids.get(ty)?;
    // Per field: its value in each record (None where the record lacks it).
    let mut columns: BTreeMap<Sym, Vec<Option<u64>>> = BTreeMap::new();
    let mut n = 0usize;
    for (fi, f) in s.files.iter().enumerate() {
        for r in f.records.iter().filter(|r| s.global(fi, r.ty) == gty) {
            for &(k, num) in &r.numbers {
                let k = s.global(fi, k);
                let keep = s.keys.get(&s.names[k as usize]).is_some_and(|(_, i)| {
                    matches!(i.role, Role::Scalar | Role::Range | Role::Derived)
                });
                if keep {
                    let col = columns.entry(k).or_insert_with(|| vec![None; n]);
                    col.resize(n, None);
                    col.push(Some(num.bits));
                }
            }
            n += 1;
        }
    }
    if n < 4 {
        return None;
    }
    for col in columns.values_mut() {
        col.resize(n, None);
    }
    let fields: Vec<(Sym, &Vec<Option<u64>>)> = columns
        .iter()
        .filter(|(_, col)| {
            let distinct: BTreeSet<u64> = col.iter().flatten().copied().collect();
            distinct.len() >= 2 && distinct.len() * 2 <= n
        })
        .map(|(k, c)| (*k, c))
        .take(64)
        .collect();
    // Union-find over the fields that determine each other.
    let mut group: Vec<usize> = (0..fields.len()).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    let mut equal_pairs = BTreeSet::new();
    for i in 0..fields.len() {
        for j in i + 1..fields.len() {
            let (a, b) = (fields[i].1, fields[j].1);
            let mut ab: HashMap<u64, u64> = HashMap::new();
            let mut ba: HashMap<u64, u64> = HashMap::new();
            let mut same = true;
            let ok = a.iter().zip(b).all(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => {
                    same &= x == y;
                    *ab.entry(*x).or_insert(*y) == *y && *ba.entry(*y).or_insert(*x) == *x
                }
                _ => true,
            });
            if ok && !ab.is_empty() {
                let (ri, rj) = (root(&mut group, i), root(&mut group, j));
                group[ri] = rj;
                if same {
                    equal_pairs.insert((i, j));
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..fields.len() {
        let r = root(&mut group, i);
        groups.entry(r).or_default().push(i);
    }
    let together: Vec<(Vec<String>, usize, bool)> = groups
        .values()
        .filter(|g| g.len() >= 2)
        .map(|g| {
            let names: Vec<String> = g
                .iter()
                .map(|&i| {
                    let full = &s.names[fields[i].0 as usize];
                    full.strip_prefix(ty)
                        .and_then(|r| r.strip_prefix('.'))
                        .unwrap_or(full)
                        .to_owned()
                })
                .collect();
            let combos: BTreeSet<Vec<Option<u64>>> = (0..n)
                .map(|r| g.iter().map(|&i| fields[i].1[r]).collect())
                .collect();
            let all_equal = g.windows(2).all(|w| equal_pairs.contains(&(w[0], w[1])));
            (names, combos.len(), all_equal)
        })
        .collect();
    (!together.is_empty()).then(|| StructReport {
        type_name: ty.to_owned(),
        records: n as u64,
        together,
    })
}

/// The tallies of `map` that `keep` accepts, with their keys (each claim
/// sorts them by its own order).
fn tallies_kept<K: Copy>(
    map: &HashMap<K, Tally>,
    keep: impl Fn(&Tally) -> bool,
) -> Vec<(K, &Tally)> {
    map.iter()
        .filter(|(_, t)| keep(t))
        .map(|(k, t)| (*k, t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(values: &[u32]) -> HashMap<u64, u64> {
        let mut c = HashMap::new();
        for &v in values {
            *c.entry(u64::from(v)).or_default() += 1;
        }
        c
    }

    fn u32_like() -> Num {
        Num::of(&crate::Value::U32(0)).unwrap()
    }

    #[test]
    fn flags_are_found_where_bits_vary_apart() {
        let h = flags(&counts(&[0x10, 0x11, 0x19, 0x90, 0x99, 0x18]), u32_like()).expect("flags");
        assert_eq!(
            h.text,
            "flags: bits 0, 3, 7 vary, bits 4 always set, the others always clear"
        );
    }

    #[test]
    fn counts_and_aligned_offsets_are_not_flags() {
        let small: Vec<u32> = (0..50).collect();
        assert!(flags(&counts(&small), u32_like()).is_none());
        // Offsets aligned to 4 over a wide range: the low bits never vary,
        // the others take many combinations.
        let offsets: Vec<u32> = (0..40).map(|i| (0x100 + i * 0x1234) & !3).collect();
        assert!(flags(&counts(&offsets), u32_like()).is_none());
        // A plain enum 1, 2, 3 is not flags either.
        assert!(flags(&counts(&[1, 2, 3, 1, 2]), u32_like()).is_none());
    }

    #[test]
    fn powers_of_two_are_flags_even_in_low_bits() {
        assert!(flags(&counts(&[1, 2, 4, 8, 1, 4]), u32_like()).is_some());
    }
}
