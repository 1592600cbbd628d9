//! The one part of the AAMP layout that is not declarative: the order in
//! which objects hand their values to the data and string sections.
//!
//! Nintendo's writer interleaves a list's objects with its child lists. The
//! rules below are observed, not documented (research/aamp.md §3 step 4); they
//! reproduce every known file.

use super::schema::{File, ParameterList, ParameterObject};
use codec_runtime::EncodeResult;

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

fn collect<'a>(
    list: &'a ParameterList,
    is_root: bool,
    visit: &mut dyn FnMut(&'a ParameterObject) -> EncodeResult<()>,
) -> EncodeResult<()> {
    // AI programs (first object `DemoAIActionIdx`) keep plain order.
    let ai_program = list
        .objects
        .first()
        .is_some_and(|o| o.name == DEMO_AI_ACTION_IDX);
    let mut objects = list.objects.iter();
    if is_root && !ai_program {
        for o in objects.by_ref().take(ROOT_LEADING_OBJECTS) {
            visit(o)?;
        }
    }
    for (i, child) in list.lists.iter().enumerate() {
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
