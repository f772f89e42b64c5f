//! One owner per load balancer (issue 29 item 2; testdata/owners/): the profile's provider
//! decides which controller provisions a Service, whatever other clouds' annotations a
//! portable manifest carries; with no profile the annotations do, at most as a warning;
//! `provider: generic` runs no cloud's rules.

use crate::{check_json, f, findings};

const CONTOUR: &str = "testdata/owners/contour-envoy-aws-annotation.yaml";
const RULES: &str = "ACK001,EKS001,K8S013";

fn lint(profile: Option<&str>) -> Vec<(String, String, String, u64, u64)> {
    let mut args = vec!["--select", RULES];
    if let Some(profile) = profile {
        args.extend(["--profile", profile]);
    }
    args.push(CONTOUR);
    findings(&check_json(&args).1)
}

#[test]
fn contours_envoy_service_on_ack_is_acks_despite_its_aws_annotation() {
    // Before: the AWS annotation made it AWS's, so ACK001 never looked at it.
    assert_eq!(
        lint(Some("testdata/ack/profile-ack-iptables.yaml")),
        [f("ACK001", "warning", CONTOUR, 14, 26)]
    );
}

#[test]
fn without_a_profile_the_annotation_decides_at_most_a_warning() {
    assert_eq!(lint(None), [f("EKS001", "warning", CONTOUR, 16, 5)]);
    // An error of a cloud's rule becomes a warning that says why (DOKS001 on its fixture).
    let doks = "testdata/proxy/doks-ingress-nginx.yaml";
    let (_, report) = check_json(&["--select", "DOKS001", doks]);
    assert_eq!(findings(&report), [f("DOKS001", "warning", doks, 9, 5)]);
    let help = report["diagnostics"][0]["help"].as_str().unwrap();
    assert!(help.contains("no profile given"), "{help}");
    assert!(help.contains("`spec.provider`"), "{help}");
}

#[test]
fn provider_generic_runs_no_clouds_rules() {
    assert_eq!(lint(Some("testdata/ack/profile-generic-iptables.yaml")), []);
}

/// Reused load balancers (issue 29 item 6): a TKE Service on an existing CLB by
/// `loadbalance-id` (Tencent's own demo) has an unknown network, not a public one.
#[test]
fn a_tke_service_on_an_existing_clb_by_loadbalance_id_is_judged_by_the_profile() {
    let file = "testdata/owners/tke-loadbalance-id.yaml";
    let lint = |profile: &str| {
        let (_, report) = check_json(&["--select", "TKE001", "--profile", profile, file]);
        report
    };
    let report = lint("testdata/tke/profile-ipvs-regular.yaml");
    assert_eq!(findings(&report), [f("TKE001", "warning", file, 11, 5)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("set `spec.loadBalancers[].network` for `Service/piggymetrics/gateway`"),
        "{message}"
    );
    // The profile says the CLB is private: the private CLB's verdict.
    let report = lint("testdata/owners/profile-tke-gateway-private.yaml");
    assert_eq!(findings(&report), [f("TKE001", "error", file, 11, 5)]);
}

/// An Alibaba Service on an existing SLB (`loadbalancer-id`) keeps that SLB's address type:
/// unknown unless `address-type` states it (the CCM refuses a mismatch).
#[test]
fn an_ack_service_on_an_existing_slb_has_an_unknown_network() {
    let output = crate::lblint(&[
        "model",
        "--format",
        "json",
        "--profile",
        "testdata/ack/profile-ack-iptables.yaml",
        "testdata/owners/ack-loadbalancer-id.yaml",
    ]);
    let model: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    let networks: Vec<&str> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["network"].as_str().unwrap())
        .collect();
    assert_eq!(networks, ["unknown", "private"]);
}
