//! Names the generated Rust code gives to things the schema does not name
//! itself. Codegen (`codec-derive`) emits them, the checker refuses schemas
//! in which two of them would clash, and the interpreter puts them in its
//! values (which must equal the compiled codec's, serialized); so they are
//! made here, once, and the three cannot drift apart.

/// `lists` -> `Lists`, `value_type` -> `ValueType`: each `_`-separated part
/// with its first letter in upper case (ASCII), joined; empty parts (from
/// doubled, leading or trailing `_`) are dropped.
pub fn upper_camel_case(name: &str) -> String {
    name.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The name of the struct generated for bitfield `field` of struct `owner`:
/// the owner's name followed by the field's in upper camel case
/// (`Header` + `flags_hi` -> `HeaderFlagsHi`).
pub fn bits_struct_name(owner: &str, field: &str) -> String {
    format!("{owner}{}", upper_camel_case(field))
}

/// A variant name as a constant's: `StringCase` -> `STRING_CASE`,
/// `Vec3Input` -> `VEC3_INPUT` (the generated unions' `TAG_` constants).
pub fn upper_snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_uppercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_capitalized_and_empty_parts_dropped() {
        assert_eq!(upper_camel_case("lists"), "Lists");
        assert_eq!(upper_camel_case("value_type"), "ValueType");
        assert_eq!(upper_camel_case("_a__b_"), "AB");
        assert_eq!(upper_camel_case("x1_2y"), "X12y");
        assert_eq!(bits_struct_name("Header", "flags_hi"), "HeaderFlagsHi");
    }

    #[test]
    fn variant_names_become_constant_names() {
        assert_eq!(upper_snake("StringCase"), "STRING_CASE");
        assert_eq!(upper_snake("Vec3Input"), "VEC3_INPUT");
        assert_eq!(upper_snake("Raw"), "RAW");
        assert_eq!(upper_snake("U8"), "U8");
        assert_eq!(upper_snake("String32"), "STRING32");
    }
}
