//! The interpreter's side of the constructs for trees of tagged nodes
//! (schema language v2), step for step what `codec-derive`'s `tree.rs`
//! generates: sorted string tables read into the reader (`Table`,
//! `derive: Interned`) and indices looked up in them (`Index`), unions held
//! as a value word with their tag stored apart (`Switch` as a field or as a
//! list's elements, or with the tag held by the list holding the record),
//! offsets inside union payloads, unions told apart by their payload's
//! magic (`peek`), and lists kept in document order (`visit: Document`).
//! The behaviour is `codec_runtime`'s (`interned::read_table`,
//! `Reader::interned`, `shared::document_order`, `Reader::hold_tags`).

use super::{int_width, InterpError};
use super::{variant_node, Kind, Node, Run, Site, R};
use codec_runtime::PathSeg;
use codec_schema::docs::type_label;
use codec_schema::{Count, Field, Ptr, StructDef, Type, TypeDef, UnionDef, Visit};

impl<'c> Run<'c, '_> {
    /// The raw value read for sibling field `name` of `st`.
    fn sibling_raw(st: &StructDef, raws: &[Option<(u64, u64)>], name: &str) -> Option<(u64, u64)> {
        st.fields
            .iter()
            .position(|g| g.name == name)
            .and_then(|j| raws[j])
    }

    /// A string table's body at `p` (its record starts at `pos`): the
    /// strings, kept for the `Index` fields read after it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn table_field(
        &mut self,
        st: &StructDef,
        raws: &[Option<(u64, u64)>],
        count: &str,
        offsets: &Type,
        pos: u64,
        p: u64,
        site: &Site,
    ) -> R<u64> {
        let n = Self::sibling_raw(st, raws, count).map_or(0, |(_, v)| v);
        let width = super::runtime_width(offsets);
        let (strings, end) = codec_runtime::interned::read_table(&mut self.r, pos, p, n, width)?;
        let w = width.bytes();
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            p,
            format!(
                "string table: {n} {} offsets, then the strings",
                type_label(offsets)
            ),
            site.unknown,
            Kind::Seq,
        );
        node.size = end - p;
        let mut offs = Node::new(
            "offsets",
            format!("{}.offsets", site.path),
            p,
            format!("{}[{}]", type_label(offsets), n + 1),
            site.unknown,
            Kind::Derived {
                raw: n + 1,
                meaning: "where each string starts, from the table's start (one more: the end)"
                    .into(),
            },
        );
        offs.size = (n + 1) * w;
        node.children.push(offs);
        for (i, s) in strings.iter().enumerate() {
            let at = p + i as u64 * w;
            let start = self.read_uint(offsets, at).unwrap_or(0) + pos;
            let es = site.index(i);
            let mut leaf = Node::new(
                es.name,
                es.path,
                start,
                "string",
                site.unknown,
                Kind::Str {
                    value: s.to_string(),
                    pad: 0,
                },
            );
            leaf.size = s.len() as u64 + 1;
            node.children.push(leaf);
        }
        self.leaf(node);
        self.last_table = Some(strings);
        Ok(end)
    }

    /// After the offset of a `derive: Interned` field is followed: its
    /// table's strings go to the reader.
    pub(super) fn keep_table(&mut self, field: &str) {
        if let Some(strings) = self.last_table.take() {
            let id = self.c.table_id(field);
            self.r.set_table(id, strings);
        }
    }

    /// An index into interned table `table` at `pos`, as its string.
    pub(super) fn index_inline(
        &mut self,
        table: &str,
        width: &Type,
        pos: u64,
        site: &Site,
    ) -> R<u64> {
        let raw = self.read_uint(width, pos)?;
        let w = int_width(width).unwrap_or(4);
        let id = self.c.table_id(table);
        let s = self.r.interned(id, raw, pos, table)?;
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            pos,
            format!("{} index into {table}", type_label(width)),
            site.unknown,
            Kind::Str {
                value: s.to_string(),
                pad: 0,
            },
        );
        node.size = w;
        self.leaf(node);
        Ok(pos + w)
    }

    /// A union held as a word at `p` whose tag is sibling field `tag`.
    pub(super) fn switch_field(
        &mut self,
        st: &StructDef,
        raws: &[Option<(u64, u64)>],
        union: &str,
        tag: &str,
        p: u64,
        site: &Site,
    ) -> R<u64> {
        let Some(TypeDef::Union(u)) = self.c.get(union) else {
            return Err(InterpError::invalid(p, format!("`{union}` is not a union")));
        };
        // A tag held by the list holding this record: the next one.
        let (tag_pos, tag_raw) = match codec_schema::held_tag_list(tag) {
            Some(_) => {
                let (raw, at) = self.r.take_held_tag(p)?;
                (at, raw)
            }
            None => Self::sibling_raw(st, raws, tag).unwrap_or((p, 0)),
        };
        let size = self
            .c
            .fixed_size(&Type::Switch {
                union: union.to_owned(),
                tag: tag.to_owned(),
            })
            .unwrap_or(4);
        self.payload(u, tag_raw, p, p, tag_pos, site)?;
        self.name_last(&site.name);
        Ok(p + size)
    }

    /// Before list field `f` of `st` at `p` (the record at `pos`): when its
    /// elements take their tags from a sibling list stored after it
    /// (`derive: Tags("<f>.<field>")`), reads and holds those tags, as the
    /// generated decoder does. True when it holds them: the caller lets
    /// them go after the list (`Reader::release_tags`).
    pub(super) fn hold_element_tags(
        &mut self,
        st: &StructDef,
        raws: &[Option<(u64, u64)>],
        f: &Field,
        pos: u64,
        p: u64,
    ) -> R<bool> {
        let Some(tf) = st.fields.iter().find(|g| {
            matches!(&g.derive, Some(codec_schema::Derive::Tags(of))
                if matches!(codec_schema::tags_source(of), (list, Some(_)) if list == f.name))
        }) else {
            return Ok(false);
        };
        let (Type::List { of, count }, Type::List { of: tag_ty, .. }) = (&f.ty, &tf.ty) else {
            return Ok(false);
        };
        let n = match &**count {
            Count::Field(c) => Self::sibling_raw(st, raws, c).map_or(0, |(_, v)| v),
            _ => 0,
        };
        let esize = self.c.fixed_size(of).unwrap_or(1);
        self.r
            .check_count(p, p, n, esize)
            .map_err(|e| e.in_field(f.name.clone()))?;
        let end = p + n * esize;
        let at = match tf.align.filter(|&a| a > 1) {
            Some(a) => pos + (end - pos).next_multiple_of(a),
            None => end,
        };
        self.r
            .hold_tags(at, n, super::runtime_width(tag_ty))
            .map_err(|e| e.in_field(tf.name.clone()))?;
        Ok(true)
    }

    /// A list of words at `p`, element `i`'s tag the `i`th of sibling list
    /// `tag`, `count` elements.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn switch_list(
        &mut self,
        st: &StructDef,
        raws: &[Option<(u64, u64)>],
        of: &Type,
        union: &str,
        tag: &str,
        count: &Count,
        p: u64,
        site: &Site,
    ) -> R<u64> {
        let Some(TypeDef::Union(u)) = self.c.get(union) else {
            return Err(InterpError::invalid(p, format!("`{union}` is not a union")));
        };
        let Count::Field(c) = count else {
            return Err(InterpError::invalid(
                p,
                "a list of Switch words needs a count field",
            ));
        };
        let n = Self::sibling_raw(st, raws, c).map_or(0, |(_, v)| v);
        let size = self.c.fixed_size(of).unwrap_or(4);
        self.r.check_count(p, p, n, size)?;
        // The tags: the sibling list read before this one.
        let tags = self
            .top()
            .children
            .iter()
            .find(|c| c.name == tag)
            .map(|c| match &c.kind {
                Kind::Numbers { values } => values
                    .iter()
                    .map(|v| super::value_u64(v).unwrap_or(u64::MAX))
                    .collect(),
                Kind::Octets { values } => values.iter().map(|&b| u64::from(b)).collect(),
                _ => Vec::new(),
            })
            .unwrap_or_default();
        let tags_at = self
            .top()
            .children
            .iter()
            .find(|c| c.name == tag)
            .map_or(p, |c| c.offset);
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            p,
            format!("{}[{n}]", type_label(of)),
            site.unknown,
            Kind::Seq,
        );
        node.size = n * size;
        self.open(node);
        for i in 0..n as usize {
            let q = p + i as u64 * size;
            let tag_raw = tags.get(i).copied().unwrap_or(u64::MAX);
            let es = site.index(i);
            self.payload(u, tag_raw, q, q, tags_at + i as u64, &es)
                .map_err(|e| e.at_index(i))?;
            self.name_last(&es.name);
        }
        self.close();
        Ok(p + n * size)
    }

    /// Names the payload just read after the field or element holding it
    /// (the record's value finds its fields by name).
    fn name_last(&mut self, name: &str) {
        if let Some(n) = self.top().children.last_mut() {
            n.name = name.into();
        }
    }

    /// An offset inside a union payload at `at`, and what it leads to.
    pub(super) fn ptr_in_payload(
        &mut self,
        ptr: &'c Ptr,
        at: u64,
        site: &Site,
        owner: &str,
        field: &str,
    ) -> R<u64> {
        let raw = self.read_uint(&ptr.width, at)?;
        if ptr.optional && raw == 0 {
            // An absent payload has no value yet: followed, the 0 failed
            // at offset 0 with a cause not its own (issue 72). Said as it
            // is; a file whose payloads are all present still reads.
            return Err(InterpError::invalid(
                at,
                "a stored 0 in an `optional` offset held as a union's payload: an absent payload is not supported yet (give the absent case a variant of its own)",
            ));
        }
        let w = int_width(&ptr.width).unwrap_or(4);
        let mut node = Node::new(
            site.name.clone(),
            site.path.clone(),
            at,
            format!(
                "{} offset → {}",
                type_label(&ptr.width),
                type_label(&ptr.to)
            ),
            site.unknown,
            Kind::Offset {
                raw,
                target: None,
                kept: None,
            },
        );
        node.size = w;
        self.open(node);
        let t = self.r.target(at, ptr.payload_base(), raw, ptr.scale)?;
        if let Some(si) = self.c.kept_sharing(ptr) {
            self.r.note_shared(si, t);
        }
        if let Kind::Offset { target, .. } = &mut self.top().kind {
            *target = Some(t);
        }
        let size = self.c.fixed_size(&ptr.to).unwrap_or(1).max(1);
        self.r.enter(at, t, size)?;
        match &ptr.to {
            Type::Named(n) => match self.c.get(n) {
                Some(TypeDef::Struct(def)) => {
                    let ts = site.named(n);
                    self.record(def, t, ts.name, ts.path, ts.unknown)?;
                    self.align_by_padding(def, t);
                }
                Some(TypeDef::Union(u)) => {
                    self.tagged_union(u, t, &site.named(n))?;
                }
                None => return Err(InterpError::invalid(at, format!("`{n}` is not a type"))),
            },
            Type::List { of, count } if matches!(**count, Count::Prefix(_)) => {
                let Count::Prefix(ct) = &**count else {
                    unreachable!()
                };
                let cw = int_width(ct).unwrap_or(4);
                let n = self.read_uint(ct, t)?;
                self.count_leaf(ct, t, n, site);
                self.list(of, n, t + cw, at, &site.named("elements"), owner, field)?;
            }
            other => {
                self.inline(other, t, &site.named("value"), owner, field)?;
            }
        }
        self.r.leave();
        self.close();
        Ok(at + w)
    }

    /// The zeros a writer put before record `def` (just read at `t`, the
    /// open node's last child) so that its `align_by` field lands on a
    /// multiple of the alignment it stores: padding, for coverage.
    fn align_by_padding(&mut self, def: &StructDef, t: u64) {
        let Some(by) = def.fields.iter().find_map(|f| f.align_by.as_deref()) else {
            return;
        };
        let Some(rec) = self.top().children.last() else {
            return;
        };
        let a = rec
            .children
            .iter()
            .find(|c| c.name == by)
            .and_then(|c| match &c.kind {
                Kind::Number { value } => super::value_u64(value),
                _ => None,
            })
            .unwrap_or(1);
        let mut from = t;
        while from > 0 && t - from + 1 < a && self.r.u8(from - 1).is_ok_and(|b| b == 0) {
            from -= 1;
        }
        if from < t {
            if let Some(rec) = self.top().children.last_mut() {
                rec.padding.push((from, t));
            }
        }
    }

    /// A union told apart by the magic its payload starts with (`peek`):
    /// the payload is read from `pos`, magic included.
    pub(super) fn peek_union(&mut self, u: &'c UnionDef, pos: u64, site: &Site) -> R<u64> {
        let tag = self.read_uint(&u.tag, pos)?;
        let v = super::ext::variant_by_tag(u, tag, pos)?;
        let (vs, node) = variant_node(u, v, site.name.clone(), site, pos);
        self.open(node);
        let end = self
            .inline(&v.ty, pos, &vs.named(&v.name), &u.name, &v.name)
            .map_err(|e| e.within(PathSeg::Variant(v.name.clone().into())))?;
        self.top().size = end - pos;
        self.close();
        Ok(end)
    }

    /// A list sorted by an `Index` key (`sort_by`), just read as the open
    /// node's last child: its keys ascend, each once
    /// (`interned::ascending_keys`, as the generated decoder checks).
    pub(super) fn ascending_keys(&mut self, f: &Field, of: &Type) -> R<()> {
        let Some(key) = f.sort_by.as_deref() else {
            return Ok(());
        };
        let Type::Named(en) = of else { return Ok(()) };
        let Some(TypeDef::Struct(e)) = self.c.get(en) else {
            return Ok(());
        };
        let offs = self.c.field_offsets(e);
        let Some(ki) = e.fields.iter().position(|g| g.name == key) else {
            return Ok(());
        };
        // An interned string's index, or a stored number (a hash).
        let kf = &e.fields[ki];
        let (width, noun) = match &kf.ty {
            Type::Index { width, .. } => (&**width, "key index"),
            t if kf.derive.is_none() && int_width(t).is_some() => (t, "key"),
            _ => return Ok(()),
        };
        let Some(koff) = offs[ki] else {
            return Ok(());
        };
        let Some(list) = self.top().children.last() else {
            return Ok(());
        };
        let at: Vec<u64> = list.children.iter().map(|n| n.offset + koff).collect();
        codec_runtime::interned::ascending(
            at.len(),
            |i| self.read_uint(width, at[i]),
            |i| at[i],
            noun,
        )
        .map_err(|(i, e)| e.in_field(key.to_owned()).at_index(i))
    }

    /// A list of records visited in document order (`visit: Document`),
    /// just read: the order their targets were placed in, recovered as the
    /// generated decoder recovers it, kept on the list's node for its value.
    pub(super) fn document_order(&mut self, visit: Visit) {
        if visit != Visit::Document {
            return;
        }
        let c = self.c;
        let Some(list) = self.top().children.last_mut() else {
            return;
        };
        let places: Vec<Option<(usize, u64)>> = list
            .children
            .iter()
            .map(|e| {
                e.children.iter().find_map(|f| match &f.kind {
                    Kind::Variant { union, tag, .. } => {
                        let Some(TypeDef::Union(u)) = c.get(union) else {
                            return None;
                        };
                        let v = u.variants.iter().find(|v| v.tag == *tag)?;
                        let Type::Ptr(p) = &v.ty else { return None };
                        let sec = c.section_id(p.section.as_deref()?)?;
                        f.children.iter().find_map(|o| match o.kind {
                            Kind::Offset { raw, .. } => Some((sec, raw)),
                            _ => None,
                        })
                    }
                    _ => None,
                })
            })
            .collect();
        let order = codec_runtime::shared::document_order(&places);
        if order.iter().enumerate().any(|(i, &j)| i != j) {
            list.order = order;
        }
    }
}
