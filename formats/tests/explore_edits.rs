//! `codec explore` on a real file, through its HTTP API alone (issue 70):
//! the corpus's 1.96 MB `ActorInfo.product.byml` held 591 MB, then 1.9 GB
//! after one edit and 3.25 GB after two, each edit taking 5 to 14 s. Three
//! edits of a number now each take less than half of what reading the file
//! took (a ratio, so the build profile and the machine do not matter; the
//! note gives the release figures) and leave the server's memory flat; a
//! save over a file changed on disk is refused; `--5` is no number.

mod common;

use serde_json::{json, Value as Json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// The server, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(file: &Path) -> Server {
        let dir = file.parent().unwrap();
        let (child, url) = common::explore(dir, &[file.to_path_buf()]);
        Server { child, url }
    }

    /// An HTTP/1.1 request to the API: the status and the JSON answer.
    fn call(&self, method: &str, path: &str, body: Option<Json>) -> (u16, Json) {
        let rest = self.url.strip_prefix("http://").unwrap();
        let (addr, base) = rest.split_at(rest.find('/').unwrap());
        let mut s = TcpStream::connect(addr).unwrap();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        write!(
            s,
            "{method} {base}api/{path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        s.read_to_string(&mut reply).unwrap();
        let status = reply.split(' ').nth(1).unwrap().parse().unwrap();
        let json = reply
            .split_once("\r\n\r\n")
            .and_then(|(_, b)| serde_json::from_str(b).ok())
            .unwrap_or(Json::Null);
        (status, json)
    }

    /// The server's resident memory, in bytes.
    fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        kb << 10
    }
}

#[test]
fn edits_of_a_large_byml_are_quick_and_keep_memory_flat() {
    let Some(dir) = common::corpus("byml") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ActorInfo.product.byml");
    std::fs::copy(dir.join("ActorInfo.product.byml"), &file).unwrap();
    let started = Instant::now();
    let server = Server::start(&file);
    // Read in the background: wait until the tree is there.
    loop {
        let (status, doc) = server.call("GET", "doc/0", None);
        assert_eq!(status, 200, "{doc}");
        if doc["read_only"].is_null() {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(600), "{doc}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let read = started.elapsed().as_secs_f64();
    // The first actor's `instSize`, a number (found by the search).
    let (_, hits) = server.call("GET", "search/0?q=instSize", None);
    let key = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["key"].as_str().unwrap())
        .find(|k| k.starts_with("4."))
        .expect("an instSize entry")
        .to_owned();
    // A key found lands on the entry's value: its third child (the
    // variant), and the number in it.
    assert!(key.ends_with(".2.0"), "{key}");
    let number = key;
    let mut rss = Vec::new();
    let mut times = Vec::new();
    for value in ["1234", "123456", "99"] {
        let t = Instant::now();
        let (status, answer) = server.call(
            "POST",
            "edit/0",
            Some(json!({"at": number, "value": value})),
        );
        times.push(t.elapsed().as_secs_f64());
        assert_eq!(status, 200, "{answer}");
        let changed = answer["changed"].as_array().unwrap();
        assert!(!changed.is_empty(), "{answer}");
        rss.push(server.rss());
        let (_, kids) = server.call(
            "GET",
            &format!("children/0?at={}", number.rsplit_once('.').unwrap().0),
            None,
        );
        assert_eq!(kids[0]["value"], json!(value), "the tree shows the edit");
    }
    println!(
        "read {read:.2} s; edits {times:.2?} s; resident {:?} MB",
        rss.iter().map(|b| b >> 20).collect::<Vec<_>>()
    );
    for t in &times {
        assert!(
            *t < read / 2.0,
            "an edit took {t:.2} s, reading {read:.2} s"
        );
    }
    // Memory flat across edits: the third leaves no more than the first
    // (with a tenth for the allocator's slack).
    assert!(
        rss[2] <= rss[0] + rss[0] / 10,
        "resident memory grew across edits: {rss:?}"
    );

    // `--5` read as 5.
    let (status, answer) = server.call(
        "POST",
        "edit/0",
        Some(json!({"at": number, "value": "--5"})),
    );
    assert_eq!(status, 422, "{answer}");
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("not a whole number"));

    // A schema POSTed by the page is input too: one whose record always
    // holds itself (it overflowed the stack and took the server and its
    // unsaved edits down) is refused with the checker's diagnostic, and
    // the server goes on.
    let looped = "Schema(name: \"loop\", endian: Little, root: \"Node\", sections: [Section(name: \"s\")], \
        types: [Struct(name: \"Node\", fields: [(name: \"next\", type: Ptr(width: U32, to: Named(\"Node\"), section: \"s\"))])])";
    let (status, answer) = server.call("POST", "schema/0", Some(json!({ "text": looped })));
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["diagnostics"]
            .to_string()
            .contains("so no file can end"),
        "{answer}"
    );
    let (status, _) = server.call("GET", "doc/0", None);
    assert_eq!(status, 200, "the server is still up");

    // A save over the file: written; then another program changes the
    // file, and a second save is refused (the page says why).
    let name = "ActorInfo.product.byml";
    let (status, answer) = server.call(
        "POST",
        "save/0",
        Some(json!({"name": name, "overwrite": true})),
    );
    assert_eq!(status, 200, "{answer}");
    let saved = std::fs::read(&file).unwrap();
    let (status, answer) = server.call(
        "POST",
        "save/0",
        Some(json!({"name": name, "overwrite": true})),
    );
    assert_eq!(status, 200, "a second save of an unchanged file: {answer}");
    let mut changed = saved.clone();
    changed.extend_from_slice(b"\0\0\0\0");
    std::fs::write(&file, &changed).unwrap();
    let (status, answer) = server.call(
        "POST",
        "save/0",
        Some(json!({"name": name, "overwrite": true})),
    );
    assert_eq!(status, 409, "{answer}");
    assert_eq!(answer["changed_on_disk"], json!(true), "{answer}");
    assert_eq!(std::fs::read(&file).unwrap(), changed, "the file was kept");
}

/// Issue 74: a folded record shows the field that names it (`nodes[3]`
/// shows `name = "Actor/…"` before it is opened), and a magic reads as
/// ASCII when it is text (`"SARC"`) and as its bytes when not (`FF FE`).
#[test]
fn folded_rows_show_their_names_and_magics_read_as_text_or_hex() {
    let Some(dir) = common::corpus("sarc") else {
        return;
    };
    let src = dir.join("ActorObserverByActorTagTag.sarc");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a.sarc");
    std::fs::copy(&src, &file).unwrap();
    let server = Server::start(&file);
    // The tree is read in the background: wait until it is there.
    let started = Instant::now();
    while server.call("GET", "doc/0", None).1["pending"] == json!(true) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the tree never came"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, fields) = server.call("GET", "children/0?at=", None);
    assert_eq!(status, 200, "{fields}");
    let field = |name: &str| {
        fields
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no field {name} in {fields}"))
            .clone()
    };
    assert_eq!(field("magic")["value"], "\"SARC\"");
    assert_eq!(field("byte_order")["value"], "FF FE");
    let nodes = field("nodes");
    let (_, rows) = server.call(
        "GET",
        &format!("children/0?at={}", nodes["key"].as_str().unwrap()),
        None,
    );
    let first = &rows.as_array().unwrap()[0];
    assert_eq!(first["kids"].as_u64().map(|k| k > 0), Some(true), "{first}");
    let shown = first["value"].as_str().unwrap_or_default();
    assert!(shown.starts_with("name = \"Actor/"), "{first}");
}
