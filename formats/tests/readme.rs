//! The README's commands and what it says they print (issue 74: its
//! figures drifted from what the tool prints). Two forms are checked:
//!
//! - a `codec …` line of a code block with `# checked …` after it: the
//!   run's summary line starts with that text (less a trailing `...`);
//! - a `text` block whose first line is `$ codec …`: each line after it
//!   is a line of the run's output, in order (`...` stands for any lines;
//!   the throughput line is compared up to its timing, ` in `).
//!
//! Commands run from the workspace root, as the README's do; one that
//! reads `../shared/corpus` says SKIPPED and passes when it is absent.

use std::path::Path;
use std::process::Command;

mod common;

/// A README command: its arguments after `codec`, and what it must print.
struct Claim {
    line: usize,
    args: Vec<String>,
    expect: Expect,
}

enum Expect {
    /// The summary (last line of stdout) starts with this.
    Summary(String),
    /// These lines, in order (`None`: any lines).
    Lines(Vec<Option<String>>),
}

fn claims(readme: &str) -> Vec<Claim> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if let Some((cmd, said)) = l
            .strip_prefix("codec ")
            .and_then(|r| r.split_once("# checked "))
        {
            let said = format!("checked {}", said.trim().trim_end_matches("...").trim_end());
            out.push(Claim {
                line: i + 1,
                args: cmd.split_whitespace().map(str::to_owned).collect(),
                expect: Expect::Summary(said.trim_end_matches(',').to_owned()),
            });
        }
        if l == "```text" {
            if let Some(cmd) = lines.get(i + 1).and_then(|c| c.strip_prefix("$ codec ")) {
                let mut expect = Vec::new();
                let mut j = i + 2;
                while j < lines.len() && lines[j] != "```" {
                    expect.push(match lines[j] {
                        "..." | "…" => None,
                        x => Some(x.to_owned()),
                    });
                    j += 1;
                }
                out.push(Claim {
                    line: i + 2,
                    args: cmd.split_whitespace().map(str::to_owned).collect(),
                    expect: Expect::Lines(expect),
                });
                i = j;
            }
        }
        i += 1;
    }
    out
}

/// A throughput line up to its timing (`518 files, 19.0 MB`); other lines
/// whole.
fn shape(line: &str) -> &str {
    match line.split_once(" MB in ") {
        Some((head, _)) => head,
        None => line,
    }
}

#[test]
fn the_readme_prints_what_it_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let claims = claims(&readme);
    assert!(claims.len() >= 8, "the README's commands were not found");
    let mut failures = Vec::new();
    for c in &claims {
        if c.args.iter().any(|a| a.contains("../shared/corpus")) && common::corpus("aamp").is_none()
        {
            println!("SKIPPED README line {}: the corpus is absent", c.line);
            continue;
        }
        let o = Command::new(env!("CARGO_BIN_EXE_codec"))
            .current_dir(&root)
            .args(&c.args)
            .env_remove("CODEC_ZSTD_DICT")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let got: Vec<&str> = stdout.lines().collect();
        let ok = match &c.expect {
            Expect::Summary(s) => got.last().is_some_and(|l| l.starts_with(s.as_str())),
            Expect::Lines(want) => {
                // Each expected line found in order; `None` skips any.
                let mut at = 0;
                let mut ok = true;
                let mut gap = false;
                for w in want {
                    let Some(w) = w else {
                        gap = true;
                        continue;
                    };
                    let found = got[at..].iter().position(|g| shape(g) == shape(w));
                    match found {
                        Some(k) if gap || k == 0 => at += k + 1,
                        _ => {
                            ok = false;
                            break;
                        }
                    }
                    gap = false;
                }
                ok
            }
        };
        if !ok {
            failures.push(format!(
                "README line {}: `codec {}` printed:\n{stdout}",
                c.line,
                c.args.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
