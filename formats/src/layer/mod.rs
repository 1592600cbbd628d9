//! Compression layers around a file: Yaz0 (Breath of the Wild and older:
//! `.szs`, `.sbactorpack`, any extension with a leading `s`) and zstd
//! (Tears of the Kingdom: `.zs`). A layer is peeled off before the format is
//! detected, and put back on encode; its decompressed bytes are exact, and
//! whether recompression gives the original bytes is reported, not promised
//! (the games' encoders are not public).

pub mod yaz0;
pub mod zstd;

pub use self::zstd::Dictionaries;
use std::borrow::Cow;
use std::fmt;

/// A compression layer and what recompression needs to write it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Yaz0 {
        alignment: u32,
    },
    /// The dictionary id the frame names.
    Zstd {
        dictionary: Option<u32>,
    },
}

impl Layer {
    /// The layer around `data`, from its magic.
    pub fn detect(data: &[u8]) -> Option<Layer> {
        if let Some(h) = yaz0::header(data) {
            Some(Layer::Yaz0 {
                alignment: h.alignment,
            })
        } else if data.starts_with(&zstd::MAGIC) {
            Some(Layer::Zstd {
                dictionary: zstd::dictionary_id(data),
            })
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Layer::Yaz0 { .. } => "Yaz0",
            Layer::Zstd { .. } => "zstd",
        }
    }

    /// The bytes inside the layer, at most [`inner_limit`] of `data`'s
    /// length.
    pub fn decompress(self, data: &[u8], dicts: &Dictionaries) -> Result<Vec<u8>, LayerError> {
        self.decompress_within(data, dicts, inner_limit(data.len()))
    }

    /// The bytes inside the layer, refused (before they are allocated) when
    /// they would be more than `limit`: a layer inside a layer or an
    /// archive passes the limit of the outermost file, so that nesting
    /// cannot multiply it.
    pub fn decompress_within(
        self,
        data: &[u8],
        dicts: &Dictionaries,
        limit: u64,
    ) -> Result<Vec<u8>, LayerError> {
        match self {
            Layer::Yaz0 { .. } => yaz0::decompress_within(data, limit),
            Layer::Zstd { .. } => zstd::decompress_within(data, dicts, limit),
        }
    }

    /// `inner` wrapped in this layer again.
    pub fn compress(self, inner: &[u8], dicts: &Dictionaries) -> Result<Vec<u8>, LayerError> {
        match self {
            Layer::Yaz0 { alignment } => Ok(yaz0::compress(inner, alignment)),
            Layer::Zstd { dictionary } => zstd::compress(inner, dictionary, dicts),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The most compression layers peeled off one file (a layer inside a layer
/// is rare; a longer chain is hostile).
pub const MAX_LAYERS: usize = 4;

/// How many times its compressed size a file may grow to, beyond
/// [`INNER_FLOOR`]. Game files compress 2 to 20 times; a zstd frame of RLE
/// blocks can claim a thousand times its size, and every tool holds what it
/// decompresses, and more, in memory.
pub const MAX_GROWTH: u64 = 64;
/// What any file may decompress to, whatever its size.
pub const INNER_FLOOR: u64 = 128 << 20;
/// What no file may decompress to.
pub const INNER_CEILING: u64 = 1 << 30;

/// The most bytes a file of `outer_len` bytes may decompress to, through
/// all its layers and archives: [`MAX_GROWTH`] times it, at least
/// [`INNER_FLOOR`], at most [`INNER_CEILING`].
pub fn inner_limit(outer_len: usize) -> u64 {
    (outer_len as u64)
        .saturating_mul(MAX_GROWTH)
        .clamp(INNER_FLOOR, INNER_CEILING)
}

/// The words of an error for content past [`inner_limit`].
pub(crate) fn too_large(claimed: Option<u64>, limit: u64) -> String {
    let what = match claimed {
        Some(n) => format!("claims {n} decompressed bytes"),
        None => "decompresses to more bytes".to_owned(),
    };
    format!(
        "{what}, more than the {limit} a file of its size may hold ({MAX_GROWTH} times \
         the compressed file, at least {} MiB, at most {} MiB); refusing",
        INNER_FLOOR >> 20,
        INNER_CEILING >> 20
    )
}

/// The layers around `data`, outermost first, and the bytes inside them.
/// The outermost layer is decompressed from `data` itself; only a file
/// with no layer is copied.
pub fn peel(data: &[u8], dicts: &Dictionaries) -> Result<(Vec<Layer>, Vec<u8>), String> {
    peel_from(Cow::Borrowed(data), dicts)
}

/// [`peel`] of bytes the caller gives up: a file with no layer comes back
/// as it is, without a copy.
pub fn peel_owned(data: Vec<u8>, dicts: &Dictionaries) -> Result<(Vec<Layer>, Vec<u8>), String> {
    peel_from(Cow::Owned(data), dicts)
}

fn peel_from(data: Cow<'_, [u8]>, dicts: &Dictionaries) -> Result<(Vec<Layer>, Vec<u8>), String> {
    let mut layers = Vec::new();
    let limit = inner_limit(data.len());
    let mut inner = data;
    while let Some(layer) = Layer::detect(&inner) {
        if layers.len() == MAX_LAYERS {
            return Err(format!("more than {MAX_LAYERS} compression layers"));
        }
        inner = Cow::Owned(
            layer
                .decompress_within(&inner, dicts, limit)
                .map_err(|e| format!("{layer} {e}"))?,
        );
        layers.push(layer);
    }
    Ok((layers, inner.into_owned()))
}

/// The comment a text form carries for a file that was inside `layers`
/// (outermost first), so that the binary written from the text gets them
/// back: `# codec layers: zstd dictionary 2; Yaz0 alignment 128`.
pub fn comment_line(layers: &[Layer]) -> String {
    format!("{LAYERS_COMMENT} {}", describe(layers))
}

const LAYERS_COMMENT: &str = "# codec layers:";

/// The layers as text (`Yaz0 alignment 0; zstd dictionary 2`): what
/// [`comment_line`] writes after its prefix, and what a text form without
/// comments (RSTB's JSON) keeps in a field. [`parse`] reads it.
pub fn describe(layers: &[Layer]) -> String {
    let parts: Vec<String> = layers
        .iter()
        .map(|l| match *l {
            Layer::Yaz0 { alignment } => format!("Yaz0 alignment {alignment}"),
            Layer::Zstd {
                dictionary: Some(id),
            } => format!("zstd dictionary {id}"),
            Layer::Zstd { dictionary: None } => "zstd".to_owned(),
        })
        .collect();
    parts.join("; ")
}

/// The layers `text` names, as [`describe`] writes them.
pub fn parse(text: &str) -> Result<Vec<Layer>, String> {
    let bad = |part: &str| {
        format!("`{part}` is not a layer (`zstd`, `zstd dictionary N`, `Yaz0 alignment N`)")
    };
    let mut layers = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let layer = match words.as_slice() {
            ["zstd"] => Layer::Zstd { dictionary: None },
            ["zstd", "dictionary", n] => Layer::Zstd {
                dictionary: Some(n.parse().map_err(|_| bad(part))?),
            },
            ["Yaz0", "alignment", n] => Layer::Yaz0 {
                alignment: n.parse().map_err(|_| bad(part))?,
            },
            _ => return Err(bad(part)),
        };
        layers.push(layer);
    }
    if layers.len() > MAX_LAYERS {
        return Err(format!("more than {MAX_LAYERS} compression layers"));
    }
    Ok(layers)
}

/// The layers a text's leading comment lines name ([`comment_line`]), and
/// the line (from 1) that names them; none when no such line comes before
/// the document's content.
pub fn from_comment(text: &str) -> Result<Option<(usize, Vec<Layer>)>, String> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{FEFF}').trim();
        let Some(rest) = line.strip_prefix(LAYERS_COMMENT) else {
            if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
                continue;
            }
            return Ok(None);
        };
        return parse(rest)
            .map(|layers| Some((i + 1, layers)))
            .map_err(|e| format!("line {}: {e}", i + 1));
    }
    Ok(None)
}

/// `inner` wrapped in `layers` (outermost first).
pub fn wrap(inner: Vec<u8>, layers: &[Layer], dicts: &Dictionaries) -> Result<Vec<u8>, String> {
    let mut bytes = inner;
    for layer in layers.iter().rev() {
        bytes = layer
            .compress(&bytes, dicts)
            .map_err(|e| format!("{layer}: {e}"))?;
    }
    Ok(bytes)
}

/// Why a layer could not be read or written: where in its input, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerError {
    pub offset: u64,
    pub message: String,
}

impl LayerError {
    pub fn new(offset: u64, message: impl Into<String>) -> Self {
        LayerError {
            offset,
            message: message.into(),
        }
    }
}

impl fmt::Display for LayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset 0x{:x}: {}", self.offset, self.message)
    }
}

impl std::error::Error for LayerError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes with no layer come back as they were given, not copied (an
    /// archive of hundreds of megabytes is held once); a layer is peeled.
    #[test]
    fn owned_bytes_without_a_layer_are_not_copied() {
        let dicts = Dictionaries::default();
        let data = b"SARC and the rest".to_vec();
        let at = data.as_ptr();
        let (layers, inner) = peel_owned(data, &dicts).unwrap();
        assert!(layers.is_empty());
        assert_eq!(inner.as_ptr(), at);
        let packed = yaz0::compress(b"SARC and the rest", 0);
        let (layers, inner) = peel_owned(packed, &dicts).unwrap();
        assert_eq!(layers.len(), 1);
        assert_eq!(inner, b"SARC and the rest");
    }
}
