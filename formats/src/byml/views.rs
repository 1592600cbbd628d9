//! Walks and checks over BYML's zero-copy views (`schema::view::le`,
//! `be`, `v1_le`, `v1_be`): for the tests, the fuzz target, the bench, and
//! as an example of reading a document in place. Opening a file checks the
//! header and the two string tables' headers; each key, string and node is
//! read when asked for:
//!
//! ```
//! use formats::byml::{self, schema::view, Container, Entry, Hash, Header, Node, Variant};
//! let doc = Header {
//!     version: 2,
//!     path_table: 0,
//!     root: Some(Container::Hash(Hash {
//!         entries: vec![Entry { key: "Name".into(), value: Node::String("Link".into()) }],
//!     })),
//!     shares_equal: true,
//! };
//! let data = byml::encode(&doc, Variant::Le)?;
//! let source = view::le::source(&data);
//! let file = view::le::open(&source)?;
//! let Some(view::le::ContainerView::Hash(root)) = file.root()? else { unreachable!() };
//! let entry = root.entries()?.get(0).unwrap();
//! assert_eq!(entry.key()?, "Name"); // the key's bytes in the table, not a copy
//! assert!(matches!(entry.value()?, view::le::NodeView::String(s) if s == "Link"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A view reads a hash's entries in the file's order (by key); decode
//! gives them in the order their children were placed. Views do not check
//! that keys ascend or that a string table is sorted: those are properties
//! of a whole list, which decode checks and a view that reads one entry
//! does not see.

use super::{Header, Variant};
use codec_runtime::DecodeResult;

/// What a walk over every node found: enough to keep the work from being
/// optimised away, and to compare two walks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Nodes visited (array items, hash and map values, and the root).
    pub nodes: u64,
    /// Bytes of every key and string value read.
    pub string_bytes: u64,
    /// Bytes of every binary value.
    pub binary_bytes: u64,
    /// A mix of every number's bits.
    pub numbers: u64,
}

impl Tally {
    fn number(&mut self, bits: u64) {
        self.numbers = self.numbers.rotate_left(5) ^ bits;
    }
}

/// Visits every node of a document through the views of its variant:
/// every key, string, number and blob, in place.
pub fn visit(data: &[u8], variant: Variant) -> DecodeResult<Tally> {
    match variant {
        Variant::Le => le::visit(data),
        Variant::Be => be::visit(data),
        Variant::V1Le => v1_le::visit(data),
        Variant::V1Be => v1_be::visit(data),
    }
}

/// Where the views of `data` and the decoded document `doc` disagree, if
/// anywhere: the path of the first node that differs.
pub fn compare(data: &[u8], doc: &Header, variant: Variant) -> Result<(), String> {
    match variant {
        Variant::Le => le::compare(data, doc),
        Variant::Be => be::compare(data, doc),
        Variant::V1Le => v1_le::compare(data, doc),
        Variant::V1Be => v1_be::compare(data, doc),
    }
}

macro_rules! walkers {
    ($($m:ident),*) => {$(
        mod $m {
            use super::super::schema::view::$m as v;
            use super::super::{Array, Container, Hash, HashMap, Header, Node};
            use super::Tally;
            use codec_runtime::{DecodeError, DecodeResult};

            pub(super) fn visit(data: &[u8]) -> DecodeResult<Tally> {
                let source = v::source(data);
                let file = v::open(&source)?;
                let mut t = Tally::default();
                if let Some(root) = file.root()? {
                    t.nodes += 1;
                    match root {
                        v::ContainerView::Array(a) => array(a, &mut t)?,
                        v::ContainerView::Hash(h) => hash(h, &mut t)?,
                        v::ContainerView::HashMap(m) => hash_map(m, &mut t)?,
                    }
                }
                Ok(t)
            }

            fn array(a: v::ArrayView<'_>, t: &mut Tally) -> DecodeResult<()> {
                for item in a.items()? {
                    node(item?, t)?;
                }
                Ok(())
            }

            fn hash(h: v::HashView<'_>, t: &mut Tally) -> DecodeResult<()> {
                for e in h.entries()? {
                    t.string_bytes += e.key()?.len() as u64;
                    node(e.value()?, t)?;
                }
                Ok(())
            }

            fn hash_map(m: v::HashMapView<'_>, t: &mut Tally) -> DecodeResult<()> {
                for e in m.entries()? {
                    t.number(u64::from(e.hash()));
                    node(e.value()?, t)?;
                }
                Ok(())
            }

            /// A node: a container is walked (a call, the walk recursing),
            /// a leaf read in the caller's loop.
            #[inline(always)]
            fn node(n: v::NodeView<'_>, t: &mut Tally) -> DecodeResult<()> {
                use v::NodeView as N;
                match n {
                    N::Array(a) => {
                        t.nodes += 1;
                        array(a, t)
                    }
                    N::Hash(h) => {
                        t.nodes += 1;
                        hash(h, t)
                    }
                    N::HashMap(m) => {
                        t.nodes += 1;
                        hash_map(m, t)
                    }
                    leaf => self::leaf(leaf, t),
                }
            }

            #[inline(always)]
            fn leaf(n: v::NodeView<'_>, t: &mut Tally) -> DecodeResult<()> {
                use v::NodeView as N;
                t.nodes += 1;
                match n {
                    N::String(s) => t.string_bytes += s.len() as u64,
                    N::Binary(b) => t.binary_bytes += b.len() as u64,
                    N::File(f) => t.binary_bytes += f.data()?.len() as u64,
                    // Walked by `node`.
                    N::Array(_) | N::Hash(_) | N::HashMap(_) => {}
                    N::Bool(b) => t.number(u64::from(b)),
                    N::Int(i) => t.number(i as u64),
                    N::Float(f) => t.number(u64::from(f.to_bits())),
                    N::UInt(u) => t.number(u64::from(u)),
                    N::Int64(i) => t.number(i as u64),
                    N::UInt64(u) => t.number(u),
                    N::Double(d) => t.number(d.to_bits()),
                    N::Null => t.number(0),
                }
                Ok(())
            }

            fn err(e: DecodeError) -> String {
                e.to_string()
            }

            pub(super) fn compare(data: &[u8], doc: &Header) -> Result<(), String> {
                let source = v::source(data);
                let file = v::open(&source).map_err(err)?;
                if file.version() != doc.version {
                    return Err("Header.version".into());
                }
                match (file.root().map_err(err)?, &doc.root) {
                    (None, None) => Ok(()),
                    (Some(v::ContainerView::Array(a)), Some(Container::Array(o))) => {
                        same_array(a, o, "root")
                    }
                    (Some(v::ContainerView::Hash(h)), Some(Container::Hash(o))) => {
                        same_hash(h, o, "root")
                    }
                    (Some(v::ContainerView::HashMap(m)), Some(Container::HashMap(o))) => {
                        same_map(m, o, "root")
                    }
                    _ => Err("Header.root: another container".into()),
                }
            }

            fn same_array(a: v::ArrayView<'_>, o: &Array, path: &str) -> Result<(), String> {
                let items = a.items().map_err(err)?;
                if items.len() != o.items.len() {
                    return Err(format!("{path}: {} items, decode has {}", items.len(), o.items.len()));
                }
                for (i, (item, node)) in items.iter().zip(&o.items).enumerate() {
                    same_node(item.map_err(err)?, &node, &format!("{path}[{i}]"))?;
                }
                Ok(())
            }

            fn same_hash(h: v::HashView<'_>, o: &Hash, path: &str) -> Result<(), String> {
                // The file's order is the keys' order; decode's, the order
                // of placement: compare by key order.
                let mut owned: Vec<_> = o.entries.iter().collect();
                owned.sort_by(|a, b| a.key.as_bytes().cmp(b.key.as_bytes()));
                let entries = h.entries().map_err(err)?;
                if entries.len() != owned.len() {
                    return Err(format!("{path}: {} entries, decode has {}", entries.len(), owned.len()));
                }
                for (e, o) in entries.iter().zip(owned) {
                    let key = e.key().map_err(err)?;
                    if key.as_bytes() != o.key.as_bytes() {
                        return Err(format!("{path}: key {key:?}, decode has {:?}", o.key));
                    }
                    same_node(e.value().map_err(err)?, &o.value, &format!("{path}.{key}"))?;
                }
                Ok(())
            }

            fn same_map(m: v::HashMapView<'_>, o: &HashMap, path: &str) -> Result<(), String> {
                let entries = m.entries().map_err(err)?;
                if entries.len() != o.entries.len() {
                    return Err(format!("{path}: {} entries, decode has {}", entries.len(), o.entries.len()));
                }
                for (e, o) in entries.iter().zip(&o.entries) {
                    if e.hash() != o.hash {
                        return Err(format!("{path}: hash {:#x}, decode has {:#x}", e.hash(), o.hash));
                    }
                    same_node(e.value().map_err(err)?, &o.value, &format!("{path}.{:#x}", o.hash))?;
                }
                Ok(())
            }

            fn same_node(n: v::NodeView<'_>, o: &Node, path: &str) -> Result<(), String> {
                use v::NodeView as N;
                let same = match (n, o) {
                    (N::String(s), Node::String(x)) => s.as_bytes() == x.as_bytes(),
                    (N::Binary(b), Node::Binary(x)) => b.bytes() == &x[..],
                    (N::File(f), Node::File(x)) => {
                        f.alignment() == x.alignment && f.data().map_err(err)?.bytes() == &x.data[..]
                    }
                    (N::Array(a), Node::Array(x)) => return same_array(a, x, path),
                    (N::Hash(h), Node::Hash(x)) => return same_hash(h, x, path),
                    (N::HashMap(m), Node::HashMap(x)) => return same_map(m, x, path),
                    (N::Bool(b), Node::Bool(x)) => b == *x,
                    (N::Int(i), Node::Int(x)) => i == *x,
                    (N::Float(f), Node::Float(x)) => f.to_bits() == x.to_bits(),
                    (N::UInt(u), Node::UInt(x)) => u == *x,
                    (N::Int64(i), Node::Int64(x)) => i == *x,
                    (N::UInt64(u), Node::UInt64(x)) => u == *x,
                    (N::Double(d), Node::Double(x)) => d.to_bits() == x.to_bits(),
                    (N::Null, Node::Null(())) => true,
                    _ => false,
                };
                if same {
                    Ok(())
                } else {
                    Err(format!("{path}: the view reads {n:?}, decode has {o:?}"))
                }
            }
        }
    )*};
}

walkers!(le, be, v1_le, v1_be);
