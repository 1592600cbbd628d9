//! The two choices the AINB schema leaves to code: which layout a plug body
//! has, and which a transition has. Both look only at what the decoder
//! already knows (the node type, the plug group, the position in the group,
//! the bytes up to the next offset target); the encoder writes whichever
//! variant the value holds.

use super::schema::Plug;
use codec_runtime::SelectCx;

/// Node types whose child plugs hold a string condition.
const STRING_SELECTOR: u64 = 5;

/// Plug groups (the index into a parameter block's ten groups).
const GROUP_CHILD: usize = 2;
const GROUP_TRANSITION: usize = 3;
const GROUP_STRING: usize = 4;

/// The layout of a plug body: the group and the node type say what it
/// holds, the room up to the next plug (or the next block) how much of it
/// (research/ainb.md §4.3; the room also keeps bodies that disagree with the
/// input's declared type exact). Anything else is kept as bytes.
pub fn plug_variant(cx: &SelectCx<'_>) -> Option<u64> {
    let node_type = cx.get("type")?;
    Some(match (cx.group, cx.room()) {
        (GROUP_TRANSITION, 8) => Plug::TAG_TRANSITION,
        (_, 8) => Plug::TAG_LINK,
        (GROUP_CHILD, 16) if node_type == STRING_SELECTOR => Plug::TAG_STRING_CASE,
        (GROUP_CHILD, 16) => Plug::TAG_CASE,
        // The last child of an F32 selector is its default case.
        (GROUP_CHILD, 40) if cx.is_last() => Plug::TAG_RANGE_DEFAULT,
        (GROUP_CHILD, 40) => Plug::TAG_RANGE_CASE,
        (GROUP_STRING, 16) => Plug::TAG_STRING_INPUT,
        (_, 16) => Plug::TAG_INPUT,
        (_, 24) => Plug::TAG_VEC3_INPUT,
        _ => Plug::TAG_RAW,
    })
}

/// A transition of type 0 (the low byte of its flag word) names a command.
pub fn transition_variant(cx: &SelectCx<'_>) -> Option<u64> {
    let kind = *cx.bytes.first()?;
    Some(u64::from(kind != 0))
}
