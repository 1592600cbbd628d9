//! The YAML writer: oead's text, byte for byte.
//!
//! oead builds its text with libyaml's emitter (width 120, indent 2,
//! unicode output); this module drives [`crate::yaml::emit::Writer`], which
//! takes libyaml's decisions, with the shapes of the AAMP dialect.

use crate::aamp::names::{NameTable, Namer};
use crate::aamp::{Curve, ParameterIO, ParameterList, ParameterObject, ParameterValue, ROOT_NAME};
use crate::yaml::emit::{Writer, INDENT};
use crate::yaml::number::FloatText;

use super::tags::Kind;

/// Writes `pio` as oead's YAML.
pub fn emit(pio: &ParameterIO, names: &NameTable) -> String {
    let mut e = Emitter {
        w: Writer::new(4096),
        namer: Namer::new(names, pio),
        scratch: String::new(),
    };
    e.w.write_tag(Kind::Io.text());
    e.key_str("version", 0);
    e.w.int(i64::from(pio.version));
    e.key_str("type", 0);
    e.untagged_string(&pio.data_type, 0);
    e.key_str("param_root", 0);
    e.list(&pio.root, 0, ROOT_NAME.0);
    e.w.write_indent(0);
    e.w.into_string()
}

struct Emitter<'a> {
    w: Writer,
    namer: Namer<'a>,
    scratch: String,
}

impl Emitter<'_> {
    fn key_str(&mut self, key: &str, indent: usize) {
        self.w.key_word(key, indent);
    }

    /// A mapping key that is a name (a string, quoted when it would read as
    /// something else) or a bare hash.
    fn key_name(&mut self, hash: u32, index: usize, parent: u32, indent: usize) {
        self.w.write_indent(indent);
        // Take the name out of the namer so that `self` can be borrowed.
        let name = self.namer.name(hash, index, parent).map(|n| {
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            s.push_str(n);
            s
        });
        match name {
            None => {
                self.w.int(i64::from(hash));
                self.w.write_indicator(":", false, false, false);
            }
            Some(name) => {
                self.w.block_key(&name, indent);
                self.scratch = name;
            }
        }
    }

    /// An untagged string value (StringRef, the type).
    fn untagged_string(&mut self, s: &str, indent: usize) {
        self.w.string(s, None, false, indent + INDENT);
    }

    fn tagged_string(&mut self, tag: &str, s: &str, indent: usize) {
        self.w.string(s, Some(tag), false, indent + INDENT);
    }

    fn empty_mapping(&mut self) {
        self.w.empty("{", "}");
    }

    /// A list whose own key is `name` (the parent of its children's keys).
    fn list(&mut self, list: &ParameterList, indent: usize, name: u32) {
        self.w.write_tag(Kind::List.text());
        let inner = indent + INDENT;
        self.key_str("objects", inner);
        if list.objects.is_empty() {
            self.empty_mapping();
        }
        for (i, object) in list.objects.iter().enumerate() {
            self.key_name(object.name, i, name, inner + INDENT);
            self.object(object, inner + INDENT);
        }
        self.key_str("lists", inner);
        if list.lists.is_empty() {
            self.empty_mapping();
        }
        for (i, child) in list.lists.iter().enumerate() {
            self.key_name(child.name, i, name, inner + INDENT);
            self.list(child, inner + INDENT, child.name);
        }
    }

    fn object(&mut self, object: &ParameterObject, indent: usize) {
        self.w.write_tag(Kind::Obj.text());
        if object.params.is_empty() {
            self.empty_mapping();
        }
        let inner = indent + INDENT;
        for (i, param) in object.params.iter().enumerate() {
            self.key_name(param.name, i, object.name, inner);
            self.value(&param.value, inner);
        }
    }

    fn value(&mut self, value: &ParameterValue, indent: usize) {
        match value {
            ParameterValue::Bool(b) => {
                self.w
                    .write_plain(if *b { "true" } else { "false" }, false, 0)
            }
            ParameterValue::F32(v) => self.float_item(*v),
            ParameterValue::Int(v) => self.w.int(i64::from(*v)),
            ParameterValue::Vec2(v) => self.floats(Kind::Vec2.text(), v, indent),
            ParameterValue::Vec3(v) => self.floats(Kind::Vec3.text(), v, indent),
            ParameterValue::Vec4(v) => self.floats(Kind::Vec4.text(), v, indent),
            ParameterValue::Color(v) => self.floats(Kind::Color.text(), v, indent),
            ParameterValue::Quat(v) => self.floats(Kind::Quat.text(), v, indent),
            ParameterValue::String32(s) => self.tagged_string(Kind::Str32.text(), s, indent),
            ParameterValue::String64(s) => self.tagged_string(Kind::Str64.text(), s, indent),
            ParameterValue::String256(s) => self.tagged_string(Kind::Str256.text(), s, indent),
            ParameterValue::StringRef(s) => self.untagged_string(s, indent),
            ParameterValue::Curve1(c) => self.curves(&c[..], indent),
            ParameterValue::Curve2(c) => self.curves(&c[..], indent),
            ParameterValue::Curve3(c) => self.curves(&c[..], indent),
            ParameterValue::Curve4(c) => self.curves(&c[..], indent),
            ParameterValue::BufferInt(v) => self.ints(
                Kind::BufferInt.text(),
                v.iter().map(|&x| i64::from(x)),
                indent,
            ),
            ParameterValue::BufferF32(v) => self.floats(Kind::BufferF32.text(), v, indent),
            ParameterValue::U32(v) => {
                self.w.write_tag(Kind::U.text());
                self.w.int(i64::from(*v));
            }
            ParameterValue::BufferU32(v) => self.ints(
                Kind::BufferU32.text(),
                v.iter().map(|&x| i64::from(x)),
                indent,
            ),
            ParameterValue::BufferBinary(v) => self.ints(
                Kind::BufferBinary.text(),
                v.iter().map(|&x| i64::from(x)),
                indent,
            ),
        }
    }

    /// A NaN that `.nan` does not cover: `!f32 0xXXXXXXXX`.
    fn nan_bits(&mut self, bits: u32) {
        self.w.write_tag(Kind::F32.text());
        self.w.hex32(bits);
    }

    fn seq_start(&mut self, tag: &str) {
        self.w.write_tag(tag);
        self.w.flow_start("[");
    }

    /// Before an item of a flow sequence whose entries continue at `indent`.
    #[inline]
    fn seq_item(&mut self, first: bool, indent: usize) {
        self.w.flow_item(first, indent);
    }

    fn seq_end(&mut self) {
        self.w.flow_end("]");
    }

    fn float_item(&mut self, v: f32) {
        if let FloatText::Bits(bits) = self.w.float(v) {
            self.nan_bits(bits);
        }
    }

    fn int_item(&mut self, v: i64) {
        self.w.int(v);
    }

    fn floats(&mut self, tag: &str, values: &[f32], indent: usize) {
        self.seq_start(tag);
        for (i, &v) in values.iter().enumerate() {
            self.seq_item(i == 0, indent + INDENT);
            self.float_item(v);
        }
        self.seq_end();
    }

    fn ints(&mut self, tag: &str, values: impl Iterator<Item = i64>, indent: usize) {
        self.seq_start(tag);
        for (i, v) in values.enumerate() {
            self.seq_item(i == 0, indent + INDENT);
            self.int_item(v);
        }
        self.seq_end();
    }

    fn curves(&mut self, curves: &[Curve], indent: usize) {
        self.seq_start(Kind::Curve.text());
        let mut first = true;
        for curve in curves {
            for v in [curve.a, curve.b] {
                self.seq_item(first, indent + INDENT);
                first = false;
                self.int_item(i64::from(v));
            }
            for &v in &curve.floats {
                self.seq_item(false, indent + INDENT);
                self.float_item(v);
            }
        }
        self.seq_end();
    }
}
