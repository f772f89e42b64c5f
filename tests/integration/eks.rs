//! AWS NLBs that keep the client IP cannot hairpin (rules/EKS001.md to EKS003.md).
//! Each case lints a fixture of testdata/eks/ against a profile written here.

use crate::{lint_file, one, profile_with as profile};

fn lint(fixture: &str, spec: &str) -> (Vec<(String, String, u32, u32)>, String) {
    lint_file(
        &format!("testdata/eks/{fixture}.yaml"),
        &profile("eks", spec),
        "EKS",
    )
}

const WEBHOOK: &str = "  addons:\n    awsLoadBalancerController: \"v2.8.2\"\n";

#[test]
fn instance_targets_keep_the_client_ip_and_a_caller_times_out() {
    let (found, message) = lint("nlb-instance", "");
    assert_eq!(found, one("EKS001", "error", 14, 7));
    assert!(message.contains("Pod/shop/checkout calls"), "{message}");
    assert!(message.contains("do not support hairpinning"), "{message}");
    // Preservation off, or IP targets over TCP: the NLB can take the call back.
    assert_eq!(lint("nlb-instance-no-preservation", "").0, vec![]);
    assert_eq!(lint("nlb-ip", "").0, vec![]);
    // Without the profile, the annotation alone marks the Service as AWS's.
    let (found, _) = lint_file(
        "testdata/eks/nlb-instance.yaml",
        &lblint::profile::generic(),
        "EKS",
    );
    assert_eq!(found, one("EKS001", "error", 14, 7));
}

#[test]
fn udp_cannot_opt_out_and_the_fix_says_so() {
    let (found, _) = lint("nlb-ip-udp", "");
    assert_eq!(found, one("EKS001", "error", 15, 7));
    let path = "testdata/eks/nlb-ip-udp.yaml";
    let outcome = lblint::check::check_sources(
        &[(path.into(), std::fs::read(path).unwrap())],
        &profile("eks", ""),
    );
    let help = outcome.diagnostics[0].help().cloned().unwrap_or_default();
    assert!(
        help.contains("UDP and QUIC target groups cannot turn"),
        "{help}"
    );
}

#[test]
fn the_scheme_only_lowers_the_severity() {
    let (found, message) = lint("nlb-internet-facing", "");
    assert_eq!(found, one("EKS001", "warning", 15, 7));
    assert!(message.contains("internet-facing"), "{message}");
    assert_eq!(lint("nlb-in-tree", "").0, one("EKS001", "error", 14, 7));
}

#[test]
fn a_plain_service_is_an_nlb_when_the_controller_webhook_runs() {
    assert_eq!(lint("plain", WEBHOOK).0, one("EKS001", "error", 14, 7));
    let old = "  addons:\n    awsLoadBalancerController: \"v2.4.7\"\n";
    assert_eq!(lint("plain", old).0, vec![]);
    let off = format!(
        "{WEBHOOK}    awsLoadBalancerControllerOptions:\n      serviceMutatorWebhook: false\n"
    );
    assert_eq!(lint("plain", &off).0, vec![]);
    let (found, message) = lint("plain", "");
    assert_eq!(found, one("EKS001", "warning", 14, 7));
    assert!(
        message.contains("`spec.addons.awsLoadBalancerController`"),
        "{message}"
    );
}

/// The commonest real case: ingress-nginx behind the NLB, an app calling a host it serves.
#[test]
fn a_host_served_by_ingress_nginx_behind_the_nlb_is_a_call_of_the_nlb() {
    let (found, message) = lint("ingress-nginx-nlb", WEBHOOK);
    assert_eq!(found, one("EKS001", "error", 14, 7));
    assert!(
        message.contains("Deployment/shop/checkout calls shop.example.com"),
        "{message}"
    );
    // K8S010 leaves the verdict to EKS001.
    let path = "testdata/eks/ingress-nginx-nlb.yaml";
    let (found, _) = lint_file(path, &profile("eks", WEBHOOK), "K8S010");
    assert_eq!(found, vec![]);
}

/// The documented misconfigurations next to the hairpin (EKS002, EKS003), each fixture with a
/// passing Service beside the failing one.
#[test]
fn instance_mode_needs_node_ports_and_no_proxy_v2_with_local() {
    let eks = profile("eks", "");
    let (found, _) = lint_file(
        "testdata/eks/nlb-instance-no-node-ports.yaml",
        &eks,
        "EKS002",
    );
    assert_eq!(found, one("EKS002", "error", 12, 34));
    let (found, message) = lint_file("testdata/eks/nlb-proxy-local.yaml", &eks, "EKS003");
    assert_eq!(found, one("EKS003", "warning", 11, 5));
    assert!(
        message.contains("you shouldn't configure proxy protocol v2"),
        "{message}"
    );
}
