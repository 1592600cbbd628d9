//! AINB: regressions for what fuzzing binary -> JSON -> binary found (bugs
//! 1-3 fixed in 02aae21; 4-5, EXB windows past the instruction table, and the
//! budget for overlapping windows, later; 6, a window starting past the table;
//! 7, secondary roots at the ends of their range; 8, a multi-input source
//! no input covers between sources that inputs do cover). Each test takes a small corpus
//! file, edits the decoded model into the situation the fuzzer hit, encodes
//! it, and checks that the file decodes back, that binary -> JSON -> binary
//! gives the same bytes, and that the JSON holds what keeps the situation (or
//! that `to_json` refuses it with a located message).
//!
//! The corpus is `$CODEC_CORPUS/ainb`, else `../shared/corpus/ainb`; when it
//! is absent the tests say SKIPPED and pass.

use formats::ainb::schema::Instruction;
use formats::ainb::text::{from_json, to_json};
use formats::ainb::{decode, encode, File};
use serde_json::Value;
use std::path::{Path, PathBuf};

mod common;

/// The named corpus file, decoded; when the corpus lacks it, the smallest
/// corpus file that `fits`. None (after saying SKIPPED) without a corpus.
fn pick(preferred: &str, fits: impl Fn(&File) -> bool) -> Option<(PathBuf, File)> {
    let dir = common::corpus("ainb")?;
    let named = dir.join(preferred);
    if let Ok(data) = std::fs::read(&named) {
        let doc = decode(&data).unwrap_or_else(|e| panic!("{}: {e}", named.display()));
        assert!(fits(&doc), "{} no longer fits the test", named.display());
        return Some((named, doc));
    }
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
        .expect("read the corpus folder")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.is_file())
        .map(|p| (std::fs::metadata(&p).map_or(u64::MAX, |m| m.len()), p))
        .collect();
    files.sort();
    let found = files.into_iter().find_map(|(_, p)| {
        let data = std::fs::read(&p).ok()?;
        if !data.starts_with(b"AIB ") {
            return None;
        }
        let doc = decode(&data).ok()?;
        fits(&doc).then_some((p, doc))
    });
    Some(found.unwrap_or_else(|| panic!("no AINB file in {} fits the test", dir.display())))
}

/// Encodes the edited model and checks that it decodes back and that binary
/// -> JSON -> binary is the identity. `check` compares the two models' edited
/// part first (for a clearer message than differing bytes). Returns the JSON.
fn json_round_trip(what: &Path, edited: &File, check: impl Fn(&File, &File)) -> Value {
    let what = what.display();
    let bin = encode(edited).unwrap_or_else(|e| panic!("{what}: encode the edited file: {e}"));
    let back = decode(&bin).unwrap_or_else(|e| panic!("{what}: the edited file decodes: {e}"));
    assert_eq!(
        encode(&back).unwrap_or_else(|e| panic!("{what}: re-encode: {e}")),
        bin,
        "{what}: the edited file encodes back byte for byte"
    );
    let json = to_json(&back).unwrap_or_else(|e| panic!("{what}: to_json: {e}"));
    let again = from_json(&json).unwrap_or_else(|e| panic!("{what}: from_json: {e}"));
    check(&back, &again);
    let out = encode(&again).unwrap_or_else(|e| panic!("{what}: encode from JSON: {e}"));
    if out != bin {
        let at = out.iter().zip(&bin).position(|(a, b)| a != b);
        panic!(
            "{what}: binary -> JSON -> binary differs at byte {at:?} ({} vs {} bytes)",
            out.len(),
            bin.len()
        );
    }
    serde_json::from_str(&json).expect("to_json writes JSON")
}

/// Bug 1: an entry's file-reference bits name a reference that is not its
/// path's first use (here: a second reference with the same path). The JSON
/// gave only `Source File`, so the reader put back the first use's index.
#[test]
fn blackboard_file_reference_not_first_use_survives_json() {
    let Some((path, mut doc)) = pick("totk-407-c32b68ed-Toby.action.wait.module.ainb", |d| {
        let bb = &d.blackboard;
        !bb.file_refs.is_empty()
            && bb.file_refs.len() < 127
            && bb.entries.iter().any(|e| e.word.has_file_ref)
    }) else {
        return;
    };
    let bb = &mut doc.blackboard;
    let k = bb
        .entries
        .iter()
        .rposition(|e| e.word.has_file_ref)
        .expect("an entry with a file reference");
    let old = usize::from(bb.entries[k].word.file_ref);
    let dup = bb.file_refs[old].clone();
    bb.file_refs.push(dup);
    // Past every distinct path, so never the path's first use.
    let new = u8::try_from(bb.file_refs.len() - 1).unwrap();
    bb.entries[k].word.file_ref = new;
    let name = bb.entries[k].word.name.to_string();

    let json = json_round_trip(&path, &doc, |back, again| {
        assert_eq!(
            back.blackboard.entries[k].word.file_ref, new,
            "the edited binary keeps the entry's file reference"
        );
        let (b, a) = (
            &back.blackboard.entries[k].word,
            &again.blackboard.entries[k].word,
        );
        assert_eq!(
            (a.has_file_ref, a.file_ref),
            (b.has_file_ref, b.file_ref),
            "blackboard entry {k} ({name}): file-reference bits (has_file_ref, file_ref) through JSON"
        );
    });
    let marked: Vec<&Value> = json["Blackboard"]
        .as_object()
        .expect("Blackboard is an object")
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|e| e.get("$File Reference").is_some())
        .collect();
    assert_eq!(
        marked.len(),
        1,
        "exactly the edited entry has `$File Reference`: {marked:?}"
    );
    assert_eq!(marked[0]["Name"], Value::from(name.as_str()));
    assert_eq!(
        marked[0]["$File Reference"],
        serde_json::json!([true, new]),
        "`$File Reference` holds the bits as stored"
    );
}

/// Bug 2: the multi-input source table holds a source no input's window
/// covers. The reader rebuilt the table from the inputs and lost it.
#[test]
fn unused_multi_input_source_survives_json() {
    let Some((path, mut doc)) = pick("totk-407-fcdc44e1-Horablin.action.wait.module.ainb", |d| {
        !d.multi.is_empty()
    }) else {
        return;
    };
    let mut extra = doc.multi.last().expect("a multi-input source").clone();
    extra.node = 0;
    extra.output = 7;
    doc.multi.push(extra);
    let n = doc.multi.len();

    let json = json_round_trip(&path, &doc, |back, again| {
        assert_eq!(
            back.multi.len(),
            n,
            "the edited binary keeps the extra source"
        );
        assert_eq!(
            again.multi, back.multi,
            "the multi-input source table through JSON"
        );
    });
    let sources = json["$codec"]["Multi Sources"]
        .as_array()
        .unwrap_or_else(|| panic!("`$codec.Multi Sources` is in the JSON"));
    assert_eq!(
        sources.len(),
        n,
        "`$codec.Multi Sources` is the whole table"
    );
    let last = &sources[n - 1];
    assert_eq!(
        (&last["Node Index"], &last["Output Index"]),
        (&Value::from(0), &Value::from(7)),
        "the unused source is the last of `$codec.Multi Sources`"
    );
}

/// Bug 3: the EXB section holds an instruction no expression's setup or main
/// covers. The JSON gave instructions only under their expressions, so the
/// reader could not rebuild the table.
#[test]
fn uncovered_exb_instruction_survives_json() {
    let Some((path, mut doc)) = pick(
        "totk-407-ca562bd5-_LocalModule_db010ba9c141.module.ainb",
        |d| d.exb.as_ref().is_some_and(|x| !x.expressions.is_empty()),
    ) else {
        return;
    };
    let exb = doc.exb.as_mut().expect("an EXB section");
    // A NEG of an immediate: unlike any END the expressions end with.
    exb.instructions.push(Instruction {
        opcode: 3,
        datatype: 3,
        op1_kind: 0,
        op2_kind: 0,
        op1: 0x1234,
        op2: 0,
    });
    let n = exb.instructions.len();

    let json = json_round_trip(&path, &doc, |back, again| {
        let b = &back.exb.as_ref().expect("EXB back").instructions;
        assert_eq!(b.len(), n, "the edited binary keeps the extra instruction");
        assert_eq!(
            &again.exb.as_ref().expect("EXB through JSON").instructions,
            b,
            "the EXB instructions through JSON"
        );
    });
    let list = json["$codec"]["Expressions"]["Instructions"]
        .as_array()
        .unwrap_or_else(|| panic!("`$codec.Expressions.Instructions` is in the JSON"));
    assert_eq!(
        list.len(),
        n,
        "`$codec.Expressions.Instructions` is the whole table"
    );
}

/// The smallest corpus file with an EXB section of at least two expressions
/// and instructions.
fn pick_exb() -> Option<(PathBuf, File)> {
    pick(
        "totk-407-c5e7bcac-_LocalModule_c0c88ab744a8.module.ainb",
        |d| {
            d.exb
                .as_ref()
                .is_some_and(|x| x.expressions.len() >= 2 && !x.instructions.is_empty())
        },
    )
}

/// The expression whose main window ends the instruction table (its
/// instructions are no other expression's).
fn expression_ending_the_table(exb: &formats::ainb::schema::Exb) -> usize {
    let n = exb.instructions.len();
    exb.expressions
        .iter()
        .position(|e| e.main_base >= 0 && e.main_base as usize + e.main_count as usize == n)
        .expect("an expression whose main window ends the table")
}

/// The check of a round trip whose edited binary keeps expression `k`'s
/// main window at `(base, count)`: the window back from the binary, the
/// expressions and instructions back through JSON.
fn keeps_main_window(k: usize, base: i32, count: u32) -> impl Fn(&File, &File) {
    move |back, again| {
        let (b, a) = (
            back.exb.as_ref().expect("EXB back"),
            again.exb.as_ref().expect("EXB through JSON"),
        );
        assert_eq!(
            (b.expressions[k].main_base, b.expressions[k].main_count),
            (base, count),
            "the edited binary keeps the window past the table"
        );
        assert_eq!(a.expressions, b.expressions, "the expressions through JSON");
        assert_eq!(
            a.instructions, b.instructions,
            "the EXB instructions through JSON"
        );
    }
}

/// Bug 4 (fuzzing, ainb_round_trip): an expression's main window runs past
/// the end of the instruction table. The JSON gave it an empty `Main` but
/// counted its instructions as covered, so `$codec.Expressions.Instructions`
/// was left out and the reader found no expression holding them ("no
/// expression holds instruction 42"). `Main` now gives the window's part
/// inside the table.
#[test]
fn exb_window_past_the_table_survives_json() {
    let Some((path, mut doc)) = pick_exb() else {
        return;
    };
    let exb = doc.exb.as_mut().expect("an EXB section");
    let n = exb.instructions.len();
    let k = expression_ending_the_table(exb);
    exb.expressions[k].main_count += 8;
    let (base, count) = (exb.expressions[k].main_base, exb.expressions[k].main_count);

    let json = json_round_trip(&path, &doc, keeps_main_window(k, base, count));
    let main = json["Expressions"]["Expressions"][k]["Main"]
        .as_array()
        .expect("the expression's Main");
    assert_eq!(
        main.len(),
        n - base as usize,
        "Main gives the window's instructions inside the table"
    );
}

/// Bug 6 (fuzzing, ainb_round_trip, 2026-11-27): an expression's main
/// window *starts* past the end of the instruction table. `to_json`
/// panicked slicing the instruction lines from the base ("range start index
/// 12297 out of range for slice of length 16"); the window's part inside the
/// table is empty, so `Main` is empty, and the base comes back through
/// `$codec`.
#[test]
fn exb_window_starting_past_the_table_survives_json() {
    let Some((path, mut doc)) = pick_exb() else {
        return;
    };
    let exb = doc.exb.as_mut().expect("an EXB section");
    let n = exb.instructions.len();
    let k = expression_ending_the_table(exb);
    // Its instructions stay covered by no window: kept in `$codec`.
    exb.expressions[k].main_base = n as i32 + 12_000;
    let (base, count) = (exb.expressions[k].main_base, exb.expressions[k].main_count);

    let json = json_round_trip(&path, &doc, keeps_main_window(k, base, count));
    let main = json["Expressions"]["Expressions"][k]["Main"]
        .as_array()
        .expect("the expression's Main");
    assert!(main.is_empty(), "Main holds no instruction: {main:?}");
}

/// Bug 5 (fuzzing, ainb_decode timed out): an expression's setup window has
/// the count 0xFFFFFFFF. Finding the instructions no window covers walked
/// every index of every window, 4 billion steps per such expression; it now
/// walks each window's part inside the table. Here every expression has such
/// a setup window (starting at its main window), which the old walk took
/// minutes over; the JSON must come back to the same bytes, each `Setup`
/// giving the instructions from its base to the table's end.
#[test]
fn exb_window_with_a_huge_count_converts() {
    let Some((path, mut doc)) = pick_exb() else {
        return;
    };
    let exb = doc.exb.as_mut().expect("an EXB section");
    let n = exb.instructions.len();
    for e in &mut exb.expressions {
        e.setup_base = e.main_base;
        e.setup_count = u32::MAX;
    }
    let bases: Vec<i32> = exb.expressions.iter().map(|e| e.setup_base).collect();

    let json = json_round_trip(&path, &doc, |back, again| {
        let (b, a) = (
            back.exb.as_ref().expect("EXB back"),
            again.exb.as_ref().expect("EXB through JSON"),
        );
        assert!(
            b.expressions.iter().all(|e| e.setup_count == u32::MAX),
            "the edited binary keeps the huge setup counts"
        );
        assert_eq!(a.expressions, b.expressions, "the expressions through JSON");
        assert_eq!(
            a.instructions, b.instructions,
            "the EXB instructions through JSON"
        );
    });
    for (i, base) in bases.into_iter().enumerate() {
        let setup = json["Expressions"]["Expressions"][i]["Setup"]
            .as_array()
            .unwrap_or_else(|| panic!("expression {i} has a Setup"));
        assert_eq!(
            setup.len(),
            n - base as usize,
            "expression {i}: Setup gives the instructions from its base to the table's end"
        );
    }
}

/// The same file with thousands of expressions whose windows all cover the
/// whole instruction table: the JSON would repeat the table once per
/// expression (growing with the square of the file), so `to_json` refuses,
/// naming the expression where the budget ran out.
#[test]
fn overlapping_exb_windows_past_the_budget_are_refused() {
    let Some((path, mut doc)) = pick_exb() else {
        return;
    };
    let exb = doc.exb.as_mut().expect("an EXB section");
    let n = exb.instructions.len();
    let mut e = exb.expressions[0].clone();
    (e.setup_base, e.setup_count, e.main_base, e.main_count) = (-1, 0, 0, n as u32);
    let copies = 4 * n + 4096 + 2;
    exb.expressions.extend(std::iter::repeat_n(e, copies));
    let bin = encode(&doc).unwrap_or_else(|e| panic!("{}: encode: {e}", path.display()));
    let back = decode(&bin).unwrap_or_else(|e| panic!("{}: decode: {e}", path.display()));
    let err = to_json(&back).expect_err("overlapping windows past the budget are refused");
    assert!(
        err.path.starts_with("Expressions.Expressions["),
        "the error names the expression: {err}"
    );
    assert!(
        err.message.contains("overlap"),
        "the error says the windows overlap: {err}"
    );
}

/// The reader's side: JSON that puts an expression's instructions at a
/// window base far past the instructions it gives (here 2 000 000 000) is
/// refused, naming the expression, before a table that large is allocated;
/// so is an instruction count past them.
#[test]
fn a_json_instruction_far_past_the_table_is_refused() {
    let Some((path, doc)) = pick_exb() else {
        return;
    };
    let json = to_json(&doc).unwrap_or_else(|e| panic!("{}: to_json: {e}", path.display()));
    let v: Value = serde_json::from_str(&json).expect("to_json writes JSON");

    let mut far = v.clone();
    let main = &mut far["$codec"]["Expressions"]["Expressions"][0]["Main"];
    let count = main[1].clone();
    *main = serde_json::json!([2_000_000_000, count]);
    let err = from_json(&far.to_string()).expect_err("a base far past the table is refused");
    assert_eq!(err.path, "Expressions.Expressions[0].Main", "{err}");
    assert!(err.message.contains("past"), "{err}");

    let mut many = v;
    many["$codec"]["Expressions"]["Instruction Count"] = Value::from(2_000_000_000u64);
    let err = from_json(&many.to_string()).expect_err("a count past the table is refused");
    assert_eq!(err.path, "$codec.Expressions.Instruction Count", "{err}");
}

/// The same budget for multi-inputs: five inputs whose windows all cover a
/// table of 65535 sources would repeat it five times in the JSON; `to_json`
/// refuses, naming the input.
#[test]
fn overlapping_multi_input_windows_past_the_budget_are_refused() {
    let Some((path, mut doc)) = pick("totk-407-fcdc44e1-Horablin.action.wait.module.ainb", |d| {
        let io = &d.io;
        [
            io.int_inputs.as_ref().map_or(0, Vec::len),
            io.bool_inputs.as_ref().map_or(0, Vec::len),
            io.float_inputs.as_ref().map_or(0, Vec::len),
        ]
        .iter()
        .sum::<usize>()
            >= 5
            && !d.multi.is_empty()
    }) else {
        return;
    };
    let source = doc.multi[0].clone();
    doc.multi = vec![source; 65535];
    let io = &mut doc.io;
    let inputs = io
        .int_inputs
        .iter_mut()
        .flatten()
        .map(|x| &mut x.source)
        .chain(io.bool_inputs.iter_mut().flatten().map(|x| &mut x.source))
        .chain(io.float_inputs.iter_mut().flatten().map(|x| &mut x.source));
    for s in inputs.take(5) {
        // Sources 0.. of the table, 65535 of them.
        (s.node, s.output) = (-100, -1);
    }
    let bin = encode(&doc).unwrap_or_else(|e| panic!("{}: encode: {e}", path.display()));
    let back = decode(&bin).unwrap_or_else(|e| panic!("{}: decode: {e}", path.display()));
    let err = to_json(&back).expect_err("overlapping windows past the budget are refused");
    assert_eq!(err.path, "Nodes", "{err}");
    assert!(
        err.message.contains("input") && err.message.contains("overlap"),
        "the error names the input and says the windows overlap: {err}"
    );
}

/// Found by fuzzing (ainb_round_trip): a signature of the EXB pointed inside
/// another one of its strings (at a suffix). The EXB string pool's odd
/// offsets were not kept in JSON (the main pool's were), so the suffix came
/// back as a string of its own and the file grew. Both pools now keep them
/// the same way (`Odd String Offsets`).
#[test]
fn exb_signature_inside_another_string_survives_json() {
    let Some((path, mut doc)) = pick(
        "totk-407-c5e7bcac-_LocalModule_c0c88ab744a8.module.ainb",
        |d| {
            d.exb
                .as_ref()
                .is_some_and(|x| x.signatures.iter().any(|s| s.len() > 4))
        },
    ) else {
        return;
    };
    let x = doc.exb.as_mut().unwrap();
    let (i, long) = x
        .signatures
        .iter()
        .enumerate()
        .find(|(_, s)| s.len() > 4)
        .map(|(i, s)| (i, s.to_string()))
        .unwrap();
    // Where that signature's text starts in the pool, and a suffix of it.
    let mut at = 0u64;
    for s in &x.strings.strings {
        if s.as_str() == long {
            break;
        }
        at += s.len() as u64 + 1;
    }
    assert!(
        x.strings.strings.iter().any(|s| s.as_str() == long),
        "{}: signature {i} is a string of the EXB pool",
        path.display()
    );
    let suffix = &long[long.len() - 3..];
    x.strings.odd = vec![(at + (long.len() - 3) as u64, suffix.into())];
    x.signatures.push(suffix.into());
    let json = json_round_trip(&path, &doc, |a, b| {
        let (a, b) = (a.exb.as_ref().unwrap(), b.exb.as_ref().unwrap());
        assert_eq!(a.strings, b.strings, "the EXB string pool through JSON");
    });
    let odd = &json["$codec"]["Expressions"]["Odd String Offsets"];
    assert!(
        odd.is_array(),
        "the JSON keeps the EXB pool's odd offsets: {odd}"
    );
}

/// Bug 7 (fuzzing, ainb_round_trip, 2026-11-27): a command's secondary root
/// is stored as its index plus one in an i16, and the JSON gives the index,
/// so a stored -32768 is the index -32769, which the reader refused as out
/// of range for an i16 (and a JSON index of 32767 overflowed adding one).
/// Both ends of the stored range now come back through JSON, and an index
/// the file cannot hold is refused with its path.
#[test]
fn secondary_roots_at_both_ends_survive_json() {
    let Some((path, mut doc)) = pick("", |d| d.commands.len() >= 2) else {
        return;
    };
    doc.commands[0].secondary_root = i16::MIN;
    doc.commands[1].secondary_root = i16::MAX;
    let json = json_round_trip(&path, &doc, |back, again| {
        assert_eq!(back.commands, again.commands, "the commands through JSON");
    });
    let command = |i: usize| &json["Commands"][i]["Secondary Root Node Index"];
    assert_eq!(
        command(0),
        &Value::from(-32769),
        "the stored value less one"
    );
    assert_eq!(command(1), &Value::from(32766));

    let mut too_far = json.clone();
    too_far["Commands"][1]["Secondary Root Node Index"] = Value::from(32767);
    let err = from_json(&too_far.to_string()).expect_err("32767 plus one is past an i16");
    assert_eq!(err.path, "Commands[1].Secondary Root Node Index", "{err}");
    assert!(err.message.contains("out of range"), "{err}");
}

/// Bug 8 (fuzzing, ainb_round_trip, 2026-11-27): the multi-input source
/// table holds a source no input covers *before* sources that inputs do
/// cover (the fuzzer set an input's source count to 0). The JSON kept the
/// whole table under `$codec.Multi Sources`, but the reader first rebuilt
/// the table from the inputs' `$Multi Index` values and refused the gap
/// (`no input holds multi-input source 0`) before looking at it.
#[test]
fn an_unused_multi_input_source_before_used_ones_survives_json() {
    let Some((path, mut doc)) = pick("totk-407-fcdc44e1-Horablin.action.wait.module.ainb", |d| {
        !d.multi.is_empty()
    }) else {
        return;
    };
    // A source no input uses at the front; every window moves up by one.
    let mut extra = doc.multi[0].clone();
    extra.node = 0;
    extra.output = 7;
    doc.multi.insert(0, extra);
    let io = &mut doc.io;
    let mut moved = 0;
    let mut shift = |s: &mut formats::ainb::schema::Source| {
        if s.node <= -100 {
            s.node -= 1;
            moved += 1;
        }
    };
    macro_rules! shift_all {
        ($($inputs:ident),*) => {$(
            for x in io.$inputs.iter_mut().flatten() {
                shift(&mut x.source);
            }
        )*};
    }
    shift_all!(
        int_inputs,
        bool_inputs,
        float_inputs,
        string_inputs,
        vec3_inputs,
        pointer_inputs
    );
    assert!(moved > 0, "the file has a multi-input");

    let json = json_round_trip(&path, &doc, |back, again| {
        assert_eq!(
            again.multi, back.multi,
            "the multi-input source table through JSON"
        );
    });
    let first = &json["$codec"]["Multi Sources"][0];
    assert_eq!(
        (&first["Node Index"], &first["Output Index"]),
        (&Value::from(0), &Value::from(7)),
        "the unused source is the first of `$codec.Multi Sources`"
    );

    // An input that names a place where the stored table holds another
    // source is refused with the place.
    let mut wrong = json.clone();
    wrong["$codec"]["Multi Sources"][1]["Output Index"] = Value::from(99);
    let err = from_json(&wrong.to_string()).expect_err("the input disagrees with the table");
    assert_eq!(err.path, "$codec.Multi Sources[1]", "{err}");
}
