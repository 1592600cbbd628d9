//! The Rust types: one struct per schema struct (stored fields only: magic
//! and derived fields are not kept), one enum per union, one small struct per
//! bitfield.

use crate::names::{bits_struct, bits_ty, contains_directly, ident};
use crate::Gen;
use codec_schema::{Checked, StructDef, Type, TypeDef, UnionDef};
use proc_macro2::TokenStream;
use quote::quote;

/// Union payloads of more bytes than this are boxed in the generated enum.
const BOX_PAYLOADS_OVER: u64 = 32;

impl Gen<'_> {
    pub(crate) fn types(&self) -> TokenStream {
        let mut out = self.serde_helpers();
        // The schema as written: a field that only some variants have is
        // one Rust field, and fields of one name (one per variant) too.
        for t in &self.c.base().types {
            out.extend(match t {
                TypeDef::Struct(s) => self.struct_type(s),
                TypeDef::Union(u) => self.union_type(u),
            });
        }
        out
    }

    /// The Rust type of a field type, inside struct `owner`, field `field`.
    pub(crate) fn rust_ty(&self, t: &Type, owner: &str, field: &str) -> TokenStream {
        match t {
            Type::U8 | Type::Pad { .. } => quote!(u8),
            // Text with control records: its parts (`codec_runtime::tagged_text`).
            Type::Text { tags, .. } => {
                let t = tags.as_deref().map_or(quote!(()), |u| {
                    let id = ident(u);
                    quote!(#id)
                });
                quote!(::std::vec::Vec<::codec_runtime::TextPart<#t>>)
            }
            // The records of every slot, in slot order.
            Type::HashSlots { of, .. } => {
                let id = ident(of);
                quote!(::std::vec::Vec<#id>)
            }
            Type::U16 => quote!(u16),
            Type::U24 | Type::U32 => quote!(u32),
            Type::U64 => quote!(u64),
            Type::I8 => quote!(i8),
            Type::I16 => quote!(i16),
            Type::I32 => quote!(i32),
            Type::I64 => quote!(i64),
            Type::F32 => quote!(f32),
            Type::F64 => quote!(f64),
            Type::Bool8 | Type::Bool32 => quote!(bool),
            Type::Magic(_) => quote!(()),
            Type::Bytes(n) => {
                let n = *n as usize;
                quote!([u8; #n])
            }
            Type::CString {
                lossless: false, ..
            }
            | Type::PString { .. } => quote!(::codec_runtime::Str),
            Type::CString { lossless: true, .. } => quote!(::codec_runtime::Text),
            Type::Fixed { raw, .. } => self.rust_ty(raw, owner, field),
            Type::Ref { .. } => quote!(u32),
            Type::Hash { .. } => quote!(()),
            Type::Rows { cells, .. } => {
                let id = ident(cells);
                quote!(::codec_runtime::rows::Rows<#id>)
            }
            Type::Follows { to, .. } => self.rust_ty(to, owner, field),
            Type::SharesEqual { .. } => quote!(bool),
            Type::Named(n) | Type::Switch { union: n, .. } | Type::Select { union: n, .. } => {
                let id = ident(n);
                quote!(#id)
            }
            Type::Str { .. } | Type::Index { .. } => quote!(::codec_runtime::Str),
            Type::Table { .. } => quote!(::std::vec::Vec<::codec_runtime::Str>),
            Type::Pool {} => quote!(::codec_runtime::StringPool),
            Type::Groups { of, groups, .. } => {
                let e = self.rust_ty(of, owner, field);
                let n = *groups as usize;
                quote!([::std::vec::Vec<#e>; #n])
            }
            Type::Array { of, len } => {
                let e = self.rust_ty(of, owner, field);
                let n = *len as usize;
                quote!([#e; #n])
            }
            Type::List { of, .. } => self.list_ty(of, owner, field),
            Type::Bits { .. } => {
                let id = bits_struct(owner, field);
                quote!(#id)
            }
            Type::Ptr(p) => {
                let inner = self.rust_ty(&p.to, owner, field);
                let inner = if needs_box(self.c, &p.to, owner) {
                    quote!(::std::boxed::Box<#inner>)
                } else {
                    inner
                };
                if p.optional {
                    quote!(::std::option::Option<#inner>)
                } else if p.align.is_some() {
                    quote!(::codec_runtime::Aligned<#inner>)
                } else {
                    inner
                }
            }
        }
    }

    /// The Rust type of a list of `of`: a [`codec_runtime::Blob`] for
    /// bytes (a range of a shared input, or owned), else a `Vec`.
    pub(crate) fn list_ty(&self, of: &Type, owner: &str, field: &str) -> TokenStream {
        if matches!(of, Type::U8) {
            quote!(::codec_runtime::Blob)
        } else {
            let e = self.rust_ty(of, owner, field);
            quote!(::std::vec::Vec<#e>)
        }
    }

    /// A union payload's Rust type: large fixed-size payloads are boxed so
    /// that the enum stays small (moving a value copies the whole enum).
    pub(crate) fn payload_ty(&self, t: &Type, owner: &str, field: &str) -> TokenStream {
        let ty = self.rust_ty(t, owner, field);
        if self.boxed_payload(t) {
            quote!(::std::boxed::Box<#ty>)
        } else {
            ty
        }
    }

    /// Is a union payload of this type boxed?
    pub(crate) fn boxed_payload(&self, t: &Type) -> bool {
        self.c.fixed_size(t).is_some_and(|n| n > BOX_PAYLOADS_OVER)
    }

    fn struct_type(&self, s: &StructDef) -> TokenStream {
        let name = ident(&s.name);
        let doc = doc_lines(&s.doc, s.size.map(|n| format!("Size: 0x{n:x} bytes.")));
        let mut fields = Vec::new();
        let mut extra = TokenStream::new();
        let mut seen = std::collections::HashSet::new();
        for f in s
            .fields
            .iter()
            .filter(|f| Checked::is_stored(f))
            .filter(|f| seen.insert(f.name.as_str()))
        {
            let fname = ident(&f.name);
            let ty = match (&f.external, &f.ty) {
                (Some(path), _) => external_ty(path),
                (None, Type::List { of, .. }) if f.inline => {
                    Gen::inline_list_ty(self.rust_ty(of, &s.name, &f.name))
                }
                (None, t) => self.rust_ty(t, &s.name, &f.name),
            };
            let fdoc = doc_lines(&f.doc, None);
            let mut ser = self.serde_with(&f.ty, false);
            // A field only some variants have is absent from the generic
            // form of the others (`missing_fields` gives it its default
            // when decoding): it reads back as that default.
            let some_variants = !self.family.variants().is_empty()
                && s.fields
                    .iter()
                    .any(|g| g.name == f.name && g.when.is_some());
            let has_default = codec_schema::is_number(&f.ty)
                || matches!(
                    f.ty,
                    Type::List { .. }
                        | Type::Text { .. }
                        | Type::HashSlots { .. }
                        | Type::Bool8
                        | Type::Bool32
                );
            if self.serde && some_variants && has_default && f.external.is_none() && !f.inline {
                ser.extend(quote!(#[serde(default)]));
            }
            fields.push(quote! { #fdoc #ser pub #fname: #ty });
            if let Type::Bits { fields: bits, .. } = &f.ty {
                let bname = bits_struct(&s.name, &f.name);
                let has_str = bits.iter().any(|b| b.str.is_some());
                let bfields = bits.iter().map(|b| {
                    let n = ident(&b.name);
                    let t = if b.str.is_some() {
                        quote!(::codec_runtime::Str)
                    } else {
                        bits_ty(b.bits)
                    };
                    let d = doc_lines(&b.doc, Some(format!("{} bit(s).", b.bits)));
                    quote! { #d pub #n: #t }
                });
                let d = format!(
                    " The bit ranges of `{}.{}`, low bits first.",
                    s.name, f.name
                );
                let ser = self.serde_derive();
                // A range held as a string makes the struct own text.
                let copy = if has_str { quote!() } else { quote!(Copy,) };
                // The ranges from the word, low bits first: decode and the
                // views read them through this (ranges held as strings are
                // looked up by decode, so they have none).
                let from_word = if has_str {
                    quote!()
                } else {
                    // No range is a string here.
                    let inits = crate::names::bit_range_inits(bits, |_, _, _| quote!());
                    let parts = crate::names::bit_ranges(bits).map(|(b, sh, mask)| {
                        let n = ident(&b.name);
                        quote!(((self.#n as u64) & #mask) << #sh)
                    });
                    quote! {
                        impl #bname {
                            /// The bit ranges of `word`.
                            #[inline]
                            pub fn from_word(word: u64) -> Self {
                                #bname { #(#inits,)* }
                            }

                            /// The word the ranges make, each cut to its
                            /// bits (the encoder refuses a range that does
                            /// not fit; this is for glue and text forms
                            /// that need the stored word).
                            #[inline]
                            pub fn to_word(&self) -> u64 {
                                0 #(| #parts)*
                            }
                        }
                    }
                };
                extra.extend(quote! {
                    #[doc = #d]
                    #[derive(Debug, Clone, #copy PartialEq, Eq, Default)]
                    #ser
                    pub struct #bname { #(#bfields,)* }
                    #from_word
                });
            }
        }
        let ser = self.serde_derive();
        let offsets = self.field_offset_consts(s);
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            #ser
            pub struct #name { #(#fields,)* }
            #extra
            #offsets
        }
    }

    /// `NAME_AT` constants: where each field lies in the record, for the
    /// fields whose place is fixed and the same in every variant. Glue that
    /// reads a record's bytes before decode (a unit's transform) takes the
    /// places from here rather than restating them.
    fn field_offset_consts(&self, s: &StructDef) -> TokenStream {
        let family: Vec<&Checked> = if self.c.variants().is_empty() {
            vec![self.c]
        } else {
            self.c.variants().iter().collect()
        };
        let mut by_name: Vec<(&str, Option<u64>)> = Vec::new();
        for (k, vc) in family.iter().enumerate() {
            let Some(codec_schema::TypeDef::Struct(vs)) = vc.get(&s.name) else {
                return TokenStream::new();
            };
            let offs = vc.field_offsets(vs);
            for name in s.fields.iter().map(|f| f.name.as_str()) {
                // Every field of this name in this variant, at one place.
                let mut here = vs.fields.iter().zip(&offs).filter(|(f, _)| f.name == name);
                let first = here.next().and_then(|(_, o)| *o);
                let agreed = first.filter(|&o| here.all(|(_, x)| *x == Some(o)));
                match by_name.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, o)) if *o != agreed => *o = None,
                    Some(_) => {}
                    None if k == 0 => by_name.push((name, agreed)),
                    None => {}
                }
            }
        }
        let upper = |n: &str| format!("{}_AT", n.to_uppercase());
        let consts = by_name.iter().filter_map(|&(name, at)| {
            let at = at?;
            // Two names that differ only in case would make one constant.
            let id = upper(name);
            if by_name.iter().filter(|(n, _)| upper(n) == id).count() > 1 {
                return None;
            }
            let id = quote::format_ident!("{}", id);
            let d = format!(
                "Where `{}` lies in the record (bytes from its start).",
                name
            );
            Some(quote! { #[doc = #d] pub const #id: usize = #at as usize; })
        });
        let name = ident(&s.name);
        quote! {
            impl #name { #(#consts)* }
        }
    }

    fn union_type(&self, u: &UnionDef) -> TokenStream {
        let name = ident(&u.name);
        let doc = doc_lines(&u.doc, None);
        // A row region's cell that points at a string holds the string's
        // index in the rows' string list.
        let cells = self.is_cell_union(&u.name);
        // Variants of one name (one per schema variant, told apart by
        // `when`: MSBT's block magics in either byte order) are one Rust
        // variant; its `tag()` is the first one's.
        let mut seen = std::collections::HashSet::new();
        let firsts: Vec<&codec_schema::Variant> = u
            .variants
            .iter()
            .filter(|v| seen.insert(v.name.as_str()))
            .collect();
        let variants = firsts.iter().map(|v| {
            let vn = ident(&v.name);
            let ty = if cells && matches!(v.ty, Type::Ptr(_)) {
                quote!(u32)
            } else {
                self.payload_ty(&v.ty, &u.name, &v.name)
            };
            let d = doc_lines(&v.doc, Some(format!("Tag {}.", v.tag)));
            let ser = self.serde_with(&v.ty, self.boxed_payload(&v.ty));
            quote! { #d #vn(#ser #ty) }
        });
        let tags = firsts.iter().map(|v| {
            let vn = ident(&v.name);
            let t = v.tag;
            quote! { Self::#vn(_) => #t }
        });
        let names = firsts.iter().map(|v| {
            let vn = ident(&v.name);
            let s = &v.name;
            quote! { Self::#vn(_) => #s }
        });
        // Each variant's tag as a constant, for glue that chooses a variant
        // (a `Select` hook) and text forms that name one; a name two
        // variants would share is left out.
        let mut const_names = std::collections::HashMap::new();
        for v in &u.variants {
            *const_names
                .entry(codec_schema::names::upper_snake(&v.name))
                .or_insert(0) += 1;
        }
        let tag_consts = u.variants.iter().filter_map(|v| {
            let cn = codec_schema::names::upper_snake(&v.name);
            (const_names[&cn] == 1).then(|| {
                let id = quote::format_ident!("TAG_{}", cn);
                let t = v.tag;
                let d = format!("The tag of `{}`.", v.name);
                quote! { #[doc = #d] pub const #id: u64 = #t; }
            })
        });
        let by_name = firsts.iter().map(|v| {
            let s = &v.name;
            let t = v.tag;
            quote! { #s => ::std::option::Option::Some(#t) }
        });
        let ser = self.serde_derive();
        let row_cell = if cells {
            let uname = &u.name;
            let arms = u
                .variants
                .iter()
                .enumerate()
                .filter(|(_, v)| matches!(v.ty, Type::Ptr(_)))
                .map(|(i, v)| {
                    let vn = ident(&v.name);
                    let vname = &v.name;
                    let i = i as u32;
                    quote!(Self::#vn(id) => ::std::option::Option::Some((#i, #vname, *id)))
                });
            let makers = u
                .variants
                .iter()
                .filter(|v| matches!(v.ty, Type::Ptr(_)))
                .map(|v| {
                    let vn = ident(&v.name);
                    let vname = &v.name;
                    quote!(#vname => ::std::option::Option::Some(Self::#vn(id)))
                });
            quote! {
                impl ::codec_runtime::rows::RowCell for #name {
                    const UNION: &'static str = #uname;
                    #[allow(unreachable_patterns)]
                    fn string_ref(&self) -> ::std::option::Option<(u32, &'static str, u32)> {
                        match self {
                            #(#arms,)*
                            _ => ::std::option::Option::None,
                        }
                    }
                    #[allow(unused_variables)]
                    fn string_cell(variant: &str, id: u32) -> ::std::option::Option<Self> {
                        match variant {
                            #(#makers,)*
                            _ => ::std::option::Option::None,
                        }
                    }
                }
            }
        } else {
            TokenStream::new()
        };
        let leaf = self.leaf_impl(u);
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            #ser
            pub enum #name { #(#variants,)* }
            #row_cell
            #leaf
            impl #name {
                /// The tag value that selects this variant in the file.
                pub const fn tag(&self) -> u64 { match self { #(#tags,)* } }
                /// The variant's name in the schema.
                pub const fn variant_name(&self) -> &'static str { match self { #(#names,)* } }
                #(#tag_consts)*
                /// The tag of the variant named `name` in the schema.
                pub fn tag_of(name: &str) -> ::std::option::Option<u64> {
                    match name { #(#by_name,)* _ => ::std::option::Option::None }
                }
            }
        }
    }
}

impl Gen<'_> {
    /// `#[derive(serde::Serialize, serde::Deserialize)]` when the
    /// invocation asks for `serde`: a value goes out to the research tools'
    /// generic form and comes back (an edit in `codec explore`).
    fn serde_derive(&self) -> TokenStream {
        if self.serde {
            quote!(#[derive(::serde::Serialize, ::serde::Deserialize)])
        } else {
            TokenStream::new()
        }
    }

    /// serde implements `Serialize` for arrays of up to 32 elements; a
    /// longer one (a field, an offset's target, a boxed payload) goes
    /// through a helper that writes it as a tuple, like the shorter ones.
    fn serde_with(&self, t: &Type, boxed: bool) -> TokenStream {
        fn long_array(t: &Type) -> bool {
            match t {
                Type::Array { len, .. } | Type::Bytes(len) => *len > 32,
                Type::Ptr(p) => long_array(&p.to),
                _ => false,
            }
        }
        if !self.serde || !long_array(t) {
            return TokenStream::new();
        }
        if boxed {
            quote!(#[serde(
                serialize_with = "__codec_serialize_boxed_array",
                deserialize_with = "__codec_deserialize_boxed_array"
            )])
        } else {
            quote!(#[serde(
                serialize_with = "__codec_serialize_array",
                deserialize_with = "__codec_deserialize_array"
            )])
        }
    }

    fn serde_helpers(&self) -> TokenStream {
        if !self.serde {
            return TokenStream::new();
        }
        quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            fn __codec_serialize_array<T: ::serde::Serialize, const N: usize, S: ::serde::Serializer>(
                v: &[T; N],
                s: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeTuple;
                let mut t = s.serialize_tuple(N)?;
                for e in v {
                    t.serialize_element(e)?;
                }
                t.end()
            }
            #[doc(hidden)]
            #[allow(dead_code, clippy::borrowed_box)]
            fn __codec_serialize_boxed_array<T: ::serde::Serialize, const N: usize, S: ::serde::Serializer>(
                v: &::std::boxed::Box<[T; N]>,
                s: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                __codec_serialize_array(&**v, s)
            }
            #[doc(hidden)]
            #[allow(dead_code)]
            fn __codec_deserialize_array<'de, T: ::serde::Deserialize<'de>, const N: usize, D: ::serde::Deserializer<'de>>(
                d: D,
            ) -> ::std::result::Result<[T; N], D::Error> {
                ::codec_runtime::serde_impls::array(d)
            }
            #[doc(hidden)]
            #[allow(dead_code)]
            fn __codec_deserialize_boxed_array<'de, T: ::serde::Deserialize<'de>, const N: usize, D: ::serde::Deserializer<'de>>(
                d: D,
            ) -> ::std::result::Result<::std::boxed::Box<[T; N]>, D::Error> {
                ::codec_runtime::serde_impls::array(d).map(::std::boxed::Box::new)
            }
        }
    }
}

fn needs_box(c: &Checked, to: &Type, owner: &str) -> bool {
    matches!(to, Type::Named(_)) && contains_directly(c, to, owner, 0)
}

/// `#[doc]` attributes from a schema doc line and an optional extra line.
pub(crate) fn doc_lines(doc: &str, extra: Option<String>) -> TokenStream {
    let mut out = TokenStream::new();
    for line in doc.lines() {
        let l = format!(" {line}");
        out.extend(quote!(#[doc = #l]));
    }
    if let Some(e) = extra {
        if !doc.is_empty() {
            out.extend(quote!(#[doc = ""]));
        }
        let l = format!(" {e}");
        out.extend(quote!(#[doc = #l]));
    }
    out
}

/// The Rust type an `external` field names (a path, generics allowed).
pub(crate) fn external_ty(path: &str) -> TokenStream {
    path.parse().unwrap_or_else(|_| {
        let msg = format!("`{path}` is not a Rust type path");
        quote!(::core::compile_error!(#msg))
    })
}
