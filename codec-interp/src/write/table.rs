//! The interpreter's writing of tables of records (legacy BDAT's
//! constructs): rows of cells laid out by column records, hash indexes over
//! records with their chains, references to a record by its ordinal,
//! checksums, and units transformed by glue once laid out.
//!
//! It takes the generated encoder's steps (`codec-derive`'s
//! `constructs.rs`) through the same runtime calls: a column record adds
//! its cells to the row layout (`Writer::add_cell`), the rows are checked
//! against it (`rows::row_layout`) and written a row at a time, each cell
//! where its column puts it; the hash index and the chains through the
//! records' `next` fields are `Writer::place_hash_index`'s; references are
//! patched by `Writer::resolve_refs` once the unit is laid out. Glue (the
//! transform, the checksum, the key's hash) is reached through [`Hooks`](crate::Hooks)
//! by the names the schema gives.
//!
//! Where the generated code keeps a cell's offset to patch by the cell's
//! place in the rows, the interpreter keeps where it wrote each cell by the
//! address of the cell's value (`Enc::at`), as for records.

use super::{at, elements, field, integer, octets, width, Enc};
use crate::Value;
use codec_runtime::{EncodeError, EncodeResult, HashSpec};
use codec_schema::{int_width, Checked, Derive, Ptr, StructDef, Type, TypeDef, UnionDef};

/// What a record notes for the constructs that find it later, per type
/// id, worked out once per encode.
#[derive(Debug, Default)]
pub(super) struct Notes<'c> {
    /// Is the type a reference's target (its records' ordinals are noted)?
    ordinal: Vec<bool>,
    /// The key field and the hash glue of a type a hash index holds.
    hashed: Vec<Option<(&'c str, &'c str)>>,
}

impl<'c> Notes<'c> {
    pub(super) fn of(c: &'c Checked) -> Self {
        let n = c.schema.types.len();
        let mut notes = Notes {
            ordinal: vec![false; n],
            hashed: vec![None; n],
        };
        for (i, t) in c.schema.types.iter().enumerate() {
            notes.ordinal[i] = c.is_ref_target(t.name());
        }
        for t in &c.schema.types {
            let TypeDef::Struct(st) = t else { continue };
            for f in &st.fields {
                let Type::Ptr(p) = &f.ty else { continue };
                if let Type::Hash { of, key, hook, .. } = &p.to {
                    if let Some(id) = c.type_id(of) {
                        notes.hashed[id] = Some((key.as_str(), hook.as_str()));
                    }
                }
            }
        }
        notes
    }
}

impl<'c> Enc<'c, '_> {
    /// Notes record `v` of type `id`, written at `start`, for the
    /// references to it and the hash index over it.
    pub(super) fn note_record(
        &mut self,
        id: usize,
        v: &Value,
        start: u64,
        path: &str,
    ) -> EncodeResult<()> {
        if self.notes.ordinal.get(id) == Some(&true) {
            self.w.note_ordinal(id, start);
        }
        if let Some(&Some((key, hook))) = self.notes.hashed.get(id) {
            let kpath = format!("{path}.{key}");
            let k = match field(v, key, &kpath)? {
                Value::Str(s) => s.as_bytes().to_vec(),
                other => octets(other, &kpath)?.into_owned(),
            };
            let h = self.hooks.index_hash(hook, &k).ok_or_else(|| {
                EncodeError::new(&kpath, format!("no glue named `{hook}` hashes keys"))
            })?;
            self.w.note_hash(id, start, h);
        }
        Ok(())
    }

    /// A column record's `CellOffset` field: its cells (of the type its
    /// `CellType` field holds, as many as its `CellCount` field says, or
    /// one) join the row layout, and their place in a row is written.
    pub(super) fn cell_offset(
        &mut self,
        st: &StructDef,
        v: &Value,
        cells: &str,
        t: &Type,
        path: &str,
    ) -> EncodeResult<()> {
        let (tag_field, count_field) = self.c.cell_fields(st);
        let Some(tag_field) = tag_field else {
            return self.w.put_uint(width(t), 0, "").map_err(at(path));
        };
        let tag = integer(field(v, &tag_field.name, path)?, path)? as u64;
        let count = match count_field {
            Some(c) => integer(field(v, &c.name, path)?, path)? as u64,
            None => 1,
        };
        let u = self.cell_union(cells, path)?;
        let size = self.c.cell_size(u, tag);
        let off = self.w.add_cell(tag, count, size, "").map_err(at(path))?;
        self.w.put_uint(width(t), off, "").map_err(at(path))
    }

    fn cell_union(&self, cells: &str, path: &str) -> EncodeResult<&'c UnionDef> {
        match self.c.get(cells) {
            Some(TypeDef::Union(u)) => Ok(u),
            _ => Err(EncodeError::new(path, format!("`{cells}` is not a union"))),
        }
    }

    /// A reference to the `index`-th record of type `to` (the value), patched
    /// once the unit is laid out.
    pub(super) fn reference(
        &mut self,
        rw: &Type,
        base: &codec_schema::Base,
        scale: u64,
        to: &str,
        v: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let index = integer(v, path)?;
        let index = u64::try_from(index)
            .map_err(|_| EncodeError::new(path, format!("record {index} does not exist")))?;
        let id = self
            .c
            .type_id(to)
            .ok_or_else(|| EncodeError::new(path, format!("`{to}` is not a type")))?;
        let here = self.w.pos();
        self.w.put_zeros(int_width(rw).unwrap_or(4) as usize);
        let base = self.base(base, self.record_start);
        self.w
            .defer_ref(here, width(rw), base, scale, id, index, "");
        Ok(())
    }

    /// The hash index field `p` of record `v` (at `rec`, the offset at
    /// `rec + off`) leads to, placed here: the slots, and the chains
    /// through the hashed records written so far.
    pub(super) fn hash_index(
        &mut self,
        v: &Value,
        p: &Ptr,
        rec: u64,
        off: u64,
        path: &str,
    ) -> EncodeResult<()> {
        let Type::Hash {
            of,
            next,
            slots,
            width: hw,
            base,
            prepend,
            ..
        } = &p.to
        else {
            return Err(EncodeError::new(path, "internal: not a hash index"));
        };
        let Some(TypeDef::Struct(rec_def)) = self.c.get(of) else {
            return Err(EncodeError::new(path, format!("`{of}` is not a record")));
        };
        let j = rec_def
            .fields
            .iter()
            .position(|g| &g.name == next)
            .ok_or_else(|| EncodeError::new(path, format!("`{next}` is not a field of `{of}`")))?;
        let next_off = self.c.field_offsets(rec_def)[j].unwrap_or(0);
        let n = integer(field(v, slots, path)?, path)?.max(0) as u64;
        let item_align = self.section_item_align(p);
        self.w.align(item_align);
        let spec = HashSpec {
            type_id: self.c.type_id(of).unwrap_or(0),
            slots: n,
            prepend: prepend.value(),
            width: width(hw),
            base: self.base(base, rec),
            scale: 1,
            next_off,
            next_width: width(&rec_def.fields[j].ty),
            what: "",
            next_what: "",
        };
        let target = self.w.place_hash_index(&spec).map_err(at(path))?;
        self.patch_to(p, rec, off, target, path)
    }

    /// The rows field `p` of a record (at `rec`) leads to, placed here:
    /// each row's cells where the row layout puts them, zeros after them up
    /// to the row length; a cell's offset stays zero, patched when its
    /// target's section is placed ([`Enc::place_cells`]).
    pub(super) fn rows(
        &mut self,
        p: &Ptr,
        rows: &Value,
        rec: u64,
        off: u64,
        path: &str,
    ) -> EncodeResult<()> {
        let Type::Rows {
            cells,
            stride_align,
            ..
        } = &p.to
        else {
            return Err(EncodeError::new(path, "internal: not rows"));
        };
        let u = self.cell_union(cells, path)?;
        let item_align = self.section_item_align(p);
        self.w.align(item_align);
        let start = self.w.pos();
        let stride = self.w.row_stride(stride_align.value());
        self.at.insert(rows as *const Value, start);
        let rows_v = elements(rows, path)?;
        let first = match rows_v.first() {
            Some(r) => elements(r, path)?.len(),
            None => 0,
        };
        let slots = codec_runtime::rows::row_layout(&self.w, first, rows_v.len(), stride, path)?;
        let per_row: u64 = slots.iter().map(|s| s.count).sum();
        for (i, row) in rows_v.iter().enumerate() {
            let rpath = format!("{path}[{i}]");
            let row = elements(row, &rpath)?;
            // Each row is checked as the codec checks the rows' one width.
            codec_runtime::rows::check_row_width(row.len(), per_row, &rpath)?;
            let row_start = self.w.pos();
            let mut k = 0usize;
            for s in &slots {
                for j in 0..s.count {
                    let cpath = format!("{rpath}[{k}]");
                    let (var, value) = self.variant_of(u, &row[k], &cpath)?;
                    if var.tag != s.tag {
                        return Err(codec_runtime::rows::wrong_cell_type(
                            path, &slots, i, k, var.tag,
                        ));
                    }
                    let cell_at = row_start + s.offset + j * s.size;
                    let here = self.w.pos();
                    if here > cell_at {
                        return Err(EncodeError::new(
                            &cpath,
                            "the row layout places two cells at one place",
                        ));
                    }
                    self.w.put_zeros((cell_at - here) as usize);
                    match &var.ty {
                        Type::Ptr(cp) => {
                            self.at.insert(&row[k] as *const Value, cell_at);
                            self.w.put_zeros(int_width(&cp.width).unwrap_or(4) as usize);
                        }
                        t => self.inline(t, value, &cpath)?,
                    }
                    k += 1;
                }
            }
            let end = row_start + stride;
            let here = self.w.pos();
            if here > end {
                return Err(EncodeError::new(
                    &rpath,
                    format!("the cells take more than the row length {stride}"),
                ));
            }
            self.w.put_zeros((end - here) as usize);
        }
        self.patch_to(p, rec, off, start, path)
    }

    /// Places the targets of the rows' cells (`rows`, of cell union
    /// `cells`) that belong to section `sec`, rows in order, cells in
    /// layout order, and patches each cell's offset.
    pub(super) fn place_cells(
        &mut self,
        sec: usize,
        cells: &str,
        rows: &Value,
        path: &str,
    ) -> EncodeResult<()> {
        let u = self.cell_union(cells, path)?;
        let sd = self.c.section(sec);
        let (dedup, item_align) = (sd.dedup, sd.item_align);
        for (i, row) in elements(rows, path)?.iter().enumerate() {
            for (k, cell) in elements(row, path)?.iter().enumerate() {
                let cpath = format!("{path}[{i}][{k}]");
                let (var, value) = self.variant_of(u, cell, &cpath)?;
                let Type::Ptr(cp) = &var.ty else { continue };
                if self.target_section(cp) != sec {
                    continue;
                }
                let Some(&cell_at) = self.at.get(&(cell as *const Value)) else {
                    return Err(EncodeError::new(
                        cpath,
                        "internal: the cell was not written",
                    ));
                };
                let target = self.place_value(&cp.to, value, &dedup, item_align, &cpath)?;
                self.patch_to(cp, cell_at, 0, target, &cpath)?;
            }
        }
        Ok(())
    }

    fn section_item_align(&self, p: &Ptr) -> u64 {
        self.c.section(self.target_section(p)).item_align
    }

    /// The root's `Stride` field: the row length the layout gave.
    pub(super) fn stride(&self, root: &StructDef, rows: &str) -> u64 {
        self.w.row_stride(self.c.stride_align(root, rows))
    }

    /// Patches the root's checksums, last: they cover the bytes every other
    /// patch wrote.
    pub(super) fn checksums(&mut self, root: &StructDef) -> EncodeResult<()> {
        let offsets = self.c.field_offsets(root);
        for (f, off) in root.fields.iter().zip(&offsets) {
            let Some(Derive::Checksum { hook, from, to }) = &f.derive else {
                continue;
            };
            let path = format!("{}.{}", root.name, f.name);
            let Some(off) = off else {
                return Err(EncodeError::new(
                    path,
                    "a derived field must be at a fixed offset of the root",
                ));
            };
            let id = self.c.section_id(to).unwrap_or(0);
            let bytes = self.w.bytes();
            let end = (self.w.section(id).end as usize).min(bytes.len());
            let from = (*from as usize).min(end);
            let sum = self
                .hooks
                .checksum(hook, &bytes[from..end])
                .ok_or_else(|| {
                    EncodeError::new(&path, format!("no glue named `{hook}` computes a checksum"))
                })?;
            self.w
                .patch_uint(*off, width(&f.ty), sum, "")
                .map_err(at(&path))?;
        }
        Ok(())
    }

    /// Applies unit `st`'s encode transform, if it has one, to its bytes
    /// laid out in `self.w`.
    pub(super) fn transform(&mut self, st: &StructDef, path: &str) -> EncodeResult<()> {
        let Some(tr) = st.layout.as_ref().and_then(|l| l.transform.as_ref()) else {
            return Ok(());
        };
        let endian = self.endian;
        self.hooks
            .transform_encode(&tr.encode, self.w.bytes_mut(), endian)
            .ok_or_else(|| {
                EncodeError::new(
                    path,
                    format!("no glue named `{}` transforms a unit", tr.encode),
                )
            })?
            .map_err(at(path))
    }
}
