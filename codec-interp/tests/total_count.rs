//! `derive: Total(list, of)`: a count that is the sum of the lengths of a
//! list field over the elements of another list (issue 73: an event flow's
//! action and query counts). Derived on writing by the compiled codec and
//! the interpreter alike, so an edit that adds an action keeps it right.

mod compiled {
    codec_derive::schema!("tests/interp_fixtures/total_count.ron", serde);
}

use codec_interp as interp;

fn schema() -> codec_schema::Checked {
    codec_schema::parse_str(
        include_str!("interp_fixtures/total_count.ron"),
        "total_count.ron",
    )
    .unwrap()
}

fn doc() -> compiled::File {
    compiled::File {
        pad: 0,
        actors: vec![
            compiled::Actor {
                id: 1,
                actions: Some(vec![10, 11]),
            },
            compiled::Actor {
                id: 2,
                actions: None,
            },
            compiled::Actor {
                id: 3,
                actions: Some(vec![30, 31, 32]),
            },
        ],
    }
}

#[test]
fn the_total_is_every_actors_actions_together() {
    let bytes = compiled::encode(&doc()).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[2], bytes[3]]), 3, "actor count");
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 5, "action total");
    assert_eq!(compiled::decode(&bytes).unwrap(), doc());
    // An action added to the actor without any: the total follows.
    let mut edited = doc();
    edited.actors[1].actions = Some(vec![20]);
    let bytes = compiled::encode(&edited).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 6);
    assert_eq!(compiled::decode(&bytes).unwrap(), edited);
}

#[test]
fn the_interpreter_derives_it_as_the_codec_does() {
    let c = schema();
    for d in [doc(), {
        let mut e = doc();
        e.actors[2].actions = Some(vec![]);
        e.actors.push(compiled::Actor {
            id: 4,
            actions: Some(vec![40; 7]),
        });
        e
    }] {
        let bytes = compiled::encode(&d).unwrap();
        let v = interp::to_value(&d).unwrap();
        assert_eq!(interp::encode(&c, &v, &interp::NoHooks).unwrap(), bytes);
        assert_eq!(interp::decode(&c, &bytes).unwrap().to_value(), v);
    }
}

#[test]
fn a_total_of_what_is_not_a_list_of_lists_is_refused() {
    let text = include_str!("interp_fixtures/total_count.ron");
    for (from, to, msg) in [
        (
            r#"Total(list: "actors", of: "actions")"#,
            r#"Total(list: "actor", of: "actions")"#,
            "`actor` names no field of `File`",
        ),
        (
            r#"Total(list: "actors", of: "actions")"#,
            r#"Total(list: "pad", of: "actions")"#,
            "`File.pad` is not a list of records",
        ),
        (
            r#"Total(list: "actors", of: "actions")"#,
            r#"Total(list: "actors", of: "id")"#,
            "`Actor.id` is not a list the document holds",
        ),
    ] {
        let Err(e) = codec_schema::parse_str(&text.replace(from, to), "t.ron") else {
            panic!("`{to}` was accepted");
        };
        let e = e.to_string();
        assert!(e.contains(msg), "{e}");
    }
}
