//! The folder form of archives (issue 47): any list of names, and any
//! manifest over a folder of files. Stored names chosen for entries are
//! each a file of their own (no two equal without regard to case, none the
//! manifest's, none where another entry needs a folder, each a safe
//! relative path); packing any manifest returns an archive or an error,
//! never a panic, and reads nothing outside the folder (every file outside
//! it is a sentinel whose bytes must not appear in an archive).
#![no_main]

use formats::sarc::folder::{pack, plan_stored, safe_relative, MANIFEST};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

const SENTINEL: &[u8] = b"SENTINEL-OUTSIDE-THE-FOLDER";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (names, manifest) = text.split_once('\0').unwrap_or((&text, ""));
    // Names, some with a text form's extension.
    let wanted: Vec<(&str, Option<&str>)> = names
        .split('\n')
        .take(64)
        .filter(|n| safe_relative(n).is_some())
        .enumerate()
        .map(|(i, n)| (n, [None, Some("yml"), Some("json")][i % 3]))
        .collect();
    if let Ok(stored) = plan_stored(&wanted) {
        assert_eq!(stored.len(), wanted.len());
        let mut seen = HashSet::new();
        let files: HashSet<String> = stored.iter().map(|s| s.to_lowercase()).collect();
        for s in &stored {
            assert!(safe_relative(s).is_some(), "{s:?}");
            assert!(!s.eq_ignore_ascii_case(MANIFEST));
            assert!(seen.insert(s.to_lowercase()), "{s:?} twice");
            for (i, _) in s.match_indices('/') {
                assert!(
                    !files.contains(&s[..i].to_lowercase()),
                    "{s:?} under a file"
                );
            }
        }
    }
    // A manifest over a folder holding one file, beside a sentinel.
    let Ok(root) = tempfile::tempdir() else {
        return;
    };
    let dir = root.path().join("a.sarc.d");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(root.path().join("secret"), SENTINEL).unwrap();
    std::fs::write(dir.join("a.txt"), b"inside").unwrap();
    std::fs::write(dir.join(MANIFEST), manifest).unwrap();
    let options = formats::sarc::folder::PackOptions::default();
    if let Ok(packed) = pack(&dir, &formats::layer::Dictionaries::default(), &options) {
        assert!(!packed.bytes.windows(SENTINEL.len()).any(|w| w == SENTINEL));
    }
});
