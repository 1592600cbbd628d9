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

impl Gen<'_> {
    /// The base an offset inside a record counts from, as a decoding
    /// expression; `rec` is the record's start. A section's start is the
    /// one the reader noted when the root was read (u64::MAX, outside every
    /// file, while unknown).
    pub(crate) fn base_expr(&self, b: &Base, rec: TokenStream) -> TokenStream {
        self.base_tokens(b, Some(rec), |id| quote!(r.section_base(#id)))
    }

    /// [`Gen::base_expr`] on the encode side: a section's start is in the
    /// writer.
    pub(crate) fn wbase_expr(&self, b: &Base, rec: TokenStream) -> TokenStream {
        self.base_tokens(b, Some(rec), |id| quote!(w.section(#id).start))
    }

    /// The expression of the base an offset counts from
    /// (`Checked::offset_base`), given the expressions this code has for
    /// the record's start and a section's start. Where it has none (a
    /// view of a target the schema checker only allows counted from the
    /// file or an address), the base is 0.
    pub(crate) fn base_tokens(
        &self,
        b: &Base,
        record: Option<TokenStream>,
        section: impl FnOnce(usize) -> TokenStream,
    ) -> TokenStream {
        use codec_schema::OffsetBase;
        match self.c.offset_base(b) {
            OffsetBase::Zero => quote!(0u64),
            OffsetBase::Absolute(n) => quote!(#n),
            OffsetBase::Record => record.unwrap_or_else(|| quote!(0u64)),
            OffsetBase::Section(id) => section(id),
        }
    }

    /// For a list field written sorted (`sort_by`): an expression giving
    /// each element's key (`Vec<u64>`, in document order), from the glue
    /// hash of the element's key string seeded by a field of `s`.
    pub(crate) fn sort_keys(
        &self,
        s: &codec_schema::StructDef,
        f: &codec_schema::Field,
    ) -> Option<TokenStream> {
        let codec_schema::SortKey::Hashed(k) = self.c.sort_key(f)? else {
            return None;
        };
        let hooks = self.hooks?;
        let _ = s;
        let fid = ident(&f.name);
        let hn = ident(k.hook);
        let kid = ident(k.key);
        let sid = ident(k.seed);
        Some(quote! {
            self.#fid.iter().map(|e| #hooks::#hn(e.#kid.as_bytes(), self.#sid as u64)).collect()
        })
    }
}

impl Gen<'_> {
    /// An expression of type `DecodeResult<(u64, u64)>`: a reference
    /// (`Ref`) read inline at `start`, resolved to its record's ordinal.
    pub(crate) fn ref_read(
        &self,
        width: &Type,
        base: &Base,
        scale: u64,
        to: &str,
        start: TokenStream,
    ) -> TokenStream {
        let w = codec_schema::int_width(width).unwrap_or(4);
        let read = crate::names::read_uint(width, quote!(s));
        let tn = self.type_path(to);
        let base = self.base_expr(base, quote!(pos));
        quote! {{
            let s: u64 = #start;
            match #read {
                Ok(raw) => r.resolve_ref(s, #tn::TYPE_ID, #to, #base, raw, #scale).map(|i| (i, s + #w)),
                Err(e) => Err(e),
            }
        }}
    }

    /// Statements writing a reference (`Ref`) inline: zeros, patched with
    /// the record's offset once the unit is laid out.
    pub(crate) fn ref_write(
        &self,
        width: &Type,
        base: &Base,
        scale: u64,
        to: &str,
        v: TokenStream,
        what: &str,
    ) -> TokenStream {
        let n = codec_schema::int_width(width).unwrap_or(4) as usize;
        let wt = width_tokens(width);
        let tn = self.type_path(to);
        let base = self.wbase_expr(base, quote!(start));
        quote! {{
            let at = w.pos();
            w.put_bytes(&[0u8; #n]);
            w.defer_ref(at, #wt, #base, #scale, #tn::TYPE_ID, u64::from(*#v), #what);
        }}
    }

    /// What the generated code holds where a construct that is only ever
    /// a record's field (the checker keeps it out of inline positions)
    /// reached an inline position: a build error naming it, never code that
    /// compiles and fails at run time.
    pub(crate) fn not_inline(&self, t: &Type, at: &str) -> TokenStream {
        let msg = format!(
            "codec-derive: `{at}`: {} is read and written as a record's field, \
             not inline (a case the checker should have refused)",
            codec_schema::docs::type_label(t)
        );
        quote!(::core::compile_error!(#msg))
    }

    /// An expression of type `DecodeResult<(Vec<T>, u64)>`: elements of `of`
    /// read one after the other from `start` up to the next bound. `own`
    /// (an `Option<u64>` expression) is the list's rank among targets that
    /// share its start (see `Reader::list_end`); the bound is looked up
    /// again after each element, whose own offsets may end the list sooner.
    pub(crate) fn seq_read(
        &self,
        of: &Type,
        start: TokenStream,
        at: &proc_macro2::Ident,
        owner: &str,
        field: &str,
        own: TokenStream,
    ) -> TokenStream {
        let rt = RT();
        let ety = self.rust_ty(of, owner, field);
        let lty = self.list_ty(of, owner, field);
        let elem = self.inline_read(of, quote!(q), owner, field);
        quote! {
            (|| -> #rt::DecodeResult<(#lty, u64)> {
                let own: ::std::option::Option<u64> = #own;
                let mut list = #rt::to_next::ToNext::begin(r, #start, #at, own)?;
                let mut out: ::std::vec::Vec<#ety> = ::std::vec::Vec::new();
                while let Some(q) = list.next(r) {
                    let (e, next) = match #elem { Ok(v) => v, Err(e) => return Err(e.at_index(out.len())) };
                    list.advance(r, next)?;
                    out.push(e);
                }
                let q = list.finish(r)?;
                Ok((out.into(), q))
            })()
        }
    }

    /// The path of a schema type in generated code.
    pub(crate) fn type_path(&self, name: &str) -> TokenStream {
        let id = ident(name);
        quote!(#id)
    }
}

/// What the checker accepts and the schema interpreter reads and writes,
/// but this generator does not emit yet: refused by name at compile time,
/// never generated wrong. Today: a list counted by a field (or a stored
/// count) whose elements differ in size, anywhere but as a record's own
/// field (a record's field is read one element after the other, and the
/// record goes on where they end).
pub(crate) fn ungenerated(c: &codec_schema::Checked) -> Vec<codec_schema::Diagnostic> {
    use codec_schema::locate::Step;
    use codec_schema::{Count, TypeDef};
    fn variable_counted<'t>(
        c: &codec_schema::Checked,
        t: &'t Type,
        depth: usize,
    ) -> Option<&'t Type> {
        if depth > 8 {
            return None;
        }
        match t {
            Type::List { of, count }
                if depth > 0 && !matches!(**count, Count::ToNext) && c.fixed_size(of).is_none() =>
            {
                Some(of)
            }
            Type::List { of, .. } | Type::Array { of, .. } => variable_counted(c, of, depth + 1),
            Type::Ptr(p) => variable_counted(c, &p.to, depth + 1),
            _ => None,
        }
    }
    // Unions whose variants of one name carry another tag in another
    // schema variant (MSBT's block magics in either byte order): their
    // Rust enum has one variant per name, and its `tag()` is the first
    // one's, so a tag derived from the value would be wrong in the others.
    let mut two_tags = std::collections::HashSet::new();
    for t in &c.base().types {
        if let TypeDef::Union(u) = t {
            if u.variants.iter().any(|v| {
                u.variants
                    .iter()
                    .any(|w| w.name == v.name && w.tag != v.tag)
            }) {
                two_tags.insert(u.name.as_str());
            }
        }
    }
    let mut out = Vec::new();
    for (ti, t) in c.schema.types.iter().enumerate() {
        let TypeDef::Struct(st) = t else { continue };
        for (fi, f) in st.fields.iter().enumerate() {
            if let Some(codec_schema::Derive::Tag(of)) = &f.derive {
                let union = st
                    .fields
                    .iter()
                    .find(|g| &g.name == of)
                    .and_then(|g| match &g.ty {
                        Type::Switch { union, .. } => Some(union.as_str()),
                        Type::Ptr(p) => match &p.to {
                            Type::Switch { union, .. } => Some(union.as_str()),
                            _ => None,
                        },
                        _ => None,
                    });
                if let Some(u) = union.filter(|u| two_tags.contains(u)) {
                    out.push(codec_schema::Diagnostic {
                        item: format!("types/{}/fields/{fi}", st.name),
                        pos: c.position(&[Step::from("types"), Step::Index(ti), Step::from("fields"), Step::Index(fi)]),
                        message: format!(
                            "`{}.{}`: a tag derived from `{u}`, whose variants of one name have other tags in other schema variants, is not generated yet",
                            st.name, f.name
                        ),
                        hint: Some("the schema interpreter reads and writes it: `codec check --schema`".into()),
                    });
                }
            }
            if let Some(of) = variable_counted(c, &f.ty, 0) {
                out.push(codec_schema::Diagnostic {
                    item: format!("types/{}/fields/{fi}", st.name),
                    pos: c.position(&[Step::from("types"), Step::Index(ti), Step::from("fields"), Step::Index(fi)]),
                    message: format!(
                        "`{}.{}`: a counted list of elements that differ in size ({}) inside another list or behind an offset is not generated yet",
                        st.name,
                        f.name,
                        codec_schema::docs::type_label(of)
                    ),
                    hint: Some("the schema interpreter reads and writes it: `codec check --schema`".into()),
                });
            }
        }
    }
    out
}

/// A schema whose constructs call glue (a unit's transform, a checksum, a
/// hash index's hook) needs the glue module in the invocation.
pub(crate) fn hook_mistakes(
    c: &codec_schema::Checked,
    has_hooks: bool,
) -> Vec<codec_schema::Diagnostic> {
    use codec_schema::locate::Step;
    use codec_schema::{Derive, TypeDef};
    let mut out = Vec::new();
    if has_hooks {
        return out;
    }
    let mut push = |at: Vec<Step>, item: String, what: String| {
        out.push(codec_schema::Diagnostic {
            item,
            pos: c.position(&at),
            message: format!("{what}: pass `hooks = path::to::glue` to schema!"),
            hint: None,
        });
    };
    for (ti, t) in c.schema.types.iter().enumerate() {
        let TypeDef::Struct(st) = t else { continue };
        let tat = vec![Step::from("types"), Step::Index(ti)];
        if let Some(tr) = st.layout.as_ref().and_then(|l| l.transform.as_ref()) {
            let mut at = tat.clone();
            at.extend([Step::from("layout"), Step::from("transform")]);
            push(
                at,
                format!("types/{}", st.name),
                format!(
                    "unit `{}` is transformed by glue `{}` and `{}`",
                    st.name, tr.decode, tr.encode
                ),
            );
        }
        for (fi, f) in st.fields.iter().enumerate() {
            let mut at = tat.clone();
            at.extend([Step::from("fields"), Step::Index(fi)]);
            let item = format!("types/{}/fields/{fi}", st.name);
            if let Some(Derive::Checksum { hook, .. }) = &f.derive {
                push(
                    at.clone(),
                    item.clone(),
                    format!(
                        "`{}.{}` is a checksum computed by glue `{hook}`",
                        st.name, f.name
                    ),
                );
            }
            if let Type::Ptr(p) = &f.ty {
                if let Type::Hash { hook, .. } = &p.to {
                    push(
                        at,
                        item,
                        format!(
                            "the hash index `{}.{}` hashes with glue `{hook}`",
                            st.name, f.name
                        ),
                    );
                } else if let Type::Select { hook, .. } = &p.to {
                    push(
                        at,
                        item,
                        format!(
                            "the variant of `{}.{}` is chosen by glue `{hook}`",
                            st.name, f.name
                        ),
                    );
                }
            }
        }
    }
    out
}

impl Gen<'_> {
    /// The variant index as a token (0 for a schema without variants).
    pub(crate) fn v(&self) -> TokenStream {
        let k = self.variant.unwrap_or(0);
        quote!(#k)
    }

    /// `pub` on generated methods, except in trait impls.
    pub(crate) fn vis(&self) -> TokenStream {
        if self.variant.is_some() {
            quote!()
        } else {
            quote!(pub)
        }
    }

    /// How generated code names a type's method set `kind` (`__Decode`,
    /// `__Encode`, `__Payload`, `__Unit`): the type itself, or the type as
    /// the variant's trait.
    pub(crate) fn path_as(&self, name: &str, kind: &str) -> TokenStream {
        let id = ident(name);
        match self.variant {
            None => quote!(#id),
            Some(k) => {
                let tr = proc_macro2::Ident::new(kind, proc_macro2::Span::call_site());
                quote!(<#id as #tr<#k>>)
            }
        }
    }

    /// `Self`, as the variant's trait `kind` where there are variants.
    pub(crate) fn self_as(&self, kind: &str) -> TokenStream {
        match self.variant {
            None => quote!(Self),
            Some(k) => {
                let tr = proc_macro2::Ident::new(kind, proc_macro2::Span::call_site());
                quote!(<Self as #tr<#k>>)
            }
        }
    }

    /// An impl block of methods `kind` for type `name`.
    pub(crate) fn impl_block(&self, name: &str, kind: &str, items: TokenStream) -> TokenStream {
        let id = ident(name);
        match self.variant {
            None => quote!(impl #id { #items }),
            Some(k) => {
                let tr = proc_macro2::Ident::new(kind, proc_macro2::Span::call_site());
                quote!(impl #tr<#k> for #id { #items })
            }
        }
    }

    /// The fields a struct's Rust type holds that this variant's record
    /// lacks: they get their default value when decoded.
    pub(crate) fn missing_fields(&self, st: &codec_schema::StructDef) -> Vec<TokenStream> {
        if self.variant.is_none() {
            return Vec::new();
        }
        let Some(codec_schema::TypeDef::Struct(base)) = self
            .family
            .base()
            .types
            .iter()
            .find(|t| t.name() == st.name)
        else {
            return Vec::new();
        };
        let mut seen = std::collections::HashSet::new();
        base.fields
            .iter()
            .filter(|f| codec_schema::Checked::is_stored(f))
            .filter(|f| seen.insert(f.name.as_str()))
            .filter(|f| {
                !st.fields
                    .iter()
                    .any(|g| g.name == f.name && codec_schema::Checked::is_stored(g))
            })
            .map(|f| {
                let id = ident(&f.name);
                quote!(#id: ::core::default::Default::default())
            })
            .collect()
    }

    /// The shared items of a schema with variants: the `Variant` enum, the
    /// method traits, the type ids, and `decode` / `encode` by variant.
    pub(crate) fn variant_api(&self) -> TokenStream {
        let rt = RT();
        let base = self.c.base();
        let names: Vec<proc_macro2::Ident> = base.variants.iter().map(|v| ident(&v.name)).collect();
        let strs: Vec<&str> = base.variants.iter().map(|v| v.name.as_str()).collect();
        let docs: Vec<&str> = base.variants.iter().map(|v| v.doc.as_str()).collect();
        let n = names.len();
        let endians: Vec<TokenStream> = self
            .c
            .variants()
            .iter()
            .map(|vc| crate::endian_tokens(vc.schema.endian))
            .collect();
        let root = ident(&base.root);
        let root_name = &base.root;
        let ks: Vec<usize> = (0..n).collect();
        // Each variant's magics at fixed offsets of its root (a byte-order
        // mark, a magic per byte order): the first variant whose magics
        // all match is the file's.
        let detect_arms: Vec<TokenStream> = self
            .c
            .variants()
            .iter()
            .zip(&names)
            .map(|(vc, vn)| {
                let r = vc.root();
                let offsets = vc.field_offsets(r);
                let checks = r
                    .fields
                    .iter()
                    .zip(&offsets)
                    .filter_map(|(f, o)| match (&f.ty, o) {
                        (codec_schema::Type::Magic(m), Some(o)) => {
                            let bytes = codec_schema::magic_bytes(m);
                            let lit = syn::LitByteStr::new(&bytes, proc_macro2::Span::call_site());
                            let o = *o as usize;
                            let e = o + bytes.len();
                            Some(quote!(data.get(#o..#e) == Some(&#lit[..])))
                        }
                        _ => None,
                    });
                quote!(if true #(&& #checks)* { return ::std::option::Option::Some(Variant::#vn); })
            })
            .collect();
        let encoders: Vec<proc_macro2::Ident> = ks
            .iter()
            .map(|k| quote::format_ident!("__encode_{}", k))
            .collect();
        let mut ids = TokenStream::new();
        for (i, t) in base.types.iter().enumerate() {
            if let codec_schema::TypeDef::Struct(st) = t {
                let id = ident(&st.name);
                ids.extend(quote! {
                    impl #id {
                        /// The type's index in the schema (for record counts).
                        pub const TYPE_ID: usize = #i;
                    }
                });
            }
        }
        quote! {
            /// The variants of the format, each an overlay on the schema.
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum Variant {
                #(#[doc = #docs] #names,)*
            }

            impl Variant {
                /// Every variant, the default first.
                pub const ALL: [Variant; #n] = [#(Variant::#names,)*];

                /// The variant's name in the schema.
                pub fn name(self) -> &'static str {
                    match self { #(Variant::#names => #strs,)* }
                }

                /// The variant with this name in the schema.
                pub fn from_name(name: &str) -> ::std::option::Option<Variant> {
                    match name { #(#strs => ::std::option::Option::Some(Variant::#names),)* _ => ::std::option::Option::None }
                }

                /// The variant whose magics (at fixed offsets of the root)
                /// the file's first bytes hold, trying them in order; `None`
                /// when no variant's do.
                pub fn detect(data: &[u8]) -> ::std::option::Option<Variant> {
                    #(#detect_arms)*
                    ::std::option::Option::None
                }

                /// The variant's byte order.
                pub fn endian(self) -> #rt::Endian {
                    match self { #(Variant::#names => #endians,)* }
                }

                fn index(self) -> usize {
                    match self { #(Variant::#names => #ks,)* }
                }
            }

            #[doc(hidden)]
            pub trait __Decode<const V: usize>: Sized {
                fn decode_at(r: &mut #rt::Reader<'_>, pos: u64) -> #rt::DecodeResult<(Self, u64)>;
                fn note_targets(r: &mut #rt::Reader<'_>, pos: u64) {
                    let _ = (r, pos);
                }
            }
            #[doc(hidden)]
            pub trait __Encode<const V: usize> {
                fn write_record(&self, w: &mut #rt::Writer) -> #rt::EncodeResult<()>;
                fn visit<const SEC: usize, const POST: bool>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()>;
                fn place_own<const SEC: usize>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()>;
            }
            #[doc(hidden)]
            pub trait __Tree<const V: usize> {
                fn visit_df(&self, w: &mut #rt::Writer, sec: usize, pos: u64) -> #rt::EncodeResult<()> {
                    let _ = (w, sec, pos);
                    Ok(())
                }
                fn write_word(&self, w: &mut #rt::Writer, key: usize, tid: usize, off: u64, what: &'static str) -> #rt::EncodeResult<()> {
                    let _ = (w, key, tid, off, what);
                    Ok(())
                }
                fn visit_word(&self, w: &mut #rt::Writer, sec: usize, key: usize, tid: usize, off: u64, pos: u64) -> #rt::EncodeResult<()> {
                    let _ = (w, sec, key, tid, off, pos);
                    Ok(())
                }
            }
            #[doc(hidden)]
            pub trait __Payload<const V: usize>: Sized {
                fn decode_payload(r: &mut #rt::Reader<'_>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64) -> #rt::DecodeResult<Self>;
                fn decode_payload_into(r: &mut #rt::Reader<'_>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64, out: &mut ::std::vec::Vec<Self>) -> #rt::DecodeResult<()>;
            }
            #[doc(hidden)]
            pub trait __DecodeUnit<const V: usize>: Sized {
                fn decode_unit(r: &mut #rt::Reader<'_>, pos: u64, field_pos: u64) -> #rt::DecodeResult<Self>;
                fn decode_unit_in(r: &mut #rt::Reader<'_>, pos: u64, len: Option<u64>, field_pos: u64) -> #rt::DecodeResult<Self>;
                fn unit_bytes(tail: &[u8], endian: #rt::Endian) -> #rt::DecodeResult<::std::borrow::Cow<'_, [u8]>>;
            }
            #[doc(hidden)]
            pub trait __EncodeUnit<const V: usize> {
                fn encode_unit(&self, parent: &mut #rt::Writer) -> #rt::EncodeResult<()>;
            }

            #ids

            /// Decodes a whole file of the given variant with the default resource limits.
            pub fn decode(data: &[u8], variant: Variant) -> #rt::DecodeResult<#root> {
                decode_with(data, variant, #rt::Limits::default())
            }

            /// Decodes a whole file of the given variant with explicit resource limits.
            pub fn decode_with(data: &[u8], variant: Variant, limits: #rt::Limits) -> #rt::DecodeResult<#root> {
                decode_from(#rt::Reader::with_limits(data, variant.endian(), limits), variant)
            }

            /// Decodes a whole file of the given variant whose blobs are
            /// ranges of `data` rather than copies (see `codec_runtime::Blob`).
            pub fn decode_shared(data: &#rt::SharedInput, variant: Variant) -> #rt::DecodeResult<#root> {
                decode_shared_with(data, variant, #rt::Limits::default())
            }

            /// [`decode_shared`] with explicit resource limits.
            pub fn decode_shared_with(data: &#rt::SharedInput, variant: Variant, limits: #rt::Limits) -> #rt::DecodeResult<#root> {
                decode_from(#rt::Reader::shared(data, variant.endian(), limits), variant)
            }

            fn decode_from(mut r: #rt::Reader<'_>, variant: Variant) -> #rt::DecodeResult<#root> {
                let v = match variant.index() {
                    #(#ks => <#root as __Decode<#ks>>::decode_at(&mut r, 0),)*
                    _ => unreachable!("every variant has an index"),
                };
                v.map(|(v, _)| v).map_err(|e| e.within(#rt::PathSeg::Type(::std::borrow::Cow::Borrowed(#root_name))))
            }

            /// Encodes a whole file as the given variant lays it out.
            pub fn encode(v: &#root, variant: Variant) -> #rt::EncodeResult<::std::vec::Vec<u8>> {
                match variant.index() {
                    #(#ks => #encoders(v),)*
                    _ => unreachable!("every variant has an index"),
                }
            }
        }
    }
}

/// Decoding of the new constructs.
impl Gen<'_> {
    /// Is this union the cell union of a row region?
    pub(crate) fn is_cell_union(&self, name: &str) -> bool {
        self.c.schema.types.iter().any(|t| match t {
            codec_schema::TypeDef::Struct(s) => s.fields.iter().any(|f| {
                matches!(&f.ty, Type::Ptr(p) if matches!(&p.to, Type::Rows { cells, .. } if cells == name))
            }),
            _ => false,
        })
    }

    /// Is section `si` filled only by the offsets of cell union `cells`?
    pub(crate) fn only_cells_place_in(&self, cells: &str, si: usize) -> bool {
        fn ptrs<'a>(t: &'a Type, out: &mut Vec<&'a codec_schema::Ptr>) {
            match t {
                Type::Ptr(p) => {
                    out.push(p);
                    ptrs(&p.to, out);
                }
                Type::Array { of, .. } | Type::List { of, .. } => ptrs(of, out),
                Type::Follows { to, .. } => ptrs(to, out),
                _ => {}
            }
        }
        let mut all = Vec::new();
        let mut follows = Vec::new();
        for t in &self.c.schema.types {
            match t {
                codec_schema::TypeDef::Struct(s) => s.fields.iter().for_each(|f| {
                    if let Type::Follows { section, .. } = &f.ty {
                        follows.push(section.as_str());
                    }
                    ptrs(&f.ty, &mut all)
                }),
                codec_schema::TypeDef::Union(u) if u.name != cells => {
                    for v in &u.variants {
                        ptrs(&v.ty, &mut all);
                        // A Switch payload placed in its variant's section.
                        if let Some(sec) = v.section.as_deref() {
                            follows.push(sec);
                        }
                    }
                }
                codec_schema::TypeDef::Union(_) => {}
            }
        }
        let here = |n: Option<&str>| n.and_then(|n| self.c.section_id(n)) == Some(si);
        !all.iter().any(|p| here(p.section.as_deref())) && !follows.iter().any(|f| here(Some(f)))
    }

    /// Is this struct a unit (does it have a layout)?
    pub(crate) fn is_unit(&self, name: &str) -> bool {
        matches!(self.c.get(name), Some(codec_schema::TypeDef::Struct(s)) if s.layout.is_some())
    }

    /// Is this struct the target of a reference somewhere?
    pub(crate) fn is_ref_target(&self, name: &str) -> bool {
        self.c.is_ref_target(name)
    }

    /// Statements run before a record's fields are read (its position, for
    /// references) and after (its cell layout, the unit's bounds).
    pub(crate) fn decode_notes(&self, s: &codec_schema::StructDef) -> (TokenStream, TokenStream) {
        use codec_schema::Derive;
        let rt = RT();
        let mut pre = TokenStream::new();
        let mut post = TokenStream::new();
        if self.is_ref_target(&s.name) {
            pre.extend(quote!(r.note_position(Self::TYPE_ID, pos);));
        }
        if let Some(off) = s
            .fields
            .iter()
            .find(|f| matches!(f.derive, Some(Derive::CellOffset(_))))
        {
            let offsets = self.c.field_offsets(s);
            let (tag_field, count_field) = self.c.cell_fields(s);
            let tag_field = tag_field.and_then(|t| s.fields.iter().position(|f| f.name == t.name));
            if let Some(ti) = tag_field {
                let tag = crate::names::local("f", &s.fields[ti].name);
                let tag_pos = match offsets[ti] {
                    Some(o) => quote!(pos + #o),
                    None => quote!(pos),
                };
                let count = match count_field {
                    Some(c) => {
                        let l = crate::names::local("f", &c.name);
                        quote!(u64::from(#l))
                    }
                    None => quote!(1u64),
                };
                let raw = crate::names::local("raw", &off.name);
                post.extend(quote! {
                    r.push_cell(#rt::CellSlot { tag: u64::from(#tag), count: #count, offset: #raw, size: 0, tag_pos: #tag_pos });
                });
            }
        }
        let layout_root = s.name == self.c.schema.root || s.layout.is_some();
        if layout_root && self.c.uses_to_next() {
            let mut bounds = Vec::new();
            for f in &s.fields {
                let raw = crate::names::local("raw", &f.name);
                match (&f.ty, &f.derive) {
                    (Type::Ptr(p), _) => {
                        let base = self.base_expr(&p.base, quote!(pos));
                        let scale = p.scale;
                        bounds.push(quote!(#raw.saturating_mul(#scale).saturating_add(#base)));
                    }
                    (_, Some(Derive::SectionStart(_))) => bounds.push(quote!(#raw)),
                    _ => {}
                }
            }
            post.extend(quote!(r.set_bounds(::std::vec![#(#bounds),*]);));
        }
        (pre, post)
    }

    /// A follow body for the offsets the new constructs point with: units,
    /// rows and hash indexes.
    pub(crate) fn follow_construct(
        &self,
        s: &codec_schema::StructDef,
        field: &str,
        p: &codec_schema::Ptr,
    ) -> Option<TokenStream> {
        use codec_schema::{Count, Derive};
        let rt = RT();
        let at = crate::names::local("at", field);
        let raw = crate::names::local("raw", field);
        let base = self.base_expr(&p.base, quote!(pos));
        let scale = p.scale;
        let target = quote! { let t = r.target(#at, #base, #raw, #scale)?; };
        match &p.to {
            Type::Named(n) if self.is_unit(n) => {
                let tn = self.path_as(n, "__DecodeUnit");
                Some(quote! { #target #tn::decode_unit(r, t, #at) })
            }
            Type::Hash { .. } => Some(quote! { #target let _ = t; Ok(()) }),
            t @ Type::Text { .. } => {
                let read = self.inline_read(t, quote!(t), &s.name, field);
                Some(quote! { #target #read.map(|(v, _)| v) })
            }
            Type::Rows { cells, count, .. } => {
                let n = match &**count {
                    Count::Field(c) => {
                        let l = crate::names::local("raw", c);
                        quote!(#l)
                    }
                    _ => quote!(0u64),
                };
                let stride = s
                    .fields
                    .iter()
                    .find(|g| g.derive == Some(Derive::Stride(field.to_owned())))
                    .map(|g| {
                        let l = crate::names::local("raw", &g.name);
                        quote!(#l)
                    })
                    .unwrap_or(quote!(0u64));
                let cu = ident(cells);
                let v = self.v();
                Some(quote! { #target #rt::rows::decode_rows::<#cu, #v>(r, t, #n, #stride, #at) })
            }
            _ => None,
        }
    }

    /// A follow body that returns the target and the position after it (for
    /// a `Follows` field that starts there).
    pub(crate) fn follow_ended(
        &self,
        s: &codec_schema::StructDef,
        field: &str,
        p: &codec_schema::Ptr,
    ) -> TokenStream {
        let at = crate::names::local("at", field);
        let raw = crate::names::local("raw", field);
        let base = self.base_expr(&p.base, quote!(pos));
        let scale = p.scale;
        let target = quote! { let t = r.target(#at, #base, #raw, #scale)?; };
        match &p.to {
            Type::Named(n) => {
                let tn = self.path_as(n, "__Decode");
                let size = self.c.fixed_size(&p.to).unwrap_or(1);
                quote! {
                    #target
                    r.enter(#at, t, #size)?;
                    let (v, end) = #tn::decode_at(r, t)?;
                    r.leave();
                    Ok((v, end))
                }
            }
            other => {
                let read = self.inline_read(other, quote!(t), &s.name, field);
                quote! { #target #read }
            }
        }
    }

    /// The body of a closure reading a `Follows` field's target, which
    /// starts where the target of `after` ends.
    pub(crate) fn follows_read(
        &self,
        s: &codec_schema::StructDef,
        field: &str,
        after: &str,
        to: &Type,
    ) -> TokenStream {
        use codec_schema::Count;
        let at = crate::names::local("at", field);
        let at_after = crate::names::local("at", after);
        let end_after = crate::names::local("end", after);
        let head = quote! { let t: u64 = #end_after; let #at = #at_after; };
        match to {
            Type::List { of, count } => match &**count {
                Count::ToNext => {
                    let fi = s.fields.iter().position(|g| g.name == field).unwrap_or(0);
                    let rank = self.c.target_rank(s, fi);
                    let seq =
                        self.seq_read(of, quote!(t), &at, &s.name, field, quote!(Some(#rank)));
                    quote! { #head #seq.map(|(v, _)| v) }
                }
                Count::Field(c) => {
                    let rc = crate::names::local("raw", c);
                    let list = self.list_read(of, quote!(#rc), quote!(t), &at, &s.name, field);
                    quote! { #head #list }
                }
                _ => {
                    quote! { #head unreachable!("checked: a Follows list counts by field or to the next target") }
                }
            },
            Type::Named(n) => {
                let tn = self.path_as(n, "__Decode");
                quote! { #head #tn::decode_at(r, t).map(|(v, _)| v) }
            }
            other => {
                let read = self.inline_read(other, quote!(t), &s.name, field);
                quote! { #head #read.map(|(v, _)| v) }
            }
        }
    }

    /// Reads of a list field (inline, counted by an earlier sibling): the
    /// statements for the read phase, and for the follow phase when the
    /// elements are offsets.
    pub(crate) fn list_field_read(
        &self,
        s: &codec_schema::StructDef,
        fname: &str,
        of: &Type,
        count: &codec_schema::Count,
    ) -> (TokenStream, TokenStream) {
        let rt = RT();
        let v = crate::names::local("f", fname);
        let at = crate::names::local("at", fname);
        let n = match (self.list_field_count(s, count), count) {
            (Some(n), _) => n,
            (None, codec_schema::Count::Field(c)) => {
                let l = crate::names::local("raw", c.as_str());
                quote!(#l)
            }
            _ => quote!(0u64),
        };
        if matches!(count, codec_schema::Count::ToNext) {
            // Runs up to the next target: elements one after the other.
            let lty = self.list_ty(of, &s.name, fname);
            let seq = self.seq_read(of, quote!(p), &at, &s.name, fname, quote!(None));
            let reads = quote! {
                let #at = p;
                let (#v, next): (#lty, u64) = match #seq {
                    Ok(v) => v,
                    Err(e) => return Err(e.in_field(#fname)),
                };
                p = next;
            };
            return (reads, TokenStream::new());
        }
        if let Type::Ptr(p) = of {
            let w = codec_schema::int_width(&p.width).unwrap_or(4);
            let raws = crate::names::local("raws", fname);
            let raw = crate::names::local("raw", fname);
            let read = crate::names::read_uint(&p.width, quote!(p + i * #w));
            let follow = self.follow(s, fname, p);
            let ety = self.rust_ty(&p.to, &s.name, fname);
            // Every element's target is known before any is followed, so
            // that a list read up to the next target ends at the next
            // element's (schema-repros case 3).
            let bounds = if self.c.ends_at_next_target() {
                let fi = s.fields.iter().position(|g| g.name == fname).unwrap_or(0);
                let rank = self.c.target_rank(s, fi);
                let base = self.base_expr(&p.base, quote!(pos));
                let scale = p.scale;
                let skip_zero = p.optional;
                quote! {
                    for (i, &x) in #raws.iter().enumerate() {
                        let at = #at + i as u64 * #w;
                        if !(#skip_zero && x == 0) {
                            if let Ok(t) = r.target(at, #base, x, #scale) {
                                r.add_bound(t, #rank, at);
                            }
                        }
                    }
                }
            } else {
                TokenStream::new()
            };
            let reads = quote! {
                let #at = p;
                let #raws: ::std::vec::Vec<u64> = {
                    let n: u64 = #n;
                    if let Err(e) = r.check_count(p, p, n, #w) {
                        return Err(e.in_field(#fname));
                    }
                    let mut v = ::std::vec::Vec::with_capacity(n as usize);
                    for i in 0..n {
                        match #read {
                            Ok(x) => v.push(x),
                            Err(e) => return Err(e.at_index(i as usize).in_field(#fname)),
                        }
                    }
                    v
                };
                #bounds
                p += #raws.len() as u64 * #w;
            };
            let follows = quote! {
                let #v: ::std::vec::Vec<#ety> = {
                    let mut out = ::std::vec::Vec::with_capacity(#raws.len());
                    for (i, &x) in #raws.iter().enumerate() {
                        let #at = #at + i as u64 * #w;
                        let #raw = x;
                        match (|| -> #rt::DecodeResult<#ety> { #follow })() {
                            Ok(v) => out.push(v),
                            Err(e) => return Err(e.at_index(i).in_field(#fname)),
                        }
                    }
                    out
                };
            };
            return (reads, follows);
        }
        if self.c.fixed_size(of).is_none() {
            // Elements that differ in size (MSBT's blocks): one after the
            // other; the record goes on where the last one ends.
            let lty = self.list_ty(of, &s.name, fname);
            let list = self.list_read_ending(of, n, quote!(p), &at, &s.name, fname, true);
            let reads = quote! {
                let #at = p;
                let (#v, next): (#lty, u64) = match (|| -> #rt::DecodeResult<(#lty, u64)> { #list })() {
                    Ok(v) => v,
                    Err(e) => return Err(e.in_field(#fname)),
                };
                p = next;
            };
            return (reads, TokenStream::new());
        }
        let esize = self.c.fixed_size(of).unwrap_or(1);
        let lty = self.list_ty(of, &s.name, fname);
        // Where each element's offsets lead is known before any is followed.
        let pre = self.pre_pass(of, esize);
        let pre = if pre.is_empty() {
            pre
        } else {
            quote! {{
                let n: u64 = #n;
                let start: u64 = p;
                if r.check_count(p, p, n, #esize).is_ok() { #pre }
            }}
        };
        let derived = s
            .fields
            .iter()
            .any(|g| g.name == fname && g.derive.is_some());
        if derived && matches!(of, Type::U8) && pre.is_empty() {
            // Bytes the document does not keep (a derived list, such as a
            // container's tags): read in place, not copied into a `Vec`
            // that is dropped at the end of the record (issue 51: an
            // allocation per small array, as many as the document's own).
            let reads = quote! {
                let #at = p;
                let #v: &[u8] = match (|| -> #rt::DecodeResult<&[u8]> {
                    let n: u64 = #n;
                    r.check_count(#at, p, n, 1)?;
                    r.charge(#at, n)?;
                    r.bytes(p, n)
                })() {
                    Ok(v) => v,
                    Err(e) => return Err(e.in_field(#fname)),
                };
                p += #v.len() as u64;
            };
            return (reads, TokenStream::new());
        }
        let list = self.list_read(of, n, quote!(p), &at, &s.name, fname);
        let reads = quote! {
            let #at = p;
            #pre
            let #v: #lty = match (|| -> #rt::DecodeResult<#lty> { #list })() {
                Ok(v) => v,
                Err(e) => return Err(e.in_field(#fname)),
            };
            p += #v.len() as u64 * #esize;
        };
        (reads, TokenStream::new())
    }

    /// `decode_unit`: a unit's bytes (through its transform) read as a
    /// file of their own; errors point into the file.
    pub(crate) fn decode_unit_fn(&self, s: &codec_schema::StructDef) -> TokenStream {
        let rt = RT();
        let vis = self.vis();
        let me = self.self_as("__Decode");
        let unit = self.self_as("__DecodeUnit");
        // A transformed unit is charged its bytes; one read in place, the
        // follow.
        let (bytes, charged) = match (
            s.layout.as_ref().and_then(|l| l.transform.as_ref()),
            self.hooks,
        ) {
            (Some(tr), Some(h)) => {
                let f = ident(&tr.decode);
                (quote!(#h::#f(tail, endian)), quote!(bytes.len() as u64))
            }
            _ => (quote!(Ok(::std::borrow::Cow::Borrowed(tail))), quote!(1)),
        };
        self.impl_block(
            &s.name,
            "__DecodeUnit",
            quote! {
                /// Decodes the unit at `pos`: its bytes (after its transform)
                /// are read on their own, offsets counting from its start.
                #[allow(unused_variables)]
                #vis fn decode_unit(r: &mut #rt::Reader<'_>, pos: u64, field_pos: u64) -> #rt::DecodeResult<Self> {
                    #unit::decode_unit_in(r, pos, None, field_pos)
                }

                /// [`decode_unit`], within `len` bytes when given (a unit
                /// laid out inline, its size stored before it).
                #[allow(unused_variables)]
                #vis fn decode_unit_in(r: &mut #rt::Reader<'_>, pos: u64, len: Option<u64>, field_pos: u64) -> #rt::DecodeResult<Self> {
                    let data = r.data();
                    let tail: &[u8] = match len {
                        Some(n) => #rt::pad::sized(data, pos, n, field_pos)?,
                        None => data.get(pos as usize..).unwrap_or(&[]),
                    };
                    let bytes = #unit::unit_bytes(tail, r.endian()).map_err(|e| e.shifted(pos))?;
                    r.charge(field_pos, #charged)?;
                    let mut sub = r.sub(&bytes);
                    match #me::decode_at(&mut sub, 0) {
                        Ok((v, _)) => {
                            r.end_sub(&sub);
                            Ok(v)
                        }
                        Err(e) => Err(e.shifted(pos)),
                    }
                }

                /// The unit's bytes from `tail` (the file from the unit's
                /// start) after its transform; errors count from the unit's
                /// start.
                #vis fn unit_bytes(tail: &[u8], endian: #rt::Endian) -> #rt::DecodeResult<::std::borrow::Cow<'_, [u8]>> {
                    #bytes
                }
            },
        )
    }

    /// A union whose tag comes first: read like a record.
    pub(crate) fn decode_tagged_union(&self, u: &codec_schema::UnionDef) -> TokenStream {
        let rt = RT();
        let vis = self.vis();
        let unknown = crate::names::unknown_tag(u, quote!(pos));
        let w = codec_schema::int_width(&u.tag).unwrap_or(1);
        let read_tag = crate::names::read_uint(&u.tag, quote!(pos));
        let arms = u.variants.iter().map(|v| {
            let vn = ident(&v.name);
            let vname = &v.name;
            let tag = v.tag;
            let read = self.inline_read(&v.ty, quote!(pos + #w), &u.name, &v.name);
            let wrap = if self.boxed_payload(&v.ty) {
                quote!(::std::boxed::Box::new(v))
            } else {
                quote!(v)
            };
            quote! {
                #tag => match #read {
                    Ok((v, end)) => Ok((Self::#vn(#wrap), end)),
                    Err(e) => Err(e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                }
            }
        });
        self.impl_block(
            &u.name,
            "__Decode",
            quote! {
                /// Decodes the tag at `pos` and the payload it selects after it.
                #[allow(unused_variables, clippy::redundant_closure_call)]
                #[inline]
                #vis fn decode_at(r: &mut #rt::Reader<'_>, pos: u64) -> #rt::DecodeResult<(Self, u64)> {
                    let tag = #read_tag?;
                    match tag {
                        #(#arms,)*
                        _ => Err(#unknown),
                    }
                }
            },
        )
    }

    /// The `Cells` implementation of a row region's cell union.
    pub(crate) fn cells_impl(&self, u: &codec_schema::UnionDef) -> TokenStream {
        let rt = RT();
        let order = self.endian_const();
        let name = ident(&u.name);
        let uname = &u.name;
        let unknown = crate::names::unknown_tag(u, quote!(pos));
        let v = self.v();
        let mut sizes = TokenStream::new();
        let mut reads = TokenStream::new();
        let mut writes = TokenStream::new();
        let mut places = TokenStream::new();
        let mut secs = Vec::new();
        let mut tag_places = TokenStream::new();
        let mut plain_tags = Vec::new();
        let mut plain_reads = TokenStream::new();
        let mut plain_writes = TokenStream::new();
        let mut plain_runs = TokenStream::new();
        for var in &u.variants {
            let vn = ident(&var.name);
            let tag = var.tag;
            let raw = match &var.ty {
                Type::Fixed { raw, .. } => &**raw,
                t => t,
            };
            let plain = match raw {
                Type::U8 => Some((quote!(u8), 1usize)),
                Type::I8 => Some((quote!(i8), 1)),
                Type::U16 => Some((quote!(u16), 2)),
                Type::I16 => Some((quote!(i16), 2)),
                Type::U32 => Some((quote!(u32), 4)),
                Type::I32 => Some((quote!(i32), 4)),
                Type::U64 => Some((quote!(u64), 8)),
                Type::I64 => Some((quote!(i64), 8)),
                Type::F32 => Some((quote!(f32), 4)),
                Type::F64 => Some((quote!(f64), 8)),
                _ => None,
            };
            if let Some((f, n)) = plain {
                plain_tags.push(tag);
                plain_reads.extend(quote!(#tag => ::std::option::Option::Some(Self::#vn(#rt::reader::field::#f(b, e))),));
                // The value `v` as its bytes in the order `e`.
                let bytes = quote!(&match e {
                    #rt::Endian::Little => v.to_le_bytes(),
                    #rt::Endian::Big => v.to_be_bytes(),
                });
                plain_writes.extend(quote! {
                    Self::#vn(v) if tag == #tag => {
                        out[..#n].copy_from_slice(#bytes);
                        true
                    }
                });
                plain_runs.extend(quote! {
                    #tag => {
                        for &(k, at) in cells {
                            let ::std::option::Option::Some(Self::#vn(v)) = row.get(k as usize) else {
                                return false;
                            };
                            let at = at as usize;
                            out[at..at + #n].copy_from_slice(#bytes);
                        }
                        true
                    }
                });
            } else {
                // An offset: zeros until it is patched.
                plain_writes.extend(quote!(Self::#vn(_) if tag == #tag => true,));
                plain_runs.extend(quote! {
                    #tag => cells.iter().all(|&(k, _)| matches!(row.get(k as usize), ::std::option::Option::Some(Self::#vn(_)))),
                });
            }
        }
        for var in &u.variants {
            let vn = ident(&var.name);
            let vname = &var.name;
            let tag = var.tag;
            let what = format!("{}::{}", u.name, var.name);
            match &var.ty {
                Type::Ptr(p) => {
                    let w = codec_schema::int_width(&p.width).unwrap_or(4);
                    let n = w as usize;
                    let read = crate::names::read_uint(&p.width, quote!(pos));
                    let base = self.base_expr(&p.base, quote!(0u64));
                    let scale = p.scale;
                    // The string goes to the rows' string list, once per position.
                    let (max, pad, lossless) = match &p.to {
                        Type::CString {
                            max, pad, lossless, ..
                        } => (*max, *pad, *lossless),
                        _ => (None, None, true),
                    };
                    let max_t = match max {
                        Some(m) => quote!(::std::option::Option::Some(#m)),
                        None => quote!(::std::option::Option::None),
                    };
                    let check = if lossless {
                        quote!()
                    } else {
                        quote! {
                            if let Err(e) = ::std::str::from_utf8(b) {
                                return Err(#rt::DecodeError::new(t + e.valid_up_to() as u64, #rt::ErrorKind::InvalidUtf8));
                            }
                        }
                    };
                    sizes.extend(quote!(#tag => ::std::option::Option::Some(#w),));
                    reads.extend(quote! {
                        #tag => (|| -> #rt::DecodeResult<Self> {
                            let raw = #read?;
                            let t = r.target(pos, #base, raw, #scale)?;
                            let id = strings.get_or_read(t, || {
                                let b = r.cstr(t, #max_t)?;
                                r.charge(t, b.len() as u64 + 1)?;
                                #check
                                Ok(b)
                            })?;
                            Ok(Self::#vn(id))
                        })().map_err(|e| e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                    });
                    writes.extend(quote!(Self::#vn(_) => w.put_bytes(&[0u8; #n]),));
                    if let Some(si) = p.section.as_deref().and_then(|n| self.c.section_id(n)) {
                        let sec = self.c.section(si);
                        // The string's bytes, through the section's dedup.
                        let ia = sec.item_align;
                        let pad_t = match pad {
                            Some(a) => quote!(::std::option::Option::Some(#a)),
                            None => quote!(::std::option::Option::None),
                        };
                        // Strings the decoder read hold no NUL; with no
                        // `max` to check either, they are written as they are.
                        let put = if max.is_none() {
                            quote! {
                                if strings.nul_free {
                                    w.put_cbytes_nul_free(text, #pad_t);
                                } else {
                                    w.put_cbytes(text, #max_t, #pad_t, #what)?;
                                }
                            }
                        } else {
                            quote!(w.put_cbytes(text, #max_t, #pad_t, #what)?;)
                        };
                        let append = quote! {
                            w.align(#ia);
                            let t = w.pos();
                            #put
                            t
                        };
                        let place = if matches!(sec.dedup, codec_schema::Dedup::None) {
                            append
                        } else {
                            // A section only these cells fill, and strings
                            // known to be distinct: no earlier copy to find.
                            let shortcut = if self.only_cells_place_in(&u.name, si) {
                                quote! {
                                    if strings.distinct {
                                        let t = { #append };
                                        w.align(#ia);
                                        t
                                    } else
                                }
                            } else {
                                quote!()
                            };
                            quote! {
                                #shortcut {
                                    let start = w.begin_value(#ia);
                                    w.put_cbytes(text, #max_t, #pad_t, #what)?;
                                    w.end_value(start, #ia)
                                }
                            }
                        };
                        let wt = width_tokens(&p.width);
                        places.extend(quote! {
                            Self::#vn(id) if sec == #si => {
                                let slot = match placed.get_mut(*id as usize) {
                                    Some(s) => s,
                                    None => return Err(#rt::EncodeError::new(#what, format!("string {} is not one of the rows' strings", id))),
                                };
                                let target: u64 = if *slot == #rt::UNPLACED {
                                    let text = strings.get(*id, #what)?;
                                    let t = { #place };
                                    *slot = t;
                                    t
                                } else {
                                    *slot
                                };
                                w.patch_offset(at, #wt, #base, #scale, target, #order, #what)
                            }
                        });
                        secs.push(si);
                        tag_places.extend(quote!(#tag if sec == #si => true,));
                    }
                }
                t => {
                    let size = self.c.fixed_size(t).unwrap_or(0);
                    let read = self.inline_read(t, quote!(pos), &u.name, &var.name);
                    let write = self.inline_write(t, quote!(v), &what);
                    sizes.extend(quote!(#tag => ::std::option::Option::Some(#size),));
                    reads.extend(quote! {
                        #tag => #read.map(|(v, _)| Self::#vn(v)).map_err(|e| e.within(#rt::PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                    });
                    writes.extend(quote!(Self::#vn(v) => { #write }));
                }
            }
        }
        let places_in = if secs.is_empty() {
            quote!(false)
        } else {
            quote!(matches!(sec, #(#secs)|*))
        };
        quote! {
            impl #rt::Cells<#v> for #name {
                const NAME: &'static str = #uname;

                fn cell_size(tag: u64) -> ::std::option::Option<u64> {
                    match tag {
                        #sizes
                        _ => ::std::option::Option::None,
                    }
                }

                #[allow(clippy::redundant_closure_call, unused_variables)]
                #[inline]
                fn decode_cell<'a>(r: &mut #rt::Reader<'a>, tag: u64, pos: u64, strings: &mut #rt::rows::StringReader<'a>) -> #rt::DecodeResult<Self> {
                    match tag {
                        #reads
                        _ => Err(#unknown),
                    }
                }

                fn cell_tag(&self) -> u64 {
                    self.tag()
                }

                fn is_plain(tag: u64) -> bool {
                    matches!(tag, #(#plain_tags)|*)
                }

                #[inline]
                fn read_plain(tag: u64, b: &[u8], e: #rt::Endian) -> ::std::option::Option<Self> {
                    match tag {
                        #plain_reads
                        _ => ::std::option::Option::None,
                    }
                }

                // Inlined into the row loop, once per byte order, where the
                // order is a constant.
                #[inline(always)]
                #[allow(unreachable_patterns, unused_variables)]
                fn write_plain(&self, tag: u64, out: &mut [u8], e: #rt::Endian) -> bool {
                    match self {
                        #plain_writes
                        _ => false,
                    }
                }

                // One dispatch on the type for all of a row's cells of that
                // type; inlined into the row loop like `write_plain`.
                #[inline(always)]
                #[allow(unreachable_patterns, unused_variables)]
                fn write_plain_run(tag: u64, row: &[Self], cells: &[(u32, u32)], out: &mut [u8], e: #rt::Endian) -> bool {
                    match tag {
                        #plain_runs
                        _ => false,
                    }
                }

                #[allow(unreachable_patterns)]
                #[inline]
                fn write_cell(&self, w: &mut #rt::Writer) -> #rt::EncodeResult<()> {
                    match self {
                        #writes
                        other => return Err(#rt::EncodeError::new(#uname, format!("{} cells do not exist in this variant", other.variant_name()))),
                    }
                    Ok(())
                }

                fn places_in(sec: usize) -> bool {
                    #places_in
                }

                #[allow(unused_variables, clippy::match_like_matches_macro)]
                fn tag_places_in(tag: u64, sec: usize) -> bool {
                    match tag {
                        #tag_places
                        _ => false,
                    }
                }

                #[allow(unused_variables, unreachable_patterns)]
                #[inline]
                fn place_cell(&self, w: &mut #rt::Writer, sec: usize, at: u64, strings: &#rt::rows::StringPlacer<'_>, placed: &mut [u64]) -> #rt::EncodeResult<()> {
                    match self {
                        #places
                        _ => Ok(()),
                    }
                }
            }
        }
    }
}

/// Encoding of the new constructs.
impl Gen<'_> {
    /// The section a struct's records go to through this field type, if it
    /// places records of `name`.
    fn places_records_of(&self, t: &Type, name: &str) -> Option<usize> {
        let holds = |x: &Type| match x {
            Type::Named(n) => n == name,
            Type::List { of, .. } | Type::Array { of, .. } => {
                matches!(&**of, Type::Named(n) if n == name)
            }
            _ => false,
        };
        match t {
            Type::Ptr(p) if holds(&p.to) => p.section.as_deref().and_then(|s| self.c.section_id(s)),
            Type::Follows { to, section, .. } if holds(to) => self.c.section_id(section),
            _ => None,
        }
    }

    /// Can a record of `s` be written after the targets of its own offsets
    /// (its section comes after theirs)? Then its offsets are written from
    /// the targets kept for it ([`codec_runtime::Writer::defer`]).
    pub(crate) fn deferrable(&self, s: &codec_schema::StructDef) -> bool {
        let own: Vec<usize> = s
            .fields
            .iter()
            .filter_map(|f| match &f.ty {
                Type::Ptr(p) => p.section.as_deref().and_then(|n| self.c.section_id(n)),
                _ => None,
            })
            .collect();
        if own.is_empty() {
            return false;
        }
        self.c.schema.types.iter().any(|t| match t {
            codec_schema::TypeDef::Struct(h) => h.fields.iter().any(|f| {
                self.places_records_of(&f.ty, &s.name)
                    .is_some_and(|rs| own.iter().any(|&o| o < rs))
            }),
            _ => false,
        })
    }

    /// What `write_record` notes for references and hash indexes.
    pub(crate) fn encode_notes(&self, s: &codec_schema::StructDef) -> TokenStream {
        let mut out = TokenStream::new();
        if self.is_ref_target(&s.name) {
            out.extend(quote!(w.note_ordinal(Self::TYPE_ID, start);));
        }
        for t in &self.c.schema.types {
            let codec_schema::TypeDef::Struct(h) = t else {
                continue;
            };
            for f in &h.fields {
                let Type::Ptr(p) = &f.ty else { continue };
                let Type::Hash { of, key, hook, .. } = &p.to else {
                    continue;
                };
                if *of != s.name {
                    continue;
                }
                let Some(hooks) = self.hooks else { continue };
                let k = ident(key);
                let hn = ident(hook);
                out.extend(quote! {
                    w.note_hash(Self::TYPE_ID, start, #hooks::#hn((&self.#k).as_bytes()));
                });
            }
        }
        out
    }

    /// The `CellOffset` field: this column's cells are added to the row
    /// layout, and their offset written.
    pub(crate) fn cell_offset_write(
        &self,
        s: &codec_schema::StructDef,
        cells: &str,
        t: &Type,
        what: &str,
    ) -> TokenStream {
        let rt = RT();
        let (tag_field, count_field) = self.c.cell_fields(s);
        let tag = tag_field.map(|f| ident(&f.name));
        let count = match count_field {
            Some(c) => {
                let c = ident(&c.name);
                quote!(u64::from(self.#c))
            }
            None => quote!(1u64),
        };
        let cu = ident(cells);
        let v = self.v();
        let wt = width_tokens(t);
        match tag {
            Some(tag) => quote! {
                let tag = u64::from(self.#tag);
                let off = w.add_cell(tag, #count, <#cu as #rt::Cells<#v>>::cell_size(tag), #what)?;
                w.put_uint(#wt, off, #what)?;
            },
            None => quote!(w.put_uint(#wt, 0, #what)?;),
        }
    }

    /// The row length alignment of the rows `rows_field` of `st`.
    pub(crate) fn stride_align(&self, st: &codec_schema::StructDef, rows_field: &str) -> u64 {
        self.c.stride_align(st, rows_field)
    }

    /// `place_own` code for offsets to a hash index or to rows; `patch`
    /// patches the offset to `target`.
    pub(crate) fn place_construct(
        &self,
        s: &codec_schema::StructDef,
        field: &str,
        p: &codec_schema::Ptr,
        patch: &TokenStream,
    ) -> syn::Result<Option<TokenStream>> {
        let rt = RT();
        let fid = ident(field);
        let what = format!("{}.{}", s.name, field);
        let Some(si) = p.section.as_deref().and_then(|n| self.c.section_id(n)) else {
            return Ok(None);
        };
        let ia = self.c.section(si).item_align;
        match &p.to {
            Type::Hash {
                of,
                next,
                slots,
                width,
                base,
                prepend,
                ..
            } => {
                let Some(codec_schema::TypeDef::Struct(rec)) = self.c.get(of) else {
                    return Err(Gen::err(format!("`{of}` is not a struct")));
                };
                let offs = self.c.field_offsets(rec);
                let Some(j) = rec.fields.iter().position(|g| &g.name == next) else {
                    return Err(Gen::err(format!("`{next}` is not a field of `{of}`")));
                };
                let next_off = offs[j].unwrap_or(0);
                let nwt = width_tokens(&rec.fields[j].ty);
                let wt = width_tokens(width);
                let base = self.wbase_expr(base, quote!(pos));
                let sl = ident(slots);
                let ot = ident(of);
                let pre = prepend.value();
                let next_what = format!("{of}.{next}");
                Ok(Some(quote! {
                    if sec == #si {
                        w.align(#ia);
                        let target = w.place_hash_index(&#rt::HashSpec {
                            type_id: #ot::TYPE_ID,
                            slots: u64::from(self.#sl),
                            prepend: #pre,
                            width: #wt,
                            base: #base,
                            scale: 1,
                            next_off: #next_off,
                            next_width: #nwt,
                            what: #what,
                            next_what: #next_what,
                        })?;
                        #patch
                    }
                }))
            }
            Type::Rows {
                cells,
                stride_align,
                ..
            } => {
                let cu = ident(cells);
                let v = self.v();
                let a = stride_align.value();
                Ok(Some(quote! {
                    if sec == #si {
                        w.align(#ia);
                        let target = w.pos();
                        let stride = w.row_stride(#a);
                        #rt::rows::write_rows::<#cu, #v>(w, &self.#fid, stride, #what)?;
                        #patch
                    }
                }))
            }
            _ => Ok(None),
        }
    }

    /// `place_own` code for a list field of offsets: each target is placed
    /// and its offset patched (or kept, while the record is not written).
    pub(crate) fn place_offset_list(
        &self,
        s: &codec_schema::StructDef,
        field: &str,
        p: &codec_schema::Ptr,
        off: u64,
    ) -> syn::Result<TokenStream> {
        let rt = RT();
        let order = self.endian_const();
        let fid = ident(field);
        let what = format!("{}.{}", s.name, field);
        let wt = width_tokens(&p.width);
        let w = codec_schema::int_width(&p.width).unwrap_or(4);
        let scale = p.scale;
        let base = self.wbase_expr(&p.base, quote!(pos));
        let Some(si) = p.section.as_deref().and_then(|n| self.c.section_id(n)) else {
            return Err(Gen::err(format!("`{what}` names no section")));
        };
        let sec = self.c.section(si);
        let place = self.place_value(&p.to, quote!(e), &sec.dedup, sec.item_align, &what);
        // Units are appended whole: the writer notes what the rest will
        // take, to grow once when one does not fit (`Writer::put_unit`).
        let reserve = if matches!(&p.to, Type::Named(n) if self.is_unit(n)) {
            quote!(w.note_units_to_come(first, i, self.#fid.len());)
        } else {
            TokenStream::new()
        };
        Ok(quote! {
            if sec == #si {
                let first = w.pos();
                for (i, e) in self.#fid.iter().enumerate() {
                    #reserve
                    let target: u64 = { #place };
                    let fo = #off + i as u64 * #w;
                    if pos == #rt::UNPLACED {
                        w.defer(#rt::key_of(self), Self::TYPE_ID, fo, target);
                    } else {
                        w.patch_offset(pos + fo, #wt, #base, #scale, target, #order, #what)?;
                    }
                }
            }
        })
    }

    /// `visit` code descending into what field `f` (at `off` in its record)
    /// holds, for the sections `secs` it can reach.
    pub(crate) fn descend_field(
        &self,
        s: &codec_schema::StructDef,
        f: &codec_schema::Field,
        off: TokenStream,
        secs: &[usize],
    ) -> syn::Result<TokenStream> {
        use codec_schema::Count;
        let rt = RT();
        let order = self.endian_const();
        let fid = ident(&f.name);
        let what = format!("{}.{}", s.name, f.name);
        // Visits each record of a list whose elements start at `at` (UNPLACED
        // when they are not written yet).
        // The value an optional offset holds is `v`, inside `if let Some(v)`.
        let optional = matches!(&f.ty, Type::Ptr(p) if p.optional);
        let value = if optional {
            quote!(v)
        } else {
            quote!(self.#fid)
        };
        let list_visit = |of: &Type, extra: u64| -> Option<TokenStream> {
            let Type::Named(n) = of else { return None };
            let vp = self.path_as(n, "__Encode");
            Some(match self.c.fixed_size(of) {
                Some(esize) => quote! {
                    for (i, e) in #value.iter().enumerate() {
                        let ea = if at == #rt::UNPLACED { #rt::UNPLACED } else { at + #extra + i as u64 * #esize };
                        #vp::visit::<SEC, POST>(e, w, ea)?;
                    }
                },
                None => quote! {
                    if at != #rt::UNPLACED {
                        return Err(#rt::EncodeError::new(#what, "internal: records of variable size are visited after they were placed"));
                    }
                    for e in #value.iter() {
                        #vp::visit::<SEC, POST>(e, w, #rt::UNPLACED)?;
                    }
                },
            })
        };
        let step = match &f.ty {
            Type::Ptr(p) => {
                let wt = width_tokens(&p.width);
                let scale = p.scale;
                let base = self.wbase_expr(&p.base, quote!(pos));
                let ts = p
                    .section
                    .as_deref()
                    .and_then(|n| self.c.section_id(n))
                    .unwrap_or(0);
                let extra = match &p.to {
                    Type::List { count, .. } => match &**count {
                        Count::Prefix(ct) => codec_schema::int_width(ct).unwrap_or(4),
                        _ => 0,
                    },
                    _ => 0,
                };
                let at = quote! {
                    let at: u64 = if pos == #rt::UNPLACED {
                        w.peek_deferred(#rt::key_of(self), Self::TYPE_ID, #off).unwrap_or(#rt::UNPLACED)
                    } else if sec < #ts {
                        #rt::UNPLACED
                    } else {
                        w.resolve(pos + #off, #wt, #base, #scale, #order)
                    };
                };
                match &p.to {
                    Type::Named(n) => {
                        let vp = self.path_as(n, "__Encode");
                        Some(quote! { #at #vp::visit::<SEC, POST>(&#value, w, at)?; })
                    }
                    Type::Array { of, .. } | Type::List { of, .. } => {
                        list_visit(of, extra).map(|l| quote! { #at #l })
                    }
                    Type::Rows {
                        cells,
                        stride_align,
                        ..
                    } => {
                        let cu = ident(cells);
                        let v = self.v();
                        let a = stride_align.value();
                        Some(quote! {
                            #at
                            if at != #rt::UNPLACED {
                                let stride = w.row_stride(#a);
                                #rt::rows::place_rows::<#cu, #v>(w, &self.#fid, sec, at, stride)?;
                            }
                        })
                    }
                    _ => None,
                }
            }
            Type::Follows { to, section, .. } => {
                let ts = self.c.section_id(section).unwrap_or(0);
                let inner = match &**to {
                    Type::List { of, .. } => list_visit(of, 0),
                    Type::Named(n) => {
                        let vp = self.path_as(n, "__Encode");
                        Some(quote!(#vp::visit::<SEC, POST>(&self.#fid, w, at)?;))
                    }
                    _ => None,
                };
                inner.map(|i| {
                    quote! {
                        if sec >= #ts {
                            return Err(#rt::EncodeError::new(#what, "internal: records placed after another target are not visited in their own or later sections"));
                        }
                        let at: u64 = #rt::UNPLACED;
                        #i
                    }
                })
            }
            Type::Named(n) => {
                let vp = self.path_as(n, "__Encode");
                Some(quote! {
                    let at: u64 = if pos == #rt::UNPLACED { #rt::UNPLACED } else { pos + #off };
                    #vp::visit::<SEC, POST>(&self.#fid, w, at)?;
                })
            }
            // A payload record written in place: visited where it lies, for
            // each section one of the union's records reaches.
            Type::Switch { union, .. } => {
                let uid = ident(union);
                let mut arms = TokenStream::new();
                for &si in secs {
                    let mut per = TokenStream::new();
                    for (v, st) in self.c.payload_records(union, si) {
                        let vn = ident(&v.name);
                        let vp = self.path_as(&st.name, "__Encode");
                        per.extend(quote!(#uid::#vn(x) => #vp::visit::<SEC, POST>(x, w, at)?,));
                    }
                    arms.extend(quote! {
                        if sec == #si {
                            match &self.#fid {
                                #per
                                _ => {}
                            }
                        }
                    });
                }
                Some(quote! {
                    let at: u64 = if pos == #rt::UNPLACED { #rt::UNPLACED } else { pos + #off };
                    #arms
                })
            }
            Type::Array { of, .. } | Type::List { of, .. } => {
                if let Type::Ptr(p) = &**of {
                    // A list field of offsets: visit each target.
                    let Type::Named(n) = &p.to else {
                        return Ok(TokenStream::new());
                    };
                    let vp = self.path_as(n, "__Encode");
                    let wt = width_tokens(&p.width);
                    let w_ = codec_schema::int_width(&p.width).unwrap_or(4);
                    let scale = p.scale;
                    let base = self.wbase_expr(&p.base, quote!(pos));
                    let ts = p
                        .section
                        .as_deref()
                        .and_then(|n| self.c.section_id(n))
                        .unwrap_or(0);
                    Some(quote! {
                        for (i, e) in self.#fid.iter().enumerate() {
                            let fo = #off + i as u64 * #w_;
                            let at: u64 = if pos == #rt::UNPLACED {
                                w.peek_deferred(#rt::key_of(self), Self::TYPE_ID, fo).unwrap_or(#rt::UNPLACED)
                            } else if sec < #ts {
                                #rt::UNPLACED
                            } else {
                                w.resolve(pos + fo, #wt, #base, #scale, #order)
                            };
                            #vp::visit::<SEC, POST>(e, w, at)?;
                        }
                    })
                } else if let (Some(keys), Type::Named(n)) = (self.sort_keys(s, f), &**of) {
                    // Written sorted: element k of the record is the k-th in key order.
                    let vp = self.path_as(n, "__Encode");
                    let esize = self.c.fixed_size(of).unwrap_or(0);
                    Some(quote! {
                        let at: u64 = if pos == #rt::UNPLACED { #rt::UNPLACED } else { pos + #off };
                        let keys: ::std::vec::Vec<u64> = #keys;
                        for (k, &i) in #rt::placement::sorted_order(&keys).iter().enumerate() {
                            let ea = if at == #rt::UNPLACED { #rt::UNPLACED } else { at + k as u64 * #esize };
                            #vp::visit::<SEC, POST>(&self.#fid[i], w, ea)?;
                        }
                    })
                } else {
                    list_visit(of, 0).map(|l| {
                        quote! {
                            let at: u64 = if pos == #rt::UNPLACED { #rt::UNPLACED } else { pos + #off };
                            #l
                        }
                    })
                }
            }
            Type::Groups {
                of,
                groups,
                count,
                base,
            } => {
                // The groups' elements follow their (count, base) pairs.
                let Type::Named(n) = &**of else {
                    return Ok(TokenStream::new());
                };
                let vp = self.path_as(n, "__Encode");
                let esize = self.c.fixed_size(of).unwrap_or(0);
                let heads = groups
                    * (codec_schema::int_width(count).unwrap_or(1)
                        + codec_schema::int_width(base).unwrap_or(1));
                Some(quote! {
                    let at: u64 = if pos == #rt::UNPLACED { #rt::UNPLACED } else { pos + #off + #heads };
                    for (i, e) in self.#fid.iter().flatten().enumerate() {
                        let ea = if at == #rt::UNPLACED { #rt::UNPLACED } else { at + i as u64 * #esize };
                        #vp::visit::<SEC, POST>(e, w, ea)?;
                    }
                })
            }
            _ => None,
        };
        let step = match step {
            Some(st) if optional => Some(quote! { if let Some(v) = &self.#fid { #st } }),
            other => other,
        };
        Ok(match step {
            Some(step) => quote! {
                if const { matches!(SEC, #(#secs)|*) } { #step }
            },
            None => TokenStream::new(),
        })
    }

    /// `encode_unit`: the unit laid out on its own, then transformed.
    pub(crate) fn encode_unit_fn(&self, s: &codec_schema::StructDef) -> syn::Result<TokenStream> {
        let rt = RT();
        let Some(layout) = &s.layout else {
            return Ok(TokenStream::new());
        };
        let sections = self.c.unit_sections(s);
        let body = self.layout_body(s, &sections, layout.end_align)?;
        let ntypes = self.c.schema.types.len();
        let nsecs = self.c.all_sections().len();
        let transform = match (&layout.transform, self.hooks) {
            (Some(tr), Some(h)) => {
                let f = ident(&tr.encode);
                quote!(#h::#f(self, w.bytes_mut(), endian)?;)
            }
            (Some(tr), None) => {
                return Err(Gen::err(format!(
                "unit `{}` is transformed by glue `{}`: pass `hooks = path::to::glue` to schema!",
                s.name, tr.encode
            )))
            }
            _ => quote!(),
        };
        let vis = self.vis();
        Ok(self.impl_block(
            &s.name,
            "__EncodeUnit",
            quote! {
                /// Lays out the unit on its own (offsets from its start),
                /// applies its transform, and appends it to `parent`.
                #[allow(unused_mut)]
                #vis fn encode_unit(&self, parent: &mut #rt::Writer) -> #rt::EncodeResult<()> {
                    let v = self;
                    let endian = parent.endian();
                    let mut w = parent.take_unit_writer(endian, #ntypes, #nsecs);
                    let done = (|| -> #rt::EncodeResult<()> {
                        #body
                        #transform
                        Ok(())
                    })();
                    parent.put_unit(w.bytes());
                    parent.give_unit_writer(w);
                    done
                }
            },
        ))
    }

    /// A union whose tag comes first: written like a record.
    pub(crate) fn encode_tagged_union(&self, u: &codec_schema::UnionDef) -> TokenStream {
        let rt = RT();
        let vis = self.vis();
        let uname = &u.name;
        let wt = width_tokens(&u.tag);
        let arms = u.variants.iter().map(|v| {
            let vn = ident(&v.name);
            let tag = v.tag;
            let ty = self.rust_ty(&v.ty, &u.name, &v.name);
            let what = format!("{}::{}", u.name, v.name);
            let write = self.inline_write(&v.ty, quote!(v), &what);
            quote! {
                Self::#vn(v) => {
                    let v: &#ty = v;
                    w.put_uint(#wt, #tag, #uname)?;
                    #write
                }
            }
        });
        self.impl_block(
            &u.name,
            "__Encode",
            quote! {
                /// Writes the tag, then the payload.
                #[allow(unused_variables, unreachable_patterns)]
                #vis fn write_record(&self, w: &mut #rt::Writer) -> #rt::EncodeResult<()> {
                    let start = w.pos();
                    match self {
                        #(#arms)*
                        other => return Err(#rt::EncodeError::new(#uname, format!("{} does not exist in this variant", other.variant_name()))),
                    }
                    Ok(())
                }

                /// A self-tagged union places nothing.
                #[allow(unused_variables)]
                #vis fn visit<const SEC: usize, const POST: bool>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                    Ok(())
                }

                #[allow(unused_variables)]
                fn place_own<const SEC: usize>(&self, w: &mut #rt::Writer, pos: u64) -> #rt::EncodeResult<()> {
                    Ok(())
                }
            },
        )
    }
}
