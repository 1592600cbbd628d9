//! `codec explore PATH...`: a local web page that shows a file as hex and
//! as the schema's tree side by side, coloured by coverage, and edits it
//! through the format's own writer.
//!
//! The server (axum) binds 127.0.0.1 only, on a random port unless told
//! otherwise, and answers only under a random token (`/TOKEN/...`) and to
//! requests whose `Host` is that address: another page in the browser
//! cannot reach it, nor can a name that rebinds to this machine. It reads
//! the files named on the command line (and their members) and writes only
//! beside them, by a plain name, never over a file unless the page confirms
//! it (see [`save`]). The page is three files built into the binary
//! (`page/`); nothing is loaded from the network.

mod first_screen;
mod session;

use axum::body::Body;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::Args;
use serde::Deserialize;
use serde_json::json;
use session::Session;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Arguments of `codec explore`.
#[derive(Debug, Args)]
#[command(
    about = "Show and edit files in a local web page: hex and tree, coverage, the live schema",
    long_about = "Starts a web server on 127.0.0.1 and prints its address (with a \
                  random token). The page shows each file as hex beside the schema's \
                  tree, linked both ways (click a field: its bytes; click a byte: its \
                  field), coloured by coverage; edits a number, bool or string and \
                  writes the file with the format's own writer, showing which bytes \
                  changed; saves beside the file, atomically; browses the members of \
                  SARC archives through Yaz0 and zstd; and re-reads the file at once \
                  when the schema is edited in the page. Stop it with Ctrl-C."
)]
pub struct ExploreArgs {
    /// The files to open (archives: their members open from the page).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Read the files with this schema instead of the built-in ones (the
    /// page is then read-only: only compiled codecs write so far).
    #[arg(long, value_name = "FILE.ron")]
    schema: Option<PathBuf>,

    /// The port to listen on (default: any free one).
    #[arg(long, default_value_t = 0)]
    port: u16,

    /// Open the address in the desktop's browser (xdg-open).
    #[arg(long)]
    open: bool,

    /// AAMP: a names file, one name per line (repeatable), to show the
    /// name each CRC32 stands for. Replaces $CODEC_AAMP_NAMES.
    #[arg(long, value_name = "FILE")]
    names: Vec<PathBuf>,

    #[command(flatten)]
    dicts: crate::open::DictArgs,
}

struct App {
    session: Mutex<Session>,
}

type Shared = Arc<App>;

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/explore.js");
const STYLE: &str = include_str!("page/explore.css");

/// Runs `codec explore` until interrupted.
pub fn run(args: &ExploreArgs) -> ExitCode {
    let dicts = match args.dicts.load(&args.paths) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let names = match crate::text::load_names(&args.names, &[]) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("codec: {e}");
            return crate::inputs::usage();
        }
    };
    let given = match &args.schema {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Ok(text) => {
                if let Err(d) = codec_schema::parse_str(&text, &p.display().to_string()) {
                    eprint!("codec: schema errors:\n{d}\n");
                    return crate::inputs::usage();
                }
                Some((text, p.display().to_string()))
            }
            Err(e) => {
                eprintln!("codec: {}: {}", p.display(), formats::io_message(&e));
                return crate::inputs::usage();
            }
        },
    };
    let mut session = Session::new(dicts, names, given);
    // The trees of the files named are read while the server starts: the
    // page shows the bytes at once and the tree when it is there.
    session.defer(true);
    for p in &args.paths {
        if let Err(e) = session.open_file(p) {
            eprintln!("codec: {e}");
            return crate::inputs::failure();
        }
    }
    let token = match token() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("codec: no random token: {e}");
            return crate::inputs::failure();
        }
    };
    // One worker: the session's work is one request at a time anyway (it
    // is behind a lock), and done on one thread its memory is reused from
    // edit to edit; on two, each thread's allocator arena kept the peak of
    // an edit of its own, and the server grew with the first edits.
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_io()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("codec: cannot start the server: {e}");
            return crate::inputs::failure();
        }
    };
    session.defer(false);
    let (work, names) = session.pending();
    let app = Arc::new(App {
        session: Mutex::new(session),
    });
    let reader = app.clone();
    std::thread::spawn(move || {
        for (id, checked, data) in work {
            let tree = session::read_tree(&checked, &data, &names);
            with_session(&reader, |s| s.finish(id, tree));
        }
    });
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("codec: cannot listen on 127.0.0.1:{}: {e}", args.port);
                return crate::inputs::failure();
            }
        };
        let port = match listener.local_addr() {
            Ok(a) => a.port(),
            Err(e) => {
                eprintln!("codec: {e}");
                return crate::inputs::failure();
            }
        };
        let url = format!("http://127.0.0.1:{port}/{token}/");
        // Whoever reads the address may close the pipe: that stops nothing.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "codec explore: {url}");
        let _ = writeln!(out, "(only this address answers; Ctrl-C stops the server)");
        let _ = out.flush();
        drop(out);
        if args.open {
            let _ = std::process::Command::new("xdg-open").arg(&url).spawn();
        }
        let router = router(app, &token, port);
        match axum::serve(listener, router).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("codec: the server stopped: {e}");
                crate::inputs::failure()
            }
        }
    })
}

/// 128 random bits as hex.
fn token() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

fn router(app: Shared, token: &str, port: u16) -> Router {
    let api = Router::new()
        .route(
            "/explore.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/explore.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/docs", get(docs))
        .route("/api/doc/{id}", get(doc))
        .route("/api/bytes/{id}", get(bytes))
        .route("/api/children/{id}", get(children))
        .route("/api/document/{id}", get(document))
        .route("/api/owner/{id}", get(owner))
        .route("/api/search/{id}", get(search))
        .route("/api/member/{id}", post(member))
        .route("/api/edit/{id}", post(edit))
        .route("/api/schema/{id}", get(schema).post(set_schema))
        .route("/api/save/{id}", post(save))
        .with_state(app.clone());
    let hosts: Arc<[String]> = Arc::from(vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
    ]);
    // The page is `/TOKEN/`, so that its own requests are relative to it.
    let home = format!("/{token}/");
    Router::new()
        .route(&home, get(index).with_state(app))
        .route(
            &format!("/{token}"),
            get(move || async move { axum::response::Redirect::to(&home) }),
        )
        .nest(&format!("/{token}"), api)
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            let hosts = hosts.clone();
            async move { host_guard(&hosts, req, next).await }
        }))
}

/// Refuses a request whose `Host` is not this server's own address (a
/// page of another site that rebinds its name to 127.0.0.1).
async fn host_guard(hosts: &[String], req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !hosts.iter().any(|h| h == host) {
        return (StatusCode::FORBIDDEN, "wrong Host\n").into_response();
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        "no-store".parse().expect("a header value"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; img-src 'self' data:"
            .parse()
            .expect("a header value"),
    );
    h.insert(
        "x-content-type-options",
        "nosniff".parse().expect("a header value"),
    );
    res
}

/// How long the page waits for the first file's tree.
const FIRST_SCREEN_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// The page, with the first file's first screen filled in by the server.
/// A tree read in the background is waited for a moment (the corpus's
/// files are read well within it), so that the first screen has the
/// document; a bigger file's page says it is being read.
async fn index(State(app): State<Shared>) -> Response {
    let since = std::time::Instant::now();
    while with_session(&app, |s| s.docs.first().is_some_and(|d| d.pending))
        && since.elapsed() < FIRST_SCREEN_WAIT
    {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let html = with_session(&app, |s| first_screen::render(PAGE, s));
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// An error for the page: its message as JSON.
fn refuse(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

fn with_session<T>(app: &App, f: impl FnOnce(&mut Session) -> T) -> T {
    let mut s = app.session.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut s)
}

/// The answer `f` gives about document `id`, or 404.
fn with_doc(app: &App, id: usize, f: impl FnOnce(&session::Doc) -> Response) -> Response {
    with_session(app, |s| match s.docs.get(id) {
        Some(d) => f(d),
        None => refuse(StatusCode::NOT_FOUND, "no such document"),
    })
}

async fn docs(State(app): State<Shared>) -> Response {
    with_session(&app, |s| {
        let list: Vec<_> = s
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| json!({"id": i, "label": d.label, "dirty": d.dirty}))
            .collect();
        Json(list).into_response()
    })
}

async fn doc(State(app): State<Shared>, UrlPath(id): UrlPath<usize>) -> Response {
    with_doc(&app, id, |d| Json(d.summary(id)).into_response())
}

async fn bytes(State(app): State<Shared>, UrlPath(id): UrlPath<usize>) -> Response {
    with_doc(&app, id, |d| {
        let kind = [(header::CONTENT_TYPE, "application/octet-stream")];
        (kind, Body::from(d.data.clone())).into_response()
    })
}

/// `0.3.1`: indices from the root.
fn keys(at: &str) -> Result<Vec<usize>, Box<Response>> {
    if at.is_empty() {
        return Ok(Vec::new());
    }
    at.split('.')
        .map(|k| k.parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            Box::new(refuse(
                StatusCode::BAD_REQUEST,
                format!("not a key: {at:?}"),
            ))
        })
}

async fn children(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    at_node(&app, id, &q, session::Doc::children)
}

/// The document's entries under a node, as the text form shows them.
async fn document(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    at_node(&app, id, &q, session::Doc::document)
}

/// What `f` says of the node the query's `at` names in document `id`.
fn at_node(
    app: &App,
    id: usize,
    q: &HashMap<String, String>,
    f: fn(&session::Doc, &[usize]) -> Option<serde_json::Value>,
) -> Response {
    let at = match keys(q.get("at").map(String::as_str).unwrap_or("")) {
        Ok(a) => a,
        Err(r) => return *r,
    };
    with_session(app, |s| match s.docs.get(id).and_then(|d| f(d, &at)) {
        Some(j) => Json(j).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no such field"),
    })
}

/// The document entries from the root down to the node at `key`.
fn document_chain(d: &session::Doc, key: &str) -> Vec<String> {
    match keys(key) {
        Ok(at) => d.document_chain(&at),
        Err(_) => Vec::new(),
    }
}

async fn owner(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let Some(offset) = q.get("offset").and_then(|o| o.parse::<u64>().ok()) else {
        return refuse(StatusCode::BAD_REQUEST, "offset=N expected");
    };
    with_session(&app, |s| {
        let Some(d) = s.docs.get(id) else {
            return refuse(StatusCode::NOT_FOUND, "no such document");
        };
        let chain = d.owner_of(offset);
        let doc_chain = chain
            .as_ref()
            .and_then(|c| c.last())
            .map(|k| document_chain(d, k));
        Json(json!({ "chain": chain, "doc_chain": doc_chain })).into_response()
    })
}

async fn search(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let text = q.get("q").cloned().unwrap_or_default();
    with_doc(&app, id, |d| {
        let mut hits = d.search(&text, 200);
        if let Some(list) = hits.as_array_mut() {
            for h in list {
                let key = h["key"].as_str().unwrap_or("").to_owned();
                h["doc_chain"] = json!(document_chain(d, &key));
            }
        }
        Json(hits).into_response()
    })
}

#[derive(Deserialize)]
struct MemberBody {
    name: String,
}

async fn member(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Json(b): Json<MemberBody>,
) -> Response {
    with_session(&app, |s| match s.open_member(id, &b.name) {
        Ok(m) => Json(json!({ "id": m })).into_response(),
        Err(e) => refuse(StatusCode::BAD_REQUEST, e),
    })
}

#[derive(Deserialize)]
struct EditBody {
    at: String,
    value: String,
}

async fn edit(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Json(b): Json<EditBody>,
) -> Response {
    let at = match keys(&b.at) {
        Ok(a) => a,
        Err(r) => return *r,
    };
    with_session(&app, |s| match s.edit(id, &at, &b.value) {
        Ok(changed) => Json(json!({ "changed": changed })).into_response(),
        Err(e) => refuse(StatusCode::UNPROCESSABLE_ENTITY, e),
    })
}

async fn schema(State(app): State<Shared>, UrlPath(id): UrlPath<usize>) -> Response {
    with_doc(&app, id, |d| {
        Json(json!({"file": d.schema_file, "text": d.schema_text})).into_response()
    })
}

#[derive(Deserialize)]
struct SchemaBody {
    text: String,
}

async fn set_schema(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Json(b): Json<SchemaBody>,
) -> Response {
    with_session(&app, |s| match s.set_schema(id, &b.text) {
        Ok(()) => Json(json!({ "diagnostics": [] })).into_response(),
        Err(d) => Json(json!({ "diagnostics": d })).into_response(),
    })
}

#[derive(Deserialize)]
struct SaveBody {
    /// A plain file name, written beside the file the document came from.
    name: String,
    /// The page confirmed replacing an existing file.
    #[serde(default)]
    overwrite: bool,
}

/// Saves the file named on the command line that holds the document, with
/// every edit, as `name` in its folder. `name` is one plain name (no
/// separator, no `..`); an existing file is replaced only when the page
/// confirmed it, and never through a link.
async fn save(
    State(app): State<Shared>,
    UrlPath(id): UrlPath<usize>,
    Json(b): Json<SaveBody>,
) -> Response {
    let plain = !b.name.is_empty()
        && b.name != "."
        && b.name != ".."
        && !b.name.contains(['/', '\\'])
        && !b.name.chars().any(char::is_control);
    if !plain {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!(
                "{:?}: a plain file name, saved beside the file opened",
                b.name
            ),
        );
    }
    with_session(&app, |s| {
        let (source, bytes) = match s.saved_bytes(id) {
            Ok(x) => x,
            Err(e) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, e),
        };
        let dir = source.parent().map(PathBuf::from).unwrap_or_default();
        let target = dir.join(&b.name);
        // Saved over the file it came from, a change another program made
        // there since would be lost without a word.
        if target == source {
            if let Some(why) = s.changed_on_disk(id) {
                return (
                    StatusCode::CONFLICT,
                    Json(json!({ "changed_on_disk": true, "error": why })),
                )
                    .into_response();
            }
        }
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() || !m.is_file() => {
                return refuse(
                    StatusCode::CONFLICT,
                    format!("{}: not a regular file; not replaced", target.display()),
                )
            }
            Ok(_) if !b.overwrite => {
                return (
                    StatusCode::CONFLICT,
                    Json(json!({
                        "exists": true,
                        "error": format!("{} exists", target.display()),
                    })),
                )
                    .into_response()
            }
            _ => {}
        }
        match crate::atomic::write(&target, &bytes, b.overwrite) {
            Ok(()) if target == source => {
                s.saved_over_source(id, &bytes);
                Json(json!({"written": target.display().to_string(), "size": bytes.len()}))
                    .into_response()
            }
            Ok(()) => Json(json!({"written": target.display().to_string(), "size": bytes.len()}))
                .into_response(),
            Err(e) => refuse(StatusCode::UNPROCESSABLE_ENTITY, e),
        }
    })
}
