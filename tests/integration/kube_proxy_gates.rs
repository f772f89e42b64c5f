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
