//! What a [`Reader`](crate::reader::Reader) and a [`Writer`](crate::writer::Writer) remember
//! between calls, one module per construct: the state's types and nothing
//! else. Reader and Writer hold these; each construct's reading and writing
//! (`impl Reader` and `impl Writer` in `scope.rs`, `layout.rs`,
//! `interned.rs`, `shared.rs`, `held.rs`, `placement.rs`, `lane.rs`) and the
//! state's own methods stand above Reader and Writer and use them. With the
//! types down here, Reader and Writer need nothing from the constructs:
//! the imports run one way, from the constructs down to Reader and Writer
//! and from both down to here.

pub(crate) mod held;
pub(crate) mod interned;
pub(crate) mod lane;
pub(crate) mod layout;
pub(crate) mod placement;
pub(crate) mod scope;
pub(crate) mod settled;
pub(crate) mod shared;
pub(crate) mod sorted_values;
