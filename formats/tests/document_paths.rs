//! The document paths the browser view shows (`codec_interp::
//! document`), read off the interpreter's tree, equal the paths the typed
//! document gives when walked as the text form writes it: BYML hashes by
//! key and arrays by index, AAMP lists, objects and parameters by the names
//! `to-text` gives them. Every path of one equals a path of the other, on
//! corpus files of both formats.

mod common;

use codec_interp::document::{entries, extend, Step};
use codec_interp::{self as interp, Node};
use formats::aamp::names::{NameTable, Namer};
use formats::aamp::{ParameterIO, ParameterList, ROOT_NAME};
use std::collections::BTreeSet;

/// The interpreter's tree of `data`, annotated as `codec explore` does.
fn tree(format: formats::Format, data: &[u8], names: &NameTable) -> Node {
    let c = formats::registry::checked(format).expect("built-in schema");
    let (c, d) = interp::decode_variants(
        c,
        data,
        codec_runtime::Limits::default(),
        &formats::interp_hooks::Glue,
    );
    assert!(d.error.is_none(), "{:?}", d.error);
    let mut root = d.root;
    formats::research::annotate(&c.schema.name, &mut root, names, data);
    root
}

/// Every document path under `n`, `path` being its own.
fn document_paths(n: &Node, path: &str, out: &mut BTreeSet<String>) {
    for e in entries(n) {
        let mut p = path.to_owned();
        let step = if e.segment.starts_with('[') {
            Step::Element(e.segment.clone())
        } else {
            Step::Field(e.segment.clone())
        };
        extend(&mut p, &step);
        let mut below = n;
        // `entries` settles `n` first: its indices start from `n`.
        for &i in &e.at {
            below = &below.children[i];
        }
        out.insert(p.clone());
        document_paths(below, &p, out);
    }
}

fn field(path: &str, name: &str) -> String {
    let mut p = path.to_owned();
    extend(&mut p, &Step::Field(name.to_owned()));
    p
}

/// The paths of a typed BYML node, as its text form nests it.
fn byml_paths(n: &formats::byml::Node, path: &str, out: &mut BTreeSet<String>) {
    use formats::byml::Node;
    match n {
        Node::Hash(h) => {
            for e in &h.entries {
                let p = field(path, &e.key);
                out.insert(p.clone());
                byml_paths(&e.value, &p, out);
            }
        }
        Node::Array(a) => {
            for (i, item) in a.items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                out.insert(p.clone());
                byml_paths(&item, &p, out);
            }
        }
        // A file's bytes and alignment.
        Node::File(_) => {
            out.insert(field(path, "alignment"));
            out.insert(field(path, "data"));
        }
        _ => {}
    }
}

#[test]
fn byml_document_paths_are_the_text_forms_keys_and_indices() {
    let Some(dir) = common::corpus("byml") else {
        return;
    };
    let mut checked = 0;
    for name in [
        "ElectricGenerator.Nin_NX_NVN.esetb.byml",
        "LevelSensor.byml",
        "MainFieldLocation.byml",
        "A-1_Dynamic.byml",
    ] {
        let data = std::fs::read(dir.join(name)).unwrap();
        let (_, doc) = formats::byml::decode(&data).unwrap();
        let mut want = BTreeSet::new();
        want.insert("version".to_owned());
        want.insert("root".to_owned());
        // A setting of the document's, held in no bytes of its own.
        want.insert("shares_equal".to_owned());
        match &doc.root {
            Some(formats::byml::Container::Hash(h)) => {
                byml_paths(&formats::byml::Node::Hash(h.clone()), "root", &mut want)
            }
            Some(formats::byml::Container::Array(a)) => {
                byml_paths(&formats::byml::Node::Array(a.clone()), "root", &mut want)
            }
            other => panic!("{name}: root {other:?}"),
        }
        let t = tree(formats::Format::Byml, &data, &NameTable::new());
        let mut got = BTreeSet::new();
        document_paths(&t, "", &mut got);
        let missing: Vec<_> = want.difference(&got).take(5).collect();
        let extra: Vec<_> = got.difference(&want).take(5).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{name}: missing {missing:?}, extra {extra:?}"
        );
        assert!(want.len() > 5, "{name}: {}", want.len());
        checked += 1;
    }
    assert_eq!(checked, 4);
}

/// The paths of a typed AAMP list under `path`, named as `to-text` names
/// them (objects before lists, as the text writes them).
fn aamp_paths(
    list: &ParameterList,
    path: &str,
    parent: u32,
    namer: &mut Namer<'_>,
    out: &mut BTreeSet<String>,
) {
    let mut name = |hash: u32, i: usize, parent: u32| {
        namer
            .name(hash, i, parent)
            .map(str::to_owned)
            .unwrap_or_else(|| hash.to_string())
    };
    let objects = field(path, "objects");
    out.insert(objects.clone());
    for (i, o) in list.objects.iter().enumerate() {
        let op = field(&objects, &name(o.name, i, parent));
        out.insert(op.clone());
        for (j, p) in o.params.iter().enumerate() {
            out.insert(field(&op, &name(p.name, j, o.name)));
        }
    }
    let lists = field(path, "lists");
    out.insert(lists.clone());
    let named: Vec<String> = list
        .lists
        .iter()
        .enumerate()
        .map(|(i, l)| name(l.name, i, parent))
        .collect();
    for (l, n) in list.lists.iter().zip(named) {
        let lp = field(&lists, &n);
        out.insert(lp.clone());
        aamp_paths(l, &lp, l.name, namer, out);
    }
}

#[test]
fn aamp_document_paths_are_the_names_to_text_writes() {
    let Some(dir) = common::corpus("aamp") else {
        return;
    };
    let mut names = NameTable::new();
    names
        .load_names_file(&dir.join("dict/botw_hashed_names.txt"))
        .unwrap();
    for name in [
        "AIProgram__BGCameraPos.baiprog",
        "ASList__Arrow.baslist",
        "GameRomHorse.bxml",
    ] {
        let data = std::fs::read(dir.join(name)).unwrap();
        let pio: ParameterIO = formats::aamp::decode(&data).unwrap();
        let mut namer = Namer::new(&names, &pio);
        let mut want = BTreeSet::new();
        want.insert("param_root".to_owned());
        aamp_paths(&pio.root, "param_root", ROOT_NAME.0, &mut namer, &mut want);
        let t = tree(formats::Format::Aamp, &data, &names);
        let mut got = BTreeSet::new();
        document_paths(&t, "", &mut got);
        // The file's own fields (version, type, ...) stand beside the root.
        got.retain(|p| p.starts_with("param_root"));
        let missing: Vec<_> = want.difference(&got).take(5).collect();
        let extra: Vec<_> = got.difference(&want).take(5).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{name}: missing {missing:?}, extra {extra:?}"
        );
        // A parameter's path is the text form's, names guessed from the
        // parent included (`AI_0` is in no table).
        if name == "AIProgram__BGCameraPos.baiprog" {
            assert!(
                want.contains("param_root.lists.AI.lists.AI_0.objects.Def.ClassName"),
                "{want:?}"
            );
        }
    }
}
