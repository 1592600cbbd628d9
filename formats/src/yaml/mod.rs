//! YAML in the community's dialects, shared by the text forms of the
//! formats (AAMP and BYML write and read oead's dialect).
//!
//! - [`emit`]: a writer that takes libyaml's decisions (what oead's text is
//!   made of), driven by each format with its own shapes;
//! - [`number`]: how numbers are printed and how plain scalars resolve
//!   (oead's rules);
//! - [`read`]: saphyr-parser's events with their positions, and errors that
//!   name the line and column;
//! - [`fast`]: the same events from a one-pass reader for the YAML tools
//!   write, which leaves any other text to saphyr-parser.

pub(crate) mod emit;
pub mod fast;
pub mod number;
pub(crate) mod read;
pub(crate) mod tree;

pub use read::TextError;
