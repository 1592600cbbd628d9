//! Walks and checks over SARC's zero-copy views (`schema::view::little`,
//! `schema::view::big`), for the tests, the fuzz target and as an example
//! of reading an archive without copying its files:
//!
//! ```
//! use formats::sarc::{self, schema::view, Node, Sarc, Variant};
//! let data = sarc::encode(&Sarc::new(vec![Node::new("Actor/a.bxml", b"AAMP".to_vec())]), Variant::Little)?;
//! let source = view::little::source(&data);
//! let archive = view::little::open(&source)?; // checks the header only
//! let node = archive.nodes()?.get(0).unwrap();
//! assert_eq!(node.name()?, "Actor/a.bxml");
//! assert_eq!(node.data()?.bytes(), b"AAMP"); // a slice of `data`, not a copy
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::schema::view;
use super::{Sarc, Variant};
use codec_runtime::DecodeResult;

/// Visits every file of an archive through the views of its byte order:
/// each name and each file's bytes, in place. Returns the number of files
/// and the sum of their lengths.
pub fn visit(data: &[u8], variant: Variant) -> DecodeResult<(usize, u64)> {
    macro_rules! walk {
        ($m:ident) => {{
            let source = view::$m::source(data);
            let file = view::$m::open(&source)?;
            let mut bytes = 0u64;
            let nodes = file.nodes()?;
            for node in nodes {
                let _ = node.name()?;
                bytes += node.data()?.bytes().len() as u64;
            }
            let _ = file.sfnt_header_size()?;
            Ok((nodes.len(), bytes))
        }};
    }
    match variant {
        Variant::Little => walk!(little),
        Variant::Big => walk!(big),
    }
}

/// Where the views of `data` and the decoded archive `doc` disagree, if
/// anywhere: the path of the first field that differs. Each file's bytes
/// are also checked to be the input's own (no copy).
pub fn compare(data: &[u8], doc: &Sarc, variant: Variant) -> Result<(), String> {
    macro_rules! agree {
        ($m:ident) => {{
            let e = |e: codec_runtime::DecodeError| e.to_string();
            let source = view::$m::source(data);
            let file = view::$m::open(&source).map_err(e)?;
            if file.hash_multiplier() != doc.hash_multiplier
                || file.version() != doc.version
                || file.header_size() != doc.header_size
            {
                return Err("Sarc header".into());
            }
            if file.sfnt_header_size().map_err(e)? != doc.sfnt_header_size {
                return Err("Sarc.sfnt_header_size".into());
            }
            let nodes = file.nodes().map_err(e)?;
            if nodes.len() != doc.nodes.len() {
                return Err("Sarc.nodes: length".into());
            }
            for (i, (v, n)) in nodes.iter().zip(&doc.nodes).enumerate() {
                if v.name().map_err(e)?.as_bytes() != n.name.as_bytes() {
                    return Err(format!("Sarc.nodes[{i}].name"));
                }
                if v.name_flag() != n.name_flag {
                    return Err(format!("Sarc.nodes[{i}].name_flag"));
                }
                let bytes = v.data().map_err(e)?.bytes();
                let inside = (bytes.as_ptr() as usize)
                    .checked_sub(data.as_ptr() as usize)
                    .is_some_and(|start| start + bytes.len() <= data.len());
                if bytes != &n.data.value[..] || !inside {
                    return Err(format!("Sarc.nodes[{i}].data"));
                }
            }
            Ok(())
        }};
    }
    match variant {
        Variant::Little => agree!(little),
        Variant::Big => agree!(big),
    }
}
