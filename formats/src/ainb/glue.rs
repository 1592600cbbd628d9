//! The two choices the AINB schema leaves to code: which layout a plug body
//! has, and which a transition has. Both look only at what the decoder
//! already knows (the node type, the plug group, the position in the group,
//! the bytes up to the next offset target); the encoder writes whichever
//! variant the value holds.

use codec_runtime::SelectCx;

/// Node types whose child plugs hold a string condition.
const STRING_SELECTOR: u64 = 5;

/// Plug groups (the index into a parameter block's ten groups).
const GROUP_CHILD: usize = 2;
const GROUP_TRANSITION: usize = 3;
const GROUP_STRING: usize = 4;

/// Tags of the `Plug` union's variants.
pub mod plug {
    pub const LINK: u64 = 0;
    pub const TRANSITION: u64 = 1;
    pub const CASE: u64 = 2;
    pub const STRING_CASE: u64 = 3;
    pub const RANGE_CASE: u64 = 4;
    pub const INPUT: u64 = 5;
    pub const STRING_INPUT: u64 = 6;
    pub const VEC3_INPUT: u64 = 7;
    pub const RAW: u64 = 8;
    pub const RANGE_DEFAULT: u64 = 9;
}

/// The layout of a plug body: the group and the node type say what it
/// holds, the room up to the next plug (or the next block) how much of it
/// (research/ainb.md §4.3; the room also keeps bodies that disagree with the
/// input's declared type exact). Anything else is kept as bytes.
pub fn plug_variant(cx: &SelectCx<'_>) -> Option<u64> {
    let node_type = cx.get("type")?;
    Some(match (cx.group, cx.room()) {
        (GROUP_TRANSITION, 8) => plug::TRANSITION,
        (_, 8) => plug::LINK,
        (GROUP_CHILD, 16) if node_type == STRING_SELECTOR => plug::STRING_CASE,
        (GROUP_CHILD, 16) => plug::CASE,
        // The last child of an F32 selector is its default case.
        (GROUP_CHILD, 40) if cx.is_last() => plug::RANGE_DEFAULT,
        (GROUP_CHILD, 40) => plug::RANGE_CASE,
        (GROUP_STRING, 16) => plug::STRING_INPUT,
        (_, 16) => plug::INPUT,
        (_, 24) => plug::VEC3_INPUT,
        _ => plug::RAW,
    })
}

/// A transition of type 0 (the low byte of its flag word) names a command.
pub fn transition_variant(cx: &SelectCx<'_>) -> Option<u64> {
    let kind = *cx.bytes.first()?;
    Some(u64::from(kind != 0))
}
