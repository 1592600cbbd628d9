//! Writes the sample files under `samples/` from documents built here, so
//! the README's commands have real input without any game file.
//!
//! `cargo run -p formats --example make_samples` rewrites them; a test
//! checks that the checked-in samples are what this program writes.

use formats::aamp::{
    self, Curve, ParameterIO, ParameterList, ParameterObject, ParameterValue as Parameter,
};
use formats::byml::schema::{HashMap, HashMapEntry};
use formats::layer::yaz0;
use formats::{bdat, byml, sarc};
use std::path::Path;

fn object(name: &str, params: Vec<(&str, Parameter)>) -> ParameterObject {
    params
        .into_iter()
        .fold(ParameterObject::new(name), |o, (n, v)| o.with(n, v))
}

fn list(name: &str, objects: Vec<ParameterObject>, lists: Vec<ParameterList>) -> ParameterList {
    let mut out = ParameterList::new(name);
    out.objects = objects;
    out.lists = lists;
    out
}

/// A small actor parameter list: scalars, vectors, colours and strings.
fn actor_params() -> ParameterIO {
    let general = object(
        "General",
        vec![
            ("Life", Parameter::Int(120)),
            ("Speed", Parameter::F32(1.5)),
            ("IsBoss", Parameter::Bool(false)),
            ("Scale", Parameter::Vec3([1.0, 1.0, 1.25])),
            ("TintColor", Parameter::Color([1.0, 0.5, 0.25, 1.0])),
            ("ActorName", Parameter::String64("Sample_Guardian".into())),
            ("Tag", Parameter::String32("Sample".into())),
            ("DropTable", Parameter::StringRef("Sample_Guardian".into())),
            ("Flags", Parameter::U32(0x8000_0001)),
        ],
    );
    let attack = object(
        "Attack",
        vec![
            ("Power", Parameter::Int(30)),
            ("Range", Parameter::F32(1.5)),
            ("Direction", Parameter::Vec2([0.0, -1.0])),
            ("Rotation", Parameter::Quat([0.0, 0.0, 0.0, 1.0])),
        ],
    );
    let weak = object(
        "Part_0",
        vec![
            ("Part", Parameter::String32("Eye".into())),
            ("Factor", Parameter::F32(2.0)),
        ],
    );
    let strong = object(
        "Part_0",
        vec![
            ("Part", Parameter::String32("Shell".into())),
            ("Factor", Parameter::F32(0.5)),
        ],
    );
    let parts = list(
        "Parts",
        vec![],
        vec![
            list("Weak", vec![weak], vec![]),
            list("Strong", vec![strong], vec![]),
        ],
    );
    let mut pio = ParameterIO::new("xml");
    pio.root = list("param_root", vec![general, attack], vec![parts]);
    pio
}

/// Curves and every buffer type, with a repeated buffer to exercise reuse.
fn curves_and_buffers() -> ParameterIO {
    let mut floats = [0.0f32; 30];
    for (i, f) in floats.iter_mut().enumerate() {
        *f = i as f32 * 0.125;
    }
    let curve = Curve {
        a: 2,
        b: 15,
        floats,
    };
    let data = object(
        "Data",
        vec![
            ("Falloff", Parameter::Curve1(Box::new([curve.clone()]))),
            (
                "Blend",
                Parameter::Curve2(Box::new([
                    curve.clone(),
                    Curve {
                        a: 1,
                        b: 3,
                        floats: [0.5; 30],
                    },
                ])),
            ),
            ("Ids", Parameter::BufferInt(vec![3, 1, 4, 1, 5, 9, 2, 6])),
            (
                "SameIds",
                Parameter::BufferInt(vec![3, 1, 4, 1, 5, 9, 2, 6]),
            ),
            ("Weights", Parameter::BufferF32(vec![0.25, 0.5, 0.75])),
            (
                "Masks",
                Parameter::BufferU32(vec![0xFFFF_0000, 0x0000_FFFF]),
            ),
            (
                "Blob",
                Parameter::BufferBinary(vec![0xDE, 0xAD, 0xBE, 0xEF, 0x01].into()),
            ),
            (
                "Note",
                Parameter::String256("Curves and buffers written by make_samples".into()),
            ),
        ],
    );
    let mut pio = ParameterIO::new("sample");
    pio.version = 1;
    pio.root = list("param_root", vec![data], vec![]);
    pio
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let out = root.join("aamp");
    std::fs::create_dir_all(&out)?;
    let mut packed = Vec::new();
    for (name, doc) in samples() {
        let bytes = aamp::encode(&doc)?;
        std::fs::write(out.join(name), &bytes)?;
        println!("wrote samples/aamp/{name}");
        packed.push(sarc::Node::new(&format!("Actor/Sample/{name}"), bytes));
    }
    // A legacy BDAT table (the XC2 layout).
    let mut table = bdat::Table::new("ITM_Sample");
    table.add_value_column("Price", bdat::CellType::U16);
    table.add_value_column("Name", bdat::CellType::String);
    for (price, name) in [(120, "Potion"), (300, "Elixir")] {
        let cell = table.string_cell(name);
        table.rows.push(vec![bdat::Cell::U16(price), cell]);
    }
    let tables = bdat::encode(
        &bdat::BdatFile {
            tables: vec![table],
        },
        bdat::Variant::Switch,
    )?;
    std::fs::create_dir_all(root.join("bdat"))?;
    std::fs::write(root.join("bdat/sample.bdat"), &tables)?;
    println!("wrote samples/bdat/sample.bdat");
    packed.push(sarc::Node::new("Data/sample.bdat", tables));
    // A version 7 BYML (TotK's) with a map keyed by 32-bit hashes.
    std::fs::create_dir_all(root.join("byml"))?;
    std::fs::write(
        root.join("byml/sample_v7.byml"),
        byml::encode(&byml_v7(), byml::Variant::Le)?,
    )?;
    println!("wrote samples/byml/sample_v7.byml");
    // A Yaz0-compressed archive holding the others, as BotW packs actors.
    let archive = sarc::encode(&sarc::Sarc::new(packed), sarc::Variant::Little)?;
    std::fs::create_dir_all(root.join("sarc"))?;
    std::fs::write(
        root.join("sarc/Sample.sbactorpack"),
        yaz0::compress(&archive, 0),
    )?;
    println!("wrote samples/sarc/Sample.sbactorpack");
    Ok(())
}

/// A small TotK-style document: named values, a list of records, and a
/// map from flag-name hashes (CRC32 of the name) to values.
fn byml_v7() -> byml::Header {
    use byml::{Array, Container, Entry, Hash, Node};
    let entry = |k: &str, v: Node| Entry {
        key: k.into(),
        value: v,
    };
    let flags = [("IsOpened", Node::Bool(false)), ("Count", Node::Int(3))]
        .into_iter()
        .map(|(name, value)| HashMapEntry {
            hash: crc32fast::hash(name.as_bytes()),
            value,
        })
        .collect();
    let actor = |name: &str, x: f32| {
        Node::Hash(Hash {
            entries: vec![
                entry("Gyaml", Node::String(name.into())),
                entry("Hash", Node::UInt64(0x1234_5678_9ABC_DEF0)),
                entry(
                    "Translate",
                    Node::Array(Array {
                        items: vec![Node::Float(x), Node::Float(0.0), Node::Float(-x)].into(),
                    }),
                ),
            ],
        })
    };
    byml::Header {
        version: 7,
        path_table: 0,
        shares_equal: true,
        root: Some(Container::Hash(Hash {
            entries: vec![
                entry(
                    "Actors",
                    Node::Array(Array {
                        items: vec![actor("Npc_Sample", 1.5), actor("Obj_Sample", -20.25)].into(),
                    }),
                ),
                entry("Flags", Node::HashMap(HashMap { entries: flags })),
            ],
        })),
    }
}

/// The samples, by file name.
pub fn samples() -> Vec<(&'static str, ParameterIO)> {
    vec![
        ("actor.bxml", actor_params()),
        ("curves_and_buffers.bxml", curves_and_buffers()),
    ]
}
