//! Which fix `--fix` applies: one per finding (the vendor's), the alternatives shown as
//! suggestions; Service names never invent a namespace; no fix edits an alias or an
//! anchored node that aliases share. Inputs are written at test time.

use serde_json::{json, Value};

use crate::cli::tempdir;
use crate::{check_json, lblint};

const TKE_PROFILE: &str = "testdata/tke/profile-ipvs-regular.yaml";
const ACK_PROFILE: &str = "testdata/ack/profile-ack-ipvs.yaml";

/// Write `text` as `name` in a fresh folder; returns the file's path.
fn write(folder: &str, name: &str, text: &str) -> String {
    let path = tempdir(folder).join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The diagnostics of one rule in a JSON report.
fn of_rule<'r>(report: &'r Value, rule: &str) -> Vec<&'r Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

/// The K8S001 rename of a caller: a suggestion (no fix) with one edit.
fn assert_rename_suggested(note: &Value, host: &str, address: &str, at: (u64, u64, u64)) {
    assert!(note["fix"].is_null(), "{note}");
    assert_eq!(
        note["suggestions"],
        json!([{
            "description": format!("call `{host}` instead of {address}"),
            "applicability": "display-only",
            "edits": [edit(at.0, at.1, at.2, host)],
        }])
    );
}

/// `lblint check --fix --unsafe-fixes --profile PROFILE FILE`.
fn fix_all(profile: &str, file: &str) -> crate::Run {
    lblint(&[
        "check",
        "--fix",
        "--unsafe-fixes",
        "--profile",
        profile,
        file,
    ])
}

fn edit(line: u64, column: u64, end_column: u64, content: &str) -> Value {
    json!({"line": line, "column": column, "end_line": line, "end_column": end_column, "content": content})
}

/// A kustomize base: no namespace anywhere (the overlay sets it).
const TKE_BASE: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: orders
  annotations:
    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111
spec:
  type: LoadBalancer
  selector:
    app: orders
  ports:
    - port: 80
status:
  loadBalancer:
    ingress:
      - ip: 10.20.30.40
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: example/orders:1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: report
spec:
  selector:
    matchLabels: {app: report}
  template:
    metadata:
      labels: {app: report}
    spec:
      containers:
        - name: report
          image: example/report:1
          args: [\"--orders-url\", \"http://10.20.30.40:80/v1\"]
";

#[test]
fn unsafe_fixes_apply_prevent_loopback_only_and_the_rename_is_a_suggestion() {
    let file = write("fix-choice-tke", "base.yaml", TKE_BASE);
    let run = lblint(&[
        "check",
        "--fix",
        "--unsafe-fixes",
        "--profile",
        TKE_PROFILE,
        "--format",
        "json",
        &file,
    ]);
    assert_eq!(run.stderr, "lblint: fixed 1 problem\n");
    // The vendor's fix on the Service; the caller's URL is left alone.
    let subnet =
        "    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111\n";
    let expected = TKE_BASE.replace(
        subnet,
        &format!("{subnet}    service.cloud.tencent.com/prevent-loopback: \"true\"\n"),
    );
    assert_eq!(read(&file), expected);

    // The rename is still offered, with the bare name: neither namespace is written.
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let notes = of_rule(&report, "K8S001");
    assert_eq!(notes.len(), 1);
    // Line 48: the inserted annotation moved the caller down one line.
    assert_rename_suggested(notes[0], "orders", "10.20.30.40", (48, 42, 53));
    assert!(!run.stdout.contains("default"), "{}", run.stdout);
}

#[test]
fn the_service_rule_shows_calling_by_name_as_a_by_hand_suggestion() {
    let file = write("fix-choice-tke-json", "base.yaml", TKE_BASE);
    let (_, report) = check_json(&["--profile", TKE_PROFILE, &file]);
    let loopback = of_rule(&report, "TKE001");
    assert_eq!(loopback[0]["fix"]["edits"][0]["line"], 7);
    assert_eq!(
        loopback[0]["suggestions"],
        json!([
            {
                "description": "have in-cluster clients call `orders` (`orders.<namespace>` from \
                                other namespaces) instead of the load-balancer address, by hand",
                "applicability": "display-only",
                "edits": [],
            },
            // The call's rename: the error is its one verdict, so no K8S001 note shows it.
            {
                "description": "call `orders` instead of 10.20.30.40",
                "applicability": "display-only",
                "edits": [edit(47, 42, 53, "orders")],
            }
        ])
    );
    assert!(of_rule(&report, "K8S001").is_empty(), "{report}");
    let help = loopback[0]["help"].as_str().unwrap();
    assert!(help.contains("call `orders` (`orders.<namespace>` from other namespaces)"));
    assert!(!help.contains("default"), "{help}");
}

#[test]
fn unsafe_fixes_set_cluster_policy_only_and_name_the_other_namespace() {
    let original = read("testdata/ack/service-local-caller.yaml");
    let file = write("fix-choice-ack", "service.yaml", &original);
    let (_, before) = check_json(&["--profile", ACK_PROFILE, &file]);
    let run = fix_all(ACK_PROFILE, &file);
    assert_eq!(run.stderr, "lblint: fixed 1 problem\n");
    assert_eq!(
        read(&file),
        original.replace(
            "  externalTrafficPolicy: Local\n",
            "  externalTrafficPolicy: Cluster\n"
        )
    );
    // Caller in `ops`, Service in `ingress`: both written and different. ACK001's error is
    // the call's verdict and carries the rename; K8S001 stays silent on it.
    assert!(of_rule(&before, "K8S001").is_empty(), "{before}");
    let verdict = of_rule(&before, "ACK001");
    assert_eq!(
        verdict[0]["suggestions"][1],
        json!({
            "description": "call `nginx-ingress.ingress` instead of 10.0.5.10",
            "applicability": "display-only",
            "edits": [edit(53, 40, 49, "nginx-ingress.ingress")],
        })
    );
}

/// A generic LoadBalancer Service and a caller of its address, each with an optional
/// namespace line.
fn service_and_caller(service_ns: Option<&str>, caller_ns: Option<&str>) -> String {
    let ns = |n: Option<&str>| n.map(|n| format!("  namespace: {n}\n")).unwrap_or_default();
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: orders\n{}spec:\n  type: LoadBalancer\n  \
         selector: {{app: orders}}\n  ports:\n    - port: 80\nstatus:\n  loadBalancer:\n    ingress:\n      \
         - ip: 10.0.0.9\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: client\n{}spec:\n  containers:\n    \
         - name: c\n      image: curl\n      args: [\"http://10.0.0.9/\"]\n",
        ns(service_ns),
        ns(caller_ns)
    )
}

#[test]
fn the_service_name_is_bare_unless_both_namespaces_are_written_and_differ() {
    let cases = [
        (Some("shop"), Some("shop"), "orders"),
        (None, Some("shop"), "orders"),
        (Some("shop"), None, "orders"),
        (None, None, "orders"),
        (Some("shop"), Some("ops"), "orders.shop"),
    ];
    for (service_ns, caller_ns, expected) in cases {
        let file = write(
            "fix-choice-ns",
            "m.yaml",
            &service_and_caller(service_ns, caller_ns),
        );
        let (_, report) = check_json(&["--select", "K8S001", &file]);
        let notes = of_rule(&report, "K8S001");
        assert_eq!(notes.len(), 1, "{service_ns:?} {caller_ns:?}");
        let line = notes[0]["line"].as_u64().unwrap();
        assert_eq!(
            notes[0]["suggestions"][0]["edits"],
            json!([edit(line, 22, 30, expected)]),
            "{service_ns:?} {caller_ns:?}"
        );
        let help = notes[0]["help"].as_str().unwrap();
        assert!(
            help.starts_with(&format!("call `{expected}` instead")),
            "{help}"
        );
    }
}

/// `yes` (unsafe to quote), `true` (safe), an anchored `on` that an alias shares, and the
/// alias itself.
const K8S002_VALUES: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  labels:
    scrape: yes
    enabled: true
    flag: &on on
  annotations:
    mirrored: *on
";

#[test]
fn quoting_keeps_true_safe_makes_yes_unsafe_and_never_touches_aliases() {
    let safe = write("fix-choice-k8s002-safe", "cm.yaml", K8S002_VALUES);
    let run = lblint(&["check", "--fix", &safe]);
    assert_eq!(run.stderr, "lblint: fixed 1 problem\n");
    assert_eq!(
        read(&safe),
        K8S002_VALUES.replace("enabled: true", "enabled: \"true\"")
    );

    let all = write("fix-choice-k8s002-unsafe", "cm.yaml", K8S002_VALUES);
    let run = lblint(&["check", "--fix", "--unsafe-fixes", &all]);
    assert_eq!(run.stderr, "lblint: fixed 2 problems\n");
    // `flag: &on on` and `mirrored: *on` stay as written: one edit would change both.
    assert_eq!(
        read(&all),
        K8S002_VALUES
            .replace("enabled: true", "enabled: \"true\"")
            .replace("scrape: yes", "scrape: \"yes\"")
    );
}

#[test]
fn k8s002_suggestions_for_yes_anchors_and_aliases() {
    let file = write("fix-choice-k8s002-json", "cm.yaml", K8S002_VALUES);
    let (_, report) = check_json(&["--select", "K8S002", &file]);
    let found = of_rule(&report, "K8S002");
    let lines: Vec<u64> = found.iter().map(|d| d["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![6, 7, 8, 10]);
    let (scrape, enabled, flag, mirrored) = (found[0], found[1], found[2], found[3]);

    assert_eq!(scrape["fix"]["applicability"], "unsafe");
    assert_eq!(
        scrape["suggestions"],
        json!([{
            "description": "write \"true\" (the boolean Kubernetes reads `yes` as)",
            "applicability": "display-only",
            "edits": [edit(6, 13, 16, "\"true\"")],
        }])
    );
    assert_eq!(enabled["fix"]["applicability"], "safe");
    assert_eq!(enabled["suggestions"], json!([]));

    // The anchored value: both edits refused, kept as by-hand advice.
    let refused = "by hand if right for every use: lblint does not edit the anchored node `&on`, \
                   which an alias shares";
    assert!(flag["fix"].is_null());
    assert_eq!(
        flag["suggestions"],
        json!([
            {"description": format!("quote `on` (the value becomes the string \"on\", not \"true\"), {refused}"),
             "applicability": "display-only", "edits": []},
            {"description": format!("write \"true\" (the boolean Kubernetes reads `on` as), {refused}"),
             "applicability": "display-only", "edits": []},
        ])
    );

    // The alias: no fix, the message names what it stands for.
    assert!(mirrored["fix"].is_null());
    assert_eq!(
        mirrored["suggestions"],
        json!([{"description": "quote `on` by hand at its anchor `&on` (line 8)",
                "applicability": "display-only", "edits": []}])
    );
    assert!(mirrored["message"]
        .as_str()
        .unwrap()
        .contains("reads `*on` (the anchor `&on`: `on`) as the boolean true"));
}

#[test]
fn no_rule_fix_edits_an_anchored_node_that_an_alias_shares() {
    // ACK001's fix would set `Local` to `Cluster`: the anchor's alias would change too.
    let original = read("testdata/ack/service-local-caller.yaml").replace(
        "  externalTrafficPolicy: Local\n",
        "  externalTrafficPolicy: &policy Local\n  sessionAffinityConfig: {note: *policy}\n",
    );
    let file = write("fix-choice-anchor", "service.yaml", &original);
    let run = fix_all(ACK_PROFILE, &file);
    assert_eq!(run.stderr, "");
    assert_eq!(read(&file), original);
    let (_, report) = check_json(&["--profile", ACK_PROFILE, &file]);
    let policy = of_rule(&report, "ACK001");
    assert!(policy[0]["fix"].is_null());
    assert_eq!(
        policy[0]["suggestions"][0]["description"],
        "set `externalTrafficPolicy: Cluster`, by hand if right for every use: lblint does not \
         edit the anchored node `&policy`, which an alias shares"
    );
}
