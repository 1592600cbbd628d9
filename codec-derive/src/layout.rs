//! Code for the constructs of tables of back-to-back records: string pools
//! and string references, lists inline in a record (counted by earlier
//! fields, by their sum, or running to the next target), groups of lists,
//! unions chosen by a glue function, optional offsets, context fields, and
//! the offset targets that bound lists and selected unions.

use crate::names::{bits_struct, ident, local, read_uint, width_tokens};
use crate::Gen;
use codec_schema::{Count, Derive, Ptr, StructDef, Type, TypeDef};
use proc_macro2::TokenStream;
use quote::quote;

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

impl Gen<'_> {
    /// The Rust type an offset's target is held as (boxed when the target
    /// contains the record), before `optional` wraps it in an `Option`.
    pub(crate) fn target_rust_ty(
        &self,
        s: &StructDef,
        f: &codec_schema::Field,
        p: &Ptr,
    ) -> TokenStream {
        let inner = self.rust_ty(&p.to, &s.name, &f.name);
        if matches!(p.to, Type::Named(_))
            && crate::names::contains_directly(self.c, &p.to, &s.name, 0)
        {
            quote!(::std::boxed::Box<#inner>)
        } else {
            inner
        }
    }

    /// The pool id (section index) of a pool section.
    pub(crate) fn pool_id(&self, pool: &str) -> usize {
        self.c.section_id(pool).unwrap_or(0)
    }

    /// Decode statements run before a struct's fields are read: every pool
    /// the struct locates gets its start, so string references anywhere
    /// below (and in the struct itself) can be read.
    pub(crate) fn pool_prestep(&self, s: &StructDef) -> TokenStream {
        let offsets = self.c.field_offsets(s);
        let mut out = TokenStream::new();
        for (f, off) in s.fields.iter().zip(&offsets) {
            let Type::Ptr(p) = &f.ty else { continue };
            if !matches!(p.to, Type::Pool {}) {
                continue;
            }
            let (Some(off), Some(sec)) = (off, p.section.as_deref()) else {
                continue;
            };
            let id = self.pool_id(sec);
            let read = read_uint(&p.width, quote!(pos + #off));
            let base = self.base_expr(&p.base, quote!(pos));
            let scale = p.scale;
            let fname = &f.name;
            // A pool offset that cannot be read is reported where the field
            // is read in turn (a cut file ends earlier, say).
            let _ = fname;
            out.extend(quote! {
                if let Ok(raw) = #read {
                    if let Ok(t) = r.target(pos + #off, #base, raw, #scale) {
                        r.set_pool(#id, t);
                    }
                }
            });
        }
        out
    }

    /// Decode statements run after a struct's offsets were followed: each
    /// pool it locates learns the references that missed its strings' starts.
    pub(crate) fn pool_poststep(&self, s: &StructDef) -> TokenStream {
        let mut out = TokenStream::new();
        for f in &s.fields {
            let Type::Ptr(p) = &f.ty else { continue };
            if !matches!(p.to, Type::Pool {}) {
                continue;
            }
            let Some(sec) = p.section.as_deref() else {
                continue;
            };
            let id = self.pool_id(sec);
            let v = local("f", &f.name);
            out.extend(if p.optional {
                quote! { let mut #v = #v; if let Some(pool) = &mut #v { pool.odd = r.odd_refs(#id, &pool.strings); } }
            } else {
                quote! { let mut #v = #v; #v.odd = r.odd_refs(#id, &#v.strings); }
            });
        }
        out
    }

    /// A statement registering the target of offset field `f` (read into
    /// `raw_<f>` at `at_<f>`) as a bound.
    pub(crate) fn bound_stmt(&self, s: &StructDef, f: &str, p: &Ptr) -> TokenStream {
        if !self.c.ends_at_next_target() {
            return TokenStream::new();
        }
        let at = local("at", f);
        let raw = local("raw", f);
        let rank = self
            .c
            .target_rank(s, s.fields.iter().position(|g| g.name == f).unwrap_or(0));
        let base = self.base_expr(&p.base, quote!(pos));
        let scale = p.scale;
        let cond = if p.optional {
            quote!(#raw != 0)
        } else {
            quote!(true)
        };
        quote! {
            if #cond {
                if let Ok(t) = r.target(#at, #base, #raw, #scale) {
                    r.add_bound(t, #rank, #at);
                }
            }
        }
    }

    /// `note_targets(r, pos)`: registers the targets of the offsets a record
    /// at `pos` holds at fixed positions (its own and its inline structs'),
    /// before a list's elements are decoded, so that each element sees where
    /// the next one's data begins.
    pub(crate) fn note_targets_fn(&self, s: &StructDef) -> TokenStream {
        let rt = RT();
        let offsets = self.c.field_offsets(s);
        let mut body = TokenStream::new();
        // Nothing reads the targets when nothing ends at the next one.
        let fields = if self.c.ends_at_next_target() {
            &s.fields[..]
        } else {
            &[]
        };
        for (fi, (f, off)) in fields.iter().zip(&offsets).enumerate() {
            let Some(off) = off else { break };
            match &f.ty {
                Type::Ptr(p) => {
                    let rank = self.c.target_rank(s, fi);
                    let read = read_uint(&p.width, quote!(pos + #off));
                    let base = self.base_expr(&p.base, quote!(pos));
                    let scale = p.scale;
                    let skip_zero = p.optional;
                    body.extend(quote! {
                        if let Ok(raw) = #read {
                            if !(#skip_zero && raw == 0) {
                                if let Ok(t) = r.target(pos + #off, #base, raw, #scale) {
                                    r.add_bound(t, #rank, pos + #off);
                                }
                            }
                        }
                    });
                }
                Type::Named(n) => {
                    if let Some(TypeDef::Struct(_)) = self.c.get(n) {
                        let tn = self.path_as(n, "__Decode");
                        body.extend(quote!(#tn::note_targets(r, pos + #off);));
                    }
                }
                _ => {}
            }
        }
        let vis = self.vis();
        quote! {
            /// Registers the targets of the offsets this record holds at
            /// fixed positions (see `Reader::add_bound`).
            #[allow(unused_variables)]
            #[inline]
            #vis fn note_targets(r: &mut #rt::Reader<'_>, pos: u64) {
                #body
            }
        }
    }

    /// Statements at the start of a record's decode registering the
    /// targets of the offsets its inline records hold at fixed places, so
    /// that a list in one that runs to the next target ends where a later
    /// one's offset leads (schema-repros case 6). Its own offsets are
    /// registered as they are read, before any is followed.
    pub(crate) fn inline_targets_stmt(&self, s: &StructDef) -> TokenStream {
        if !self.c.ends_at_next_target() {
            return TokenStream::new();
        }
        let offsets = self.c.field_offsets(s);
        let mut body = TokenStream::new();
        for (f, off) in s.fields.iter().zip(&offsets) {
            let Some(off) = off else { break };
            if let Type::Named(n) = &f.ty {
                if let Some(TypeDef::Struct(_)) = self.c.get(n) {
                    let tn = self.path_as(n, "__Decode");
                    body.extend(quote!(#tn::note_targets(r, pos + #off);));
                }
            }
        }
        body
    }

    /// Statements registering the targets of `n` elements from `start`.
    pub(crate) fn pre_pass(&self, of: &Type, esize: u64) -> TokenStream {
        if !self.c.ends_at_next_target() {
            return TokenStream::new();
        }
        match of {
            Type::Named(n) if matches!(self.c.get(n), Some(TypeDef::Struct(_))) => {
                let tn = self.path_as(n, "__Decode");
                quote! {
                    for i in 0..n {
                        #tn::note_targets(r, start + i * #esize);
                    }
                }
            }
            _ => quote!(),
        }
    }

    /// The count expression of an inline list: earlier fields (stored: the
    /// value local; derived: the raw local), or their sum.
    fn inline_count(&self, s: &StructDef, count: &Count) -> TokenStream {
        let one = |path: &str| -> TokenStream {
            let mut parts = path.split('.');
            let first = parts.next().unwrap_or_default();
            let rest: Vec<_> = parts.map(ident).collect();
            let derived = s
                .fields
                .iter()
                .find(|g| g.name == first)
                .is_some_and(|g| g.derive.is_some());
            if derived {
                let l = local("raw", first);
                quote!((#l as u64))
            } else {
                let l = local("f", first);
                quote!((#l #(.#rest)* as u64))
            }
        };
        match count {
            Count::Field(p) => one(p),
            Count::Sum(ps) => {
                let terms = ps.iter().map(|p| one(p));
                quote!((0u64 #(+ #terms)*))
            }
            _ => quote!(0u64),
        }
    }

    /// The count of a list field read inline, when it is not a derived
    /// sibling: a stored field, a field of an inline struct, or a sum.
    pub(crate) fn list_field_count(&self, s: &StructDef, count: &Count) -> Option<TokenStream> {
        match count {
            Count::Field(p) => {
                let simple_derived =
                    !p.contains('.') && s.fields.iter().any(|g| &g.name == p && g.derive.is_some());
                (!simple_derived).then(|| self.inline_count(s, count))
            }
            Count::Sum(_) => Some(self.inline_count(s, count)),
            _ => None,
        }
    }

    /// Reads of a `Groups` field of struct `s`, at `p`.
    pub(crate) fn groups_read(&self, s: &StructDef, field: &str, ty: &Type) -> TokenStream {
        let rt = RT();
        let Type::Groups {
            of,
            groups,
            count,
            base,
        } = ty
        else {
            return quote!();
        };
        let v = local("f", field);
        let n = *groups as usize;
        let cw = codec_schema::int_width(count).unwrap_or(1);
        let bw = codec_schema::int_width(base).unwrap_or(1);
        let ety = self.rust_ty(of, &s.name, field);
        let esize = self.c.fixed_size(of).unwrap_or(1).max(1);
        let elem = self.inline_read(of, quote!(q), &s.name, field);
        let pre = self.pre_pass(of, esize);
        quote! {
            let #v: [::std::vec::Vec<#ety>; #n];
            (#v, p) = match (|| -> #rt::DecodeResult<([::std::vec::Vec<#ety>; #n], u64)> {
                let mut heads = [0u64; #n];
                let #rt::groups::GroupsExtent { start, total: n } =
                    #rt::groups::read_heads(r, p, #n as u64, #cw, #bw, |k, _, c, _| heads[k] = c)?;
                r.check_count(start, start, n, #esize)?;
                #pre
                let mut out: [::std::vec::Vec<#ety>; #n] = ::std::array::from_fn(|_| ::std::vec::Vec::new());
                let mut q = start;
                for (k, &c) in heads.iter().enumerate() {
                    out[k].reserve(c as usize);
                    for i in 0..c as usize {
                        r.set_element(k, i, c as usize);
                        let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(i).at_index(k)) };
                        out[k].push(e);
                        q = next;
                    }
                }
                Ok((out, q))
            })() {
                Ok(v) => v,
                Err(e) => return Err(e.in_field(#field)),
            };
        }
    }

    /// A string reference read at `start`: `DecodeResult<(Str, u64)>`.
    pub(crate) fn str_read(&self, pool: &str, width: &Type, start: TokenStream) -> TokenStream {
        let id = self.pool_id(pool);
        let w = codec_schema::int_width(width).unwrap_or(4);
        let read = read_uint(width, quote!(s));
        quote! {{
            let s: u64 = #start;
            match #read {
                Ok(raw) => r.pool_str(#id, s, raw).map(|v| (v, s + #w)),
                Err(e) => Err(e),
            }
        }}
    }

    /// A bitfield with string ranges read at `start`.
    pub(crate) fn str_bits_read(
        &self,
        owner: &str,
        field: &str,
        word: &Type,
        fields: &[codec_schema::BitField],
        start: TokenStream,
    ) -> TokenStream {
        let rt = RT();
        let bname = bits_struct(owner, field);
        let w = codec_schema::int_width(word).unwrap_or(4);
        let read = read_uint(word, quote!(s));
        let inits = crate::names::bit_range_inits(fields, |pool, sh, mask| {
            let id = self.pool_id(pool);
            quote!(r.pool_str(#id, s, (word >> #sh) & #mask)?)
        });
        quote! {
            (|| -> #rt::DecodeResult<(#bname, u64)> {
                let s: u64 = #start;
                let word: u64 = #read?;
                Ok((#bname { #(#inits,)* }, s + #w))
            })()
        }
    }

    /// The body of a closure returning the target of a `Select` offset.
    pub(crate) fn select_follow(
        &self,
        union: &str,
        hook: &str,
        at: &proc_macro2::Ident,
        target: TokenStream,
    ) -> TokenStream {
        let un = self.path_as(union, "__Payload");
        let hn = ident(hook);
        let hooks = self
            .hooks
            .map(|h| quote!(#h))
            .unwrap_or_else(|| quote!(self));
        quote! {
            #target
            let tag = match #hooks::#hn(&r.select_cx(t)) {
                Some(tag) => tag,
                None => return Err(r.no_variant(#at, #union, t)),
            };
            #un::decode_payload(r, tag, t, #at, #at)
        }
    }

    /// Encode: statements writing a string reference `v` (`&Str`).
    pub(crate) fn str_write(
        &self,
        pool: &str,
        width: &Type,
        v: TokenStream,
        what: &str,
    ) -> TokenStream {
        let id = self.pool_id(pool);
        let wt = width_tokens(width);
        quote! {{
            let off = w.intern(#id, (#v).as_bytes(), #what)?;
            w.put_uint(#wt, off, #what)?;
        }}
    }

    /// Encode: statements seeding the pools a struct locates (at the start
    /// of its record, before any of its strings is written).
    pub(crate) fn pool_seed(&self, s: &StructDef) -> TokenStream {
        let mut out = TokenStream::new();
        for f in &s.fields {
            let Type::Ptr(p) = &f.ty else { continue };
            if !matches!(p.to, Type::Pool {}) {
                continue;
            }
            let Some(sec) = p.section.as_deref() else {
                continue;
            };
            let id = self.pool_id(sec);
            let fid = ident(&f.name);
            out.extend(if p.optional {
                quote! { if let Some(v) = &self.#fid { w.seed_pool(#id, v)?; } }
            } else {
                quote! { w.seed_pool(#id, &self.#fid)?; }
            });
        }
        out
    }

    /// Encode: checks that an inline list counted by stored fields has as
    /// many elements as they say.
    pub(crate) fn inline_count_check(
        &self,
        s: &StructDef,
        field: &str,
        count: &Count,
    ) -> TokenStream {
        let rt = RT();
        let paths: Vec<&String> = match count {
            Count::Field(p) => vec![p],
            Count::Sum(ps) => ps.iter().collect(),
            _ => return quote!(),
        };
        // A count derived from this very list is written from its length.
        if let Count::Field(p) = count {
            if s.fields
                .iter()
                .any(|g| &g.name == p && g.derive == Some(Derive::Count(field.to_owned())))
            {
                return quote!();
            }
        }
        if paths.iter().any(|p| {
            let first = p.split('.').next().unwrap_or_default();
            s.fields
                .iter()
                .any(|g| g.name == first && g.derive.is_some())
        }) {
            return quote!();
        }
        let terms = paths.iter().map(|p| {
            let mut parts = p.split('.').map(ident);
            let first = parts.next();
            let rest: Vec<_> = parts.collect();
            quote!((self.#first #(.#rest)* as u64))
        });
        let fid = ident(field);
        let what = format!("{}.{}", s.name, field);
        let said = paths
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        quote! {
            let said: u64 = 0u64 #(+ #terms)*;
            if self.#fid.len() as u64 != said {
                return Err(#rt::EncodeError::new(#what, format!(
                    "the list has {} element(s), but {} says {}", self.#fid.len(), #said, said
                )));
            }
        }
    }

    /// Encode: statements writing a `Groups` value `v` (`&[Vec<T>; N]`).
    pub(crate) fn groups_write(&self, ty: &Type, v: TokenStream, what: &str) -> TokenStream {
        let Type::Groups {
            of, count, base, ..
        } = ty
        else {
            return quote!();
        };
        let cw = width_tokens(count);
        let bw = width_tokens(base);
        let elem = self.inline_write(of, quote!(e), what);
        quote! {{
            let mut based: u64 = 0;
            for g in (#v).iter() {
                w.put_uint(#cw, g.len() as u64, #what)?;
                w.put_uint(#bw, based, #what)?;
                based += g.len() as u64;
            }
            for g in (#v).iter() {
                for e in g.iter() { #elem }
            }
        }}
    }

    /// Encode: a bitfield with string ranges.
    pub(crate) fn str_bits_write(
        &self,
        word: &Type,
        fields: &[codec_schema::BitField],
        v: TokenStream,
        what: &str,
    ) -> TokenStream {
        let rt = RT();
        let wt = width_tokens(word);
        let parts = codec_schema::bit_ranges(fields).map(|(b, sh, mask)| {
            let n = ident(&b.name);
            let bwhat = format!("{what}.{}", b.name);
            let value = match &b.str {
                Some(pool) => {
                    let id = self.pool_id(pool);
                    quote!(w.intern(#id, (#v).#n.as_bytes(), #bwhat)?)
                }
                None => quote!((#v).#n as u64),
            };
            quote! {
                let part: u64 = #value;
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

    /// Offsets of a struct's fields from its start, as expressions over
    /// `self` for fields after variable-size ones (inline lists, groups).
    pub(crate) fn field_offset_exprs(&self, s: &StructDef) -> Vec<Option<TokenStream>> {
        let mut out = Vec::with_capacity(s.fields.len());
        let mut cur: Option<TokenStream> = Some(quote!(0u64));
        for f in &s.fields {
            if let Some(a) = f.align.filter(|&a| a > 1) {
                cur = cur.map(|c| quote!((#c).next_multiple_of(#a)));
            }
            out.push(cur.clone());
            let size: Option<TokenStream> = match (&f.ty, self.c.fixed_size(&f.ty)) {
                (_, Some(n)) => Some(quote!(#n)),
                (Type::List { of, .. }, None) => {
                    // A list of tags is as long as the list whose tags it holds.
                    let fid = match &f.derive {
                        Some(codec_schema::Derive::Tags(values)) => {
                            ident(codec_schema::tags_source(values).0)
                        }
                        _ => ident(&f.name),
                    };
                    self.c
                        .fixed_size(of)
                        .map(|e| quote!((self.#fid.len() as u64 * #e)))
                }
                (
                    Type::Groups {
                        of,
                        groups,
                        count,
                        base,
                    },
                    None,
                ) => {
                    let fid = ident(&f.name);
                    let hw = codec_schema::int_width(count).unwrap_or(1)
                        + codec_schema::int_width(base).unwrap_or(1);
                    let heads = groups * hw;
                    self.c.fixed_size(of).map(|e| {
                        quote!((#heads + self.#fid.iter().map(|g| g.len() as u64).sum::<u64>() * #e))
                    })
                }
                _ => None,
            };
            cur = match (cur, size) {
                (Some(a), Some(b)) => Some(quote!((#a + #b))),
                _ => None,
            };
        }
        out
    }
}
