//! The one part of the AAMP layout that is not declarative: the order in
//! which objects hand their values to the data and string sections.
//!
//! Nintendo's writer interleaves a list's objects with its child lists. The
//! rules below are observed, not documented (research/aamp.md §3 step 4); they
//! reproduce every known file.

use super::schema::{File, ParameterList, ParameterObject};
use codec_interp::Value;
use codec_runtime::{EncodeError, EncodeResult};

/// The root list hands its first objects over before any child list.
const ROOT_LEADING_OBJECTS: usize = 7;

/// CRC32 of `DemoAIActionIdx` (checked by a test below).
const DEMO_AI_ACTION_IDX: u32 = 0xB994_C459;

/// Yields every object in the order its values are placed.
pub fn data_order<'a>(
    file: &'a File,
    visit: &mut dyn FnMut(&'a ParameterObject) -> EncodeResult<()>,
) -> EncodeResult<()> {
    collect(&file.root, true, visit)
}

/// [`data_order`] on the document's generic form (the schema interpreter
/// writes from it): the same walk, over the same fields.
pub fn data_order_generic(file: &Value) -> Result<Vec<&Value>, String> {
    let root = GenericList(member(file, "root")?);
    let mut out = Vec::new();
    collect(root, true, &mut |o: &Value| {
        out.push(o);
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    Ok(out)
}

/// A list as the order's walk sees it: its objects (with their names) and
/// its child lists. The typed document and its generic form both are one,
/// so the order is written once.
trait ListTree: Sized + Copy {
    type Object: Copy;
    type Objects: Iterator<Item = Self::Object>;
    type Lists: Iterator<Item = Self>;
    fn objects(self) -> EncodeResult<Self::Objects>;
    fn lists(self) -> EncodeResult<Self::Lists>;
    fn name_of(o: Self::Object) -> EncodeResult<u32>;
}

impl<'a> ListTree for &'a ParameterList {
    type Object = &'a ParameterObject;
    type Objects = std::slice::Iter<'a, ParameterObject>;
    type Lists = std::slice::Iter<'a, ParameterList>;
    fn objects(self) -> EncodeResult<Self::Objects> {
        Ok(self.objects.iter())
    }
    fn lists(self) -> EncodeResult<Self::Lists> {
        Ok(self.lists.iter())
    }
    fn name_of(o: &ParameterObject) -> EncodeResult<u32> {
        Ok(o.name)
    }
}

/// A `ParameterList` in the generic form.
#[derive(Clone, Copy)]
struct GenericList<'a>(&'a Value);

/// Field `name` of a record in the generic form.
fn member<'a>(v: &'a Value, name: &str) -> Result<&'a Value, String> {
    match v {
        Value::Struct { fields, .. } => fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, x)| x)
            .ok_or_else(|| format!("an AAMP record without `{name}`")),
        _ => Err(format!("`{name}`: not an AAMP record")),
    }
}

fn seq<'a>(v: &'a Value, name: &str) -> EncodeResult<&'a [Value]> {
    match member(v, name) {
        Ok(Value::Seq(s)) => Ok(s),
        Ok(_) => Err(EncodeError::new(name, "not a list")),
        Err(m) => Err(EncodeError::new(name, m)),
    }
}

impl<'a> ListTree for GenericList<'a> {
    type Object = &'a Value;
    type Objects = std::slice::Iter<'a, Value>;
    type Lists = std::iter::Map<std::slice::Iter<'a, Value>, fn(&'a Value) -> GenericList<'a>>;
    fn objects(self) -> EncodeResult<Self::Objects> {
        Ok(seq(self.0, "objects")?.iter())
    }
    fn lists(self) -> EncodeResult<Self::Lists> {
        Ok(seq(self.0, "lists")?
            .iter()
            .map(GenericList as fn(&'a Value) -> GenericList<'a>))
    }
    fn name_of(o: &'a Value) -> EncodeResult<u32> {
        match member(o, "name") {
            Ok(Value::U32(n)) => Ok(*n),
            _ => Err(EncodeError::new("name", "an object without a u32 name")),
        }
    }
}

fn collect<L: ListTree>(
    list: L,
    is_root: bool,
    visit: &mut dyn FnMut(L::Object) -> EncodeResult<()>,
) -> EncodeResult<()> {
    let mut objects = list.objects()?.peekable();
    // AI programs (first object `DemoAIActionIdx`) keep plain order.
    let ai_program = match objects.peek() {
        Some(&o) => L::name_of(o)? == DEMO_AI_ACTION_IDX,
        None => false,
    };
    if is_root && !ai_program {
        for o in objects.by_ref().take(ROOT_LEADING_OBJECTS) {
            visit(o)?;
        }
    }
    for (i, child) in list.lists()?.enumerate() {
        if !ai_program && i % 2 == 0 {
            if let Some(o) = objects.next() {
                visit(o)?;
            }
        }
        collect(child, false, visit)?;
    }
    objects.try_for_each(visit)
}

#[cfg(test)]
mod tests {
    #[test]
    fn demo_ai_action_idx_hash() {
        assert_eq!(
            codec_runtime::crc32(b"DemoAIActionIdx"),
            super::DEMO_AI_ACTION_IDX
        );
    }
}
