//! AINB (AI node binaries of Tears of the Kingdom, Splatoon 3 and others)
//! with the embedded EXB expression section.
//!
//! The binary layout is generated from `schemas/ainb.ron`, and so is the
//! document model: [`File`] holds the header, the commands and nodes, and
//! the tables the nodes point into, with every window, index and the string
//! pool's order kept, so that a decoded file encodes back to the same bytes.
//! See `docs/ainb-design.md`.

pub mod glue;
pub mod text;
pub mod validate;
pub mod views;

/// The codec generated from `schemas/ainb.ron`.
pub mod schema {
    codec_derive::schema!("../schemas/ainb.ron", hooks = super::glue, serde);
}

use codec_runtime::{DecodeError, EncodeError, ErrorKind, PathSeg};

pub use schema::File;

/// The magic at offset 0.
pub const MAGIC: &[u8; 4] = b"AIB ";

pub use schema::Variant;

/// The versions this codec reads and writes, with their schema variants.
pub const VERSIONS: [(u32, Variant); 3] = [
    (0x404, Variant::V404),
    (0x407, Variant::V407),
    (0x408, Variant::V408),
];

/// The schema variant of a version.
pub fn variant_of(version: u32) -> Option<Variant> {
    VERSIONS
        .iter()
        .find(|(v, _)| *v == version)
        .map(|&(_, k)| k)
}

fn version_error(offset: u64, version: u32) -> DecodeError {
    DecodeError::new(
        offset,
        ErrorKind::Invalid(format!(
            "unsupported AINB version 0x{version:x} (supported: 0x404, 0x407, 0x408)"
        )),
    )
    .within(PathSeg::Field("version".into()))
    .within(PathSeg::Type("File".into()))
}

/// Decodes an AINB file of any supported version.
pub fn decode(data: &[u8]) -> Result<File, DecodeError> {
    let Some(word) = data.get(4..8) else {
        // Too short for a header: the schema reports where it ends.
        return schema::decode(data, Variant::V407);
    };
    let version = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    match variant_of(version) {
        Some(v) => {
            let file = schema::decode(data, v)?;
            validate::validate(&file, data)?;
            Ok(file)
        }
        None if !data.starts_with(MAGIC) => schema::decode(data, Variant::V407),
        None => Err(version_error(4, version)),
    }
}

/// Encodes a document the way the original tools lay it out, in the layout
/// of its `version`.
pub fn encode(file: &File) -> Result<Vec<u8>, EncodeError> {
    let Some(v) = variant_of(file.version) else {
        return Err(EncodeError::new(
            "File.version",
            format!(
                "unsupported AINB version 0x{:x} (supported: 0x404, 0x407, 0x408)",
                file.version
            ),
        ));
    };
    let bytes = schema::encode(file, v)?;
    // What the encoder writes must decode: a window that runs past its table
    // (a hand-edited base, say) is refused here with the decoder's words,
    // rather than written into a file nothing reads back.
    validate::validate(file, &bytes)
        .map_err(|e| EncodeError::new(e.path(), e.kind().to_string()))?;
    Ok(bytes)
}

impl schema::Node {
    /// A node of type `ty` (see `validate::NODE_TYPES`) named `name`: no
    /// flags, properties, inputs, outputs, plugs, attachments or queries,
    /// a zero GUID. Encoding fills its index and name hash.
    pub fn new(ty: u16, name: &str) -> schema::Node {
        let w = || schema::Window { base: 0, count: 0 };
        let io = || schema::IoWindow {
            input_base: 0,
            input_count: 0,
            output_base: 0,
            output_count: 0,
        };
        schema::Node {
            r#type: ty,
            index: 0,
            attachment_count: 0,
            flags: schema::NodeFlags::default(),
            reserved_0x07: 0,
            name: name.into(),
            name_hash: 0,
            reserved_0x10: 0,
            params: schema::ParamBlock {
                properties: [w(), w(), w(), w(), w(), w()],
                io: [io(), io(), io(), io(), io(), io()],
                plugs: Default::default(),
                unknown_tail: Default::default(),
            },
            expression_count: 0,
            expression_io_size: 0,
            multi_count: 0,
            reserved_0x1e: 0,
            attachment_base: 0,
            query_base: 0,
            query_count: 0,
            state_info: None,
            reserved_0x28: 0,
            guid: [0; 16],
        }
    }
}

impl File {
    /// An empty document of a version (0x404, 0x407 or 0x408) and category
    /// (`AI`, `Logic`, `Sequence`): no commands, nodes or blackboard
    /// parameters, every table present and empty, the string pool left to the
    /// writer (strings are then written in first-use order).
    pub fn new(version: u32, filename: &str, category: &str) -> File {
        use schema::*;
        let header = || BbHeader {
            count: 0,
            first: 0,
            value_offset: 0,
            reserved_0x06: 0,
        };
        File {
            version,
            filename: filename.into(),
            query_count: 0,
            output_count: 0,
            blackboard: Blackboard {
                string_header: header(),
                s32_header: header(),
                u32_count: 0,
                u32_first: 0,
                u32_value_offset: 0,
                unknown_u32_0x06: 0,
                f32_header: header(),
                bool_header: header(),
                vec3_header: header(),
                pointer_header: header(),
                entries: Vec::new(),
                string_values: Vec::new(),
                s32_values: Vec::new(),
                u32_values: Vec::new(),
                f32_values: Vec::new(),
                bool_values: Vec::new(),
                vec3_values: Vec::new(),
                file_refs: Vec::new(),
            },
            string_pool: codec_runtime::StringPool::default(),
            enum_relocs: Vec::new(),
            properties: PropertyTable {
                int: Some(Vec::new()),
                bool: Some(Vec::new()),
                float: Some(Vec::new()),
                string: Some(Vec::new()),
                vec3: Some(Vec::new()),
                pointer: Some(Vec::new()),
            },
            transitions: Vec::new(),
            io: IoTable {
                int_inputs: Some(Vec::new()),
                int_outputs: Some(Vec::new()),
                bool_inputs: Some(Vec::new()),
                bool_outputs: Some(Vec::new()),
                float_inputs: Some(Vec::new()),
                float_outputs: Some(Vec::new()),
                string_inputs: Some(Vec::new()),
                string_outputs: Some(Vec::new()),
                vec3_inputs: Some(Vec::new()),
                vec3_outputs: Some(Vec::new()),
                pointer_inputs: Some(Vec::new()),
                pointer_outputs: Some(Vec::new()),
            },
            multi: Vec::new(),
            attachments: Vec::new(),
            attachment_ids: Vec::new(),
            exb: None,
            replacement: ReplacementTable {
                replaced: 0,
                reserved_0x01: 0,
                node_count: -1,
                attachment_count: -1,
                entries: Vec::new(),
            },
            unknown_0x48: 0,
            queries: Vec::new(),
            reserved_0x54: 0,
            x58: None,
            modules: Vec::new(),
            category: category.into(),
            category_id: match category {
                "Logic" => 1,
                "Sequence" => 2,
                _ => 0,
            },
            actions: Vec::new(),
            x6c: Some(0),
            blackboard_ids: BlackboardIds { id: 0, parent: 0 },
            commands: Vec::new(),
            nodes: Vec::new(),
        }
    }
}
