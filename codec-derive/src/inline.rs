//! Lists held inline (`inline: true` on a list of a union's values): the
//! union's `Leaf` implementation and the decoder's short path. The list
//! type and its behaviour are `codec_runtime::inline_list`; which variants
//! are leaves is `Checked::leaf_variants`. Here only what the schema fixes:
//! each leaf's Rust payload and how its word is checked.

use crate::names::ident;
use crate::Gen;
use codec_schema::{Type, TypeDef, UnionDef};
use proc_macro2::TokenStream;
use quote::quote;

impl Gen<'_> {
    /// Is `union` the element type of an `inline` list of the schema?
    pub(crate) fn is_inline_union(&self, union: &str) -> bool {
        self.c.base().types.iter().any(|t| match t {
            TypeDef::Struct(s) => s.fields.iter().any(|f| {
                f.inline
                    && matches!(&f.ty, Type::List { of, .. }
                        if matches!(&**of, Type::Switch { union: u, .. } if u == union))
            }),
            TypeDef::Union(_) => false,
        })
    }

    /// The Rust type of an `inline` list of `elem`.
    pub(crate) fn inline_list_ty(elem: TokenStream) -> TokenStream {
        quote!(::codec_runtime::InlineList<#elem>)
    }

    /// `impl Leaf` for a union that inline lists hold, and `__leaf`, which
    /// tells a leaf's kind and word from the file (for
    /// `codec_runtime::inline_list::read_leaves`).
    pub(crate) fn leaf_impl(&self, u: &UnionDef) -> TokenStream {
        if !self.is_inline_union(&u.name) {
            return TokenStream::new();
        }
        let rt = quote!(::codec_runtime);
        let name = ident(&u.name);
        let leaves = self.c.leaf_variants(&u.name);
        let (mut pack, mut unpack, mut read, mut tags, mut magics) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, (k, v)) in leaves.iter().enumerate() {
            let vn = ident(&v.name);
            let tag = v.tag;
            // Per leaf: the payload's pattern and word, the value from a
            // word, what a word read from the file must satisfy, and the
            // word kept for it (0 for a magic, as `pack` gives: the writer
            // puts the magic back).
            let (bind, to_word, from_word, check, word) = match &v.ty {
                Type::I32 => (
                    quote!(x),
                    quote!(*x as u32),
                    quote!(word as i32),
                    quote!(true),
                    quote!(w),
                ),
                Type::U32 => (quote!(x), quote!(*x), quote!(word), quote!(true), quote!(w)),
                Type::F32 => (
                    quote!(x),
                    quote!(x.to_bits()),
                    quote!(f32::from_bits(word)),
                    quote!(true),
                    quote!(w),
                ),
                Type::Bool32 => (
                    quote!(x),
                    quote!(u32::from(*x)),
                    quote!(word != 0),
                    quote!(w <= 1),
                    quote!(w),
                ),
                Type::Magic(m) => {
                    let bytes = proc_macro2::Literal::byte_string(&codec_schema::magic_bytes(m));
                    magics.push(quote!(#k => *#bytes));
                    (
                        quote!(_),
                        quote!(0u32),
                        quote!(()),
                        quote!(raw == *#bytes),
                        quote!(0u32),
                    )
                }
                _ => unreachable!("Checked::leaf_variants gives word leaves only"),
            };
            // The last kind takes any other value, so that no arm panics.
            let arm = if i + 1 == leaves.len() {
                quote!(_)
            } else {
                quote!(#k)
            };
            pack.push(quote!(Self::#vn(#bind) => ::std::option::Option::Some((#k, #to_word))));
            unpack.push(quote!(#arm => Self::#vn(#from_word)));
            tags.push(quote!(#arm => #tag));
            read.push(quote! {
                #tag => if #check { ::std::option::Option::Some((#k, #word)) } else { ::std::option::Option::None },
            });
        }
        quote! {
            impl #name {
                /// The tag of the leaf variant packed as `kind`.
                #[doc(hidden)]
                #[inline(always)]
                pub fn __leaf_tag(kind: u8) -> u64 {
                    match kind { #(#tags,)* }
                }
                /// The stored bytes of the leaf packed as `(kind, word)`,
                /// as `write_word` writes that leaf.
                #[doc(hidden)]
                #[inline(always)]
                pub fn __leaf_bytes(kind: u8, word: u32, order: #rt::Endian) -> [u8; 4] {
                    match kind {
                        #(#magics,)*
                        _ => #rt::base::Primitive::bytes_in(word, order),
                    }
                }
            }
            impl #rt::Leaf for #name {
                #[inline]
                fn pack(&self) -> ::std::option::Option<(u8, u32)> {
                    match self {
                        #(#pack,)*
                        #[allow(unreachable_patterns)]
                        _ => ::std::option::Option::None,
                    }
                }
                #[inline]
                fn unpack(kind: u8, word: u32) -> Self {
                    match kind {
                        #(#unpack,)*
                    }
                }
            }
            impl #name {
                /// The kind and kept word of the leaf of tag `tag` whose
                /// word is `raw` as stored and `w` in the file's byte order,
                /// if the tag is a leaf's and the word one it takes.
                #[doc(hidden)]
                #[inline(always)]
                #[allow(unused_variables)]
                pub fn __leaf(tag: u64, raw: [u8; 4], w: u32) -> ::std::option::Option<(u8, u32)> {
                    match tag {
                        #(#read)*
                        _ => ::std::option::Option::None,
                    }
                }
            }
        }
    }

    /// The decode of an `inline` list of `union`'s words whose tags are the
    /// slice `tags` and whose words start at `p`: the short path when it
    /// holds only leaves, else `general`, the element-by-element read (an
    /// expression of type `Vec`), converted.
    pub(crate) fn inline_list_read(
        union: &str,
        tags: &proc_macro2::Ident,
        general: TokenStream,
    ) -> TokenStream {
        let rt = quote!(::codec_runtime);
        let un = ident(union);
        quote! {
            match #rt::inline_list::read_leaves(r, #tags, p, #un::__leaf) {
                ::std::option::Option::Some(l) => l,
                ::std::option::Option::None => {
                    let v: ::std::vec::Vec<_> = #general;
                    #rt::InlineList::from(v)
                }
            }
        }
    }
}
