//! TKE001 verdicts for the rows of the tables in Tencent's "Guide to CLB Loopback"
//! (rules/TKE001.md, References; testdata/tke/).

use crate::{check_json, f, findings, Finding};

fn lint(profile: &str, manifest: &str) -> (i32, serde_json::Value) {
    let profile = format!("testdata/tke/{profile}.yaml");
    let manifest = format!("testdata/tke/{manifest}.yaml");
    check_json(&["--select", "TKE001", "--profile", &profile, &manifest])
}

fn rules_of(report: &serde_json::Value) -> Vec<(String, String)> {
    findings(report)
        .into_iter()
        .map(|(rule, severity, ..)| (rule, severity))
        .collect()
}

#[test]
fn private_clb_ipvs_regular_nodes_with_caller_is_an_error() {
    let (code, report) = lint("profile-ipvs-regular", "private-with-caller");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "error",
            "testdata/tke/private-with-caller.yaml",
            9,
            5
        )]
    );
    let d = &report["diagnostics"][0];
    assert_eq!(d["object"]["kind"], "Service");
    assert_eq!(d["object"]["name"], "orders");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("CronJob/shop/nightly-report calls its address 10.20.30.40"));
    // Related: the `type: LoadBalancer` value and the caller's argument.
    let related = crate::related_at(d);
    assert_eq!(related, vec![(11, 9), (10, 11), (53, 38)]);
    assert_eq!(
        d["related"][1]["file"],
        "testdata/tke/profile-ipvs-regular.yaml"
    );
    assert!(d["help"]
        .as_str()
        .unwrap()
        .contains("service.cloud.tencent.com/prevent-loopback: \"true\""));
    assert_eq!(d["fix"]["applicability"], "unsafe");
    assert_eq!(d["fix"]["edits"][0]["line"], 10);
}

#[test]
fn native_nodes_are_at_risk_like_regular_nodes() {
    let (_, report) = lint("profile-ipvs-native", "private-with-caller");
    assert_eq!(rules_of(&report), vec![("TKE001".into(), "error".into())]);
}

#[test]
fn no_visible_caller_is_a_warning() {
    let (code, report) = lint("profile-ipvs-regular", "private-no-caller");
    assert_eq!(code, 1);
    assert_eq!(rules_of(&report), vec![("TKE001".into(), "warning".into())]);
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("No in-cluster caller"));
}

#[test]
fn unknown_proxy_mode_is_a_warning_naming_the_field() {
    let (_, report) = lint("profile-unknown-mode", "private-with-caller");
    assert_eq!(rules_of(&report), vec![("TKE001".into(), "warning".into())]);
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("`spec.kubeProxy.mode`"));
}

#[test]
fn no_profile_at_all_still_warns_about_a_tke_private_clb() {
    let (code, report) = check_json(&[
        "--select",
        "TKE001",
        "testdata/tke/private-with-caller.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&report), vec![("TKE001".into(), "warning".into())]);
}

#[test]
fn iptables_mode_has_no_risk() {
    let (code, report) = lint("profile-iptables-regular", "private-with-caller");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn super_nodes_only_have_no_risk() {
    let (code, report) = lint("profile-ipvs-super", "private-with-caller");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn backends_pinned_to_super_nodes_have_no_risk() {
    let (code, report) = lint("profile-ipvs-regular", "super-pinned");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn public_clb_has_no_risk() {
    let (code, report) = lint("profile-ipvs-regular", "public");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn prevent_loopback_resolves_it() {
    let (code, report) = lint("profile-ipvs-regular", "prevent-loopback");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn snat_on_every_listener_resolves_it() {
    let (code, report) = lint("profile-ipvs-regular", "snat-all-ports");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

#[test]
fn snat_on_some_listeners_does_not() {
    let (_, report) = lint("profile-ipvs-regular", "snat-one-port");
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/tke/snat-one-port.yaml",
            8,
            5
        )]
    );
}

#[test]
fn caller_kept_apart_by_anti_affinity_is_a_warning() {
    let (_, report) = lint("profile-ipvs-regular", "anti-affinity");
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/tke/anti-affinity.yaml",
            9,
            5
        )]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("never shares a node with a backend pod"),
        "{message}"
    );
}

#[test]
fn caller_on_super_nodes_only_cannot_share_with_regular_backends() {
    // With only a super pool, nothing runs on regular or native nodes: no finding.
    let (code, report) = lint("profile-ipvs-super", "anti-affinity");
    assert_eq!((code, rules_of(&report)), (0, vec![]));
}

/// All findings (any rule) for a profile and a fixture.
fn lint_all(profile: &str, manifest: &str) -> (i32, Vec<Finding>) {
    let profile = format!("testdata/tke/{profile}.yaml");
    let manifest = format!("testdata/tke/{manifest}.yaml");
    let (code, report) = check_json(&["--profile", &profile, &manifest]);
    (code, findings(&report))
}

const ING: &str = "testdata/tke/ingress-private-with-caller.yaml";

#[test]
fn private_clb_ingress_with_caller_is_an_l7_error_in_any_proxy_mode() {
    for profile in [
        "profile-ipvs-regular",
        "profile-iptables-regular",
        "profile-ipvs-native",
    ] {
        let (code, found) = lint_all(profile, "ingress-private-with-caller");
        assert_eq!(code, 1);
        assert_eq!(
            found,
            // The call is the error's: no K8S001 note beside it.
            vec![f("TKE002", "error", ING, 10, 5)],
            "{profile}"
        );
    }
}

#[test]
fn private_clb_ingress_on_super_nodes_has_no_risk() {
    let (_, found) = lint_all("profile-ipvs-super", "ingress-private-with-caller");
    assert_eq!(found, vec![f("K8S001", "note", ING, 69, 30)]);
}

#[test]
fn l7_snat_on_every_listener_resolves_it() {
    let (_, found) = lint_all("profile-ipvs-regular", "ingress-snat");
    assert!(found.iter().all(|d| d.0 != "TKE002"), "{found:?}");
    // The profile states neither the controller version nor the allowlists.
    let file = "testdata/tke/ingress-snat.yaml";
    assert_eq!(
        found,
        vec![
            f("TKE005", "note", file, 28, 9),
            f("TKE006", "warning", file, 28, 9),
            f("TKE013", "note", file, 28, 9),
            f("TKE005", "note", file, 31, 9),
            f("TKE006", "warning", file, 31, 9),
            f("TKE013", "note", file, 31, 9),
            f("K8S001", "note", file, 50, 30),
        ]
    );
}

#[test]
fn l7_snat_missing_on_the_https_listener() {
    let (_, found) = lint_all("profile-ipvs-regular", "ingress-snat-http-only");
    assert_eq!(
        found[0],
        f(
            "TKE002",
            "error",
            "testdata/tke/ingress-snat-http-only.yaml",
            8,
            5
        )
    );
}

#[test]
fn l7_snat_field_and_allowlist_checked_against_the_profile() {
    let (code, found) = lint_all("profile-old-controller", "ingress-snat-old-controller");
    assert_eq!(code, 1);
    let file = "testdata/tke/ingress-snat-old-controller.yaml";
    assert_eq!(
        found,
        vec![
            f("TKE005", "error", file, 27, 9),
            f("TKE006", "error", file, 27, 9),
            f("TKE013", "note", file, 27, 9),
            f("TKE005", "error", file, 30, 9),
            f("TKE006", "error", file, 30, 9),
            f("TKE013", "note", file, 30, 9),
            f("K8S001", "note", file, 49, 30),
        ]
    );
    let (_, report) = check_json(&[
        "--select",
        "TKE006",
        "--profile",
        "testdata/tke/profile-old-controller.yaml",
        file,
    ]);
    let fix = &report["diagnostics"][0]["fix"];
    assert_eq!(fix["applicability"], "safe");
    assert_eq!(fix["edits"][0]["content"], "keepaliveEnable: 1");
    assert_eq!(
        (
            fix["edits"][0]["line"].as_u64(),
            fix["edits"][0]["column"].as_u64(),
            fix["edits"][0]["end_column"].as_u64()
        ),
        (Some(27), Some(9), Some(25))
    );
}

#[test]
fn public_ingress_has_no_risk() {
    let (_, found) = lint_all("profile-ipvs-regular", "ingress-public");
    assert_eq!(
        found,
        vec![f(
            "K8S001",
            "note",
            "testdata/tke/ingress-public.yaml",
            28,
            30
        )]
    );
}

#[test]
fn prevent_loopback_does_nothing_for_layer_7() {
    let (_, found) = lint_all("profile-ipvs-regular", "ingress-prevent-loopback");
    let file = "testdata/tke/ingress-prevent-loopback.yaml";
    assert_eq!(
        found,
        vec![
            f("TKE002", "warning", file, 8, 5),
            f("TKE003", "error", file, 9, 5),
            f("TKE003", "error", file, 29, 5),
        ]
    );
}

/// On a LoadBalancer Service, prevent-loopback works for layer 4; relying
/// on it for the Ingress in front is exactly as sure as that Ingress's own loopback (TKE002).
#[test]
fn prevent_loopback_on_an_l4_backend_follows_the_ingress_verdict() {
    for (fixture, severity) in [
        ("ingress-prevent-loopback-l4", "warning"),
        ("ingress-prevent-loopback-l4-called", "error"),
    ] {
        let (_, found) = lint_all("profile-ipvs-regular", fixture);
        let file = format!("testdata/tke/{fixture}.yaml");
        let rule = |id: &str| -> Vec<_> { found.iter().filter(|d| d.0 == id).cloned().collect() };
        assert_eq!(
            rule("TKE002"),
            vec![f("TKE002", severity, &file, 10, 5)],
            "{fixture}"
        );
        assert_eq!(
            rule("TKE003"),
            vec![f("TKE003", severity, &file, 31, 5)],
            "{fixture}"
        );
    }
}

#[test]
fn calls_by_name_or_cluster_ip_are_not_lb_calls() {
    let (_, found) = lint_all("profile-ipvs-regular", "by-name");
    assert_eq!(
        found,
        vec![f("TKE001", "warning", "testdata/tke/by-name.yaml", 9, 5)]
    );
}

#[test]
fn prevent_loopback_needs_a_binding_kube_proxy() {
    let file = "testdata/tke/prevent-loopback-kube-proxy.yaml";
    let cases = [
        ("profile-kube-proxy-old", Some("error")),
        ("profile-kube-proxy-unbound", Some("error")),
        ("profile-kube-proxy-undocumented", Some("warning")),
        // A later minor than every documented build binds (TKE's builds of 1.22 on came after).
        ("profile-ipvs-regular", None),
        ("profile-kube-proxy-new", None),
    ];
    for (profile, severity) in cases {
        let (_, found) = lint_all(profile, "prevent-loopback-kube-proxy");
        let expected: Vec<_> = severity
            .into_iter()
            .map(|s| f("TKE004", s, file, 9, 5))
            .collect();
        assert_eq!(found, expected, "{profile}");
    }
}

#[test]
fn unquoted_annotation_and_label_values() {
    let (_, report) = check_json(&["--select", "K8S002", "testdata/tke/annotation-bool.yaml"]);
    let file = "testdata/tke/annotation-bool.yaml";
    assert_eq!(
        findings(&report),
        vec![
            f("K8S002", "error", file, 8, 11),
            f("K8S002", "error", file, 11, 49),
            f("K8S002", "warning", file, 12, 19),
        ]
    );
    // `1` quoted is still the text Kubernetes means: safe.
    assert_eq!(report["diagnostics"][0]["fix"]["applicability"], "safe");
    assert_eq!(
        report["diagnostics"][0]["suggestions"],
        serde_json::json!([])
    );
    // `yes` quoted becomes the string "yes", not the "true" Kubernetes reads: unsafe, with
    // "true" as the alternative.
    let d = &report["diagnostics"][1];
    assert!(d["message"].as_str().unwrap().ends_with(
        "Quoted, the value Kubernetes sees becomes the string \"yes\", not \"true\": \"true\" was probably meant."
    ));
    let edit = |content: &str| serde_json::json!([{"line": 11, "column": 49, "end_line": 11, "end_column": 52, "content": content}]);
    assert_eq!(
        d["fix"],
        serde_json::json!({
            "description": "quote `yes` (the value becomes the string \"yes\", not \"true\")",
            "applicability": "unsafe",
            "edits": edit("\"yes\""),
        })
    );
    assert_eq!(
        d["suggestions"],
        serde_json::json!([{
            "description": "write \"true\" (the boolean Kubernetes reads `yes` as)",
            "applicability": "display-only",
            "edits": edit("\"true\""),
        }])
    );
}

/// Where TKE004 says prevent-loopback cannot work (kube-proxy too old),
/// TKE014 does not also say that calls bypass the CLB; where it works, TKE014 notes it.
#[test]
fn the_bypass_note_does_not_contradict_a_prevent_loopback_that_cannot_work() {
    let file = "testdata/tke/tradeoff-prevent-loopback.yaml";
    let rules = |profile: &str| -> Vec<String> {
        let (_, report) = check_json(&["--profile", profile, file]);
        findings(&report).into_iter().map(|f| f.0).collect()
    };
    let old = rules("testdata/tke/profile-kube-proxy-old.yaml");
    assert!(
        old.iter().all(|r| r != "TKE014") && old.iter().any(|r| r == "TKE004"),
        "{old:?}"
    );
    let new = rules("testdata/tke/profile-kube-proxy-new.yaml");
    assert!(
        new.iter().any(|r| r == "TKE014") && new.iter().all(|r| r != "TKE004"),
        "{new:?}"
    );
}

/// A reused CLB (`tke-existed-lbid`) is judged once the profile states
/// its network (`loadBalancers[].network: private`); without that, a called one is a
/// warning that names the field.
#[test]
fn a_reused_clb_is_judged_when_the_profile_states_its_network() {
    let file = "testdata/tke/reused-clb.yaml";
    let (code, report) = check_json(&[
        "--profile",
        "testdata/tke/profile-reused-private.yaml",
        file,
    ]);
    assert_eq!(code, 1);
    assert_eq!(findings(&report), vec![f("TKE001", "error", file, 11, 5)]);
    let (_, report) = check_json(&["--profile", "testdata/tke/profile-ipvs-regular.yaml", file]);
    assert_eq!(findings(&report), vec![f("TKE001", "warning", file, 11, 5)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Reused CLB Service `orders` may loop back")
            && message.contains("set `spec.loadBalancers[].network` for `Service/shop/orders`"),
        "{message}"
    );
}

/// Layer 7: a called Ingress on a reused CLB (`ingress.existLbId`) is a
/// TKE002 error once the profile states the CLB is private, and a warning naming
/// `spec.loadBalancers[].network` while it does not.
#[test]
fn a_reused_clb_ingress_is_judged_when_the_profile_states_its_network() {
    let file = "testdata/tke/reused-clb-ingress.yaml";
    let profile = "testdata/tke/profile-reused-ingress-private.yaml";
    let (_, report) = check_json(&["--profile", profile, file]);
    assert_eq!(findings(&report), vec![f("TKE002", "error", file, 10, 5)]);
    let (_, report) = check_json(&["--profile", "testdata/tke/profile-ipvs-regular.yaml", file]);
    assert_eq!(findings(&report), vec![f("TKE002", "warning", file, 10, 5)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("set `spec.loadBalancers[].network` for `Ingress/shop/shop`"),
        "{message}"
    );
}

/// A pool without `type` is unknown, never "no regular node": the called private CLB keeps a
/// warning that names the field (issue 37: the imported profile reported nothing).
#[test]
fn an_untyped_pool_is_a_warning_naming_its_type() {
    let (code, report) = lint("profile-ipvs-untyped", "private-with-caller");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/tke/private-with-caller.yaml",
            9,
            5
        )]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "set `spec.nodePools[].type` of pool `np-3kd8s7q2` (regular, native or super"
        ),
        "{message}"
    );
}

/// A mention is not a call: Grafana's `domain` and `root_url` keep the public host (no
/// "call X instead" suggestion anywhere), and the finding's first snippet is the load
/// balancer's line, not the Grafana line above it.
#[test]
fn mentions_are_never_rewritten_and_the_lb_line_comes_first() {
    let file = "testdata/tke/grafana-domain.yaml";
    let (_, report) = check_json(&["--profile", "testdata/tke/profile-ipvs-regular.yaml", file]);
    assert_eq!(
        findings(&report),
        vec![
            f("K8S001", "note", file, 12, 23),
            f("TKE001", "warning", file, 38, 5),
        ]
    );
    for d in report["diagnostics"].as_array().unwrap() {
        assert_eq!(d["suggestions"], serde_json::json!([]), "{d:#}");
        assert!(
            !d["help"]
                .as_str()
                .unwrap()
                .contains("call `frontend-proxy` instead"),
            "{d:#}"
        );
    }
    let human = crate::lblint(&[
        "check",
        "--select",
        "TKE001",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        file,
    ]);
    let first = human.stdout.lines().find(|l| l.contains("╭─[")).unwrap();
    assert!(
        first.ends_with(&format!("{file}:38:5]")),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains(&format!(
            "related: {file}:11:14: Deployment/otel-demo/grafana"
        )),
        "{}",
        human.stdout
    );
}
