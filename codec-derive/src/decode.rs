//! Decoding: each struct reads its fields in file order at increasing
//! positions, then follows its offsets. Errors gain their field path on the
//! way up (`.in_field`, `.at_index`), so the success path builds no strings.

use crate::names::{bits_struct, ident, is_prim, local, read_uint};
use crate::Gen;
use codec_schema::{
    Checked, Count, Derive, Field, FieldRead, Follow, Ptr, StructDef, Type, TypeDef, UnionDef,
};
use proc_macro2::TokenStream;
use quote::quote;

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

impl Gen<'_> {
    pub(crate) fn decode(&self) -> TokenStream {
        let rt = RT();
        let mut out = TokenStream::new();
        for t in &self.c.schema.types {
            out.extend(match t {
                TypeDef::Struct(s) => self.decode_struct(s),
                TypeDef::Union(u) if u.inline_tag => self.decode_tagged_union(u),
                TypeDef::Union(u) if u.peek => self.decode_peek_union(u),
                TypeDef::Union(u) if self.is_cell_union(&u.name) => self.cells_impl(u),
                TypeDef::Union(u) => self.decode_union(u),
            });
            if let TypeDef::Struct(s) = t {
                if s.layout.is_some() {
                    out.extend(self.decode_unit_fn(s));
                }
            }
        }
        if self.variant.is_some() {
            return out;
        }
        let root = ident(&self.c.schema.root);
        let root_name = &self.c.schema.root;
        let endian = crate::endian_tokens(self.c.schema.endian);
        out.extend(quote! {
            /// The file's byte order.
            pub const ENDIAN: #rt::Endian = #endian;

            /// Decodes a whole file with the default resource limits.
            pub fn decode(data: &[u8]) -> #rt::DecodeResult<#root> {
                decode_with(data, #rt::Limits::default())
            }

            /// Decodes a whole file with explicit resource limits.
            pub fn decode_with(data: &[u8], limits: #rt::Limits) -> #rt::DecodeResult<#root> {
                decode_from(#rt::Reader::with_limits(data, ENDIAN, limits))
            }

            /// Decodes a whole file whose blobs are ranges of `data` rather
            /// than copies (see `codec_runtime::Blob`).
            pub fn decode_shared(data: &#rt::SharedInput) -> #rt::DecodeResult<#root> {
                decode_shared_with(data, #rt::Limits::default())
            }

            /// [`decode_shared`] with explicit resource limits.
            pub fn decode_shared_with(data: &#rt::SharedInput, limits: #rt::Limits) -> #rt::DecodeResult<#root> {
                decode_from(#rt::Reader::shared(data, ENDIAN, limits))
            }

            fn decode_from(mut r: #rt::Reader<'_>) -> #rt::DecodeResult<#root> {
                #root::decode_at(&mut r, 0)
                    .map(|(v, _)| v)
                    .map_err(|e| e.within(#rt::PathSeg::Type(::std::borrow::Cow::Borrowed(#root_name))))
            }
        });
        out
    }

    fn decode_struct(&self, s: &StructDef) -> TokenStream {
        let rt = RT();
        let name = ident(&s.name);
        let mut reads = TokenStream::new();
        let mut follows = TokenStream::new();
        let mut build = Vec::new();
        let mut checks = TokenStream::new();
        // A fixed-size record of plain fields is read with one bounds check;
        // the field-by-field reads remain for a record the file cuts short,
        // so that the error names the field where the cut falls.
        let fast = self.fast_record(s);
        // Or its leading fields of fixed size, read that way; the reads of
        // the rest follow (`split`: the reads, bounds and section starts
        // of those leading fields, for the path of a record the file cuts
        // short).
        let prefix = fast.is_none().then(|| self.fast_prefix(s)).flatten();
        let mut split = None;
        let mut late = TokenStream::new();
        let mut bounds = TokenStream::new();
        let mut ctx_pop = TokenStream::new();
        let mut prestep = self.pool_prestep(s);
        prestep.extend(self.first_section_prestep(s));
        // Section starts read by a fixed-size record's fast path.
        let mut starts = TokenStream::new();
        let poststep = self.pool_poststep(s);
        for (fi, f) in s.fields.iter().enumerate() {
            if prefix.as_ref().is_some_and(|(k, ..)| *k == fi) {
                split = Some((
                    std::mem::take(&mut reads),
                    std::mem::take(&mut bounds),
                    std::mem::take(&mut starts),
                ));
            }
            let fname = &f.name;
            let v = local("f", fname);
            let at = local("at", fname);
            if let Some(a) = f.align.filter(|&a| a > 1) {
                reads.extend(quote!(p = pos + (p - pos).next_multiple_of(#a);));
            }
            let stored = |build: &mut Vec<TokenStream>| {
                if Checked::is_stored(f) {
                    let fid = ident(fname);
                    build.push(quote!(#fid: #v));
                }
            };
            match self.c.field_read(s, f) {
                FieldRead::InternedTable { .. }
                | FieldRead::SharesEqual { .. }
                | FieldRead::TableBody { .. }
                | FieldRead::Word { .. } => {
                    let Some((r1, f1)) = self.tree_field_read(s, f) else {
                        let msg = format!(
                            "codec-derive: `{}.{fname}`: no reading for this field (internal)",
                            s.name
                        );
                        reads.extend(quote!(::core::compile_error!(#msg);));
                        continue;
                    };
                    reads.extend(r1);
                    follows.extend(f1);
                    stored(&mut build);
                    continue;
                }
                FieldRead::SizedUnit { unit, size } => {
                    // A unit laid out inline, as long as its size says.
                    let tn = self.path_as(unit, "__DecodeUnit");
                    let (len, len_at) = (local("raw", size), local("at", size));
                    reads.extend(quote! {
                        let #v = match #tn::decode_unit_in(r, p, Some(#len), #len_at) {
                            Ok(v) => v,
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                        p += #len;
                    });
                    stored(&mut build);
                    continue;
                }
                FieldRead::Pad { align, fill } => {
                    reads.extend(quote! {
                        let #v = match #rt::pad::read_pad(r.data(), pos, p, #align, #fill) {
                            Ok((b, end)) => {
                                p = end;
                                b
                            }
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                    });
                    stored(&mut build);
                    continue;
                }
                FieldRead::Offset { ptr: p, then } => {
                    let raw = local("raw", fname);
                    let read = read_uint(&p.width, quote!(p));
                    let w = codec_schema::int_width(&p.width).unwrap_or(4);
                    let bound = self.bound_stmt(s, fname, p);
                    reads.extend(quote! {
                        let #at = p;
                        let #raw = match #read { Ok(v) => v, Err(e) => return Err(e.in_field(#fname)) };
                        p += #w;
                        #bound
                    });
                    bounds.extend(bound);
                    let rty = self.rust_ty(&f.ty, &s.name, &f.name);
                    match then {
                        Follow::IfPresent => {
                            let ity = self.target_rust_ty(s, f, p);
                            let follow = self.follow(s, f.name.as_str(), p);
                            follows.extend(quote! {
                                let #v: #rty = if #raw == 0 {
                                    None
                                } else {
                                    match (|| -> #rt::DecodeResult<#ity> { #follow })() {
                                        Ok(v) => Some(v),
                                        Err(e) => return Err(e.in_field(#fname)),
                                    }
                                };
                            });
                        }
                        Follow::Ended => {
                            // A `Follows` field starts where this target ends.
                            let follow = self.follow_ended(s, f.name.as_str(), p);
                            let end = local("end", fname);
                            follows.extend(quote! {
                                let (#v, #end): (#rty, u64) = match (|| -> #rt::DecodeResult<(#rty, u64)> { #follow })() {
                                    Ok(v) => v,
                                    Err(e) => return Err(e.in_field(#fname)),
                                };
                            });
                        }
                        Follow::InOrder | Follow::Late => {
                            let follow = self.follow(s, f.name.as_str(), p);
                            let stmt = quote! {
                                let #v: #rty = match (|| -> #rt::DecodeResult<#rty> { #follow })() {
                                    Ok(v) => v,
                                    Err(e) => return Err(e.in_field(#fname)),
                                };
                            };
                            // Rows are laid out by the columns: read them last.
                            if then == Follow::Late {
                                late.extend(stmt);
                            } else {
                                follows.extend(stmt);
                            }
                        }
                    }
                }
                FieldRead::Follows { after, to, .. } => {
                    let body = self.follows_read(s, fname, after, to);
                    let rty = self.rust_ty(&f.ty, &s.name, &f.name);
                    follows.extend(quote! {
                        let #v: #rty = match (|| -> #rt::DecodeResult<#rty> { #body })() {
                            Ok(v) => v,
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                    });
                }
                FieldRead::List { of, count } | FieldRead::Words { of, count, .. } => {
                    // Lists of words, lists whose elements' tags another
                    // list holds, and lists kept in the order their targets
                    // were placed.
                    if let Some((r1, f1)) = self.tree_field_read(s, f) {
                        reads.extend(r1);
                        follows.extend(f1);
                        stored(&mut build);
                        continue;
                    }
                    let (r1, f1) = self.list_field_read(s, fname, of, count);
                    reads.extend(r1);
                    reads.extend(self.ascending_keys_check(f));
                    follows.extend(f1);
                }
                FieldRead::Groups(t) => {
                    reads.extend(self.groups_read(s, fname, t));
                }
                FieldRead::Derived { width, derive } => {
                    let raw = local("raw", fname);
                    let read = read_uint(width, quote!(p));
                    let w = codec_schema::int_width(width).unwrap_or(4);
                    // A file size that disagrees with the input means a cut
                    // or padded file: say so rather than decode part of it.
                    let verify = if *derive == Derive::FileSize && f.verify {
                        quote! {
                            if let Err(e) = r.check_file_size(#at, #raw) {
                                return Err(e.in_field(#fname));
                            }
                        }
                    } else {
                        quote!()
                    };
                    reads.extend(quote! {
                        let #at = p;
                        let #raw = match #read { Ok(v) => v, Err(e) => return Err(e.in_field(#fname)) };
                        let _ = (#at, #raw);
                        p += #w;
                    });
                    // Offsets counted from the section start (`base: Section`)
                    // in the records read next need it.
                    if let Derive::SectionStart(sn) = derive {
                        let id = self.c.section_id(sn).unwrap_or(0);
                        reads.extend(quote!(r.set_section_start(#id, #raw);));
                        starts.extend(quote!(r.set_section_start(#id, #raw);));
                    }
                    // Checked last, so that a cut inside a record is reported there.
                    checks.extend(verify);
                }
                FieldRead::External { len, ty } => {
                    let ty = crate::types::external_ty(ty);
                    reads.extend(quote! {
                        let (#v, next): (#ty, u64) = match #rt::external::read::<#ty>(r, p, #len) {
                            Ok(v) => v,
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                        p = next;
                    });
                }
                FieldRead::HashSlots(t) => {
                    reads.extend(self.hash_slots_read(fname, t));
                }
                FieldRead::Inline(t) => {
                    let read = self.inline_read(t, quote!(p), &s.name, fname);
                    reads.extend(quote! {
                        let (#v, next) = match #read { Ok(v) => v, Err(e) => return Err(e.in_field(#fname)) };
                        p = next;
                    });
                }
            }
            // A context value is known from its read on, for the fields
            // that follow (their offsets, inline groups) and the follows.
            if f.context {
                let push = quote!(r.push_context(#fname, #v as u64););
                reads.extend(push.clone());
                bounds.extend(push);
                ctx_pop.extend(quote!(r.pop_context();));
            }
            if Checked::is_stored(f) {
                let fid = ident(fname);
                build.push(quote!(#fid: #v));
            }
        }
        checks.extend(self.stored_align_checks(s));
        build.extend(self.missing_fields(s));
        let notes = self.decode_notes(s);
        let endian = self.endian_const();
        let reads = match (fast, prefix.zip(split)) {
            (Some((size, fast_reads, locals)), _) => {
                checked_at_once(&endian, size, fast_reads, &locals, bounds, reads)
            }
            (None, Some(((_, size, fast_reads, locals), (first, first_bounds, first_starts)))) => {
                let head = checked_at_once(
                    &endian,
                    size,
                    fast_reads,
                    &locals,
                    quote!(#first_bounds #first_starts),
                    first,
                );
                quote!(#head #reads)
            }
            _ => reads,
        };
        let _ = &name;
        let vis = self.vis();
        let (pre, post) = notes;
        let note_targets = self.note_targets_fn(s);
        let inline_targets = self.inline_targets_stmt(s);
        // A record holding an inline list (BYML's array) is read inside its
        // holder's read: returned from a call, the small value came back
        // through memory and the holder's wider loads of it stalled on
        // store forwarding, once per small container.
        let inline_attr = if s.fields.iter().any(|f| f.inline) {
            quote!(#[inline(always)])
        } else {
            quote!(#[inline])
        };
        self.impl_block(
            &s.name,
            "__Decode",
            quote! {
                /// Decodes the record at `pos` and what its offsets point to;
                /// returns the value and the position after the record.
                #[allow(unused_mut, unused_variables, clippy::redundant_closure_call)]
                #inline_attr
                #vis fn decode_at(r: &mut #rt::Reader<'_>, pos: u64) -> #rt::DecodeResult<(Self, u64)> {
                    let mut p = pos;
                    #inline_targets
                    #prestep
                    #pre
                    #reads
                    #starts
                    #post
                    #follows
                    #late
                    #ctx_pop
                    #poststep
                    #checks
                    Ok((Self { #(#build,)* }, p))
                }

                #note_targets
            },
        )
    }

    /// Checks of the alignments `s` stores for its `align_by` fields
    /// (`Reader::stored_align`), on the values just read.
    fn stored_align_checks(&self, s: &StructDef) -> TokenStream {
        let offsets = self.c.field_offsets(s);
        let mut out = TokenStream::new();
        for f in &s.fields {
            let Some(by) = f.align_by.as_deref() else {
                continue;
            };
            let Some(j) = s.fields.iter().position(|g| g.name == by) else {
                continue;
            };
            let g = &s.fields[j];
            let v = if Checked::is_stored(g) {
                local("f", by)
            } else {
                local("raw", by)
            };
            let at = match offsets[j] {
                Some(o) => quote!(pos + #o),
                None => quote!(pos),
            };
            out.extend(quote! {
                if let Err(e) = r.stored_align(#at, u64::from(#v)) {
                    return Err(e.in_field(#by));
                }
            });
        }
        out
    }

    /// For a fixed-size record whose fields are all plain (numbers, bools,
    /// magic, bytes, offsets, arrays of numbers): its size, statements that
    /// read every field from `rec: [u8; size]` (endianness `e`), and the
    /// locals they define (the same ones the field-by-field reads define).
    fn fast_record(&self, s: &StructDef) -> Option<(usize, TokenStream, Vec<proc_macro2::Ident>)> {
        let size = self.c.fixed_size(&Type::Named(s.name.clone()))? as usize;
        if !s.fields.iter().all(fast_field) {
            return None;
        }
        let (out, locals) = self.fast_fields(s, s.fields.len())?;
        Some((size, out, locals))
    }

    /// For a record of variable size: its leading fields of fixed size and
    /// place, read as one record ([`Gen::fast_record`]) when there are two
    /// or more of them. Returns how many, their size, their reads and the
    /// locals they set. A BYML container's type byte and count are one
    /// load and one bounds check this way, once per container (issue 51).
    fn fast_prefix(
        &self,
        s: &StructDef,
    ) -> Option<(usize, usize, TokenStream, Vec<proc_macro2::Ident>)> {
        if self.c.fixed_size(&Type::Named(s.name.clone())).is_some() {
            return None;
        }
        let offsets = self.c.field_offsets(s);
        let mut k = 0;
        let mut size = 0u64;
        for (f, off) in s.fields.iter().zip(&offsets) {
            let (Some(off), Some(fsize)) = (*off, self.c.fixed_size(&f.ty)) else {
                break;
            };
            if !fast_field(f) || f.when.is_some() || off != size {
                break;
            }
            size = off + fsize;
            k += 1;
        }
        if k < 2 || k == s.fields.len() {
            return None;
        }
        let (out, locals) = self.fast_fields(s, k)?;
        Some((k, size as usize, out, locals))
    }

    /// The reads of `s`'s first `k` fields from `rec`, the bytes of a
    /// fixed-size record or prefix already bounds-checked, and the locals
    /// they set.
    fn fast_fields(
        &self,
        s: &StructDef,
        k: usize,
    ) -> Option<(TokenStream, Vec<proc_macro2::Ident>)> {
        let rt = RT();
        let offsets = self.c.field_offsets(s);
        let mut out = TokenStream::new();
        let mut locals = Vec::new();
        for (f, off) in s.fields.iter().zip(&offsets).take(k) {
            let o = (*off)? as usize;
            let fname = &f.name;
            let at = local("at", fname);
            let raw = local("raw", fname);
            let v = local("f", fname);
            let ou = o as u64;
            match (&f.ty, &f.derive) {
                (Type::Ptr(p), _) => {
                    let read = field_read(&p.width, quote!(&rec[#o..]))?;
                    out.extend(quote! { let #at = pos + #ou; let #raw = u64::from(#read); });
                    locals.push(at);
                    locals.push(raw);
                }
                (t, Some(_)) => {
                    let read = field_read(t, quote!(&rec[#o..]))?;
                    out.extend(quote! { let #at = pos + #ou; let #raw = u64::from(#read); });
                    locals.push(at);
                    locals.push(raw);
                }
                (Type::Magic(m), None) => {
                    let lit = syn::LitByteStr::new(
                        &codec_schema::magic_bytes(m),
                        proc_macro2::Span::call_site(),
                    );
                    let n = m.chars().count();
                    out.extend(quote! {
                        if &rec[#o..#o + #n] != #lit {
                            r.magic(pos + #ou, #lit).map_err(|e| e.in_field(#fname))?;
                        }
                    });
                }
                (Type::Bool8 | Type::Bool32, None) => {
                    let int = if matches!(f.ty, Type::Bool8) {
                        Type::U8
                    } else {
                        Type::U32
                    };
                    let read = field_read(&int, quote!(&rec[#o..]))?;
                    out.extend(quote! {
                        let #v = r.bool_from(pos + #ou, u64::from(#read)).map_err(|e| e.in_field(#fname))?;
                    });
                    locals.push(v);
                }
                (Type::Str { pool, width }, None) => {
                    let read = field_read(width, quote!(&rec[#o..]))?;
                    let id = self.pool_id(pool);
                    out.extend(quote! {
                        let #v = r.pool_str(#id, pos + #ou, u64::from(#read)).map_err(|e| e.in_field(#fname))?;
                    });
                    locals.push(v);
                }
                (Type::Bytes(n), None) => {
                    let n = *n as usize;
                    out.extend(quote! {
                        let mut #v = [0u8; #n];
                        #v.copy_from_slice(&rec[#o..#o + #n]);
                    });
                    locals.push(v);
                }
                (Type::Array { of, len }, None) => {
                    let esize = self.c.fixed_size(of)? as usize;
                    let read = field_read(of, quote!(&rec[#o + i * #esize..]))?;
                    let ety = self.rust_ty(of, &s.name, fname);
                    let n = *len as usize;
                    out.extend(quote! {
                        let mut #v = [<#ety>::default(); #n];
                        for (i, slot) in #v.iter_mut().enumerate() {
                            *slot = #read;
                        }
                    });
                    locals.push(v);
                }
                (t, None) => {
                    let read = field_read(t, quote!(&rec[#o..]))?;
                    out.extend(quote! { let #v = #read; });
                    locals.push(v);
                }
            }
        }
        let _ = rt;
        Some((out, locals))
    }

    /// For the file's root: when an offset counts from the layout's first
    /// section and no field stores that section's start, the section starts
    /// where the root record ends. The root's size is worked out before its
    /// fields are read (their records need the base): fixed fields, and
    /// lists counted by a field at a fixed offset before them.
    fn first_section_prestep(&self, s: &StructDef) -> TokenStream {
        let rt = RT();
        let Some((id, parts, align)) = self.c.first_section_parts(s) else {
            return TokenStream::new();
        };
        let parts = parts.iter().map(|p| match *p {
            codec_schema::RootPart::Fixed(n) => quote!(#rt::placement::RootPart::Fixed(#n)),
            codec_schema::RootPart::Counted { count_at, ref width, elem } => {
                let wt = crate::names::width_tokens(width);
                quote!(#rt::placement::RootPart::Counted { count_at: #count_at, width: #wt, elem: #elem })
            }
        });
        quote! {
            r.note_first_section(#id, pos, &[#(#parts),*], #align);
        }
    }

    /// The body of a closure returning the target of offset field `field`.
    pub(crate) fn follow(&self, s: &StructDef, field: &str, p: &Ptr) -> TokenStream {
        let body = self.follow_target(s, field, p);
        if p.align.is_none() {
            return body;
        }
        // Kept alignment: the target's own, found from where it lies in its
        // section (see `codec_runtime::placement::kept_align`).
        let rt = RT();
        let at = local("at", field);
        let raw = local("raw", field);
        let scale = p.scale;
        let base = self.base_expr(&p.base, quote!(pos));
        let inner = self.rust_ty(&p.to, &s.name, field);
        let sid = p
            .section
            .as_deref()
            .and_then(|n| self.c.section_id(n))
            .unwrap_or(0);
        quote! {
            let t = r.target(#at, #base, #raw, #scale)?;
            let start = r.section_base(#sid);
            let value: #inner = (|| -> #rt::DecodeResult<#inner> { #body })()?;
            Ok(#rt::Aligned { align: #rt::placement::kept_align(t, start), value })
        }
    }

    /// The body of a closure returning the value offset field `field` leads
    /// to (without its kept alignment).
    fn follow_target(&self, s: &StructDef, field: &str, p: &Ptr) -> TokenStream {
        let rt = RT();
        let at = local("at", field);
        let raw = local("raw", field);
        let scale = p.scale;
        let base = self.base_expr(&p.base, quote!(pos));
        let target = quote! { let t = r.target(#at, #base, #raw, #scale)?; };
        if let Some(special) = self.follow_construct(s, field, p) {
            return special;
        }
        match &p.to {
            Type::Named(n) => {
                let tn = self.path_as(n, "__Decode");
                let size = self.c.fixed_size(&p.to).unwrap_or(1);
                let boxed = crate::names::contains_directly(self.c, &p.to, &s.name, 0);
                let wrap = if boxed {
                    quote!(::std::boxed::Box::new(v))
                } else {
                    quote!(v)
                };
                let note = self.note_shared(p);
                quote! {
                    #target
                    #note
                    r.enter(#at, t, #size)?;
                    let (v, _) = #tn::decode_at(r, t)?;
                    r.leave();
                    Ok(#wrap)
                }
            }
            Type::List { of, count } => {
                let (count_expr, start) = match &**count {
                    Count::Field(c) => {
                        let rc = local("raw", c);
                        (quote!(#rc), quote!(t))
                    }
                    Count::Before(ct) => {
                        let w = codec_schema::int_width(ct).unwrap_or(4);
                        (quote!(r.count_before(#at, t, #w)?.0), quote!(t))
                    }
                    Count::Prefix(ct) => {
                        let w = codec_schema::int_width(ct).unwrap_or(4);
                        (quote!(r.count_prefix(t, #w)?.0), quote!(t + #w))
                    }
                    Count::Sum(_) => (quote!(0u64), quote!(t)),
                    Count::End(e) => {
                        let re = local("raw", e);
                        let ae = local("at", e);
                        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
                        (
                            quote!(#rt::base::checked::count_to_end(r.data(), #ae, #base, #re, #scale, t, #esize)?),
                            quote!(t),
                        )
                    }
                    Count::ToNext => {
                        let fi = s.fields.iter().position(|g| g.name == field).unwrap_or(0);
                        let rank = self.c.target_rank(s, fi);
                        let seq =
                            self.seq_read(of, quote!(t), &at, &s.name, field, quote!(Some(#rank)));
                        return quote! {
                            #target
                            #seq.map(|(v, _)| v)
                        };
                    }
                };
                let list = self.list_read(of, quote!(n), quote!(start), &at, &s.name, field);
                quote! {
                    #target
                    let n: u64 = #count_expr;
                    let start: u64 = #start;
                    #list
                }
            }
            Type::Switch { union, tag } => {
                let un = self.path_as(union, "__Payload");
                let rt_ = local("raw", tag);
                let at_tag = local("at", tag);
                quote! {
                    #target
                    #un::decode_payload(r, #rt_, t, #at, #at_tag)
                }
            }
            Type::Select { union, hook } => self.select_follow(union, hook, &at, target),
            Type::Pool {} => {
                let fi = s.fields.iter().position(|g| g.name == field).unwrap_or(0);
                let rank = self.c.target_rank(s, fi);
                quote! {
                    #target
                    let end = r.list_end(t, Some((#rank, #at)));
                    r.pool_strings(#at, t, end)
                }
            }
            other => {
                let read = self.inline_read(other, quote!(t), &s.name, field);
                let size = self.c.fixed_size(other).unwrap_or(0);
                quote! {
                    #target
                    r.charge(#at, #size)?;
                    #read.map(|(v, _)| v)
                }
            }
        }
    }

    /// Statements ending in `Ok(list)`: `n` elements of `of` from `start`,
    /// as [`Gen::list_ty`] types them (bytes: a blob, one range or copy).
    pub(crate) fn list_read(
        &self,
        of: &Type,
        n: TokenStream,
        start: TokenStream,
        at: &proc_macro2::Ident,
        owner: &str,
        field: &str,
    ) -> TokenStream {
        self.list_read_ending(of, n, start, at, owner, field, false)
    }

    /// [`Gen::list_read`], ending in `Ok((list, end))` when `ends`: the
    /// position after the last element, for elements that differ in size
    /// (read one after the other; the record goes on where they end).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn list_read_ending(
        &self,
        of: &Type,
        n: TokenStream,
        start: TokenStream,
        at: &proc_macro2::Ident,
        owner: &str,
        field: &str,
        ends: bool,
    ) -> TokenStream {
        let rt = RT();
        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
        let ety = self.rust_ty(of, owner, field);
        // Bytes: a blob, a range of a shared input or one copy. Numbers:
        // one bounds check and one pass over the run, rather than a read
        // and a push per element.
        let body = if matches!(of, Type::U8) {
            quote! {
                let out = r.blob(start, n)?;
            }
        } else if is_prim(of) {
            let endian = self.endian_const();
            let one = field_read(of, quote!(c)).unwrap_or_default();
            let read = quote!(#rt::reader::numbers::each(rec, #esize, |c| #one));
            quote! {
                let rec = r.bytes(start, n * #esize)?;
                let e = #endian;
                let out: ::std::vec::Vec<#ety> = #read;
            }
        } else {
            let elem = self.inline_read(of, quote!(q), owner, field);
            quote! {
                let mut out: ::std::vec::Vec<#ety> = ::std::vec::Vec::with_capacity(n as usize);
                let mut q = start;
                for i in 0..n as usize {
                    let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(i)) };
                    #rt::reader::push_in_room(&mut out, e);
                    q = next;
                }
            }
        };
        let (empty, done) = if ends {
            // Only elements read one by one (`q`) differ in size.
            (
                quote!(Ok((::std::default::Default::default(), start))),
                quote!(Ok((out.into(), q))),
            )
        } else {
            (
                quote!(Ok(::std::default::Default::default())),
                quote!(Ok(out)),
            )
        };
        quote! {
            let n: u64 = #n;
            let start: u64 = #start;
            r.check_count(#at, start, n, #esize)?;
            if n == 0 {
                return #empty;
            }
            r.enter(#at, start, n * #esize)?;
            #body
            r.leave();
            #done
        }
    }

    /// An expression of type `DecodeResult<(T, u64)>`: the value at `start`
    /// and the position after it.
    pub(crate) fn inline_read(
        &self,
        t: &Type,
        start: TokenStream,
        owner: &str,
        field: &str,
    ) -> TokenStream {
        let rt = RT();
        let prim =
            |m: TokenStream, n: u64| quote! {{ let s: u64 = #start; r.#m(s).map(|v| (v, s + #n)) }};
        match t {
            Type::U8 => prim(quote!(u8), 1),
            // Read by its record (`decode_struct`), which knows its start.
            Type::Pad { .. } => quote!(compile_error!("padding stands only in a record")),
            Type::Text {
                tags,
                encoding,
                lossless,
            } => {
                let unit = encoding.unit();
                let (opens, record) = self.text_tags(tags.as_deref());
                quote! {{
                    let s: u64 = #start;
                    #rt::tagged_text::read(r, s, #unit, #lossless, #opens, #record)
                }}
            }
            // Read by its record (`hash_slots_read`), which knows the slot count.
            Type::HashSlots { .. } => {
                quote!(compile_error!(
                    "a table of hash slots stands only in a record"
                ))
            }
            Type::U16 => prim(quote!(u16), 2),
            Type::U24 => prim(quote!(u24), 3),
            Type::U32 => prim(quote!(u32), 4),
            Type::U64 => prim(quote!(u64), 8),
            Type::I8 => prim(quote!(i8), 1),
            Type::I16 => prim(quote!(i16), 2),
            Type::I32 => prim(quote!(i32), 4),
            Type::I64 => prim(quote!(i64), 8),
            Type::F32 => prim(quote!(f32), 4),
            Type::F64 => prim(quote!(f64), 8),
            Type::Bool8 => {
                quote! {{ let s: u64 = #start; r.u8(s).and_then(|v| r.bool_from(s, v as u64)).map(|v| (v, s + 1)) }}
            }
            Type::Bool32 => {
                quote! {{ let s: u64 = #start; r.u32(s).and_then(|v| r.bool_from(s, v as u64)).map(|v| (v, s + 4)) }}
            }
            Type::Magic(m) => {
                let lit = syn::LitByteStr::new(
                    &codec_schema::magic_bytes(m),
                    proc_macro2::Span::call_site(),
                );
                let n = m.chars().count() as u64;
                quote! {{ let s: u64 = #start; r.magic(s, #lit).map(|()| ((), s + #n)) }}
            }
            Type::Bytes(n) => {
                let k = *n as usize;
                quote! {{ let s: u64 = #start; r.array::<#k>(s).map(|v| (v, s + #n)) }}
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
                    quote! {{ let s: u64 = #start; r.cstring_sized_at(s, #n, #unit) }}
                } else if unit > 1 {
                    quote! {{ let s: u64 = #start; r.cstring_units_at(s, #unit, #max, #pad) }}
                } else if *lossless {
                    quote! {{ let s: u64 = #start; r.text_at(s, #max, #pad) }}
                } else {
                    quote! {{ let s: u64 = #start; r.cstring_at(s, #max, #pad) }}
                }
            }
            Type::PString { len, encoding, nul } => {
                let w = codec_schema::int_width(len).unwrap_or(1);
                let unit = encoding.unit();
                quote! {{ let s: u64 = #start; r.prefixed_string_at(s, #w, #unit, #nul) }}
            }
            Type::Fixed { raw, .. } => self.inline_read(raw, start, owner, field),
            Type::Named(n) => {
                let tn = self.path_as(n, "__Decode");
                quote! {{ let s: u64 = #start; #tn::decode_at(r, s) }}
            }
            Type::Array { of, len } => {
                let k = *len as usize;
                let elem = self.inline_read(of, quote!(q), owner, field);
                let ety = self.rust_ty(of, owner, field);
                let fast = match (
                    self.c.fixed_size(of),
                    field_read(of, quote!(&rec[i * es..])),
                ) {
                    (Some(es), Some(read)) if is_prim(of) => Some((es as usize, read)),
                    _ => None,
                };
                if let Some((es, read)) = fast {
                    // One bounds check for the whole array; element by
                    // element only when the file cuts it short, so that the
                    // error names the element.
                    let endian = self.endian_const();
                    let size = es * k;
                    quote! {
                        (|| -> #rt::DecodeResult<([#ety; #k], u64)> {
                            let s: u64 = #start;
                            if let Ok(rec) = r.array::<#size>(s) {
                                let e = #endian;
                                let es = #es;
                                let mut out = [<#ety>::default(); #k];
                                for (i, slot) in out.iter_mut().enumerate() {
                                    *slot = #read;
                                }
                                return Ok((out, s + #size as u64));
                            }
                            let mut out = [<#ety>::default(); #k];
                            let mut q: u64 = s;
                            for (i, slot) in out.iter_mut().enumerate() {
                                let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(i)) };
                                *slot = e;
                                q = next;
                            }
                            Ok((out, q))
                        })()
                    }
                } else if is_prim(of) {
                    quote! {
                        (|| -> #rt::DecodeResult<([#ety; #k], u64)> {
                            let mut out = [<#ety>::default(); #k];
                            let mut q: u64 = #start;
                            for (i, slot) in out.iter_mut().enumerate() {
                                let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(i)) };
                                *slot = e;
                                q = next;
                            }
                            Ok((out, q))
                        })()
                    }
                } else {
                    quote! {
                        (|| -> #rt::DecodeResult<([#ety; #k], u64)> {
                            let s: u64 = #start;
                            let mut v: ::std::vec::Vec<#ety> = ::std::vec::Vec::with_capacity(#k);
                            let mut q = s;
                            for i in 0..#k {
                                let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(i)) };
                                v.push(e);
                                q = next;
                            }
                            match <[#ety; #k]>::try_from(v) {
                                Ok(a) => Ok((a, q)),
                                Err(_) => Err(#rt::DecodeError::new(s, #rt::ErrorKind::Invalid("array length".into()))),
                            }
                        })()
                    }
                }
            }
            Type::Str { pool, width } => self.str_read(pool, width, start),
            Type::Bits { word, fields } if fields.iter().any(|b| b.str.is_some()) => {
                self.str_bits_read(owner, field, word, fields, start)
            }
            Type::Bits { word, .. } => {
                let bname = bits_struct(owner, field);
                let w = codec_schema::int_width(word).unwrap_or(4);
                let read = read_uint(word, quote!(s));
                quote! {{
                    let s: u64 = #start;
                    #read.map(|word| (#bname::from_word(word), s + #w))
                }}
            }
            Type::Ref {
                width,
                base,
                scale,
                to,
            } => self.ref_read(width, base, *scale, to, start),
            Type::Hash { .. }
            | Type::Rows { .. }
            | Type::Follows { .. }
            | Type::SharesEqual { .. } => self.not_inline(t, &format!("{owner}.{field}")),
            Type::Index { table, width } => {
                let id = self.table_id(table);
                let w = codec_schema::int_width(width).unwrap_or(4);
                let read = read_uint(width, quote!(s));
                quote! {{
                    let s: u64 = #start;
                    #read.and_then(|i| r.interned(#id, i, s, #table)).map(|v| (v, s + #w))
                }}
            }
            Type::Ptr(p) => self.ptr_inline_read(p, start, owner, field),
            Type::Table { .. }
            | Type::List { .. }
            | Type::Switch { .. }
            | Type::Select { .. }
            | Type::Pool {}
            | Type::Groups { .. } => {
                // The checker keeps these out of inline positions; what it
                // does not check yet is named, as the interpreter names it.
                let msg = format!(
                    "the codec does not read {} here (an element, a payload or an offset's \
                     target): only as a record's field",
                    codec_schema::docs::type_label(t)
                );
                quote! { Err(#rt::DecodeError::new(#start, #rt::ErrorKind::Invalid(#msg.into()))) }
            }
        }
    }

    fn decode_union(&self, u: &UnionDef) -> TokenStream {
        let rt = RT();
        let name = ident(&u.name);
        let unknown = crate::names::unknown_tag(u, quote!(tag_pos));
        let arms = u.variants.iter().map(|v| {
            let vn = ident(&v.name);
            let vname = &v.name;
            let tag = v.tag;
            let read = match &v.ty {
                Type::List { of, count } => {
                    let (count_expr, start) = match &**count {
                        Count::Before(ct) => {
                            let w = codec_schema::int_width(ct).unwrap_or(4);
                            (quote!(r.count_before(field_pos, pos, #w)?.0), quote!(pos))
                        }
                        Count::Prefix(ct) => {
                            let w = codec_schema::int_width(ct).unwrap_or(4);
                            (quote!(r.count_prefix(pos, #w)?.0), quote!(pos + #w))
                        }
                        Count::Field(_) | Count::Sum(_) | Count::End(_) => {
                            (quote!(0u64), quote!(pos))
                        }
                        // Up to the next target: a payload of bytes kept as they are.
                        Count::ToNext => {
                            let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
                            (
                                quote!((r.bound_after(pos).saturating_sub(pos) / #esize)),
                                quote!(pos),
                            )
                        }
                    };
                    let at = proc_macro2::Ident::new("field_pos", proc_macro2::Span::call_site());
                    let list = self.list_read(of, count_expr, start, &at, &u.name, &v.name);
                    let lty = self.list_ty(of, &u.name, &v.name);
                    quote! { (|| -> #rt::DecodeResult<#lty> { #list })() }
                }
                t => {
                    let read = self.inline_read(t, quote!(pos), &u.name, &v.name);
                    let charge = match self.c.fixed_size(t) {
                        Some(n) => quote!(r.charge(field_pos, #n)?;),
                        None => quote!(),
                    };
                    let ty = self.rust_ty(t, &u.name, &v.name);
                    quote! { (|| -> #rt::DecodeResult<#ty> { #charge #read.map(|(v, _)| v) })() }
                }
            };
            let wrap = if self.boxed_payload(&v.ty) {
                quote!(::std::boxed::Box::new(v))
            } else {
                quote!(v)
            };
            let arm = quote! {
                #tag => match #read {
                    Ok(v) => Ok(Self::#vn(#wrap)),
                    Err(e) => Err(e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                }
            };
            let push = quote! {
                #tag => match #read {
                    Ok(v) => {
                        #rt::reader::push_in_room(out, Self::#vn(#wrap));
                        Ok(())
                    }
                    Err(e) => Err(e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                }
            };
            (arm, push)
        });
        let (arms, pushes): (Vec<_>, Vec<_>) = arms.unzip();
        let _ = &name;
        let vis = self.vis();
        self.impl_block(
            &u.name,
            "__Payload",
            quote! {
                /// Decodes the payload that tag `tag` selects, at `pos`.
                /// `field_pos` is where the offset to it was read and
                /// `tag_pos` where the tag was read (for errors).
                ///
                /// Always inlined where a record holds the value (BYML's
                /// hash entry): returned from a call, the union came back
                /// through memory and was copied into its record with loads
                /// that straddled the callee's stores, which stalled each
                /// entry (a third of the corpus's decode samples sat in that
                /// loop; issue 51). A union inside itself is still a call.
                #[allow(unused_variables, clippy::redundant_closure_call)]
                #[inline(always)]
                #vis fn decode_payload(r: &mut #rt::Reader<'_>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64) -> #rt::DecodeResult<Self> {
                    match tag {
                        #(#arms,)*
                        _ => Err(#unknown),
                    }
                }

                /// [`decode_payload`](Self::decode_payload), the value pushed
                /// onto `out`: each variant is built where the list holds it,
                /// not returned through memory and copied (a copy that read
                /// the value back wider than it was written stalled a list's
                /// decode on every element; issue 51).
                #[allow(unused_variables, clippy::redundant_closure_call)]
                #[inline]
                #vis fn decode_payload_into(r: &mut #rt::Reader<'_>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64, out: &mut ::std::vec::Vec<Self>) -> #rt::DecodeResult<()> {
                    match tag {
                        #(#pushes,)*
                        _ => Err(#unknown),
                    }
                }
            },
        )
    }
}

/// Reads of fields from `size` bytes at `pos` checked at once (`fast`,
/// then `after`: the bounds of their offsets, the section starts they
/// give), or one by one (`slow`) when the file ends inside them, so that
/// the error names the field where it ends. Both set `locals`.
fn checked_at_once(
    endian: &TokenStream,
    size: usize,
    fast: TokenStream,
    locals: &[proc_macro2::Ident],
    after: TokenStream,
    slow: TokenStream,
) -> TokenStream {
    quote! {
        let (#(#locals,)*) = match r.array::<#size>(pos) {
            Ok(rec) => {
                let e = #endian;
                #fast
                p = pos + #size as u64;
                #after
                (#(#locals,)*)
            }
            Err(_) => {
                #slow
                (#(#locals,)*)
            }
        };
    }
}

/// Whether field `f` can be read from a record's bytes checked at once
/// ([`Gen::fast_record`]).
fn fast_field(f: &Field) -> bool {
    f.external.is_none()
        && f.align.is_none()
        && !matches!(
            f.ty,
            Type::Index { .. } | Type::Switch { .. } | Type::Table { .. }
        )
}

/// Reading a number from an already checked record slice, if `t` is one.
fn field_read(t: &Type, bytes: TokenStream) -> Option<TokenStream> {
    let rt = RT();
    let f = match t {
        Type::U8 => quote!(u8),
        Type::I8 => quote!(i8),
        Type::U16 => quote!(u16),
        Type::I16 => quote!(i16),
        Type::U24 => quote!(u24),
        Type::U32 => quote!(u32),
        Type::I32 => quote!(i32),
        Type::U64 => quote!(u64),
        Type::I64 => quote!(i64),
        Type::F32 => quote!(f32),
        Type::F64 => quote!(f64),
        _ => return None,
    };
    Some(quote!(#rt::reader::field::#f(#bytes, e)))
}

pub(crate) fn opt(v: Option<u64>) -> TokenStream {
    match v {
        Some(n) => quote!(::std::option::Option::Some(#n)),
        None => quote!(::std::option::Option::None),
    }
}
