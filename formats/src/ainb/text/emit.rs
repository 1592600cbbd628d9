//! Document → JSON. The shape and names are the dt-12345/AINB dump's; what
//! that dump cannot hold goes under `$`-prefixed keys (see `super`).

use super::exb;
use super::json::J;
use super::names::*;
use super::TextError;
use crate::ainb::schema::*;

/// The JSON text of a document.
pub fn to_json(f: &File) -> Result<String, TextError> {
    Ok(Emit::new(f)?.file().print())
}

pub(super) struct Emit<'a> {
    f: &'a File,
    /// Node index of each query entry's value (the query-flagged nodes).
    query_nodes: Vec<usize>,
    /// Per type: the property table's elements.
    props: [usize; 6],
    inputs: [usize; 6],
    outputs: [usize; 6],
    /// The EXB's instructions as text (see `exb_lines`).
    exb_lines: Vec<(String, bool)>,
}

/// The raw flag word of a parameter (the schema's ranges, packed).
pub(super) fn flag_word(w: &ParamFlagsWord) -> u32 {
    w.to_word() as u32
}

/// The flag word the dt fields of a parameter describe.
pub(super) fn dt_flag_word(
    uses_default: bool,
    is_output: bool,
    expression: Option<u16>,
    blackboard: Option<(u16, u8)>,
) -> u32 {
    let mut w = u32::from(uses_default) << 23 | u32::from(is_output) << 24;
    if let Some(i) = expression {
        w |= 0xc200_0000 | u32::from(i);
    } else if let Some((i, c)) = blackboard {
        w |= 0x8000_0000 | u32::from(i) | u32::from(c) << 26;
    }
    w
}

const COMPONENTS: [&str; 4] = ["NONE", "X", "Y", "Z"];

/// The dt fields of a flag word (`Flags`, `Expression Index` or
/// `Blackboard Index` with `Vector Component`), and the raw word when they
/// do not say all of it.
fn flags(o: &mut J, w: &ParamFlagsWord) {
    let raw = flag_word(w);
    let mut names = Vec::new();
    if w.uses_default {
        names.push(J::from("Uses Default"));
    }
    if w.unknown_24 {
        names.push(J::from("Is Output"));
    }
    o.set("Flags", J::Arr(names));
    let (mut expression, mut blackboard) = (None, None);
    if raw & 0xc200_0000 == 0xc200_0000 {
        o.set("Expression Index", w.index);
        expression = Some(w.index);
    } else if raw & 0xc200_0000 != 0 {
        o.set("Blackboard Index", w.index);
        if w.vector_component != 0 {
            o.set(
                "Vector Component",
                COMPONENTS[usize::from(w.vector_component & 3)],
            );
        }
        blackboard = Some((w.index, w.vector_component));
    }
    if dt_flag_word(w.uses_default, w.unknown_24, expression, blackboard) != raw {
        o.set("$Flag Word", raw);
    }
}

fn f32s(v: &[f32; 3]) -> J {
    J::Arr(v.iter().map(|&x| J::F32(x)).collect())
}

/// A u32 that is a bool (0 or 1) as a JSON bool, anything else as its number.
fn bool_word(v: u32) -> J {
    match v {
        0 => J::Bool(false),
        1 => J::Bool(true),
        n => J::Int(i64::from(n)),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn get<T>(v: &Option<Vec<T>>, i: usize) -> Option<&T> {
    v.as_ref().and_then(|v| v.get(i))
}

impl<'a> Emit<'a> {
    pub(super) fn new(f: &'a File) -> Result<Self, TextError> {
        let (inputs, outputs) = crate::ainb::validate::io_lens(&f.io);
        let e = Emit {
            f,
            query_nodes: (0..f.nodes.len())
                .filter(|&i| f.nodes[i].flags.query)
                .collect(),
            props: crate::ainb::validate::property_lens(&f.properties),
            inputs,
            outputs,
            exb_lines: f.exb.as_ref().map(exb_lines).unwrap_or_default(),
        };
        e.check_windows()?;
        e.check_inlining()?;
        Ok(e)
    }

    /// The JSON gives each multi-input's sources and each expression's
    /// instructions inline, so windows that overlap repeat the elements they
    /// share: past `inline_budget` of the table, the JSON would grow with the
    /// square of the file, and is refused.
    fn check_inlining(&self) -> Result<(), TextError> {
        let f = self.f;
        let n = f.multi.len();
        let mut total = 0usize;
        let sources = super::input_sources(f);
        let mut sources = sources.into_iter();
        for (t, &len) in self.inputs.iter().enumerate() {
            for (i, s) in sources.by_ref().take(len).enumerate() {
                if s.node > -100 {
                    continue;
                }
                let base = (-100 - i64::from(s.node)) as usize;
                let count = usize::from(s.output as u16);
                total += count.min(n.saturating_sub(base));
                if total > inline_budget(n) {
                    return Err(TextError::new(
                        "Nodes",
                        format!(
                            "{} input {i} of the input table: the multi-inputs' windows \
                             overlap, {total} sources for a table of {n}; the JSON gives each \
                             input's sources inline, and refuses more than {}",
                            PARAM_TYPES[t],
                            inline_budget(n)
                        ),
                    ));
                }
            }
        }
        if let Some(x) = &f.exb {
            let n = x.instructions.len();
            let mut total = 0usize;
            for (i, e) in x.expressions.iter().enumerate() {
                for (base, count) in exb_windows(e) {
                    total += exb_window(x, base, count).len();
                }
                if total > inline_budget(n) {
                    return Err(TextError::new(
                        format!("Expressions.Expressions[{i}]"),
                        format!(
                            "the expressions' windows overlap, {total} instructions for a table \
                             of {n}; the JSON gives each expression's instructions inline, and \
                             refuses more than {}",
                            inline_budget(n)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The JSON nests each node's parameters, so the tables must be the
    /// nodes' windows one after the other (then the attachments'), as every
    /// known writer lays them out.
    fn check_windows(&self) -> Result<(), TextError> {
        let f = self.f;
        let (mut p, mut i, mut o) = ([0u64; 6], [0u64; 6], [0u64; 6]);
        let bad = |what: String| {
            TextError::new("", format!("{what}: the JSON form nests parameters node by node, so it needs the windows to follow each other"))
        };
        for (n, node) in f.nodes.iter().enumerate() {
            for k in 0..6 {
                let w = &node.params.properties[k];
                let io = &node.params.io[k];
                if u64::from(w.base) != p[k]
                    || u64::from(io.input_base) != i[k]
                    || u64::from(io.output_base) != o[k]
                {
                    return Err(bad(format!("node {n}, {} windows", PARAM_TYPES[k])));
                }
                p[k] += u64::from(w.count);
                i[k] += u64::from(io.input_count);
                o[k] += u64::from(io.output_count);
            }
        }
        for (a, att) in f.attachments.iter().enumerate() {
            for k in 0..6 {
                let w = &att.params.properties[k];
                if u64::from(w.base) != p[k] {
                    return Err(bad(format!(
                        "attachment {a}, {} properties",
                        PARAM_TYPES[k]
                    )));
                }
                p[k] += u64::from(w.count);
            }
        }
        for k in 0..6 {
            if p[k] != self.props[k] as u64
                || i[k] != self.inputs[k] as u64
                || o[k] != self.outputs[k] as u64
            {
                return Err(bad(format!(
                    "{} tables hold elements no window uses",
                    PARAM_TYPES[k]
                )));
            }
        }
        Ok(())
    }

    pub(super) fn file(&self) -> J {
        let f = self.f;
        let mut o = J::obj()
            .with("Version", f.version)
            .with("Filename", &f.filename)
            .with("Category", &f.category)
            .with("Blackboard ID", f.blackboard_ids.id)
            .with("Parent Blackboard ID", f.blackboard_ids.parent)
            .with("Commands", J::Arr(f.commands.iter().map(command).collect()))
            .with(
                "Nodes",
                J::Arr((0..f.nodes.len()).map(|i| self.node(i)).collect()),
            )
            .with("Blackboard", self.blackboard());
        o.set(
            "Expressions",
            f.exb
                .as_ref()
                .map_or_else(J::obj, |x| exb(x, &self.exb_lines)),
        );
        if f.version >= 0x407 {
            o.set(
                "Replacement Table",
                J::Arr(f.replacement.entries.iter().map(replacement).collect()),
            );
        }
        o.set(
            "Modules",
            J::Arr(
                f.modules
                    .iter()
                    .map(|m| {
                        J::obj()
                            .with("Path", &m.path)
                            .with("Category", &m.category)
                            .with("Instance Count", m.instance_count)
                    })
                    .collect(),
            ),
        );
        o.set(
            "Unknown Section 0x58",
            f.x58.as_ref().map_or_else(J::obj, |x| {
                J::obj()
                    .with("Description", &x.description)
                    .with("Unknown 04", x.unknown_0x04)
                    .with("Unknown 08", x.unknown_0x08)
                    .with("Unknown 0C", x.unknown_0x0c)
            }),
        );
        o.set("Has Section 0x6C", f.x6c.is_some());
        o.set("$codec", self.codec());
        o
    }

    /// What the dt dump leaves out, for the file as a whole.
    fn codec(&self) -> J {
        let f = self.f;
        let mut c = J::obj()
            .with("Query Count", f.query_count)
            .with("Output Count", f.output_count)
            .with("Category ID", f.category_id)
            .with("Unknown 0x54", f.reserved_0x54);
        if f.version == 0x404 {
            c.set("Unknown 0x48", f.unknown_0x48);
        }
        if let Some(v) = f.x6c {
            if v != 0 {
                c.set("0x6C Word", v);
            }
        }
        let r = &f.replacement;
        c.set(
            "Replacement Header",
            J::obj()
                .with("Replaced", r.replaced)
                .with("Unknown 01", r.reserved_0x01)
                .with("Node Count", r.node_count)
                .with("Attachment Count", r.attachment_count),
        );
        if f.version < 0x407 && !r.entries.is_empty() {
            c.set(
                "Replacement Table",
                J::Arr(r.entries.iter().map(replacement).collect()),
            );
        }
        let nulls = super::null_tables(f);
        if !nulls.is_empty() {
            c.set(
                "Null Offsets",
                J::Arr(nulls.into_iter().map(J::from).collect()),
            );
        }
        set_pool(&mut c, &f.string_pool);
        // Multi-input sources no input's window covers: the whole table.
        let mut covered = vec![false; f.multi.len()];
        for sources in super::input_sources(f) {
            // As `source` gives them: a window inside the table (the
            // decoder checks that), else none.
            if sources.node <= -100 {
                let base = (-100 - i64::from(sources.node)) as usize;
                let end = base + usize::from(sources.output as u16);
                if let Some(c) = covered.get_mut(base..end) {
                    c.fill(true);
                }
            }
        }
        if covered.contains(&false) {
            c.set(
                "Multi Sources",
                J::Arr(
                    f.multi
                        .iter()
                        .map(|m| {
                            let mut o = J::obj()
                                .with("Node Index", m.node)
                                .with("Output Index", m.output);
                            flags(&mut o, &m.flags.word);
                            o
                        })
                        .collect(),
                ),
            );
        }
        c.set(
            "Queries",
            J::Arr(
                f.queries
                    .iter()
                    .map(|q| J::Arr(vec![J::from(q.node), J::from(q.reserved_0x02)]))
                    .collect(),
            ),
        );
        c.set(
            "Attachment IDs",
            J::Arr(f.attachment_ids.iter().map(|&i| J::from(i)).collect()),
        );
        c.set(
            "Attachments",
            J::Arr(
                f.attachments
                    .iter()
                    .map(|a| self.attachment(a, true))
                    .collect(),
            ),
        );
        c.set(
            "XLink Actions",
            J::Arr(
                f.actions
                    .iter()
                    .map(|a| {
                        J::obj()
                            .with("Node Index", a.node)
                            .with("Action Slot", &a.slot)
                            .with("Action", &a.action)
                    })
                    .collect(),
            ),
        );
        if !f.transitions.is_empty() {
            c.set(
                "Transitions",
                J::Arr(f.transitions.iter().map(|t| transition(&t.body)).collect()),
            );
        }
        if !f.enum_relocs.is_empty() {
            c.set(
                "Enum Relocations",
                J::Arr(
                    f.enum_relocs
                        .iter()
                        .map(|e| {
                            J::obj()
                                .with("Offset", e.offset)
                                .with("Class", &e.class)
                                .with("Value", &e.value)
                        })
                        .collect(),
                ),
            );
        }
        c.set("Blackboard", self.blackboard_codec());
        if let Some(x) = &f.exb {
            c.set("Expressions", exb_codec(x, &self.exb_lines));
        }
        c
    }

    fn node(&self, i: usize) -> J {
        let f = self.f;
        let n = &f.nodes[i];
        let mut o = J::obj();
        o.set(
            "Node Type",
            node_type_name(n.r#type).map_or(J::from(n.r#type), J::from),
        );
        o.set("Node Index", n.index);
        o.set("Name", &n.name);
        o.set("GUID", guid_text(&n.guid));
        let fl = &n.flags;
        let set = [fl.query, fl.module, fl.root, fl.multi_param_type2];
        o.set(
            "Flags",
            J::Arr(
                NODE_FLAGS
                    .iter()
                    .zip(set)
                    .filter(|(_, on)| *on)
                    .map(|(s, _)| J::from(*s))
                    .collect(),
            ),
        );
        // Query entries hold indices among the query nodes.
        let qw = (usize::from(n.query_base), usize::from(n.query_count));
        let queries: Vec<J> = f
            .queries
            .get(qw.0..qw.0 + qw.1)
            .unwrap_or(&[])
            .iter()
            .map(|q| {
                self.query_nodes
                    .get(usize::from(q.node))
                    .map_or(J::Int(-1), |&x| J::from(x))
            })
            .collect();
        o.set("Queries", J::Arr(queries));
        let ids = f
            .attachment_ids
            .get(
                n.attachment_base as usize
                    ..n.attachment_base as usize + usize::from(n.attachment_count),
            )
            .unwrap_or(&[]);
        o.set(
            "Attachments",
            J::Arr(
                ids.iter()
                    .filter_map(|&id| f.attachments.get(id as usize))
                    .map(|a| self.attachment(a, false))
                    .collect(),
            ),
        );
        o.set("Properties", self.properties(&n.params.properties));
        o.set("Parameters", self.parameters(&n.params.io));
        o.set(
            "XLink Actions",
            J::Arr(
                f.actions
                    .iter()
                    .filter(|a| a.node == i32::from(n.index))
                    .map(|a| {
                        J::obj()
                            .with("Action Slot", &a.slot)
                            .with("Action", &a.action)
                    })
                    .collect(),
            ),
        );
        if let Some(s) = &n.state_info {
            o.set(
                "State Info",
                J::obj()
                    .with("Desired State", &s.desired_state)
                    .with("Unknown 04", s.unknown_0x04)
                    .with("Unknown 08", s.unknown_0x08)
                    .with("Unknown 0C", s.unknown_0x0c)
                    .with("Unknown 10", s.unknown_0x10),
            );
        }
        o.set("Plugs", self.plugs(i));
        // What the dump leaves out.
        let mut c = J::obj()
            .with("Flags Byte", fl.to_word() as u8)
            .with(
                "Query Window",
                J::Arr(vec![J::from(n.query_base), J::from(n.query_count)]),
            )
            .with(
                "Attachment Window",
                J::Arr(vec![
                    J::from(n.attachment_base),
                    J::from(n.attachment_count),
                ]),
            )
            .with(
                "Attachment Indices",
                J::Arr(ids.iter().map(|&i| J::from(i)).collect()),
            )
            .with("Expression Count", n.expression_count)
            .with("Expression IO Size", n.expression_io_size)
            .with("Multi Count", n.multi_count);
        if f.version >= 0x407 {
            c.set("Name Hash", n.name_hash);
        }
        for (k, v) in [
            ("Unknown 07", u32::from(n.reserved_0x07)),
            ("Unknown 10", n.reserved_0x10),
            ("Unknown 1E", u32::from(n.reserved_0x1e)),
            ("Unknown 28", n.reserved_0x28),
        ] {
            if v != 0 {
                c.set(k, v);
            }
        }
        if !n.params.unknown_tail.is_empty() {
            c.set("Param Tail", hex(&n.params.unknown_tail));
        }
        o.set("$codec", c);
        o
    }

    /// An attachment: dt's name and properties, and (for the table in
    /// `$codec`) its other fields.
    fn attachment(&self, a: &Attachment, raw: bool) -> J {
        let mut o = J::obj()
            .with("Name", &a.name)
            .with("Debug", a.params.unknown_0x00)
            .with("Properties", self.properties(&a.params.properties));
        if raw {
            o.set("Expression Count", a.expression_count);
            o.set("Expression IO Size", a.expression_io_size);
            if self.f.version >= 0x407 {
                o.set("Name Hash", a.name_hash);
            }
            let p = &a.params;
            let bases = [
                p.end_base_0,
                p.end_base_1,
                p.end_base_2,
                p.end_base_3,
                p.end_base_4,
                p.end_base_5,
            ];
            // 0 in every known file; the ends after them are derived.
            if bases.iter().any(|&b| b != 0) {
                o.set(
                    "End Bases",
                    J::Arr(bases.iter().map(|&b| J::from(b)).collect()),
                );
            }
        }
        o
    }

    fn properties(&self, w: &[Window; 6]) -> J {
        let p = &self.f.properties;
        let mut o = J::obj();
        for (k, name) in PARAM_TYPES.iter().enumerate() {
            let (base, count) = (w[k].base as usize, w[k].count as usize);
            let items: Vec<J> = (base..base + count)
                .filter_map(|i| {
                    let (n, class, fl, value) = match k {
                        0 => get(&p.int, i).map(|x| (&x.name, None, &x.flags, J::from(x.value))),
                        1 => get(&p.bool, i).map(|x| (&x.name, None, &x.flags, bool_word(x.value))),
                        2 => get(&p.float, i).map(|x| (&x.name, None, &x.flags, J::F32(x.value))),
                        3 => {
                            get(&p.string, i).map(|x| (&x.name, None, &x.flags, J::from(&x.value)))
                        }
                        4 => get(&p.vec3, i).map(|x| (&x.name, None, &x.flags, f32s(&x.value))),
                        _ => {
                            get(&p.pointer, i).map(|x| (&x.name, Some(&x.class), &x.flags, J::Null))
                        }
                    }?;
                    let mut e = J::obj().with("Name", n);
                    if let Some(c) = class {
                        e.set("Classname", c);
                    }
                    e.set("Default Value", value);
                    flags(&mut e, &fl.word);
                    Some(e)
                })
                .collect();
            if !items.is_empty() {
                o.set(name, J::Arr(items));
            }
        }
        o
    }

    fn parameters(&self, w: &[IoWindow; 6]) -> J {
        let io = &self.f.io;
        let mut inputs = J::obj();
        let mut outputs = J::obj();
        for (k, name) in PARAM_TYPES.iter().enumerate() {
            let (ib, ic) = (w[k].input_base as usize, w[k].input_count as usize);
            let items: Vec<J> = (ib..ib + ic)
                .filter_map(|i| {
                    let (n, class, src, value) = match k {
                        0 => get(&io.int_inputs, i)
                            .map(|x| (&x.name, None, &x.source, J::from(x.value))),
                        1 => get(&io.bool_inputs, i)
                            .map(|x| (&x.name, None, &x.source, bool_word(x.value))),
                        2 => get(&io.float_inputs, i)
                            .map(|x| (&x.name, None, &x.source, J::F32(x.value))),
                        3 => get(&io.string_inputs, i)
                            .map(|x| (&x.name, None, &x.source, J::from(&x.value))),
                        4 => get(&io.vec3_inputs, i)
                            .map(|x| (&x.name, None, &x.source, f32s(&x.value))),
                        _ => get(&io.pointer_inputs, i).map(|x| {
                            (
                                &x.name,
                                Some(&x.class),
                                &x.source,
                                if x.value == 0 {
                                    J::Null
                                } else {
                                    J::from(x.value)
                                },
                            )
                        }),
                    }?;
                    let mut e = J::obj().with("Name", n);
                    if let Some(c) = class {
                        e.set("Classname", c);
                    }
                    e.set("Default Value", value);
                    self.source(&mut e, src);
                    Some(e)
                })
                .collect();
            if !items.is_empty() {
                inputs.set(name, J::Arr(items));
            }
            let (ob, oc) = (w[k].output_base as usize, w[k].output_count as usize);
            let items: Vec<J> = (ob..ob + oc)
                .filter_map(|i| {
                    let (name, bit30, connected, class) = match k {
                        0 => get(&io.int_outputs, i)
                            .map(|x| (&x.word.name, x.word.reserved_30, x.word.connected, None)),
                        1 => get(&io.bool_outputs, i)
                            .map(|x| (&x.word.name, x.word.reserved_30, x.word.connected, None)),
                        2 => get(&io.float_outputs, i)
                            .map(|x| (&x.word.name, x.word.reserved_30, x.word.connected, None)),
                        3 => get(&io.string_outputs, i)
                            .map(|x| (&x.word.name, x.word.reserved_30, x.word.connected, None)),
                        4 => get(&io.vec3_outputs, i)
                            .map(|x| (&x.word.name, x.word.reserved_30, x.word.connected, None)),
                        _ => get(&io.pointer_outputs, i).map(|x| {
                            (
                                &x.word.name,
                                x.word.reserved_30,
                                x.word.connected,
                                Some(&x.class),
                            )
                        }),
                    }?;
                    let mut e = J::obj().with("Name", name);
                    if let Some(c) = class {
                        e.set("Classname", c);
                    }
                    e.set("Is Output", connected);
                    if bit30 {
                        e.set("$Bit 30", true);
                    }
                    Some(e)
                })
                .collect();
            if !items.is_empty() {
                outputs.set(name, J::Arr(items));
            }
        }
        J::obj().with("Inputs", inputs).with("Outputs", outputs)
    }

    /// dt's source fields of an input: one source, or `Sources` for a
    /// multi-input (with the index of its first source, `$Multi Index`).
    fn source(&self, e: &mut J, s: &Source) {
        if s.node <= -100 {
            let base = (-100 - i64::from(s.node)) as usize;
            let count = usize::from(s.output as u16);
            let sources = self.f.multi.get(base..base + count).unwrap_or(&[]);
            e.set(
                "Sources",
                J::Arr(
                    sources
                        .iter()
                        .map(|m| {
                            let mut o = J::obj()
                                .with("Node Index", m.node)
                                .with("Output Index", m.output);
                            flags(&mut o, &m.flags.word);
                            o
                        })
                        .collect(),
                ),
            );
            e.set("$Multi Index", base);
            // dt shows no flags of a multi-input itself.
            let own = flag_word(&s.flags.word);
            if own != 0 {
                e.set("$Flag Word", own);
            }
            return;
        }
        e.set("Node Index", s.node);
        if s.output < 0 {
            e.set("Output Index", s.output & 0x7fff);
            e.set("Is Set Blackboard", true);
        } else {
            e.set("Output Index", s.output);
        }
        flags(e, &s.flags.word);
    }
}

fn command(c: &Command) -> J {
    let mut o = J::obj()
        .with("Name", &c.name)
        .with("GUID", guid_text(&c.guid))
        .with("Root Node Index", c.root_node);
    if c.secondary_root != 0 {
        o.set("Secondary Root Node Index", i32::from(c.secondary_root) - 1);
    }
    o
}

fn replacement(r: &Replacement) -> J {
    let mut o = J::obj()
        .with(
            "Type",
            name_or_number(&REPLACEMENTS, 0, u64::from(r.r#type)),
        )
        .with("Node Index", r.node)
        .with("Child Plug Index", r.target);
    if r.r#type == 1 {
        o.set("Replacement Node Index", r.new);
    } else if r.new != 0 {
        o.set("$New Index", r.new);
    }
    if r.unknown_0x01 != 0 {
        o.set("$Unknown 01", r.unknown_0x01);
    }
    o
}

fn transition(t: &Transition) -> J {
    let (flags, name) = match t {
        Transition::Command(c) => (c.flags, Some(&c.command)),
        Transition::Plain(w) => (*w, None),
    };
    let mut o = J::obj()
        .with("Transition Type", flags & 0xff)
        .with("Update Post Calc", flags >> 31 == 1);
    if let Some(n) = name {
        o.set("Transition Name", n);
    }
    if flags & 0x7fff_ff00 != 0 {
        o.set("$Flag Word", flags);
    }
    o
}

/// The instructions of an expression's window (`base`, `count`) that the
/// table holds: a window that starts past the table, or a negative base, holds
/// none; one that runs past the table's end holds the part before the end.
/// The JSON gives each window's instructions this way, and the reader puts
/// them back at `base` (the window itself is in `$codec`).
fn exb_window(x: &Exb, base: i32, count: u32) -> &[Instruction] {
    let Ok(b) = usize::try_from(base) else {
        return &[];
    };
    let n = x.instructions.len();
    let b = b.min(n);
    let end = b.saturating_add(count as usize).min(n);
    &x.instructions[b..end]
}

/// An expression's windows as the JSON gives them: setup (when it has one)
/// and main.
fn exb_windows(e: &Expression) -> [(i32, u32); 2] {
    let setup = if e.setup_base >= 0 && e.setup_count > 0 {
        (e.setup_base, e.setup_count)
    } else {
        (-1, 0)
    };
    [setup, (e.main_base, e.main_count)]
}

/// How many inlined elements the JSON may give for a table of `n`: the
/// windows of every known file follow each other (each element once), so
/// overlapping windows are allowed up to 4 times the table (plus 4096)
/// and refused past that, so that the JSON stays linear in the file.
fn inline_budget(n: usize) -> usize {
    n.saturating_mul(4).saturating_add(4096)
}

/// Each instruction of the table as the library's text, and whether that
/// text assembles back to the same bytes (where not, the bytes are kept in
/// `$codec`; see `super::exb`).
fn exb_lines(x: &Exb) -> Vec<(String, bool)> {
    let tables = exb::Tables::new(
        x.version,
        x.constants.clone(),
        x.strings.strings.clone(),
        x.signatures.clone(),
    );
    let mut asm = exb::Assembler {
        tables: tables.clone(),
    };
    x.instructions
        .iter()
        .map(|i| {
            let text = exb::format(i, &tables);
            let exact = asm.assemble(&text).is_ok_and(|a| a == *i);
            (text, exact)
        })
        .collect()
}

/// The EXB: dt's version and expressions, each with its setup and main
/// instructions as lines of the library's text, numbered by byte from the
/// list's start (`0x0008    STR ...`).
fn exb(x: &Exb, lines: &[(String, bool)]) -> J {
    let slice = |base: i32, count: u32| -> J {
        // The window as `exb_window` clamps it to the instructions (a
        // base past them, which the file may hold, gives no lines).
        let n = exb_window(x, base, count).len();
        let from = (base.max(0) as usize).min(lines.len());
        J::Arr(
            lines
                .get(from..from + n)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(k, (text, _))| J::Str(format!("{:#06x}    {text}", k * 8)))
                .collect(),
        )
    };
    let types = |b: u16| match exb::type_of_byte(u64::from(b), x.version) {
        Some(t) => J::from(exb::TYPE_NAMES[t]),
        None => J::from(b),
    };
    J::obj().with("Version", x.version).with(
        "Expressions",
        J::Arr(
            x.expressions
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let mut o = J::obj()
                        .with("Expression Index", i)
                        .with("Input Type", types(e.input_type))
                        .with("Output Type", types(e.output_type));
                    let [setup, main] = exb_windows(e);
                    if setup.0 >= 0 {
                        o.set("Setup", slice(setup.0, setup.1));
                    }
                    o.set("Main", slice(main.0, main.1));
                    o
                })
                .collect(),
        ),
    )
}

/// The raw words of a window's lines whose text does not give their bytes:
/// `[[line, "hex"], ...]`.
fn exb_words(x: &Exb, lines: &[(String, bool)], base: i32, count: u32) -> Option<J> {
    let n = exb_window(x, base, count).len();
    let from = base.max(0) as usize;
    let words: Vec<J> = (0..n)
        .filter(|k| !lines[from + k].1)
        .map(|k| {
            J::Arr(vec![
                J::from(k),
                J::Str(exb::hex(&x.instructions[from + k])),
            ])
        })
        .collect();
    (!words.is_empty()).then_some(J::Arr(words))
}

/// An instruction as fields, for the instructions no expression covers
/// (`$codec`): exact, whatever the text would say.
fn instruction(i: &Instruction) -> J {
    let operand = |kind: u8, v: u16| -> J {
        J::Arr(vec![
            name_or_number(&OPERANDS, 0, u64::from(kind)),
            J::from(v),
        ])
    };
    J::obj()
        .with("Op", name_or_number(&OPCODES, 1, u64::from(i.opcode)))
        .with("Type", name_or_number(&DATATYPES, 0, u64::from(i.datatype)))
        .with("Op1", operand(i.op1_kind, i.op1))
        .with("Op2", operand(i.op2_kind, i.op2))
}

/// The EXB's layout facts: header sizes, where each expression's
/// instructions start, its memory sizes, the signatures, the constant table
/// and the string pool.
fn exb_codec(x: &Exb, lines: &[(String, bool)]) -> J {
    // Instructions no expression's setup or main covers are kept as a list.
    // Exactly the instructions the expressions' `Setup` and `Main` give
    // (`exb_window`: a window's part inside the table); `Emit::new` has
    // bounded their sum.
    let mut covered = vec![false; x.instructions.len()];
    for e in &x.expressions {
        for (base, count) in exb_windows(e) {
            let w = exb_window(x, base, count);
            if !w.is_empty() {
                let b = base as usize;
                covered[b..b + w.len()].fill(true);
            }
        }
    }
    let mut o = J::obj();
    if covered.contains(&false) {
        o.set(
            "Instructions",
            J::Arr(x.instructions.iter().map(instruction).collect()),
        );
    }
    o.with("Global Memory", x.global_memory)
        .with("Instance Count", x.instance_count)
        .with("Local32 Memory", x.local32_memory)
        .with("Local64 Memory", x.local64_memory)
        .with("Instruction Count", x.instructions.len())
        .with(
            "Expressions",
            J::Arr(
                x.expressions
                    .iter()
                    .map(|e| {
                        let mut o = J::obj()
                            .with(
                                "Setup",
                                J::Arr(vec![J::from(e.setup_base), J::from(e.setup_count)]),
                            )
                            .with(
                                "Main",
                                J::Arr(vec![J::from(e.main_base), J::from(e.main_count)]),
                            )
                            .with("Global Memory", e.global_memory)
                            .with("Local32 Memory", e.local32_memory)
                            .with("Local64 Memory", e.local64_memory);
                        let [setup, main] = exb_windows(e);
                        if setup.0 >= 0 {
                            if let Some(w) = exb_words(x, lines, setup.0, setup.1) {
                                o.set("Setup Words", w);
                            }
                        }
                        if let Some(w) = exb_words(x, lines, main.0, main.1) {
                            o.set("Main Words", w);
                        }
                        o
                    })
                    .collect(),
            ),
        )
        .with(
            "Signatures",
            J::Arr(x.signatures.iter().map(J::from).collect()),
        )
        .with(
            "Constants",
            J::Arr(
                x.constants
                    .iter()
                    .map(|&w| J::Str(format!("{w:08x}")))
                    .collect(),
            ),
        )
        .with_pool(&x.strings)
}

/// A string pool in `$codec`: its strings in order (`String Pool`), and the
/// offsets references hold that start none of them (`Odd String Offsets`:
/// inside a string, or at the pool's end), each with the text read there.
fn set_pool(o: &mut J, pool: &codec_runtime::StringPool) {
    o.set(
        "String Pool",
        J::Arr(pool.strings.iter().map(J::from).collect()),
    );
    if !pool.odd.is_empty() {
        o.set(
            "Odd String Offsets",
            J::Arr(
                pool.odd
                    .iter()
                    .map(|(at, s)| J::Arr(vec![J::Int(*at as i64), J::from(s)]))
                    .collect(),
            ),
        );
    }
}

impl J {
    fn with_pool(mut self, pool: &codec_runtime::StringPool) -> J {
        set_pool(&mut self, pool);
        self
    }
}

impl Emit<'_> {
    /// dt's blackboard: per type, the parameters with their index, name,
    /// notes, file, inheritance flags and default value.
    fn blackboard(&self) -> J {
        let bb = &self.f.blackboard;
        let mut o = J::obj();
        let mut next = 0usize;
        let mut paths: Vec<&codec_runtime::Str> = Vec::new();
        for (ti, (name, count)) in self.bb_types().into_iter().enumerate() {
            let entries = bb.entries.get(next..next + count).unwrap_or(&[]);
            next += count;
            if entries.is_empty() {
                continue;
            }
            let mut items = Vec::with_capacity(entries.len());
            for (i, e) in entries.iter().enumerate() {
                let mut p = J::obj()
                    .with("Blackboard Index", i)
                    .with("Name", &e.word.name)
                    .with("Notes", &e.notes);
                let file = e
                    .word
                    .has_file_ref
                    .then(|| bb.file_refs.get(usize::from(e.word.file_ref)))
                    .flatten();
                // A file reference's index is its path's first use, unless
                // the file says otherwise (then `$File Reference`).
                let expected = match file {
                    Some(r) => {
                        p.set("Source File", &r.path);
                        Some(paths.iter().position(|x| *x == r.path).unwrap_or_else(|| {
                            paths.push(&r.path);
                            paths.len() - 1
                        }))
                    }
                    None => None,
                };
                p.set(
                    "Inherit Mode",
                    name_or_number(&INHERIT_MODES, 0, u64::from(e.word.inherit)),
                );
                p.set("Default Value", self.bb_value(ti, i));
                let stored = usize::from(e.word.file_ref);
                let derived = (e.word.has_file_ref && expected == Some(stored))
                    || (!e.word.has_file_ref && stored == 0);
                if !derived {
                    p.set(
                        "$File Reference",
                        J::Arr(vec![J::Bool(e.word.has_file_ref), J::from(e.word.file_ref)]),
                    );
                }
                items.push(p);
            }
            o.set(name, J::Arr(items));
        }
        o
    }

    /// The blackboard's types, in table order, with their counts.
    pub(super) fn bb_types(&self) -> Vec<(&'static str, usize)> {
        let bb = &self.f.blackboard;
        let mut v = vec![
            ("String", usize::from(bb.string_header.count)),
            ("S32", usize::from(bb.s32_header.count)),
        ];
        if self.f.version >= 0x408 {
            v.push(("U32", usize::from(bb.u32_count)));
        }
        v.extend([
            ("F32", usize::from(bb.f32_header.count)),
            ("Bool", usize::from(bb.bool_header.count)),
            ("Vec3f", usize::from(bb.vec3_header.count)),
            ("VoidPtr", usize::from(bb.pointer_header.count)),
        ]);
        v
    }

    fn bb_value(&self, ti: usize, i: usize) -> J {
        let bb = &self.f.blackboard;
        let name = self.bb_types()[ti].0;
        match name {
            "String" => bb.string_values.get(i).map_or(J::Null, J::from),
            "S32" => bb.s32_values.get(i).map_or(J::Null, |&v| J::from(v)),
            "U32" => bb.u32_values.get(i).map_or(J::Null, |&v| J::from(v)),
            "F32" => bb.f32_values.get(i).map_or(J::Null, |&v| J::F32(v)),
            "Bool" => bb.bool_values.get(i).map_or(J::Null, |&v| bool_word(v)),
            "Vec3f" => bb.vec3_values.get(i).map_or(J::Null, f32s),
            _ => J::Null,
        }
    }

    /// The blackboard's per-type headers and file references, as stored.
    fn blackboard_codec(&self) -> J {
        let bb = &self.f.blackboard;
        let h = |x: &BbHeader| {
            J::Arr(vec![
                J::from(x.count),
                J::from(x.first),
                J::from(x.value_offset),
                J::from(x.reserved_0x06),
            ])
        };
        let mut heads = vec![h(&bb.string_header), h(&bb.s32_header)];
        if self.f.version >= 0x408 {
            heads.push(J::Arr(vec![
                J::from(bb.u32_count),
                J::from(bb.u32_first),
                J::from(bb.u32_value_offset),
                J::from(bb.unknown_u32_0x06),
            ]));
        }
        heads.extend([
            h(&bb.f32_header),
            h(&bb.bool_header),
            h(&bb.vec3_header),
            h(&bb.pointer_header),
        ]);
        J::obj().with("Headers", J::Arr(heads)).with(
            "File References",
            J::Arr(
                bb.file_refs
                    .iter()
                    .map(|r| {
                        J::obj()
                            .with("Path", &r.path)
                            .with("Path Hash", r.path_hash)
                            .with("Stem Hash", r.stem_hash)
                            .with("Extension Hash", r.extension_hash)
                    })
                    .collect(),
            ),
        )
    }

    /// dt's plug groups, each plug with its fields by layout; `$Layout` when
    /// the layout is not the one the node type, group, position and input
    /// type give (see [`super::layout_of`]).
    fn plugs(&self, ni: usize) -> J {
        let n = &self.f.nodes[ni];
        let mut o = J::obj();
        for (g, name) in PLUG_GROUPS.iter().enumerate() {
            let group = &n.params.plugs[g];
            if group.is_empty() {
                continue;
            }
            let items: Vec<J> = group
                .iter()
                .enumerate()
                .map(|(i, slot)| {
                    let last = i + 1 == group.len();
                    let mut p = self.plug(n, &slot.body, last);
                    let expected = super::layout_of(self.f, n, g, last, plug_name(&slot.body));
                    if expected != slot.body.tag() {
                        p.set("$Layout", slot.body.variant_name());
                    }
                    p
                })
                .collect();
            o.set(name, J::Arr(items));
        }
        o
    }

    fn plug(&self, n: &Node, p: &Plug, last: bool) -> J {
        let ty = n.r#type;
        match p {
            Plug::Link(l) => J::obj().with("Node Index", l.node).with("Name", &l.name),
            Plug::Transition(t) => {
                let mut o = J::obj()
                    .with("Node Index", t.node)
                    .with("Transition Index", t.transition);
                if let Some(tr) = self.f.transitions.get(t.transition as usize) {
                    if let J::Obj(fields) = transition(&tr.body) {
                        for (k, v) in fields {
                            o.set(&k, v);
                        }
                    }
                }
                o
            }
            Plug::Case(c) => {
                let mut o = J::obj().with("Node Index", c.node).with("Name", &c.name);
                let bb = c.blackboard >> 31 == 1;
                let index = (c.blackboard & 0xffff) as u16 as i16;
                let word = if bb {
                    0x8000_0000 | (c.blackboard & 0xffff)
                } else {
                    0
                };
                let value = match ty {
                    S32_SELECTOR if last && !bb && c.value == 0 => {
                        o.set("Is Default", true);
                        0
                    }
                    S32_SELECTOR | RANDOM_SELECTOR if bb => {
                        o.set("Blackboard Index", index);
                        if ty == S32_SELECTOR {
                            o.set("Default Condition", c.value as i32);
                        } else {
                            o.set("Default Weight", f32::from_bits(c.value));
                        }
                        c.value
                    }
                    S32_SELECTOR => {
                        o.set("Condition", c.value as i32);
                        c.value
                    }
                    RANDOM_SELECTOR => {
                        o.set("Weight", f32::from_bits(c.value));
                        c.value
                    }
                    _ if bb => {
                        o.set("Child Enum BB Index", c.blackboard & 0xffff);
                        0
                    }
                    _ => {
                        o.set("Child Enum Value", c.value);
                        c.value
                    }
                };
                raw_words(&mut o, (word, value), (c.blackboard, c.value));
                o
            }
            Plug::StringCase(c) => {
                let mut o = J::obj().with("Node Index", c.node).with("Name", &c.name);
                let bb = c.blackboard >> 31 == 1;
                let index = (c.blackboard & 0xffff) as u16 as i16;
                if last && !bb && c.value == "その他" {
                    o.set("Is Default", true);
                } else if bb {
                    o.set("Blackboard Index", index);
                    o.set("Default Condition", &c.value);
                } else {
                    o.set("Condition", &c.value);
                }
                let rebuilt = if bb {
                    0x8000_0000 | u32::from(index as u16)
                } else {
                    0
                };
                if rebuilt != c.blackboard {
                    o.set("$Blackboard Word", c.blackboard);
                }
                o
            }
            Plug::RangeCase(c) => {
                let mut o = J::obj().with("Node Index", c.node).with("Name", &c.name);
                {
                    for (key, word, value) in [
                        ("Min", c.min_blackboard, c.min),
                        ("Max", c.max_blackboard, c.max),
                    ] {
                        if word >> 31 == 1 {
                            o.set(
                                &format!("Condition {key} Blackboard Index"),
                                (word & 0xffff) as u16 as i16,
                            );
                            if word & 0x7fff_0000 != 0 || value.to_bits() != 0 {
                                o.set(
                                    &format!("${key} Words"),
                                    J::Arr(vec![J::from(word), J::from(value.to_bits())]),
                                );
                            }
                        } else {
                            o.set(&format!("Condition {key}"), value);
                            if word != 0 {
                                o.set(
                                    &format!("${key} Words"),
                                    J::Arr(vec![J::from(word), J::from(value.to_bits())]),
                                );
                            }
                        }
                    }
                }
                if c.reserved != [0; 16] {
                    o.set("$Reserved", hex(&c.reserved));
                }
                o
            }
            Plug::RangeDefault(c) => {
                let mut o = J::obj()
                    .with("Node Index", c.node)
                    .with("Name", &c.name)
                    .with("Is Default", true);
                if c.unknown_0x08 != 0 {
                    o.set("$Unknown 08", c.unknown_0x08);
                }
                if c.value != "その他" {
                    o.set("$Value", &c.value);
                }
                if c.reserved != [0; 24] {
                    o.set("$Reserved", hex(&c.reserved));
                }
                o
            }
            // dt names the selectors' input plug fields by number.
            Plug::Input(c) if matches!(ty, BOOL_SELECTOR | F32_SELECTOR) => {
                let value = if ty == F32_SELECTOR && f32::from_bits(c.default).is_finite() {
                    J::F32(f32::from_bits(c.default))
                } else {
                    J::Int(i64::from(c.default))
                };
                J::obj()
                    .with("Node Index", c.node)
                    .with("Name", &c.name)
                    .with("Unknown 1", c.reserved_0x08)
                    .with("Unknown 2", value)
            }
            Plug::Input(c) => J::obj()
                .with("Node Index", c.node)
                .with("Name", &c.name)
                .with("Unknown", c.reserved_0x08)
                .with("Default Value", self.typed_default(n, &c.name, c.default)),
            Plug::StringInput(c) => J::obj()
                .with("Node Index", c.node)
                .with("Name", &c.name)
                .with("Unknown", c.unknown_0x08)
                .with("Default Value", &c.default),
            // dt reads an expression node's input plug as an int plug: its
            // `Default Value` is the first word as an int, and the vector
            // is kept beside it when those bits do not give it all.
            Plug::Vec3Input(c) if ty == EXPRESSION => {
                let first = c.default[0].to_bits();
                let mut o = J::obj()
                    .with("Node Index", c.node)
                    .with("Name", &c.name)
                    .with("Unknown", c.unknown_0x08)
                    .with("Default Value", J::Int(i64::from(first as i32)));
                if c.default[1].to_bits() != 0 || c.default[2].to_bits() != 0 {
                    o.set("$Default Value", f32s(&c.default));
                }
                o
            }
            Plug::Vec3Input(c) => J::obj()
                .with("Node Index", c.node)
                .with("Name", &c.name)
                .with("Unknown", c.unknown_0x08)
                .with("Default Value", f32s(&c.default)),
            Plug::Raw(b) => J::obj().with("$Bytes", hex(b)),
        }
    }

    /// A 4-byte default value shown by the type of the input or output the
    /// plug feeds: a bool, a float or an int (as a JSON bool, a number with a
    /// point, or an integer, so the bits come back whatever the type).
    fn typed_default(&self, n: &Node, name: &str, bits: u32) -> J {
        match super::param_type(self.f, n, name) {
            Some(1) if bits <= 1 => J::Bool(bits == 1),
            Some(2) if f32::from_bits(bits).is_finite() => J::F32(f32::from_bits(bits)),
            _ => J::Int(i64::from(bits as i32)),
        }
    }
}

/// The name of a plug, where it has one.
pub(super) fn plug_name(p: &Plug) -> Option<&str> {
    match p {
        Plug::Link(x) => Some(&x.name),
        Plug::Case(x) => Some(&x.name),
        Plug::StringCase(x) => Some(&x.name),
        Plug::RangeCase(x) => Some(&x.name),
        Plug::RangeDefault(x) => Some(&x.name),
        Plug::Input(x) => Some(&x.name),
        Plug::StringInput(x) => Some(&x.name),
        Plug::Vec3Input(x) => Some(&x.name),
        Plug::Transition(_) | Plug::Raw(_) => None,
    }
}

/// The stored blackboard word and value when the dt fields do not give them.
fn raw_words(o: &mut J, rebuilt: (u32, u32), stored: (u32, u32)) {
    if rebuilt.0 != stored.0 {
        o.set("$Blackboard Word", stored.0);
    }
    if rebuilt.1 != stored.1 {
        o.set("$Value", stored.1);
    }
}
