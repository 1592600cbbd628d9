//! JSON → document. Values the dt dump shows are read from it; the layout
//! facts come from the `$` keys, or are derived the way the original writer
//! lays a file out when a key is absent.

use super::emit::dt_flag_word;
use super::exb;
use super::names::*;
use super::TextError;
use crate::ainb::schema::*;
use crate::ainb::File;
use codec_runtime::{Str, StringPool};
use serde_json::{Map, Value};

type R<T> = Result<T, TextError>;
type Obj = Map<String, Value>;

/// Reads an AINB JSON document.
pub fn from_json(text: &str) -> R<File> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let (at, what) = crate::json_syntax(&e);
        TextError::new(at, what)
    })?;
    let top = obj(&v, "")?;
    let mut rd = Read::default();
    rd.file(top)
}

fn obj<'a>(v: &'a Value, at: &str) -> R<&'a Obj> {
    v.as_object()
        .ok_or_else(|| TextError::new(at, "expected an object"))
}

fn arr<'a>(v: &'a Value, at: &str) -> R<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| TextError::new(at, "expected a list"))
}

fn key<'a>(o: &'a Obj, k: &str, at: &str) -> R<&'a Value> {
    o.get(k)
        .ok_or_else(|| TextError::new(at, format!("missing `{k}`")))
}

fn int(v: &Value, at: &str) -> R<i64> {
    v.as_i64()
        .or_else(|| v.as_u64().and_then(|u| i64::try_from(u).ok()))
        .ok_or_else(|| TextError::new(at, "expected an integer"))
}

/// An integer that fits type `T`.
fn num<T: TryFrom<i64>>(v: &Value, at: &str) -> R<T> {
    let n = int(v, at)?;
    T::try_from(n).map_err(|_| TextError::new(at, format!("{n} is out of range")))
}

fn field<T: TryFrom<i64>>(o: &Obj, k: &str, at: &str) -> R<T> {
    num(key(o, k, at)?, &format!("{at}.{k}"))
}

/// An optional integer field.
fn opt<T: TryFrom<i64>>(o: &Obj, k: &str, at: &str) -> R<Option<T>> {
    o.get(k).map(|v| num(v, &format!("{at}.{k}"))).transpose()
}

fn text(v: &Value, at: &str) -> R<Str> {
    v.as_str()
        .map(Str::from)
        .ok_or_else(|| TextError::new(at, "expected a string"))
}

fn text_field(o: &Obj, k: &str, at: &str) -> R<Str> {
    text(key(o, k, at)?, &format!("{at}.{k}"))
}

/// An f32: a number, or `"f32:xxxxxxxx"` (its bits).
fn f32v(v: &Value, at: &str) -> R<f32> {
    if let Some(s) = v.as_str().and_then(|s| s.strip_prefix("f32:")) {
        return u32::from_str_radix(s, 16)
            .map(f32::from_bits)
            .map_err(|_| TextError::new(at, "expected f32:<8 hex digits>"));
    }
    v.as_f64()
        .map(|f| f as f32)
        .ok_or_else(|| TextError::new(at, "expected a number"))
}

fn vec3(v: &Value, at: &str) -> R<[f32; 3]> {
    let a = arr(v, at)?;
    if a.len() != 3 {
        return Err(TextError::new(at, "expected three numbers"));
    }
    Ok([f32v(&a[0], at)?, f32v(&a[1], at)?, f32v(&a[2], at)?])
}

/// A u32 shown as a bool when it is 0 or 1.
fn bool_word(v: &Value, at: &str) -> R<u32> {
    match v {
        Value::Bool(b) => Ok(u32::from(*b)),
        Value::Number(_) => num(v, at),
        v => Err(TextError::new(
            at,
            format!("expected true, false or an integer, found {v}"),
        )),
    }
}

/// A 4-byte default shown by type: a bool, a float or an int.
fn typed_bits(v: &Value, at: &str) -> R<u32> {
    match v {
        Value::Bool(b) => Ok(u32::from(*b)),
        Value::Number(n) if n.is_f64() => Ok(f32v(v, at)?.to_bits()),
        Value::String(_) => Ok(f32v(v, at)?.to_bits()),
        v => Ok(num::<i64>(v, at)? as u32),
    }
}

fn unhex(s: &str, at: &str) -> R<Vec<u8>> {
    if s.len() % 2 != 0 {
        return Err(TextError::new(at, "expected pairs of hex digits"));
    }
    (0..s.len() / 2)
        .map(|i| {
            u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                .map_err(|_| TextError::new(at, "expected hex digits"))
        })
        .collect()
}

fn pair<A: TryFrom<i64>, B: TryFrom<i64>>(v: &Value, at: &str) -> R<(A, B)> {
    let a = arr(v, at)?;
    if a.len() != 2 {
        return Err(TextError::new(at, "expected two numbers"));
    }
    Ok((num(&a[0], at)?, num(&a[1], at)?))
}

/// A parameter's flag word from its dt fields, or `$Flag Word`.
fn flags(o: &Obj, at: &str) -> R<ParamFlags> {
    if let Some(w) = o.get("$Flag Word") {
        return Ok(ParamFlags {
            word: ParamFlagsWord::from_word(u64::from(num::<u32>(w, at)?)),
        });
    }
    let names: Vec<&str> = match o.get("Flags") {
        Some(v) => arr(v, at)?.iter().filter_map(Value::as_str).collect(),
        None => Vec::new(),
    };
    let comp = match o.get("Vector Component").and_then(Value::as_str) {
        Some("X") => 1,
        Some("Y") => 2,
        Some("Z") => 3,
        _ => 0,
    };
    let expression = opt::<u16>(o, "Expression Index", at)?;
    let blackboard = opt::<u16>(o, "Blackboard Index", at)?.map(|i| (i, comp));
    Ok(ParamFlags {
        word: ParamFlagsWord::from_word(u64::from(dt_flag_word(
            names.contains(&"Uses Default"),
            names.contains(&"Is Output"),
            expression,
            blackboard,
        ))),
    })
}

#[derive(Default)]
struct Read {
    /// The query-flagged nodes, by position among them.
    query_nodes: Vec<usize>,
    multi: Multi,
    /// Attachment uses read so far: without `Attachment Indices`, each use
    /// is an entry of its own, numbered in node order.
    attachment_uses: u32,
}

impl Read {
    fn file(&mut self, top: &Obj) -> R<File> {
        let version: u32 = field(top, "Version", "")?;
        if crate::ainb::variant_of(version).is_none() {
            return Err(TextError::new(
                "Version",
                format!("unsupported version 0x{version:x} (0x404, 0x407, 0x408)"),
            ));
        }
        let mut f = File::new(
            version,
            &text_field(top, "Filename", "")?,
            &text_field(top, "Category", "")?,
        );
        f.blackboard_ids.id = field(top, "Blackboard ID", "")?;
        f.blackboard_ids.parent = field(top, "Parent Blackboard ID", "")?;
        let empty = Map::new();
        let codec = match top.get("$codec") {
            Some(v) => obj(v, "$codec")?,
            None => &empty,
        };
        for (i, c) in arr(key(top, "Commands", "")?, "Commands")?
            .iter()
            .enumerate()
        {
            f.commands.push(command(
                obj(c, &format!("Commands[{i}]"))?,
                &format!("Commands[{i}]"),
            )?);
        }
        let nodes = arr(key(top, "Nodes", "")?, "Nodes")?;
        // Which nodes are queries decides what query entries hold.
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("Nodes[{i}]");
            let (fl, _) = node_flags(obj(n, &at)?, &at)?;
            if fl.query {
                self.query_nodes.push(i);
            }
        }
        let mut attachments: Vec<Option<Attachment>> = Vec::new();
        let mut node_atts: Vec<Vec<(u32, &Obj)>> = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("Nodes[{i}]");
            let (node, atts) = self.node(&mut f, obj(n, &at)?, &at)?;
            f.nodes.push(node);
            node_atts.push(atts);
        }
        // The table as stored, when it holds sources no input uses.
        let stored = match codec.get("Multi Sources") {
            Some(list) => {
                let mut table = Vec::new();
                for (i, s) in arr(list, "$codec.Multi Sources")?.iter().enumerate() {
                    let at = format!("$codec.Multi Sources[{i}]");
                    let s = obj(s, &at)?;
                    table.push(Source {
                        node: field(s, "Node Index", &at)?,
                        output: field(s, "Output Index", &at)?,
                        flags: flags(s, &at)?,
                    });
                }
                Some(table)
            }
            None => None,
        };
        std::mem::take(&mut self.multi).finish(&mut f, stored)?;
        // Plugs last: a plug's layout may depend on the node's parameters.
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("Nodes[{i}]");
            let plugs = self.plugs(&f, i, obj(n, &at)?, &at)?;
            f.nodes[i].params.plugs = plugs;
        }
        // The attachment table: as stored, or each entry where a node names it.
        if let Some(t) = codec.get("Attachments") {
            for (i, a) in arr(t, "$codec.Attachments")?.iter().enumerate() {
                let at = format!("$codec.Attachments[{i}]");
                attachments.push(Some(self.attachment(&mut f, obj(a, &at)?, &at)?));
            }
        } else {
            for (i, atts) in node_atts.iter().enumerate() {
                for (j, &(id, a)) in atts.iter().enumerate() {
                    let id = id as usize;
                    if attachments.len() <= id {
                        attachments.resize(id + 1, None);
                    }
                    if attachments[id].is_none() {
                        let at = format!("Nodes[{i}].Attachments[{j}]");
                        attachments[id] = Some(self.attachment(&mut f, a, &at)?);
                    }
                }
            }
        }
        f.attachments = attachments
            .into_iter()
            .enumerate()
            .map(|(i, a)| {
                a.ok_or_else(|| {
                    TextError::new("$codec.Attachments", format!("no node uses attachment {i}"))
                })
            })
            .collect::<R<_>>()?;
        f.attachment_ids = match codec.get("Attachment IDs") {
            Some(v) => arr(v, "$codec.Attachment IDs")?
                .iter()
                .map(|x| num(x, "$codec.Attachment IDs"))
                .collect::<R<_>>()?,
            None => node_atts.iter().flatten().map(|&(id, _)| id).collect(),
        };
        self.queries(&mut f, nodes, codec)?;
        self.actions(&mut f, nodes, codec)?;
        self.blackboard(&mut f, top, codec)?;
        if let Some(e) = top.get("Expressions") {
            if !obj(e, "Expressions")?.is_empty() {
                let x = codec
                    .get("Expressions")
                    .map(|v| obj(v, "$codec.Expressions"))
                    .transpose()?;
                f.exb = Some(exb(obj(e, "Expressions")?, x)?);
            }
        }
        self.replacement(&mut f, top, codec)?;
        for (i, m) in arr(key(top, "Modules", "")?, "Modules")?.iter().enumerate() {
            let at = format!("Modules[{i}]");
            let m = obj(m, &at)?;
            f.modules.push(Module {
                path: text_field(m, "Path", &at)?,
                category: text_field(m, "Category", &at)?,
                instance_count: field(m, "Instance Count", &at)?,
            });
        }
        if let Some(x) = top.get("Unknown Section 0x58") {
            let x = obj(x, "Unknown Section 0x58")?;
            if !x.is_empty() {
                let at = "Unknown Section 0x58";
                f.x58 = Some(X58 {
                    description: text_field(x, "Description", at)?,
                    unknown_0x04: field(x, "Unknown 04", at)?,
                    unknown_0x08: field(x, "Unknown 08", at)?,
                    unknown_0x0c: field(x, "Unknown 0C", at)?,
                });
            }
        }
        let has_6c = top
            .get("Has Section 0x6C")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        f.x6c = has_6c
            .then(|| opt::<u32>(codec, "0x6C Word", "$codec"))
            .transpose()?
            .map(|v| v.unwrap_or(0));
        self.header(&mut f, codec)?;
        if let Some(n) = codec.get("Null Offsets") {
            let names: Vec<String> = arr(n, "$codec.Null Offsets")?
                .iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect();
            super::set_null_tables(&mut f, &names)?;
        }
        Ok(f)
    }

    /// The header's counts and words: stored, or derived.
    fn header(&self, f: &mut File, codec: &Obj) -> R<()> {
        let at = "$codec";
        f.query_count = opt(codec, "Query Count", at)?.unwrap_or(self.query_nodes.len() as u32);
        f.output_count = opt(codec, "Output Count", at)?.unwrap_or(
            f.nodes
                .iter()
                .filter(|n| (200..300).contains(&n.r#type))
                .count() as u32,
        );
        if let Some(c) = opt(codec, "Category ID", at)? {
            f.category_id = c;
        }
        f.reserved_0x54 = opt(codec, "Unknown 0x54", at)?.unwrap_or(0);
        f.unknown_0x48 = opt(codec, "Unknown 0x48", at)?.unwrap_or(0);
        if let Some(pool) = string_pool(codec, "$codec")? {
            f.string_pool = pool;
        }
        if let Some(t) = codec.get("Transitions") {
            for (i, t) in arr(t, "$codec.Transitions")?.iter().enumerate() {
                let at = format!("$codec.Transitions[{i}]");
                let t = obj(t, &at)?;
                let mut flags: u32 = field(t, "Transition Type", &at)?;
                if key(t, "Update Post Calc", &at)?.as_bool() == Some(true) {
                    flags |= 0x8000_0000;
                }
                if let Some(w) = opt(t, "$Flag Word", &at)? {
                    flags = w;
                }
                let body = match t.get("Transition Name") {
                    Some(n) => Transition::Command(CommandTransition {
                        flags,
                        command: text(n, &at)?,
                    }),
                    None => Transition::Plain(flags),
                };
                f.transitions.push(TransitionSlot { body });
            }
        }
        if let Some(e) = codec.get("Enum Relocations") {
            for (i, e) in arr(e, "$codec.Enum Relocations")?.iter().enumerate() {
                let at = format!("$codec.Enum Relocations[{i}]");
                let e = obj(e, &at)?;
                f.enum_relocs.push(EnumReloc {
                    offset: field(e, "Offset", &at)?,
                    class: text_field(e, "Class", &at)?,
                    value: text_field(e, "Value", &at)?,
                });
            }
        }
        Ok(())
    }

    fn node<'v>(&mut self, f: &mut File, o: &'v Obj, at: &str) -> R<(Node, Vec<(u32, &'v Obj)>)> {
        let empty = Map::new();
        let c = match o.get("$codec") {
            Some(v) => obj(v, &format!("{at}.$codec"))?,
            None => &empty,
        };
        let cat = format!("{at}.$codec");
        let ty = match key(o, "Node Type", at)? {
            Value::String(s) => node_type_of(s).ok_or_else(|| {
                TextError::new(
                    format!("{at}.Node Type"),
                    format!("unknown node type `{s}`"),
                )
            })?,
            v => num(v, &format!("{at}.Node Type"))?,
        };
        let name = text_field(o, "Name", at)?;
        let guid = key(o, "GUID", at)?
            .as_str()
            .and_then(guid_bytes)
            .ok_or_else(|| {
                TextError::new(
                    format!("{at}.GUID"),
                    "expected a GUID (8-4-4-4-12 hex digits)",
                )
            })?;
        let (flags, _) = node_flags(o, at)?;
        let mut n = blank_node(ty, &name, guid, flags);
        n.index = field(o, "Node Index", at)?;
        n.name_hash = opt(c, "Name Hash", &cat)?.unwrap_or_else(|| murmur3(name.as_bytes()));
        n.reserved_0x07 = opt(c, "Unknown 07", &cat)?.unwrap_or(0);
        n.reserved_0x10 = opt(c, "Unknown 10", &cat)?.unwrap_or(0);
        n.reserved_0x1e = opt(c, "Unknown 1E", &cat)?.unwrap_or(0);
        n.reserved_0x28 = opt(c, "Unknown 28", &cat)?.unwrap_or(0);
        if let Some(t) = c.get("Param Tail") {
            n.params.unknown_tail =
                unhex(t.as_str().unwrap_or_default(), &format!("{cat}.Param Tail"))?.into();
        }
        if let Some(s) = o.get("State Info") {
            let sat = format!("{at}.State Info");
            let s = obj(s, &sat)?;
            n.state_info = Some(StateInfo {
                desired_state: text_field(s, "Desired State", &sat)?,
                unknown_0x04: field(s, "Unknown 04", &sat)?,
                unknown_0x08: field(s, "Unknown 08", &sat)?,
                unknown_0x0c: field(s, "Unknown 0C", &sat)?,
                unknown_0x10: field(s, "Unknown 10", &sat)?,
            });
        }
        self.properties(
            f,
            key(o, "Properties", at)?,
            &format!("{at}.Properties"),
            &mut n.params.properties,
        )?;
        let multi = self.parameters(
            f,
            key(o, "Parameters", at)?,
            &format!("{at}.Parameters"),
            &mut n.params.io,
        )?;
        n.multi_count = opt(c, "Multi Count", &cat)?.unwrap_or(multi.0);
        n.expression_count = opt(c, "Expression Count", &cat)?.unwrap_or(multi.1);
        n.expression_io_size = opt(c, "Expression IO Size", &cat)?.unwrap_or(0);
        // Queries: the window as stored, or the node's own entries in order.
        match c.get("Query Window") {
            Some(v) => (n.query_base, n.query_count) = pair(v, &format!("{cat}.Query Window"))?,
            None => {
                n.query_base = 0;
                n.query_count = arr(key(o, "Queries", at)?, at)?.len() as u16;
            }
        }
        // Attachments: by the index the node gives, or one entry per use.
        let list = arr(key(o, "Attachments", at)?, at)?;
        let ids: Vec<u32> = match c.get("Attachment Indices") {
            Some(v) => arr(v, &cat)?
                .iter()
                .map(|x| num(x, &cat))
                .collect::<R<_>>()?,
            None => (0..list.len() as u32)
                .map(|i| i + self.attachment_uses)
                .collect(),
        };
        let uses_before = self.attachment_uses;
        self.attachment_uses += list.len() as u32;
        if ids.len() != list.len() {
            return Err(TextError::new(
                format!("{cat}.Attachment Indices"),
                format!("{} indices for {} attachments", ids.len(), list.len()),
            ));
        }
        match c.get("Attachment Window") {
            Some(v) => {
                (n.attachment_base, n.attachment_count) = {
                    let (b, k): (u32, u32) = pair(v, &format!("{cat}.Attachment Window"))?;
                    (
                        b,
                        u16::try_from(k)
                            .map_err(|_| TextError::new(&cat, "attachment count out of range"))?,
                    )
                }
            }
            // The node's uses follow the earlier nodes' in the id table.
            None => {
                n.attachment_base = uses_before;
                n.attachment_count = list.len() as u16;
            }
        }
        let mut atts = Vec::with_capacity(list.len());
        for (j, (a, id)) in list.iter().zip(ids).enumerate() {
            atts.push((id, obj(a, &format!("{at}.Attachments[{j}]"))?));
        }
        Ok((n, atts))
    }

    fn attachment(&self, f: &mut File, o: &Obj, at: &str) -> R<Attachment> {
        let name = text_field(o, "Name", at)?;
        let mut windows = std::array::from_fn(|_| Window { base: 0, count: 0 });
        self.properties(
            f,
            key(o, "Properties", at)?,
            &format!("{at}.Properties"),
            &mut windows,
        )?;
        // The first halves of the (0, end of the block) pairs; the ends are
        // derived. "Ends" is the form of texts written before they were:
        // (base, end) pairs, the ends not read.
        let base = |i: usize| -> R<u32> {
            if let Some(v) = o
                .get("End Bases")
                .and_then(Value::as_array)
                .and_then(|a| a.get(i))
            {
                return num(v, &format!("{at}.End Bases[{i}]"));
            }
            match o
                .get("Ends")
                .and_then(Value::as_array)
                .and_then(|a| a.get(i))
            {
                Some(v) => Ok(pair::<u32, u32>(v, &format!("{at}.Ends"))?.0),
                None => Ok(0),
            }
        };
        Ok(Attachment {
            name_hash: opt(o, "Name Hash", at)?.unwrap_or_else(|| murmur3(name.as_bytes())),
            name,
            params: AttachmentParams {
                unknown_0x00: opt(o, "Debug", at)?.unwrap_or(0),
                properties: windows,
                end_base_0: base(0)?,
                end_base_1: base(1)?,
                end_base_2: base(2)?,
                end_base_3: base(3)?,
                end_base_4: base(4)?,
                end_base_5: base(5)?,
            },
            expression_count: opt(o, "Expression Count", at)?.unwrap_or(0),
            expression_io_size: opt(o, "Expression IO Size", at)?.unwrap_or(0),
        })
    }

    /// A node's or an attachment's properties, appended to the tables; the
    /// windows say where they went.
    fn properties(&self, f: &mut File, v: &Value, at: &str, w: &mut [Window; 6]) -> R<()> {
        let o = obj(v, at)?;
        let p = &mut f.properties;
        for (k, tname) in PARAM_TYPES.iter().enumerate() {
            let items = match o.get(*tname) {
                Some(v) => arr(v, at)?.as_slice(),
                None => &[],
            };
            let table_len = match k {
                0 => p.int.get_or_insert_with(Vec::new).len(),
                1 => p.bool.get_or_insert_with(Vec::new).len(),
                2 => p.float.get_or_insert_with(Vec::new).len(),
                3 => p.string.get_or_insert_with(Vec::new).len(),
                4 => p.vec3.get_or_insert_with(Vec::new).len(),
                _ => p.pointer.get_or_insert_with(Vec::new).len(),
            };
            w[k] = Window {
                base: table_len as u32,
                count: items.len() as u32,
            };
            for (i, e) in items.iter().enumerate() {
                let eat = format!("{at}.{tname}[{i}]");
                let e = obj(e, &eat)?;
                let name = text_field(e, "Name", &eat)?;
                let flags = flags(e, &eat)?;
                let dv = key(e, "Default Value", &eat)?;
                let dat = format!("{eat}.Default Value");
                match k {
                    0 => p.int.as_mut().unwrap().push(IntProperty {
                        name,
                        flags,
                        value: num(dv, &dat)?,
                    }),
                    1 => p.bool.as_mut().unwrap().push(BoolProperty {
                        name,
                        flags,
                        value: bool_word(dv, &dat)?,
                    }),
                    2 => p.float.as_mut().unwrap().push(FloatProperty {
                        name,
                        flags,
                        value: f32v(dv, &dat)?,
                    }),
                    3 => p.string.as_mut().unwrap().push(StringProperty {
                        name,
                        flags,
                        value: text(dv, &dat)?,
                    }),
                    4 => p.vec3.as_mut().unwrap().push(Vec3Property {
                        name,
                        flags,
                        value: vec3(dv, &dat)?,
                    }),
                    _ => p.pointer.as_mut().unwrap().push(PointerProperty {
                        name,
                        class: text_field(e, "Classname", &eat)?,
                        flags,
                    }),
                }
            }
        }
        Ok(())
    }

    /// A node's inputs and outputs, appended to the tables (multi-input
    /// sources to the multi table); returns the number of multi sources and
    /// of expression-fed values.
    fn parameters(
        &mut self,
        f: &mut File,
        v: &Value,
        at: &str,
        w: &mut [IoWindow; 6],
    ) -> R<(u16, u16)> {
        let o = obj(v, at)?;
        let empty = Map::new();
        let inputs = o
            .get("Inputs")
            .map(|v| obj(v, &format!("{at}.Inputs")))
            .transpose()?
            .unwrap_or(&empty);
        let outputs = o
            .get("Outputs")
            .map(|v| obj(v, &format!("{at}.Outputs")))
            .transpose()?
            .unwrap_or(&empty);
        let (mut multi, mut expressions) = (0u16, 0u16);
        for (k, tname) in PARAM_TYPES.iter().enumerate() {
            let items = match inputs.get(*tname) {
                Some(v) => arr(v, at)?.as_slice(),
                None => &[],
            };
            let io = &mut f.io;
            let base = match k {
                0 => io.int_inputs.get_or_insert_with(Vec::new).len(),
                1 => io.bool_inputs.get_or_insert_with(Vec::new).len(),
                2 => io.float_inputs.get_or_insert_with(Vec::new).len(),
                3 => io.string_inputs.get_or_insert_with(Vec::new).len(),
                4 => io.vec3_inputs.get_or_insert_with(Vec::new).len(),
                _ => io.pointer_inputs.get_or_insert_with(Vec::new).len(),
            };
            w[k].input_base = base as u32;
            w[k].input_count = items.len() as u32;
            for (i, e) in items.iter().enumerate() {
                let eat = format!("{at}.Inputs.{tname}[{i}]");
                let e = obj(e, &eat)?;
                let name = text_field(e, "Name", &eat)?;
                let (source, m, x) = source(&mut self.multi, k, base + i, e, &eat)?;
                multi += m;
                expressions += x;
                let dv = key(e, "Default Value", &eat)?;
                let dat = format!("{eat}.Default Value");
                let io = &mut f.io;
                match k {
                    0 => io.int_inputs.as_mut().unwrap().push(IntInput {
                        name,
                        source,
                        value: num(dv, &dat)?,
                    }),
                    1 => io.bool_inputs.as_mut().unwrap().push(BoolInput {
                        name,
                        source,
                        value: bool_word(dv, &dat)?,
                    }),
                    2 => io.float_inputs.as_mut().unwrap().push(FloatInput {
                        name,
                        source,
                        value: f32v(dv, &dat)?,
                    }),
                    3 => io.string_inputs.as_mut().unwrap().push(StringInput {
                        name,
                        source,
                        value: text(dv, &dat)?,
                    }),
                    4 => io.vec3_inputs.as_mut().unwrap().push(Vec3Input {
                        name,
                        source,
                        value: vec3(dv, &dat)?,
                    }),
                    _ => io.pointer_inputs.as_mut().unwrap().push(PointerInput {
                        name,
                        class: text_field(e, "Classname", &eat)?,
                        source,
                        value: if dv.is_null() { 0 } else { num(dv, &dat)? },
                    }),
                }
            }
            let items = match outputs.get(*tname) {
                Some(v) => arr(v, at)?.as_slice(),
                None => &[],
            };
            let io = &mut f.io;
            let base = match k {
                0 => io.int_outputs.get_or_insert_with(Vec::new).len(),
                1 => io.bool_outputs.get_or_insert_with(Vec::new).len(),
                2 => io.float_outputs.get_or_insert_with(Vec::new).len(),
                3 => io.string_outputs.get_or_insert_with(Vec::new).len(),
                4 => io.vec3_outputs.get_or_insert_with(Vec::new).len(),
                _ => io.pointer_outputs.get_or_insert_with(Vec::new).len(),
            };
            w[k].output_base = base as u32;
            w[k].output_count = items.len() as u32;
            for (i, e) in items.iter().enumerate() {
                let eat = format!("{at}.Outputs.{tname}[{i}]");
                let e = obj(e, &eat)?;
                let name = text_field(e, "Name", &eat)?;
                let connected = key(e, "Is Output", &eat)?.as_bool().unwrap_or(false);
                let bit30 = e.get("$Bit 30").and_then(Value::as_bool).unwrap_or(false);
                match k {
                    0..=4 => {
                        let out = Output {
                            word: OutputWord {
                                name,
                                reserved_30: bit30,
                                connected,
                            },
                        };
                        let table = match k {
                            0 => &mut io.int_outputs,
                            1 => &mut io.bool_outputs,
                            2 => &mut io.float_outputs,
                            3 => &mut io.string_outputs,
                            _ => &mut io.vec3_outputs,
                        };
                        table.as_mut().unwrap().push(out);
                    }
                    _ => io.pointer_outputs.as_mut().unwrap().push(PointerOutput {
                        word: PointerOutputWord {
                            name,
                            reserved_30: bit30,
                            connected,
                        },
                        class: text_field(e, "Classname", &eat)?,
                    }),
                }
            }
        }
        Ok((multi, expressions))
    }

    fn plugs(&self, f: &File, ni: usize, o: &Obj, at: &str) -> R<[Vec<PlugSlot>; 10]> {
        let n = &f.nodes[ni];
        let mut out: [Vec<PlugSlot>; 10] = Default::default();
        let plugs = obj(key(o, "Plugs", at)?, &format!("{at}.Plugs"))?;
        for (g, gname) in PLUG_GROUPS.iter().enumerate() {
            let Some(v) = plugs.get(*gname) else { continue };
            let items = arr(v, &format!("{at}.Plugs.{gname}"))?;
            for (i, p) in items.iter().enumerate() {
                let pat = format!("{at}.Plugs.{gname}[{i}]");
                let p = obj(p, &pat)?;
                let last = i + 1 == items.len();
                let name = p.get("Name").and_then(Value::as_str);
                let layout = match p.get("$Layout").and_then(Value::as_str) {
                    Some(l) => Plug::tag_of(l).ok_or_else(|| {
                        TextError::new(format!("{pat}.$Layout"), format!("unknown layout `{l}`"))
                    })?,
                    None => super::layout_of(f, n, g, last, name),
                };
                out[g].push(PlugSlot {
                    body: plug_body(n.r#type, layout, last, p, &pat)?,
                });
            }
        }
        Ok(out)
    }

    fn queries(&self, f: &mut File, nodes: &[Value], codec: &Obj) -> R<()> {
        if let Some(q) = codec.get("Queries") {
            for v in arr(q, "$codec.Queries")? {
                let (node, reserved_0x02) = pair(v, "$codec.Queries")?;
                f.queries.push(Query {
                    node,
                    reserved_0x02,
                });
            }
            return Ok(());
        }
        // Derived: each node's queries in node order, as indices among the
        // query nodes; the windows follow each other.
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("Nodes[{i}].Queries");
            let list = arr(key(obj(n, &at)?, "Queries", &at)?, &at)?;
            let base = f.queries.len();
            for q in list {
                let node: usize = num(q, &at)?;
                let k = self
                    .query_nodes
                    .iter()
                    .position(|&x| x == node)
                    .ok_or_else(|| {
                        TextError::new(
                            &at,
                            format!("node {node} is not a query (its flags lack `Is Query`)"),
                        )
                    })?;
                f.queries.push(Query {
                    node: k as u16,
                    reserved_0x02: 0,
                });
            }
            let has_window = obj(n, &at)?
                .get("$codec")
                .and_then(|c| c.get("Query Window"))
                .is_some();
            if !has_window {
                f.nodes[i].query_base = if list.is_empty() { 0 } else { base as u16 };
            }
        }
        Ok(())
    }

    fn actions(&self, f: &mut File, nodes: &[Value], codec: &Obj) -> R<()> {
        let action = |a: &Value, node: i32, at: &str| -> R<Action> {
            let a = obj(a, at)?;
            Ok(Action {
                node: opt(a, "Node Index", at)?.unwrap_or(node),
                slot: text_field(a, "Action Slot", at)?,
                action: text_field(a, "Action", at)?,
            })
        };
        if let Some(list) = codec.get("XLink Actions") {
            for (i, a) in arr(list, "$codec.XLink Actions")?.iter().enumerate() {
                f.actions
                    .push(action(a, -1, &format!("$codec.XLink Actions[{i}]"))?);
            }
            return Ok(());
        }
        for (i, n) in nodes.iter().enumerate() {
            let at = format!("Nodes[{i}]");
            let o = obj(n, &at)?;
            if let Some(list) = o.get("XLink Actions") {
                for (j, a) in arr(list, &at)?.iter().enumerate() {
                    f.actions.push(action(
                        a,
                        i32::from(f.nodes[i].index),
                        &format!("{at}.XLink Actions[{j}]"),
                    )?);
                }
            }
        }
        Ok(())
    }

    fn blackboard(&self, f: &mut File, top: &Obj, codec: &Obj) -> R<()> {
        let o = obj(key(top, "Blackboard", "")?, "Blackboard")?;
        let u32_type = f.version >= 0x408;
        let types: Vec<&str> = ["String", "S32", "U32", "F32", "Bool", "Vec3f", "VoidPtr"]
            .into_iter()
            .filter(|t| u32_type || *t != "U32")
            .collect();
        let bb = &mut f.blackboard;
        let mut paths: Vec<Str> = Vec::new();
        let mut counts = Vec::new();
        for t in &types {
            let items = match o.get(*t) {
                Some(v) => arr(v, &format!("Blackboard.{t}"))?.as_slice(),
                None => &[],
            };
            counts.push(items.len());
            for (i, e) in items.iter().enumerate() {
                let at = format!("Blackboard.{t}[{i}]");
                let e = obj(e, &at)?;
                let file = e.get("Source File").map(|s| text(s, &at)).transpose()?;
                let file_ref = match &file {
                    Some(p) => match paths.iter().position(|x| x == p) {
                        Some(k) => k,
                        None => {
                            paths.push(p.clone());
                            paths.len() - 1
                        }
                    },
                    None => 0,
                };
                // As stored, when it is not the path's first use.
                let (has_file_ref, file_ref) = match e.get("$File Reference") {
                    Some(v) => {
                        let a = arr(v, &format!("{at}.$File Reference"))?;
                        let has = a.first().and_then(Value::as_bool).unwrap_or(false);
                        let index: usize = num(
                            a.get(1).unwrap_or(&Value::Null),
                            &format!("{at}.$File Reference"),
                        )?;
                        (has, index)
                    }
                    None => (file.is_some(), file_ref),
                };
                bb.entries.push(BbEntry {
                    word: BbEntryWord {
                        name: text_field(e, "Name", &at)?,
                        inherit: match e.get("Inherit Mode") {
                            Some(v) => number_of(&INHERIT_MODES, 0, v)
                                .and_then(|n| u8::try_from(n).ok())
                                .ok_or_else(|| {
                                    TextError::new(
                                        format!("{at}.Inherit Mode"),
                                        "unknown inheritance mode",
                                    )
                                })?,
                            None => 0,
                        },
                        file_ref: u8::try_from(file_ref)
                            .map_err(|_| TextError::new(&at, "too many file references"))?,
                        has_file_ref,
                    },
                    notes: text_field(e, "Notes", &at)?,
                });
                let dv = key(e, "Default Value", &at)?;
                let dat = format!("{at}.Default Value");
                match *t {
                    "String" => bb.string_values.push(text(dv, &dat)?),
                    "S32" => bb.s32_values.push(num(dv, &dat)?),
                    "U32" => bb.u32_values.push(num(dv, &dat)?),
                    "F32" => bb.f32_values.push(f32v(dv, &dat)?),
                    "Bool" => bb.bool_values.push(bool_word(dv, &dat)?),
                    "Vec3f" => bb.vec3_values.push(vec3(dv, &dat)?),
                    _ => {}
                }
            }
        }
        let bc = codec
            .get("Blackboard")
            .map(|v| obj(v, "$codec.Blackboard"))
            .transpose()?;
        // Headers: as stored, or (count, first index, value offset).
        let heads: Vec<[u16; 4]> = match bc.and_then(|b| b.get("Headers")) {
            Some(h) => arr(h, "$codec.Blackboard.Headers")?
                .iter()
                .map(|x| {
                    let a = arr(x, "$codec.Blackboard.Headers")?;
                    let n = |i: usize| {
                        a.get(i)
                            .map_or(Ok(0), |v| num(v, "$codec.Blackboard.Headers"))
                    };
                    Ok([n(0)?, n(1)?, n(2)?, n(3)?])
                })
                .collect::<R<_>>()?,
            None => {
                let (mut first, mut offset) = (0u16, 0u16);
                types
                    .iter()
                    .zip(&counts)
                    .map(|(t, &c)| {
                        let h = [c as u16, first, offset, 0];
                        first += c as u16;
                        offset += c as u16
                            * match *t {
                                "Vec3f" => 12,
                                "VoidPtr" => 0,
                                _ => 4,
                            };
                        h
                    })
                    .collect()
            }
        };
        if heads.len() != types.len() {
            return Err(TextError::new(
                "$codec.Blackboard.Headers",
                format!("expected {} headers", types.len()),
            ));
        }
        let h = |x: [u16; 4]| BbHeader {
            count: x[0],
            first: x[1],
            value_offset: x[2],
            reserved_0x06: x[3],
        };
        let mut it = heads.into_iter();
        bb.string_header = h(it.next().unwrap_or_default());
        bb.s32_header = h(it.next().unwrap_or_default());
        if u32_type {
            let x = it.next().unwrap_or_default();
            (
                bb.u32_count,
                bb.u32_first,
                bb.u32_value_offset,
                bb.unknown_u32_0x06,
            ) = (x[0], x[1], x[2], x[3]);
        }
        bb.f32_header = h(it.next().unwrap_or_default());
        bb.bool_header = h(it.next().unwrap_or_default());
        bb.vec3_header = h(it.next().unwrap_or_default());
        bb.pointer_header = h(it.next().unwrap_or_default());
        // File references: as stored, or each path with its hashes.
        match bc.and_then(|b| b.get("File References")) {
            Some(r) => {
                for (i, x) in arr(r, "$codec.Blackboard.File References")?
                    .iter()
                    .enumerate()
                {
                    let at = format!("$codec.Blackboard.File References[{i}]");
                    let x = obj(x, &at)?;
                    bb.file_refs.push(FileRef {
                        path: text_field(x, "Path", &at)?,
                        path_hash: field(x, "Path Hash", &at)?,
                        stem_hash: field(x, "Stem Hash", &at)?,
                        extension_hash: field(x, "Extension Hash", &at)?,
                    });
                }
            }
            None => {
                for p in paths {
                    let file = p.rsplit('/').next().unwrap_or(&p);
                    let (stem, ext) = file.rsplit_once('.').unwrap_or((file, ""));
                    bb.file_refs.push(FileRef {
                        path_hash: murmur3(p.as_bytes()),
                        stem_hash: murmur3(stem.as_bytes()),
                        extension_hash: murmur3(ext.as_bytes()),
                        path: p,
                    });
                }
            }
        }
        Ok(())
    }

    fn replacement(&self, f: &mut File, top: &Obj, codec: &Obj) -> R<()> {
        let list = match (top.get("Replacement Table"), codec.get("Replacement Table")) {
            (Some(v), _) | (None, Some(v)) => arr(v, "Replacement Table")?.as_slice(),
            _ => &[],
        };
        let r = &mut f.replacement;
        for (i, e) in list.iter().enumerate() {
            let at = format!("Replacement Table[{i}]");
            let e = obj(e, &at)?;
            let ty = number_of(&REPLACEMENTS, 0, key(e, "Type", &at)?)
                .ok_or_else(|| TextError::new(format!("{at}.Type"), "unknown replacement type"))?;
            r.entries.push(Replacement {
                r#type: u8::try_from(ty).map_err(|_| TextError::new(&at, "type out of range"))?,
                unknown_0x01: opt(e, "$Unknown 01", &at)?.unwrap_or(0),
                node: field(e, "Node Index", &at)?,
                target: field(e, "Child Plug Index", &at)?,
                new: match ty {
                    1 => field(e, "Replacement Node Index", &at)?,
                    _ => opt(e, "$New Index", &at)?.unwrap_or(0),
                },
            });
        }
        match codec.get("Replacement Header") {
            Some(h) => {
                let h = obj(h, "$codec.Replacement Header")?;
                let at = "$codec.Replacement Header";
                r.replaced = field(h, "Replaced", at)?;
                r.reserved_0x01 = field(h, "Unknown 01", at)?;
                r.node_count = field(h, "Node Count", at)?;
                r.attachment_count = field(h, "Attachment Count", at)?;
            }
            None => {
                // dt-12345/AINB's rule: -1 without replacements of the kind.
                let nodes = r
                    .entries
                    .iter()
                    .filter(|e| e.r#type != 2)
                    .map(|e| if e.r#type == 0 { 1 } else { 2 })
                    .sum::<i16>();
                let atts = r.entries.iter().filter(|e| e.r#type == 2).count() as i16;
                let has_nodes = r.entries.iter().any(|e| e.r#type != 2);
                r.node_count = if has_nodes {
                    f.nodes.len() as i16 - nodes
                } else {
                    -1
                };
                r.attachment_count = if atts > 0 {
                    f.attachments.len() as i16 - atts
                } else {
                    -1
                };
            }
        }
        Ok(())
    }
}

fn node_flags(o: &Obj, at: &str) -> R<(NodeFlags, u8)> {
    let names: Vec<&str> = arr(key(o, "Flags", at)?, &format!("{at}.Flags"))?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let byte = match o.get("$codec").and_then(|c| c.get("Flags Byte")) {
        Some(v) => num(v, &format!("{at}.$codec.Flags Byte"))?,
        None => NODE_FLAGS
            .iter()
            .enumerate()
            .filter(|(_, n)| names.contains(n))
            .map(|(i, _)| 1u8 << i)
            .sum(),
    };
    Ok((NodeFlags::from_word(u64::from(byte)), byte))
}

/// A node of type `ty` named `name`, with this GUID and these flags, and
/// nothing else set yet.
fn blank_node(ty: u16, name: &str, guid: [u8; 16], flags: NodeFlags) -> Node {
    let mut n = Node::new(ty, name);
    n.guid = guid;
    n.flags = flags;
    n
}

fn command(o: &Obj, at: &str) -> R<Command> {
    Ok(Command {
        name: text_field(o, "Name", at)?,
        guid: key(o, "GUID", at)?
            .as_str()
            .and_then(guid_bytes)
            .ok_or_else(|| TextError::new(format!("{at}.GUID"), "expected a GUID"))?,
        root_node: field(o, "Root Node Index", at)?,
        // The file holds the index plus one in an i16: the JSON's index
        // runs from -32769 to 32766.
        secondary_root: match opt::<i32>(o, "Secondary Root Node Index", at)? {
            Some(i) => i16::try_from(i + 1).map_err(|_| {
                TextError::new(
                    format!("{at}.Secondary Root Node Index"),
                    format!("{i} is out of range (-32769 to 32766: the file holds it plus one in 16 bits)"),
                )
            })?,
            None => 0,
        },
    })
}

/// The multi-input sources as the inputs give them: at the index each
/// names (`$Multi Index`), or (without one) after those, in table order.
#[derive(Default)]
struct Multi {
    placed: std::collections::BTreeMap<usize, Source>,
    /// (input type, input index, sources) of inputs without an index.
    derived: Vec<(usize, usize, Vec<Source>)>,
}

impl Multi {
    /// The multi table; patches the inputs whose sources were placed here.
    /// `stored` is the table as `$codec.Multi Sources` gives it, with the
    /// sources no input covers: the inputs that name their place must then
    /// agree with it, and it may have gaps between them.
    fn finish(self, f: &mut File, stored: Option<Vec<Source>>) -> R<()> {
        let mut table = match stored {
            Some(table) => {
                for (k, s) in &self.placed {
                    if table.get(*k) != Some(s) {
                        return Err(TextError::new(
                            format!("$codec.Multi Sources[{k}]"),
                            "differs from (or lacks) the source an input places there",
                        ));
                    }
                }
                table
            }
            None => {
                let mut table = Vec::with_capacity(self.placed.len());
                for (i, (k, s)) in self.placed.into_iter().enumerate() {
                    if k != i {
                        return Err(TextError::new(
                            "$Multi Index",
                            format!("no input holds multi-input source {i}"),
                        ));
                    }
                    table.push(s);
                }
                table
            }
        };
        let mut derived = self.derived;
        derived.sort_by_key(|&(k, i, _)| (k, i));
        for (k, i, sources) in derived {
            let node = i16::try_from(-100 - table.len() as i64)
                .map_err(|_| TextError::new("$Multi Index", "too many multi-input sources"))?;
            table.extend(sources);
            let io = &mut f.io;
            let src = match k {
                0 => io
                    .int_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
                1 => io
                    .bool_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
                2 => io
                    .float_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
                3 => io
                    .string_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
                4 => io
                    .vec3_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
                _ => io
                    .pointer_inputs
                    .as_mut()
                    .and_then(|v| v.get_mut(i))
                    .map(|x| &mut x.source),
            };
            if let Some(src) = src {
                src.node = node;
            }
        }
        f.multi = table;
        Ok(())
    }
}

/// An input's source (a multi-input's sources go to `multi`; `k`, `index`:
/// the input's type and its index in the table); returns it, its number of
/// multi sources and of expression-fed values.
fn source(multi: &mut Multi, k: usize, index: usize, e: &Obj, at: &str) -> R<(Source, u16, u16)> {
    let own = flags(e, at)?;
    let expr =
        |f: &ParamFlags| u16::from(super::emit::flag_word(&f.word) & 0xc200_0000 == 0xc200_0000);
    if let Some(list) = e.get("Sources") {
        let list = arr(list, &format!("{at}.Sources"))?;
        let mut x = 0;
        let mut sources = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            let sat = format!("{at}.Sources[{i}]");
            let s = obj(s, &sat)?;
            let src = Source {
                node: field(s, "Node Index", &sat)?,
                output: field(s, "Output Index", &sat)?,
                flags: flags(s, &sat)?,
            };
            x += expr(&src.flags);
            sources.push(src);
        }
        let count = sources.len();
        let node = match opt::<usize>(e, "$Multi Index", at)? {
            Some(base) => {
                for (i, src) in sources.into_iter().enumerate() {
                    match multi.placed.get(&(base + i)) {
                        Some(prev) if *prev != src => {
                            return Err(TextError::new(
                                format!("{at}.Sources[{i}]"),
                                format!(
                                    "multi-input source {} is already another source",
                                    base + i
                                ),
                            ))
                        }
                        _ => {
                            multi.placed.insert(base + i, src);
                        }
                    }
                }
                i16::try_from(-100 - base as i64)
                    .map_err(|_| TextError::new(at, "multi index out of range"))?
            }
            None => {
                multi.derived.push((k, index, sources));
                -100
            }
        };
        return Ok((
            Source {
                node,
                output: count as i16,
                flags: own,
            },
            count as u16,
            x,
        ));
    }
    let node: i16 = field(e, "Node Index", at)?;
    let mut output: i16 = field(e, "Output Index", at)?;
    if e.get("Is Set Blackboard").and_then(Value::as_bool) == Some(true) {
        output = (output as u16 | 0x8000) as i16;
    }
    let x = expr(&own);
    Ok((
        Source {
            node,
            output,
            flags: own,
        },
        0,
        x,
    ))
}

/// A plug body of a layout, from dt's fields (and raw `$` words).
fn plug_body(ty: u16, layout: u64, last: bool, p: &Obj, at: &str) -> R<Plug> {
    let node = || field::<i32>(p, "Node Index", at);
    let name = || text_field(p, "Name", at);
    let raw = |k: &str| opt::<u32>(p, k, at);
    Ok(match layout {
        Plug::TAG_LINK => Plug::Link(LinkPlug {
            node: node()?,
            name: name()?,
        }),
        Plug::TAG_TRANSITION => Plug::Transition(TransitionPlug {
            node: node()?,
            transition: field(p, "Transition Index", at)?,
        }),
        Plug::TAG_CASE => {
            let bb_index = opt::<i16>(p, "Blackboard Index", at)?;
            let (word, value) = match ty {
                S32_SELECTOR if p.get("Is Default").and_then(Value::as_bool) == Some(true) => {
                    (0, 0)
                }
                S32_SELECTOR => match bb_index {
                    Some(i) => (
                        0x8000_0000 | u32::from(i as u16),
                        field::<i32>(p, "Default Condition", at)? as u32,
                    ),
                    None => (0, field::<i32>(p, "Condition", at)? as u32),
                },
                RANDOM_SELECTOR => match bb_index {
                    Some(i) => (
                        0x8000_0000 | u32::from(i as u16),
                        f32v(key(p, "Default Weight", at)?, at)?.to_bits(),
                    ),
                    None => (0, f32v(key(p, "Weight", at)?, at)?.to_bits()),
                },
                _ => match opt::<u32>(p, "Child Enum BB Index", at)? {
                    Some(i) => (0x8000_0000 | (i & 0xffff), 0),
                    None => (0, opt(p, "Child Enum Value", at)?.unwrap_or(0)),
                },
            };
            Plug::Case(CasePlug {
                node: node()?,
                name: name()?,
                blackboard: raw("$Blackboard Word")?.unwrap_or(word),
                value: raw("$Value")?.unwrap_or(value),
            })
        }
        Plug::TAG_STRING_CASE => {
            let bb_index = opt::<i16>(p, "Blackboard Index", at)?;
            let (word, value) = if p.get("Is Default").and_then(Value::as_bool) == Some(true) {
                (0, Str::from("その他"))
            } else {
                match bb_index {
                    Some(i) => (
                        0x8000_0000 | u32::from(i as u16),
                        text_field(p, "Default Condition", at)?,
                    ),
                    None => (0, text_field(p, "Condition", at)?),
                }
            };
            Plug::StringCase(StringCasePlug {
                node: node()?,
                name: name()?,
                blackboard: raw("$Blackboard Word")?.unwrap_or(word),
                value,
            })
        }
        Plug::TAG_RANGE_CASE => {
            let bound = |k: &str| -> R<(u32, f32)> {
                if let Some(w) = p.get(&format!("${k} Words")) {
                    let (a, b): (u32, u32) = pair(w, at)?;
                    return Ok((a, f32::from_bits(b)));
                }
                match opt::<i16>(p, &format!("Condition {k} Blackboard Index"), at)? {
                    Some(i) => Ok((0x8000_0000 | u32::from(i as u16), 0.0)),
                    None => match p.get(&format!("Condition {k}")) {
                        Some(v) => Ok((0, f32v(v, at)?)),
                        None => Ok((0, 0.0)),
                    },
                }
            };
            let (min_blackboard, min) = bound("Min")?;
            let (max_blackboard, max) = bound("Max")?;
            let mut reserved = [0u8; 16];
            if let Some(r) = p.get("$Reserved") {
                let b = unhex(r.as_str().unwrap_or_default(), at)?;
                if b.len() != 16 {
                    return Err(TextError::new(at, "$Reserved holds 16 bytes"));
                }
                reserved.copy_from_slice(&b);
            }
            let _ = last;
            Plug::RangeCase(Box::new(RangeCasePlug {
                node: node()?,
                name: name()?,
                min_blackboard,
                min,
                max_blackboard,
                max,
                reserved,
            }))
        }
        Plug::TAG_RANGE_DEFAULT => Plug::RangeDefault(Box::new(RangeDefaultPlug {
            node: node()?,
            name: name()?,
            unknown_0x08: raw("$Unknown 08")?.unwrap_or(0),
            value: match p.get("$Value") {
                Some(v) => text(v, at)?,
                None => Str::from("その他"),
            },
            reserved: match p.get("$Reserved") {
                Some(r) => unhex(r.as_str().unwrap_or_default(), at)?
                    .try_into()
                    .map_err(|_| TextError::new(at, "$Reserved holds 24 bytes"))?,
                None => [0; 24],
            },
        })),
        // dt names the selectors' input plug fields by number.
        Plug::TAG_INPUT => {
            let (unknown, value) = if matches!(ty, BOOL_SELECTOR | F32_SELECTOR) {
                ("Unknown 1", "Unknown 2")
            } else {
                ("Unknown", "Default Value")
            };
            Plug::Input(InputPlug {
                node: node()?,
                name: name()?,
                reserved_0x08: opt(p, unknown, at)?.unwrap_or(0),
                default: match p.get(value) {
                    Some(v) => typed_bits(v, at)?,
                    None => 0,
                },
            })
        }
        Plug::TAG_STRING_INPUT => Plug::StringInput(StringInputPlug {
            node: node()?,
            name: name()?,
            unknown_0x08: opt(p, "Unknown", at)?.unwrap_or(0),
            default: match p.get("Default Value") {
                Some(v) => text(v, at)?,
                None => Str::default(),
            },
        }),
        Plug::TAG_VEC3_INPUT => Plug::Vec3Input(Vec3InputPlug {
            node: node()?,
            name: name()?,
            unknown_0x08: opt(p, "Unknown", at)?.unwrap_or(0),
            // dt's form of an expression node's plug gives the first word
            // as an int; `$Default Value` has the whole vector.
            default: match (p.get("$Default Value"), p.get("Default Value")) {
                (Some(v), _) => vec3(v, at)?,
                (None, Some(v @ Value::Number(_))) => {
                    [f32::from_bits(num::<i64>(v, at)? as u32), 0.0, 0.0]
                }
                (None, Some(v)) => vec3(v, at)?,
                (None, None) => [0.0; 3],
            },
        }),
        _ => Plug::Raw(unhex(key(p, "$Bytes", at)?.as_str().unwrap_or_default(), at)?.into()),
    })
}

/// The EXB from dt's expressions and the `$codec` layout facts.
fn exb(o: &Obj, c: Option<&Obj>) -> R<Exb> {
    let at = "Expressions";
    let version: u32 = field(o, "Version", at)?;
    let list = arr(key(o, "Expressions", at)?, at)?;
    let facts: Vec<&Obj> = match c.and_then(|c| c.get("Expressions")) {
        Some(v) => arr(v, "$codec.Expressions.Expressions")?
            .iter()
            .map(|x| obj(x, "$codec.Expressions"))
            .collect::<R<_>>()?,
        None => Vec::new(),
    };
    let cat = "$codec.Expressions";
    let list_of = |k: &str| -> R<Vec<Value>> {
        Ok(c.and_then(|c| c.get(k))
            .map(|v| arr(v, cat).cloned())
            .transpose()?
            .unwrap_or_default())
    };
    let pool = match c {
        Some(c) => string_pool(c, cat)?.unwrap_or_default(),
        None => StringPool::default(),
    };
    // The tables the instructions' text refers to, as `$codec` gives them
    // (empty without it: the lines then build them, as the library does).
    let tables = exb::Tables::new(
        version,
        list_of("Constants")?
            .iter()
            .map(|s| {
                u32::from_str_radix(s.as_str().unwrap_or_default(), 16)
                    .map_err(|_| TextError::new(cat, "expected 8 hex digits"))
            })
            .collect::<R<_>>()?,
        pool.strings,
        list_of("Signatures")?
            .iter()
            .map(|s| text(s, cat))
            .collect::<R<_>>()?,
    );
    let mut asm = exb::Assembler {
        tables: tables.clone(),
    };
    // Every instruction of the table is given somewhere (the table has no
    // gaps), so it holds at most as many as the JSON gives: an index past
    // that is refused before anything is allocated for it.
    let given = list
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|e| [e.get("Setup"), e.get("Main")])
        .chain([c.and_then(|c| c.get("Instructions"))])
        .flatten()
        .filter_map(Value::as_array)
        .map(Vec::len)
        .sum::<usize>();
    let mut instructions: Vec<Option<Instruction>> = Vec::new();
    let mut place =
        |base: usize, list: &[Value], words: &[(usize, Instruction)], at: &str| -> R<()> {
            for (i, v) in list.iter().enumerate() {
                let iat = format!("{at}[{i}]");
                let ins = match v {
                    // A line of text takes the kept bytes while it still reads
                    // as they do; an edited line is assembled.
                    Value::String(line) => match words.iter().find(|(k, _)| *k == i) {
                        Some((_, raw)) if exb::same_line(line, raw, &tables) => raw.clone(),
                        _ => asm.assemble(line).map_err(|e| TextError::new(&iat, e))?,
                    },
                    v => instruction(obj(v, &iat)?, &iat)?,
                };
                let k = base + i;
                if k >= given {
                    return Err(TextError::new(
                        at,
                        format!(
                            "instruction {k} is past the {given} instruction(s) the JSON gives \
                         (the table has no gaps)"
                        ),
                    ));
                }
                if instructions.len() <= k {
                    instructions.resize(k + 1, None);
                }
                match &instructions[k] {
                    Some(prev) if *prev != ins => {
                        return Err(TextError::new(
                            at,
                            format!("instruction {k} is already another one"),
                        ))
                    }
                    _ => instructions[k] = Some(ins),
                }
            }
            Ok(())
        };
    let mut exprs = Vec::new();
    let mut next = 0usize;
    for (i, e) in list.iter().enumerate() {
        let eat = format!("{at}.Expressions[{i}]");
        let e = obj(e, &eat)?;
        let setup = e
            .get("Setup")
            .map(|v| arr(v, &eat))
            .transpose()?
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let main = arr(key(e, "Main", &eat)?, &eat)?;
        let fact = facts.get(i).copied();
        let (setup_base, setup_count): (i32, u32) = match fact.and_then(|x| x.get("Setup")) {
            Some(v) => pair(v, &eat)?,
            None if setup.is_empty() => (-1, 0),
            None => {
                let b = next;
                next += setup.len();
                (b as i32, setup.len() as u32)
            }
        };
        let (main_base, main_count): (i32, u32) = match fact.and_then(|x| x.get("Main")) {
            Some(v) => pair(v, &eat)?,
            None => {
                let b = next;
                next += main.len();
                (b as i32, main.len() as u32)
            }
        };
        let words = |k: &str| -> R<Vec<(usize, Instruction)>> {
            let wat = format!("{cat}.Expressions[{i}].{k}");
            fact.and_then(|x| x.get(k))
                .map(|v| exb_words(v, &wat))
                .transpose()
                .map(Option::unwrap_or_default)
        };
        if setup_base >= 0 {
            place(
                setup_base as usize,
                setup,
                &words("Setup Words")?,
                &format!("{eat}.Setup"),
            )?;
        }
        place(
            main_base.max(0) as usize,
            main,
            &words("Main Words")?,
            &format!("{eat}.Main"),
        )?;
        let mem = |k: &str| -> R<u64> {
            Ok(fact
                .map(|x| opt::<u64>(x, k, &eat))
                .transpose()?
                .flatten()
                .unwrap_or(0))
        };
        let data_type = |k: &str| -> R<u16> {
            let v = key(e, k, &eat)?;
            let t = match v {
                Value::String(s) => exb::TYPE_NAMES
                    .iter()
                    .position(|n| n == s)
                    .and_then(|t| exb::byte_of_type(t, version)),
                v => v.as_u64(),
            };
            t.and_then(|t| u16::try_from(t).ok()).ok_or_else(|| {
                TextError::new(
                    format!("{eat}.{k}"),
                    format!("{v} is not a data type of EXB version {version}"),
                )
            })
        };
        exprs.push(Expression {
            setup_base,
            setup_count,
            main_base,
            main_count,
            global_memory: mem("Global Memory")? as u32,
            local32_memory: mem("Local32 Memory")? as u16,
            local64_memory: mem("Local64 Memory")? as u16,
            output_type: data_type("Output Type")?,
            input_type: data_type("Input Type")?,
        });
    }
    if let Some(list) = c.and_then(|c| c.get("Instructions")) {
        // The instructions as stored (some belong to no expression).
        let stored: Vec<Instruction> = arr(list, "$codec.Expressions.Instructions")?
            .iter()
            .map(|v| {
                instruction(
                    obj(v, "$codec.Expressions.Instructions")?,
                    "$codec.Expressions.Instructions",
                )
            })
            .collect::<R<_>>()?;
        instructions = stored.into_iter().map(Some).collect();
    }
    let count = c
        .map(|c| opt::<usize>(c, "Instruction Count", "$codec.Expressions"))
        .transpose()?
        .flatten();
    if let Some(n) = count {
        if n > given {
            return Err(TextError::new(
                "$codec.Expressions.Instruction Count",
                format!("{n} instructions, but the JSON gives {given}"),
            ));
        }
        if instructions.len() < n {
            instructions.resize(n, None);
        }
    }
    let instructions = instructions
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            x.ok_or_else(|| TextError::new(at, format!("no expression holds instruction {i}")))
        })
        .collect::<R<Vec<_>>>()?;
    let word = |k: &str, derived: u32| -> R<u32> {
        Ok(c.map(|c| opt::<u32>(c, k, cat))
            .transpose()?
            .flatten()
            .unwrap_or(derived))
    };
    let tables = asm.tables;
    Ok(Exb {
        version,
        global_memory: word(
            "Global Memory",
            exprs.iter().map(|e| e.global_memory).max().unwrap_or(0),
        )?,
        instance_count: word("Instance Count", 0)?,
        local32_memory: word(
            "Local32 Memory",
            exprs.iter().map(|e| u32::from(e.local32_memory)).sum(),
        )?,
        local64_memory: word(
            "Local64 Memory",
            exprs.iter().map(|e| u32::from(e.local64_memory)).sum(),
        )?,
        expressions: exprs,
        instructions,
        signatures: tables.signatures,
        constants: tables.constants,
        strings: StringPool {
            strings: tables.strings,
            odd: pool.odd,
        },
    })
}

/// The kept bytes of a window's lines: `[[line, "16 hex digits"], ...]`.
fn exb_words(v: &Value, at: &str) -> R<Vec<(usize, Instruction)>> {
    arr(v, at)?
        .iter()
        .map(|p| {
            let p = arr(p, at)?;
            match (
                p.first().and_then(Value::as_u64),
                p.get(1).and_then(Value::as_str),
            ) {
                (Some(k), Some(h)) if p.len() == 2 => exb::unhex(h)
                    .map(|i| (k as usize, i))
                    .ok_or_else(|| TextError::new(at, "expected 16 hex digits")),
                _ => Err(TextError::new(at, "expected [line, \"16 hex digits\"]")),
            }
        })
        .collect()
}

/// A string pool as `$codec` keeps it (see `emit::set_pool`); `None` when
/// the object has no `String Pool`.
fn string_pool(o: &Obj, at: &str) -> R<Option<StringPool>> {
    let Some(p) = o.get("String Pool") else {
        return Ok(None);
    };
    let pat = format!("{at}.String Pool");
    let strings = arr(p, &pat)?
        .iter()
        .map(|s| text(s, &pat))
        .collect::<R<_>>()?;
    let mut odd = Vec::new();
    if let Some(v) = o.get("Odd String Offsets") {
        let oat = format!("{at}.Odd String Offsets");
        for v in arr(v, &oat)? {
            let a = arr(v, &oat)?;
            if a.len() != 2 {
                return Err(TextError::new(&oat, "expected [offset, text]"));
            }
            odd.push((num(&a[0], &oat)?, text(&a[1], &oat)?));
        }
    }
    Ok(Some(StringPool { strings, odd }))
}

fn instruction(o: &Obj, at: &str) -> R<Instruction> {
    let operand = |k: &str| -> R<(u8, u16)> {
        let a = arr(key(o, k, at)?, at)?;
        if a.len() != 2 {
            return Err(TextError::new(at, "an operand is [kind, value]"));
        }
        let kind = number_of(&OPERANDS, 0, &a[0])
            .ok_or_else(|| TextError::new(at, "unknown operand kind"))?;
        Ok((kind as u8, num(&a[1], at)?))
    };
    let (op1_kind, op1) = operand("Op1")?;
    let (op2_kind, op2) = operand("Op2")?;
    Ok(Instruction {
        opcode: number_of(&OPCODES, 1, key(o, "Op", at)?)
            .ok_or_else(|| TextError::new(at, "unknown opcode"))? as u8,
        datatype: number_of(&DATATYPES, 0, key(o, "Type", at)?)
            .ok_or_else(|| TextError::new(at, "unknown data type"))? as u8,
        op1_kind,
        op2_kind,
        op1,
        op2,
    })
}
