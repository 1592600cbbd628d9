//! Identifiers and small type helpers shared by the back ends.

use codec_schema::{Checked, Type, TypeDef};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A field or type name as a Rust identifier (raw when it is a keyword).
/// The error for a tag naming no variant of `u`, at `pos` (the local
/// `tag` holds it): `codec_runtime::error::unknown_tag`, told the union's
/// reserved tags.
pub fn unknown_tag(u: &codec_schema::UnionDef, pos: TokenStream) -> TokenStream {
    let uname = &u.name;
    let reserved = u.reserved.iter().map(|r| {
        let (t, n, w) = (r.tag, &r.name, &r.doc);
        quote::quote!((#t, #n, #w))
    });
    quote::quote!(::codec_runtime::error::unknown_tag(#pos, #uname, tag, &[#(#reserved),*]))
}

pub fn ident(name: &str) -> Ident {
    if KEYWORDS.contains(&name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        Ident::new(name, Span::call_site())
    }
}

/// A local variable for a field's value.
pub fn local(prefix: &str, name: &str) -> Ident {
    format_ident!("{}_{}", prefix, name)
}

/// The name of the struct generated for a bitfield: made by codec-schema,
/// whose checker and interpreter use the same name.
pub fn bits_struct(owner: &str, field: &str) -> Ident {
    format_ident!("{}", codec_schema::names::bits_struct_name(owner, field))
}

pub fn width_tokens(t: &Type) -> TokenStream {
    match t {
        Type::U8 => quote!(::codec_runtime::Width::U8),
        Type::U16 => quote!(::codec_runtime::Width::U16),
        Type::U24 => quote!(::codec_runtime::Width::U24),
        Type::U64 => quote!(::codec_runtime::Width::U64),
        _ => quote!(::codec_runtime::Width::U32),
    }
}

/// A runtime width as the tokens naming it.
pub fn runtime_width_tokens(w: codec_schema::Width) -> TokenStream {
    use codec_schema::Width;
    match w {
        Width::U8 => quote!(::codec_runtime::Width::U8),
        Width::U16 => quote!(::codec_runtime::Width::U16),
        Width::U24 => quote!(::codec_runtime::Width::U24),
        Width::U32 => quote!(::codec_runtime::Width::U32),
        Width::U64 => quote!(::codec_runtime::Width::U64),
    }
}

/// A read of an unsigned integer of type `t` at `pos`, widened to u64.
pub fn read_uint(t: &Type, pos: TokenStream) -> TokenStream {
    match t {
        Type::U8 => quote!(r.u8(#pos).map(u64::from)),
        Type::U16 => quote!(r.u16(#pos).map(u64::from)),
        Type::U24 => quote!(r.u24(#pos).map(u64::from)),
        Type::U64 => quote!(r.u64(#pos)),
        _ => quote!(r.u32(#pos).map(u64::from)),
    }
}

/// The smallest unsigned Rust type holding `bits` bits (bool for one bit).
pub fn bits_ty(bits: u32) -> TokenStream {
    match bits {
        1 => quote!(bool),
        2..=8 => quote!(u8),
        9..=16 => quote!(u16),
        17..=32 => quote!(u32),
        _ => quote!(u64),
    }
}

/// The initialisers of a bits struct's ranges from `word` (low bits
/// first): a flag for one bit, the masked integer otherwise; a range held
/// as a string gets `str_range(pool, shift, mask)` instead.
pub fn bit_range_inits(
    fields: &[codec_schema::BitField],
    mut str_range: impl FnMut(&str, u32, u64) -> TokenStream,
) -> Vec<TokenStream> {
    bit_ranges(fields)
        .map(|(b, sh, mask)| {
            let n = ident(&b.name);
            if let Some(pool) = &b.str {
                let v = str_range(pool, sh, mask);
                quote!(#n: #v)
            } else if b.bits == 1 {
                quote!(#n: (word >> #sh) & 1 == 1)
            } else {
                let ty = bits_ty(b.bits);
                quote!(#n: ((word >> #sh) & #mask) as #ty)
            }
        })
        .collect()
}

pub use codec_schema::bit_ranges;

pub fn is_prim(t: &Type) -> bool {
    codec_schema::is_number(t)
}

/// Does a value of type `t` contain a value of struct `target` without a
/// heap indirection in between (so that `target` holding `t` needs a Box)?
pub fn contains_directly(c: &Checked, t: &Type, target: &str, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    match t {
        Type::Named(n) => {
            n == target
                || match c.get(n) {
                    Some(TypeDef::Struct(s)) => s
                        .fields
                        .iter()
                        .any(|f| contains_directly(c, &f.ty, target, depth + 1)),
                    _ => false,
                }
        }
        Type::Array { of, .. } => contains_directly(c, of, target, depth + 1),
        Type::Ptr(p) => contains_directly(c, &p.to, target, depth + 1),
        _ => false,
    }
}
