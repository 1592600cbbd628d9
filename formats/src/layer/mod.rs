//! Compression layers around a file: Yaz0 (Breath of the Wild and older:
//! `.szs`, `.sbactorpack`, any extension with a leading `s`) and zstd
//! (Tears of the Kingdom: `.zs`). A layer is peeled off before the format is
//! detected, and put back on encode; its decompressed bytes are exact, and
//! whether recompression gives the original bytes is reported, not promised
//! (the games' encoders are not public).

pub mod yaz0;
pub mod zstd;

pub use self::zstd::Dictionaries;
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

    /// The bytes inside the layer.
    pub fn decompress(self, data: &[u8], dicts: &Dictionaries) -> Result<Vec<u8>, LayerError> {
        match self {
            Layer::Yaz0 { .. } => yaz0::decompress(data),
            Layer::Zstd { .. } => zstd::decompress(data, dicts),
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

/// The layers around `data`, outermost first, and the bytes inside them.
pub fn peel(data: &[u8], dicts: &Dictionaries) -> Result<(Vec<Layer>, Vec<u8>), String> {
    let mut layers = Vec::new();
    let mut inner = data.to_vec();
    while let Some(layer) = Layer::detect(&inner) {
        if layers.len() == MAX_LAYERS {
            return Err(format!("more than {MAX_LAYERS} compression layers"));
        }
        inner = layer
            .decompress(&inner, dicts)
            .map_err(|e| format!("{layer} {e}"))?;
        layers.push(layer);
    }
    Ok((layers, inner))
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
