//! AINB in `codec to-text` and `codec from-text`: the binary becomes the JSON
//! of `formats::ainb::text` (dt-12345/AINB's shape, with `$` keys for what
//! that shape loses), and back.

use crate::text::Target;
use formats::ainb::{self, text};
use formats::Format;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// `codec to-text` for an AINB file; `None` when FILE is not one (and
/// `--format` does not ask for AINB), so that the other formats get theirs.
pub fn to_text(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    format: Option<Format>,
) -> Option<Result<Vec<PathBuf>, String>> {
    match format {
        Some(Format::Ainb) => {}
        Some(_) => return None,
        None => {
            let mut magic = Vec::new();
            let read = fs::File::open(input).and_then(|f| f.take(4).read_to_end(&mut magic));
            if read.is_err() || !magic.starts_with(ainb::MAGIC) {
                return None;
            }
        }
    }
    Some((|| {
        let target = Target::resolve(input, output, force, crate::text::beside(".json"))?;
        let bytes = fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
        let doc =
            ainb::decode(&bytes).map_err(|e| format!("{}: decode error {e}", input.display()))?;
        let json = text::to_json(&doc).map_err(|e| format!("{}: {e}", input.display()))?;
        target.write(json.as_bytes())
    })())
}

/// `codec from-text` for an AINB JSON document; `None` when FILE is not one.
pub fn from_text(
    input: &Path,
    output: Option<&Path>,
    force: bool,
    format: Option<Format>,
) -> Option<Result<Vec<PathBuf>, String>> {
    let data = fs::read(input).ok();
    match format {
        Some(Format::Ainb) => {}
        Some(_) => return None,
        None => {
            let looks = data
                .as_deref()
                .and_then(|d| std::str::from_utf8(d).ok())
                .is_some_and(text::looks_like_ainb_json);
            if !looks {
                return None;
            }
        }
    }
    Some((|| {
        let target = Target::resolve(input, output, force, |p| {
            match p.extension().and_then(|e| e.to_str()) {
                Some(ext) if ext.eq_ignore_ascii_case("json") => Ok(p.with_extension("")),
                _ => Err(format!(
                    "{}: cannot name the output (the input does not end in .json); use -o OUT",
                    p.display()
                )),
            }
        })?;
        let bytes = data.ok_or_else(|| format!("{}: cannot read the file", input.display()))?;
        let json = String::from_utf8(bytes).map_err(|e| {
            format!(
                "{}: not UTF-8 text (invalid byte at offset {})",
                input.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        let doc = text::from_json(&json).map_err(|e| format!("{}: {e}", input.display()))?;
        let out =
            ainb::encode(&doc).map_err(|e| format!("{}: encode error: {e}", input.display()))?;
        target.write(&out)
    })())
}
