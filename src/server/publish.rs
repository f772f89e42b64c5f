//! Diagnostics to the client: pushed (`publishDiagnostics`) for every file whose findings
//! changed, or pulled (`textDocument/diagnostic`, `workspace/diagnostic`) with result ids
//! that change only when a file's findings do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::{Notification, RequestId};
use serde_json::{json, Value};

use super::published::Published;
use super::send;
use super::session::{Server, Shown};
use super::settings::DiagnosticMode;

impl Server<'_> {
    /// The diagnostics each file should show now.
    fn wanted(&self) -> HashMap<&PathBuf, &Arc<Published>> {
        let workspace = self.settings.diagnostic_mode == DiagnosticMode::Workspace;
        self.latest
            .files
            .iter()
            .filter(|(path, _)| workspace || self.docs.contains_key(*path))
            .map(|(path, file)| (path, &file.diagnostics))
            .collect()
    }

    /// Bring [`Server::shown`] up to date with the last lint; push the files that changed
    /// (pull clients are told to pull again), and answer the pulls that waited for it.
    pub(crate) fn publish_changes(&mut self) {
        let wanted = self.wanted();
        let mut changed: Vec<(PathBuf, Arc<Published>)> = Vec::new();
        for (path, shown) in &self.shown {
            if !wanted.contains_key(path) && !shown.diagnostics.is_empty() {
                changed.push((path.clone(), Arc::default()));
            }
        }
        for (path, diagnostics) in wanted {
            if self.shown.get(path).map(|s| &s.diagnostics) != Some(diagnostics) {
                changed.push((path.clone(), diagnostics.clone()));
            }
        }
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        let any = !changed.is_empty();
        for (path, diagnostics) in changed {
            let id = self.next_result;
            self.next_result += 1;
            if !self.client.pull {
                let mut params =
                    json!({"uri": self.uri_of(&path), "diagnostics": diagnostics.to_value()});
                if let Some(version) = self.latest.versions.get(&path) {
                    params["version"] = json!(version);
                }
                let method = "textDocument/publishDiagnostics".to_string();
                send(self.conn, Notification::new(method, params));
            }
            self.shown.insert(path, Shown { id, diagnostics });
        }
        if any && self.client.pull && self.client.refresh {
            let id = RequestId::from(format!("lblint-refresh-{}", self.next_result));
            let method = "workspace/diagnostic/refresh".to_string();
            send(self.conn, lsp_server::Request::new(id, method, Value::Null));
        }
    }

    pub(crate) fn document_report(&self, path: &Path, previous: Option<&str>) -> Value {
        let shown = self.shown.get(path).cloned().unwrap_or_default();
        let id = shown.id.to_string();
        if previous == Some(id.as_str()) {
            return json!({"kind": "unchanged", "resultId": id});
        }
        json!({"kind": "full", "resultId": id, "items": shown.diagnostics.to_value()})
    }

    /// The workspace report, or `None` when every file is as the client has it.
    pub(crate) fn workspace_report(&self, previous: &HashMap<String, String>) -> Option<Value> {
        let mut paths: Vec<&PathBuf> = self.shown.keys().collect();
        paths.sort();
        let mut items = Vec::new();
        let mut changed = false;
        for path in paths {
            let shown = &self.shown[path];
            let uri = self.uri_of(path);
            let id = shown.id.to_string();
            let version = self.latest.versions.get(path);
            if previous.get(&uri) == Some(&id) {
                items.push(
                    json!({"kind": "unchanged", "uri": uri, "version": version, "resultId": id}),
                );
            } else {
                changed = true;
                items.push(json!({"kind": "full", "uri": uri, "version": version, "resultId": id, "items": shown.diagnostics.to_value()}));
            }
        }
        changed.then(|| json!({"items": items}))
    }
}
