//! `lblint server` end to end: a test client over an in-memory connection (the server on
//! a thread, as ruff's e2e harness runs it), and one run of the real binary over stdio.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lblint::server::{serve, Options};
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{json, Value};

mod actions;
mod e2e;
mod features;
mod positions;
mod robust;
mod stdio;

/// How long a test waits for a message before failing: a guard against a hang, not a
/// bound on speed (a busy 2-core machine must never trip it).
const TIMEOUT: Duration = Duration::from_secs(120);

/// A push client (no pull diagnostics), UTF-16 only, code action literals, dynamic file
/// watching and workspace configuration.
pub fn push_client() -> Value {
    json!({
        "workspace": {
            "didChangeWatchedFiles": {"dynamicRegistration": true},
            "configuration": true,
        },
        "textDocument": {
            "codeAction": {
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source"]}},
                "disabledSupport": true,
            },
        },
    })
}

pub struct TestServer {
    client: Connection,
    thread: Option<JoinHandle<i32>>,
    next_id: i32,
    pub root: PathBuf,
    /// Messages read while waiting for another.
    pending: VecDeque<Message>,
    /// What the client answers `workspace/configuration` with.
    pub settings: Value,
    pub initialize_result: Value,
}

impl TestServer {
    /// A workspace of `files` (relative path, text) in a fresh directory, and a server
    /// initialized on it.
    pub fn start(name: &str, files: &[(&str, &str)], capabilities: Value, options: Value) -> Self {
        let root = crate::cli::tempdir(&format!("server-{name}"));
        let root = std::fs::canonicalize(root).unwrap();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let (server, client) = Connection::memory();
        let thread = std::thread::spawn(move || {
            let options = Options {
                debounce: Duration::from_millis(20),
            };
            serve(server, options)
        });
        let mut test = TestServer {
            client,
            thread: Some(thread),
            next_id: 0,
            root,
            pending: VecDeque::new(),
            settings: Value::Null,
            initialize_result: Value::Null,
        };
        let root_uri = test.uri("");
        let params = json!({
            "processId": null,
            "rootUri": root_uri,
            "capabilities": capabilities,
            "initializationOptions": options,
        });
        test.initialize_result = test.request("initialize", params);
        test.notify("initialized", json!({}));
        test
    }

    pub fn uri(&self, relative: &str) -> String {
        lblint::server::uri::from_path(&self.root.join(relative))
            .trim_end_matches('/')
            .to_string()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_string(), params);
        self.client.sender.send(n.into()).unwrap();
    }

    /// Send a request; its result, or its error object.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&id)
    }

    /// Send a request without waiting for its response.
    pub fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let req = Request::new(id.clone(), method.to_string(), params);
        self.client.sender.send(req.into()).unwrap();
        id
    }

    pub fn response(&mut self, id: &RequestId) -> Value {
        let found = self.next_matching(|m| matches!(m, Message::Response(r) if r.id == *id));
        match found {
            Message::Response(Response {
                response_result, ..
            }) => match response_result {
                Ok(value) => value,
                Err(err) => json!({"error": {"code": err.code, "message": err.message}}),
            },
            _ => unreachable!(),
        }
    }

    /// The next notification `method` whose params satisfy `test`.
    pub fn notification(&mut self, method: &str, test: impl Fn(&Value) -> bool) -> Value {
        let found = self.next_matching(
            |m| matches!(m, Message::Notification(n) if n.method == method && test(&n.params)),
        );
        match found {
            Message::Notification(n) => n.params,
            _ => unreachable!(),
        }
    }

    /// The next `publishDiagnostics` for `relative`.
    pub fn published(&mut self, relative: &str) -> Value {
        let uri = self.uri(relative);
        self.notification("textDocument/publishDiagnostics", |p| p["uri"] == uri)
    }

    /// Read messages until one matches (earlier ones are kept for later waits); the
    /// server's own requests are answered on the way.
    fn next_matching(&mut self, wanted: impl Fn(&Message) -> bool) -> Message {
        if let Some(at) = self.pending.iter().position(&wanted) {
            return self.pending.remove(at).unwrap();
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self.client.receiver.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "no matching message in {TIMEOUT:?}; unmatched: {:#?}",
                    self.pending
                )
            });
            if let Message::Request(req) = &message {
                self.answer(req);
            }
            if wanted(&message) {
                return message;
            }
            self.pending.push_back(message);
        }
    }

    fn answer(&self, req: &Request) {
        let result = match req.method.as_str() {
            "workspace/configuration" => json!([self.settings]),
            _ => Value::Null,
        };
        let response = Response::new_ok(req.id.clone(), result);
        self.client.sender.send(response.into()).unwrap();
    }

    /// Open a file of the workspace with its text on disk (or `text`); version 1.
    pub fn open(&self, relative: &str, text: Option<&str>) -> String {
        let text = match text {
            Some(text) => text.to_string(),
            None => std::fs::read_to_string(self.path(relative)).unwrap(),
        };
        let doc =
            json!({"uri": self.uri(relative), "languageId": "yaml", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": doc}));
        text
    }

    /// Incremental changes to an open document.
    pub fn change(&self, relative: &str, version: i32, changes: Value) {
        let id = json!({"uri": self.uri(relative), "version": version});
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": id, "contentChanges": changes}),
        );
    }

    pub fn code_actions(&mut self, relative: &str, range: &Value, only: Option<&[&str]>) -> Value {
        let mut context = json!({"diagnostics": []});
        if let Some(only) = only {
            context["only"] = json!(only);
        }
        let params = json!({
            "textDocument": {"uri": self.uri(relative)},
            "range": range,
            "context": context,
        });
        self.request("textDocument/codeAction", params)
    }

    pub fn hover(&mut self, relative: &str, line: u32, character: u32) -> Value {
        let params = json!({
            "textDocument": {"uri": self.uri(relative)},
            "position": {"line": line, "character": character},
        });
        self.request("textDocument/hover", params)
    }

    /// Whatever the server sent that no wait consumed (notifications other tests ignore).
    pub fn drain(&mut self, quiet: Duration) -> Vec<Message> {
        while let Ok(message) = self.client.receiver.recv_timeout(quiet) {
            if let Message::Request(req) = &message {
                self.answer(req);
            }
            self.pending.push_back(message);
        }
        self.pending.drain(..).collect()
    }

    /// `shutdown`, then `exit`: the server's exit status.
    pub fn shutdown(mut self) -> i32 {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.thread.take().unwrap().join().unwrap()
    }

    /// `value` with the workspace's directory written `ROOT`, for snapshots.
    pub fn stable(&self, value: &Value) -> Value {
        let text = value.to_string();
        let uri = self.uri("");
        let path = self.root.to_str().unwrap();
        let text = text.replace(&uri, "file:///ROOT").replace(path, "/ROOT");
        // Displayed paths are relative to the test's working directory, with `..` when the
        // scratch directory is outside it (a CARGO_TARGET_DIR elsewhere).
        let cwd = std::env::current_dir().unwrap();
        let relative = relative_to(&self.root, &cwd);
        let text = text.replace(&relative, "ROOT");
        let text = text.replace(
            &format!("/v{}/rules/", env!("CARGO_PKG_VERSION")),
            "/vVERSION/rules/",
        );
        serde_json::from_str(&text).unwrap()
    }
}

/// Apply LSP text edits (UTF-16 positions) to `text`, last first.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let at = |p: &Value| {
                offset(
                    text,
                    p["line"].as_u64().unwrap(),
                    p["character"].as_u64().unwrap(),
                )
            };
            (
                at(&e["range"]["start"]),
                at(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, &new);
    }
    out
}

/// The byte offset of a UTF-16 position (test texts end lines with `\n`).
pub fn offset(text: &str, line: u64, character: u64) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize)
        .map(str::len)
        .sum();
    let mut units = 0;
    for (at, c) in text[start..].char_indices() {
        if units >= character as usize || c == '\n' {
            return start + at;
        }
        units += c.len_utf16() as u64 as usize;
    }
    text.len()
}

/// A workspace's files from a testdata directory.
pub fn testdata(dir: &str, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(Path::new(dir).join(n)).unwrap();
            (n.to_string(), text)
        })
        .collect()
}

/// The `key` string of each item of an array.
pub fn strings<'v>(items: &'v Value, key: &str) -> Vec<&'v str> {
    let items = items.as_array().unwrap();
    items.iter().map(|i| i[key].as_str().unwrap()).collect()
}

pub fn as_refs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

/// `path` relative to `base` (both absolute), with `..` for the parts of `base` it is not in.
fn relative_to(path: &std::path::Path, base: &std::path::Path) -> String {
    let (path, base): (Vec<_>, Vec<_>) = (path.components().collect(), base.components().collect());
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(
        path[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}
