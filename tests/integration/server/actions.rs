//! Code actions on CRLF text and on unused-suppression notes.

use serde_json::{json, Value};

use super::{push_client, strings, TestServer};

/// The range of a publication's first diagnostic.
fn first_range(published: &Value) -> Value {
    published["diagnostics"][0]["range"].clone()
}

#[test]
fn server_ignore_here_keeps_crlf_line_endings() {
    let text = "apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: web\r\n  annotations:\r\n    service.cloud.tencent.com/prevent-loopback: true\r\n";
    let mut server = TestServer::start("crlf", &[("crlf.yaml", text)], push_client(), json!({}));
    let range = first_range(&server.published("crlf.yaml"));
    server.open("crlf.yaml", Some(text));
    let actions = server.code_actions("crlf.yaml", &range, None);
    assert_eq!(
        strings(&actions, "title"),
        [
            "K8S002: quote `true`",
            "Ignore K8S002 here",
            "lblint: fix all safe fixes"
        ]
    );
    let at = json!({"line": 5, "character": 0});
    assert_eq!(
        actions[1]["edit"]["changes"][server.uri("crlf.yaml")],
        json!([{"range": {"start": at, "end": at}, "newText": "    # lblint: ignore[K8S002]\r\n"}])
    );
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn server_offers_no_ignore_for_an_unused_suppression_note() {
    // A comment above `labels:` that suppresses nothing: an LBL004 note on it.
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  # lblint: ignore[K8S002]\n  labels:\n    x: \"1\"\n";
    let mut server = TestServer::start("lbl004", &[("a.yaml", text)], push_client(), json!({}));
    let published = server.published("a.yaml");
    assert_eq!(published["diagnostics"][0]["code"], "LBL004");
    assert_eq!(published["diagnostics"].as_array().unwrap().len(), 1);
    server.open("a.yaml", Some(text));
    // "Ignore LBL004 here" once wrote a second comment above it that did nothing; LBL004
    // has no fix, so there is no action at all.
    let actions = server.code_actions("a.yaml", &first_range(&published), None);
    assert_eq!(actions, json!([]));
    assert_eq!(server.shutdown(), 0);
}
