//! The names the dt-12345/AINB JSON gives to numbers, shared by both
//! directions, and the murmur3 hash of names.

/// Node types by number.
pub const NODE_TYPES: &[(u16, &str)] = &[
    (0, "UserDefined"),
    (1, "Element_S32Selector"),
    (2, "Element_Sequential"),
    (3, "Element_Simultaneous"),
    (4, "Element_F32Selector"),
    (5, "Element_StringSelector"),
    (6, "Element_RandomSelector"),
    (7, "Element_BoolSelector"),
    (8, "Element_Fork"),
    (9, "Element_Join"),
    (10, "Element_Alert"),
    (20, "Element_Expression"),
    (100, "Element_ModuleIF_Input_S32"),
    (101, "Element_ModuleIF_Input_F32"),
    (102, "Element_ModuleIF_Input_Vec3f"),
    (103, "Element_ModuleIF_Input_String"),
    (104, "Element_ModuleIF_Input_Bool"),
    (105, "Element_ModuleIF_Input_Ptr"),
    (200, "Element_ModuleIF_Output_S32"),
    (201, "Element_ModuleIF_Output_F32"),
    (202, "Element_ModuleIF_Output_Vec3f"),
    (203, "Element_ModuleIF_Output_String"),
    (204, "Element_ModuleIF_Output_Bool"),
    (205, "Element_ModuleIF_Output_Ptr"),
    (300, "Element_ModuleIF_Child"),
    (400, "Element_StateEnd"),
    (500, "Element_SplitTiming"),
];

pub const S32_SELECTOR: u16 = 1;
pub const F32_SELECTOR: u16 = 4;
pub const STRING_SELECTOR: u16 = 5;
pub const RANDOM_SELECTOR: u16 = 6;
pub const BOOL_SELECTOR: u16 = 7;
pub const ALERT: u16 = 10;
pub const EXPRESSION: u16 = 20;

/// Child plugs of these user-defined nodes hold an enum value (16 bytes).
pub const BSA_UPDATERS: &[&str] = &[
    "SelectorBSABrainVerbUpdater",
    "SelectorBSAFormChangeUpdater",
];

pub fn node_type_name(t: u16) -> Option<&'static str> {
    NODE_TYPES.iter().find(|(n, _)| *n == t).map(|&(_, s)| s)
}

pub fn node_type_of(name: &str) -> Option<u16> {
    NODE_TYPES.iter().find(|(_, s)| *s == name).map(|&(n, _)| n)
}

/// Parameter types, in table order.
pub const PARAM_TYPES: [&str; 6] = ["Int", "Bool", "Float", "String", "Vector3F", "Pointer"];

/// Plug groups (dt-12345/AINB's plug types).
pub const PLUG_GROUPS: [&str; 10] = [
    "Generic",
    "_01",
    "Child",
    "Transition",
    "String",
    "Int",
    "_06",
    "_07",
    "_08",
    "_09",
];

/// Node flags, by bit.
pub const NODE_FLAGS: [&str; 4] = [
    "Is Query",
    "Is Module",
    "Is Root Node",
    "Use MultiParam Type 2",
];

/// Blackboard inheritance modes.
pub const INHERIT_MODES: [&str; 3] = ["InheritFromRoot", "InheritFromParent", "DontInherit"];

/// Replacement types.
pub const REPLACEMENTS: [&str; 3] = ["RemoveChild", "ReplaceChild", "RemoveAttachment"];

/// EXB instruction opcodes, from 1.
pub const OPCODES: [&str; 29] = [
    "END", "STR", "NEG", "NOT", "ADD", "SUB", "MUL", "DIV", "MOD", "INC", "DEC", "VMS", "VDS",
    "LSH", "RSH", "LST", "LTE", "GRT", "GTE", "EQL", "NEQ", "AND", "XOR", "ORR", "LAN", "LOR",
    "CFN", "JZE", "JMP",
];

/// EXB data types.
pub const DATATYPES: [&str; 7] = ["NONE", "IMM", "BOOL", "INT", "FLOAT", "STRING", "VECTOR3F"];

/// EXB operand kinds.
pub const OPERANDS: [&str; 11] = [
    "Immediate",
    "ImmediateString",
    "GlobalMemory",
    "ParamTable",
    "ParamTableString",
    "ExpressionOutput",
    "ExpressionInput",
    "LocalMemory32",
    "LocalMemory64",
    "Output",
    "Input",
];

/// A name from a table, or the number when the table has none.
pub fn name_or_number(table: &[&str], offset: u64, v: u64) -> super::json::J {
    match v.checked_sub(offset).and_then(|i| table.get(i as usize)) {
        Some(s) => super::json::J::Str((*s).to_owned()),
        None => super::json::J::Int(v as i64),
    }
}

/// The number of a name from a table (or a number as it is).
pub fn number_of(table: &[&str], offset: u64, v: &serde_json::Value) -> Option<u64> {
    match v {
        serde_json::Value::String(s) => {
            table.iter().position(|t| t == s).map(|i| i as u64 + offset)
        }
        v => v.as_u64(),
    }
}

/// A GUID's text in the dt-12345/AINB form (the first three groups little
/// endian).
pub fn guid_text(b: &[u8; 16]) -> String {
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
    )
}

/// The bytes of a GUID's text.
pub fn guid_bytes(s: &str) -> Option<[u8; 16]> {
    let hex: Vec<u8> = s.bytes().filter(|&c| c != b'-').collect();
    if hex.len() != 32 || s.len() != 36 {
        return None;
    }
    let mut v = [0u8; 16];
    for (i, slot) in v.iter_mut().enumerate() {
        let pair = std::str::from_utf8(&hex[2 * i..2 * i + 2]).ok()?;
        *slot = u8::from_str_radix(pair, 16).ok()?;
    }
    let mut b = v;
    b[..4].reverse();
    b[4..6].reverse();
    b[6..8].reverse();
    Some(b)
}

/// murmur3 (32-bit, seed 0): the hash AINB keeps of node, attachment and
/// file names.
pub fn murmur3(data: &[u8]) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h: u32 = 0;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h = (h ^ k)
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut k = 0u32;
        for (i, &b) in rest.iter().enumerate() {
            k |= u32::from(b) << (8 * i);
        }
        k = k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h ^= k;
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_matches_the_reference() {
        // Reference values of MurmurHash3_x86_32 with seed 0.
        assert_eq!(murmur3(b""), 0);
        assert_eq!(murmur3(b"hello"), 0x248b_fa47);
        assert_eq!(murmur3(b"Hello, world!"), 0xc036_3e43);
    }

    #[test]
    fn guids_read_back() {
        let b = [
            0xc4, 0x31, 0x86, 0x85, 0xdd, 0xad, 0xc1, 0x44, 0x9e, 0xb1, 0x04, 0x16, 0x86, 0xe8,
            0x46, 0xe1,
        ];
        let t = guid_text(&b);
        assert_eq!(t, "858631c4-addd-44c1-9eb1-041686e846e1");
        assert_eq!(guid_bytes(&t), Some(b));
    }
}
