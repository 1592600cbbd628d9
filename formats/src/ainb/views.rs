//! Walks and checks over AINB's zero-copy views (`schema::view::v404`,
//! `v407`, `v408`): for the tests, the fuzz target, and as an example of
//! reading a file in place.
//!
//! AINB's views read what the header, the commands, the nodes and the
//! sections of records at fixed places hold, with every string found in
//! the string pool that opening the file notes. They do not read the
//! constructs that still lack a view (`view::v407::SKIPPED` names the
//! fields): the string pool as a whole, lists counted up to the next
//! section (transitions, multi-input sources, attachment ids, queries),
//! the plugs of the parameter blocks (`Groups`), the blackboard's entries
//! and values, and the unions that glue chooses from what decode has read.
//! `to_owned` reads those.
//!
//! ```no_run
//! use formats::ainb::schema::view::v407 as v;
//! let data = std::fs::read("Sample.logic.root.ainb")?;
//! let source = v::source(&data);
//! let file = v::open(&source)?; // the 0x74-byte header, and where the strings start
//! println!("{} ({})", file.filename()?, file.category()?);
//! for node in file.nodes()? {
//!     println!("{:4} {}", node.index(), node.name()?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{File, Variant};
use codec_runtime::DecodeResult;

/// What a walk found: enough to keep the work from being optimised away,
/// and to compare two walks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub commands: u64,
    pub nodes: u64,
    /// Attachments, modules, actions and enum relocations.
    pub records: u64,
    /// Bytes of every string read.
    pub string_bytes: u64,
    /// A mix of every number read.
    pub numbers: u64,
}

impl Tally {
    fn number(&mut self, bits: u64) {
        self.numbers = self.numbers.rotate_left(5) ^ bits;
    }
}

/// Visits the commands, nodes, attachments, modules, actions and enum
/// relocations of a file of `variant` through its views.
pub fn visit(data: &[u8], variant: Variant) -> DecodeResult<Tally> {
    match variant {
        Variant::V404 => v404::visit(data),
        Variant::V407 => v407::visit(data),
        Variant::V408 => v408::visit(data),
    }
}

/// Where the views of `data` and the decoded file disagree, if anywhere.
pub fn compare(data: &[u8], file: &File, variant: Variant) -> Result<(), String> {
    match variant {
        Variant::V404 => v404::compare(data, file),
        Variant::V407 => v407::compare(data, file),
        Variant::V408 => v408::compare(data, file),
    }
}

macro_rules! walkers {
    ($($m:ident),*) => {$(
        mod $m {
            use super::super::schema::view::$m as v;
            use super::super::File;
            use super::Tally;
            use codec_runtime::{DecodeError, DecodeResult};

            pub(super) fn visit(data: &[u8]) -> DecodeResult<Tally> {
                let source = v::source(data);
                let file = v::open(&source)?;
                let mut t = Tally::default();
                t.string_bytes += (file.filename()?.len() + file.category()?.len()) as u64;
                for c in file.commands()? {
                    t.commands += 1;
                    t.string_bytes += c.name()?.len() as u64;
                    t.number(c.root_node() as u64);
                }
                for n in file.nodes()? {
                    t.nodes += 1;
                    t.string_bytes += n.name()?.len() as u64;
                    t.number(u64::from(n.r#type()) << 16 | n.index() as u16 as u64);
                    t.number(u64::from(n.attachment_base()));
                    let params = n.params()?;
                    for w in params.properties() {
                        t.number(u64::from(w.base()) << 32 | u64::from(w.count()));
                    }
                    for w in params.io() {
                        t.number(u64::from(w.input_base()) << 32 | u64::from(w.output_count()));
                    }
                }
                let bb = file.blackboard()?;
                for h in [bb.string_header(), bb.s32_header(), bb.f32_header(), bb.bool_header(), bb.vec3_header(), bb.pointer_header()] {
                    t.number(u64::from(h.count()) << 16 | u64::from(h.first()));
                }
                for a in file.attachments()? {
                    t.records += 1;
                    t.string_bytes += a.name()?.len() as u64;
                }
                for m in file.modules()? {
                    t.records += 1;
                    t.string_bytes += (m.path()?.len() + m.category()?.len()) as u64;
                }
                for a in file.actions()? {
                    t.records += 1;
                    t.string_bytes += (a.slot()?.len() + a.action()?.len()) as u64;
                }
                for r in file.enum_relocs()? {
                    t.records += 1;
                    t.string_bytes += (r.class()?.len() + r.value()?.len()) as u64;
                }
                Ok(t)
            }

            fn err(e: DecodeError) -> String {
                e.to_string()
            }

            /// A node's property and input/output windows.
            fn same_params(p: v::ParamBlockView<'_>, x: &super::super::schema::ParamBlock) -> bool {
                p.properties().iter().zip(&x.properties).all(|(w, x)| (w.base(), w.count()) == (x.base, x.count))
                    && p.io().iter().zip(&x.io).all(|(w, x)| {
                        (w.input_base(), w.input_count(), w.output_base(), w.output_count())
                            == (x.input_base, x.input_count, x.output_base, x.output_count)
                    })
            }

            /// Compares the `len` records of a list, each by `same`.
            fn each<V, O>(
                what: &str,
                views: impl ExactSizeIterator<Item = V>,
                owned: &[O],
                same: impl Fn(V, &O) -> Result<bool, String>,
            ) -> Result<(), String> {
                if views.len() != owned.len() {
                    return Err(format!("File.{what}: {} records, decode has {}", views.len(), owned.len()));
                }
                for (i, (view, o)) in views.zip(owned).enumerate() {
                    if !same(view, o)? {
                        return Err(format!("File.{what}[{i}]: the view and decode differ"));
                    }
                }
                Ok(())
            }

            pub(super) fn compare(data: &[u8], o: &File) -> Result<(), String> {
                let source = v::source(data);
                let f = v::open(&source).map_err(err)?;
                let text = |s: DecodeResult<codec_runtime::view::ViewStr<'_>>, x: &codec_runtime::Str| {
                    s.map(|s| s.as_bytes() == x.as_bytes()).map_err(err)
                };
                if f.version() != o.version
                    || !text(f.filename(), &o.filename)?
                    || !text(f.category(), &o.category)?
                    || f.category_id() != o.category_id
                    || (f.query_count(), f.output_count()) != (o.query_count, o.output_count)
                {
                    return Err("File: the header differs".into());
                }
                let ids = f.blackboard_ids().map_err(err)?;
                if (ids.id(), ids.parent()) != (o.blackboard_ids.id, o.blackboard_ids.parent) {
                    return Err("File.blackboard_ids differ".into());
                }
                each("commands", f.commands().map_err(err)?.iter(), &o.commands, |c, x| {
                    Ok(text(c.name(), &x.name)?
                        && c.guid() == &x.guid[..]
                        && (c.root_node(), c.secondary_root()) == (x.root_node, x.secondary_root))
                })?;
                each("nodes", f.nodes().map_err(err)?.iter(), &o.nodes, |n, x| {
                    Ok(text(n.name(), &x.name)?
                        && (n.r#type(), n.index(), n.attachment_count()) == (x.r#type, x.index, x.attachment_count)
                        && n.flags() == x.flags
                        && (n.expression_count(), n.expression_io_size(), n.multi_count())
                            == (x.expression_count, x.expression_io_size, x.multi_count)
                        && (n.attachment_base(), n.query_base(), n.query_count())
                            == (x.attachment_base, x.query_base, x.query_count)
                        && n.guid() == &x.guid[..]
                        && same_params(n.params().map_err(err)?, &x.params))
                })?;
                let bb = f.blackboard().map_err(err)?;
                let ob = &o.blackboard;
                let headers = [
                    (bb.string_header(), &ob.string_header),
                    (bb.s32_header(), &ob.s32_header),
                    (bb.f32_header(), &ob.f32_header),
                    (bb.bool_header(), &ob.bool_header),
                    (bb.vec3_header(), &ob.vec3_header),
                    (bb.pointer_header(), &ob.pointer_header),
                ];
                for (i, (h, x)) in headers.iter().enumerate() {
                    if (h.count(), h.first(), h.value_offset()) != (x.count, x.first, x.value_offset) {
                        return Err(format!("File.blackboard: header {i} differs"));
                    }
                }
                each("attachments", f.attachments().map_err(err)?.iter(), &o.attachments, |a, x| {
                    Ok(text(a.name(), &x.name)?
                        && (a.expression_count(), a.expression_io_size())
                            == (x.expression_count, x.expression_io_size))
                })?;
                each("modules", f.modules().map_err(err)?.iter(), &o.modules, |m, x| {
                    Ok(text(m.path(), &x.path)?
                        && text(m.category(), &x.category)?
                        && m.instance_count() == x.instance_count)
                })?;
                each("actions", f.actions().map_err(err)?.iter(), &o.actions, |a, x| {
                    Ok(a.node() == x.node && text(a.slot(), &x.slot)? && text(a.action(), &x.action)?)
                })?;
                each("enum_relocs", f.enum_relocs().map_err(err)?.iter(), &o.enum_relocs, |r, x| {
                    Ok(r.offset() == x.offset
                        && text(r.class(), &x.class)?
                        && text(r.value(), &x.value)?)
                })?;
                Ok(())
            }
        }
    )*};
}

walkers!(v404, v407, v408);
