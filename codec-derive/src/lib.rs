//! `codec_derive::schema!("path/to/format.ron", hooks = glue)` reads a RON
//! schema, asks `codec-schema` for the checked IR, and emits in place:
//!
//! - one plain Rust type per struct and union of the schema, with doc comments;
//! - `decode(&[u8])` and `encode(&Root)` for the whole file, and per-type
//!   `decode_at` / `write_record` / `visit` that they are built from;
//! - `view::open`: zero-copy views that read the records in place.
//!
//! The path is resolved against the invoking crate's manifest directory.
//! Schema mistakes become one `compile_error!` listing every mistake with
//! `file:line:col`. This crate only emits code: the semantics live in
//! `codec-schema`, the machinery in `codec-runtime`.

mod constructs;
mod decode;
mod encode;
mod inline;
mod layout;
mod names;
mod text_slots;
mod tree;
mod types;
mod view;

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use std::path::PathBuf;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Path, Token};

/// Arguments: the schema path, then optional `hooks = path::to::module`
/// and `serde` (the generated types derive `serde::Serialize`).
struct Args {
    path: LitStr,
    hooks: Option<Path>,
    serde: bool,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let path: LitStr = input.parse()?;
        let mut hooks = None;
        let mut serde = false;
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: syn::Ident = input.parse()?;
            if key == "serde" {
                serde = true;
                continue;
            }
            input.parse::<Token![=]>()?;
            if key == "hooks" {
                hooks = Some(input.parse()?);
            } else {
                return Err(syn::Error::new(
                    key.span(),
                    "unknown argument; expected `hooks = path::to::glue` or `serde`",
                ));
            }
        }
        Ok(Args { path, hooks, serde })
    }
}

/// Generates a codec from a RON schema file. See the crate docs.
#[proc_macro]
pub fn schema(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    match expand(&args) {
        Ok(ts) => ts.into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// The directory schema paths are relative to. Tests that build the macro in
/// a scratch crate (trybuild) point it at the real crate.
fn base_dir() -> PathBuf {
    std::env::var_os("CODEC_DERIVE_MANIFEST_DIR")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn expand(args: &Args) -> syn::Result<proc_macro2::TokenStream> {
    let rel = args.path.value();
    let full = base_dir().join(&rel);
    let checked = codec_schema::load(&full, &rel)
        .map_err(|d| syn::Error::new(args.path.span(), format!("schema errors:\n{d}")))?;
    let mistakes = invocation_mistakes(&checked, args);
    if !mistakes.items.is_empty() {
        return Err(syn::Error::new(
            args.path.span(),
            format!("schema errors:\n{mistakes}"),
        ));
    }
    let gen = Gen {
        c: &checked,
        family: &checked,
        variant: None,
        hooks: args.hooks.as_ref(),
        serde: args.serde,
    };
    let items = gen.all()?;
    let abs = full.canonicalize().unwrap_or(full);
    dump_generated(&checked.schema.name, &items);
    let abs = abs.to_string_lossy();
    Ok(quote! {
        /// The schema this module was generated from (also makes Cargo
        /// rebuild the crate when the file changes).
        pub const SCHEMA_SOURCE: &str = include_str!(#abs);
        #items
    })
}

/// With `CODEC_DERIVE_DUMP=dir` set at build time, the generated items are
/// also written to `dir/<schema>.rs` (one line; run rustfmt on it to read
/// it). For reading what the macro emits, not for building.
fn dump_generated(schema: &str, items: &proc_macro2::TokenStream) {
    if let Some(dir) = std::env::var_os("CODEC_DERIVE_DUMP") {
        let path = PathBuf::from(dir).join(format!("{schema}.rs"));
        // Best effort: a dump that cannot be written does not fail the build.
        let _ = std::fs::write(path, items.to_string());
    }
}

/// What the schema needs from the invocation: a hook section needs the glue
/// module. Reported like the checker's diagnostics, at the schema's items.
fn invocation_mistakes(c: &codec_schema::Checked, args: &Args) -> codec_schema::Diagnostics {
    use codec_schema::locate::Step;
    let mut items = constructs::hook_mistakes(c, args.hooks.is_some());
    items.extend(constructs::ungenerated(c));
    for (i, sec) in c.schema.sections.iter().enumerate() {
        if let codec_schema::Order::Hook { name, visits } = &sec.order {
            if args.hooks.is_none() {
                items.push(codec_schema::Diagnostic {
                    item: format!("sections/{}", sec.name),
                    pos: c.position(&[Step::from("sections"), Step::Index(i), Step::from("order")]),
                    message: format!(
                        "section `{}` is ordered by hook `{name}`: pass `hooks = path::to::glue` to schema!",
                        sec.name
                    ),
                    hint: Some(format!(
                        "the glue module's `fn {name}` yields the `{visits}` records in the order their targets are placed"
                    )),
                });
            }
        }
    }
    codec_schema::Diagnostics {
        file: c.file().to_owned(),
        items,
    }
}

/// Code generation over one checked schema.
pub(crate) struct Gen<'a> {
    /// The concrete schema code is generated for (one variant's, when the
    /// schema has variants).
    pub c: &'a codec_schema::Checked,
    /// The checked schema with all its variants (the types are generated
    /// once, from the schema as written).
    pub family: &'a codec_schema::Checked,
    /// Which variant `c` is; `None` for a schema without variants.
    pub variant: Option<usize>,
    pub hooks: Option<&'a Path>,
    /// Derive `serde::Serialize` on the generated types.
    pub serde: bool,
}

impl Gen<'_> {
    fn all(&self) -> syn::Result<proc_macro2::TokenStream> {
        let mut types = self.types();
        types.extend(self.tree_impls());
        types.extend(self.views());
        if !self.c.variants().is_empty() {
            return self.all_variants(types);
        }
        let decode = self.decode();
        let encode = self.encode()?;
        Ok(quote! { #types #decode #encode })
    }

    /// A schema with variants: shared types, one trait impl per type and
    /// variant, and `decode` / `encode` that take the variant.
    fn all_variants(
        &self,
        types: proc_macro2::TokenStream,
    ) -> syn::Result<proc_macro2::TokenStream> {
        let mut out = types;
        out.extend(self.variant_api());
        for (k, vc) in self.c.variants().iter().enumerate() {
            let g = self.for_variant(k, vc);
            out.extend(g.decode());
            out.extend(g.encode()?);
        }
        Ok(out)
    }

    /// The generator of variant `k`, whose concrete schema is `vc`.
    pub(crate) fn for_variant<'v>(&'v self, k: usize, vc: &'v codec_schema::Checked) -> Gen<'v> {
        Gen {
            c: vc,
            family: self.family,
            variant: Some(k),
            hooks: self.hooks,
            serde: self.serde,
        }
    }

    /// The byte order of the schema (or variant) code is generated for, as
    /// a constant: reads and writes of fixed-size numbers take it, so that
    /// the choice between the two orders is made when the code is compiled.
    /// The reader and writer are created with the same one.
    pub(crate) fn endian_const(&self) -> proc_macro2::TokenStream {
        endian_tokens(self.c.schema.endian)
    }

    pub(crate) fn err(msg: impl std::fmt::Display) -> syn::Error {
        syn::Error::new(Span::call_site(), msg.to_string())
    }
}

/// A byte order as the generated code names it (`::codec_runtime::Endian::Big`).
pub(crate) fn endian_tokens(e: codec_schema::Endian) -> proc_macro2::TokenStream {
    match e {
        codec_schema::Endian::Little => quote!(::codec_runtime::Endian::Little),
        codec_schema::Endian::Big => quote!(::codec_runtime::Endian::Big),
    }
}
