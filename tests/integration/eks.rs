//! AWS NLBs that keep the client IP cannot hairpin (rules/EKS001.md to EKS003.md).
//! Each case lints a fixture of testdata/eks/ against a profile written here.

use crate::{lint_file, lint_text, one, profile_with as profile};

fn lint(fixture: &str, spec: &str) -> (Vec<(String, String, u32, u32)>, String) {
    lint_file(
        &format!("testdata/eks/{fixture}.yaml"),
        &profile("eks", spec),
        "EKS",
    )
}

/// The help of the first finding in testdata/eks/`fixture`.yaml.
fn help_of(fixture: &str, spec: &str) -> String {
    let path = format!("testdata/eks/{fixture}.yaml");
    let outcome = lblint::check::check_sources(
        &[(path.clone(), std::fs::read(&path).unwrap())],
        &profile("eks", spec),
    );
    outcome.diagnostics[0]
        .help()
        .map(ToString::to_string)
        .unwrap_or_default()
}

const WEBHOOK: &str = "  addons:\n    awsLoadBalancerController: \"v2.8.2\"\n";

#[test]
fn instance_targets_keep_the_client_ip_and_a_caller_times_out() {
    let (found, message) = lint("nlb-instance", "");
    assert_eq!(found, one("EKS001", "error", 15, 7));
    assert!(
        message.contains("Assuming the controller's default scheme, internal"),
        "{message}"
    );
    assert!(message.contains("Pod/shop/checkout calls"), "{message}");
    // The vendor's words are the help's (the lead fits two lines).
    let help = help_of("nlb-instance", "");
    assert!(help.contains("do not support hairpinning"), "{help}");
    // Preservation off, or IP targets over TCP: the NLB can take the call back.
    assert_eq!(lint("nlb-instance-no-preservation", "").0, vec![]);
    assert_eq!(lint("nlb-ip", "").0, vec![]);
    // Without a profile, the annotation alone marks the Service as AWS's: at most a
    // warning, since the cluster may be another cloud (issue 29 item 2).
    let (found, _) = lint_file(
        "testdata/eks/nlb-instance.yaml",
        &lblint::profile::generic(),
        "EKS",
    );
    assert_eq!(found, one("EKS001", "warning", 15, 7));
    // A profile that states another cloud: that cloud's controller ignores the AWS
    // annotations, and no AWS rule runs.
    let (found, _) = lint_file("testdata/eks/nlb-instance.yaml", &profile("gke", ""), "EKS");
    assert_eq!(found, vec![]);
}

#[test]
fn udp_cannot_opt_out_and_the_fix_says_so() {
    // IP targets: AWS documents the timeout for instances; for pods it is inferred.
    let (found, message) = lint("nlb-ip-udp", "");
    assert_eq!(found, one("EKS001", "warning", 15, 7));
    assert!(message.contains("inferred, not documented"), "{message}");
    let help = help_of("nlb-ip-udp", "");
    assert!(
        help.contains("UDP and QUIC target groups cannot turn"),
        "{help}"
    );
}

#[test]
fn the_scheme_only_lowers_the_severity() {
    let (found, message) = lint("nlb-internet-facing", "");
    assert_eq!(found, one("EKS001", "warning", 16, 7));
    assert!(message.contains("internet-facing"), "{message}");
    // The controller's deprecated `aws-load-balancer-internal`, read with ParseBool.
    let text = std::fs::read_to_string("testdata/eks/nlb-instance.yaml").unwrap().replace(
        "nlb-target-type: instance\n",
        "nlb-target-type: instance\n    service.beta.kubernetes.io/aws-load-balancer-internal: \"False\"\n",
    );
    let (found, message) = lint_text("nlb.yaml", &text, &profile("eks", ""), "EKS");
    assert_eq!(found, one("EKS001", "warning", 16, 7));
    assert!(message.contains("internet-facing"), "{message}");
    // Audit T22: the in-tree controller's NLB is internet-facing unless
    // `aws-load-balancer-internal` says otherwise.
    let (found, message) = lint("nlb-in-tree", "");
    assert_eq!(found, one("EKS001", "warning", 14, 7));
    assert!(message.contains("The NLB is internet-facing"), "{message}");
    let help = help_of("nlb-in-tree", "");
    assert!(
        help.contains("The in-tree controller makes it internet-facing"),
        "{help}"
    );
    assert_eq!(
        lint("nlb-in-tree-internal", "").0,
        one("EKS001", "error", 15, 7)
    );
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

/// EKS001 claims the NLB's calls (`Rule::claims`): K8S010 leaves the hostname-only NLB to
/// it; a run without EKS001 has no owner for them, and K8S010 advises itself.
#[test]
fn without_eks001_k8s010_advises_on_the_nlb() {
    let path = "testdata/eks/nlb-hostname-status.yaml";
    let (found, _) = lint_file(path, &profile("eks", WEBHOOK), "K8S010");
    assert_eq!(found, vec![]);
    let (found, _) = lint_file(path, &profile("eks", WEBHOOK), "EKS001");
    assert_eq!(found.len(), 1, "{found:?}");
    let files = [(path.to_string(), std::fs::read(path).unwrap())];
    let rules: Vec<&dyn lblint::rules::Rule> = lblint::rules::registry()
        .into_iter()
        .filter(|r| r.meta().id != "EKS001")
        .collect();
    let outcome = lblint::check::check_sources_with(&files, &profile("eks", WEBHOOK), &rules);
    let k8s010: Vec<(&str, u32)> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.rule() == "K8S010")
        .map(|d| (d.severity().as_str(), d.location().span.start.line))
        .collect();
    assert_eq!(k8s010, vec![("warning", 21)]);
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
    assert_eq!(found, one("EKS002", "error", 13, 34));
    let (found, message) = lint_file("testdata/eks/nlb-proxy-local.yaml", &eks, "EKS003");
    assert_eq!(found, one("EKS003", "warning", 12, 5));
    assert!(
        message.contains("you shouldn't configure proxy protocol v2"),
        "{message}"
    );
}

/// Audit T21: under the controller's webhook, `aws-load-balancer-type: nlb` is the
/// controller's NLB (the webhook sets the class on every classless LoadBalancer Service).
#[test]
fn the_webhook_takes_an_nlb_typed_service_from_the_in_tree_controller() {
    let (found, message) = lint("nlb-in-tree", WEBHOOK);
    assert_eq!(found, one("EKS001", "error", 14, 7));
    assert!(
        message.contains("gets an NLB with instance targets"),
        "{message}"
    );
    let help = help_of("nlb-in-tree", WEBHOOK);
    assert!(
        help.contains("so that controller makes it, not the in-tree one"),
        "{help}"
    );
    // Webhook unknown: judged as in-tree (either way the NLB keeps the client IP, so the
    // verdict does not hang on it), and the help names the fact.
    let help = help_of("nlb-in-tree-internal", "");
    assert!(
        help.contains("depends on `spec.addons.awsLoadBalancerController`"),
        "{help}"
    );
}

/// Audit T23: cloud-provider-aws reads `preserve_client_ip.enabled=false` from v1.34.0
/// (commit 73428cd2), v1.33.3 and v1.32.6 (cherry-picks); v1.34.1 and v1.31 lack it.
#[test]
fn the_in_tree_controller_turns_preservation_off_from_the_releases_that_read_it() {
    let ccm = |v: &str| {
        format!(
            "  addons:\n    awsLoadBalancerController: \"v2.4.7\"\n    cloudControllerManager: \"{v}\"\n"
        )
    };
    for v in [
        "v1.34.0", "v1.34.2", "v1.35.0", "v1.33.3", "v1.32.6", "v1.32.8",
    ] {
        assert_eq!(
            lint("nlb-in-tree-no-preservation", &ccm(v)).0,
            vec![],
            "{v}"
        );
    }
    for v in ["v1.34.1", "v1.33.2", "v1.32.5", "v1.31.9"] {
        let (found, message) = lint("nlb-in-tree-no-preservation", &ccm(v));
        assert_eq!(found, one("EKS001", "error", 17, 7), "{v}");
        assert!(
            message.contains(&format!("cloud-provider-aws {v}")),
            "{message}"
        );
    }
    let unstated = "  addons:\n    awsLoadBalancerController: \"v2.4.7\"\n";
    let (found, message) = lint("nlb-in-tree-no-preservation", unstated);
    assert_eq!(found, one("EKS001", "warning", 17, 7));
    assert!(
        message.contains(
            "(set `spec.addons.cloudControllerManager` in the cluster profile to settle it)"
        ),
        "{message}"
    );
    // The help gives the in-tree way out with its releases.
    let help = help_of("nlb-in-tree-internal", unstated);
    assert!(
        help.contains("v1.34.0 (not v1.34.1), v1.33.3 or v1.32.6"),
        "{help}"
    );
}

/// Audit §2 item 10: IP targets with preservation forced on are an inference.
#[test]
fn ip_targets_that_keep_the_client_ip_are_a_warning_that_says_it_is_inferred() {
    let (found, message) = lint("nlb-ip-preserved", "");
    assert_eq!(found, one("EKS001", "warning", 17, 7));
    assert!(message.contains("inferred, not documented"), "{message}");
}

/// One cause, one verdict: a Service that only the controller's class marks as AWS's is
/// EKS001's, not K8S013's as well.
#[test]
fn a_class_marked_nlb_with_local_policy_gets_one_finding() {
    let path = "testdata/eks/nlb-class-local.yaml";
    // nftables before v1.33.6 strands pod callers (K8S013's gap), had K8S013 judged it.
    let kube_proxy = "  kubeProxy:\n    mode: nftables\n    version: \"v1.32.4\"\n";
    let eks = profile("eks", kube_proxy);
    assert_eq!(
        lint_file(path, &eks, "EKS001").0,
        one("EKS001", "error", 17, 7)
    );
    assert_eq!(lint_file(path, &eks, "K8S013").0, vec![]);
    // `provider: generic` is none of the named clouds: no AWS rule, and the class still
    // keeps K8S013 off a Service only the AWS controller would serve.
    let generic = profile("generic", kube_proxy);
    assert_eq!(lint_file(path, &generic, "EKS001").0, vec![]);
    assert_eq!(lint_file(path, &generic, "K8S013").0, vec![]);
}

/// EKS003 reads `aws-load-balancer-proxy-protocol-per-target-group` (controller v2.13.0): a
/// list of ports whose target groups get PROXY protocol v2.
#[test]
fn proxy_protocol_per_target_group_counts_for_the_listed_ports() {
    let text = std::fs::read_to_string("testdata/eks/nlb-proxy-local.yaml").unwrap();
    let per_tg = |ports: &str| {
        text.replacen(
            "aws-load-balancer-proxy-protocol: \"*\"",
            &format!("aws-load-balancer-proxy-protocol-per-target-group: \"{ports}\""),
            1,
        )
    };
    let eks = profile("eks", "");
    let (found, _) = lint_text("pp.yaml", &per_tg("80, 443"), &eks, "EKS003");
    assert_eq!(found, one("EKS003", "warning", 12, 5));
    let (found, _) = lint_text("pp.yaml", &per_tg("443"), &eks, "EKS003");
    assert_eq!(found, vec![]);
}
