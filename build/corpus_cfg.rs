//! Build script of the crates whose tests read the real-file corpus
//! (`formats`, `codec-tests`): for each format folder of the corpus that is
//! absent, sets `cfg(corpus_missing_<format>)`, so that the tests that need
//! it are marked `ignore` with the reason and a plain `cargo test` lists
//! them by name as ignored, instead of passing without checking anything.
//! With `CI=true` a missing corpus fails the build: CI must test the files.

use std::path::PathBuf;

const FORMATS: [&str; 8] = [
    "aamp", "ainb", "bdat", "byml", "msbt", "sarc", "yaz0", "zstd",
];

/// What the browser tests drive (`formats/tests/explore_browser.rs`).
const BROWSER: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromedriver"];

fn main() {
    browser_cfg();
    println!("cargo::rerun-if-env-changed=CODEC_REQUIRE_BROWSER");
    println!("cargo::rerun-if-env-changed=CODEC_CORPUS");
    println!("cargo::rerun-if-env-changed=CI");
    let base = match std::env::var_os("CODEC_CORPUS") {
        Some(root) if !root.is_empty() => PathBuf::from(root),
        _ => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("../../shared/corpus"),
    };
    let in_ci = std::env::var("CI").is_ok_and(|v| matches!(v.as_str(), "1" | "true" | "yes"));
    let mut missing = Vec::new();
    for format in FORMATS {
        println!("cargo::rustc-check-cfg=cfg(corpus_missing_{format})");
        let dir = base.join(format);
        println!("cargo::rerun-if-changed={}", dir.display());
        if !dir.is_dir() {
            println!("cargo::rustc-cfg=corpus_missing_{format}");
            missing.push(format);
        }
    }
    if !missing.is_empty() {
        if in_ci {
            panic!(
                "CI=true but the corpus is missing ({}: {}); CI must run the corpus tests",
                base.display(),
                missing.join(", ")
            );
        }
        println!(
            "cargo::warning=the real-file corpus is absent for {} ({}): the tests that need it are ignored (set CODEC_CORPUS)",
            missing.join(", "),
            base.display()
        );
    }
}

/// Sets `cfg(browser_missing)` when Chromium or its driver is absent, so
/// the browser tests are listed as ignored with the reason (they passed
/// in silence before: issue 74); unless `CODEC_REQUIRE_BROWSER` is set,
/// where the tests run and fail naming what is missing.
fn browser_cfg() {
    println!("cargo::rustc-check-cfg=cfg(browser_missing)");
    for path in BROWSER {
        println!("cargo::rerun-if-changed={path}");
    }
    let required = std::env::var_os("CODEC_REQUIRE_BROWSER").is_some();
    let missing = BROWSER.iter().any(|p| !std::path::Path::new(p).exists());
    if missing && !required {
        println!("cargo::rustc-cfg=browser_missing");
    }
}
