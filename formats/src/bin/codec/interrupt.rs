//! What an interrupted run leaves behind: nothing. Every temporary file and
//! staging folder a command creates is registered here while it exists; on
//! Ctrl-C (SIGINT), SIGTERM or SIGHUP the handler deletes what is registered
//! and exits with status 130, so the user's folders hold their old outputs
//! and no `.codec-*.tmp` file. (Drop handlers do not run when a signal ends
//! the process; this is why a registry is needed at all.)
//!
//! `kill -9` cannot be caught: then the temporary names stay, and the folder
//! reader of `from-text` skips every `.codec-*` name at any depth, as the
//! walk over input folders skips `.codec-*.tmp` files. A write past
//! `ulimit -f` is an error like a full disk (SIGXFSZ is caught).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once, RwLock, RwLockReadGuard};

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Held shared while a path is created inside a registered folder, and
/// exclusively by the handler: it removes the folder only once no
/// creation is under way, and none starts after.
static GATE: RwLock<()> = RwLock::new(());
static INSTALL: Once = Once::new();

/// Removes `path` (file or folder) if the run is interrupted, until the
/// guard is dropped.
#[must_use = "the path is only protected while the guard lives"]
pub(crate) struct Registered {
    path: PathBuf,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = live.iter().rposition(|p| *p == self.path) {
            live.swap_remove(i);
        }
    }
}

/// Creates a temporary file or folder with `make` and registers the path
/// `path_of` gives for removal on interruption, until the guard is dropped.
/// The creation and the registration happen under the registry's lock,
/// which the handler holds until the process exits: an interruption comes
/// before the creation or after the registration, never between.
pub(crate) fn created<T>(
    make: impl FnOnce() -> std::io::Result<T>,
    path_of: impl FnOnce(&T) -> &Path,
) -> std::io::Result<(T, Registered)> {
    install();
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let made = make()?;
    let path = path_of(&made).to_owned();
    live.push(path.clone());
    Ok((made, Registered { path }))
}

/// Held while files are created inside a registered folder (see [`GATE`]).
pub(crate) fn creating() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(|e| e.into_inner())
}

fn install() {
    INSTALL.call_once(|| {
        // A file grown past `ulimit -f` raises SIGXFSZ, whose default ends
        // the process where it stands, its temporary file left behind.
        // Caught (and only noted), the write fails with EFBIG instead: a
        // handled error, after which the temporary file is removed.
        #[cfg(unix)]
        let _ = signal_hook::flag::register(
            signal_hook::consts::SIGXFSZ,
            std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
        // A second handler cannot be installed only if one already is,
        // which this Once rules out; a failure leaves the default action.
        let _ = ctrlc::set_handler(|| {
            // Both held until exit: nothing is created or registered
            // meanwhile.
            let _gate = GATE.write().unwrap_or_else(|e| e.into_inner());
            let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
            for path in live.iter() {
                remove(path);
            }
            eprintln!("codec: interrupted; temporary output removed");
            std::process::exit(130);
        });
    });
}

/// Removes a file or a folder tree without following symbolic links.
pub(crate) fn remove(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            // The writer may still be adding files: try twice.
            if std::fs::remove_dir_all(path).is_err() {
                let _ = std::fs::remove_dir_all(path);
            }
        }
        Ok(_) => {
            let _ = std::fs::remove_file(path);
        }
        Err(_) => {}
    }
}
