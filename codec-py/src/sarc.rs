//! A SARC archive as Python values: `files`, a dict of each member's name
//! and bytes in file-table order, and `alignments`, the alignment each
//! member was found at, so that an unedited archive writes back byte for
//! byte. A member added, or one taken out of `alignments`, is aligned as
//! `codec archive` aligns it: as its unchanged siblings of the same
//! extension, else by its kind. The file table is sorted by name hash on
//! writing, so `files`' order does not matter there.
//!
//! The document's dict: `schema` (`"sarc"`), `variant` (`Little` or
//! `Big`), `files`, `alignments`; and, only where an archive departs from
//! the usual values, `header` (a dict of its header numbers) and
//! `name_flags` (a member's name flag when not 1).

use crate::form::{int_in, type_name, FormError, FormResult};
use codec_runtime::placement::kept_align;
use formats::sarc::schema::view;
use formats::sarc::{self, Node, Sarc, Variant};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyMemoryView, PySlice, PyString};

/// The header's numbers a file keeps, by name.
fn header_numbers(s: &mut Sarc) -> [(&'static str, HeaderNumber<'_>); 7] {
    [
        ("header_size", HeaderNumber::U16(&mut s.header_size)),
        ("version", HeaderNumber::U16(&mut s.version)),
        ("reserved", HeaderNumber::U16(&mut s.reserved)),
        (
            "sfat_header_size",
            HeaderNumber::U16(&mut s.sfat_header_size),
        ),
        ("hash_multiplier", HeaderNumber::U32(&mut s.hash_multiplier)),
        (
            "sfnt_header_size",
            HeaderNumber::U16(&mut s.sfnt_header_size),
        ),
        ("sfnt_reserved", HeaderNumber::U16(&mut s.sfnt_reserved)),
    ]
}

enum HeaderNumber<'a> {
    U16(&'a mut u16),
    U32(&'a mut u32),
}

impl HeaderNumber<'_> {
    fn get(&self) -> u32 {
        match self {
            HeaderNumber::U16(v) => u32::from(**v),
            HeaderNumber::U32(v) => **v,
        }
    }
}

/// Reads a SARC archive into its dict.
///
/// Through the generated zero-copy views: each member's bytes are copied
/// once, from the input into their `bytes` object, where a decode would
/// first copy them into the document (on a large archive, that second copy
/// of fresh memory was 80 % of the time). The alignment a member was found
/// at is the runtime's `kept_align` of its offset in the data section, as
/// decode finds it; writing goes through the encoder as every format's.
///
/// With `view` (the `bytes` object `data` is), each member is a
/// `memoryview` of it instead: no copy at all.
pub fn read<'py>(
    py: Python<'py>,
    data: &[u8],
    view: Option<&Bound<'py, PyBytes>>,
) -> PyResult<Bound<'py, PyDict>> {
    let whole = view.map(|b| PyMemoryView::from(b.as_any())).transpose()?;
    let variant = Variant::detect(data).ok_or_else(|| match sarc::decode(data) {
        Err(e) => crate::decode_error(py, &e),
        Ok(_) => crate::plain_error(py, "not a SARC archive"),
    })?;
    let d = PyDict::new(py);
    d.set_item("schema", "sarc")?;
    d.set_item("variant", format!("{variant:?}"))?;
    let files = PyDict::new(py);
    let alignments = PyDict::new(py);
    let flags = PyDict::new(py);
    let mut header = Sarc::new(Vec::new());
    macro_rules! members {
        ($m:ident) => {{
            let de = |e: codec_runtime::DecodeError| crate::decode_error(py, &e);
            let source = view::$m::source(data);
            let file = view::$m::open(&source).map_err(de)?;
            let section = u64::from(file.data_offset());
            for (i, node) in file.nodes().map_err(de)?.iter().enumerate() {
                let name = node.name().and_then(|n| n.to_str()).map_err(de)?;
                let bytes = node.data().map_err(de)?.bytes();
                let at = (bytes.as_ptr() as usize - data.as_ptr() as usize) as u64;
                let key = PyString::new(py, name);
                match &whole {
                    Some(whole) => files.set_item(
                        &key,
                        whole.get_item(PySlice::new(py, at as isize, (at as usize + bytes.len()) as isize, 1))?,
                    )?,
                    None => files.set_item(&key, PyBytes::new(py, bytes))?,
                }
                if files.len() != i + 1 {
                    return Err(crate::codec_error(
                        py,
                        format!("nodes[{i}]: a second member named {name:?}; a dict holds one (read the archive with codec.Schema(\"schemas/sarc.ron\"))"),
                        None,
                        Some(format!("Sarc.nodes[{i}].name")),
                    ));
                }
                alignments.set_item(&key, kept_align(at, section))?;
                if node.name_flag() != 1 {
                    flags.set_item(&key, node.name_flag())?;
                }
            }
            header.header_size = file.header_size();
            header.version = file.version();
            header.reserved = file.reserved();
            header.sfat_header_size = file.sfat_header_size();
            header.hash_multiplier = file.hash_multiplier();
            header.sfnt_header_size = file.sfnt_header_size().map_err(de)?;
            header.sfnt_reserved = file.sfnt_reserved().map_err(de)?;
            Ok::<(), PyErr>(())
        }};
    }
    let walked = match variant {
        Variant::Little => (|| members!(little))(),
        Variant::Big => (|| members!(big))(),
    };
    walked?;
    d.set_item("files", files)?;
    d.set_item("alignments", alignments)?;
    if !flags.is_empty() {
        d.set_item("name_flags", flags)?;
    }
    let mut usual = Sarc::new(Vec::new());
    let numbers = PyDict::new(py);
    for ((name, got), (_, want)) in header_numbers(&mut header)
        .into_iter()
        .zip(header_numbers(&mut usual))
    {
        if got.get() != want.get() {
            numbers.set_item(name, got.get())?;
        }
    }
    if !numbers.is_empty() {
        d.set_item("header", numbers)?;
    }
    Ok(d)
}

/// Writes a dict of [`read`]'s shape, the GIL released while the members
/// are copied into the archive and it is encoded. (Copying them on two
/// cores was slower: each copy faults in fresh pages, and the faults take
/// one lock.)
pub fn write(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let (variant, members, header) = from_py(doc).map_err(|e| crate::form_error(py, &e))?;
    // The bytes objects are held (`members`) while the GIL is released:
    // immutable, and alive whatever another thread does to the dict.
    let parts: Vec<Part<'_>> = members
        .iter()
        .map(|m| (m.name.as_str(), m.data.bytes(), m.align, m.flag))
        .collect();
    py.allow_threads(|| {
        let nodes: Vec<(Node, bool)> = parts
            .iter()
            .map(|&(name, bytes, align, flag)| {
                let mut node = Node::new(name, bytes.to_vec());
                if let Some(a) = align {
                    node.data.align = a;
                }
                if let Some(f) = flag {
                    node.name_flag = f;
                }
                (node, align.is_some())
            })
            .collect();
        let mut archive = Sarc::new(formats::sarc::folder::settle_alignment(nodes));
        for ((_, slot), value) in header_numbers(&mut archive).into_iter().zip(header) {
            match (slot, value) {
                (HeaderNumber::U16(s), Some(v)) => *s = v as u16,
                (HeaderNumber::U32(s), Some(v)) => *s = v,
                (_, None) => {}
            }
        }
        sarc::encode(&archive, variant)
    })
    .map_err(|e| crate::plain_error(py, e.to_string()))
}

fn dict_at<'py>(doc: &Bound<'py, PyAny>, key: &str) -> FormResult<Option<Bound<'py, PyDict>>> {
    match doc.get_item(key).ok() {
        None => Ok(None),
        Some(v) => match v.downcast::<PyDict>() {
            Ok(d) => Ok(Some(d.clone())),
            Err(_) => {
                Err(FormError::new(format!("a {}: expected a dict", type_name(&v))).at_key(key))
            }
        },
    }
}

/// A member's name, bytes, kept alignment and name flag.
type Part<'a> = (&'a str, &'a [u8], Option<u64>, Option<u8>);

/// A member as the dict gives it.
struct Member<'py> {
    name: String,
    data: Data<'py>,
    /// Its kept alignment; `None`: settled from its siblings.
    align: Option<u64>,
    flag: Option<u8>,
}

/// A member's bytes: a `bytes` object, held, or another bytes-like value
/// copied out.
enum Data<'py> {
    Held(Bound<'py, PyBytes>),
    Copied(Vec<u8>),
}

impl Data<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Held(b) => b.as_bytes(),
            Data::Copied(v) => v,
        }
    }
}

/// The variant, members and header numbers (in [`header_numbers`]' order,
/// `None` where the usual one stays) a dict of [`read`]'s shape describes
/// (`Little` when no variant is given).
fn from_py<'py>(
    doc: &Bound<'py, PyAny>,
) -> FormResult<(Variant, Vec<Member<'py>>, Vec<Option<u32>>)> {
    let variant = match doc.get_item("variant").ok() {
        None => Variant::Little,
        Some(v) => match v.extract::<String>().ok().as_deref() {
            Some("Little") => Variant::Little,
            Some("Big") => Variant::Big,
            _ => return Err(FormError::new("expected `Little` or `Big`").at_key("variant")),
        },
    };
    let files = dict_at(doc, "files")?
        .ok_or_else(|| FormError::new("the dict has no `files` (a dict of names and bytes)"))?;
    let alignments = dict_at(doc, "alignments")?;
    let flags = dict_at(doc, "name_flags")?;
    let mut members = Vec::with_capacity(files.len());
    for (name, data) in files.iter() {
        let at = |e: FormError| {
            e.at_key(name.str().map(|s| s.to_string()).unwrap_or_default())
                .at_key("files")
        };
        let name = name
            .downcast::<PyString>()
            .map_err(|_| {
                at(FormError::new(format!(
                    "a name of type {}: expected a str",
                    type_name(&name)
                )))
            })?
            .to_str()
            .map_err(|e| at(e.into()))?
            .to_owned();
        let data = match data.downcast_exact::<PyBytes>() {
            Ok(b) => Data::Held(b.clone()),
            // A memoryview (`read(copy=False)`) or a bytearray: made bytes
            // once, at C speed.
            Err(_)
                if data.is_instance_of::<PyMemoryView>()
                    || data.is_instance_of::<pyo3::types::PyByteArray>() =>
            {
                Data::Held(
                    data.py()
                        .get_type::<PyBytes>()
                        .call1((data,))?
                        .downcast_into::<PyBytes>()
                        .map_err(PyErr::from)?,
                )
            }
            Err(_) => Data::Copied(data.extract::<Vec<u8>>().map_err(|_| {
                at(FormError::new(format!(
                    "a {}: expected bytes",
                    type_name(&data)
                )))
            })?),
        };
        let align = match alignments
            .as_ref()
            .and_then(|a| a.get_item(&name).ok().flatten())
        {
            Some(a) => Some(
                int_in(&a, "an alignment (u64)")
                    .map_err(|e| e.at_key(&name).at_key("alignments"))?,
            ),
            None => None,
        };
        let flag = match flags
            .as_ref()
            .and_then(|f| f.get_item(&name).ok().flatten())
        {
            Some(f) => Some(
                int_in(&f, "a name flag (u8)").map_err(|e| e.at_key(&name).at_key("name_flags"))?,
            ),
            None => None,
        };
        members.push(Member {
            name,
            data,
            align,
            flag,
        });
    }
    let mut numbers = Vec::new();
    let header = dict_at(doc, "header")?;
    for (name, slot) in header_numbers(&mut Sarc::new(Vec::new())) {
        let given = header
            .as_ref()
            .and_then(|h| h.get_item(name).ok().flatten());
        let at = |e: FormError| e.at_key(name).at_key("header");
        numbers.push(match (given, slot) {
            (None, _) => None,
            (Some(v), HeaderNumber::U16(_)) => {
                Some(u32::from(int_in::<u16>(&v, "a u16").map_err(at)?))
            }
            (Some(v), HeaderNumber::U32(_)) => Some(int_in::<u32>(&v, "a u32").map_err(at)?),
        });
    }
    Ok((variant, members, numbers))
}
