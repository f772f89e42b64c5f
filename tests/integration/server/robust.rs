//! Messages out of order, unknown, malformed; a file deleted under the server. Each is
//! answered as the protocol says (or logged), and the server goes on. A 50 MB document is
//! timed by `python3 bench/server.py --big 50`, not here: tests have no wall-clock bounds.

use std::time::Duration;

use lblint::server::{serve, Options};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

use super::{push_client, TestServer};

#[test]
fn server_answers_requests_before_initialize_and_exits_on_exit() {
    let (server, client) = Connection::memory();
    let thread = std::thread::spawn(move || serve(server, Options::default()));
    let req = Request::new(RequestId::from(7), "textDocument/hover".into(), json!({}));
    client.sender.send(req.into()).unwrap();
    let note = Notification::new("textDocument/didOpen".into(), json!({}));
    client.sender.send(note.into()).unwrap();
    match client
        .receiver
        .recv_timeout(Duration::from_secs(10))
        .unwrap()
    {
        Message::Response(r) => {
            assert_eq!(r.id, RequestId::from(7));
            assert_eq!(r.response_result.unwrap_err().code, -32002);
        }
        other => panic!("{other:?}"),
    }
    client
        .sender
        .send(Notification::new("exit".into(), Value::Null).into())
        .unwrap();
    // Exit without shutdown: status 1, as the protocol says.
    assert_eq!(thread.join().unwrap(), 1);
}

#[test]
fn server_survives_unknown_invalid_and_out_of_order_messages() {
    let mut server = TestServer::start(
        "robust",
        &[("a.yaml", "kind: ConfigMap\n")],
        push_client(),
        json!({}),
    );
    let unknown = server.request("textDocument/definition", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let invalid = server.request("textDocument/hover", json!({"textDocument": 3}));
    assert_eq!(invalid["error"]["code"], -32602);
    let again = server.request("initialize", json!({"capabilities": {}}));
    assert_eq!(again["error"]["code"], -32600);
    server.notify("textDocument/didChange", json!({"textDocument": {"uri": server.uri("nope.yaml"), "version": 3}, "contentChanges": [{"text": "x"}]}));
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": "untitled:1"}}),
    );
    server.notify("textDocument/didOpen", json!({"textDocument": {"uri": "untitled:1", "languageId": "yaml", "version": 1, "text": "a: b"}}));
    server.notify("custom/unknown", json!({"x": 1}));
    server.notify("textDocument/didOpen", json!({"wrong": true}));
    // Hover on a document that is not open, code actions for a file without findings.
    assert_eq!(server.hover("a.yaml", 0, 0), Value::Null);
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}});
    assert_eq!(server.code_actions("a.yaml", &range, None), json!([]));
    // After shutdown, requests are refused; exit then ends with status 0.
    assert_eq!(server.request("shutdown", Value::Null), Value::Null);
    let late = server.request("textDocument/hover", json!({}));
    assert_eq!(late["error"]["code"], -32600);
    server.notify("exit", Value::Null);
}

#[test]
fn server_clears_a_file_deleted_under_it() {
    let bad = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    service.cloud.tencent.com/prevent-loopback: true\n";
    let mut server = TestServer::start("deleted", &[("gone.yaml", bad)], push_client(), json!({}));
    assert_eq!(
        server.published("gone.yaml")["diagnostics"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    std::fs::remove_file(server.path("gone.yaml")).unwrap();
    let change = json!({"changes": [{"uri": server.uri("gone.yaml"), "type": 3}]});
    server.notify("workspace/didChangeWatchedFiles", change);
    assert_eq!(server.published("gone.yaml")["diagnostics"], json!([]));
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_rereads_files_changed_on_disk() {
    // Parsed files are kept between lints: a change on disk must still be read.
    let good =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    a: \"true\"\n";
    let mut server = TestServer::start("reread", &[("svc.yaml", good)], push_client(), json!({}));
    let open = server.open("other.yaml", Some("kind: ConfigMap\n"));
    assert_eq!(open, "kind: ConfigMap\n");
    // Same length, new text: the stamp (size, mtime) or the watcher's event shows it.
    std::fs::write(server.path("svc.yaml"), good.replace("\"true\"", "true  ")).unwrap();
    let change = json!({"changes": [{"uri": server.uri("svc.yaml"), "type": 2}]});
    server.notify("workspace/didChangeWatchedFiles", change);
    assert_eq!(
        server.published("svc.yaml")["diagnostics"][0]["code"],
        "K8S002"
    );
    assert_eq!(server.shutdown(), 0);
}

const K8S002: &str = "annotation `service.cloud.tencent.com/prevent-loopback: true` on Service/web is not a string: Kubernetes (YAML 1.1) reads `true` as the boolean true, and annotation values must be strings, so the API server rejects the object.\nhelp: quote the value: `service.cloud.tencent.com/prevent-loopback: \"true\"`";

/// The codes and messages of a publication.
fn findings(published: &Value) -> Vec<(String, String)> {
    let all = published["diagnostics"].as_array().unwrap();
    all.iter()
        .map(|d| {
            let code = d["code"].as_str().unwrap().to_string();
            (code, d["message"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn server_lints_unsaved_new_files_inside_and_outside_the_workspace() {
    // The private CLB is on disk; its caller exists only in the editor.
    let mut files = super::e2e::workspace();
    files.retain(|(name, _)| name != "billing.yaml" && name != "labels.yaml");
    let billing = std::fs::read_to_string("testdata/context/billing.yaml").unwrap();
    let mut server =
        TestServer::start("unsaved", &super::as_refs(&files), push_client(), json!({}));
    let alone = server.published("orders.yaml");
    let message = alone["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("No in-cluster caller of its address is visible"));
    assert_eq!(alone["diagnostics"][0]["severity"], 2);
    server.open("new/billing.yaml", Some(&billing));
    // Linted as part of the workspace: the finding on the LB names the unsaved caller.
    let orders = server.published("orders.yaml");
    assert_eq!(orders["diagnostics"][0]["code"], "TKE001");
    assert_eq!(orders["diagnostics"][0]["severity"], 1);
    let related = &orders["diagnostics"][0]["relatedInformation"];
    assert!(
        related
            .to_string()
            .contains(&server.uri("new/billing.yaml")),
        "{orders:#}"
    );
    // Outside every root: linted alone, without a "path not found" error.
    let outside = crate::cli::tempdir("server-unsaved-outside").join("svc.yaml");
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    service.cloud.tencent.com/prevent-loopback: true\n";
    let uri = lblint::server::uri::from_path(&outside);
    let doc = json!({"uri": uri, "languageId": "yaml", "version": 1, "text": text});
    server.notify("textDocument/didOpen", json!({"textDocument": doc}));
    let published = server.notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri && p["diagnostics"] != json!([])
    });
    assert_eq!(findings(&published), [("K8S002".into(), K8S002.into())]);
    let shown: Vec<Message> = server.drain(Duration::from_millis(300));
    assert!(
        !shown
            .iter()
            .any(|m| matches!(m, Message::Notification(n) if n.method == "window/showMessage")),
        "{shown:#?}"
    );
    assert_eq!(server.shutdown(), 0);
}
