//! Hover, pull diagnostics, settings and reloads.

use std::time::Duration;

use serde_json::{json, Value};

use super::e2e::start;
use super::{push_client, strings};

#[test]
fn server_hover_on_a_finding_and_on_a_suppression_comment() {
    let mut server = start("hover", push_client(), json!({}));
    let orders = server.published("orders.yaml");
    let start = &orders["diagnostics"][0]["range"]["start"];
    server.open("orders.yaml", None);
    let (line, character) = (
        start["line"].as_u64().unwrap() as u32,
        start["character"].as_u64().unwrap() as u32,
    );
    let hover = server.hover("orders.yaml", line, character + 2);
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("**TKE001** `tke-l4-loopback` (warning)\n\n"),
        "{value}"
    );
    assert!(value.contains("# TKE001 `tke-l4-loopback`"), "{value}");
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert_eq!(hover["range"]["start"], *start);
    // Off the finding: nothing.
    assert_eq!(server.hover("orders.yaml", 0, 0), Value::Null);
    // On a rule key in a suppression comment, by name.
    let text = "kind: ConfigMap  # lblint: ignore[K8S001, annotation-value-not-string] why\n";
    server.open("notes.yaml", Some(text));
    let at = text.find("annotation-value").unwrap() as u32 + 4;
    let hover = server.hover("notes.yaml", 0, at);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**K8S002**"),
        "{hover}"
    );
    assert_eq!(server.shutdown(), 0);
}

fn pull_client() -> Value {
    let mut caps = push_client();
    caps["textDocument"]["diagnostic"] = json!({"dynamicRegistration": false});
    caps["workspace"]["diagnostics"] = json!({"refreshSupport": true});
    caps
}

#[test]
fn server_pull_diagnostics_with_result_ids() {
    let mut server = start("pull", pull_client(), json!({}));
    let provider = &server.initialize_result["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["interFileDependencies"], true);
    server.open("labels.yaml", None);
    let uri = server.uri("labels.yaml");
    let first = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(first["kind"], "full");
    assert_eq!(first["items"][0]["code"], "K8S002");
    let id = first["resultId"].clone();
    let again = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}, "previousResultId": id}),
    );
    assert_eq!(again, json!({"kind": "unchanged", "resultId": id}));
    // The workspace report has files nobody opened.
    let all = server.request("workspace/diagnostic", json!({"previousResultIds": []}));
    let uris = strings(&all["items"], "uri");
    assert!(
        uris.contains(&server.uri("orders.yaml").as_str()),
        "{all:#}"
    );
    // Never pushed.
    let pushed = server.drain(Duration::from_millis(300));
    assert!(
        !pushed.iter().any(|m| matches!(m, lsp_server::Message::Notification(n) if n.method == "textDocument/publishDiagnostics")),
        "{pushed:?}"
    );
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_answers_a_held_workspace_pull_at_shutdown() {
    let mut server = start("pull-held", pull_client(), json!({}));
    let all = server.request("workspace/diagnostic", json!({"previousResultIds": []}));
    let ids: Vec<Value> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json!({"uri": i["uri"], "value": i["resultId"]}))
        .collect();
    assert!(!ids.is_empty(), "{all:#}");
    // Nothing changed since these ids: the pull is held until something does.
    let held = server.send_request("workspace/diagnostic", json!({"previousResultIds": ids}));
    let quiet = server.drain(Duration::from_millis(300));
    assert!(
        !quiet
            .iter()
            .any(|m| matches!(m, lsp_server::Message::Response(_))),
        "{quiet:#?}"
    );
    // Shutdown answers it (empty report: nothing changed), then itself.
    let shutdown = server.send_request("shutdown", Value::Null);
    assert_eq!(server.response(&held), json!({"items": []}));
    assert_eq!(server.response(&shutdown), Value::Null);
    server.notify("exit", Value::Null);
}

#[test]
fn server_settings_select_and_open_files_only() {
    let options = json!({"select": ["K8S002"], "diagnosticMode": "openFilesOnly"});
    let mut server = start("settings", push_client(), options);
    // Nothing open: nothing published; opening labels.yaml shows its K8S002 only.
    server.open("labels.yaml", None);
    let labels = server.published("labels.yaml");
    assert_eq!(labels["diagnostics"][0]["code"], "K8S002");
    // The editor's settings (workspace/configuration) override the keys they set: TKE001
    // only, everywhere.
    server.settings = json!({"select": ["TKE001"], "diagnosticMode": "workspace"});
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    );
    let orders = server.published("orders.yaml");
    assert_eq!(orders["diagnostics"][0]["code"], "TKE001");
    assert_eq!(server.published("labels.yaml")["diagnostics"], json!([]));
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_settings_from_the_editor_override_only_the_keys_they_set() {
    let mut server = start(
        "settings-merge",
        push_client(),
        json!({"ignore": ["TKE001"]}),
    );
    // An empty section (an editor with no lblint settings) once reset the options.
    server.settings = json!({});
    assert_eq!(
        server.published("labels.yaml")["diagnostics"][0]["code"],
        "K8S002"
    );
    // The hover is answered after the lint that any settings change started.
    assert_eq!(server.hover("labels.yaml", 0, 0), Value::Null);
    let orders = server.uri("orders.yaml");
    let seen = server.drain(Duration::from_millis(300));
    let published_orders = seen
        .iter()
        .any(|m| matches!(m, lsp_server::Message::Notification(n) if n.params["uri"] == orders));
    assert!(!published_orders, "{seen:#?}");
    // A key set overrides; set to null (or dropped again) it falls back to the options.
    let set = |ignore: Value| json!({"settings": {"lblint": {"ignore": ignore}}});
    server.notify("workspace/didChangeConfiguration", set(json!([])));
    let published = server.published("orders.yaml");
    assert_eq!(published["diagnostics"][0]["code"], "TKE001");
    server.notify("workspace/didChangeConfiguration", set(Value::Null));
    assert_eq!(server.published("orders.yaml")["diagnostics"], json!([]));
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_reloads_config_and_profile_and_reports_their_errors() {
    let mut server = start("reload", push_client(), json!({}));
    let orders = server.published("orders.yaml");
    assert_eq!(orders["diagnostics"][0]["severity"], 1);
    // A profile error is shown on the profile, and nothing else is linted.
    let profile = server.path("profile.yaml");
    let good = std::fs::read_to_string(&profile).unwrap();
    std::fs::write(&profile, good.replace("mode: ipvs", "mode: ipvx")).unwrap();
    let changed = json!({"changes": [{"uri": server.uri("profile.yaml"), "type": 2}]});
    server.notify("workspace/didChangeWatchedFiles", changed.clone());
    let error = server.published("profile.yaml");
    crate::snapshot!(
        "server_profile_error",
        serde_json::to_string_pretty(&server.stable(&error)).unwrap()
    );
    assert_eq!(server.published("orders.yaml")["diagnostics"], json!([]));
    // Fixed: the findings come back and the error goes.
    std::fs::write(&profile, &good).unwrap();
    server.notify("workspace/didChangeWatchedFiles", changed);
    assert_eq!(server.published("profile.yaml")["diagnostics"], json!([]));
    assert_eq!(
        server.published("orders.yaml")["diagnostics"][0]["code"],
        "TKE001"
    );
    // A config error is shown on lblint.yaml.
    std::fs::write(
        server.path("lblint.yaml"),
        "profile: profile.yaml\nfailOn: sometimes\n",
    )
    .unwrap();
    let changed = json!({"changes": [{"uri": server.uri("lblint.yaml"), "type": 2}]});
    server.notify("workspace/didChangeWatchedFiles", changed);
    let error = server.published("lblint.yaml");
    assert_eq!(
        error["diagnostics"][0]["range"]["start"]["line"], 1,
        "{error:#}"
    );
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_rendered_objects_get_the_note_not_an_edit() {
    let rendered = "---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    service.cloud.tencent.com/prevent-loopback: true\n";
    // A repository holding the chart: the template is the file to edit.
    let files = [
        ("rendered.yaml", rendered),
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "web/Chart.yaml",
            "apiVersion: v2\nname: web\nversion: 0.1.0\n",
        ),
        ("web/templates/service.yaml", "# the template\n"),
    ];
    let mut server = super::TestServer::start("rendered", &files, push_client(), json!({}));
    let published = server.published("rendered.yaml");
    assert_eq!(published["diagnostics"][0]["code"], "K8S002");
    server.open("rendered.yaml", None);
    let range = published["diagnostics"][0]["range"].clone();
    let actions = server.code_actions("rendered.yaml", &range, None);
    assert_eq!(
        strings(&actions, "title"),
        ["K8S002: edit `web/templates/service.yaml` instead (rendered output)"]
    );
    assert_eq!(
        actions[0]["disabled"]["reason"],
        "the object is rendered from `web/templates/service.yaml`; edit that file instead"
    );
    assert!(actions[0].get("edit").is_none());
    // Fix-all leaves rendered output alone too.
    let all = server.code_actions("rendered.yaml", &range, Some(&["source.fixAll.lblint"]));
    assert_eq!(all, json!([]));
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_reports_an_unknown_rule_in_its_settings() {
    let mut server = start("unknown-rule", push_client(), json!({"select": ["TKE999"]}));
    let shown = server.notification("window/showMessage", |_| true);
    let message = shown["message"].as_str().unwrap();
    assert!(message.contains("TKE999"), "{message}");
    assert_eq!(shown["type"], 1);
    assert_eq!(server.shutdown(), 0);
}

/// The `namespace` setting places manifests without one, as `--namespace` does: the
/// profile's imported load balancer then matches and the caller's call is an error; without
/// it the Service's CLB has no visible caller (a warning) and LBL007 says which flag.
#[test]
fn the_namespace_setting_places_manifests_without_one() {
    let mut files = super::testdata("testdata/namespace", &["app.yaml", "profile.yaml"]);
    files.push(("lblint.yaml".into(), "profile: profile.yaml\n".into()));
    let files = super::as_refs(&files);
    for (options, severity) in [(json!({"namespace": "otel-demo"}), 1), (json!({}), 2)] {
        let mut server = super::TestServer::start("namespace", &files, push_client(), options);
        let app = server.published("app.yaml");
        assert_eq!(app["diagnostics"][0]["code"], "TKE001", "{app:#}");
        assert_eq!(app["diagnostics"][0]["severity"], severity, "{app:#}");
        assert_eq!(server.shutdown(), 0);
    }
}
