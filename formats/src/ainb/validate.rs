//! What the schema's layout does not say about a decoded file: every node
//! type is one the format knows, and every window a node or an attachment
//! holds stays inside the table it points into. Errors name the offset of
//! the window (or the node) and its field path.

use super::schema::{File, IoTable, PropertyTable, Source};
use codec_runtime::{DecodeError, ErrorKind, PathSeg};

/// The node types of the format (research/ainb.md §2, dt-12345/AINB).
pub const NODE_TYPES: &[u16] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 100, 101, 102, 103, 104, 105, 200, 201, 202, 203, 204,
    205, 300, 400, 500,
];

/// Checks a decoded file; `data` is what it was decoded from (for offsets).
pub fn validate(file: &File, data: &[u8]) -> Result<(), DecodeError> {
    let v404 = file.version == 0x404;
    let node_size: u64 = if v404 { 0x38 } else { 0x3c };
    let params_at: u64 = if v404 { 0x10 } else { 0x14 };
    let nodes_at = 0x74 + 0x18 * file.commands.len() as u64;
    let props = property_lens(&file.properties);
    let (inputs, outputs) = io_lens(&file.io);
    let word = |at: u64| -> u64 {
        data.get(at as usize..at as usize + 4).map_or(0, |b| {
            u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })
    };
    for (i, n) in file.nodes.iter().enumerate() {
        let at = nodes_at + i as u64 * node_size;
        let fail = |off: u64, field: &'static str, msg: String| {
            DecodeError::new(off, ErrorKind::Invalid(msg))
                .in_field(field)
                .at_index(i)
                .in_field("nodes")
                .within(PathSeg::Type("File".into()))
        };
        if !NODE_TYPES.contains(&n.r#type) {
            return Err(fail(at, "type", format!("unknown node type {}", n.r#type)));
        }
        let (att, qry) = (at + params_at + 0xc, at + params_at + 0x10);
        window(
            att,
            n.attachment_base,
            n.attachment_count,
            file.attachment_ids.len(),
        )
        .map_err(|(o, m)| fail(o, "attachment_base", m))?;
        window(qry, n.query_base, n.query_count, file.queries.len())
            .map_err(|(o, m)| fail(o, "query_base", m))?;
        let block = word(at + params_at);
        for k in 0..6 {
            let w = &n.params.properties[k];
            window(block + 8 * k as u64, w.base, w.count, props[k])
                .map_err(|(o, m)| fail(o, "params.properties", m))?;
            let io = &n.params.io[k];
            window(
                block + 0x30 + 16 * k as u64,
                io.input_base,
                io.input_count,
                inputs[k],
            )
            .map_err(|(o, m)| fail(o, "params.io", m))?;
            window(
                block + 0x38 + 16 * k as u64,
                io.output_base,
                io.output_count,
                outputs[k],
            )
            .map_err(|(o, m)| fail(o, "params.io", m))?;
        }
    }
    let att_size: u64 = if v404 { 0xc } else { 0x10 };
    for (i, a) in file.attachments.iter().enumerate() {
        let block = word(word(0x3c) + att_size * i as u64 + 4);
        for (k, w) in a.params.properties.iter().enumerate() {
            window(block + 4 + 8 * k as u64, w.base, w.count, props[k]).map_err(|(o, m)| {
                DecodeError::new(o, ErrorKind::Invalid(m))
                    .in_field("params.properties")
                    .at_index(i)
                    .in_field("attachments")
                    .within(PathSeg::Type("File".into()))
            })?;
        }
    }
    for (i, &id) in file.attachment_ids.iter().enumerate() {
        if id as usize >= file.attachments.len() {
            let at = word(0x40) + 4 * i as u64;
            let msg = format!(
                "attachment id {id}, but the table has {}",
                file.attachments.len()
            );
            return Err(DecodeError::new(at, ErrorKind::Invalid(msg))
                .at_index(i)
                .in_field("attachment_ids")
                .within(PathSeg::Type("File".into())));
        }
    }
    const INPUTS: [(&str, u64, u64); 6] = [
        ("int_inputs", 0x10, 4),
        ("bool_inputs", 0x10, 4),
        ("float_inputs", 0x10, 4),
        ("string_inputs", 0x10, 4),
        ("vec3_inputs", 0x18, 4),
        ("pointer_inputs", 0x14, 8),
    ];
    for (k, sources) in all_sources(&file.io).into_iter().enumerate() {
        let (name, size, src_at) = INPUTS[k];
        let table = word(word(0x34) + 8 * k as u64);
        for (i, s) in sources.into_iter().enumerate() {
            if s.node <= -100 {
                let base = (-100 - i64::from(s.node)) as u64;
                let count = u64::from(s.output as u16);
                let at = table + size * i as u64 + src_at;
                window(at, base, count, file.multi.len()).map_err(|(o, m)| {
                    DecodeError::new(o, ErrorKind::Invalid(format!("multi-input {m}")))
                        .in_field("source")
                        .at_index(i)
                        .in_field(name)
                        .in_field("io")
                        .within(PathSeg::Type("File".into()))
                })?;
            }
        }
    }
    Ok(())
}

/// A (base, count) window at `at` inside a table of `len` elements.
fn window(
    at: u64,
    base: impl Into<u64>,
    count: impl Into<u64>,
    len: usize,
) -> Result<(), (u64, String)> {
    let (base, count) = (base.into(), count.into());
    match base.checked_add(count) {
        Some(end) if end <= len as u64 => Ok(()),
        _ => Err((
            at,
            format!("window ({base}, {count}) runs past its table of {len} element(s)"),
        )),
    }
}

/// The length of each property table, in type order (int, bool, float,
/// string, vec3, pointer).
pub(crate) fn property_lens(p: &PropertyTable) -> [usize; 6] {
    let n = |v: Option<usize>| v.unwrap_or(0);
    [
        n(p.int.as_ref().map(Vec::len)),
        n(p.bool.as_ref().map(Vec::len)),
        n(p.float.as_ref().map(Vec::len)),
        n(p.string.as_ref().map(Vec::len)),
        n(p.vec3.as_ref().map(Vec::len)),
        n(p.pointer.as_ref().map(Vec::len)),
    ]
}

/// The lengths of the input tables and of the output tables, in type order.
pub(crate) fn io_lens(t: &IoTable) -> ([usize; 6], [usize; 6]) {
    let n = |v: Option<usize>| v.unwrap_or(0);
    let inputs = [
        n(t.int_inputs.as_ref().map(Vec::len)),
        n(t.bool_inputs.as_ref().map(Vec::len)),
        n(t.float_inputs.as_ref().map(Vec::len)),
        n(t.string_inputs.as_ref().map(Vec::len)),
        n(t.vec3_inputs.as_ref().map(Vec::len)),
        n(t.pointer_inputs.as_ref().map(Vec::len)),
    ];
    let outputs = [
        n(t.int_outputs.as_ref().map(Vec::len)),
        n(t.bool_outputs.as_ref().map(Vec::len)),
        n(t.float_outputs.as_ref().map(Vec::len)),
        n(t.string_outputs.as_ref().map(Vec::len)),
        n(t.vec3_outputs.as_ref().map(Vec::len)),
        n(t.pointer_outputs.as_ref().map(Vec::len)),
    ];
    (inputs, outputs)
}

/// The sources of every input, per type.
fn all_sources(t: &IoTable) -> [Vec<Source>; 6] {
    fn src<T>(v: &Option<Vec<T>>, f: impl Fn(&T) -> Source) -> Vec<Source> {
        v.as_ref()
            .map_or_else(Vec::new, |v| v.iter().map(f).collect())
    }
    [
        src(&t.int_inputs, |i| i.source.clone()),
        src(&t.bool_inputs, |i| i.source.clone()),
        src(&t.float_inputs, |i| i.source.clone()),
        src(&t.string_inputs, |i| i.source.clone()),
        src(&t.vec3_inputs, |i| i.source.clone()),
        src(&t.pointer_inputs, |i| i.source.clone()),
    ]
}
