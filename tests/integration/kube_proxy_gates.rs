//! The shared kube-proxy gates (src/rules/family/kube_proxy.rs), each tried on both sides
//! of the fact that decides it: whether `ipMode: Proxy` takes effect per dataplane
//! (rules/K8S010.md) and which callers of an `externalTrafficPolicy: Local` address
//! kube-proxy strands per mode and version (rules/K8S013.md).

use super::{lint_file, one, profile_with as profile};

fn nftables(kubernetes: &str) -> String {
    format!("  kubernetesVersion: \"{kubernetes}\"\n  kubeProxy:\n    mode: nftables\n")
}

/// Audit T24: the nftables proxier builds on `newBaseServiceInfo`
/// (kubernetes/kubernetes pkg/proxy/serviceport.go), which skips non-VIP load-balancer IPs,
/// so a Hetzner CCM that sets `ipMode: Proxy` needs no workaround on nftables.
#[test]
fn nftables_honours_ip_mode_proxy_like_iptables_and_ipvs() {
    let ccm = "  addons:\n    cloudControllerManager: \"v1.26.0\"\n";
    let hetzner = profile("hetzner", &format!("{}{ccm}", nftables("1.33.1")));
    let (found, _) = lint_file("testdata/proxy/hetzner-proxy.yaml", &hetzner, "HETZNER001");
    assert_eq!(found, vec![]);
    // Before 1.30 the feature gate is off, whatever the mode.
    let old = profile("hetzner", &format!("{}{ccm}", nftables("1.29.4")));
    let (found, _) = lint_file("testdata/proxy/hetzner-proxy.yaml", &old, "HETZNER001");
    assert_eq!(found, one("HETZNER001", "error", 8, 5));
    // K8S010: the status takes effect on nftables, so the call really crosses the LB.
    let generic = profile("generic", &nftables("1.31.0"));
    let (found, message) = lint_file("testdata/k8s/ipmode-proxy-caller.yaml", &generic, "K8S010");
    assert_eq!(found, one("K8S010", "warning", 16, 17));
    assert!(!message.contains("nftables"), "{message}");
}

/// Audit X11/X12: IPVS leaves hostNetwork callers without a rule in every release, and
/// other pods until v1.24.0 (kubernetes/kubernetes#97081).
#[test]
fn ipvs_strands_pods_before_v1_24_0_and_host_network_callers_always() {
    let ipvs = |version: &str| {
        let version = if version.is_empty() {
            String::new()
        } else {
            format!("    version: \"{version}\"\n")
        };
        profile(
            "generic",
            &format!(
                "  kubeProxy:\n    mode: ipvs\n{version}  nodePools:\n    - name: workers\n      type: regular\n"
            ),
        )
    };
    let pods = "testdata/ack/service-local-pod-caller.yaml";
    let host = "testdata/ack/service-local-hostnetwork.yaml";
    assert_eq!(lint_file(pods, &ipvs("v1.24.0"), "K8S013").0, vec![]);
    let (found, _) = lint_file(pods, &ipvs("v1.23.17"), "K8S013");
    assert_eq!(found, one("K8S013", "error", 11, 26));
    let text = std::fs::read_to_string(pods).unwrap();
    let why = crate::help_text(pods, &text, &ipvs("v1.23.17"), "K8S013");
    assert!(why.contains("predates v1.24.0"), "{why}");
    let (found, message) = lint_file(pods, &ipvs(""), "K8S013");
    assert_eq!(found, one("K8S013", "warning", 11, 26));
    assert!(message.contains("`spec.kubeProxy.version`"), "{message}");
    for version in ["v1.23.17", "v1.24.0", "v1.34.1", ""] {
        let (found, _) = lint_file(host, &ipvs(version), "K8S013");
        assert_eq!(found, one("K8S013", "error", 11, 26), "{version}");
    }
}
