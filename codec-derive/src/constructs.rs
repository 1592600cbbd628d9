//! Code for the constructs that units, tables and variants brought:
//! references (`Ref`), lists read up to the next target (`ToNext`), and the
//! pieces of hash indexes, row regions, `Follows` and units that the
//! decoder and encoder call into.

use crate::names::{ident, width_tokens};
use crate::Gen;
use codec_schema::{Base, Type};
use proc_macro2::TokenStream;
use quote::quote;

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

/// The base an offset inside a record counts from, as an expression; `rec`
/// is the record's start.
pub(crate) fn base_expr(b: &Base, rec: TokenStream) -> TokenStream {
    match b {
        Base::File | Base::Unit => quote!(0u64),
        Base::Absolute(n) => quote!(#n),
        Base::Record => rec,
    }
}

impl Gen<'_> {
    /// An expression of type `DecodeResult<(T, u64)>` for the new inline
    /// constructs (see `inline_read`).
    pub(crate) fn construct_read(
        &self,
        t: &Type,
        start: TokenStream,
        _owner: &str,
        _field: &str,
    ) -> TokenStream {
        let rt = RT();
        match t {
            Type::Ref {
                width,
                base,
                scale,
                to,
            } => {
                let w = codec_schema::int_width(width).unwrap_or(4);
                let read = crate::names::read_uint(width, quote!(s));
                let tn = self.type_path(to);
                let base = base_expr(base, quote!(pos));
                quote! {{
                    let s: u64 = #start;
                    match #read {
                        Ok(raw) => r.resolve_ref(s, #tn::TYPE_ID, #to, #base, raw, #scale).map(|i| (i, s + #w)),
                        Err(e) => Err(e),
                    }
                }}
            }
            _ => quote! {
                Err(#rt::DecodeError::new(#start, #rt::ErrorKind::Invalid("unsupported inline type".into())))
            },
        }
    }

    /// Statements writing a new inline construct (see `inline_write`).
    pub(crate) fn construct_write(&self, t: &Type, v: TokenStream, what: &str) -> TokenStream {
        match t {
            Type::Ref {
                width,
                base,
                scale,
                to,
            } => {
                let n = codec_schema::int_width(width).unwrap_or(4) as usize;
                let wt = width_tokens(width);
                let tn = self.type_path(to);
                let base = base_expr(base, quote!(start));
                quote! {{
                    let at = w.pos();
                    w.put_bytes(&[0u8; #n]);
                    w.defer_ref(at, #wt, #base, #scale, #tn::TYPE_ID, u64::from(*#v), #what);
                }}
            }
            _ => quote!(),
        }
    }

    /// An expression of type `DecodeResult<(Vec<T>, u64)>`: elements of `of`
    /// read one after the other from `start` up to the next bound.
    pub(crate) fn seq_read(
        &self,
        of: &Type,
        start: TokenStream,
        at: &proc_macro2::Ident,
        owner: &str,
        field: &str,
    ) -> TokenStream {
        let rt = RT();
        let ety = self.rust_ty(of, owner, field);
        let elem = self.inline_read(of, quote!(q), owner, field);
        quote! {
            (|| -> #rt::DecodeResult<(::std::vec::Vec<#ety>, u64)> {
                let first: u64 = #start;
                let end = r.next_bound(first);
                r.enter(#at, first, end.saturating_sub(first).max(1))?;
                let mut out: ::std::vec::Vec<#ety> = ::std::vec::Vec::new();
                let mut q = first;
                while q < end {
                    let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(out.len())) };
                    if next <= q {
                        return Err(#rt::DecodeError::new(q, #rt::ErrorKind::Invalid("an element takes no bytes".into())).at_index(out.len()));
                    }
                    out.push(e);
                    q = next;
                }
                if q > end {
                    return Err(#rt::DecodeError::new(q, #rt::ErrorKind::Invalid(format!(
                        "the elements run past 0x{end:x}, where the next target starts"
                    ))));
                }
                r.leave();
                Ok((out, q))
            })()
        }
    }

    /// The path of a schema type in generated code.
    pub(crate) fn type_path(&self, name: &str) -> TokenStream {
        let id = ident(name);
        quote!(#id)
    }
}
