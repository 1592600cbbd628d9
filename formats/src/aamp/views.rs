//! Walking AAMP files through the generated zero-copy views
//! (`schema::view`): visiting every value without building the document,
//! and checking that a view and the decoded document agree field for field.
//!
//! ```
//! # let pio = formats::aamp::ParameterIO::new("xml");
//! # let bytes = formats::aamp::encode(&pio).unwrap();
//! use formats::aamp::schema::view;
//! let source = view::source(&bytes);
//! let file = view::open(&source)?; // checks the header only
//! assert_eq!(file.data_type()?.to_str()?, "xml");
//! assert_eq!(file.root()?.objects()?.len(), 0);
//! # Ok::<(), codec_runtime::DecodeError>(())
//! ```

use super::schema::view::{FileView, ParameterListView, ParameterObjectView, ParameterValueView};
use super::schema::{File, ParameterList, ParameterObject, ParameterValue};
use codec_runtime::{DecodeError, DecodeResult, ListView, ViewElem};

/// What a walk over every value saw: counts and a checksum of the values'
/// bits, so that no read can be optimised away and two walks compare.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub lists: u64,
    pub objects: u64,
    pub parameters: u64,
    pub checksum: u64,
}

impl Tally {
    fn mix(&mut self, v: u64) {
        self.checksum = self.checksum.rotate_left(5) ^ v;
    }

    fn mix_list<'s, T: ViewElem<'s>>(&mut self, l: ListView<'s, T>, bits: impl Fn(T) -> u64) {
        for v in l {
            self.mix(bits(v));
        }
    }
}

/// Visits every list, object and parameter value of a file through views;
/// strings are read as bytes.
pub fn visit(file: FileView<'_>) -> DecodeResult<Tally> {
    let mut t = Tally::default();
    visit_list(file.root()?, &mut t, false)?;
    Ok(t)
}

/// [`visit`], and every string is also checked to be UTF-8 (as decode
/// checks it).
pub fn visit_text(file: FileView<'_>) -> DecodeResult<Tally> {
    let mut t = Tally::default();
    visit_list(file.root()?, &mut t, true)?;
    Ok(t)
}

fn visit_list(list: ParameterListView<'_>, t: &mut Tally, check_text: bool) -> DecodeResult<()> {
    t.lists += 1;
    t.mix(list.name() as u64);
    for obj in list.objects()? {
        t.objects += 1;
        t.mix(obj.name() as u64);
        for p in obj.params()? {
            t.parameters += 1;
            t.mix(p.name() as u64);
            visit_value(p.value()?, t, check_text)?;
        }
    }
    for child in list.lists()? {
        visit_list(child, t, check_text)?;
    }
    Ok(())
}

fn visit_value(v: ParameterValueView<'_>, t: &mut Tally, check_text: bool) -> DecodeResult<()> {
    use ParameterValueView as V;
    match v {
        V::Bool(b) => t.mix(b as u64),
        V::F32(f) => t.mix(f.to_bits() as u64),
        V::Int(i) => t.mix(i as u32 as u64),
        V::U32(u) => t.mix(u as u64),
        V::Vec2(l) | V::Vec3(l) | V::Vec4(l) | V::Color(l) | V::Quat(l) | V::BufferF32(l) => {
            t.mix_list(l, |f| f.to_bits() as u64)
        }
        V::String32(s) | V::String64(s) | V::String256(s) | V::StringRef(s) => {
            t.mix(s.len() as u64);
            t.mix(s.as_bytes().first().copied().unwrap_or(0) as u64);
            if check_text {
                s.to_str()?;
            }
        }
        V::Curve1(c) | V::Curve2(c) | V::Curve3(c) | V::Curve4(c) => {
            for curve in c {
                t.mix(curve.a() as u64 ^ (curve.b() as u64) << 32);
                t.mix_list(curve.floats(), |f| f.to_bits() as u64);
            }
        }
        V::BufferInt(l) => t.mix_list(l, |i| i as u32 as u64),
        V::BufferU32(l) => t.mix_list(l, |u| u as u64),
        V::BufferBinary(l) => t.mix(l.bytes().len() as u64),
    }
    Ok(())
}

/// Where a view and the decoded document disagree, if anywhere: the path
/// of the first field that differs.
pub fn compare(file: FileView<'_>, doc: &File) -> Result<(), String> {
    let e = |e: DecodeError| e.to_string();
    if file.version() != doc.version {
        return Err("File.version".into());
    }
    if file.format_version() != doc.format_version || file.flags() != doc.flags {
        return Err("File.format_version / flags".into());
    }
    if file.unknown_section_size() != doc.unknown_section_size {
        return Err("File.unknown_section_size".into());
    }
    if file.data_type().map_err(e)?.to_str().map_err(e)? != doc.data_type.as_str() {
        return Err("File.data_type".into());
    }
    compare_list(file.root().map_err(e)?, &doc.root, "File.root")
}

fn compare_list(v: ParameterListView<'_>, l: &ParameterList, path: &str) -> Result<(), String> {
    let e = |e: DecodeError| format!("{path}: {e}");
    if v.name() != l.name {
        return Err(format!("{path}.name"));
    }
    let objects = v.objects().map_err(e)?;
    if objects.len() != l.objects.len() {
        return Err(format!("{path}.objects: length"));
    }
    for (i, (ov, o)) in objects.iter().zip(&l.objects).enumerate() {
        compare_object(ov, o, &format!("{path}.objects[{i}]"))?;
    }
    let lists = v.lists().map_err(e)?;
    if lists.len() != l.lists.len() {
        return Err(format!("{path}.lists: length"));
    }
    for (i, (lv, child)) in lists.iter().zip(&l.lists).enumerate() {
        compare_list(lv, child, &format!("{path}.lists[{i}]"))?;
    }
    Ok(())
}

fn compare_object(
    v: ParameterObjectView<'_>,
    o: &ParameterObject,
    path: &str,
) -> Result<(), String> {
    if v.name() != o.name {
        return Err(format!("{path}.name"));
    }
    let params = v.params().map_err(|e| format!("{path}: {e}"))?;
    if params.len() != o.params.len() {
        return Err(format!("{path}.params: length"));
    }
    for (i, (pv, p)) in params.iter().zip(&o.params).enumerate() {
        let here = format!("{path}.params[{i}]");
        let value = pv.value().map_err(|e| format!("{here}: {e}"))?;
        if pv.name() != p.name || !same_value(value, &p.value) {
            return Err(here);
        }
    }
    Ok(())
}

fn floats<'s>(l: ListView<'s, f32>) -> Vec<u32> {
    l.iter().map(f32::to_bits).collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn same_value(v: ParameterValueView<'_>, o: &ParameterValue) -> bool {
    use ParameterValue as O;
    use ParameterValueView as V;
    match (v, o) {
        (V::Bool(a), O::Bool(b)) => a == *b,
        (V::F32(a), O::F32(b)) => a.to_bits() == b.to_bits(),
        (V::Int(a), O::Int(b)) => a == *b,
        (V::U32(a), O::U32(b)) => a == *b,
        (V::Vec2(a), O::Vec2(b)) => floats(a) == bits(b),
        (V::Vec3(a), O::Vec3(b)) => floats(a) == bits(b),
        (V::Vec4(a), O::Vec4(b)) | (V::Color(a), O::Color(b)) | (V::Quat(a), O::Quat(b)) => {
            floats(a) == bits(b)
        }
        (V::String32(a), O::String32(b))
        | (V::String64(a), O::String64(b))
        | (V::String256(a), O::String256(b))
        | (V::StringRef(a), O::StringRef(b)) => a.to_str().is_ok_and(|a| a == b.as_str()),
        (V::Curve1(a), O::Curve1(b)) => same_curves(a, &b[..]),
        (V::Curve2(a), O::Curve2(b)) => same_curves(a, &b[..]),
        (V::Curve3(a), O::Curve3(b)) => same_curves(a, &b[..]),
        (V::Curve4(a), O::Curve4(b)) => same_curves(a, &b[..]),
        (V::BufferInt(a), O::BufferInt(b)) => a.to_vec() == *b,
        (V::BufferU32(a), O::BufferU32(b)) => a.to_vec() == *b,
        (V::BufferF32(a), O::BufferF32(b)) => floats(a) == bits(b),
        (V::BufferBinary(a), O::BufferBinary(b)) => a.bytes() == b.as_slice(),
        _ => false,
    }
}

fn same_curves(v: ListView<'_, super::schema::view::CurveView<'_>>, o: &[super::Curve]) -> bool {
    v.len() == o.len()
        && v.iter()
            .zip(o)
            .all(|(cv, c)| cv.a() == c.a && cv.b() == c.b && floats(cv.floats()) == bits(&c.floats))
}
