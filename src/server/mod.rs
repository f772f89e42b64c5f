//! `lblint server`: a language server over stdio. It claims diagnostics, code actions and
//! hover only, so it runs beside yaml-language-server.
//!
//! One synchronous loop (lsp-server's crossbeam channels, no async runtime) applies every
//! document notification in order and answers requests from the last lint; the lint runs
//! on a worker thread (`lint`) over the whole workspace as `lblint check` reads it, with
//! the open documents' texts overlaid, debounced after edits.

use std::path::PathBuf;

use lsp_server::{Connection, Message, Notification, Request, Response};
use serde_json::{json, Value};

mod actions;
mod cache;
mod convert;
mod hover;
mod lint;
mod publish;
mod published;
mod session;
pub(crate) mod settings;
mod state;
pub(crate) mod text;
mod transport;
pub mod uri;

pub use session::Options;
use text::Encoding;

/// JSON-RPC and LSP error codes the server answers with.
pub(crate) mod codes {
    pub(crate) const INVALID_REQUEST: i32 = -32600;
    pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
    pub(crate) const INVALID_PARAMS: i32 = -32602;
    pub(crate) const SERVER_NOT_INITIALIZED: i32 = -32002;
}

/// The server's log: stderr, which editors show as the server's output.
#[allow(clippy::print_stderr)]
pub(crate) fn log(message: &str) {
    eprintln!("lblint server: {message}");
}

/// Serve over stdin/stdout until `exit`; the exit status the protocol asks for (0 after
/// `shutdown`, else 1).
pub(crate) fn run_stdio() -> i32 {
    let (connection, threads) = match transport::stdio() {
        Ok(io) => io,
        Err(err) => {
            log(&format!("cannot start: {err}"));
            return 1;
        }
    };
    let code = serve(connection, Options::default());
    threads.join();
    code
}

/// Serve one client on `connection` (stdio, or in memory for tests).
pub fn serve(connection: Connection, options: Options) -> i32 {
    let Some((id, params)) = wait_for_initialize(&connection) else {
        return 1;
    };
    let client = Client::of(&params);
    let result = json!({
        "capabilities": capabilities(&client),
        "serverInfo": {"name": "lblint", "version": env!("CARGO_PKG_VERSION")},
    });
    send(&connection, Response::new_ok(id, result));
    match session::Server::new(&connection, client, &params, options) {
        Ok(mut server) => server.run(),
        Err(err) => {
            log(&format!("cannot start the lint thread: {err}"));
            1
        }
    }
}

pub(crate) fn send(connection: &Connection, message: impl Into<Message>) {
    // The client is gone when this fails: the loop ends on the closed receiver.
    let _ = connection.sender.send(message.into());
}

/// Answer everything before `initialize` as the protocol says: requests with "server not
/// initialized", notifications dropped, `exit` ends the session.
fn wait_for_initialize(connection: &Connection) -> Option<(lsp_server::RequestId, Value)> {
    for message in &connection.receiver {
        match message {
            Message::Request(Request { id, method, params }) if method == "initialize" => {
                return Some((id, params));
            }
            Message::Request(req) => {
                log(&format!("{} before initialize: refused", req.method));
                let text = "the server is not initialized".to_string();
                send(
                    connection,
                    Response::new_err(req.id, codes::SERVER_NOT_INITIALIZED, text),
                );
            }
            Message::Notification(Notification { method, .. }) if method == "exit" => return None,
            Message::Notification(n) => log(&format!("{} before initialize: dropped", n.method)),
            Message::Response(_) => log("a response before initialize: dropped"),
        }
    }
    None
}

/// What the client said it supports, read leniently: a missing or odd field is "no".
#[derive(Clone, Debug)]
pub(crate) struct Client {
    pub encoding: Encoding,
    /// `textDocument/diagnostic`: the client pulls; the server never pushes.
    pub pull: bool,
    pub refresh: bool,
    pub watch: bool,
    pub configuration: bool,
    pub action_literals: bool,
    pub disabled_actions: bool,
}

impl Client {
    fn of(params: &Value) -> Client {
        let caps = &params["capabilities"];
        let yes = |pointer: &str| caps.pointer(pointer).and_then(Value::as_bool) == Some(true);
        let utf8 = caps
            .pointer("/general/positionEncodings")
            .and_then(Value::as_array)
            .is_some_and(|all| all.iter().any(|e| e == "utf-8"));
        Client {
            encoding: if utf8 {
                Encoding::Utf8
            } else {
                Encoding::Utf16
            },
            pull: caps
                .pointer("/textDocument/diagnostic")
                .is_some_and(Value::is_object),
            refresh: yes("/workspace/diagnostics/refreshSupport"),
            watch: yes("/workspace/didChangeWatchedFiles/dynamicRegistration"),
            configuration: yes("/workspace/configuration"),
            action_literals: caps
                .pointer("/textDocument/codeAction/codeActionLiteralSupport")
                .is_some_and(Value::is_object),
            disabled_actions: yes("/textDocument/codeAction/disabledSupport"),
        }
    }
}

/// The fix-all code action kind (`editor.codeActionsOnSave` names it).
pub(crate) const FIX_ALL: &str = "source.fixAll.lblint";

fn capabilities(client: &Client) -> Value {
    let actions = match client.action_literals {
        true => json!({"codeActionKinds": ["quickfix", FIX_ALL]}),
        false => json!(true),
    };
    let mut caps = json!({
        "positionEncoding": client.encoding.as_str(),
        // 2: incremental.
        "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
        "codeActionProvider": actions,
        "hoverProvider": true,
    });
    if client.pull {
        // A finding in one file can change with an edit of another.
        caps["diagnosticProvider"] = json!({
            "identifier": "lblint",
            "interFileDependencies": true,
            "workspaceDiagnostics": true,
        });
    }
    caps
}

/// The workspace roots the client names: its folders, else the root URI, else the root
/// path.
fn roots(params: &Value) -> Vec<PathBuf> {
    let folders: Vec<PathBuf> = params["workspaceFolders"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| uri::to_path(f["uri"].as_str()?))
        .collect();
    if !folders.is_empty() {
        return folders;
    }
    if let Some(root) = params["rootUri"].as_str().and_then(uri::to_path) {
        return vec![root];
    }
    params["rootPath"]
        .as_str()
        .map(PathBuf::from)
        .into_iter()
        .collect()
}
