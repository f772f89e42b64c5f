//! The server's loop: messages in order, documents, settings, the debounced lint,
//! requests (pulls, hovers and code actions wait for the lint of the latest edits).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use gen_lsp_types as lsp;
use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde_json::{json, Value};

use super::lint::{Job, Linted};
use super::session::{Doc, Server, Waiting};
use super::{codes, log, send, text, uri};

impl Server<'_> {
    /// The loop: messages in order, lint results as they come, the debounced lint when due.
    pub(crate) fn run(&mut self) -> i32 {
        loop {
            let wait = self.due.map_or(Duration::from_secs(3600), |due| {
                due.saturating_duration_since(Instant::now())
            });
            crossbeam_channel::select! {
                recv(self.conn.receiver) -> message => match message {
                    Ok(message) => {
                        if let Some(code) = self.handle(message) {
                            return code;
                        }
                    }
                    Err(_) => {
                        log("the client closed the connection without `exit`");
                        self.answer_all_waiting();
                        return 1;
                    }
                },
                recv(self.results) -> linted => {
                    if let Ok(linted) = linted {
                        self.finished(linted);
                    }
                }
                default(wait) => {}
            }
            self.start_if_due();
        }
    }

    fn handle(&mut self, message: Message) -> Option<i32> {
        match message {
            Message::Request(req) => self.request(req),
            Message::Notification(n) => return self.notification(n),
            Message::Response(r) => self.response(r),
        }
        None
    }

    pub(crate) fn request(&mut self, req: Request) {
        if self.shutdown {
            let text = "the server is shutting down".to_string();
            return self.reply(Response::new_err(req.id, codes::INVALID_REQUEST, text));
        }
        let Request { id, method, params } = req;
        let result = match method.as_str() {
            "shutdown" => {
                // No lint comes after this one matters: held requests are answered now.
                self.answer_all_waiting();
                self.shutdown = true;
                Ok(Value::Null)
            }
            "initialize" => Err((codes::INVALID_REQUEST, "already initialized".to_string())),
            "textDocument/codeAction" | "textDocument/hover" if self.stale() => {
                let req = Request { id, method, params };
                return self.waiting.push(Waiting::Request(req));
            }
            "textDocument/codeAction" | "textDocument/hover" => self.answer_now(&method, params),
            "textDocument/diagnostic" => match parse(params) {
                Ok(p) => return self.pull_document(id, p),
                Err(err) => Err(err),
            },
            "workspace/diagnostic" => return self.pull_workspace(id, params),
            _ => Err((
                codes::METHOD_NOT_FOUND,
                format!("{method} is not supported"),
            )),
        };
        let response = match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, text)) => {
                log(&format!("{method}: {text}"));
                Response::new_err(id, code, text)
            }
        };
        self.reply(response);
    }

    fn notification(&mut self, n: Notification) -> Option<i32> {
        let Notification { method, params } = n;
        let handled = match method.as_str() {
            "exit" => {
                self.answer_all_waiting();
                return Some(if self.shutdown { 0 } else { 1 });
            }
            "initialized" => {
                self.initialized();
                Ok(())
            }
            "textDocument/didOpen" => parse(params).map(|p| self.did_open(p)),
            "textDocument/didChange" => parse(params).map(|p| self.did_change(p)),
            "textDocument/didClose" => parse(params).map(|p| self.did_close(p)),
            "textDocument/didSave" => {
                self.schedule(self.options.debounce);
                Ok(())
            }
            "workspace/didChangeWatchedFiles" => {
                let changed = params["changes"].as_array().into_iter().flatten();
                let paths = changed.filter_map(|c| uri::to_path(c["uri"].as_str()?));
                self.forget.extend(paths);
                self.schedule(self.options.debounce);
                Ok(())
            }
            "workspace/didChangeConfiguration" => {
                self.configuration_changed(&params);
                Ok(())
            }
            "$/cancelRequest" => {
                self.cancel(&params);
                Ok(())
            }
            other if other.starts_with("$/") => Ok(()),
            other => Err((0, format!("unknown notification {other}: ignored"))),
        };
        if let Err((_, text)) = handled {
            log(&format!("{method}: {text}"));
        }
        None
    }

    fn response(&mut self, response: Response) {
        if self.config_request.as_ref() != Some(&response.id) {
            return;
        }
        self.config_request = None;
        match response.response_result {
            Ok(Value::Array(items)) => match items.first() {
                Some(value) => self.apply_settings(value),
                None => log("workspace/configuration: no settings"),
            },
            Ok(other) => log(&format!("workspace/configuration: not a list: {other}")),
            Err(err) => log(&format!("workspace/configuration: {}", err.message)),
        }
    }

    /// A request to the client; its response is read by [`Server::response`].
    fn ask(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(format!("lblint-{}", self.next_id));
        send(
            self.conn,
            Request::new(id.clone(), method.to_string(), params),
        );
        id
    }

    /// Watch the config files and manifests, and ask for the editor's settings.
    fn initialized(&mut self) {
        if self.client.watch {
            let watchers: Vec<Value> =
                ["**/lblint.yaml", "**/.lblint.yaml", "**/*.{yaml,yml,json}"]
                    .iter()
                    .map(|glob| json!({"globPattern": glob}))
                    .collect();
            let registration = json!({"registrations": [{
                "id": "lblint-watched-files",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": watchers},
            }]});
            self.ask("client/registerCapability", registration);
        }
        self.request_settings();
    }

    fn request_settings(&mut self) {
        if self.client.configuration {
            let id = self.ask(
                "workspace/configuration",
                json!({"items": [{"section": "lblint"}]}),
            );
            self.config_request = Some(id);
        }
    }

    fn configuration_changed(&mut self, params: &Value) {
        match params.get("settings").filter(|s| s.get("lblint").is_some()) {
            Some(settings) => self.apply_settings(settings),
            None => self.request_settings(),
        }
    }

    /// The client's section over the initialization options: each answer is the whole
    /// section, so a key the editor no longer sets falls back to them.
    fn apply_settings(&mut self, value: &Value) {
        match self.initial_settings.merged(value) {
            Ok(Some(settings)) if settings != self.settings => {
                self.settings = settings;
                self.schedule(Duration::ZERO);
            }
            Ok(_) => {}
            Err(err) => log(&err),
        }
    }

    fn cancel(&mut self, params: &Value) {
        let Ok(id) = serde_json::from_value::<RequestId>(params["id"].clone()) else {
            return;
        };
        let before = self.waiting.len();
        self.waiting.retain(|w| match w {
            Waiting::Request(Request { id: i, .. })
            | Waiting::Document(i, ..)
            | Waiting::Workspace(i, _) => *i != id,
        });
        if self.waiting.len() < before {
            self.reply(Response::new_err(id, -32800, "cancelled".to_string()));
        }
    }

    fn did_open(&mut self, params: lsp::DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let Some(path) = uri::to_path(&doc.uri.0) else {
            return log(&format!("{}: not a local file: not linted", doc.uri.0));
        };
        // Opened as a document, a directory would be linted whole (`file:///`: the disk).
        if doc.uri.0.ends_with('/') || path.is_dir() {
            let text = format!(
                "{} is a directory, not a document: not linted (the workspace folders are \
                 linted as a whole already)",
                doc.uri.0
            );
            log(&text);
            let params = json!({"type": 2, "message": format!("lblint: {text}")});
            return send(
                self.conn,
                Notification::new("window/showMessage".to_string(), params),
            );
        }
        let doc = Doc {
            uri: doc.uri.0,
            text: doc.text,
            version: doc.version,
        };
        self.docs.insert(path, doc);
        // Open-files-only: its findings from the last lint show at once.
        self.publish_changes();
        self.schedule(self.options.debounce);
    }

    fn did_change(&mut self, params: lsp::DidChangeTextDocumentParams) {
        let id = params.text_document.text_document_identifier;
        let version = params.text_document.version;
        let encoding = self.client.encoding;
        let doc = uri::to_path(&id.uri.0).and_then(|path| self.docs.get_mut(&path));
        let Some(doc) = doc else {
            return log(&format!(
                "didChange for {}, which is not open: ignored",
                id.uri.0
            ));
        };
        text::apply_changes(&mut doc.text, params.content_changes, encoding);
        doc.version = version;
        self.schedule(self.options.debounce);
    }

    fn did_close(&mut self, params: lsp::DidCloseTextDocumentParams) {
        let uri = params.text_document.uri.0;
        if uri::to_path(&uri)
            .and_then(|path| self.docs.remove(&path))
            .is_none()
        {
            return log(&format!("didClose for {uri}, which is not open: ignored"));
        }
        self.publish_changes();
        self.schedule(self.options.debounce);
    }

    /// A code action or hover from the findings as they are.
    fn answer_now(&self, method: &str, params: Value) -> Result<Value, (i32, String)> {
        match method {
            "textDocument/codeAction" => {
                parse(params).map(|p| super::actions::code_actions(self, p))
            }
            _ => parse(params).map(|p| super::hover::hover(self, p)),
        }
    }

    /// Answer every held request from the findings as they are (a held workspace pull
    /// with an empty report: nothing changed since the client's ids), at shutdown, exit
    /// or a closed connection, so no request goes unanswered.
    fn answer_all_waiting(&mut self) {
        for waiting in std::mem::take(&mut self.waiting) {
            let response = match waiting {
                Waiting::Request(Request { id, method, params }) => {
                    match self.answer_now(&method, params) {
                        Ok(value) => Response::new_ok(id, value),
                        Err((code, text)) => Response::new_err(id, code, text),
                    }
                }
                Waiting::Document(id, path, previous) => {
                    Response::new_ok(id, self.document_report(&path, previous.as_deref()))
                }
                Waiting::Workspace(id, previous) => {
                    let report = self.workspace_report(&previous);
                    Response::new_ok(id, report.unwrap_or_else(|| json!({"items": []})))
                }
            };
            self.reply(response);
        }
    }

    fn answer_waiting(&mut self) {
        let mut still = Vec::new();
        for waiting in std::mem::take(&mut self.waiting) {
            match waiting {
                Waiting::Request(req) => self.request(req),
                Waiting::Document(id, path, previous) => {
                    let report = self.document_report(&path, previous.as_deref());
                    self.reply(Response::new_ok(id, report));
                }
                Waiting::Workspace(id, previous) => match self.workspace_report(&previous) {
                    Some(report) => self.reply(Response::new_ok(id, report)),
                    None => still.push(Waiting::Workspace(id, previous)),
                },
            }
        }
        self.waiting = still;
    }

    /// `textDocument/diagnostic`: answered once the lint of the latest edits is done.
    pub(crate) fn pull_document(&mut self, id: RequestId, params: lsp::DocumentDiagnosticParams) {
        let previous = params.previous_result_id;
        let Some(path) = uri::to_path(&params.text_document.uri.0) else {
            let empty = json!({"kind": "full", "items": []});
            return self.reply(Response::new_ok(id, empty));
        };
        self.waiting.push(Waiting::Document(id, path, previous));
        if !self.stale() {
            self.answer_waiting();
        }
    }

    /// `workspace/diagnostic`: every file with findings (or that had some). Held while
    /// nothing changed since the client's result ids, as clients re-send it at once.
    pub(crate) fn pull_workspace(&mut self, id: RequestId, params: Value) {
        let previous: HashMap<String, String> = params["previousResultIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some((
                    p["uri"].as_str()?.to_string(),
                    p["value"].as_str()?.to_string(),
                ))
            })
            .collect();
        self.waiting.push(Waiting::Workspace(id, previous));
        if !self.stale() {
            self.answer_waiting();
        }
    }

    fn start_if_due(&mut self) {
        if self.in_flight || self.due.is_none_or(|due| due > Instant::now()) {
            return;
        }
        self.due = None;
        self.generation += 1;
        let job = self.job();
        if self.jobs.send(job).is_err() {
            log("the lint thread is gone: no more diagnostics");
            return;
        }
        self.in_flight = true;
    }

    fn job(&mut self) -> Job {
        let mut job = Job {
            generation: self.generation,
            roots: self.roots.clone(),
            settings: self.settings.clone(),
            encoding: self.client.encoding,
            cwd: self.cwd.clone(),
            forget: std::mem::take(&mut self.forget),
            ..Job::default()
        };
        for (path, doc) in &self.docs {
            job.versions.insert(path.clone(), doc.version);
            if !self.roots.iter().any(|root| path.starts_with(root)) {
                job.loose.push(path.clone());
            }
            // A new file not saved yet (or deleted under the editor) is linted from its text
            // where it would be on disk.
            if std::fs::symlink_metadata(path).is_err() {
                job.unsaved.push(path.clone());
            }
            job.overlay
                .insert(crate::walk::canonical(path), doc.text.clone());
        }
        job.loose.sort();
        job.unsaved.sort();
        job
    }

    fn finished(&mut self, linted: Linted) {
        self.in_flight = false;
        log(&format!(
            "lint {} took {} ms",
            linted.generation,
            linted.elapsed.as_millis()
        ));
        if linted.errors != self.last_errors {
            for err in &linted.errors {
                log(err);
                let params = json!({"type": 1, "message": format!("lblint: {err}")});
                send(
                    self.conn,
                    Notification::new("window/showMessage".to_string(), params),
                );
            }
            self.last_errors = linted.errors.clone();
        }
        self.latest = linted;
        self.publish_changes();
        if !self.stale() {
            self.answer_waiting();
        }
    }
}

/// A request's or notification's params as `T`, or the invalid-params error.
fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, (i32, String)> {
    serde_json::from_value(params)
        .map_err(|e| (codes::INVALID_PARAMS, format!("invalid params: {e}")))
}
