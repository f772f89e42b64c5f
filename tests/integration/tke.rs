//! TKE001 verdicts for the rows of seed 000's tables (testdata/tke/).

use crate::{check_json, f, findings};

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
    let related: Vec<(u64, u64)> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(related, vec![(11, 9), (53, 38)]);
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
