//! Encoding: the root record is written first; then each section is filled
//! by one walk of the typed tree in the section's order (pre-order,
//! post-order or a glue hook). Placing a target patches the offset that
//! points to it; counts, tags, sizes and the file size are derived.

use crate::names::{ident, width_tokens};
use crate::Gen;
use codec_schema::{
    Count, Dedup, Derive, FieldWrite, Order, Ptr, SortKey, StructDef, Type, TypeDef,
};
use proc_macro2::TokenStream;
use quote::quote;

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

impl Gen<'_> {
    pub(crate) fn encode(&self) -> syn::Result<TokenStream> {
        let rt = RT();
        let mut out = TokenStream::new();
        for (i, t) in self.c.schema.types.iter().enumerate() {
            match t {
                TypeDef::Struct(s) => {
                    out.extend(self.encode_struct(i, s)?);
                    if self.has_depth_first() {
                        out.extend(self.visit_df_struct(s)?);
                    }
                    if s.layout.is_some() {
                        out.extend(self.encode_unit_fn(s)?);
                    }
                }
                TypeDef::Union(u) if u.inline_tag => out.extend(self.encode_tagged_union(u)),
                TypeDef::Union(u) if u.peek || self.is_word_union(&u.name) => {
                    out.extend(self.tree_union(u)?)
                }
                TypeDef::Union(_) => {}
            }
        }
        let root_def = self.c.root();
        let root = ident(&root_def.name);
        let sections: Vec<usize> = (0..self.c.schema.sections.len()).collect();
        let mut body = self.layout_body(root_def, &sections, self.c.schema.end_align)?;
        let shares = self.c.shares_equal_fields().into_iter().map(|(f, si)| {
            let fid = ident(f);
            quote!(w.set_shares_equal(#si, v.#fid);)
        });
        // The writer's sharing kept in the document, before any record is placed.
        body = quote!(#(#shares)* #body);
        let tables = self.interned_tables().len();
        if tables > 0 {
            // Every interned string is known before the first index is written.
            body = quote!(w.intern_all(v, #tables); #body);
        }
        let ntypes = self.c.schema.types.len();
        let nsecs = self.c.all_sections().len();
        match self.variant {
            None => out.extend(quote! {
                /// Encodes a whole file, laid out by the schema's sections.
                pub fn encode(v: &#root) -> #rt::EncodeResult<::std::vec::Vec<u8>> {
                    #rt::Writer::lend(ENDIAN, #ntypes, #nsecs, |mut w| {
                        #body
                        Ok(())
                    })
                }
            }),
            Some(k) => {
                let f = quote::format_ident!("__encode_{}", k);
                let endian = self.endian_const();
                out.extend(quote! {
                    #[doc(hidden)]
                    fn #f(v: &#root) -> #rt::EncodeResult<::std::vec::Vec<u8>> {
                        #rt::Writer::lend(#endian, #ntypes, #nsecs, |mut w| {
                            #body
                            Ok(())
                        })
                    }
                });
            }
        }
        Ok(out)
    }

    /// Statements laying out the record `v` (of struct `root_def`) and the
    /// given sections into `w`: the file's root, or a unit's.
    pub(crate) fn layout_body(
        &self,
        root_def: &StructDef,
        sections: &[usize],
        end_align: u64,
    ) -> syn::Result<TokenStream> {
        let rt = RT();
        let enc = self.path_as(&root_def.name, "__Encode");
        let mut body = quote!(#enc::write_record(v, &mut w)?;);
        let mut skip = None;
        for (k, &i) in sections.iter().enumerate() {
            if skip == Some(i) {
                continue;
            }
            let sec = self.c.section(i);
            // The next section, ordered by the same hook, filled in this walk.
            let lane = sections
                .get(k + 1)
                .copied()
                .filter(|&j| self.lane_with(i, j));
            skip = lane;
            let align = sec.align;
            let dedup = dedup_tokens(&sec.dedup);
            let walk = match &sec.order {
                Order::PreOrder => quote!(#enc::visit::<#i, false>(v, &mut w, 0)?;),
                Order::PostOrder => quote!(#enc::visit::<#i, true>(v, &mut w, 0)?;),
                Order::DepthFirst => {
                    let tree = self.path_as(&root_def.name, "__Tree");
                    quote!(#tree::visit_df(v, &mut w, #i, 0)?;)
                }
                Order::Hook { name, visits } => {
                    let Some(hooks) = self.hooks else {
                        return Err(Gen::err(format!(
                            "section `{}` is ordered by hook `{name}`: pass `hooks = path::to::glue` to schema!",
                            sec.name
                        )));
                    };
                    let hn = ident(name);
                    let vt = ident(visits);
                    let venc = self.path_as(visits, "__Encode");
                    match lane {
                        None => quote!(#hooks::#hn(v, &mut |o: &#vt| {
                            let pos = w.record(#rt::key_of(o), #vt::TYPE_ID, #visits)?;
                            #venc::visit::<#i, false>(o, &mut w, pos)
                        })?;),
                        Some(j) => {
                            // The walk places section `j`'s values too,
                            // into a lane (see `codec_runtime::lane`).
                            let lsec = self.c.section(j);
                            let la = lsec.align;
                            let ldedup = dedup_tokens(&lsec.dedup);
                            quote! {
                                w.open_lane(#j, #la, #ldedup);
                                #hooks::#hn(v, &mut |o: &#vt| {
                                    let pos = w.record(#rt::key_of(o), #vt::TYPE_ID, #visits)?;
                                    #venc::visit::<#i, false>(o, &mut w, pos)
                                })?;
                            }
                        }
                    }
                }
            };
            let end = if sec.pad > 1 || sec.end_align > 1 {
                let (pad, ea) = (sec.pad, sec.end_align);
                quote!(w.end_section_padded(#i, #align, #pad, #ea);)
            } else {
                quote!(w.end_section(#align);)
            };
            let close = if lane.is_some() {
                quote!(w.close_lane()?;)
            } else {
                quote!()
            };
            // A sorted section's values are laid out again once placed
            // (`codec_runtime::sorted_values`).
            let (sort_begin, sort_end) = match self.c.sorted_values(i) {
                Some(sv) => {
                    let order = match sv.order {
                        codec_schema::ValueOrder::Bytes => quote!(Bytes),
                        codec_schema::ValueOrder::ReversedBits => {
                            quote!(ReversedBits)
                        }
                    };
                    let form = match sv.form {
                        codec_schema::ValueForm::CString => quote!(CString),
                        codec_schema::ValueForm::Prefixed { prefix, nul } => {
                            let pw = crate::names::runtime_width_tokens(prefix);
                            quote!(Prefixed { prefix: #pw, nul: #nul })
                        }
                    };
                    let ia = sv.item_align;
                    (
                        quote! {
                            w.begin_sorted_values(#rt::sorted_values::SortedValues {
                                order: #rt::sorted_values::ValueOrder::#order,
                                form: #rt::sorted_values::ValueForm::#form,
                                item_align: #ia,
                            });
                        },
                        quote!(w.end_sorted_values()?;),
                    )
                }
                None => (quote!(), quote!()),
            };
            body.extend(quote! {
                let a = w.section_align(#i, #align);
                w.begin_section(#i, a, #dedup);
                #sort_begin
                #walk
                #sort_end
                #end
                #close
            });
        }
        body.extend(quote! {
            w.align(#end_align);
            w.resolve_refs()?;
            w.settle()?;
        });
        let offsets = self.c.field_offsets(root_def);
        let mut checksums = TokenStream::new();
        for (f, off) in root_def.fields.iter().zip(&offsets) {
            let what = format!("{}.{}", root_def.name, f.name);
            // The settled numbers (file size, section sizes and ends,
            // record counts) are patched by `w.settle()` above.
            let value = match &f.derive {
                Some(Derive::SectionStart(s)) => {
                    let id = self.c.section_id(s).unwrap_or(0);
                    quote!(w.section(#id).start)
                }
                Some(Derive::Stride(rows)) => {
                    let a = self.stride_align(root_def, rows);
                    quote!(w.row_stride(#a))
                }
                Some(Derive::Checksum { .. }) => continue,
                _ => continue,
            };
            let Some(off) = off else {
                return Err(Gen::err(format!(
                    "derived field `{what}` must be at a fixed offset of the root"
                )));
            };
            let wt = width_tokens(&f.ty);
            body.extend(quote! {
                let value = #value;
                w.patch_uint(#off, #wt, value, #what)?;
            });
        }
        // Checksums last: they cover the bytes every other patch wrote.
        for (f, off) in root_def.fields.iter().zip(&offsets) {
            let Some(Derive::Checksum { hook, from, to }) = &f.derive else {
                continue;
            };
            let what = format!("{}.{}", root_def.name, f.name);
            let Some(hooks) = self.hooks else {
                return Err(Gen::err(format!(
                    "`{what}` is a checksum: pass `hooks = path::to::glue` to schema!"
                )));
            };
            let Some(off) = off else {
                return Err(Gen::err(format!(
                    "derived field `{what}` must be at a fixed offset of the root"
                )));
            };
            let id = self.c.section_id(to).unwrap_or(0);
            let hn = ident(hook);
            let wt = width_tokens(&f.ty);
            checksums.extend(quote! {
                let value: u64 = {
                    let end = w.section(#id).end as usize;
                    let bytes = w.bytes();
                    let end = end.min(bytes.len());
                    let from = (#from as usize).min(end);
                    #hooks::#hn(&bytes[from..end])
                };
                w.patch_uint(#off, #wt, value, #what)?;
            });
        }
        body.extend(checksums);
        Ok(body)
    }

    fn encode_struct(&self, type_id: usize, s: &StructDef) -> syn::Result<TokenStream> {
        let rt = RT();
        let name = ident(&s.name);
        let offsets = self.c.field_offsets(s);
        let runtime_offsets = self.field_offset_exprs(s);
        let mut writes = TokenStream::new();
        let mut own_parts: Vec<TokenStream> = Vec::with_capacity(s.fields.len());
        let mut descend_parts: Vec<TokenStream> = Vec::with_capacity(s.fields.len());
        let deferrable = self.deferrable(s);
        for (f, off) in s.fields.iter().zip(&offsets) {
            // What each field places and visits, kept apart: they run in
            // the record's placing order (`Checked::placing_order`), its
            // bytes in field order.
            let mut own = TokenStream::new();
            let mut descend = TokenStream::new();
            'field: {
                let fid = ident(&f.name);
                let what = format!("{}.{}", s.name, f.name);
                writes.extend(self.field_align_write(f));
                match self.c.field_write(s, f) {
                    FieldWrite::SizedUnit { unit, size } => {
                        // A unit laid out inline; its length goes in `size`.
                        let u = self.path_as(unit, "__EncodeUnit");
                        let at = crate::names::local("at", size);
                        let sf = s.fields.iter().find(|g| g.name == size);
                        let wt = width_tokens(sf.map_or(&Type::U32, |g| &g.ty));
                        writes.extend(quote! {
                            let here = w.pos();
                            #u::encode_unit(&self.#fid, w)?;
                            #rt::pad::patch_size(w, #at, #wt, here, #what)?;
                        });
                        break 'field;
                    }
                    FieldWrite::Pad { align } => {
                        writes.extend(quote! {
                            let rel = w.pos() - start;
                            #rt::pad::put_pad(w, rel, #align, self.#fid);
                        });
                        break 'field;
                    }
                    FieldWrite::Tags { source, width } => {
                        writes.extend(self.tags_write(s, f, source, width)?);
                        break 'field;
                    }
                    FieldWrite::TableBody { offsets } => {
                        writes.extend(self.table_body_write(s, f, offsets));
                        break 'field;
                    }
                    // No bytes: the encoder applies it before placing anything.
                    FieldWrite::SharesEqual => break 'field,
                    // A word's payload records are visited below when they
                    // hold offsets (`Checked::payload_records`).
                    FieldWrite::Word { union } => {
                        writes.extend(self.words_write(s, f, union, false));
                    }
                    FieldWrite::Words { union } => {
                        writes.extend(self.words_write(s, f, union, true));
                        break 'field;
                    }
                    FieldWrite::HashSlots { slots, width } => {
                        writes.extend(self.hash_slots_write(slots, width, &fid, &what));
                        let Type::HashSlots { section, .. } = &f.ty else {
                            break 'field;
                        };
                        let Some(off) = off else {
                            return Err(Gen::err(format!(
                                "`{what}`: a table of hash slots must be at a fixed offset of its record"
                            )));
                        };
                        let si = self.c.section_id(section).unwrap_or(0);
                        let place = self.hash_slots_place(&f.ty, &fid, *off, &what);
                        own.extend(quote! {
                            if sec == #si { #place }
                        });
                        break 'field;
                    }
                    FieldWrite::InternedTable { ptr: p } => {
                        let n = codec_schema::int_width(&p.width).unwrap_or(4) as usize;
                        writes.extend(quote!(w.put_bytes(&[0u8; #n]);));
                        let Some(off) = off else {
                            return Err(Gen::err(format!("`{what}` must be at a fixed offset")));
                        };
                        own.extend(self.interned_place(f, p, *off)?);
                    }
                    FieldWrite::Count { of, width } => {
                        // An absent list (an optional offset) counts 0.
                        let optional = s
                            .fields
                            .iter()
                            .any(|g| g.name == *of && matches!(&g.ty, Type::Ptr(p) if p.optional));
                        let of = ident(of);
                        let wt = width_tokens(width);
                        let n = if optional {
                            quote!(self.#of.as_ref().map_or(0, |x| x.len()))
                        } else {
                            quote!(self.#of.len())
                        };
                        writes.extend(quote!(w.put_uint(#wt, #n as u64, #what)?;));
                    }
                    FieldWrite::Total { list, of, width } => {
                        writes.extend(self.total_write(s, list, of, width, &what)?);
                    }
                    FieldWrite::RecordEnd { width, size } => {
                        let wt = width_tokens(width);
                        writes.extend(quote!(w.put_uint(#wt, start + #size, #what)?;));
                    }
                    FieldWrite::Tag { of, width } => {
                        let of = ident(of);
                        let wt = width_tokens(width);
                        writes.extend(quote!(w.put_uint(#wt, self.#of.tag(), #what)?;));
                    }
                    FieldWrite::Size { width } => {
                        // Patched once the field it measures is written.
                        let at = crate::names::local("at", &f.name);
                        let n = codec_schema::int_width(width).unwrap_or(4) as usize;
                        writes.extend(quote! {
                            let #at = w.pos();
                            w.put_bytes(&[0u8; #n]);
                        });
                    }
                    FieldWrite::CellOffset { cells, width } => {
                        writes.extend(self.cell_offset_write(s, cells, width, &what));
                    }
                    FieldWrite::Settled { width, value } => {
                        let wt = width_tokens(width);
                        let v = match self.c.settled(value) {
                            codec_schema::Settled::FileSize => quote!(FileSize),
                            codec_schema::Settled::RecordCount(t) => quote!(RecordCount(#t)),
                            codec_schema::Settled::SectionSize(s) => quote!(SectionSize(#s)),
                            codec_schema::Settled::SectionEnd(s) => quote!(SectionEnd(#s)),
                            codec_schema::Settled::SortedStrings(s) => quote!(SortedStrings(#s)),
                        };
                        writes
                            .extend(quote!(w.put_settled(#wt, #rt::settled::Settled::#v, #what);));
                    }
                    FieldWrite::Later { width } => {
                        let n = codec_schema::int_width(width).unwrap_or(4) as usize;
                        writes.extend(quote!(w.put_bytes(&[0u8; #n]);));
                    }
                    FieldWrite::Magic(m) => {
                        let lit = syn::LitByteStr::new(&m, proc_macro2::Span::call_site());
                        writes.extend(quote!(w.put_bytes(#lit);));
                    }
                    FieldWrite::Offset { ptr: p } => {
                        let n = codec_schema::int_width(&p.width).unwrap_or(4) as usize;
                        let Some(off) = off else {
                            return Err(Gen::err(format!(
                                "offset field `{what}` must be at a fixed offset"
                            )));
                        };
                        if deferrable {
                            // The target may have been placed before this record.
                            let wt = width_tokens(&p.width);
                            let base = self.wbase_expr(&p.base, quote!(start));
                            let scale = p.scale;
                            writes.extend(quote! {
                                match w.take_deferred(#rt::key_of(self), Self::TYPE_ID, #off) {
                                    Some(t) => w.put_offset(#wt, #base, #scale, t, #what)?,
                                    None => w.put_bytes(&[0u8; #n]),
                                }
                            });
                        } else {
                            writes.extend(quote!(w.put_bytes(&[0u8; #n]);));
                        }
                        own.extend(self.place_target(s, &f.name, p, *off)?);
                        if let Some(kept) = &p.align {
                            let align = self.kept_align_expr(&f.name, kept)?;
                            let sid = p
                                .section
                                .as_deref()
                                .and_then(|n| self.c.section_id(n))
                                .unwrap_or(0);
                            writes.extend(quote!(w.note_kept_align(#sid, #align);));
                        }
                    }
                    FieldWrite::Offsets { ptr: p } => {
                        let n = codec_schema::int_width(&p.width).unwrap_or(4) as usize;
                        let Some(off) = off else {
                            return Err(Gen::err(format!(
                                "offsets `{what}` must be at a fixed offset"
                            )));
                        };
                        writes.extend(quote! {
                            for _ in self.#fid.iter() {
                                w.put_bytes(&[0u8; #n]);
                            }
                        });
                        own.extend(self.place_offset_list(s, &f.name, p, *off)?);
                    }
                    FieldWrite::Sorted { of, count, key } => {
                        writes.extend(self.inline_count_check(s, &f.name, count));
                        let e = self.inline_write(of, quote!(e), &what);
                        match key {
                            SortKey::Interned { .. } | SortKey::Stored { .. } => {
                                let keys = self
                                    .index_sort_keys(s, f, of)
                                    .or_else(|| self.int_sort_keys(f, of))
                                    .ok_or_else(|| Gen::err(format!("`{what}`: no sort keys")))?;
                                let fname = &f.name;
                                let hint = self.index_sort_hint(f, of);
                                writes.extend(quote! {
                                    let keys: ::std::vec::Vec<u64> = #keys;
                                    let order = w.sorted_order(&keys);
                                    #rt::placement::unique_keys(&keys, &order, #what)?;
                                    for &i in order.iter() {
                                        let e = &self.#fid[i];
                                        #hint
                                        #e
                                    }
                                    // The visit that follows finds the slots here.
                                    w.note_sorted(#rt::key_of(self), Self::TYPE_ID, #fname, order);
                                    w.give_keys(keys);
                                });
                            }
                            SortKey::Hashed(_) => {
                                // Sorted by a derived key, which is patched into each element.
                                let keys = self.sort_keys(s, f).ok_or_else(|| {
                                    Gen::err(format!(
                                        "`{what}` is sorted by a key glue hashes: pass `hooks = path::to::glue` to schema!"
                                    ))
                                })?;
                                let (koff, kwt) = self.sort_key_slot(f)?;
                                writes.extend(quote! {
                                    let keys: ::std::vec::Vec<u64> = #keys;
                                    for &i in #rt::placement::sorted_order(&keys).iter() {
                                        let e = &self.#fid[i];
                                        let at = w.pos();
                                        #e
                                        w.patch_uint(at + #koff, #kwt, keys[i], #what)?;
                                    }
                                });
                            }
                        }
                    }
                    FieldWrite::List { of, count } => {
                        writes.extend(self.inline_count_check(s, &f.name, count));
                        writes.extend(self.list_write(of, quote!(self.#fid), &what));
                    }
                    FieldWrite::Follows { to, section } => {
                        let si = self.c.section_id(section).unwrap_or(0);
                        let sec = self.c.section(si);
                        let place = self.place_value(
                            to,
                            quote!(&self.#fid),
                            &sec.dedup,
                            sec.item_align,
                            &what,
                        );
                        own.extend(quote! {
                            if sec == #si {
                                let _: u64 = { #place };
                            }
                        });
                    }
                    FieldWrite::External { len } => {
                        writes.extend(quote!(#rt::external::write(w, &self.#fid, #len, #what)?;));
                    }
                    FieldWrite::Inline(t) => {
                        let wr = self.inline_write(t, quote!(&self.#fid), &what);
                        writes.extend(wr);
                    }
                }
                // Descend into what this field holds, for the sections it can reach.
                let inner: &Type = match &f.ty {
                    Type::Ptr(p) => &p.to,
                    Type::Follows { to, .. } => to,
                    t => t,
                };
                // A unit lays out its own sections; nothing of it is visited from outside.
                let unit = |t: &Type| matches!(t, Type::Named(n) if self.is_unit(n));
                let into_unit = unit(inner)
                    || matches!(inner, Type::List { of, .. } | Type::Array { of, .. }
                        if unit(of) || matches!(&**of, Type::Ptr(p) if unit(&p.to)));
                // A union's payloads are visited where they are records written
                // in place (`Checked::payload_records`); a payload behind an
                // offset is placed by the walks of its own sections.
                let secs: Vec<usize> = (0..self.c.all_sections().len())
                    .filter(|&si| match inner {
                        Type::Switch { union, .. } => !self.c.payload_records(union, si).is_empty(),
                        Type::Select { .. } => false,
                        t => self.c.type_reaches(t, si),
                    })
                    .collect();
                if !secs.is_empty() && f.derive.is_none() && !into_unit {
                    // After a list field, the position is computed from the value.
                    let fi = s.fields.iter().position(|g| g.name == f.name).unwrap_or(0);
                    let off: TokenStream = match (off, &runtime_offsets[fi]) {
                        (Some(o), _) => quote!(#o),
                        (None, Some(e)) => e.clone(),
                        (None, None) => {
                            return Err(Gen::err(format!(
                                "`{what}` leads to placed data, so its position in the record must be computable"
                            )))
                        }
                    };
                    descend.extend(self.descend_field(s, f, off, &secs)?);
                }
            }
            own_parts.push(own);
            descend_parts.push(descend);
        }
        let mut own = TokenStream::new();
        let mut descend = TokenStream::new();
        for fi in self.c.placing_order(s) {
            own.extend(std::mem::take(&mut own_parts[fi]));
            descend.extend(std::mem::take(&mut descend_parts[fi]));
        }
        let hook_visited = self
            .c
            .all_sections()
            .iter()
            .any(|sec| matches!(&sec.order, Order::Hook { visits, .. } if visits == &s.name));
        let holds_word = s.fields.iter().any(|f| matches!(f.ty, Type::Switch { .. }));
        let looked_up = holds_word && self.record_looked_up(&s.name);
        let mut note = if hook_visited || looked_up {
            quote!(w.note_record(#rt::key_of(self), #type_id, ::std::mem::size_of::<Self>(), start);)
        } else {
            quote!()
        };
        note.extend(self.encode_notes(s));
        let seed = self.pool_seed(s);
        let vis = self.vis();
        let me = self.self_as("__Encode");
        let type_id_const = if self.variant.is_none() {
            quote! {
                /// The type's index in the schema (for record counts).
                pub const TYPE_ID: usize = #type_id;
            }
        } else {
            quote!()
        };
        let _ = &name;
        // A record of fixed size whose fields are plain writes is assembled
        // on the stack and appended in one copy (the same bytes).
        let size = self.c.fixed_size(&Type::Named(s.name.clone()));
        if let Some(n) = size.filter(|&n| n > 0 && n <= 256 && plain_record_writes(&writes)) {
            let n = n as usize;
            let order = self.endian_const();
            let what = s.name.to_string();
            writes = quote! {
                let mut rec = #rt::RecordBuf::<#n>::new(#order);
                {
                    let w = &mut rec;
                    #writes
                }
                w.put_record(&rec, #what)?;
            };
        }
        // A record that leads nowhere else is visited in its parent's loop
        // over the elements, without a call per element.
        let visit_inline = if descend.is_empty() {
            quote!(#[inline(always)])
        } else {
            quote!()
        };
        let methods = quote! {
            #type_id_const

            /// Writes this record at the writer's position. Offsets are
            /// left as zeros until their targets are placed.
            #[allow(unused_variables)]
            #[inline]
            #vis fn write_record(&self, w: &mut #rt::Writer) -> #rt::EncodeResult<()> {
                let start = w.pos();
                w.count_record(#type_id);
                #note
                #seed
                #writes
                Ok(())
            }

            /// Places what belongs to section `sec`, in pre- or post-order.
            /// `pos` is where this record was written.
            #[allow(unused_variables)]
            #visit_inline
            #vis fn visit<const SEC: usize, const POST: bool>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                let sec = SEC;
                if !POST {
                    #me::place_own::<SEC>(self, w, pos)?;
                }
                #descend
                if POST {
                    #me::place_own::<SEC>(self, w, pos)?;
                }
                Ok(())
            }

            /// Places the targets of this record's own offsets that
            /// belong to section `sec`, and patches the offsets.
            // One call site survives in each `visit::<SEC, POST>`, so
            // inlining copies nothing and lets a record's loop over its
            // elements run without a call per element.
            #[allow(unused_variables)]
            #[inline(always)]
            fn place_own<const SEC: usize>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                let sec = SEC;
                #own
                Ok(())
            }
        };
        Ok(self.impl_block(&s.name, "__Encode", methods))
    }

    /// `derive: Total`: the lengths of list field `of` of each element of
    /// list `list`, summed (an absent list, or an absent `of`, counts 0).
    fn total_write(
        &self,
        s: &StructDef,
        list: &str,
        of: &str,
        width: &Type,
        what: &str,
    ) -> syn::Result<TokenStream> {
        let optional = |t: &Type| matches!(t, Type::Ptr(p) if p.optional);
        let lf = s.fields.iter().find(|g| g.name == list);
        let elem = lf.map(|g| match &g.ty {
            Type::Ptr(p) => &p.to,
            t => t,
        });
        let es = match elem {
            Some(Type::List { of: e, .. } | Type::Array { of: e, .. }) => match &**e {
                Type::Named(n) => match self.c.get(n) {
                    Some(codec_schema::TypeDef::Struct(st)) => Some(st),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let (Some(lf), Some(es)) = (lf, es) else {
            return Err(Gen::err(format!(
                "`{what}`: `{list}` is not a list of records"
            )));
        };
        let Some(ef) = es.fields.iter().find(|g| g.name == of) else {
            return Err(Gen::err(format!(
                "`{what}`: `{of}` names no field of `{}`",
                es.name
            )));
        };
        let (lid, oid) = (ident(list), ident(of));
        let elems = if optional(&lf.ty) {
            quote!(self.#lid.iter().flatten())
        } else {
            quote!(self.#lid.iter())
        };
        let len = if optional(&ef.ty) {
            quote!(e.#oid.as_ref().map_or(0, |x| x.len()))
        } else {
            quote!(e.#oid.len())
        };
        let wt = width_tokens(width);
        Ok(quote! {
            let total: usize = #elems.map(|e| #len).sum();
            w.put_uint(#wt, total as u64, #what)?;
        })
    }

    /// Statements for `place_own`: place offset field `field`'s target when
    /// `sec` is its section, then patch the offset at `off` in the record
    /// (or, while the record is not written yet, keep the target for it).
    fn place_target(
        &self,
        s: &StructDef,
        field: &str,
        p: &Ptr,
        off: u64,
    ) -> syn::Result<TokenStream> {
        let rt = RT();
        let order = self.endian_const();
        let fid = ident(field);
        let what = format!("{}.{}", s.name, field);
        let wt = width_tokens(&p.width);
        let scale = p.scale;
        let base = self.wbase_expr(&p.base, quote!(rec));
        let patch = quote! {
            if pos == #rt::UNPLACED {
                w.defer(#rt::key_of(self), Self::TYPE_ID, #off, target);
            } else {
                let rec = pos;
                w.patch_offset(rec + #off, #wt, #base, #scale, target, #order, #what)?;
            }
        };
        if let Some(special) = self.place_construct(s, field, p, &patch)? {
            return Ok(special);
        }
        // An optional offset places its target only when there is one.
        let value = if p.optional {
            quote!(v)
        } else {
            quote!(&self.#fid)
        };
        let wrap = |body: TokenStream| -> TokenStream {
            if p.optional {
                quote! { if let Some(v) = &self.#fid { #body } }
            } else {
                body
            }
        };
        match &p.to {
            Type::Pool {} => {
                let si = p
                    .section
                    .as_deref()
                    .and_then(|n| self.c.section_id(n))
                    .unwrap_or(0);
                Ok(wrap(quote! {
                    if sec == #si {
                        let target: u64 = w.place_pool(#si);
                        #patch
                    }
                }))
            }
            Type::Switch { union, .. } | Type::Select { union, .. } => {
                let Some(TypeDef::Union(u)) = self.c.get(union) else {
                    return Err(Gen::err(format!("`{union}` is not a union")));
                };
                let un = ident(union);
                let mut arms = TokenStream::new();
                for v in &u.variants {
                    let vn = ident(&v.name);
                    let Some((si, ia)) = self.c.variant_placement(p, v) else {
                        continue;
                    };
                    let sec = self.c.section(si);
                    let place = self.place_value(&v.ty, quote!(v), &sec.dedup, ia, &what);
                    let lane = self.is_lane(si);
                    if let Some(place) =
                        exact_cstring(&v.ty, &sec.dedup, ia, &what, quote!(sec != #si && #lane))
                    {
                        // A string shared by content: placed in one call,
                        // into the lane when the walk is the section before.
                        let guard = if lane {
                            quote!(sec == #si || w.lane_is(#si))
                        } else {
                            quote!(sec == #si)
                        };
                        arms.extend(quote! {
                            #un::#vn(v) if #guard => Some(#place),
                        });
                        continue;
                    }
                    if lane {
                        // Also placed from the walk of the section before,
                        // into the lane that section opened for this one.
                        arms.extend(quote! {
                            #un::#vn(v) if sec == #si || w.lane_is(#si) => {
                                let lane = sec != #si;
                                if lane { w.enter_lane(); }
                                let target: u64 = { #place };
                                if lane { w.leave_lane(); }
                                Some(target)
                            }
                        });
                        continue;
                    }
                    arms.extend(quote! {
                        #un::#vn(v) if sec == #si => Some({ #place }),
                    });
                }
                // Each arm only places its variant's value; the offset to
                // it is patched once, after the match (one copy of the
                // patch, not one per variant).
                Ok(wrap(quote! {
                    let target: Option<u64> = match #value {
                        #arms
                        _ => None,
                    };
                    if let Some(target) = target {
                        #patch
                    }
                }))
            }
            to => {
                let si = p
                    .section
                    .as_deref()
                    .and_then(|n| self.c.section_id(n))
                    .unwrap_or(0);
                let sec = self.c.section(si);
                let ia = sec.item_align;
                let (value, align) = match &p.align {
                    Some(kept) => (quote!(&self.#fid.value), self.kept_align_expr(field, kept)?),
                    None => (value, quote!(#ia)),
                };
                let place = self.place_value_with(to, value.clone(), &sec.dedup, align, &what);
                // The end of a (start, end) pair is patched with the start.
                let end_patch = match self.c.end_pair(s, to) {
                    Some(Ok((eoff, ety, esize))) => {
                        let ewt = width_tokens(ety);
                        quote! {
                            if pos != #rt::UNPLACED {
                                let rec = pos;
                                let end = target + (#value).len() as u64 * #esize;
                                w.patch_offset(pos + #eoff, #ewt, #base, #scale, end, #order, #what)?;
                            }
                        }
                    }
                    Some(Err(m)) => return Err(Gen::err(m)),
                    None => quote!(),
                };
                Ok(wrap(quote! {
                    if sec == #si {
                        let target: u64 = { #place };
                        #patch
                        #end_patch
                    }
                }))
            }
        }
    }

    /// An expression block that writes `v` (a reference) into the current
    /// section and evaluates to the address an offset to it must hold.
    pub(crate) fn place_value(
        &self,
        t: &Type,
        v: TokenStream,
        dedup: &Dedup,
        item_align: u64,
        what: &str,
    ) -> TokenStream {
        if let Some(bits) = word_bits(t, dedup, item_align) {
            // One word in a section that reuses bytes at 4-aligned
            // positions (most values of such sections): looked up before
            // it is written, with one map probe inlined here.
            let order = self.endian_const();
            return quote! {
                let v = #v;
                w.place_word(#bits, #order)
            };
        }
        self.place_value_with(t, v, dedup, quote!(#item_align), what)
    }

    /// [`Gen::place_value`] with the alignment as an expression (a kept one).
    pub(crate) fn place_value_with(
        &self,
        t: &Type,
        v: TokenStream,
        dedup: &Dedup,
        item_align: TokenStream,
        what: &str,
    ) -> TokenStream {
        let (body, bias) = match t {
            Type::List { of, count } => {
                let elems = self.list_write(of, quote!(v), what);
                match &**count {
                    Count::Field(_) | Count::ToNext | Count::Sum(_) | Count::End(_) => {
                        (elems, 0u64)
                    }
                    Count::Before(ct) | Count::Prefix(ct) => {
                        let wt = width_tokens(ct);
                        let bias = match &**count {
                            Count::Before(_) => codec_schema::int_width(ct).unwrap_or(4),
                            _ => 0,
                        };
                        (
                            quote! {
                                w.put_uint(#wt, v.len() as u64, #what)?;
                                #elems
                            },
                            bias,
                        )
                    }
                }
            }
            Type::Named(n) if self.is_unit(n) => {
                let u = self.path_as(n, "__EncodeUnit");
                (
                    quote! {
                        #u::encode_unit(v, w)?;
                    },
                    0,
                )
            }
            t => (self.inline_write(t, quote!(v), what), 0),
        };
        if matches!(dedup, Dedup::None) {
            quote! {
                let v = #v;
                w.align(#item_align);
                let t = w.pos();
                #body
                t + #bias
            }
        } else {
            quote! {
                let v = #v;
                let start = w.begin_value(#item_align);
                #body
                w.end_value(start, #item_align) + #bias
            }
        }
    }

    /// Statements writing the value `v` (an expression of type `&T`) inline.
    /// Statements writing every element of the list `v` (a reference to a
    /// `Vec`): a list of `u8` as one copy, other numbers with one
    /// reservation, anything else element by element.
    pub(crate) fn list_write(&self, of: &Type, v: TokenStream, what: &str) -> TokenStream {
        let order = self.endian_const();
        match of {
            Type::U8 => quote!(w.put_bytes(&(#v)[..]);),
            Type::U16
            | Type::U32
            | Type::U64
            | Type::I16
            | Type::I32
            | Type::I64
            | Type::F32
            | Type::F64 => quote!(w.put_all(&(#v)[..], #order);),
            _ => {
                let e = self.inline_write(of, quote!(e), what);
                quote!(for e in (#v).iter() { #e })
            }
        }
    }

    pub(crate) fn inline_write(&self, t: &Type, v: TokenStream, what: &str) -> TokenStream {
        let rt = RT();
        match t {
            Type::U8 => quote!(w.put_u8(*#v);),
            // Written by its record (`encode_struct`), which knows its start.
            Type::Pad { .. } => quote!(compile_error!("padding stands only in a record");),
            Type::Text { tags, encoding, .. } => {
                self.text_write(tags.as_deref(), encoding.unit(), v, what)
            }
            // Written by its record, which places the slots' records.
            Type::HashSlots { .. } => {
                quote!(compile_error!("a table of hash slots stands only in a record");)
            }
            Type::U16
            | Type::U32
            | Type::U64
            | Type::I16
            | Type::I32
            | Type::I64
            | Type::F32
            | Type::F64 => {
                let order = self.endian_const();
                quote!(w.put_as(*#v, #order);)
            }
            Type::U24 => quote!(w.put_uint(#rt::Width::U24, u64::from(*#v), #what)?;),
            Type::I8 => quote!(w.put_i8(*#v);),
            Type::Bool8 => quote!(w.put_u8(u8::from(*#v));),
            Type::Bool32 => {
                let order = self.endian_const();
                quote!(w.put_as(u32::from(*#v), #order);)
            }
            Type::Magic(m) => {
                let lit = syn::LitByteStr::new(
                    &codec_schema::magic_bytes(m),
                    proc_macro2::Span::call_site(),
                );
                quote!(w.put_bytes(#lit);)
            }
            Type::Bytes(_) => quote!(w.put_bytes(&#v[..]);),
            Type::PString { len, encoding, nul } => {
                let wt = width_tokens(len);
                let unit = encoding.unit();
                quote!(w.put_prefixed_string(&#v, #wt, #unit, #nul, #what)?;)
            }
            Type::CString {
                max,
                pad,
                lossless,
                encoding,
                size,
            } => {
                let max = opt(*max);
                let pad = opt(*pad);
                let unit = encoding.unit();
                if let Some(n) = size {
                    quote!(w.put_cstring_sized(#v, #n, #unit, #what)?;)
                } else if unit > 1 {
                    quote!(w.put_cstring_units(#v, #unit, #max, #pad, #what)?;)
                } else if *lossless {
                    quote!(w.put_cbytes((#v).as_bytes(), #max, #pad, #what)?;)
                } else {
                    quote!(w.put_cstring(#v, #max, #pad, #what)?;)
                }
            }
            Type::Fixed { raw, .. } => self.inline_write(raw, v, what),
            Type::Index { table, width } => {
                let id = self.table_id(table);
                let wt = width_tokens(width);
                quote! {{
                    let i = w.interned().index(#id, #v, #what)?;
                    w.put_uint(#wt, i, #what)?;
                }}
            }
            Type::Table { .. } => quote!(),
            // A writer's choice: no bytes (`__encode` applies it).
            Type::SharesEqual { .. } => quote!(),
            Type::Ref {
                width,
                base,
                scale,
                to,
            } => self.ref_write(width, base, *scale, to, v, what),
            Type::Hash { .. } | Type::Rows { .. } | Type::Follows { .. } => {
                self.not_inline(t, what)
            }
            Type::Named(n) => {
                let p = self.path_as(n, "__Encode");
                quote!(#p::write_record(#v, w)?;)
            }
            Type::Array { of, .. } => {
                let e = self.inline_write(of, quote!(e), what);
                quote!(for e in (#v).iter() { #e })
            }
            Type::Str { pool, width } => self.str_write(pool, width, v, what),
            Type::Bits { word, fields } if fields.iter().any(|b| b.str.is_some()) => {
                self.str_bits_write(word, fields, v, what)
            }
            t @ Type::Groups { .. } => self.groups_write(t, v, what),
            Type::Bits { word, fields } => {
                let wt = width_tokens(word);
                let parts = crate::names::bit_ranges(fields).map(|(b, sh, mask)| {
                    let n = ident(&b.name);
                    let bwhat = format!("{what}.{}", b.name);
                    quote! {
                        let part = (#v).#n as u64;
                        if part > #mask {
                            return Err(#rt::EncodeError::new(#bwhat, format!("{part} does not fit in the bit range")));
                        }
                        word |= part << #sh;
                    }
                });
                quote! {{
                    let mut word: u64 = 0;
                    #(#parts)*
                    w.put_uint(#wt, word, #what)?;
                }}
            }
            Type::List { of, .. } => self.list_write(of, v, what),
            Type::Ptr(_) | Type::Switch { .. } | Type::Select { .. } | Type::Pool {} => quote!(),
        }
    }
}

impl Gen<'_> {
    /// The alignment a kept-aligned target of field `field` is placed with:
    /// its own, or glue's choice for a value without one.
    fn kept_align_expr(
        &self,
        field: &str,
        kept: &codec_schema::KeptAlign,
    ) -> syn::Result<TokenStream> {
        let rt = RT();
        let Some(hooks) = self.hooks else {
            return Err(Gen::err(format!(
                "`{field}` keeps its targets' alignment, chosen by glue `{}` for new values: pass `hooks = path::to::glue` to schema!",
                kept.hook()
            )));
        };
        let fid = ident(field);
        let hn = ident(kept.hook());
        Ok(
            quote!(#rt::placement::effective_align(self.#fid.align, || #hooks::#hn(&self.#fid.value))),
        )
    }

    /// Where, in an element of a sorted list field, its derived key goes:
    /// (offset, width).
    fn sort_key_slot(&self, f: &codec_schema::Field) -> syn::Result<(u64, TokenStream)> {
        match self.c.key_hash_sort(f) {
            Some(k) => match k.key_offset {
                Some(o) => Ok((o, width_tokens(&k.elem.fields[k.key_field].ty))),
                None => Err(Gen::err(format!(
                    "sort key `{}` of `{}` must be a field at a fixed offset of its elements",
                    k.elem.fields[k.key_field].name, f.name
                ))),
            },
            None => Err(Gen::err(format!(
                "`{}` is sorted by a key that is not hashed by glue (`KeyHash`)",
                f.name
            ))),
        }
    }
}

impl Gen<'_> {
    /// Can section `j` be filled as a lane in the walk of section `i` (see
    /// `codec_runtime::lane`)? Both are ordered by the same hook, and `j`
    /// holds plain values only: nothing placed there has offsets of its own
    /// to patch, and its padding is its alignment's.
    fn lane_with(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.c.section(i), self.c.section(j));
        let same_hook = matches!(
            (&a.order, &b.order),
            (Order::Hook { .. }, Order::Hook { .. })
        ) && a.order == b.order;
        if !same_hook
            || b.dedup == Dedup::Shared
            || b.pad > 1
            || b.end_align > 1
            || b.align % b.item_align.max(1) != 0
        {
            return false;
        }
        let mut plain = true;
        let mut targets_j = |sec: Option<&str>, t: &Type, align: Option<u64>| {
            if sec.and_then(|n| self.c.section_id(n)) == Some(j)
                && (!self.plain_value(t, 0) || align.is_some_and(|x| b.align % x != 0))
            {
                plain = false;
            }
        };
        for t in &self.c.schema.types {
            let TypeDef::Struct(st) = t else { continue };
            for f in &st.fields {
                match &f.ty {
                    Type::Ptr(p) => match &p.to {
                        Type::Switch { union, .. } | Type::Select { union, .. } => {
                            if let Some(TypeDef::Union(u)) = self.c.get(union) {
                                for v in &u.variants {
                                    let sec = v.section.as_deref().or(p.section.as_deref());
                                    targets_j(sec, &v.ty, v.align);
                                }
                            }
                        }
                        to => {
                            // Kept alignments and interned tables are placed their own way.
                            let special = p.align.is_some() || f.derive.is_some();
                            targets_j(
                                p.section.as_deref(),
                                if special { &Type::Pool {} } else { to },
                                None,
                            )
                        }
                    },
                    Type::Follows { section, .. } => targets_j(Some(section), &Type::Pool {}, None),
                    Type::List { of, .. } if matches!(**of, Type::Ptr(_)) => {
                        let Type::Ptr(p) = &**of else { continue };
                        targets_j(p.section.as_deref(), &Type::Pool {}, None);
                    }
                    _ => {}
                }
            }
        }
        plain
    }

    /// Is section `j` filled as a lane of the section before it?
    fn is_lane(&self, j: usize) -> bool {
        j > 0 && self.lane_with(j - 1, j)
    }

    /// Is `t` written as plain bytes, with nothing in it to patch or place?
    fn plain_value(&self, t: &Type, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        match t {
            t if crate::names::is_prim(t) => true,
            Type::Bool8 | Type::Bool32 | Type::Magic(_) | Type::Bytes(_) | Type::CString { .. } => {
                true
            }
            Type::Fixed { raw, .. } => self.plain_value(raw, depth + 1),
            Type::Array { of, .. } => self.plain_value(of, depth + 1),
            Type::List { of, count } => {
                matches!(**count, Count::Before(_) | Count::Prefix(_))
                    && self.plain_value(of, depth + 1)
            }
            Type::Named(n) if !self.is_unit(n) => match self.c.get(n) {
                Some(TypeDef::Struct(st)) => st.fields.iter().all(|f| {
                    f.derive.is_none() && f.align.is_none() && self.plain_value(&f.ty, depth + 1)
                }),
                _ => false,
            },
            _ => false,
        }
    }
}

fn dedup_tokens(d: &Dedup) -> TokenStream {
    let rt = RT();
    match d {
        // Shared records are found by shape where they are placed.
        Dedup::None | Dedup::Shared => quote!(#rt::Dedup::None),
        Dedup::Exact => quote!(#rt::Dedup::Exact),
        Dedup::ByteSearch { align } => quote!(#rt::Dedup::ByteSearch { align: #align }),
    }
}

fn opt(v: Option<u64>) -> TokenStream {
    match v {
        Some(n) => quote!(::std::option::Option::Some(#n)),
        None => quote!(::std::option::Option::None),
    }
}

/// The value `v` (a reference) as the `u32` whose bytes it is written as,
/// for a one-word type placed in a section that byte-searches at 4-aligned
/// positions ([`Writer::place_word`](codec_runtime::Writer::place_word));
/// `None` for anything else.
fn word_bits(t: &Type, dedup: &Dedup, item_align: u64) -> Option<TokenStream> {
    if !matches!(dedup, Dedup::ByteSearch { align: 4 }) || item_align != 4 {
        return None;
    }
    Some(match t {
        Type::U32 => quote!(*v),
        Type::I32 => quote!(*v as u32),
        Type::F32 => quote!(v.to_bits()),
        Type::Bool32 => quote!(u32::from(*v)),
        _ => return None,
    })
}

/// The call placing a NUL-terminated string `v` (a reference) in a section
/// that shares values by exact content
/// ([`Writer::place_cstring_exact`](codec_runtime::Writer::place_cstring_exact)),
/// into the lane when `in_lane` holds; `None` for anything else.
fn exact_cstring(
    t: &Type,
    dedup: &Dedup,
    item_align: u64,
    what: &str,
    in_lane: TokenStream,
) -> Option<TokenStream> {
    let Type::CString {
        max,
        pad,
        lossless: false,
        encoding: codec_schema::Encoding::Utf8,
        size: None,
    } = t
    else {
        return None;
    };
    if !matches!(dedup, Dedup::Exact) {
        return None;
    }
    let (max, pad) = (opt(*max), opt(*pad));
    Some(quote!(w.place_cstring_exact(v, #max, #pad, #item_align, #in_lane, #what)?))
}

/// Whether a record's field writes only call the writer's plain methods
/// (those [`RecordBuf`](codec_runtime::RecordBuf) has too) and never pass
/// the writer on, so that they can fill a record buffer instead.
fn plain_record_writes(writes: &TokenStream) -> bool {
    const PLAIN: &[&str] = &[
        "put_u8",
        "put_i8",
        "put_u16",
        "put_i16",
        "put_u24",
        "put_u32",
        "put_i32",
        "put_u64",
        "put_i64",
        "put_f32",
        "put_f64",
        "put_as",
        "put_bytes",
        "put_uint",
    ];
    fn scan(ts: TokenStream, plain: &mut bool) {
        let tokens: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
        for (i, t) in tokens.iter().enumerate() {
            match t {
                proc_macro2::TokenTree::Group(g) => scan(g.stream(), plain),
                proc_macro2::TokenTree::Ident(id) if id == "w" => {
                    let method = match (tokens.get(i + 1), tokens.get(i + 2)) {
                        (
                            Some(proc_macro2::TokenTree::Punct(dot)),
                            Some(proc_macro2::TokenTree::Ident(m)),
                        ) if dot.as_char() == '.' => m.to_string(),
                        _ => String::new(),
                    };
                    if !PLAIN.contains(&method.as_str()) {
                        *plain = false;
                    }
                }
                _ => {}
            }
        }
    }
    let mut plain = !writes.is_empty();
    scan(writes.clone(), &mut plain);
    plain
}
