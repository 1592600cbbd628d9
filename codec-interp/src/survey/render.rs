//! The survey as a readable report.

use super::{FieldReport, Hypothesis, StructReport, Why};
use std::fmt::Write as _;

/// Files named after "contradicted by" before the rest are counted.
const FILES_SHOWN: usize = 5;

/// The report on the fields and structs of one schema.
pub fn report_text(fields: &[FieldReport], structs: &[StructReport]) -> String {
    let mut out = String::new();
    for f in fields {
        field_text(&mut out, f);
    }
    for s in structs {
        for (names, combos, equal) in &s.together {
            let how = if *equal {
                "are always equal"
            } else {
                "always change together"
            };
            let _ = writeln!(
                out,
                "struct {} ({} records): {} {how} ({combos} distinct combinations)",
                s.type_name,
                s.records,
                names.join(", ")
            );
        }
    }
    out
}

fn field_text(out: &mut String, f: &FieldReport) {
    let why = match f.why {
        Why::Unknown => ", declared unknown",
        Why::Suspicious => ", suspicious",
        Why::Asked => "",
    };
    let _ = writeln!(
        out,
        "{}: {}{why}; {} value(s) in {} file(s)",
        f.field, f.ty, f.values, f.files
    );
    let _ = writeln!(out, "  {}", distribution_text(&f.distribution));
    for (variant, d) in &f.per_variant {
        let _ = writeln!(out, "  variant {variant}: {}", distribution_text(d));
    }
    if f.hypotheses.is_empty() {
        let _ = writeln!(out, "  no hypothesis holds");
    }
    for h in &f.hypotheses {
        hypothesis_text(out, h);
    }
}

fn distribution_text(d: &super::Distribution) -> String {
    let values: Vec<String> = d.common.iter().map(|(v, n)| format!("{v} ×{n}")).collect();
    let more = if d.distinct > d.common.len() {
        ", …"
    } else {
        ""
    };
    match (&d.min, &d.max) {
        _ if d.constant => format!("constant: {}", values.join(", ")),
        (Some(min), Some(max)) => format!(
            "{} distinct, from {min} to {max}: {}{more}",
            d.distinct,
            values.join(", ")
        ),
        _ => format!("{} distinct: {}{more}", d.distinct, values.join(", ")),
    }
}

fn hypothesis_text(out: &mut String, h: &Hypothesis) {
    if h.holds {
        let _ = writeln!(out, "  holds: {} ({})", h.text, h.evidence);
        return;
    }
    let shown: Vec<&str> = h
        .contradicted_by
        .iter()
        .take(FILES_SHOWN)
        .map(String::as_str)
        .collect();
    let more = h.contradicted_by.len().saturating_sub(FILES_SHOWN);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  contradicted: {} ({}); contradicted by {}{more}",
        h.text,
        h.evidence,
        shown.join(", ")
    );
}

/// The last line: what was surveyed and what holds.
pub fn summary_text(fields: &[FieldReport], files: usize, failed: usize) -> String {
    let unknown = fields.iter().filter(|f| f.why == Why::Unknown).count();
    let suspicious = fields.iter().filter(|f| f.why == Why::Suspicious).count();
    let hyps = fields.iter().flat_map(|f| &f.hypotheses);
    let holding = hyps.clone().filter(|h| h.holds).count();
    let contradicted = hyps.filter(|h| !h.holds).count();
    format!(
        "surveyed {} field(s) of {files} file(s) ({unknown} declared unknown, {suspicious} \
         suspicious): {holding} hypotheses hold, {contradicted} contradicted; {failed} failed to decode",
        fields.len()
    )
}
