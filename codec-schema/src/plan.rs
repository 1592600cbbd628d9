//! The write plan: for each field of a record, the one step that writes it
//! at the record's place, chosen here once from the field's type, its
//! `derive` and its attributes. `codec-derive` emits the code of each step
//! and the interpreter executes it; both match over [`FieldWrite`] with no
//! wildcard, so a step one of them lacks does not compile (where one is
//! not built yet, the back end says so by name, at compile time for the
//! generator, before a byte is written for the interpreter).
//!
//! What a step leaves to later (an offset's target, a size, a count known
//! only once the layout is done) is placed by the section walks and the
//! root's patches; the step writes its zeros or what it knows now.

use crate::{magic_bytes, Checked, Count, Derive, Field, Ptr, SortKey, StructDef, Type};

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
    /// The tag of the union field `of` holds (`derive: Tag`).
    Tag { of: &'a str, width: &'a Type },
    /// Zeros where a unit's length goes (`derive: Size`), patched by the
    /// unit's step.
    Size { width: &'a Type },
    /// A column's place in a row (`derive: CellOffset`): the row layout
    /// grows by its cells.
    CellOffset { cells: &'a str, width: &'a Type },
    /// Zeros for a value known once the layout is done: a file or section
    /// size or start, a record count, a row stride, a checksum, a hash
    /// chain's next node, a key's hash, a list's end.
    Later { width: &'a Type },
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

impl Checked {
    /// The step that writes field `f` of record `s` (see [`FieldWrite`]).
    pub fn field_write<'a>(&'a self, s: &'a StructDef, f: &'a Field) -> FieldWrite<'a> {
        let _ = s;
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
            (Some(Derive::Tag(of)), width) => FieldWrite::Tag { of, width },
            (Some(Derive::Size(_)), width) => FieldWrite::Size { width },
            (Some(Derive::CellOffset(cells)), width) => FieldWrite::CellOffset { cells, width },
            (Some(_), width) => FieldWrite::Later { width },
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
