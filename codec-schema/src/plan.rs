//! The record plan: for each field of a record, the one step that reads it
//! and the one step that writes it at the record's place, chosen here once
//! from the field's type, its `derive` and its attributes. `codec-derive`
//! emits the code of each step and the interpreter executes it; both match
//! over [`FieldRead`] and [`FieldWrite`] with no wildcard, so a step one of
//! them lacks does not compile (where one is not built yet, the back end
//! says so by name, at compile time for the generator, before a byte is
//! written for the interpreter).
//!
//! What a step leaves to later (an offset's target, a size, a count known
//! only once the layout is done) is followed after the record's fields on
//! decode ([`Follow`] says when) and placed by the section walks and the
//! root's patches on encode; the step reads or writes what is at the
//! record's place now.

use crate::{magic_bytes, Checked, Count, Derive, Field, Ptr, SortKey, StructDef, Type};

/// How one field is read at its record's place.
#[derive(Debug, Clone, Copy)]
pub enum FieldRead<'a> {
    /// A unit laid out inline (`size` on a `Named` field), as long as the
    /// field `size` (read before it) says.
    SizedUnit { unit: &'a str, size: &'a str },
    /// The offset to an interned table (`derive: Interned`): the table is
    /// followed after the record's fields (`then`), and kept for the
    /// indices into it.
    InternedTable { ptr: &'a Ptr, then: Follow },
    /// No bytes: whether the file wrote equal subtrees once
    /// (`SharesEqual`), known once the record's offsets are followed.
    SharesEqual { section: &'a str },
    /// An interned table's body (`Table`), as many strings as field
    /// `count` says.
    TableBody { count: &'a str, offsets: &'a Type },
    /// A union's value word, its tag stored apart (`Switch`): in a sibling
    /// field, or held by the list holding the record (`types[i]`).
    Word { union: &'a str, tag: &'a str },
    /// A list of value words, their tags in a sibling list.
    Words {
        of: &'a Type,
        union: &'a str,
        tag: &'a str,
        count: &'a Count,
    },
    /// Padding to `align` from the record's start (`Pad`): its byte kept.
    Pad { align: u64, fill: u8 },
    /// A table of hash slots (`HashSlots`): the (count, offset) pairs, each
    /// slot's records read where its offset leads.
    HashSlots(&'a Type),
    /// An offset: read now, its target followed after the record's fields,
    /// when `then` says.
    Offset { ptr: &'a Ptr, then: Follow },
    /// Nothing here: the value starts where the target of field `after`
    /// ends, read once that target is (`Follows`).
    Follows {
        after: &'a str,
        to: &'a Type,
        section: &'a str,
    },
    /// A list inline in the record (counted, up to the next target, its
    /// elements' tags held, or of offsets followed afterwards).
    List { of: &'a Type, count: &'a Count },
    /// Groups of elements, each group's count and first index inline.
    Groups(&'a Type),
    /// A number the writer derives (a count, a size, a start, a checksum,
    /// ...): read raw, checked or used where the derive says.
    Derived { width: &'a Type, derive: &'a Derive },
    /// Bytes a type of another crate reads (the `external` adapter); the
    /// interpreter keeps the bytes.
    External { len: u64, ty: &'a str },
    /// The value itself, at the record's place.
    Inline(&'a Type),
}

/// When an offset's target is followed, after the record's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// In field order with the record's other targets.
    InOrder,
    /// In field order, unless the offset is 0 (`optional`): then nothing.
    IfPresent,
    /// In field order, and where the target ends is kept: a `Follows`
    /// field starts there.
    Ended,
    /// After every other target of the record: rows, laid out by the
    /// column records those targets hold.
    Late,
}

/// How one field is written at its record's place.
#[derive(Debug, Clone)]
pub enum FieldWrite<'a> {
    /// A unit laid out inline (`size` on a `Named` field): its bytes, then
    /// its length patched into field `size`, which comes before it.
    SizedUnit { unit: &'a str, size: &'a str },
    /// Padding to `align` from the record's start, in the byte the
    /// document keeps (`Pad`).
    Pad { align: u64 },
    /// A hash table's (count, offset) slot pairs (`HashSlots`): zeros, one
    /// pair per slot, filled when its section is placed.
    HashSlots { slots: &'a str, width: &'a Type },
    /// The tags of the unions a list holds (`derive: Tags`), in the order
    /// the list is written.
    Tags { source: &'a str, width: &'a Type },
    /// An interned table's body (`Table`): each string's offset, then the
    /// strings.
    TableBody { offsets: &'a Type },
    /// No bytes: whether equal subtrees are written once
    /// (`SharesEqual`), applied before anything is placed.
    SharesEqual,
    /// A union's value word, its tag stored apart (`Switch`).
    Word { union: &'a str },
    /// A list of value words.
    Words { union: &'a str },
    /// The offset to an interned table (`derive: Interned`): zeros, the
    /// table placed with its section.
    InternedTable { ptr: &'a Ptr },
    /// The length of list `of` (`derive: Count`).
    Count { of: &'a str, width: &'a Type },
    /// The lengths of list field `of` summed over the elements of list
    /// `list` (`derive: Total`).
    Total {
        list: &'a str,
        of: &'a str,
        width: &'a Type,
    },
    /// The tag of the union field `of` holds (`derive: Tag`).
    Tag { of: &'a str, width: &'a Type },
    /// Zeros where a unit's length goes (`derive: Size`), patched by the
    /// unit's step.
    Size { width: &'a Type },
    /// A column's place in a row (`derive: CellOffset`): the row layout
    /// grows by its cells.
    CellOffset { cells: &'a str, width: &'a Type },
    /// Zeros for a number the finished layout gives (the file's size, a
    /// section's length or end, a record count), patched by the writer
    /// wherever the record is (`codec_runtime::settled`).
    Settled { width: &'a Type, value: Settle<'a> },
    /// Zeros for a value known once the layout is done and patched by the
    /// root's step: a section start, a row stride, a checksum, a hash
    /// chain's next node, a key's hash, a list's end.
    Later { width: &'a Type },
    /// Where the record ends (`derive: RecordEnd`): its start plus `size`,
    /// known when the record is begun.
    RecordEnd { width: &'a Type, size: u64 },
    /// The magic bytes.
    Magic(Vec<u8>),
    /// An offset: its target's address when a walk placed the target
    /// already, else zeros; the target placed with its section.
    Offset { ptr: &'a Ptr },
    /// A list of offsets: zeros, each target placed with its section.
    Offsets { ptr: &'a Ptr },
    /// A list written in the order of its elements' keys.
    Sorted {
        of: &'a Type,
        count: &'a Count,
        key: SortKey<'a>,
    },
    /// A list or array written element by element, in document order.
    List { of: &'a Type, count: &'a Count },
    /// Nothing here: the value is placed right after another target, with
    /// its section (`Follows`).
    Follows { to: &'a Type, section: &'a str },
    /// Bytes an external type writes (the `external` adapter).
    External { len: u64 },
    /// The value itself, at the record's place.
    Inline(&'a Type),
}

/// Which number of the finished layout a [`FieldWrite::Settled`] field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle<'a> {
    FileSize,
    RecordCount(&'a str),
    SectionSize(&'a str),
    SectionEnd(&'a str),
    SortedStrings(&'a str),
}

impl Checked {
    /// The runtime's name for a settled number (type and section names as
    /// their ids).
    pub fn settled(&self, s: Settle<'_>) -> codec_runtime::settled::Settled {
        use codec_runtime::settled::Settled;
        match s {
            Settle::FileSize => Settled::FileSize,
            Settle::RecordCount(t) => Settled::RecordCount(self.type_id(t).unwrap_or(0)),
            Settle::SectionSize(n) => Settled::SectionSize(self.section_id(n).unwrap_or(0)),
            Settle::SectionEnd(n) => Settled::SectionEnd(self.section_id(n).unwrap_or(0)),
            Settle::SortedStrings(n) => Settled::SortedStrings(self.section_id(n).unwrap_or(0)),
        }
    }
}

impl Checked {
    /// The step that writes field `f` of record `s` (see [`FieldWrite`]).
    pub fn field_write<'a>(&'a self, s: &'a StructDef, f: &'a Field) -> FieldWrite<'a> {
        if let (Some(size), Type::Named(unit)) = (&f.size, &f.ty) {
            return FieldWrite::SizedUnit { unit, size };
        }
        match (&f.derive, &f.ty) {
            (None, Type::Pad { align, .. }) => FieldWrite::Pad { align: *align },
            (None, Type::HashSlots { slots, width, .. }) => FieldWrite::HashSlots { slots, width },
            (Some(Derive::Tags(source)), Type::List { of, .. }) => {
                FieldWrite::Tags { source, width: of }
            }
            (None, Type::Table { offsets, .. }) => FieldWrite::TableBody { offsets },
            (None, Type::SharesEqual { .. }) => FieldWrite::SharesEqual,
            (None, Type::Switch { union, .. }) => FieldWrite::Word { union },
            (None, Type::List { of, .. }) if matches!(**of, Type::Switch { .. }) => {
                let Type::Switch { union, .. } = &**of else {
                    unreachable!("matched above")
                };
                FieldWrite::Words { union }
            }
            (Some(Derive::Interned), Type::Ptr(ptr)) => FieldWrite::InternedTable { ptr },
            (Some(Derive::Count(of)), width) => FieldWrite::Count { of, width },
            (Some(Derive::Total { list, of }), width) => FieldWrite::Total { list, of, width },
            (Some(Derive::Tag(of)), width) => FieldWrite::Tag { of, width },
            (Some(Derive::Size(_)), width) => FieldWrite::Size { width },
            (Some(Derive::CellOffset(cells)), width) => FieldWrite::CellOffset { cells, width },
            (Some(Derive::RecordEnd), width) => FieldWrite::RecordEnd {
                width,
                size: self
                    .fixed_size(&Type::Named(s.name.clone()))
                    .unwrap_or_default(),
            },
            (Some(Derive::FileSize), width) => FieldWrite::Settled {
                width,
                value: Settle::FileSize,
            },
            (Some(Derive::RecordCount(t)), width) => FieldWrite::Settled {
                width,
                value: Settle::RecordCount(t),
            },
            (Some(Derive::SectionSize(n)), width) => FieldWrite::Settled {
                width,
                value: Settle::SectionSize(n),
            },
            (Some(Derive::SectionEnd(n)), width) => FieldWrite::Settled {
                width,
                value: Settle::SectionEnd(n),
            },
            (Some(Derive::SortedStrings(n)), width) => FieldWrite::Settled {
                width,
                value: Settle::SortedStrings(n),
            },
            (
                Some(
                    Derive::SectionStart(_)
                    | Derive::Checksum { .. }
                    | Derive::Stride(_)
                    | Derive::HashNext
                    | Derive::KeyHash { .. }
                    | Derive::End(_)
                    | Derive::Interned
                    | Derive::Tags(_),
                ),
                width,
            ) => FieldWrite::Later { width },
            (None, Type::Magic(m)) => FieldWrite::Magic(magic_bytes(m)),
            (None, Type::Ptr(ptr)) => FieldWrite::Offset { ptr },
            (None, Type::List { of, .. }) if matches!(**of, Type::Ptr(_)) => {
                let Type::Ptr(ptr) = &**of else {
                    unreachable!("matched above")
                };
                FieldWrite::Offsets { ptr }
            }
            (None, Type::List { of, count }) => match self.sort_key(f) {
                Some(key) => FieldWrite::Sorted { of, count, key },
                None => FieldWrite::List { of, count },
            },
            (None, Type::Follows { to, section, .. }) => FieldWrite::Follows { to, section },
            (None, Type::Bytes(len)) if f.external.is_some() => FieldWrite::External { len: *len },
            (None, t) => FieldWrite::Inline(t),
        }
    }
}

impl Checked {
    /// The step that reads field `f` of record `s` (see [`FieldRead`]).
    pub fn field_read<'a>(&'a self, s: &'a StructDef, f: &'a Field) -> FieldRead<'a> {
        if let (Some(size), Type::Named(unit)) = (&f.size, &f.ty) {
            return FieldRead::SizedUnit { unit, size };
        }
        match (&f.derive, &f.ty) {
            (Some(Derive::Interned), Type::Ptr(ptr)) => FieldRead::InternedTable {
                ptr,
                then: follow(s, f, ptr),
            },
            (None, Type::SharesEqual { section }) => FieldRead::SharesEqual { section },
            (None, Type::Table { count, offsets }) => FieldRead::TableBody { count, offsets },
            (None, Type::Switch { union, tag }) => FieldRead::Word { union, tag },
            (None, Type::List { of, count }) if matches!(**of, Type::Switch { .. }) => {
                let Type::Switch { union, tag } = &**of else {
                    unreachable!("matched above")
                };
                FieldRead::Words {
                    of,
                    union,
                    tag,
                    count,
                }
            }
            (None, Type::Pad { align, fill }) => FieldRead::Pad {
                align: *align,
                fill: *fill,
            },
            (None, t @ Type::HashSlots { .. }) => FieldRead::HashSlots(t),
            (_, Type::Ptr(ptr)) => FieldRead::Offset {
                ptr,
                then: follow(s, f, ptr),
            },
            (_, Type::Follows { after, to, section }) => FieldRead::Follows { after, to, section },
            (_, Type::List { of, count }) => FieldRead::List { of, count },
            (_, t @ Type::Groups { .. }) => FieldRead::Groups(t),
            (Some(derive), width) => FieldRead::Derived { width, derive },
            (None, Type::Bytes(len)) if f.external.is_some() => FieldRead::External {
                len: *len,
                ty: f.external.as_deref().unwrap_or_default(),
            },
            (None, t) => FieldRead::Inline(t),
        }
    }
}

/// When the target of offset field `f` (of `s`) is followed.
fn follow(s: &StructDef, f: &Field, ptr: &Ptr) -> Follow {
    if ptr.optional {
        Follow::IfPresent
    } else if s
        .fields
        .iter()
        .any(|g| matches!(&g.ty, Type::Follows { after, .. } if *after == f.name))
    {
        Follow::Ended
    } else if matches!(ptr.to, Type::Rows { .. }) {
        Follow::Late
    } else {
        Follow::InOrder
    }
}
