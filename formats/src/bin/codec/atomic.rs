//! Output written atomically: every file a command writes first goes to a
//! temporary file in its own folder (`.codec-XXXXXX.tmp`), and the files are
//! renamed into place only once all of them are complete. A run that fails
//! (bad input, a write error, a full disk) before the renames leaves every
//! existing output untouched and no temporary file behind; there is never a
//! half-written output file.
//!
//! The renames of a run that writes several files (a BDAT file's tables and
//! `.bschema`, the `docs` pages) follow the order the files were staged in;
//! each is atomic, the set is not: should a rename fail (or the machine stop)
//! between two of them, the files renamed so far are new and the others
//! old. Commands stage the file that names the others (a `.bschema`) last.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// Files written to temporary files, waiting to be renamed into place.
/// Each is closed once written and held by its path alone: an archive's
/// 1,510 members held open ran past the usual limit of 1,024 open files
/// (issue 70).
#[derive(Default)]
pub(crate) struct Staged {
    files: Vec<(TempPath, PathBuf, bool, crate::interrupt::Registered)>,
}

impl Staged {
    pub(crate) fn new() -> Staged {
        Staged::default()
    }

    /// Writes `bytes` to a temporary file beside `path` (synced to disk).
    /// `replace`: whether an existing `path` is replaced on commit; if not,
    /// a file that appeared at `path` since it was checked is refused.
    pub(crate) fn add(&mut self, path: &Path, bytes: &[u8], replace: bool) -> Result<(), String> {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let mut builder = tempfile::Builder::new();
        builder.prefix(".codec-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Keep the mode of a file being replaced; new files are
            // rw-r--r-- rather than the temporary file's rw-------.
            let mode = fs::metadata(path)
                .map(|m| m.permissions().mode() & 0o7777)
                .unwrap_or(0o644);
            builder.permissions(fs::Permissions::from_mode(mode));
        }
        // On an error the temporary file is dropped, which deletes it.
        // The error names the output, not the hidden temporary file
        // (whose name the tempfile crate's messages carry).
        let named = |e: io::Error| {
            let message = e.to_string();
            fail(&message.split(" at path ").next().unwrap_or_default())
        };
        let (mut tmp, guard) =
            crate::interrupt::created(|| builder.tempfile_in(folder), |t| t.path())
                .map_err(named)?;
        tmp.write_all(bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(named)?;
        self.files
            .push((tmp.into_temp_path(), path.to_owned(), replace, guard));
        Ok(())
    }

    /// Renames every staged file into place, in the order they were added.
    /// On an error, the files not yet renamed are deleted.
    pub(crate) fn commit(self) -> Result<(), String> {
        for (tmp, path, replace, _guard) in self.files {
            let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
            if replace {
                tmp.persist(&path).map_err(|e| fail(&e.error))?;
            } else {
                tmp.persist_noclobber(&path).map_err(|e| {
                    if e.error.kind() == io::ErrorKind::AlreadyExists {
                        fail(&"exists; use --force to replace it")
                    } else {
                        fail(&e.error)
                    }
                })?;
            }
        }
        Ok(())
    }
}

/// Writes one file atomically.
pub(crate) fn write(path: &Path, bytes: &[u8], replace: bool) -> Result<(), String> {
    let mut staged = Staged::new();
    staged.add(path, bytes, replace)?;
    staged.commit()
}

/// Creates `dir` and its missing parents; returns the folders created,
/// outermost first, for [`remove_created`].
pub(crate) fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(p) = at.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
        missing.push(p.to_owned());
        at = p.parent();
    }
    missing.reverse();
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(missing)
}

/// Removes the folders [`create_dirs`] created, innermost first, where they
/// are still empty (after a run that failed).
pub(crate) fn remove_created(created: &[PathBuf]) {
    for dir in created.iter().rev() {
        let _ = fs::remove_dir(dir);
    }
}
