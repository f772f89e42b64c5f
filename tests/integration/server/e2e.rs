//! The main flow: initialize → diagnostics for the whole workspace → an edit in one file
//! clears a finding in another → code action → applied → diagnostics clear.

use serde_json::{json, Value};

use super::{apply_edits, as_refs, push_client, strings, testdata, TestServer};

const LABELS: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    service.cloud.tencent.com/prevent-loopback: true
spec:
  ports:
    - port: 80
";

/// testdata/context (a private CLB in orders.yaml, its caller in billing.yaml), its
/// profile named by lblint.yaml, and a file with a safely fixable K8S002.
pub fn workspace() -> Vec<(String, String)> {
    let mut files = testdata(
        "testdata/context",
        &["orders.yaml", "billing.yaml", "profile.yaml"],
    );
    files.push(("lblint.yaml".into(), "profile: profile.yaml\n".into()));
    files.push(("labels.yaml".into(), LABELS.into()));
    files
}

/// A server on [`workspace`].
pub fn start(name: &str, capabilities: Value, options: Value) -> TestServer {
    TestServer::start(name, &as_refs(&workspace()), capabilities, options)
}

fn codes(published: &Value) -> Vec<(String, u64, u64)> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let start = &d["range"]["start"];
            (
                d["code"].as_str().unwrap().to_string(),
                start["line"].as_u64().unwrap(),
                start["character"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn server_end_to_end() {
    let mut server = start("e2e", push_client(), json!({}));
    let mut init = server.initialize_result.clone();
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    init["serverInfo"]["version"] = json!("VERSION");
    crate::snapshot!(
        "server_initialize",
        serde_json::to_string_pretty(&init).unwrap()
    );
    // The workspace is linted at start: files nobody opened get their findings.
    let orders = server.published("orders.yaml");
    crate::snapshot!(
        "server_publish_orders",
        serde_json::to_string_pretty(&server.stable(&orders)).unwrap()
    );
    let labels = server.published("labels.yaml");
    assert_eq!(codes(&labels), [("K8S002".to_string(), 5, 48)]);

    // The caller's file changes to call the Service by name: the load balancer's file,
    // never opened, is published again, its error now a warning (no visible caller).
    let billing = server.open("billing.yaml", None);
    let ip = billing.find("10.20.30.40").unwrap();
    let line = billing[..ip].matches('\n').count();
    let column = ip - billing[..ip].rfind('\n').unwrap() - 1;
    let range = json!({"start": {"line": line, "character": column},
                       "end": {"line": line, "character": column + "10.20.30.40".len()}});
    server.change(
        "billing.yaml",
        2,
        json!([{"range": range, "text": "orders"}]),
    );
    let changed = server.published("orders.yaml");
    assert_eq!(changed["diagnostics"][0]["severity"], 2);
    let message = changed["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("No in-cluster caller of its address is visible"),
        "{message}"
    );

    // The quick fix of the K8S002 finding, applied by the client, clears it.
    let text = server.open("labels.yaml", None);
    let range = labels["diagnostics"][0]["range"].clone();
    let actions = server.code_actions("labels.yaml", &range, None);
    crate::snapshot!(
        "server_code_actions",
        serde_json::to_string_pretty(&server.stable(&actions)).unwrap()
    );
    let fix = &actions[0];
    assert_eq!(fix["title"], "K8S002: quote `true`");
    let edits = fix["edit"]["changes"][server.uri("labels.yaml")]
        .as_array()
        .unwrap()
        .clone();
    let fixed = apply_edits(&text, &edits);
    assert!(fixed.contains("prevent-loopback: \"true\"\n"), "{fixed}");
    server.change("labels.yaml", 2, json!([{"text": fixed}]));
    let after = server.published("labels.yaml");
    assert_eq!(
        (after["diagnostics"].clone(), &after["version"]),
        (json!([]), &json!(2))
    );
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn ignore_here_round_trips_through_the_suppression_parser() {
    let mut server = start("ignore", push_client(), json!({}));
    let orders = server.published("orders.yaml");
    let text = server.open("orders.yaml", None);
    let range = orders["diagnostics"][0]["range"].clone();
    let actions = server.code_actions("orders.yaml", &range, Some(&["quickfix"]));
    let titles = strings(&actions, "title");
    // The fix is unsafe: not offered without unsafeFixes; suggestions are shown disabled.
    assert_eq!(titles.len(), 3, "{titles:?}");
    assert_eq!(
        titles[0],
        "TKE001: have in-cluster clients call `orders` (`orders.shop` from other namespaces) \
         instead of the load-balancer address, by hand"
    );
    // The caller's place is a displayed path (relative to the working directory).
    assert!(
        titles[1].starts_with("TKE001: call `orders` instead of 10.20.30.40 at ")
            && titles[1].ends_with("/billing.yaml:17:46, by hand"),
        "{titles:?}"
    );
    assert_eq!(titles[2], "Ignore TKE001 here");
    assert!(actions[0]["disabled"]["reason"].is_string());
    let edits = actions[2]["edit"]["changes"][server.uri("orders.yaml")]
        .as_array()
        .unwrap()
        .clone();
    let ignored = apply_edits(&text, &edits);
    assert!(
        ignored.contains(
            "  annotations:\n    # lblint: ignore[TKE001]\n    service.kubernetes.io/qcloud"
        ),
        "{ignored}"
    );
    server.change("orders.yaml", 2, json!([{"text": ignored}]));
    // Suppressed, and the comment is used: no LBL004 either.
    let after = server.published("orders.yaml");
    assert_eq!(after["diagnostics"], json!([]));
    assert_eq!(server.shutdown(), 0);
}

#[test]
fn unsafe_fixes_are_offered_when_enabled_and_fix_all_stays_safe() {
    let options = json!({"unsafeFixes": true});
    let mut server = start("unsafe", push_client(), options);
    let orders = server.published("orders.yaml");
    server.open("orders.yaml", None);
    let range = orders["diagnostics"][0]["range"].clone();
    let actions = server.code_actions("orders.yaml", &range, Some(&["quickfix"]));
    assert_eq!(
        actions[0]["title"],
        "TKE001: add annotation `service.cloud.tencent.com/prevent-loopback: \"true\"` (unsafe)"
    );
    assert_eq!(actions[0]["isPreferred"], false);
    // Fix-all applies safe fixes only: none in this file.
    let all = server.code_actions("orders.yaml", &range, Some(&["source.fixAll.lblint"]));
    assert_eq!(all, json!([]));
    // In labels.yaml, the safe K8S002 fix.
    let text = server.open("labels.yaml", None);
    let everything =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}});
    let all = server.code_actions("labels.yaml", &everything, Some(&["source"]));
    assert_eq!(all.as_array().unwrap().len(), 1, "{all:#}");
    assert_eq!(all[0]["kind"], "source.fixAll.lblint");
    let edits = all[0]["edit"]["changes"][server.uri("labels.yaml")]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(edits.len(), 1);
    assert!(apply_edits(&text, &edits).contains("prevent-loopback: \"true\"\n"));
    assert_eq!(server.shutdown(), 0);
}
