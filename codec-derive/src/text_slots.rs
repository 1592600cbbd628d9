//! Two constructs MSBT brought, each in both directions: text with control
//! records (`Text`, carried out by `codec_runtime::tagged_text`) and tables
//! of hash slots (`HashSlots`, by `codec_runtime::slots`). The schema
//! interpreter does the same from the same runtime functions; a corpus test
//! holds the two to the same values and bytes.

use crate::names::{ident, local, read_uint, width_tokens};
use crate::Gen;
use codec_schema::{SlotHash, Type, TypeDef};
use proc_macro2::TokenStream;
use quote::quote;

fn rt() -> TokenStream {
    quote!(::codec_runtime)
}

/// What a `HashSlots` type says, for its reading and its placing.
struct Slots<'t> {
    of: &'t str,
    key: &'t str,
    slots: &'t str,
    /// The multiplier of `MulAdd`.
    m: u64,
    width: &'t Type,
    base: &'t codec_schema::Base,
}

impl<'t> Slots<'t> {
    fn of(t: &'t Type) -> Option<Slots<'t>> {
        let Type::HashSlots {
            of,
            key,
            slots,
            hash: SlotHash::MulAdd(m),
            width,
            base,
            ..
        } = t
        else {
            return None;
        };
        Some(Slots {
            of,
            key,
            slots,
            m: *m,
            width,
            base,
        })
    }
}

impl Gen<'_> {
    /// What a text's code units open, and how its records are read:
    /// `(opens, record)`, closures for `tagged_text::read`.
    pub(crate) fn text_tags(&self, tags: Option<&str>) -> (TokenStream, TokenStream) {
        let rt = rt();
        let Some(TypeDef::Union(u)) = tags.and_then(|t| self.c.get(t)) else {
            return (
                quote!(|_: u64| false),
                quote!(|_: &mut #rt::Reader<'_>, q: u64| -> #rt::DecodeResult<((), u64)> {
                    Err(#rt::DecodeError::new(q, #rt::ErrorKind::Invalid("a record in text without tags".into())))
                }),
            );
        };
        let tags = u.variants.iter().map(|v| v.tag);
        let un = self.path_as(&u.name, "__Decode");
        (
            quote!(|u: u64| matches!(u, #(#tags)|*)),
            quote!(|r: &mut #rt::Reader<'_>, q: u64| #un::decode_at(r, q)),
        )
    }

    /// Statements writing text `v` (its parts, then the zero unit).
    pub(crate) fn text_write(
        &self,
        tags: Option<&str>,
        unit: u64,
        v: TokenStream,
        what: &str,
    ) -> TokenStream {
        let rt = rt();
        let union = tags.and_then(|t| match self.c.get(t) {
            Some(TypeDef::Union(u)) => Some(u),
            _ => None,
        });
        let Some(u) = union else {
            return quote! {
                #rt::tagged_text::write(w, &(#v)[..], #unit, |_: u64| false, "", #what,
                    |_: &mut #rt::Writer, _: &()| Ok(()))?;
            };
        };
        let tags = u.variants.iter().map(|x| x.tag);
        let name = &u.name;
        let record = self.inline_write(&Type::Named(u.name.clone()), quote!(x), what);
        quote! {
            #rt::tagged_text::write(w, &(#v)[..], #unit, |u: u64| matches!(u, #(#tags)|*), #name, #what,
                |w: &mut #rt::Writer, x| { #record Ok(()) })?;
        }
    }

    /// The reading of a `HashSlots` field of a record: the (count,
    /// offset) pairs, each slot's records where its offset leads, one list
    /// in slot order; a record whose key hashes to another slot is an
    /// error (the writer would move it).
    pub(crate) fn hash_slots_read(&self, fname: &str, t: &Type) -> TokenStream {
        let rt = rt();
        let Some(Slots {
            of,
            key,
            slots,
            m,
            width,
            base,
        }) = Slots::of(t)
        else {
            return quote!(compile_error!("not a table of hash slots"););
        };
        let v = local("f", fname);
        let at = local("at", fname);
        let n = local("f", slots);
        let w = codec_schema::int_width(width).unwrap_or(4);
        let read_count = read_uint(width, quote!(at));
        let read_raw = read_uint(width, quote!(at + #w));
        let base = self.base_expr(base, quote!(pos));
        let ety = ident(of);
        let dec = self.path_as(of, "__Decode");
        let key = ident(key);
        quote! {
            let #at = p;
            let #v: ::std::vec::Vec<#ety> = match (|| -> #rt::DecodeResult<::std::vec::Vec<#ety>> {
                let n: u64 = #n as u64;
                r.check_count(#at, #at, n, 2 * #w)?;
                let mut out: ::std::vec::Vec<#ety> = ::std::vec::Vec::new();
                for i in 0..n {
                    let at = #at + i * 2 * #w;
                    let count = #read_count?;
                    let raw = #read_raw?;
                    let t = r.target(at + #w, #base, raw, 1)?;
                    r.check_count(at, t, count, 1)?;
                    let mut q = t;
                    for _ in 0..count {
                        let k = out.len();
                        let (e, next) = #dec::decode_at(r, q).map_err(|e| e.at_index(k))?;
                        let h = #rt::slots::mul_add_hash(e.#key.as_bytes(), #m);
                        if h % n != i {
                            return Err(#rt::slots::misplaced(at, &e.#key, i, h, n));
                        }
                        #rt::reader::push_in_room(&mut out, e);
                        q = next;
                    }
                }
                Ok(out)
            })() {
                Ok(v) => v,
                Err(e) => return Err(e.in_field(#fname)),
            };
            p += #n as u64 * 2 * #w;
        }
    }

    /// The writing of a `HashSlots` field in its record: zeros for the
    /// pairs (patched when the section places the records), after checking
    /// that the slot count is sane for the records.
    pub(crate) fn hash_slots_write(
        &self,
        slots: &str,
        width: &Type,
        fid: &syn::Ident,
        what: &str,
    ) -> TokenStream {
        let rt = rt();
        let n = ident(slots);
        let w = codec_schema::int_width(width).unwrap_or(4) as usize;
        let swhat = format!("{what}.{slots}");
        quote! {
            if let Err(m) = #rt::slots::check_slot_count(self.#n as u64, self.#fid.len()) {
                return Err(#rt::EncodeError::new(#swhat, m));
            }
            w.put_zeros(self.#n as usize * 2 * #w);
        }
    }

    /// The placing of a `HashSlots` field's records in its section: grouped
    /// by slot (each slot's records in document order), each slot's pair
    /// patched with its count and where its records start. `off`: where
    /// the table lies in its record (at `pos`).
    pub(crate) fn hash_slots_place(
        &self,
        t: &Type,
        fid: &syn::Ident,
        off: u64,
        what: &str,
    ) -> TokenStream {
        let rt = rt();
        let Some(Slots {
            of,
            key,
            slots,
            m,
            width,
            base,
        }) = Slots::of(t)
        else {
            return quote!(compile_error!("not a table of hash slots"););
        };
        let n = ident(slots);
        let key = ident(key);
        let step = codec_schema::int_width(width).unwrap_or(4);
        let wt = width_tokens(width);
        let base = self.wbase_expr(base, quote!(pos));
        let order = self.endian_const();
        let enc = self.path_as(of, "__Encode");
        let empty = format!("{what}: records and no slot to put them in (`{slots}` is 0)");
        quote! {{
            let n = self.#n as u64;
            if n == 0 && !self.#fid.is_empty() {
                return Err(#rt::EncodeError::new(#what, #empty));
            }
            let hashes: ::std::vec::Vec<u64> = self.#fid.iter()
                .map(|e| #rt::slots::mul_add_hash(e.#key.as_bytes(), #m))
                .collect();
            let base: u64 = #base;
            for (i, group) in #rt::slots::group_by_slot(&hashes, n).iter().enumerate() {
                let at_pair = pos + #off + i as u64 * 2 * #step;
                let target = w.pos();
                for &j in group {
                    #enc::write_record(&self.#fid[j], w)?;
                }
                w.patch_uint(at_pair, #wt, group.len() as u64, #what)?;
                w.patch_offset(at_pair + #step, #wt, base, 1, target, #order, #what)?;
            }
        }}
    }
}
