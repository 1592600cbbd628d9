//! Code for trees of tagged nodes (schema language v2): unions whose tag is
//! stored apart from the value (`Switch` as a record's field or a list's
//! element, `derive: Tags`, or held by the list holding the record:
//! `tag: "types[i]"`), lists sorted by a key, unions told apart by their
//! payload's magic (`peek`), strings interned in sorted tables (`Index`,
//! `Table`, `derive: Interned`), and the depth-first placement that writes
//! equal subtrees once (`order: DepthFirst`, `dedup: Shared`). The
//! behaviour lives in `codec_runtime::{interned, shared, held}`; this
//! module only sequences calls to it.

use crate::names::{ident, local, read_uint, width_tokens};
use crate::Gen;
use codec_schema::{Dedup, Derive, Field, Ptr, SortKey, StructDef, Type, TypeDef, UnionDef, Visit};
use proc_macro2::TokenStream;
use quote::quote;

/// Where a list's elements lie in their holder (see `Gen::list_slots`).
pub(crate) struct ListSlots {
    /// The list's offset in its record.
    pub at: TokenStream,
    /// Each element's size.
    pub size: u64,
    /// For a sorted list: each element's sort key, in document order.
    pub keys: Option<TokenStream>,
}

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

impl Gen<'_> {
    /// The interned tables (see `Checked::interned_tables`).
    pub(crate) fn interned_tables(&self) -> Vec<&str> {
        self.c.interned_tables()
    }

    /// The id of the interned table the root field `table` leads to.
    pub(crate) fn table_id(&self, table: &str) -> usize {
        self.c.table_id(table)
    }

    fn has_shared(&self) -> bool {
        self.c.has_shared()
    }

    pub(crate) fn has_depth_first(&self) -> bool {
        self.c.has_depth_first()
    }

    /// The statement noting, on decode, the target `t` of offset `p` when
    /// it leads into a shared section whose sharing the document keeps
    /// (`SharesEqual`).
    pub(crate) fn note_shared(&self, p: &Ptr) -> TokenStream {
        match self.c.kept_sharing(p) {
            Some(si) => quote!(r.note_shared(#si, t);),
            None => quote!(),
        }
    }

    /// The shared section a record of type `name` is placed in (the
    /// target of an offset into one), if any.
    fn shared_home(&self, name: &str) -> Option<usize> {
        self.c.shared_home(name)
    }

    /// Is union `name` held as a value word (a `Switch` field or element)?
    pub(crate) fn is_word_union(&self, name: &str) -> bool {
        self.c.is_word_union(name)
    }

    /// `place_own` statements for a root offset to an interned table: the
    /// table, built from the collected strings, when it has any.
    pub(crate) fn interned_place(&self, f: &Field, p: &Ptr, off: u64) -> syn::Result<TokenStream> {
        let order = self.endian_const();
        let Type::Named(tn) = &p.to else {
            return Err(Gen::err(format!(
                "`{}`: an interned table is a struct",
                f.name
            )));
        };
        let Some(field) = self.table_field(tn) else {
            return Err(Gen::err(format!("`{tn}` has no `Table` field")));
        };
        let Some(si) = p.section.as_deref().and_then(|s| self.c.section_id(s)) else {
            return Err(Gen::err(format!("`{}` names no section", f.name)));
        };
        let id = self.table_id(&f.name);
        let tid = ident(tn);
        let enc = self.path_as(tn, "__Encode");
        let wt = width_tokens(&p.width);
        let ia = self.c.section(si).item_align;
        let what = format!("{}.{}", self.c.root().name, f.name);
        Ok(quote! {
            if sec == #si {
                // The table is lent to its record while it is written.
                let strings = w.take_table(#id);
                if !strings.is_empty() {
                    let tbl = #tid { #field: strings };
                    w.align(#ia);
                    let target = w.pos();
                    let written = #enc::write_record(&tbl, w);
                    w.restore_table(#id, tbl.#field);
                    written?;
                    w.patch_offset(pos + #off, #wt, 0, 1, target, #order, #what)?;
                }
            }
        })
    }

    // ----- types -----

    /// `Collect` (interned strings) and `Shape` (shared subtrees) for every
    /// type, and the section each offset variant of a union places in.
    pub(crate) fn tree_impls(&self) -> TokenStream {
        let rt = RT();
        let mut out = TokenStream::new();
        let interned = !self.interned_tables().is_empty();
        let shared = self.has_shared();
        for t in &self.c.base().types {
            let name = ident(t.name());
            match t {
                TypeDef::Struct(s) => {
                    let stored: Vec<&Field> = s
                        .fields
                        .iter()
                        .filter(|f| codec_schema::Checked::is_stored(f))
                        .collect();
                    if interned {
                        let body = match self.collect_by_shape(t.name()) {
                            Some(b) => b,
                            None => {
                                let parts = stored.iter().map(|f| {
                                    let fid = ident(&f.name);
                                    self.collect_expr(&f.ty, quote!(&self.#fid))
                                });
                                quote!(#(#parts)*)
                            }
                        };
                        out.extend(quote! {
                            impl #rt::interned::Collect for #name {
                                #[allow(unused_variables)]
                                fn collect(&self, c: &mut #rt::interned::Collector<'_>) { #body }
                            }
                        });
                    }
                    if shared {
                        let parts = stored.iter().map(|f| {
                            let fid = ident(&f.name);
                            match &f.ty {
                                // The key a list of these is sorted by: noted
                                // for the write of the list's record.
                                Type::Index { table, .. }
                                    if self.is_index_sort_key(&s.name, &f.name) =>
                                {
                                    self.index_shape(table, quote!(&self.#fid), true)
                                }
                                _ => self.shape_expr(&f.ty, quote!(&self.#fid)),
                            }
                        });
                        let warms = stored.iter().filter_map(|f| {
                            let fid = ident(&f.name);
                            self.warm_value(&f.ty, quote!(&self.#fid))
                        });
                        out.extend(self.shape_impl(
                            t.name(),
                            quote!(#(#parts)*),
                            quote!(#(#warms)*),
                        ));
                    }
                }
                TypeDef::Union(u) => {
                    if interned {
                        let body = match self.collect_by_shape(t.name()) {
                            Some(b) => b,
                            None => {
                                let arms = u.variants.iter().map(|v| {
                                    let vn = ident(&v.name);
                                    let e = self.collect_expr(&v.ty, quote!(v));
                                    quote!(Self::#vn(v) => { #e })
                                });
                                quote!(match self { #(#arms)* })
                            }
                        };
                        out.extend(quote! {
                            impl #rt::interned::Collect for #name {
                                #[allow(unused_variables)]
                                fn collect(&self, c: &mut #rt::interned::Collector<'_>) { #body }
                            }
                        });
                    }
                    if shared {
                        // A variant's tag, at the width every tag of the
                        // union fits in (a key's layout is fixed by its type).
                        let narrow = u.variants.iter().all(|v| u32::try_from(v.tag).is_ok());
                        let arms = u.variants.iter().map(|v| {
                            let vn = ident(&v.name);
                            let e = self.shape_expr(&v.ty, quote!(v));
                            let tag = v.tag;
                            let put = if narrow {
                                let tag = tag as u32;
                                quote!(k.id(#tag);)
                            } else {
                                quote!(k.int(#tag);)
                            };
                            quote!(Self::#vn(v) => { #put #e })
                        });
                        let warms = u.variants.iter().filter_map(|v| {
                            let vn = ident(&v.name);
                            let w = self.warm_value(&v.ty, quote!(v))?;
                            Some(quote!(Self::#vn(v) => { #w }))
                        });
                        out.extend(self.shape_impl(
                            t.name(),
                            quote!(match self { #(#arms)* }),
                            quote!(#[allow(unreachable_patterns)] match self { #(#warms)* _ => {} }),
                        ));
                    }
                    let arms = u.variants.iter().filter_map(|v| match &v.ty {
                        Type::Ptr(p) => {
                            let si = p.section.as_deref().and_then(|s| self.c.section_id(s))?;
                            let tag = v.tag;
                            Some(quote!(#tag => ::std::option::Option::Some(#si)))
                        }
                        _ => None,
                    });
                    out.extend(quote! {
                        impl #name {
                            /// The section the variant of tag `tag` places its
                            /// target in, when it is an offset.
                            #[doc(hidden)]
                            pub fn placed_in(tag: u64) -> ::std::option::Option<usize> {
                                match tag { #(#arms,)* _ => ::std::option::Option::None }
                            }
                        }
                    });
                }
            }
        }
        out
    }

    /// The elements of list `items` in order, for a walk over the document:
    /// their memory asked for ahead where the types can say what that is
    /// (`shape.rs`: their `Shape` impls, in a schema with shared sections).
    fn list_walk(&self, items: TokenStream) -> TokenStream {
        let rt = RT();
        if self.has_shared() {
            quote!(#rt::shape::warmed(&#items))
        } else {
            quote!(#items.iter())
        }
    }

    /// What `Shape::warm` does for a value of type `t`: asks for the memory
    /// it holds out of line, when its type can hold any.
    fn warm_value(&self, t: &Type, v: TokenStream) -> Option<TokenStream> {
        let rt = RT();
        match t {
            Type::Named(_) | Type::Switch { .. } | Type::List { .. } => {
                Some(quote!(#rt::shape::Shape::warm(#v);))
            }
            Type::Ptr(p) if p.align.is_none() => Some(quote!(#rt::shape::Shape::warm(#v);)),
            _ => None,
        }
    }

    fn shape_impl(&self, name: &str, body: TokenStream, warm: TokenStream) -> TokenStream {
        let rt = RT();
        let id = ident(name);
        let tid = self
            .c
            .base()
            .types
            .iter()
            .position(|t| t.name() == name)
            .unwrap_or(0);
        if self.shared_home(name).is_some() {
            // Hash-consed: the subtree stands in its holder's shape as one number.
            quote! {
                impl #id {
                    #[doc(hidden)]
                    pub fn shape_id(&self, s: &mut #rt::shared::Shapes) -> u32 {
                        s.id(#rt::key_of(self), #tid, |k, s| {
                            let _ = (&k, &s);
                            #body
                        })
                    }
                }
                impl #rt::shape::Shape for #id {
                    fn shape(&self, k: &mut #rt::shape::ShapeKey, s: &mut #rt::shared::Shapes) {
                        k.id(self.shape_id(s));
                    }
                    #[inline(always)]
                    #[allow(unused_variables)]
                    fn warm(&self) { #warm }
                }
            }
        } else {
            quote! {
                impl #rt::shape::Shape for #id {
                    #[allow(unused_variables)]
                    fn shape(&self, k: &mut #rt::shape::ShapeKey, s: &mut #rt::shared::Shapes) { #body }
                    #[inline(always)]
                    #[allow(unused_variables)]
                    fn warm(&self) { #warm }
                }
            }
        }
    }

    /// The body of `Collect` for a record of a shared section: building its
    /// shape gathers its strings (each is held in the shape by its id), so
    /// the first pass over a document does both at once.
    fn collect_by_shape(&self, name: &str) -> Option<TokenStream> {
        self.hash_consed(name)
            .then(|| quote!(self.shape_id(c.shapes());))
    }

    /// Does type `name` get a shape of its own (`shape_id`): a record of a
    /// shared section, whose subtree stands in its holder's shape as one
    /// number?
    fn hash_consed(&self, name: &str) -> bool {
        self.c.hash_consed(name)
    }

    /// What an interned string adds to its record's shape: its id in its
    /// table; when it is the key a sorted list of its struct is sorted by,
    /// the id is also noted for that list's write (`Shapes::sort_key`).
    fn index_shape(&self, table: &str, v: TokenStream, sort_key: bool) -> TokenStream {
        let id = self.table_id(table);
        if sort_key {
            quote! {
                let id = s.string(#id, (#v).as_str());
                k.id(s.sort_key(id));
            }
        } else {
            quote!(k.id(s.string(#id, (#v).as_str()));)
        }
    }

    fn collect_expr(&self, t: &Type, v: TokenStream) -> TokenStream {
        let rt = RT();
        match t {
            Type::Index { table, .. } => {
                let id = self.table_id(table);
                quote!(c.add(#id, #v.as_str());)
            }
            Type::Named(_) | Type::Switch { .. } => {
                quote!(#rt::interned::Collect::collect(#v, c);)
            }
            Type::List { of, .. } | Type::Array { of, .. } if self.holds_index(of) => {
                let e = self.collect_expr(of, quote!(e));
                quote!(for e in (#v).iter() { #e })
            }
            Type::Ptr(p) if self.holds_index(&p.to) => {
                let inner = self.collect_expr(&p.to, quote!(v));
                if p.optional {
                    quote!(if let Some(v) = #v { #inner })
                } else {
                    quote!({ let v = #v; #inner })
                }
            }
            _ => quote!(),
        }
    }

    fn holds_index(&self, t: &Type) -> bool {
        match t {
            Type::Index { .. } | Type::Named(_) | Type::Switch { .. } => true,
            Type::List { of, .. } | Type::Array { of, .. } => self.holds_index(of),
            Type::Ptr(p) => self.holds_index(&p.to),
            _ => false,
        }
    }

    fn shape_expr(&self, t: &Type, v: TokenStream) -> TokenStream {
        let marks = self
            .direct_sections(t)
            .into_iter()
            .map(|si| quote!(s.mark(#si);));
        let shape = self.shape_value(t, v);
        quote!(#(#marks)* #shape)
    }

    /// The sections a value of type `t` places something in by itself, not
    /// through a named type (whose own shape marks them): the targets of
    /// its offsets. What `Shapes::mark` records for the walks to skip by.
    fn direct_sections(&self, t: &Type) -> Vec<usize> {
        self.c.direct_sections(t)
    }

    fn shape_value(&self, t: &Type, v: TokenStream) -> TokenStream {
        let rt = RT();
        match t {
            Type::Magic(_) => quote!(),
            Type::Bits { .. } | Type::Rows { .. } | Type::Hash { .. } | Type::Pool {} => {
                quote!(k.int(0);)
            }
            Type::Ptr(p) if p.align.is_some() => {
                quote!(#rt::shape::Shape::shape(&(#v).value, k, s);)
            }
            // An interned string stands in the key as its id in its table.
            Type::Index { table, .. } => self.index_shape(table, v, false),
            _ => quote!(#rt::shape::Shape::shape(#v, k, s);),
        }
    }

    // ----- decode -----

    /// Statements reading field `f` of `s` when it is one of this module's
    /// constructs (into the local `f_<name>`, or `raw_<name>`, advancing `p`).
    pub(crate) fn tree_field_read(
        &self,
        s: &StructDef,
        f: &Field,
    ) -> Option<(TokenStream, TokenStream)> {
        let rt = RT();
        let fname = f.name.as_str();
        let v = local("f", fname);
        let at = local("at", fname);
        match (&f.derive, &f.ty) {
            (Some(Derive::Interned), Type::Ptr(p)) => {
                let raw = local("raw", fname);
                let read = read_uint(&p.width, quote!(p));
                let w = codec_schema::int_width(&p.width).unwrap_or(4);
                let id = self.table_id(fname);
                let Type::Named(tn) = &p.to else { return None };
                let tdec = self.path_as(tn, "__Decode");
                let field = self.table_field(tn)?;
                let base = self.base_expr(&p.base, quote!(pos));
                let scale = p.scale;
                let reads = quote! {
                    let #at = p;
                    let #raw = match #read { Ok(v) => v, Err(e) => return Err(e.in_field(#fname)) };
                    p += #w;
                };
                Some((
                    reads,
                    quote! {
                        if #raw != 0 {
                            let t = match r.target(#at, #base, #raw, #scale) { Ok(t) => t, Err(e) => return Err(e.in_field(#fname)) };
                            if let Err(e) = r.enter(#at, t, 4) { return Err(e.in_field(#fname)); }
                            match #tdec::decode_at(r, t) {
                                Ok((tbl, _)) => r.set_table(#id, tbl.#field),
                                Err(e) => return Err(e.in_field(#fname)),
                            }
                            r.leave();
                        }
                    },
                ))
            }
            // Known once the offsets before it are followed.
            (None, Type::SharesEqual { section }) => {
                let si = self.c.section_id(section)?;
                Some((quote!(), quote!(let #v: bool = r.shares_equal(#si);)))
            }
            (None, Type::Table { count, offsets }) => {
                let raw = local("raw", count);
                let wt = width_tokens(offsets);
                Some((
                    quote! {
                        let #at = p;
                        let (#v, next) = match #rt::interned::read_table(r, pos, p, #raw, #wt) {
                            Ok(v) => v,
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                        p = next;
                    },
                    TokenStream::new(),
                ))
            }
            (None, Type::Switch { union, tag }) => {
                let un = self.path_as(union, "__Payload");
                let size = self.c.fixed_size(&f.ty).unwrap_or(4);
                // A tag held by the list holding this record: the next one.
                let (raw_tag, at_tag, take) = match codec_schema::held_tag_list(tag) {
                    Some(_) => (
                        quote!(held_tag),
                        quote!(held_at),
                        quote! {
                            let (held_tag, held_at) = match r.take_held_tag(p) {
                                Ok(v) => v,
                                Err(e) => return Err(e.in_field(#fname)),
                            };
                        },
                    ),
                    None => {
                        let (raw_tag, at_tag) = (local("raw", tag), local("at", tag));
                        (quote!(#raw_tag), quote!(#at_tag), quote!())
                    }
                };
                Some((
                    quote! {
                        let #at = p;
                        #take
                        let #v = match #un::decode_payload(r, #raw_tag, p, p, #at_tag) {
                            Ok(v) => v,
                            Err(e) => return Err(e.in_field(#fname)),
                        };
                        p += #size;
                    },
                    TokenStream::new(),
                ))
            }
            (None, Type::List { of, count }) => {
                if let Some(read) = self.held_tags_list_read(s, f) {
                    return Some((read, TokenStream::new()));
                }
                let Type::Switch { union, tag } = &**of else {
                    return self
                        .document_order_read(s, f)
                        .map(|r| (r, TokenStream::new()));
                };
                let un = self.path_as(union, "__Payload");
                let tags = local("f", tag);
                let at_tags = local("at", tag);
                let size = self.c.fixed_size(of).unwrap_or(4);
                let codec_schema::Count::Field(c) = &**count else {
                    return None;
                };
                let n = local("raw", c);
                let general = quote! {
                    {
                        let n: u64 = #n;
                        if let Err(e) = r.check_count(p, p, n, #size) { return Err(e.in_field(#fname)); }
                        let mut out = ::std::vec::Vec::with_capacity(n as usize);
                        for i in 0..n as usize {
                            let q = p + i as u64 * #size;
                            let tag = u64::from(#tags[i]);
                            if let Err(e) = #un::decode_payload_into(r, tag, q, q, #at_tags + i as u64, &mut out) {
                                return Err(e.at_index(i).in_field(#fname));
                            }
                        }
                        out
                    }
                };
                let read = if f.inline {
                    Gen::inline_list_read(union, &tags, general)
                } else {
                    general
                };
                Some((
                    quote! {
                        let #at = p;
                        let #v = #read;
                        p += #v.len() as u64 * #size;
                    },
                    TokenStream::new(),
                ))
            }
            _ => None,
        }
    }

    /// The sibling of list field `f` that holds its elements' tags
    /// (`derive: Tags("<f>.<field>")`), when the elements take their tags
    /// from it (`Switch(tag: "<sibling>[i]")`).
    pub(crate) fn held_tags_field<'s>(&self, s: &'s StructDef, f: &Field) -> Option<&'s Field> {
        s.fields.iter().find(|g| {
            matches!(&g.derive, Some(Derive::Tags(of))
                if matches!(codec_schema::tags_source(of), (list, Some(_)) if list == f.name))
        })
    }

    /// A list whose elements take their tags from a sibling list stored
    /// after it: the tags are read first, held while the elements are
    /// decoded, then let go (`codec_runtime::held`). The checker makes the
    /// tags follow the list directly and the elements fixed in size.
    fn held_tags_list_read(&self, s: &StructDef, f: &Field) -> Option<TokenStream> {
        let rt = RT();
        let tf = self.held_tags_field(s, f)?;
        let Type::List { of, count } = &f.ty else {
            return None;
        };
        let Type::List { of: tag_ty, .. } = &tf.ty else {
            return None;
        };
        let fname = f.name.as_str();
        let tname = tf.name.as_str();
        let v = local("f", fname);
        let at = local("at", fname);
        let esize = self.c.fixed_size(of)?;
        let n = match (self.list_field_count(s, count), &**count) {
            (Some(n), _) => n,
            (None, codec_schema::Count::Field(c)) => {
                let l = local("raw", c);
                quote!(#l)
            }
            _ => return None,
        };
        let tw = width_tokens(tag_ty);
        let tags_at = match tf.align.filter(|&a| a > 1) {
            Some(a) => quote!(pos + (p + n * #esize - pos).next_multiple_of(#a)),
            None => quote!(p + n * #esize),
        };
        let ety = self.rust_ty(of, &s.name, fname);
        let list = self.list_read(of, quote!(n), quote!(p), &at, &s.name, fname);
        let ascending = self.ascending_keys_check(f);
        Some(quote! {
            let #at = p;
            let #v: ::std::vec::Vec<#ety> = {
                let n: u64 = #n;
                if let Err(e) = r.check_count(p, p, n, #esize) {
                    return Err(e.in_field(#fname));
                }
                if let Err(e) = r.hold_tags(#tags_at, n, #tw) {
                    return Err(e.in_field(#tname));
                }
                let read = (|| -> #rt::DecodeResult<::std::vec::Vec<#ety>> { #list })();
                r.release_tags();
                match read {
                    Ok(v) => v,
                    Err(e) => return Err(e.in_field(#fname)),
                }
            };
            #ascending
            p += #v.len() as u64 * #esize;
        })
    }

    /// The field of a table struct that holds its strings.
    pub(crate) fn table_field(&self, name: &str) -> Option<proc_macro2::Ident> {
        let Some(TypeDef::Struct(t)) = self.c.get(name) else {
            return None;
        };
        t.fields
            .iter()
            .find(|g| matches!(g.ty, Type::Table { .. }))
            .map(|g| ident(&g.name))
    }

    /// For a list field of fixed-size records: the element struct, its
    /// size and its fields' offsets.
    fn fixed_elements(&self, f: &Field) -> Option<(&StructDef, u64, Vec<Option<u64>>)> {
        let Type::List { of, .. } = &f.ty else {
            return None;
        };
        let Type::Named(en) = &**of else { return None };
        let Some(TypeDef::Struct(e)) = self.c.get(en) else {
            return None;
        };
        let esize = self.c.fixed_size(of)?;
        Some((e, esize, self.c.field_offsets(e)))
    }

    /// For a list sorted by an `Index` key (`sort_by`), just read into
    /// `f_<list>` from `at_<list>`: the check that the keys ascend, each once
    /// (`interned::ascending_keys`).
    pub(crate) fn ascending_keys_check(&self, f: &Field) -> Option<TokenStream> {
        let rt = RT();
        let key = f.sort_by.as_deref()?;
        let (e, esize, offs) = self.fixed_elements(f)?;
        let ki = e.fields.iter().position(|g| g.name == key)?;
        // An interned string's index, or a stored number (a hash).
        let (width, noun) = match &e.fields[ki].ty {
            Type::Index { width, .. } => (&**width, "key index"),
            t if e.fields[ki].derive.is_none() && codec_schema::int_width(t).is_some() => {
                (t, "key")
            }
            _ => return None,
        };
        let koff = offs[ki]?;
        let read = read_uint(width, quote!(q));
        let v = local("f", &f.name);
        let at = local("at", &f.name);
        let fname = f.name.as_str();
        Some(quote! {
            {
                let key_at = |i: usize| #at + i as u64 * #esize + #koff;
                let key = |i: usize| { let q = key_at(i); #read };
                if let Err((i, e)) = #rt::interned::ascending(#v.len(), key, key_at, #noun) {
                    return Err(e.in_field(#key).at_index(i).in_field(#fname));
                }
            }
        })
    }

    /// A list of records kept in document order (`visit: Document`): read
    /// as stored, then reordered so that the targets of each section ascend.
    fn document_order_read(&self, s: &StructDef, f: &Field) -> Option<TokenStream> {
        if f.visit != Visit::Document {
            return None;
        }
        let Type::List { of, count } = &f.ty else {
            return None;
        };
        let (e, esize, offs) = self.fixed_elements(f)?;
        let (sw, tf) = e.fields.iter().zip(&offs).find_map(|(g, o)| match &g.ty {
            Type::Switch { union, tag } => Some(((g, union, (*o)?), tag)),
            _ => None,
        })?;
        let (g, union, voff) = sw;
        let ti = e.fields.iter().position(|h| &h.name == tf)?;
        let toff = offs[ti]?;
        let twidth = codec_schema::int_width(&e.fields[ti].ty).unwrap_or(1);
        let wsize = self.c.fixed_size(&g.ty).unwrap_or(4);
        let rt = RT();
        let un = ident(union);
        let (plain, _) = self.list_field_read(s, &f.name, of, count);
        let ascending = self.ascending_keys_check(f);
        let v = local("f", &f.name);
        let at = local("at", &f.name);
        Some(quote! {
            #plain
            #ascending
            // Reordered in place: a list returned through memory was read
            // back sixteen bytes at a time from stores of eight (issue 51).
            let mut #v = #v;
            {
                // The places are read from the input, held apart from the
                // reader, whose buffers find the order.
                let (data, endian) = (r.data(), r.endian());
                let place = |i: usize| {
                    let q = #at + i as u64 * #esize;
                    let tag = #rt::base::checked::uint(data, q + #toff, #twidth, endian).ok()?;
                    let word = #rt::base::checked::uint(data, q + #voff, #wsize, endian).ok()?;
                    #un::placed_in(tag).map(|s| (s, word))
                };
                r.put_in_document_order(&mut #v, place);
            }
        })
    }

    /// An offset inside a union payload: read it and decode its target.
    pub(crate) fn ptr_inline_read(
        &self,
        p: &Ptr,
        start: TokenStream,
        owner: &str,
        field: &str,
    ) -> TokenStream {
        let rt = RT();
        let read = read_uint(&p.width, quote!(s));
        let w = codec_schema::int_width(&p.width).unwrap_or(4);
        let scale = p.scale;
        let base = p.payload_base();
        let size = self.c.fixed_size(&p.to).unwrap_or(1).max(1);
        let note = self.note_shared(p);
        let body = match &p.to {
            Type::Named(n) => {
                let tn = self.path_as(n, "__Decode");
                quote!(#tn::decode_at(r, t).map(|(v, _)| v))
            }
            Type::List { of, count } => {
                let (n, start) = match &**count {
                    codec_schema::Count::Prefix(ct) => {
                        let cw = codec_schema::int_width(ct).unwrap_or(4);
                        let cr = read_uint(ct, quote!(t));
                        (quote!(#cr?), quote!(t + #cw))
                    }
                    _ => (quote!(0u64), quote!(t)),
                };
                let at = proc_macro2::Ident::new("s", proc_macro2::Span::call_site());
                let list = self.list_read(of, n, start, &at, owner, field);
                let lty = self.list_ty(of, owner, field);
                quote!((|| -> #rt::DecodeResult<#lty> { #list })())
            }
            other => {
                let read = self.inline_read(other, quote!(t), owner, field);
                quote!(#read.map(|(v, _)| v))
            }
        };
        quote! {{
            let s: u64 = #start;
            (|| {
                let raw = #read?;
                let t = r.target(s, #base, raw, #scale)?;
                #note
                r.enter(s, t, #size)?;
                let v = #body;
                r.leave();
                v.map(|v| (v, s + #w))
            })()
        }}
    }

    /// `decode_at` for a union told apart by its payload's first bytes.
    pub(crate) fn decode_peek_union(&self, u: &UnionDef) -> TokenStream {
        let rt = RT();
        let unknown = crate::names::unknown_tag(u, quote!(pos));
        let read = read_uint(&u.tag, quote!(pos));
        let arms = u.variants.iter().map(|v| {
            let vn = ident(&v.name);
            let tag = v.tag;
            let vname = &v.name;
            let Type::Named(n) = &v.ty else {
                return quote!();
            };
            let tn = self.path_as(n, "__Decode");
            quote! {
                #tag => match #tn::decode_at(r, pos) {
                    Ok((v, end)) => Ok((Self::#vn(v), end)),
                    Err(e) => Err(e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                },
            }
        });
        let vis = self.vis();
        // The `other` variant takes every tag that names none (reserved
        // ones excepted: they stay refused by name).
        let fallback = match u
            .other
            .as_deref()
            .and_then(|o| u.variants.iter().find(|v| v.name == o))
        {
            Some(v) => {
                let vn = ident(&v.name);
                let vname = &v.name;
                let Type::Named(n) = &v.ty else {
                    return quote!(compile_error!("a peek union's variants are structs"););
                };
                let tn = self.path_as(n, "__Decode");
                let reserved = u.reserved.iter().map(|r| r.tag);
                quote! {
                    t if ![#(#reserved),*].contains(&t) => match #tn::decode_at(r, pos) {
                        Ok((v, end)) => Ok((Self::#vn(v), end)),
                        Err(e) => Err(e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                    },
                }
            }
            None => quote!(),
        };
        self.impl_block(
            &u.name,
            "__Decode",
            quote! {
                /// Decodes the variant whose magic is at `pos`.
                #[allow(unused_variables)]
                #vis fn decode_at(r: &mut #rt::Reader<'_>, pos: u64) -> #rt::DecodeResult<(Self, u64)> {
                    let tag = #read?;
                    match tag {
                        #(#arms)*
                        #fallback
                        _ => Err(#unknown),
                    }
                }
            },
        )
    }

    // ----- encode -----

    // Statements writing a field of this module's constructs (in
    // `write_record`, where `start` is the record's position), one per
    // step of the write plan (`codec_schema::FieldWrite`).

    /// The tags of the unions list `of` holds (`derive: Tags`, written as
    /// `width`), in the order the list is written.
    pub(crate) fn tags_write(
        &self,
        s: &StructDef,
        f: &Field,
        source: &str,
        width: &Type,
    ) -> syn::Result<TokenStream> {
        let what = format!("{}.{}", s.name, f.name);
        let wt = width_tokens(width);
        let (list, field) = codec_schema::tags_source(source);
        let lid = ident(list);
        let Some(field) = field else {
            let general = quote! {
                for e in self.#lid.iter() {
                    w.put_uint(#wt, e.tag(), #what)?;
                }
            };
            // An inline list's leaves: each tag from its kind.
            let inline_of = s
                .fields
                .iter()
                .find(|g| g.name == list && g.inline)
                .and_then(|g| match &g.ty {
                    Type::List { of, .. } => match &**of {
                        Type::Switch { union, .. } => Some(ident(union)),
                        _ => None,
                    },
                    _ => None,
                });
            return Ok(match inline_of {
                // One-byte tags of a packed list: its run in one copy.
                Some(un) if matches!(width, Type::U8) => quote! {
                    match self.#lid.packed_tags(|k| #un::__leaf_tag(k) as u8) {
                        ::std::option::Option::Some((tags, n)) => w.put_run(tags, n),
                        ::std::option::Option::None => { #general }
                    }
                },
                Some(un) => quote! {
                    match self.#lid.leaves() {
                        ::std::option::Option::Some(leaves) => {
                            for (k, _) in leaves {
                                w.put_uint(#wt, #un::__leaf_tag(k), #what)?;
                            }
                        }
                        ::std::option::Option::None => { #general }
                    }
                },
                None => general,
            });
        };
        // Tags of the elements' Switch field, in the order the
        // elements were written.
        let vid = ident(field);
        let Some(lf) = s.fields.iter().find(|g| g.name == list) else {
            return Err(Gen::err(format!("`{what}`: no list `{list}`")));
        };
        let Type::List { of: et, .. } = &lf.ty else {
            return Err(Gen::err(format!("`{what}`: `{list}` is not a list")));
        };
        let keys = self
            .index_sort_keys(s, lf, et)
            .or_else(|| self.int_sort_keys(lf, et));
        Ok(match keys {
            Some(keys) => quote! {
                let keys: ::std::vec::Vec<u64> = #keys;
                let order = w.sorted_order(&keys);
                for &i in order.iter() {
                    w.put_uint(#wt, self.#lid[i].#vid.tag(), #what)?;
                }
                w.give_order(order);
                w.give_keys(keys);
            },
            None => quote! {
                for e in self.#lid.iter() {
                    w.put_uint(#wt, e.#vid.tag(), #what)?;
                }
            },
        })
    }

    /// An interned table's body (`Table`): offsets, then the strings.
    pub(crate) fn table_body_write(&self, s: &StructDef, f: &Field, offsets: &Type) -> TokenStream {
        let rt = RT();
        let fid = ident(&f.name);
        let what = format!("{}.{}", s.name, f.name);
        let wt = width_tokens(offsets);
        quote!(#rt::interned::write_table(w, start, &self.#fid, #wt, #what)?;)
    }

    /// A union's value word (`Switch`), or each of a list of them.
    pub(crate) fn words_write(
        &self,
        s: &StructDef,
        f: &Field,
        union: &str,
        list: bool,
    ) -> TokenStream {
        let rt = RT();
        let fid = ident(&f.name);
        let what = format!("{}.{}", s.name, f.name);
        let un = self.path_as(union, "__Tree");
        if !list {
            return quote! {
                let off = w.pos() - start;
                #un::write_word(&self.#fid, w, #rt::key_of(self), Self::TYPE_ID, off, #what)?;
            };
        }
        let size = match &f.ty {
            Type::List { of, .. } => self.c.fixed_size(of).unwrap_or(4),
            _ => 4,
        };
        let general = quote! {
            for (i, e) in self.#fid.iter().enumerate() {
                #un::write_word(&*e, w, #rt::key_of(self), Self::TYPE_ID, off + i as u64 * #size, #what)?;
            }
        };
        if !f.inline {
            return quote! {
                let off = w.pos() - start;
                #general
            };
        }
        // An inline list's leaves lead nowhere: their words as they are.
        let ty = ident(union);
        let order = self.endian_const();
        quote! {
            let off = w.pos() - start;
            match self.#fid.packed_words(|k, word| #ty::__leaf_bytes(k, word, #order)) {
                ::std::option::Option::Some((words, n)) => w.put_run(words, n),
                ::std::option::Option::None => { #general }
            }
        }
    }

    /// Zeros before a field with `align`, counted from the record's start.
    pub(crate) fn field_align_write(&self, f: &Field) -> TokenStream {
        match f.align {
            Some(a) if a > 1 => quote! {
                let pad = (w.pos() - start).next_multiple_of(#a) - (w.pos() - start);
                w.put_zeros(pad as usize);
            },
            _ => quote!(),
        }
    }

    /// The key of a list sorted by an `Index` field of its elements: the
    /// key field's name, the element type's name and the table's id.
    fn index_sort_key<'f>(&'f self, f: &'f Field, _of: &Type) -> Option<(&'f str, &'f str, usize)> {
        match self.c.sort_key(f)? {
            SortKey::Interned { elem, key, table } => Some((key, elem.name.as_str(), table)),
            SortKey::Stored { .. } | SortKey::Hashed(_) => None,
        }
    }

    /// The key each element of a list sorted by a stored unsigned integer
    /// field sorts by: the number itself.
    pub(crate) fn int_sort_keys(&self, f: &Field, _of: &Type) -> Option<TokenStream> {
        let key = match self.c.sort_key(f)? {
            SortKey::Stored { key, .. } => key,
            SortKey::Interned { .. } | SortKey::Hashed(_) => return None,
        };
        let fid = ident(&f.name);
        let kid = ident(key);
        Some(quote! {
            {
                let mut keys = w.take_keys();
                keys.extend(self.#fid.iter().map(|e| e.#kid as u64));
                keys
            }
        })
    }

    /// For a list sorted by an `Index` key: tells the writer the index of
    /// element `e`'s key (`keys[i]`, just looked up) before the element's
    /// record is written, so that writing its key does not look it up again.
    pub(crate) fn index_sort_hint(&self, f: &Field, of: &Type) -> Option<TokenStream> {
        let (key, _, id) = self.index_sort_key(f, of)?;
        let kid = ident(key);
        Some(quote!(w.hint_index(#id, &e.#kid, keys[i]);))
    }

    /// The key each element of list `f` of `s`, sorted by an `Index`
    /// field, sorts by: the string's rank in its table. A record of a
    /// shared section takes them from the ids its shape noted
    /// ([`Self::notes_sort_keys`]); otherwise each is looked up.
    pub(crate) fn index_sort_keys(
        &self,
        s: &StructDef,
        f: &Field,
        of: &Type,
    ) -> Option<TokenStream> {
        let (key, en, id) = self.index_sort_key(f, of)?;
        let fid = ident(&f.name);
        let kid = ident(key);
        let what = format!("{}.{}", en, key);
        let look_up = quote! {
            for e in self.#fid.iter() {
                keys.push(w.interned().index(#id, &e.#kid, #what)?);
            }
        };
        let fill = if self.notes_sort_keys(s, f) {
            let rt = RT();
            quote! {
                if !w.sort_key_ranks(#rt::key_of(self), Self::TYPE_ID, #id, self.#fid.len(), &mut keys) {
                    #look_up
                }
            }
        } else {
            look_up
        };
        Some(quote! {
            {
                let mut keys = w.take_keys();
                #fill
                keys
            }
        })
    }

    /// Is field `field` of struct `name` the `Index` key some list of
    /// `name`s is sorted by? Its shape then notes the key's id
    /// (`Shapes::sort_key`), for the write to take instead of looking it up.
    fn is_index_sort_key(&self, name: &str, field: &str) -> bool {
        let Some(TypeDef::Struct(e)) = self.c.get(name) else {
            return false;
        };
        if !matches!(
            e.fields.iter().find(|g| g.name == field).map(|g| &g.ty),
            Some(Type::Index { .. })
        ) {
            return false;
        }
        self.c.base().types.iter().any(|t| match t {
            TypeDef::Struct(s) => s.fields.iter().any(|g| {
                g.sort_by.as_deref() == Some(field)
                    && matches!(&g.ty, Type::List { of, .. } if matches!(&**of, Type::Named(n) if n == name))
            }),
            TypeDef::Union(_) => false,
        })
    }

    /// Do the sort keys a record of `s`'s shape notes belong, one per
    /// element, to its sorted list `f` and to nothing else? Then they are
    /// that list's keys in order (the shape of a record of a shared section
    /// notes exactly the keys it meets itself, not its children's).
    fn notes_sort_keys(&self, s: &StructDef, f: &Field) -> bool {
        if !self.hash_consed(&s.name) {
            return false;
        }
        let Type::List { of, .. } = &f.ty else {
            return false;
        };
        self.sort_keys_per_value(of, &mut Vec::new()) == Some(1)
            && s.fields
                .iter()
                .filter(|g| g.name != f.name && codec_schema::Checked::is_stored(g))
                .all(|g| self.sort_keys_per_value(&g.ty, &mut Vec::new()) == Some(0))
    }

    /// How many sort keys the shape of a value of type `t` notes, when the
    /// number is fixed; `None` when it is not (a list of such values, a
    /// union whose variants differ, a type that holds itself).
    fn sort_keys_per_value(&self, t: &Type, seen: &mut Vec<String>) -> Option<usize> {
        match t {
            Type::Named(n) | Type::Switch { union: n, .. } => {
                if self.hash_consed(n) {
                    // Its own shape notes its keys.
                    return Some(0);
                }
                if seen.contains(n) {
                    return None;
                }
                seen.push(n.clone());
                let out = match self.c.get(n)? {
                    TypeDef::Struct(st) => {
                        let mut sum = 0;
                        for g in st
                            .fields
                            .iter()
                            .filter(|g| codec_schema::Checked::is_stored(g))
                        {
                            sum += usize::from(self.is_index_sort_key(n, &g.name));
                            sum += self.sort_keys_per_value(&g.ty, seen)?;
                        }
                        Some(sum)
                    }
                    TypeDef::Union(u) => {
                        let mut counts = u
                            .variants
                            .iter()
                            .map(|v| self.sort_keys_per_value(&v.ty, seen));
                        let first = counts.next().unwrap_or(Some(0))?;
                        counts.all(|c| c == Some(first)).then_some(first)
                    }
                };
                seen.pop();
                out
            }
            Type::List { of, .. } | Type::Array { of, .. } => {
                (self.sort_keys_per_value(of, seen)? == 0).then_some(0)
            }
            Type::Ptr(p) => self.sort_keys_per_value(&p.to, seen),
            Type::Select { .. } | Type::Groups { .. } => None,
            _ => Some(0),
        }
    }

    /// `visit_df` for a struct: each offset's target placed (or found among
    /// the shared ones) and at once visited, in the record's placing order
    /// (`Checked::placing_order`).
    pub(crate) fn visit_df_struct(&self, s: &StructDef) -> syn::Result<TokenStream> {
        let rt = RT();
        let runtime_offsets = self.field_offset_exprs(s);
        let mut body = TokenStream::new();
        // The inline lists walked, and whether anything else is: a record
        // that walks only inline lists, each packed, leads nowhere.
        let mut inline_walked = Vec::new();
        let mut other_walked = false;
        for fi in self.c.placing_order(s) {
            let f = &s.fields[fi];
            if f.derive.is_some() && f.derive != Some(Derive::Interned) {
                continue;
            }
            let fid = ident(&f.name);
            let what = format!("{}.{}", s.name, f.name);
            let off = runtime_offsets[fi].clone().unwrap_or(quote!(0u64));
            let mut piece = TokenStream::new();
            match &f.ty {
                Type::Ptr(p) if f.derive.is_none() => {
                    let place = self.df_place(
                        p,
                        quote!(v),
                        &what,
                        quote!(#rt::key_of(self)),
                        quote!(Self::TYPE_ID),
                        off,
                    )?;
                    piece.extend(if p.optional {
                        quote!(if let Some(v) = &self.#fid { #place })
                    } else {
                        quote!({ let v = &self.#fid; #place })
                    });
                }
                Type::Switch { union, .. } if self.reaches_df(&f.ty) => {
                    let un = self.path_as(union, "__Tree");
                    piece.extend(quote! {
                        #un::visit_word(&self.#fid, w, sec, #rt::key_of(self), Self::TYPE_ID, #off, pos)?;
                    });
                }
                Type::List { of, .. } if self.reaches_df(of) => match &**of {
                    Type::Switch { union, .. } => {
                        let un = self.path_as(union, "__Tree");
                        let size = self.c.fixed_size(of).unwrap_or(4);
                        // An inline list's leaves lead nowhere: only its
                        // heap form is walked.
                        let items = if f.inline {
                            inline_walked.push(fid.clone());
                            quote!(self.#fid.heap_items())
                        } else {
                            quote!(self.#fid)
                        };
                        let walk = self.list_walk(items);
                        piece.extend(quote! {
                            let off = #off;
                            for (i, e) in #walk.enumerate() {
                                #un::visit_word(e, w, sec, #rt::key_of(self), Self::TYPE_ID, off + i as u64 * #size, pos)?;
                            }
                        });
                    }
                    Type::Named(en) => {
                        let et = self.path_as(en, "__Tree");
                        let eid = ident(en);
                        let fname = &f.name;
                        let walk = self.list_walk(quote!(self.#fid));
                        piece.extend(match self.list_slots(s, f, &runtime_offsets[fi]) {
                            // Written back to back: each element's position is
                            // its slot's, computed rather than looked up.
                            Some(ListSlots {
                                at,
                                size,
                                keys: None,
                            }) => quote! {
                                let at = #at;
                                for (i, e) in #walk.enumerate() {
                                    let epos = if pos == #rt::UNPLACED {
                                        #rt::UNPLACED
                                    } else {
                                        pos + at + i as u64 * #size
                                    };
                                    #et::visit_df(e, w, sec, epos)?;
                                }
                            },
                            // Sorted, its targets placed in the written
                            // (sorted) order: the k-th in key order is in slot k.
                            Some(ListSlots {
                                at,
                                size,
                                keys: Some(keys),
                            }) if f.visit == Visit::Written => quote! {
                                let at = #at;
                                let keys: ::std::vec::Vec<u64> = #keys;
                                let order = w.sorted_order(&keys);
                                w.give_keys(keys);
                                for (k, &i) in order.iter().enumerate() {
                                    let epos = if pos == #rt::UNPLACED {
                                        #rt::UNPLACED
                                    } else {
                                        pos + at + k as u64 * #size
                                    };
                                    #et::visit_df(&self.#fid[i], w, sec, epos)?;
                                }
                                w.give_order(order);
                            },
                            // Sorted, its targets placed in the document's order.
                            Some(ListSlots {
                                at,
                                size,
                                keys: Some(keys),
                            }) => quote! {
                                let at = #at;
                                let slots: ::std::vec::Vec<usize> = if pos == #rt::UNPLACED {
                                    ::std::vec::Vec::new()
                                } else if let Some(slots) = w.last_sorted_slots(#rt::key_of(self), Self::TYPE_ID, #fname) {
                                    slots
                                } else {
                                    let keys: ::std::vec::Vec<u64> = #keys;
                                    let slots = #rt::placement::sorted_slots(&keys);
                                    w.give_keys(keys);
                                    slots
                                };
                                for (i, e) in #walk.enumerate() {
                                    let epos = match slots.get(i) {
                                        Some(&k) => pos + at + k as u64 * #size,
                                        None => #rt::UNPLACED,
                                    };
                                    #et::visit_df(e, w, sec, epos)?;
                                }
                                w.give_order(slots);
                            },
                            None => quote! {
                                for e in #walk {
                                    let epos = if pos == #rt::UNPLACED {
                                        #rt::UNPLACED
                                    } else {
                                        w.record(#rt::key_of(e), #eid::TYPE_ID, #what)?
                                    };
                                    #et::visit_df(e, w, sec, epos)?;
                                }
                            },
                        });
                    }
                    _ => {}
                },
                Type::Named(n) if self.reaches_df(&f.ty) => {
                    let nt = self.path_as(n, "__Tree");
                    piece.extend(quote! {
                        let fpos = if pos == #rt::UNPLACED { pos } else { pos + #off };
                        #nt::visit_df(&self.#fid, w, sec, fpos)?;
                    });
                }
                _ => {}
            }
            let walks_inline = inline_walked.last() == Some(&fid);
            if !piece.is_empty() && !walks_inline {
                other_walked = true;
            }
            body.extend(piece);
        }
        // In the walk that placed it (`pos` known), right after its shape
        // was asked for: a record whose inline lists are all packed and
        // that walks nothing else has nothing to place and nothing to mark,
        // so its shape is not asked for again (a small array's second
        // lookup and visit mark were 8 % of a float-array encode's
        // instructions).
        let leads_nowhere = if !inline_walked.is_empty() && !other_walked {
            quote! {
                if pos != #rt::UNPLACED #(&& self.#inline_walked.heap_items().is_empty())* {
                    return Ok(());
                }
            }
        } else {
            quote!()
        };
        let prologue = if let Some(home) = self.shared_home(&s.name) {
            quote! {
                #leads_nowhere
                let shape = self.shape_id(w.shapes());
                if !w.first_visit(#home, sec, shape) {
                    return Ok(());
                }
            }
        } else {
            quote!()
        };
        let vis = self.vis();
        Ok(self.impl_block(
            &s.name,
            "__Tree",
            quote! {
                /// Places, depth first, what this record leads to in section
                /// `sec`; `pos` is where the record was written (or UNPLACED).
                #[allow(unused_variables)]
                #vis fn visit_df(&self, w: &mut #rt::Writer, sec: usize, pos: u64) -> #rt::EncodeResult<()> {
                    #prologue
                    #body
                    Ok(())
                }
            },
        ))
    }

    /// Where the elements of list field `f` of `s` lie when they are
    /// written back to back at a computable offset (`at`, from
    /// `field_offset_exprs`) and have a fixed size: element `i` is at its
    /// slot, which is `i`, or its rank under `keys` for a sorted list.
    /// `None` when the position can only be looked up (`Writer::record`).
    pub(crate) fn list_slots(
        &self,
        s: &StructDef,
        f: &Field,
        at: &Option<TokenStream>,
    ) -> Option<ListSlots> {
        let Type::List { of, .. } = &f.ty else {
            return None;
        };
        let size = self.c.fixed_size(of)?;
        let at = at.clone()?;
        let keys = match &f.sort_by {
            None => None,
            Some(_) => Some(
                self.index_sort_keys(s, f, of)
                    .or_else(|| self.int_sort_keys(f, of))
                    .or_else(|| self.sort_keys(s, f))?,
            ),
        };
        Some(ListSlots { at, size, keys })
    }

    /// Does some walk look up the position of a record of type `name` with
    /// `Writer::record` (an element of a list whose slots are not computable)?
    pub(crate) fn record_looked_up(&self, name: &str) -> bool {
        self.c.schema.types.iter().any(|t| {
            let TypeDef::Struct(s) = t else { return false };
            let offsets = self.field_offset_exprs(s);
            s.fields.iter().enumerate().any(|(fi, f)| match &f.ty {
                Type::List { of, .. } => {
                    matches!(&**of, Type::Named(n) if n == name)
                        && self.reaches_df(of)
                        && self.list_slots(s, f, &offsets[fi]).is_none()
                }
                _ => false,
            })
        })
    }

    fn reaches_df(&self, t: &Type) -> bool {
        self.c.reaches_depth_first(t)
    }

    /// Statements placing the target `v` (a reference) of offset `p` for
    /// the depth-first walk over section `sec`. The offset lives at `off`
    /// in the holder record (`key`, `tid`), written at `pos` (or not yet).
    fn df_place(
        &self,
        p: &Ptr,
        v: TokenStream,
        what: &str,
        key: TokenStream,
        tid: TokenStream,
        off: TokenStream,
    ) -> syn::Result<TokenStream> {
        let rt = RT();
        let order = self.endian_const();
        let Some(si) = p.section.as_deref().and_then(|s| self.c.section_id(s)) else {
            return Ok(quote!());
        };
        let sec = self.c.section(si);
        let ia = sec.item_align;
        let wt = width_tokens(&p.width);
        let scale = p.scale;
        let base = p.payload_base();
        let patch = quote! {
            if pos == #rt::UNPLACED {
                w.defer(#key, #tid, off, target);
            } else {
                w.patch_offset(pos + off, #wt, #base, #scale, target, #order, #what)?;
            }
        };
        let named = match &p.to {
            Type::Named(n) => Some(n.as_str()),
            _ => None,
        };
        let reaches = self.reaches_df(&p.to);
        let visit = match named {
            Some(n) if reaches => {
                let nt = self.path_as(n, "__Tree");
                quote!(#nt::visit_df(#v, w, sec, target)?;)
            }
            _ => quote!(),
        };
        let visit_elsewhere = match named {
            Some(n) if reaches => {
                let nt = self.path_as(n, "__Tree");
                quote!(#nt::visit_df(#v, w, sec, #rt::UNPLACED)?;)
            }
            _ => quote!(),
        };
        let place = if sec.dedup == Dedup::Shared {
            let Some(n) = named else {
                return Err(Gen::err(format!(
                    "`{what}`: a shared section holds records (a named struct or union)"
                )));
            };
            let enc = self.path_as(n, "__Encode");
            quote! {
                let shape = (#v).shape_id(w.shapes());
                let (target, fresh) = match w.shared_at(#si, shape) {
                    Some(t) => (t, false),
                    None => {
                        w.align(#ia);
                        let t = w.pos();
                        #enc::write_record(#v, w)?;
                        w.note_shared(#si, shape, t);
                        (t, true)
                    }
                };
                #patch
                if fresh { #visit }
            }
        } else {
            let align_by = named.and_then(|n| self.align_by_pad(n, &v));
            let target = match named {
                Some(n) => {
                    let enc = self.path_as(n, "__Encode");
                    quote! {
                        w.align(#ia);
                        #align_by
                        let target = w.pos();
                        #enc::write_record(#v, w)?;
                    }
                }
                None => {
                    let pv = self.place_value(&p.to, v.clone(), &Dedup::None, ia, what);
                    quote!(let target: u64 = { #pv };)
                }
            };
            quote! {
                #target
                #patch
                #visit
            }
        };
        Ok(quote! {
            let off: u64 = #off;
            if sec == #si {
                #place
            } else {
                #visit_elsewhere
            }
        })
    }

    /// Zeros that put a record's `align_by` field at a multiple of the
    /// record's stored alignment.
    fn align_by_pad(&self, name: &str, v: &TokenStream) -> Option<TokenStream> {
        let Some(TypeDef::Struct(s)) = self.c.get(name) else {
            return None;
        };
        let offs = self.c.field_offsets(s);
        let (f, o) = s
            .fields
            .iter()
            .zip(&offs)
            .find(|(f, _)| f.align_by.is_some())?;
        let o = (*o)?;
        let by = ident(f.align_by.as_deref()?);
        Some(quote! {
            let a = (u64::from((#v).#by)).max(1);
            let pad = (w.pos() + #o).next_multiple_of(a) - (w.pos() + #o);
            w.put_zeros(pad as usize);
        })
    }

    /// `write_word` and `visit_word` for a union held as a value word (its
    /// tag stored apart), and the record methods of a peeked union.
    pub(crate) fn tree_union(&self, u: &UnionDef) -> syn::Result<TokenStream> {
        let rt = RT();
        let vis = self.vis();
        if u.peek {
            let writes = u.variants.iter().map(|v| {
                let vn = ident(&v.name);
                let Type::Named(n) = &v.ty else {
                    return quote!();
                };
                let enc = self.path_as(n, "__Encode");
                quote!(Self::#vn(v) => #enc::write_record(v, w),)
            });
            let visits = u.variants.iter().map(|v| {
                let vn = ident(&v.name);
                let Type::Named(n) = &v.ty else {
                    return quote!();
                };
                let t = self.path_as(n, "__Tree");
                quote!(Self::#vn(v) => #t::visit_df(v, w, sec, pos),)
            });
            // A payload has `visit_df` only when some section is placed
            // depth first; without one, nothing is visited.
            let visits2 = if self.has_depth_first() {
                quote!(match self { #(#visits)* })
            } else {
                quote!(Ok(()))
            };
            let enc = self.impl_block(
                &u.name,
                "__Encode",
                quote! {
                    /// Writes the variant's record (its magic is the tag).
                    #vis fn write_record(&self, w: &mut #rt::Writer) -> #rt::EncodeResult<()> {
                        match self { #(#writes)* }
                    }
                    #[allow(unused_variables)]
                    #vis fn visit<const SEC: usize, const POST: bool>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                        Ok(())
                    }
                    #[allow(unused_variables)]
                    fn place_own<const SEC: usize>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                        Ok(())
                    }
                },
            );
            let tree = self.impl_block(
                &u.name,
                "__Tree",
                quote! {
                    #[allow(unused_variables)]
                    #vis fn visit_df(&self, w: &mut #rt::Writer, sec: usize, pos: u64) -> #rt::EncodeResult<()> {
                        #visits2
                    }
                },
            );
            return Ok(quote!(#enc #tree));
        }
        let uname = &u.name;
        let mut writes = TokenStream::new();
        let mut visits = TokenStream::new();
        for v in &u.variants {
            let vn = ident(&v.name);
            let what = format!("{uname}.{}", v.name);
            match &v.ty {
                Type::Ptr(p) => {
                    let wt = width_tokens(&p.width);
                    let n = codec_schema::int_width(&p.width).unwrap_or(4) as usize;
                    let scale = p.scale;
                    writes.extend(quote! {
                        Self::#vn(_) => match w.take_deferred(key, tid, off) {
                            Some(t) => w.put_offset(#wt, 0, #scale, t, #what)?,
                            None => w.put_bytes(&[0u8; #n]),
                        },
                    });
                    let place =
                        self.df_place(p, quote!(v), &what, quote!(key), quote!(tid), quote!(off))?;
                    visits.extend(quote!(Self::#vn(v) => { #place }));
                }
                Type::Index { table, width } => {
                    let id = self.table_id(table);
                    let wt = width_tokens(width);
                    writes.extend(quote! {
                        Self::#vn(v) => {
                            let i = w.interned().index(#id, v, #what)?;
                            w.put_uint(#wt, i, #what)?;
                        }
                    });
                }
                t => {
                    let e = self.inline_write(t, quote!(v), &what);
                    writes.extend(quote!(Self::#vn(v) => { #e }));
                }
            }
        }
        Ok(self.impl_block(
            &u.name,
            "__Tree",
            quote! {
                /// Writes the value word of this variant; an offset is
                /// written when its target is placed already, else zeros.
                #[allow(unused_variables)]
                #vis fn write_word(&self, w: &mut #rt::Writer, key: usize, tid: usize, off: u64, what: &'static str) -> #rt::EncodeResult<()> {
                    match self { #writes }
                    Ok(())
                }

                /// Places, depth first, what this value leads to in `sec`.
                #[allow(unused_variables)]
                #vis fn visit_word(&self, w: &mut #rt::Writer, sec: usize, key: usize, tid: usize, off: u64, pos: u64) -> #rt::EncodeResult<()> {
                    match self {
                        #visits
                        _ => {}
                    }
                    Ok(())
                }
            },
        ))
    }
}
