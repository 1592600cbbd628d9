//! Zero-copy views: the third back end beside decode and encode. For a
//! schema whose root can be viewed, emits `pub mod view` with one
//! `FooView<'s>` per viewable struct and union, `view::source` and
//! `view::open`. The reading itself (bounds, offsets, budget, depth, lists)
//! is `codec_runtime::view`'s; this file only sequences its calls.
//!
//! What can be viewed: records of numbers, bools, magics, bytes,
//! fixed-point numbers, arrays and inline records at fixed offsets, with at
//! most one string or string table at their end, or one inline counted
//! list followed by numbers, magics and one last counted list (of numbers,
//! records, or union payloads whose tags are the inline list); offsets
//! counted from the file, a fixed position, the record or a section, to
//! records, lists (counted by a sibling, by a count stored before or at
//! the target, or to a stored end), strings, arrays, unions whose tag is a
//! sibling field, and unions told apart by their payload's first bytes
//! (`peek`); indices into interned string tables, noted when the file is
//! opened; unions whose tag is a sibling or held by the list holding the
//! record, with payloads that are numbers, magics, indices or offsets;
//! bitfields; references; hash indices' heads; rows whose cells a union
//! reads; units laid out on their own (`{Unit}Unit` handles: the unit's
//! bytes after its transform, read in a source of their own). A schema
//! with variants gets one module per variant whose root can be viewed.
//! Anything else (pools, `Follows`, lists counted to the next target,
//! `Groups`, `Select` unions) leaves the schema (or the variant) without
//! views, and `view::VIEWABLE` lists nothing.

use crate::decode::opt;
use crate::names::ident;
use crate::Gen;
use codec_schema::{Base, Count, StructDef, Type, TypeDef, UnionDef};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

const RT: fn() -> TokenStream = || quote!(::codec_runtime);

/// The types that get a view, found as a greatest fixpoint: every type is
/// assumed viewable, and one that needs a type that is not is dropped,
/// until nothing changes (so recursive records stay viewable).
struct Viewable<'a> {
    g: &'a Gen<'a>,
    set: BTreeSet<String>,
}

impl<'a> Viewable<'a> {
    fn find(g: &'a Gen<'a>) -> Self {
        let mut v = Viewable {
            g,
            set: g
                .c
                .schema
                .types
                .iter()
                .map(|t| t.name().to_owned())
                .collect(),
        };
        loop {
            let drop: Vec<String> =
                g.c.schema
                    .types
                    .iter()
                    .filter(|t| v.set.contains(t.name()))
                    .filter(|t| match t {
                        TypeDef::Struct(s) => !v.struct_ok(s),
                        TypeDef::Union(u) => !v.union_ok(u),
                    })
                    .map(|t| t.name().to_owned())
                    .collect();
            if drop.is_empty() {
                return v;
            }
            if std::env::var_os("CODEC_VIEW_DEBUG").is_some() {
                eprintln!("views of {}: dropping {drop:?}", g.c.schema.name);
            }
            for n in drop {
                v.set.remove(&n);
            }
        }
    }

    fn has(&self, name: &str) -> bool {
        self.set.contains(name)
    }

    fn get_struct(&self, name: &str) -> Option<&'a StructDef> {
        match self.g.c.get(name) {
            Some(TypeDef::Struct(s)) if self.has(name) => Some(s),
            _ => None,
        }
    }

    fn union(&self, name: &str) -> Option<&'a UnionDef> {
        match self.g.c.get(name) {
            Some(TypeDef::Union(u)) if self.has(name) => Some(u),
            _ => None,
        }
    }

    /// Can `t` be a list element (a fixed-size value read without checks)?
    fn elem(&self, t: &Type) -> bool {
        match t {
            Type::U8
            | Type::I8
            | Type::U16
            | Type::I16
            | Type::U32
            | Type::I32
            | Type::U64
            | Type::I64
            | Type::F32
            | Type::F64 => true,
            Type::Named(n) => self.inline_record(n),
            Type::Ptr(p) => self.unit_link(p),
            _ => false,
        }
    }

    /// A unit: a record laid out on its own (`layout`), whose views read
    /// its bytes after its transform, in a source of their own.
    fn unit(&self, name: &str) -> bool {
        self.get_struct(name).is_some_and(|s| s.layout.is_some())
    }

    /// An offset to a unit, as every offset to it is stored (the unit's
    /// handle follows it): counted from the file or a fixed position.
    fn unit_link(&self, p: &codec_schema::Ptr) -> bool {
        matches!(&p.to, Type::Named(n) if self.unit(n) && same_link(unit_ptr(self.g, n), p))
            && !p.optional
            && matches!(p.base, Base::File | Base::Absolute(_))
            && self.followable(p)
    }

    /// A record that can stand inline (in a record or a list): fixed size
    /// and nothing to check when it is made.
    fn inline_record(&self, name: &str) -> bool {
        self.get_struct(name).is_some_and(|s| {
            self.g.c.fixed_size(&Type::Named(name.to_owned())).is_some()
                && !s.fields.iter().any(|f| matches!(f.ty, Type::Magic(_)))
        })
    }

    fn scalar(t: &Type) -> bool {
        matches!(
            t,
            Type::U8
                | Type::I8
                | Type::U16
                | Type::I16
                | Type::U24
                | Type::U32
                | Type::I32
                | Type::U64
                | Type::I64
                | Type::F32
                | Type::F64
                | Type::Bool8
                | Type::Bool32
        )
    }

    fn struct_ok(&self, s: &StructDef) -> bool {
        if !self.g.c.variants().is_empty() {
            return false;
        }
        (0..s.fields.len()).all(|i| self.field_ok(s, i) || self.skipped(s, i))
    }

    /// A field no accessor reads, which leaves the record viewable: at a
    /// fixed offset, of a fixed size in the record (an offset to what views
    /// cannot read, say), before any inline list. Its value is read by the
    /// record's `to_owned`; `view::SKIPPED` names it.
    fn skipped(&self, s: &StructDef, i: usize) -> bool {
        let f = &s.fields[i];
        if f.when.is_some() {
            return false;
        }
        // The record's last fields, from a fixed offset on, none of which
        // a view reads: the view's record ends before them.
        if self.trailing_skip(s).is_some_and(|t| i >= t) {
            return true;
        }
        let offsets = self.g.c.field_offsets(s);
        f.align.is_none_or(|a| a <= 1)
            && offsets[i].is_some()
            && self.g.c.fixed_size(&f.ty).is_some()
            && tail_list(self.g, s).is_none_or(|li| i < li)
    }

    /// Where the record's last run of fields no view reads starts, when it
    /// starts at a fixed offset.
    fn trailing_skip(&self, s: &StructDef) -> Option<usize> {
        let offsets = self.g.c.field_offsets(s);
        let n = s.fields.len();
        let mut start = None;
        for i in (0..n).rev() {
            if self.field_ok(s, i) {
                break;
            }
            if offsets[i].is_some() {
                start = Some(i);
            }
        }
        start
    }

    /// Can a view read field `i` of `s`?
    fn field_ok(&self, s: &StructDef, i: usize) -> bool {
        let offsets = self.g.c.field_offsets(s);
        let last = s.fields.len().saturating_sub(1);
        let tail = tail_list(self.g, s);
        let f = &s.fields[i];
        {
            if f.when.is_some() || f.external.is_some() {
                return false;
            }
            // A stored alignment places the record; the view reads the
            // list where it lies (checking the alignment on opening).
            if f.align_by.is_some() && tail != Some(i) {
                return false;
            }
            // Zeros before a field: only for the variable field after an
            // inline list, whose start is found from the list's end.
            if f.align.is_some_and(|a| a > 1) && !(tail.is_some_and(|li| i > li) && i == last) {
                return false;
            }
            if matches!(f.ty, Type::SharesEqual { .. }) {
                return true;
            }
            // After an inline list: numbers and magics, found from its end,
            // and last, one list counted by a sibling.
            if let Some(li) = tail.filter(|&li| i > li) {
                // Found from the list's end, which a view must read.
                if !self.field_ok(s, li) {
                    return false;
                }
                return match &f.ty {
                    t if Self::scalar(t) || matches!(t, Type::Magic(_)) => true,
                    Type::List { of, count } if i == last => {
                        let counted =
                            matches!(&**count, Count::Field(c) if self.sibling(s, &offsets, c));
                        counted
                            && match &**of {
                                Type::Switch { union, tag } => {
                                    self.union(union).is_some() && s.fields[li].name == *tag
                                }
                                of => self.elem(of),
                            }
                    }
                    _ => false,
                };
            }
            let Some(_) = offsets[i] else { return false };
            let fixed = self.g.c.fixed_size(&f.ty).is_some();
            match &f.ty {
                Type::List { of, count } if tail == Some(i) => {
                    self.elem(of)
                        && matches!(&**count, Count::Field(c) if self.sibling(s, &offsets, c))
                }
                // Views read UTF-8 text in place; other strings are left
                // to decode (a view of them would read them as UTF-8).
                Type::CString {
                    encoding: codec_schema::Encoding::Utf8,
                    size,
                    ..
                } => i == last || size.is_some(),
                Type::Table { count, offsets: w } => {
                    i == last
                        && self.sibling(s, &offsets, count)
                        && codec_schema::int_width(w).is_some()
                }
                Type::Index { table, width } => {
                    self.g.c.interned_tables().contains(&table.as_str())
                        && codec_schema::int_width(width).is_some()
                }
                Type::Str { pool, width } => {
                    pool_field(self.g, pool).is_some() && codec_schema::int_width(width).is_some()
                }
                Type::Switch { union, tag } => {
                    self.union(union).is_some()
                        && (codec_schema::held_tag_list(tag).is_some()
                            || self.sibling(s, &offsets, tag))
                }
                _ if !fixed => false,
                t if Self::scalar(t) => true,
                Type::Magic(_) | Type::Bytes(_) => true,
                Type::Fixed { raw, .. } => Self::scalar(raw),
                Type::Array { of, .. } => self.elem(of),
                Type::Named(n) => self.inline_record(n),
                Type::Ptr(p) => self.ptr_ok(s, &offsets, p),
                // Bit ranges held as strings are looked up by decode.
                Type::Bits { fields, .. } => fields.iter().all(|b| b.str.is_none()),
                Type::Ref {
                    width, base, to, ..
                } => {
                    self.get_struct(to).is_some()
                        && codec_schema::int_width(width).is_some()
                        && matches!(
                            base,
                            Base::File | Base::Absolute(_) | Base::Record | Base::Unit
                        )
                }
                _ => false,
            }
        }
    }

    /// A sibling integer field at a fixed offset (a count or a tag).
    fn sibling(&self, s: &StructDef, offsets: &[Option<u64>], name: &str) -> bool {
        s.fields
            .iter()
            .zip(offsets)
            .any(|(f, o)| f.name == name && o.is_some() && codec_schema::int_width(&f.ty).is_some())
    }

    fn ptr_ok(&self, s: &StructDef, offsets: &[Option<u64>], p: &codec_schema::Ptr) -> bool {
        if !self.followable(p) {
            return false;
        }
        match &p.to {
            Type::Named(n) if self.unit(n) => same_link(unit_ptr(self.g, n), p),
            Type::Named(n) => self.get_struct(n).is_some() || self.peek_union(n),
            // The heads of a hash index: offsets, as many as a sibling says.
            Type::Hash { slots, width, .. } => {
                self.sibling(s, offsets, slots) && codec_schema::int_width(width).is_some()
            }
            // Rows as long as the sibling storing their stride, as many as
            // a sibling says, their cells a viewable union.
            Type::Rows { cells, count, .. } => {
                self.union(cells).is_some()
                    && matches!(&**count, Count::Field(c) if self.sibling(s, offsets, c))
                    && stride_field(s, &p_field_name(s, p))
                        .is_some_and(|g| self.sibling(s, offsets, &g.name))
            }
            Type::List { of, count } => {
                self.elem(of)
                    && match &**count {
                        Count::Field(c) | Count::End(c) => self.sibling(s, offsets, c),
                        Count::Before(w) | Count::Prefix(w) => codec_schema::int_width(w).is_some(),
                        _ => false,
                    }
            }
            Type::Array { of, .. } => self.elem(of),
            Type::Switch { union, tag } => {
                self.union(union).is_some() && self.sibling(s, offsets, tag)
            }
            Type::CString { encoding, .. } => *encoding == codec_schema::Encoding::Utf8,
            // A length-prefixed string of UTF-8 bytes (a pool's entry).
            Type::PString { encoding, len, .. } => {
                *encoding == codec_schema::Encoding::Utf8 && codec_schema::int_width(len).is_some()
            }
            _ => false,
        }
    }

    /// Can an offset like `p` be followed by a view: an integer counted
    /// from the file, a fixed position, the record, or a section whose
    /// start opening finds; no alignment but a kept one (the writer's).
    fn followable(&self, p: &codec_schema::Ptr) -> bool {
        let base = match &p.base {
            // A unit's views read it in a source of its own, which starts
            // at the unit (and outside a unit, the unit is the file).
            Base::File | Base::Absolute(_) | Base::Record | Base::Unit => true,
            // Set when the file is opened: a stored start, or the first
            // section after the root record.
            Base::Section(name) => self.g.c.section_id(name).is_some_and(|id| {
                id < codec_runtime_max_sections() && section_start_known(self.g, name)
            }),
        };
        // A kept alignment matters to the writer only.
        let align_ok = matches!(p.align, None | Some(codec_schema::KeptAlign::Kept { .. }));
        base && align_ok && codec_schema::int_width(&p.width).is_some()
    }

    /// A union told apart by a tag at its payload's start (`peek`), whose
    /// variants are all viewable records.
    fn peek_union(&self, name: &str) -> bool {
        self.union(name).is_some_and(|u| u.peek || u.inline_tag)
    }

    fn union_ok(&self, u: &UnionDef) -> bool {
        if u.peek || u.inline_tag {
            return codec_schema::int_width(&u.tag).is_some()
                && u.variants
                    .iter()
                    .all(|v| matches!(&v.ty, Type::Named(n) if self.get_struct(n).is_some()));
        }
        u.variants.iter().all(|v| self.payload_ok(&v.ty))
    }

    fn payload_ok(&self, t: &Type) -> bool {
        match t {
            t if Self::scalar(t) => true,
            Type::Bytes(_) => true,
            Type::Array { of, .. } => self.elem(of),
            Type::Fixed { raw, .. } => Self::scalar(raw),
            Type::CString { encoding, .. } => *encoding == codec_schema::Encoding::Utf8,
            Type::List { of, count } => {
                self.elem(of)
                    && matches!(&**count, Count::Before(w) | Count::Prefix(w)
                        if codec_schema::int_width(w).is_some())
            }
            Type::Named(n) => self.get_struct(n).is_some(),
            Type::Magic(_) => true,
            Type::Index { table, width } => {
                self.g.c.interned_tables().contains(&table.as_str())
                    && codec_schema::int_width(width).is_some()
            }
            // A word that is an offset: counted from the file (or the
            // unit), a fixed position or a section (a union has no record
            // of its own).
            Type::Ptr(p) => {
                !p.optional
                    && matches!(
                        p.base,
                        Base::File | Base::Absolute(_) | Base::Section(_) | Base::Unit
                    )
                    && self.followable(p)
                    && match &p.to {
                        Type::Named(n) => self.get_struct(n).is_some() || self.peek_union(n),
                        t if Self::scalar(t) => self.g.c.fixed_size(t).is_some(),
                        to => !matches!(to, Type::Ptr(_)) && self.payload_ok(to),
                    }
            }
            _ => false,
        }
    }
}

/// The methods every record view has: a field of one of these names gets
/// its accessor as `{name}_field`.
const VIEW_METHODS: [&str; 9] = [
    "at",
    "bytes",
    "to_owned",
    "view_at",
    "open",
    "list_end",
    "cx_at",
    "from_bytes",
    "with_held_tag",
];

/// The accessor of field `name`.
fn accessor(name: &str) -> proc_macro2::Ident {
    if VIEW_METHODS.contains(&name) {
        format_ident!("{}_field", name)
    } else {
        ident(name)
    }
}

/// The schema-module function through which views call hash glue `hook`.
fn hash_hook_name(hook: &str) -> proc_macro2::Ident {
    format_ident!("__view_hash_{}", hook)
}

/// The handle of unit `name`: the offset to it, followed when asked for.
fn unit_name(name: &str) -> proc_macro2::Ident {
    format_ident!("{}Unit", name)
}

fn view_name(name: &str) -> proc_macro2::Ident {
    format_ident!("{}View", name)
}

/// In a view's `view_at`: refuses the bytes `found` (read at `pos`) unless
/// they are magic `m` of field `fname`, with decode's error.
fn magic_check(m: &str, fname: &str, pos: TokenStream) -> TokenStream {
    let lit = proc_macro2::Literal::byte_string(&codec_schema::magic_bytes(m));
    quote! {
        if found != #lit {
            return Err(cx.locate(DecodeError::new(#pos, ErrorKind::BadMagic {
                expected: #lit.to_vec(), found: found.to_vec() }).in_field(#fname)));
        }
    }
}

/// A variant's module name: `Little` → `little`, `V1Le` → `v1_le`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// `codec_runtime::view::MAX_VIEW_SECTIONS`, which a section id must stay under.
fn codec_runtime_max_sections() -> usize {
    32
}

/// The index of a struct's inline list field whose length varies (counted
/// by a sibling), when there is exactly one and it is not the last field's
/// string: the fields after it are found from its end.
fn tail_list(g: &Gen<'_>, s: &StructDef) -> Option<usize> {
    let offsets = g.c.field_offsets(s);
    let lists: Vec<usize> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(i, f)| {
            offsets[*i].is_some()
                && g.c.fixed_size(&f.ty).is_none()
                && matches!(f.ty, Type::List { .. })
        })
        .map(|(i, _)| i)
        .collect();
    match lists.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Is where section `name` starts known when the file is opened: a root
/// field stores it (`derive: SectionStart`), or it is the first section,
/// right after the root record?
fn section_start_known(g: &Gen<'_>, name: &str) -> bool {
    let root = g.c.root();
    let stored = root
        .fields
        .iter()
        .any(|f| matches!(&f.derive, Some(codec_schema::Derive::SectionStart(sn)) if sn == name));
    let first =
        g.c.first_section_parts(root)
            .is_some_and(|(id, _, _)| g.c.section_id(name) == Some(id));
    stored || first
}

/// The Rust type an element of type `t` is viewed as.
fn elem_ty(t: &Type) -> TokenStream {
    match t {
        Type::Named(n) => {
            let v = view_name(n);
            quote!(#v<'s>)
        }
        Type::Ptr(p) => match &p.to {
            Type::Named(n) => {
                let u = unit_name(n);
                quote!(#u<'s>)
            }
            _ => quote!(u64),
        },
        Type::U8 => quote!(u8),
        Type::I8 => quote!(i8),
        Type::U16 => quote!(u16),
        Type::I16 => quote!(i16),
        Type::U32 => quote!(u32),
        Type::I32 => quote!(i32),
        Type::U64 => quote!(u64),
        Type::I64 => quote!(i64),
        Type::F32 => quote!(f32),
        _ => quote!(f64),
    }
}

/// The `codec_runtime::view::at` reader of a scalar type, and its Rust type.
fn scalar_at(t: &Type) -> (proc_macro2::Ident, TokenStream) {
    let (f, ty) = match t {
        Type::U8 | Type::Bool8 => ("u8", quote!(u8)),
        Type::I8 => ("i8", quote!(i8)),
        Type::U16 => ("u16", quote!(u16)),
        Type::I16 => ("i16", quote!(i16)),
        Type::U24 => ("u24", quote!(u32)),
        Type::U32 | Type::Bool32 => ("u32", quote!(u32)),
        Type::I32 => ("i32", quote!(i32)),
        Type::U64 => ("u64", quote!(u64)),
        Type::I64 => ("i64", quote!(i64)),
        Type::F32 => ("f32", quote!(f32)),
        _ => ("f64", quote!(f64)),
    };
    (format_ident!("{}", f), ty)
}

fn width_of(t: &Type) -> u64 {
    codec_schema::int_width(t).unwrap_or(4)
}

/// The one way offsets to unit `name` are stored, when every offset to it
/// is stored alike: its handle (`{name}Unit`) follows them all the same.
fn unit_ptr<'g>(g: &'g Gen<'_>, name: &str) -> Option<&'g codec_schema::Ptr> {
    fn ptrs<'a>(t: &'a Type, name: &str, out: &mut Vec<&'a codec_schema::Ptr>) {
        match t {
            Type::Ptr(p) => {
                if matches!(&p.to, Type::Named(n) if n == name) {
                    out.push(p);
                }
                ptrs(&p.to, name, out);
            }
            Type::Array { of, .. } | Type::List { of, .. } => ptrs(of, name, out),
            Type::Follows { to, .. } => ptrs(to, name, out),
            _ => {}
        }
    }
    let mut all = Vec::new();
    for t in &g.c.schema.types {
        match t {
            TypeDef::Struct(s) => s.fields.iter().for_each(|f| ptrs(&f.ty, name, &mut all)),
            TypeDef::Union(u) => u.variants.iter().for_each(|v| ptrs(&v.ty, name, &mut all)),
        }
    }
    let first = *all.first()?;
    all.iter()
        .all(|p| p.width == first.width && p.base == first.base && p.scale == first.scale)
        .then_some(first)
}

/// Is `p` stored as `link` is (width, base and scale)?
fn same_link(link: Option<&codec_schema::Ptr>, p: &codec_schema::Ptr) -> bool {
    link.is_some_and(|u| u.width == p.width && u.base == p.base && u.scale == p.scale)
}

/// The root's field that locates string pool `pool` (an offset to a
/// `Pool` placed in it, at a fixed position, counted from the file or a
/// fixed position), and the field's offset: opening a file notes where the
/// pool starts, as decode does before reading the root.
fn pool_field<'g>(g: &'g Gen<'_>, pool: &str) -> Option<(&'g codec_schema::Ptr, u64)> {
    let root = g.c.root();
    let offsets = g.c.field_offsets(root);
    root.fields
        .iter()
        .zip(offsets)
        .find_map(|(f, o)| match &f.ty {
            Type::Ptr(p)
                if matches!(p.to, Type::Pool {})
                    && p.section.as_deref() == Some(pool)
                    && matches!(p.base, Base::File | Base::Absolute(_))
                    && g.c
                        .section_id(pool)
                        .is_some_and(|id| id < codec_runtime_max_sections()) =>
            {
                Some((&**p, o?))
            }
            _ => None,
        })
}

/// The name of the field of `s` holding offset `p`.
fn p_field_name(s: &StructDef, p: &codec_schema::Ptr) -> String {
    s.fields
        .iter()
        .find(|f| matches!(&f.ty, Type::Ptr(q) if std::ptr::eq(&**q, p)))
        .map(|f| f.name.clone())
        .unwrap_or_default()
}

/// The sibling storing the stride of the rows field `rows` (`derive:
/// Stride("rows")`).
fn stride_field<'s>(s: &'s StructDef, rows: &str) -> Option<&'s codec_schema::Field> {
    s.fields
        .iter()
        .find(|g| g.derive == Some(codec_schema::Derive::Stride(rows.to_owned())))
}

impl Gen<'_> {
    /// The `view` module, or nothing when the root cannot be viewed. A
    /// schema with variants gets one module per variant inside it
    /// (`view::little`, `view::big`), each reading its variant's layout
    /// and byte order.
    pub(crate) fn views(&self) -> TokenStream {
        let none = quote! {
            /// Zero-copy views: this schema uses constructs that views
            /// do not read yet (see `codec_runtime::view`).
            pub mod view {
                /// The types that have a view: none for this schema.
                pub const VIEWABLE: &[&str] = &[];
            }
        };
        let hash_hooks = self.hash_hooks();
        if self.c.variants().is_empty() {
            return match self.view_items() {
                Some((names, items)) => quote! {
                    #hash_hooks
                    /// Zero-copy views over a file's bytes: one `FooView<'s>` per
                    /// struct and union of the schema. See `codec_runtime::view`.
                    #[allow(clippy::needless_lifetimes, clippy::identity_op, clippy::erasing_op)]
                    pub mod view {
                        /// The types that have a view.
                        pub const VIEWABLE: &[&str] = &[#(#names),*];
                        #items
                    }
                },
                None => none,
            };
        }
        let mut modules = TokenStream::new();
        let mut common: Option<Vec<String>> = None;
        let mut with_views = Vec::new();
        for (k, vc) in self.c.variants().iter().enumerate() {
            let g = self.for_variant(k, vc);
            // A variant whose root cannot be viewed gets no module; the
            // others still do.
            let Some((names, items)) = g.view_items() else {
                continue;
            };
            common = Some(match common {
                None => names.clone(),
                Some(c) => c.into_iter().filter(|n| names.contains(n)).collect(),
            });
            let vname = vc.variant_name().unwrap_or_default();
            let module = format_ident!("{}", snake(vname));
            with_views.push(vname.to_owned());
            let doc = format!("Views of the `{vname}` variant's files.");
            modules.extend(quote! {
                #[doc = #doc]
                pub mod #module {
                    /// The types that have a view in this variant.
                    pub const VIEWABLE: &[&str] = &[#(#names),*];
                    #items
                }
            });
        }
        if with_views.is_empty() {
            return none;
        }
        let names = common.unwrap_or_default();
        quote! {
            /// Zero-copy views over a file's bytes, one module per variant
            /// of the schema (its layout and byte order). See
            /// `codec_runtime::view`.
            #hash_hooks
            #[allow(clippy::needless_lifetimes, clippy::identity_op, clippy::erasing_op)]
            pub mod view {
                /// The types that have a view in every variant that has views.
                pub const VIEWABLE: &[&str] = &[#(#names),*];
                /// The variants that have views (a module each).
                pub const VARIANTS: &[&str] = &[#(#with_views),*];
                #modules
            }
        }
    }

    /// The path from a view module to the generated module's item `name`.
    fn up(&self, name: TokenStream) -> TokenStream {
        match self.variant {
            None => quote!(super::#name),
            Some(_) => quote!(super::super::#name),
        }
    }

    /// The viewable types' names and their views, or `None` when the root
    /// cannot be viewed.
    fn view_items(&self) -> Option<(Vec<String>, TokenStream)> {
        let rt = RT();
        let v = Viewable::find(self);
        if !v.has(&self.c.schema.root) {
            return None;
        }
        let mut items = TokenStream::new();
        let mut names = Vec::new();
        let mut skipped = Vec::new();
        for t in &self.c.schema.types {
            if !v.has(t.name()) {
                continue;
            }
            names.push(t.name().to_owned());
            if let TypeDef::Struct(s) = t {
                for (i, f) in s.fields.iter().enumerate() {
                    if !v.field_ok(s, i) {
                        skipped.push(format!("{}.{}", s.name, f.name));
                    }
                }
            }
            items.extend(match t {
                TypeDef::Struct(s) => self.struct_view(&v, s),
                TypeDef::Union(u) => self.union_view(&v, u),
            });
        }
        let root = view_name(&self.c.schema.root);
        let root_name = &self.c.schema.root;
        let endian = self.endian_const();
        let sections = self.open_sections();
        Some((
            names,
            quote! {
                /// The fields of viewable records that no accessor reads (their
                /// constructs have no view yet): `to_owned` reads them.
                pub const SKIPPED: &[&str] = &[#(#skipped),*];

                #[allow(unused_imports)]
                use #rt::view::{at, ListView, ViewCx, ViewElem, ViewSource, ViewStr};
                #[allow(unused_imports)]
                use #rt::{DecodeError, DecodeResult, ErrorKind, PathSeg};

                /// The source the views of `data` read, with the default limits.
                pub fn source(data: &[u8]) -> ViewSource<'_> {
                    ViewSource::new(data, #endian, #rt::Limits::default())
                }

                /// Opens a file: checks the root record only (and notes
                /// where the sections that offsets count from start).
                pub fn open<'s>(source: &'s ViewSource<'s>) -> DecodeResult<#root<'s>> {
                    let root = #root::view_at(source.cx(), 0).map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#root_name))))?;
                    let cx = source.cx();
                    let _ = &cx;
                    #sections
                    Ok(root)
                }

                #items
            },
        ))
    }

    /// Statements in `open` noting where the sections that offsets count
    /// from start: a root field storing it (`derive: SectionStart`), or the
    /// first section, after the root record (what decode notes).
    fn open_sections(&self) -> TokenStream {
        let rt = RT();
        let root = self.c.root();
        let mut out = TokenStream::new();
        let mut stored = Vec::new();
        for f in &root.fields {
            if let Some(codec_schema::Derive::SectionStart(sn)) = &f.derive {
                let Some(id) = self.c.section_id(sn) else {
                    continue;
                };
                let fid = accessor(&f.name);
                stored.push(id);
                out.extend(quote!(cx.set_section_start(#id, root.#fid() as u64);));
            }
        }
        // The string pools the root locates, for the strings in them.
        let mut pools: Vec<&str> = Vec::new();
        for f in &root.fields {
            if let Type::Ptr(p) = &f.ty {
                if let (Type::Pool {}, Some(sec)) = (&p.to, p.section.as_deref()) {
                    pools.push(sec);
                }
            }
        }
        for pool in pools {
            let Some((p, off)) = pool_field(self, pool) else {
                continue;
            };
            let id = self.c.section_id(pool).unwrap_or(0);
            let (read, _) = scalar_at(&p.width);
            let e = self.endian_const();
            let base = self.base_tokens(&p.base, None, |_| quote!(0u64));
            let scale = p.scale;
            let offu = off as usize;
            // Decode reports a pool it cannot locate at each string read
            // from it; so does a view.
            out.extend(quote! {
                let raw = at::#read(root.bytes(), #offu, #e) as u64;
                if let Ok(t) = cx.target(#off, #base, raw, #scale) {
                    cx.set_section_start(#id, t);
                }
            });
        }
        // The interned string tables, for the indices into them.
        for f in &root.fields {
            let (Some(codec_schema::Derive::Interned), Type::Ptr(p)) = (&f.derive, &f.ty) else {
                continue;
            };
            let Type::Named(tn) = &p.to else { continue };
            let Some(body) = self.table_field(tn) else {
                continue;
            };
            let body = accessor(&body.to_string());
            let fid = accessor(&f.name);
            let id = self.c.table_id(&f.name);
            out.extend(if p.optional {
                quote! {
                    if let Some(t) = root.#fid()? {
                        cx.set_table(#id, &t.#body()?);
                    }
                }
            } else {
                quote!(cx.set_table(#id, &root.#fid()?.#body()?);)
            });
        }
        if let Some((id, parts, align)) = self.c.first_section_parts(root) {
            if !stored.contains(&id) {
                let parts = parts.iter().map(|p| match *p {
                    codec_schema::RootPart::Fixed(n) => quote!(#rt::placement::RootPart::Fixed(#n)),
                    codec_schema::RootPart::Counted { count_at, ref width, elem } => {
                        let wt = crate::names::width_tokens(width);
                        quote!(#rt::placement::RootPart::Counted { count_at: #count_at, width: #wt, elem: #elem })
                    }
                });
                out.extend(quote! {
                    cx.set_section_start(#id, cx.first_section_start(0, &[#(#parts),*], #align));
                });
            }
        }
        out
    }

    fn struct_view(&self, v: &Viewable<'_>, s: &StructDef) -> TokenStream {
        let rt = RT();
        let name = view_name(&s.name);
        let owned = ident(&s.name);
        let sname = &s.name;
        let offsets = self.c.field_offsets(s);
        // The fixed part: everything before a trailing string.
        let prefix: u64 = s
            .fields
            .iter()
            .zip(&offsets)
            .filter_map(|(f, o)| Some(o.unwrap_or(0) + self.c.fixed_size(&f.ty)?))
            .max()
            .unwrap_or(0);
        let mut accessors = TokenStream::new();
        let mut list_end = TokenStream::new();
        let mut checks = TokenStream::new();
        let mut debug = TokenStream::new();
        let e = self.endian_const();
        // An inline list a view cannot read is skipped with what follows.
        let tail = tail_list(self, s).filter(|&li| v.field_ok(s, li));
        // Past an inline list: each field's distance from the list's end.
        let mut after_list: u64 = 0;
        for (i, (f, off)) in s.fields.iter().zip(&offsets).enumerate() {
            let off = off.unwrap_or(0);
            let offu = off as usize;
            let fname = &f.name;
            let fid = accessor(fname);
            let doc = if f.doc.is_empty() {
                format!("`{fname}`")
            } else {
                f.doc.clone()
            };
            let located = quote!(|e: DecodeError| e.in_field(#fname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))));
            if let Some(li) = tail.filter(|&li| i > li) {
                let _ = li;
                let rel = after_list;
                let n = self.c.fixed_size(&f.ty).unwrap_or(0);
                after_list += n;
                if let Type::List { of, count } = &f.ty {
                    accessors.extend(self.list_after_list(s, &offsets, f, of, count, rel, &doc));
                    continue;
                }
                match &f.ty {
                    Type::Magic(m) => {
                        let n = codec_schema::magic_bytes(m).len();
                        let check = magic_check(m, fname, quote!(pos));
                        checks.extend(quote! {
                            {
                                let pos = Self::list_end(cx, at, rec)? + #rel;
                                let found = cx.record(pos, #n as u64).map_err(|e| e.in_field(#fname))?;
                                #check
                            }
                        });
                    }
                    t => {
                        let (read, ty) = scalar_at(t);
                        accessors.extend(quote! {
                            #[doc = #doc]
                            #[doc = ""]
                            #[doc = "It lies after a list, so reading it can fail."]
                            #[inline]
                            pub fn #fid(&self) -> DecodeResult<#ty> {
                                let pos = Self::list_end(self.cx, self.at, self.rec)? + #rel;
                                let b = self.cx.record(pos, #n).map_err(#located)?;
                                Ok(at::#read(b, 0, #e))
                            }
                        });
                    }
                }
                continue;
            }
            // A field views cannot read: no accessor (see `view::SKIPPED`).
            if !v.field_ok(s, i) {
                continue;
            }
            match &f.ty {
                Type::List { of, count } if tail == Some(i) => {
                    let ety = elem_ty(of);
                    let esize = self.c.fixed_size(of).unwrap_or(1);
                    let Count::Field(c) = &**count else { continue };
                    let (ci, cf) = s
                        .fields
                        .iter()
                        .enumerate()
                        .find(|(_, g)| &g.name == c)
                        .expect("checked by Viewable::sibling");
                    let co = offsets[ci].unwrap_or(0) as usize;
                    let (cread, _) = scalar_at(&cf.ty);
                    match self.held_tags_field(s, f) {
                        // Elements whose tags are stored after them: each
                        // is given its tag as it is read.
                        Some(tf) => {
                            let Type::List { of: tag_ty, .. } = &tf.ty else {
                                continue;
                            };
                            let tw = width_of(tag_ty);
                            let tname = &tf.name;
                            let tags_at = match tf.align.filter(|&a| a > 1) {
                                Some(a) => {
                                    quote!(self.at + (#off + n * #esize).next_multiple_of(#a))
                                }
                                None => quote!(self.at + #off + n * #esize),
                            };
                            accessors.extend(quote! {
                                #[doc = #doc]
                                #[doc = ""]
                                #[doc = "Each element is given its tag, stored after the list."]
                                #[inline]
                                pub fn #fid(&self) -> DecodeResult<#rt::view::HeldListView<'s, #ety>> {
                                    let n = at::#cread(self.rec, #co, #e) as u64;
                                    let list = self.cx.list(self.at + #off, self.at + #off, n).map_err(#located)?;
                                    self.cx
                                        .held_list(self.at + #off, list, #tags_at, #tw)
                                        .map_err(|e| e.in_field(#tname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                                }
                            });
                        }
                        None => accessors.extend(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #fid(&self) -> DecodeResult<ListView<'s, #ety>> {
                                let n = at::#cread(self.rec, #co, #e) as u64;
                                self.cx.list(self.at + #off, self.at + #off, n).map_err(#located)
                            }
                        }),
                    }
                    list_end.extend(quote! {
                        /// Where the inline list ends (the fields after it start there).
                        #[inline]
                        fn list_end(cx: ViewCx<'s>, at: u64, rec: &'s [u8]) -> DecodeResult<u64> {
                            let n = at::#cread(rec, #co, #e) as u64;
                            cx.list::<#ety>(at + #off, at + #off, n)
                                .map(|_| at + #off + n * #esize)
                                .map_err(|e| e.in_field(#fname))
                        }
                    });
                    continue;
                }
                _ => {}
            }
            match &f.ty {
                Type::Magic(m) => {
                    let n = codec_schema::magic_bytes(m).len();
                    let check = magic_check(m, fname, quote!(at + #off));
                    checks.extend(quote! {
                        let found = at::bytes(rec, #offu, #n);
                        #check
                    });
                }
                t @ (Type::Bool8 | Type::Bool32) => {
                    let (read, _) = scalar_at(t);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<bool> {
                            let raw = at::#read(self.rec, #offu, #e) as u64;
                            self.cx.bool_from(self.at + #off, raw).map_err(#located)
                        }
                    });
                }
                t if Viewable::scalar(t) => {
                    let (read, ty) = scalar_at(t);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> #ty { at::#read(self.rec, #offu, #e) }
                    });
                    debug.extend(quote!(d.field(#fname, &self.#fid());));
                }
                Type::Fixed { raw, .. } => {
                    let (read, ty) = scalar_at(raw);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[doc = ""]
                        #[doc = "The raw fixed-point integer."]
                        #[inline]
                        pub fn #fid(&self) -> #ty { at::#read(self.rec, #offu, #e) }
                    });
                }
                Type::Bytes(n) => {
                    let n = *n as usize;
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> &'s [u8] { at::bytes(self.rec, #offu, #n) }
                    });
                }
                Type::Array { of, len } => {
                    let ety = elem_ty(of);
                    let n = (self.c.fixed_size(of).unwrap_or(0) * len) as usize;
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> ListView<'s, #ety> {
                            ListView::new(self.cx, self.at + #off, at::bytes(self.rec, #offu, #n))
                        }
                    });
                }
                Type::Named(n) => {
                    let nv = view_name(n);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> #nv<'s> {
                            #nv { cx: self.cx, at: self.at + #off, rec: at::rest(self.rec, #offu) }
                        }
                    });
                }
                Type::CString {
                    max,
                    encoding: codec_schema::Encoding::Utf8,
                    size,
                    ..
                } => {
                    let max = opt(max.or(*size));
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<ViewStr<'s>> {
                            self.cx.str(self.at + #off, #max).map_err(#located)
                        }
                    });
                }
                Type::Ptr(p) => {
                    accessors.extend(self.ptr_accessor(v, s, &offsets, f, off, p, &doc));
                    if matches!(p.to, Type::Hash { .. }) {
                        accessors.extend(self.hash_find_accessor(v, s, &offsets, f, off, p));
                    }
                }
                Type::Bits { word, .. } => {
                    let (read, _) = scalar_at(word);
                    let bname = crate::names::bits_struct(&s.name, fname);
                    let bty = self.up(quote!(#bname));
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> #bty {
                            #bty::from_word(at::#read(self.rec, #offu, #e) as u64)
                        }
                    });
                }
                Type::Ref {
                    width,
                    base,
                    scale,
                    to,
                } => {
                    let (read, _) = scalar_at(width);
                    let nv = view_name(to);
                    let base = self.base_tokens(base, Some(quote!(self.at)), |_| quote!(0u64));
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[doc = ""]
                        #[doc = "The record it refers to, viewed where it lies."]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<#nv<'s>> {
                            let raw = at::#read(self.rec, #offu, #e) as u64;
                            let field_pos = self.at + #off;
                            ::codec_runtime::run_inline(#[inline(always)] || -> DecodeResult<#nv<'s>> {
                                let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, #nv::SIZE)?;
                                #nv::view_at(cx, t)
                            })
                            .map_err(#located)
                        }
                    });
                }
                Type::Index { table, width } => {
                    let (read, _) = scalar_at(width);
                    let id = self.c.table_id(table);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[doc = ""]
                        #[doc = "Looked up in the table the file's opening noted."]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<ViewStr<'s>> {
                            let i = at::#read(self.rec, #offu, #e) as u64;
                            self.cx.interned(#id, i, self.at + #off, #table).map_err(#located)
                        }
                    });
                }
                Type::Str { pool, width } => {
                    let (read, _) = scalar_at(width);
                    let id = self.c.section_id(pool).unwrap_or(0);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[doc = ""]
                        #[doc = "Read in the string pool the file's opening noted."]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<ViewStr<'s>> {
                            let raw = at::#read(self.rec, #offu, #e) as u64;
                            self.cx.pool_str(#id, self.at + #off, raw).map_err(#located)
                        }
                    });
                }
                Type::Table { count, offsets: w } => {
                    let (ci, cf) = s
                        .fields
                        .iter()
                        .enumerate()
                        .find(|(_, g)| &g.name == count)
                        .expect("checked by Viewable::sibling");
                    let co = offsets[ci].unwrap_or(0) as usize;
                    let (cread, _) = scalar_at(&cf.ty);
                    let wt = crate::names::width_tokens(w);
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #fid(&self) -> DecodeResult<#rt::view::TableView<'s>> {
                            let n = at::#cread(self.rec, #co, #e) as u64;
                            self.cx.table(self.at, self.at + #off, n, #wt).map_err(#located)
                        }
                    });
                }
                Type::Switch { union, tag } => {
                    let uv = view_name(union);
                    let (tag, tag_pos) = match codec_schema::held_tag_list(tag) {
                        Some(_) => (quote!(self.held.0), quote!(self.held.1)),
                        None => {
                            let (ti, tf) = s
                                .fields
                                .iter()
                                .enumerate()
                                .find(|(_, g)| &g.name == tag)
                                .expect("checked by Viewable::sibling");
                            let to = offsets[ti].unwrap_or(0);
                            let (tread, _) = scalar_at(&tf.ty);
                            let tou = to as usize;
                            (
                                quote!((at::#tread(self.rec, #tou, #e) as u64)),
                                quote!(self.at + #to),
                            )
                        }
                    };
                    accessors.extend(quote! {
                        #[doc = #doc]
                        #[inline(always)]
                        pub fn #fid(&self) -> DecodeResult<#uv<'s>> {
                            let pos = self.at + #off;
                            #uv::view_payload(self.cx, #tag, pos, pos, #tag_pos).map_err(#located)
                        }
                    });
                }
                _ => {}
            }
        }
        // A record whose union field takes its tag from the list holding
        // it carries that tag, given by the holder's list.
        let held = s.fields.iter().any(
            |f| matches!(&f.ty, Type::Switch { tag, .. } if codec_schema::held_tag_list(tag).is_some()),
        );
        let (held_field, held_init, held_impl) = if held {
            (
                quote! {
                    /// The tag the holding list stores for this record, and
                    /// where (no tag, `u64::MAX`, until the list gives it).
                    held: (u64, u64),
                },
                quote!(held: (u64::MAX, at),),
                quote! {
                    impl<'s> #rt::view::HeldTag for #name<'s> {
                        #[inline(always)]
                        fn with_held_tag(self, tag: u64, tag_pos: u64) -> Self {
                            #name { held: (tag, tag_pos), ..self }
                        }
                    }
                },
            )
        } else {
            (quote!(), quote!(), quote!())
        };
        let elem = if v.inline_record(&s.name) {
            quote! {
                impl<'s> ViewElem<'s> for #name<'s> {
                    const SIZE: u64 = #prefix;
                    #[inline(always)]
                    fn from_bytes(cx: ViewCx<'s>, at: u64, bytes: &'s [u8]) -> Option<Self> {
                        Some(#name { cx, at, rec: bytes.get(..#prefix as usize)?, #held_init })
                    }
                }
                #held_impl
            }
        } else {
            quote!()
        };
        // Stored alignments no file can honour are refused, as decode does.
        for f in &s.fields {
            let Some(by) = f.align_by.as_deref() else {
                continue;
            };
            let Some((j, g)) = s.fields.iter().enumerate().find(|(_, g)| g.name == by) else {
                continue;
            };
            let o = offsets[j].unwrap_or(0);
            let ou = o as usize;
            let (read, _) = scalar_at(&g.ty);
            checks.extend(quote! {
                let align = at::#read(rec, #ou, #e) as u64;
                #rt::base::checked::stored_align(cx.data().len() as u64, at + #o, align)
                    .map_err(|e| e.in_field(#by))?;
            });
        }
        // A record with a held tag decodes with its one tag held, as its
        // list would hold it.
        let (hold, release) = match self.held_tag_width(s).filter(|_| held) {
            Some(wt) => (
                quote! {
                    if self.held.0 != u64::MAX {
                        r.hold_tags(self.held.1, 1, #wt).map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))?;
                    }
                },
                quote!(r.release_tags();),
            ),
            None => (quote!(), quote!()),
        };
        let owned_ty = self.up(quote!(#owned));
        let decode_at = self.decode_at_path(&owned);
        let unit = if s.layout.is_some() {
            self.unit_handle(s)
        } else {
            quote!()
        };
        let sdoc = format!("A view of a `{sname}` record in place.");
        quote! {
            #[doc = #sdoc]
            #[derive(Clone, Copy)]
            pub struct #name<'s> {
                cx: ViewCx<'s>,
                at: u64,
                /// The record's fixed part, checked to lie in the file.
                rec: &'s [u8],
                #held_field
            }

            impl<'s> #name<'s> {
                /// Bytes of the record's fixed part.
                pub const SIZE: u64 = #prefix;

                /// The record at `at`: checks that its fixed part lies in
                /// the file (and its magic). Always inlined: a view returned
                /// through memory is read back wider than it was written,
                /// and the caller stalls on it (issue 51: a fifth of a walk
                /// over small arrays, at the load after this call).
                #[inline(always)]
                pub fn view_at(cx: ViewCx<'s>, at: u64) -> DecodeResult<Self> {
                    let rec = cx.record(at, #prefix)?;
                    #checks
                    Ok(#name { cx, at, rec, #held_init })
                }

                #list_end

                /// Where the record starts in the file.
                #[inline]
                pub fn at(&self) -> u64 { self.at }

                /// The record's fixed part.
                #[inline]
                pub fn bytes(&self) -> &'s [u8] { self.rec }

                /// The owned value: decodes the record and what it leads
                /// to, as `decode` does.
                pub fn to_owned(&self) -> DecodeResult<#owned_ty> {
                    let mut r = self.cx.reader().map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))?;
                    #hold
                    let v = #decode_at(&mut r, self.at);
                    #release
                    self.cx.loc(v.map(|(v, _)| v)).map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }

                #accessors
            }

            impl ::std::fmt::Debug for #name<'_> {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    let mut d = f.debug_struct(#sname);
                    d.field("at", &self.at);
                    #debug
                    d.finish_non_exhaustive()
                }
            }

            #elem
            #unit
        }
    }

    /// The generated unit function `f` of `owned` (`decode_unit`,
    /// `unit_bytes`), from a view module.
    fn unit_fn_path(&self, owned: &proc_macro2::Ident, f: &str) -> TokenStream {
        let f = format_ident!("{}", f);
        match self.variant {
            None => quote!(super::#owned::#f),
            Some(k) => quote!(<super::super::#owned as super::super::__DecodeUnit<#k>>::#f),
        }
    }

    /// A unit's handle (`{Unit}Unit`): the offset to the unit, followed
    /// when asked for; the unit's bytes after its transform, and the source
    /// its views read them from. Also the unit view's `open`.
    fn unit_handle(&self, s: &StructDef) -> TokenStream {
        let Some(link) = unit_ptr(self, &s.name) else {
            return quote!();
        };
        let sname = &s.name;
        let owned = ident(&s.name);
        let owned_ty = self.up(quote!(#owned));
        let un = unit_name(&s.name);
        let nv = view_name(&s.name);
        let w = width_of(&link.width);
        let scale = link.scale;
        let base = self.base_tokens(&link.base, None, |_| quote!(0u64));
        let unit_bytes = self.unit_fn_path(&owned, "unit_bytes");
        let decode_unit = self.unit_fn_path(&owned, "decode_unit");
        let transformed = s.layout.as_ref().is_some_and(|l| l.transform.is_some());
        let charge = if transformed {
            quote!(cx.charge(self.field_pos, bytes.len() as u64)?;)
        } else {
            quote!()
        };
        let hdoc = format!(
            "A `{sname}` unit, laid out on its own: the offset to it, followed when asked for. \
             Its views read the unit's bytes (`bytes`, after the unit's transform) from a source of \
             their own (`source`), where offsets count from the unit's start and errors name \
             offsets in the file: `{nv}::open(&unit.source(&bytes)?)`."
        );
        quote! {
            #[doc = #hdoc]
            #[derive(Clone, Copy, Debug)]
            pub struct #un<'s> {
                cx: ViewCx<'s>,
                /// Where the offset lies.
                field_pos: u64,
                /// The stored offset.
                raw: u64,
            }

            impl<'s> ViewElem<'s> for #un<'s> {
                const SIZE: u64 = #w;
                #[inline(always)]
                fn from_bytes(cx: ViewCx<'s>, at: u64, bytes: &'s [u8]) -> Option<Self> {
                    let raw = ::codec_runtime::reader::field::uint(bytes.get(..#w as usize)?, #w, cx.endian());
                    Some(#un { cx, field_pos: at, raw })
                }
            }

            impl<'s> #un<'s> {
                /// Where the unit starts (checked to lie in the file).
                pub fn at(&self) -> DecodeResult<u64> {
                    self.cx
                        .follow(self.field_pos, #base, self.raw, #scale, 1)
                        .map(|(_, t)| t)
                        .map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }

                /// The unit's bytes after its transform: borrowed from the
                /// file when the transform leaves them as they are.
                pub fn bytes(&self) -> DecodeResult<::std::borrow::Cow<'s, [u8]>> {
                    ::codec_runtime::run_inline(|| -> DecodeResult<::std::borrow::Cow<'s, [u8]>> {
                        let (cx, t) = self.cx.follow(self.field_pos, #base, self.raw, #scale, 1)?;
                        let tail: &'s [u8] = cx.data().get(t as usize..).unwrap_or_default();
                        let bytes = cx.loc(#unit_bytes(tail, cx.endian()).map_err(|e| e.shifted(t)))?;
                        #charge
                        Ok(bytes)
                    })
                    .map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }

                /// The source the unit's views read: `bytes`, from
                /// [`Self::bytes`].
                pub fn source<'b>(&self, bytes: &'b [u8]) -> DecodeResult<ViewSource<'b>> {
                    Ok(self.cx.unit_source(bytes, self.at()?))
                }

                /// The owned unit, as decode reads it.
                pub fn to_owned(&self) -> DecodeResult<#owned_ty> {
                    let mut r = self.cx.reader()?;
                    let t = self.at()?;
                    let v = #decode_unit(&mut r, t, self.field_pos);
                    self.cx.loc(v)
                }
            }

            impl<'s> #nv<'s> {
                /// Opens a unit's view: checks its fixed part only.
                pub fn open(source: &'s ViewSource<'s>) -> DecodeResult<Self> {
                    #nv::view_at(source.cx(), 0).map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }
            }
        }
    }

    /// The width of the tags that the list holding records of `s` stores
    /// for them (`derive: Tags("list.field")` in the holder).
    fn held_tag_width(&self, s: &StructDef) -> Option<TokenStream> {
        self.c.schema.types.iter().find_map(|t| {
            let TypeDef::Struct(h) = t else { return None };
            h.fields.iter().find_map(|g| {
                let Some(codec_schema::Derive::Tags(of)) = &g.derive else { return None };
                let (list, Some(_)) = codec_schema::tags_source(of) else { return None };
                let holds = h.fields.iter().any(|l| {
                    l.name == list
                        && matches!(&l.ty, Type::List { of, .. } if matches!(&**of, Type::Named(n) if *n == s.name))
                });
                let Type::List { of: tag_ty, .. } = &g.ty else { return None };
                holds.then(|| crate::names::width_tokens(tag_ty))
            })
        })
    }

    /// The variable last field after an inline list: a list counted by a
    /// sibling, or a list of union payloads whose tags are the inline list
    /// (BYML's array: its type bytes, then its words). It starts where the
    /// inline list ends, `rel` bytes on, aligned as the field says.
    #[allow(clippy::too_many_arguments)]
    fn list_after_list(
        &self,
        s: &StructDef,
        offsets: &[Option<u64>],
        f: &codec_schema::Field,
        of: &Type,
        count: &Count,
        rel: u64,
        doc: &str,
    ) -> TokenStream {
        let rt = RT();
        let e = self.endian_const();
        let (fname, sname, fid) = (&f.name, &s.name, accessor(&f.name));
        let Count::Field(c) = count else {
            return quote!();
        };
        let find = |name: &str| {
            s.fields
                .iter()
                .enumerate()
                .find(|(_, g)| g.name == name)
                .map(|(i, g)| (offsets[i].unwrap_or(0), g))
                .expect("checked by Viewable")
        };
        let (co, cf) = find(c);
        let co = co as usize;
        let (cread, _) = scalar_at(&cf.ty);
        let start = match f.align.filter(|&a| a > 1) {
            Some(a) => quote!(self.at + (end + #rel - self.at).next_multiple_of(#a)),
            None => quote!(end + #rel),
        };
        let located = quote!(|e: DecodeError| e.in_field(#fname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))));
        let (ty, make) = match of {
            Type::Switch { union, tag } => {
                let uv = view_name(union);
                let (to, tf) = find(tag);
                let Type::List { of: tag_ty, .. } = &tf.ty else {
                    return quote!();
                };
                let tw = width_of(tag_ty);
                let stride = self.c.fixed_size(of).unwrap_or(4);
                (
                    quote!(#rt::view::SwitchListView<'s, #uv<'s>>),
                    quote!(self.cx.switch_list(pos, pos, #stride, n, self.at + #to, #tw)),
                )
            }
            of => {
                let ety = elem_ty(of);
                (
                    quote!(ListView<'s, #ety>),
                    quote!(self.cx.list(pos, pos, n)),
                )
            }
        };
        quote! {
            #[doc = #doc]
            #[doc = ""]
            #[doc = "It lies after a list, so reading it can fail."]
            #[inline]
            pub fn #fid(&self) -> DecodeResult<#ty> {
                let end = Self::list_end(self.cx, self.at, self.rec)
                    .map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))?;
                let n = at::#cread(self.rec, #co, #e) as u64;
                let pos = #start;
                #make.map_err(#located)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn ptr_accessor(
        &self,
        _v: &Viewable<'_>,
        s: &StructDef,
        offsets: &[Option<u64>],
        f: &codec_schema::Field,
        off: u64,
        p: &codec_schema::Ptr,
        doc: &str,
    ) -> TokenStream {
        let fname = &f.name;
        let sname = &s.name;
        let fid = accessor(fname);
        let offu = off as usize;
        let e = self.endian_const();
        let (wread, _) = scalar_at(&p.width);
        let scale = p.scale;
        let base = self.base_tokens(
            &p.base,
            Some(quote!(self.at)),
            |id| quote!(self.cx.section_start(#id)),
        );
        let sibling = |name: &str| -> TokenStream {
            let (i, g) = s
                .fields
                .iter()
                .enumerate()
                .find(|(_, g)| g.name == name)
                .expect("checked by Viewable::sibling");
            let o = offsets[i].unwrap_or(0) as usize;
            let (read, _) = scalar_at(&g.ty);
            quote!((at::#read(self.rec, #o, #e) as u64))
        };
        // Where a sibling lies in the record.
        let sibling_at = |name: &str| -> u64 {
            s.fields
                .iter()
                .zip(offsets)
                .find(|(g, _)| g.name == name)
                .and_then(|(_, o)| *o)
                .unwrap_or(0)
        };
        let rt = RT();
        let (ty, body) = match &p.to {
            // A unit: its handle, which follows the offset when asked.
            Type::Named(n) if _v.unit(n) => {
                let un = unit_name(n);
                (
                    quote!(#un<'s>),
                    quote!(Ok(#un { cx: self.cx, field_pos, raw })),
                )
            }
            Type::Named(n) => {
                let nv = view_name(n);
                (
                    quote!(#nv<'s>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, #nv::SIZE)?;
                        #nv::view_at(cx, t)
                    },
                )
            }
            Type::Hash { slots, width, .. } => {
                let ety = elem_ty(width);
                let n = sibling(slots);
                (
                    quote!(ListView<'s, #ety>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        cx.list(field_pos, t, #n)
                    },
                )
            }
            Type::Rows { cells, count, .. } => {
                let cv = view_name(cells);
                let Count::Field(c) = &**count else {
                    return quote!();
                };
                let n = sibling(c);
                let Some(sf) = stride_field(s, fname) else {
                    return quote!();
                };
                let stride = sibling(&sf.name);
                (
                    quote!(#rt::view::RowsView<'s, #cv<'s>>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        cx.rows(field_pos, t, #n, #stride, (#sname, #fname))
                    },
                )
            }
            Type::List { of, count } => {
                let ety = elem_ty(of);
                let (count, start) = match &**count {
                    Count::Field(c) => (sibling(c), quote!(t)),
                    // Up to an end stored in a sibling, counted like the start.
                    Count::End(c) => {
                        let eoff = sibling_at(c);
                        let raw_end = sibling(c);
                        let esize = self.c.fixed_size(of).unwrap_or(1);
                        (
                            quote!(cx.count_to_end(self.at + #eoff, #base, #raw_end, #scale, t, #esize)?),
                            quote!(t),
                        )
                    }
                    Count::Before(w) => {
                        let w = width_of(w);
                        (quote!(cx.count_before(field_pos, t, #w)?), quote!(t))
                    }
                    Count::Prefix(w) => {
                        let w = width_of(w);
                        (quote!(cx.uint(t, #w)?), quote!(t + #w))
                    }
                    _ => (quote!(0u64), quote!(t)),
                };
                (
                    quote!(ListView<'s, #ety>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        let count: u64 = #count;
                        cx.list(field_pos, #start, count)
                    },
                )
            }
            Type::Array { of, len } => {
                let ety = elem_ty(of);
                (
                    quote!(ListView<'s, #ety>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        cx.list(field_pos, t, #len)
                    },
                )
            }
            Type::Switch { union, tag } => {
                let uv = view_name(union);
                let tag_read = sibling(tag);
                let tag_off = sibling_at(tag);
                (
                    quote!(#uv<'s>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        #uv::view_payload(cx, #tag_read, t, field_pos, self.at + #tag_off)
                    },
                )
            }
            Type::CString {
                max,
                encoding: codec_schema::Encoding::Utf8,
                size,
                ..
            } => {
                let max = opt(max.or(*size));
                (
                    quote!(ViewStr<'s>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        cx.str(t, #max)
                    },
                )
            }
            Type::PString {
                len,
                encoding: codec_schema::Encoding::Utf8,
                nul,
            } => {
                let w = codec_schema::int_width(len).unwrap_or(1);
                (
                    quote!(ViewStr<'s>),
                    quote! {
                        let (cx, t) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                        cx.pstr(t, #w, #nul)
                    },
                )
            }
            _ => return quote!(),
        };
        if p.optional {
            quote! {
                #[doc = #doc]
                #[doc = ""]
                #[doc = "`None` when the stored offset is 0."]
                #[inline(always)]
                pub fn #fid(&self) -> DecodeResult<Option<#ty>> {
                    let raw = at::#wread(self.rec, #offu, #e) as u64;
                    if raw == 0 {
                        return Ok(None);
                    }
                    let field_pos = self.at + #off;
                    ::codec_runtime::run_inline(#[inline(always)] || -> DecodeResult<#ty> { #body })
                        .map(Some)
                        .map_err(|e| e.in_field(#fname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }
            }
        } else {
            quote! {
                #[doc = #doc]
                #[inline(always)]
                pub fn #fid(&self) -> DecodeResult<#ty> {
                    let raw = at::#wread(self.rec, #offu, #e) as u64;
                    let field_pos = self.at + #off;
                    ::codec_runtime::run_inline(#[inline(always)] || -> DecodeResult<#ty> { #body })
                        .map_err(|e| e.in_field(#fname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
                }
            }
        }
    }

    /// `{field}_find(key)` for an offset to a hash index: the record whose
    /// key is `key`, looked up as the file's reader does (the glue's hash,
    /// the slot's chain); nothing when the records' keys or next offsets
    /// cannot be read by views, or the schema has no glue.
    fn hash_find_accessor(
        &self,
        v: &Viewable<'_>,
        s: &StructDef,
        offsets: &[Option<u64>],
        f: &codec_schema::Field,
        off: u64,
        p: &codec_schema::Ptr,
    ) -> TokenStream {
        let Type::Hash {
            of,
            key,
            next,
            slots,
            hook,
            width,
            base: hbase,
            ..
        } = &p.to
        else {
            return quote!();
        };
        let (Some(_), Some(rec)) = (self.hooks, v.get_struct(of)) else {
            return quote!();
        };
        let rec_offsets = self.c.field_offsets(rec);
        let field = |name: &str| rec.fields.iter().position(|g| g.name == name);
        let (Some(ki), Some(ni)) = (field(key), field(next)) else {
            return quote!();
        };
        let key_is_text = matches!(&rec.fields[ki].ty, Type::CString { .. } | Type::Str { .. })
            || matches!(&rec.fields[ki].ty, Type::Ptr(kp) if matches!(kp.to, Type::CString { .. }));
        let (Some(next_off), Some(next_w)) =
            (rec_offsets[ni], codec_schema::int_width(&rec.fields[ni].ty))
        else {
            return quote!();
        };
        if !key_is_text
            || !v.field_ok(rec, ki)
            || !matches!(hbase, Base::File | Base::Unit | Base::Absolute(_))
        {
            return quote!();
        }
        let _ = next_w;
        let hbase = self.base_tokens(hbase, None, |_| quote!(0u64));
        let Some((si, sf)) = s.fields.iter().enumerate().find(|(_, g)| &g.name == slots) else {
            return quote!();
        };
        let e = self.endian_const();
        let (sread, _) = scalar_at(&sf.ty);
        let so = offsets[si].unwrap_or(0) as usize;
        let (wread, _) = scalar_at(&p.width);
        let offu = off as usize;
        let scale = p.scale;
        let base = self.base_tokens(&p.base, Some(quote!(self.at)), |_| quote!(0u64));
        let hw = width_of(width);
        let nv = view_name(of);
        let kid = accessor(key);
        let nid = accessor(next);
        let fname = &f.name;
        let sname = &s.name;
        let find = format_ident!("{}_find", f.name);
        let hash_fn = hash_hook_name(hook);
        let hash_fn = self.up(quote!(#hash_fn));
        let doc = format!(
            "The `{of}` whose `{key}` is `key`, found through the hash index `{fname}` as the file's reader finds it (glue `{hook}`, then the slot's chain); `None` when no record in the chain has it."
        );
        quote! {
            #[doc = #doc]
            pub fn #find(&self, key: &[u8]) -> DecodeResult<Option<#nv<'s>>> {
                let raw = at::#wread(self.rec, #offu, #e) as u64;
                let field_pos = self.at + #off;
                ::codec_runtime::run_inline(|| -> DecodeResult<Option<#nv<'s>>> {
                    let (cx, heads) = self.cx.follow(field_pos, #base, raw, #scale, 0)?;
                    let slots = at::#sread(self.rec, #so, #e) as u64;
                    cx.hash_find(heads, slots, #hw, #hash_fn(key), #hbase, #scale, #nv::SIZE, |cx, at| {
                        let rec = #nv::view_at(cx, at)?;
                        let hit = rec.#kid()?.as_bytes() == key;
                        Ok((hit.then_some(rec), at + #next_off, rec.#nid() as u64))
                    })
                })
                .map_err(|e| e.in_field(#fname).within(PathSeg::Type(::std::borrow::Cow::Borrowed(#sname))))
            }
        }
    }

    /// Glue hash functions the views call (`{field}_find`), beside the
    /// view module: its own paths to the glue would depend on its depth.
    fn hash_hooks(&self) -> TokenStream {
        let Some(hooks) = self.hooks else {
            return quote!();
        };
        let mut seen = BTreeSet::new();
        let mut out = TokenStream::new();
        for t in &self.c.schema.types {
            let TypeDef::Struct(s) = t else { continue };
            for f in &s.fields {
                let Type::Ptr(p) = &f.ty else { continue };
                let Type::Hash { hook, .. } = &p.to else {
                    continue;
                };
                if !seen.insert(hook.clone()) {
                    continue;
                }
                let name = hash_hook_name(hook);
                let hn = ident(hook);
                out.extend(quote! {
                    #[doc(hidden)]
                    #[inline]
                    pub fn #name(key: &[u8]) -> u64 {
                        #hooks::#hn(key)
                    }
                });
            }
        }
        out
    }

    /// A union variant that is an offset (at `pos`): the type its target
    /// is viewed as, and the expression that follows it.
    fn payload_ptr(&self, p: &codec_schema::Ptr) -> Option<(TokenStream, TokenStream)> {
        let w = width_of(&p.width);
        let scale = p.scale;
        let base = self.base_tokens(&p.base, None, |id| quote!(cx.section_start(#id)));
        let follow = |size: TokenStream| {
            quote! {
                let raw = cx.uint(pos, #w)?;
                let (cx, t) = cx.follow(pos, #base, raw, #scale, #size)?;
            }
        };
        Some(match &p.to {
            Type::Named(n) => {
                let nv = view_name(n);
                let f = follow(quote!(#nv::SIZE));
                (quote!(#nv<'s>), quote!({ #f #nv::view_at(cx, t) }))
            }
            t if Viewable::scalar(t) => {
                let (read, ty) = scalar_at(t);
                let n = self.c.fixed_size(t)?;
                let e = self.endian_const();
                let f = follow(quote!(#n));
                (
                    ty,
                    quote!({ #f cx.record(t, #n).map(|b| at::#read(b, 0, #e)) }),
                )
            }
            Type::List { of, count } => {
                let ety = elem_ty(of);
                let f = follow(quote!(0));
                let read = match &**count {
                    Count::Before(cw) => {
                        let cw = width_of(cw);
                        quote!({ #f let n = cx.count_before(pos, t, #cw)?; cx.list(pos, t, n) })
                    }
                    Count::Prefix(cw) => {
                        let cw = width_of(cw);
                        quote!({ #f let n = cx.uint(t, #cw)?; cx.list(pos, t + #cw, n) })
                    }
                    _ => return None,
                };
                (quote!(ListView<'s, #ety>), read)
            }
            Type::Array { of, len } => {
                let ety = elem_ty(of);
                let f = follow(quote!(0));
                (
                    quote!(ListView<'s, #ety>),
                    quote!({ #f cx.list(pos, t, #len) }),
                )
            }
            Type::CString {
                max,
                encoding: codec_schema::Encoding::Utf8,
                size,
                ..
            } => {
                let max = opt(max.or(*size));
                let f = follow(quote!(0));
                (quote!(ViewStr<'s>), quote!({ #f cx.str(t, #max) }))
            }
            _ => return None,
        })
    }

    /// The generated decoder of the owned type `owned`, from a view module.
    fn decode_at_path(&self, owned: &proc_macro2::Ident) -> TokenStream {
        match self.variant {
            None => quote!(super::#owned::decode_at),
            Some(k) => quote!(<super::super::#owned as super::super::__Decode<#k>>::decode_at),
        }
    }

    /// A union told apart by the tag at its payload's start: each
    /// variant's record is viewed where the tag lies.
    fn peek_union_view(&self, u: &UnionDef) -> TokenStream {
        let name = view_name(&u.name);
        let uname = &u.name;
        let owned = ident(&u.name);
        let owned_ty = self.up(quote!(#owned));
        let decode_at = self.decode_at_path(&owned);
        let arms_cx = u.variants.iter().map(|var| {
            let vn = ident(&var.name);
            quote!(#name::#vn(v) => (v.cx, v.at))
        });
        let unknown = crate::names::unknown_tag(u, quote!(pos));
        let tw = width_of(&u.tag);
        // A tag stored before the payload (`inline_tag`): the payload
        // follows it. Else the payload's own first bytes are the tag.
        let skip: u64 = if u.inline_tag { tw } else { 0 };
        let mut variants = TokenStream::new();
        let mut arms = TokenStream::new();
        for var in &u.variants {
            let Type::Named(n) = &var.ty else { continue };
            let (vn, vname, tag, nv) = (ident(&var.name), &var.name, var.tag, view_name(n));
            let doc = if var.doc.is_empty() {
                format!("`{vname}`")
            } else {
                var.doc.clone()
            };
            variants.extend(quote! {
                #[doc = #doc]
                #vn(#nv<'s>),
            });
            arms.extend(quote! {
                #tag => #nv::view_at(cx, pos + #skip)
                    .map(#name::#vn)
                    .map_err(|e| e.within(PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
            });
        }
        let udoc =
            format!("A view of a `{uname}` in place: the variant its first {tw} byte(s) name.");
        quote! {
            #[doc = #udoc]
            #[derive(Clone, Copy, Debug)]
            pub enum #name<'s> {
                #variants
            }

            impl<'s> #name<'s> {
                /// Bytes a view of it needs at least: its tag.
                pub const SIZE: u64 = #tw;

                /// The variant whose tag is at `pos`, viewed there.
                #[inline]
                pub fn view_at(cx: ViewCx<'s>, pos: u64) -> DecodeResult<Self> {
                    let tag = cx.uint(pos, #tw)?;
                    match tag {
                        #arms
                        _ => Err(cx.locate(#unknown)),
                    }
                }

                /// Where the value starts (at its tag).
                pub fn at(&self) -> u64 {
                    self.cx_at().1 - #skip
                }

                fn cx_at(&self) -> (ViewCx<'s>, u64) {
                    match self {
                        #(#arms_cx,)*
                    }
                }

                /// The owned value: decodes the variant and what it leads
                /// to, as `decode` does.
                pub fn to_owned(&self) -> DecodeResult<#owned_ty> {
                    let (cx, at) = self.cx_at();
                    let mut r = cx.reader().map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#uname))))?;
                    cx.loc(#decode_at(&mut r, at - #skip).map(|(v, _)| v))
                        .map_err(|e| e.within(PathSeg::Type(::std::borrow::Cow::Borrowed(#uname))))
                }
            }
        }
    }

    fn union_view(&self, _v: &Viewable<'_>, u: &UnionDef) -> TokenStream {
        if u.peek || u.inline_tag {
            return self.peek_union_view(u);
        }
        let rt = RT();
        let name = view_name(&u.name);
        let uname = &u.name;
        let unknown = crate::names::unknown_tag(u, quote!(tag_pos));
        let mut variants = TokenStream::new();
        let mut arms = TokenStream::new();
        for var in &u.variants {
            let vn = ident(&var.name);
            let vname = &var.name;
            let tag = var.tag;
            let doc = if var.doc.is_empty() {
                format!("`{vname}`")
            } else {
                var.doc.clone()
            };
            let (ty, read) = match &var.ty {
                t @ (Type::Bool8 | Type::Bool32) => {
                    let w = if matches!(t, Type::Bool8) { 1u64 } else { 4 };
                    (
                        quote!(bool),
                        quote!({ let v = cx.uint(pos, #w)?; cx.bool_from(pos, v) }),
                    )
                }
                Type::U24 => (quote!(u32), quote!(cx.uint(pos, 3).map(|v| v as u32))),
                // A fixed-point number: its raw integer.
                Type::Fixed { raw, .. } => {
                    let (read, ty) = scalar_at(raw);
                    let n = self.c.fixed_size(raw).unwrap_or(4);
                    let e = self.endian_const();
                    (ty, quote!(cx.record(pos, #n).map(|b| at::#read(b, 0, #e))))
                }
                t if Viewable::scalar(t) => {
                    let (read, ty) = scalar_at(t);
                    let n = self.c.fixed_size(t).unwrap_or(4);
                    let e = self.endian_const();
                    (
                        ty.clone(),
                        quote!(cx.record(pos, #n).map(|b| at::#read(b, 0, #e))),
                    )
                }
                Type::Bytes(n) => (quote!(&'s [u8]), quote!(cx.record(pos, #n))),
                Type::Array { of, len } => {
                    let ety = elem_ty(of);
                    (
                        quote!(ListView<'s, #ety>),
                        quote!(cx.list(field_pos, pos, #len)),
                    )
                }
                Type::CString {
                    max,
                    encoding: codec_schema::Encoding::Utf8,
                    size,
                    ..
                } => {
                    let max = opt(max.or(*size));
                    (quote!(ViewStr<'s>), quote!(cx.str(pos, #max)))
                }
                Type::List { of, count } => {
                    let ety = elem_ty(of);
                    let read = match &**count {
                        Count::Before(w) => {
                            let w = width_of(w);
                            quote!({
                                let n = cx.count_before(field_pos, pos, #w)?;
                                cx.list(field_pos, pos, n)
                            })
                        }
                        Count::Prefix(w) => {
                            let w = width_of(w);
                            quote!({
                                let n = cx.uint(pos, #w)?;
                                cx.list(field_pos, pos + #w, n)
                            })
                        }
                        _ => quote!(cx.list(field_pos, pos, 0)),
                    };
                    (quote!(ListView<'s, #ety>), read)
                }
                Type::Named(n) => {
                    let nv = view_name(n);
                    (quote!(#nv<'s>), quote!(#nv::view_at(cx, pos)))
                }
                // Bytes that must be there: a variant without a payload.
                Type::Magic(m) => {
                    let n = codec_schema::magic_bytes(m).len() as u64;
                    let check = magic_check(m, vname, quote!(pos));
                    variants.extend(quote! {
                        #[doc = #doc]
                        #vn,
                    });
                    arms.extend(quote! {
                        #tag => ::codec_runtime::run_inline(#[inline(always)] || -> DecodeResult<()> {
                            let found = cx.record(pos, #n)?;
                            #check
                            Ok(())
                        })
                        .map(|()| #name::#vn)
                        .map_err(|e| e.within(PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
                    });
                    continue;
                }
                Type::Index { table, width } => {
                    let w = width_of(width);
                    let id = self.c.table_id(table);
                    (
                        quote!(ViewStr<'s>),
                        quote!({
                            let i = cx.uint(pos, #w)?;
                            cx.interned(#id, i, pos, #table)
                        }),
                    )
                }
                Type::Ptr(p) => {
                    let Some((ty, read)) = self.payload_ptr(p) else {
                        continue;
                    };
                    (ty, read)
                }
                _ => continue,
            };
            variants.extend(quote! {
                #[doc = #doc]
                #vn(#ty),
            });
            arms.extend(quote! {
                #tag => ::codec_runtime::run_inline(#[inline(always)] || -> DecodeResult<#ty> { #read })
                    .map(#name::#vn)
                    .map_err(|e| e.within(PathSeg::Variant(::std::borrow::Cow::Borrowed(#vname)))),
            });
        }
        let udoc = format!("A view of a `{uname}` value in place: its variant's payload.");
        // The cells of rows: their sizes are the owned cells'.
        let cell = if self.is_cell_union(&u.name) {
            let owned = ident(&u.name);
            let owned_ty = self.up(quote!(#owned));
            let v = self.v();
            quote! {
                impl<'s> #rt::view::ViewCell<'s> for #name<'s> {
                    #[inline(always)]
                    fn cell_size(tag: u64) -> Option<u64> {
                        <#owned_ty as #rt::rows::Cells<#v>>::cell_size(tag)
                    }
                }
            }
        } else {
            quote!()
        };
        quote! {
            #cell

            #[doc = #udoc]
            #[derive(Clone, Copy, Debug)]
            pub enum #name<'s> {
                #variants
            }

            impl<'s> #rt::view::ViewUnion<'s> for #name<'s> {
                #[inline(always)]
                fn view_payload(cx: ViewCx<'s>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64) -> DecodeResult<Self> {
                    #name::view_payload(cx, tag, pos, field_pos, tag_pos)
                }
            }

            impl<'s> #name<'s> {
                /// The payload that tag `tag` selects, at `pos`. `field_pos`
                /// is where the offset to it was read, `tag_pos` where the
                /// tag was (for errors).
                #[inline(always)]
                pub fn view_payload(cx: ViewCx<'s>, tag: u64, pos: u64, field_pos: u64, tag_pos: u64) -> DecodeResult<Self> {
                    let _ = field_pos;
                    match tag {
                        #arms
                        _ => Err(cx.locate(#unknown)),
                    }
                }
            }
        }
    }
}
