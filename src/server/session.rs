//! The server's state: what the loop (`state`) and the request handlers
//! (actions, hover, publish) share.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Request, RequestId, Response};
use serde_json::Value;

use super::lint::{self, Job, Linted};
use super::settings::Settings;
use super::{log, send, uri, Client};

/// How the server runs (tests shorten the debounce).
#[derive(Clone, Debug)]
pub struct Options {
    /// Quiet time after an edit before the workspace is linted again. None by default: the
    /// edits that come while a lint runs are coalesced into the next one anyway (one lint
    /// in flight at a time), so a wait would only add to every edit's latency.
    pub debounce: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            debounce: Duration::ZERO,
        }
    }
}

/// An open document: the client's URI for it, its text and version.
pub(crate) struct Doc {
    pub uri: String,
    pub text: String,
    pub version: i32,
}

/// A request answered after the lint in progress.
pub(crate) enum Waiting {
    /// A hover or code action: answered from findings of the documents as they are.
    Request(Request),
    Document(RequestId, PathBuf, Option<String>),
    Workspace(RequestId, HashMap<String, String>),
}

pub(crate) struct Server<'c> {
    pub conn: &'c Connection,
    pub client: Client,
    pub roots: Vec<PathBuf>,
    pub cwd: PathBuf,
    pub settings: Settings,
    /// The `initializationOptions` settings, under every `workspace/configuration` answer.
    pub initial_settings: Settings,
    pub docs: HashMap<PathBuf, Doc>,
    /// The last lint's findings.
    pub latest: Linted,
    /// What the client has been given, by path.
    pub shown: HashMap<PathBuf, Shown>,
    pub next_result: u64,
    pub waiting: Vec<Waiting>,
    /// Files changed on disk since the last lint, by the client's watchers.
    pub forget: Vec<PathBuf>,
    pub generation: u64,
    pub due: Option<Instant>,
    pub in_flight: bool,
    pub jobs: Sender<Job>,
    pub results: Receiver<Linted>,
    pub shutdown: bool,
    pub next_id: i32,
    pub config_request: Option<RequestId>,
    pub last_errors: Vec<String>,
    pub options: Options,
}

/// What the client was last given for a file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shown {
    /// The pull model's result id; a new one whenever `diagnostics` change.
    pub id: u64,
    /// Shared with the lint's [`super::lint::FileResult`]: one copy per file, not two.
    pub diagnostics: std::sync::Arc<super::published::Published>,
}

impl<'c> Server<'c> {
    pub(crate) fn new(
        conn: &'c Connection,
        client: Client,
        params: &Value,
        options: Options,
    ) -> std::io::Result<Server<'c>> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let settings = match Settings::default().merged(&params["initializationOptions"]) {
            Ok(settings) => settings.unwrap_or_default(),
            Err(err) => {
                log(&err);
                Settings::default()
            }
        };
        let (done, results) = crossbeam_channel::unbounded();
        let jobs = lint::spawn(done)?;
        let mut server = Server {
            conn,
            client,
            roots: outermost(super::roots(params), &cwd),
            cwd,
            initial_settings: settings.clone(),
            settings,
            docs: HashMap::new(),
            latest: Linted::default(),
            shown: HashMap::new(),
            next_result: 1,
            waiting: Vec::new(),
            forget: Vec::new(),
            generation: 0,
            due: None,
            in_flight: false,
            jobs,
            results,
            shutdown: false,
            next_id: 0,
            config_request: None,
            last_errors: Vec::new(),
            options,
        };
        server.schedule(Duration::ZERO);
        Ok(server)
    }

    pub(crate) fn reply(&self, response: Response) {
        send(self.conn, response);
    }

    /// Lint after `delay` of quiet; each edit restarts the wait.
    pub(crate) fn schedule(&mut self, delay: Duration) {
        self.due = Some(Instant::now() + delay);
    }

    /// Whether the findings are older than the documents or settings.
    pub(crate) fn stale(&self) -> bool {
        self.in_flight || self.due.is_some()
    }

    /// The client's URI for a path: the open document's own, else built from the path.
    pub(crate) fn uri_of(&self, path: &Path) -> String {
        match self.docs.get(path) {
            Some(doc) => doc.uri.clone(),
            None => uri::from_path(path),
        }
    }
}

/// The roots, absolute, without any inside another (its files would be linted twice).
fn outermost(roots: Vec<PathBuf>, cwd: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = roots
        .iter()
        .map(|r| crate::walk::absolute(r, cwd))
        .collect();
    roots.sort();
    let mut kept: Vec<PathBuf> = Vec::new();
    for root in roots {
        if !kept.iter().any(|k| root.starts_with(k)) {
            kept.push(root);
        }
    }
    kept
}
