//! Helpers shared by the command-line tests (each test file that needs them
//! says `mod common;`; not every file uses every helper).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `codec` binary with `args`, without the AAMP names files
/// of the environment (so that the output does not depend on the machine).
pub fn codec<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codec"))
        .args(args)
        .env_remove(formats::aamp::names::NAMES_ENV)
        .env_remove(formats::aamp::names::NUMBERED_NAMES_ENV)
        .output()
        .expect("run codec")
}

/// An empty folder `<target tmp>/<group>/<name>` for one test.
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
