//! The dialect's tags, each once: the writer takes a tag's text from here,
//! the reader finds a tag's kind here, and the reader's error messages list
//! the tags from here.

/// A tag of the dialect (oead's), `!`-handled: the three containers, then
/// one per parameter type that is not written untagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Io,
    List,
    Obj,
    U,
    F32,
    Str32,
    Str64,
    Str256,
    Vec2,
    Vec3,
    Vec4,
    Color,
    Quat,
    Curve,
    BufferInt,
    BufferF32,
    BufferU32,
    BufferBinary,
    /// YAML's core tags, which the reader also accepts (`!!str`, ...).
    CoreStr,
    CoreInt,
    CoreFloat,
    CoreBool,
}

impl Kind {
    /// The dialect's tags, in the order the reader's messages list them.
    const DIALECT: [Kind; 18] = [
        Kind::Io,
        Kind::List,
        Kind::Obj,
        Kind::U,
        Kind::Str32,
        Kind::Str64,
        Kind::Str256,
        Kind::Vec2,
        Kind::Vec3,
        Kind::Vec4,
        Kind::Color,
        Kind::Quat,
        Kind::Curve,
        Kind::BufferInt,
        Kind::BufferF32,
        Kind::BufferU32,
        Kind::BufferBinary,
        Kind::F32,
    ];

    /// The tag as written: `!vec3`, `!!str`.
    pub(super) const fn text(self) -> &'static str {
        match self {
            Kind::Io => "!io",
            Kind::List => "!list",
            Kind::Obj => "!obj",
            Kind::U => "!u",
            Kind::F32 => "!f32",
            Kind::Str32 => "!str32",
            Kind::Str64 => "!str64",
            Kind::Str256 => "!str256",
            Kind::Vec2 => "!vec2",
            Kind::Vec3 => "!vec3",
            Kind::Vec4 => "!vec4",
            Kind::Color => "!color",
            Kind::Quat => "!quat",
            Kind::Curve => "!curve",
            Kind::BufferInt => "!buffer_int",
            Kind::BufferF32 => "!buffer_f32",
            Kind::BufferU32 => "!buffer_u32",
            Kind::BufferBinary => "!buffer_binary",
            Kind::CoreStr => "!!str",
            Kind::CoreInt => "!!int",
            Kind::CoreFloat => "!!float",
            Kind::CoreBool => "!!bool",
        }
    }

    /// Whether a parameter of this tag is a sequence (its items the
    /// numbers).
    pub(super) const fn is_sequence(self) -> bool {
        matches!(
            self,
            Kind::Vec2
                | Kind::Vec3
                | Kind::Vec4
                | Kind::Color
                | Kind::Quat
                | Kind::Curve
                | Kind::BufferInt
                | Kind::BufferF32
                | Kind::BufferU32
                | Kind::BufferBinary
        )
    }

    /// The dialect's tag with suffix `suffix` (`vec3` for `!vec3`).
    pub(super) fn dialect(suffix: &str) -> Option<Kind> {
        Kind::DIALECT.into_iter().find(|k| &k.text()[1..] == suffix)
    }

    /// YAML's core tag with suffix `suffix` (`str` for `!!str`).
    pub(super) fn core(suffix: &str) -> Option<Kind> {
        [
            Kind::CoreStr,
            Kind::CoreInt,
            Kind::CoreFloat,
            Kind::CoreBool,
        ]
        .into_iter()
        .find(|k| &k.text()[2..] == suffix)
    }

    /// The tags a parameter can carry, listed for an error message.
    pub(super) fn parameter_tags() -> String {
        list(
            Kind::DIALECT
                .into_iter()
                .filter(|k| !matches!(k, Kind::Io | Kind::List | Kind::Obj)),
            ", ",
        )
    }

    /// The tags a sequence parameter can carry, listed for an error message
    /// (`!vec2, ... or !buffer_binary`).
    pub(super) fn sequence_tags() -> String {
        list(
            Kind::DIALECT.into_iter().filter(|k| k.is_sequence()),
            " or ",
        )
    }
}

/// The tags' texts, separated by commas, the last one by `last`.
fn list(kinds: impl Iterator<Item = Kind>, last: &str) -> String {
    let texts: Vec<&str> = kinds.map(Kind::text).collect();
    match texts.split_last() {
        Some((end, [])) => (*end).to_owned(),
        Some((end, rest)) => format!("{}{last}{end}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_is_found_again_by_its_text() {
        for k in Kind::DIALECT {
            assert_eq!(Kind::dialect(&k.text()[1..]), Some(k));
        }
        for k in [
            Kind::CoreStr,
            Kind::CoreInt,
            Kind::CoreFloat,
            Kind::CoreBool,
        ] {
            assert_eq!(Kind::core(&k.text()[2..]), Some(k));
        }
        assert_eq!(Kind::dialect("vec5"), None);
        assert_eq!(
            Kind::dialect("str"),
            None,
            "a core tag is not the dialect's"
        );
    }

    #[test]
    fn the_messages_list_the_tags() {
        assert_eq!(
            Kind::sequence_tags(),
            "!vec2, !vec3, !vec4, !color, !quat, !curve, !buffer_int, !buffer_f32, !buffer_u32 or !buffer_binary"
        );
        assert_eq!(
            Kind::parameter_tags(),
            "!u, !str32, !str64, !str256, !vec2, !vec3, !vec4, !color, !quat, !curve, !buffer_int, !buffer_f32, !buffer_u32, !buffer_binary, !f32"
        );
    }
}
