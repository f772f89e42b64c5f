//! One hand-written dump set per provider (testdata/import/<provider>/: node and kube-system
//! dumps in the formats the cloud controllers write), imported, snapshot-tested, and then used
//! to lint a manifest whose verdict hangs on the imported facts: without a profile the rule can
//! only warn (or fires where it should not); with the imported one it has its answer.

use super::{check, import};
use crate::lblint;

/// A provider's dumps, the manifest their facts decide, and its verdict before and after.
struct Case {
    name: &'static str,
    provider: &'static str,
    dumps: &'static [&'static str],
    manifest: &'static str,
    /// `line:col: severity[ID]` without a profile.
    without: &'static str,
    /// The same finding with the imported profile; `None`: the rule stays silent.
    with: Option<&'static str>,
}

const KUBEADM: &str = "kubeadm-kube-system.yaml";

const CASES: &[Case] = &[
    // EKS with the AWS Load Balancer Controller v2.8.2 (its Service webhook on by default):
    // a plain LoadBalancer Service gets an NLB that keeps the client IP, so the hostNetwork
    // caller of a Local-policy Service times out. Without a profile nothing says it is EKS.
    Case {
        name: "eks",
        provider: "eks",
        dumps: &[
            "eks/version.yaml",
            "eks/nodes.yaml",
            "eks/kube-system.yaml",
            "eks/lb.yaml",
        ],
        manifest: "testdata/import/local-policy-host-caller.yaml",
        without: "10:26: warning[K8S013]",
        with: Some("14:7: error[EKS001]"),
    },
    // kube-proxy (a static pod, default mode iptables) serves an internal LB's address on the node.
    Case {
        name: "gke",
        provider: "gke",
        dumps: &["gke/version.yaml", "gke/nodes.yaml", "gke/kube-system.yaml"],
        manifest: "testdata/hairpin/gke-internal.yaml",
        without: "9:5: warning[GKE001]",
        with: Some("9:5: note[GKE001]"),
    },
    // Dataplane V2: no kube-proxy, GKE's Cilium (anetd) answers Services: ebpf.
    Case {
        name: "gke-dpv2",
        provider: "gke",
        dumps: &[
            "gke/version.yaml",
            "gke/nodes.yaml",
            "gke/kube-system-dpv2.yaml",
        ],
        manifest: "testdata/hairpin/gke-internal.yaml",
        without: "9:5: warning[GKE001]",
        with: Some("9:5: note[GKE001]"),
    },
    Case {
        name: "aks",
        provider: "aks",
        dumps: &["aks/nodes.yaml", "aks/kube-system.yaml"],
        manifest: "testdata/hairpin/aks-internal.yaml",
        without: "9:5: warning[AKS001]",
        with: Some("9:5: note[AKS001]"),
    },
    // The L7 controller's version from its ConfigMap: v2.8.3 ignores snatEnable.
    Case {
        name: "tke",
        provider: "tke",
        dumps: &["tke/nodes.yaml", "tke/kube-system.yaml"],
        manifest: "testdata/tke/ingress-snat-old-controller.yaml",
        without: "27:9: warning[TKE006]",
        with: Some("27:9: error[TKE006]"),
    },
    // Terway from its DaemonSet: ENI backends work.
    Case {
        name: "ack",
        provider: "ack",
        dumps: &["ack/nodes.yaml", "ack/kube-system.yaml"],
        manifest: "testdata/ack/service-eni-cluster.yaml",
        without: "9:46: warning[ACK002]",
        with: None,
    },
    // DOKS and its version: the in-cluster caller of a PROXY-protocol LB is an error.
    Case {
        name: "doks",
        provider: "doks",
        dumps: &["doks/nodes.yaml", "doks/kube-system.yaml"],
        manifest: "testdata/proxy/doks-ingress-nginx.yaml",
        without: "9:5: warning[DOKS001]",
        with: Some("9:5: error[DOKS001]"),
    },
    Case {
        name: "lke",
        provider: "lke",
        dumps: &["lke/nodes.yaml", "lke/kube-system.yaml"],
        manifest: "testdata/proxy/lke-proxy.yaml",
        without: "8:5: warning[LKE001]",
        with: Some("8:5: error[LKE001]"),
    },
    // The hcloud CCM's env: PROXY protocol by default and a private network.
    Case {
        name: "hetzner",
        provider: "hetzner",
        dumps: &["hetzner/nodes.yaml", "hetzner/kube-system.yaml", KUBEADM],
        manifest: "testdata/proxy/hetzner-proxy-hostname.yaml",
        without: "11:9: warning[HETZNER003]",
        with: None,
    },
    // OCCM v1.31.1 from its image: PROXY-only Services get ipMode Proxy.
    Case {
        name: "openstack",
        provider: "openstack",
        dumps: &[
            "openstack/nodes.yaml",
            "openstack/kube-system.yaml",
            KUBEADM,
        ],
        manifest: "testdata/proxy/openstack-proxy.yaml",
        without: "8:5: warning[OPENSTACK001]",
        with: None,
    },
    // Kubernetes 1.31 from the kubelets: ipMode Proxy is honoured.
    Case {
        name: "oke",
        provider: "oke",
        dumps: &["oke/nodes.yaml", KUBEADM],
        manifest: "testdata/proxy/oke-proxy.yaml",
        without: "8:5: warning[OKE002]",
        with: None,
    },
    // A self-managed Scaleway CCM v0.36.0: PROXY on every port gets ipMode Proxy.
    Case {
        name: "scaleway",
        provider: "scaleway",
        dumps: &["scaleway/nodes.yaml", "scaleway/kube-system.yaml", KUBEADM],
        manifest: "testdata/proxy/scaleway-all-ports.yaml",
        without: "8:5: warning[SCALEWAY001]",
        with: None,
    },
    // k3s is no cloud: the DigitalOcean annotations mean nothing there.
    Case {
        name: "k3s",
        provider: "generic",
        dumps: &["k3s/nodes.yaml", "k3s/kube-system.yaml"],
        manifest: "testdata/proxy/doks-ingress-nginx.yaml",
        without: "9:5: warning[DOKS001]",
        with: None,
    },
];

/// Node names, addresses and providerIDs of a node dump: per-node data the profile must not copy.
fn per_node_values(dump: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dump).unwrap();
    text.lines()
        .filter(|l| {
            l.starts_with("      name: ") || l.contains("address: ") || l.contains("providerID: ")
        })
        .filter_map(|l| l.split_once(": ").map(|(_, v)| v.trim().to_string()))
        .collect()
}

fn lint(manifest: &str, profile: Option<&str>) -> String {
    let mut args = vec!["check", "--no-config", "--format", "compact", manifest];
    args.extend(profile.map(|p| ["--profile", p]).into_iter().flatten());
    lblint(&args).stdout
}

#[test]
fn each_provider_dump_imports_and_decides_a_verdict() {
    for case in CASES {
        let files: Vec<String> = case
            .dumps
            .iter()
            .map(|d| format!("testdata/import/{d}"))
            .collect();
        let args: Vec<&str> = files.iter().map(String::as_str).collect();
        let (profile, _) = import(&args);
        crate::snapshot!(format!("profile_import_{}", case.name), profile);
        let path = check(&profile, &format!("import-{}", case.name));
        let name = case.name;
        assert!(
            profile.contains(&format!("\n  provider: {}\n", case.provider)),
            "{name}:\n{profile}"
        );
        for file in files.iter().filter(|f| f.ends_with("nodes.yaml")) {
            for value in per_node_values(file) {
                assert!(
                    !profile.contains(&value),
                    "{name}: {value} copied:\n{profile}"
                );
            }
        }
        let rule = &case.without[case.without.find('[').unwrap()..];
        let before = lint(case.manifest, None);
        assert!(
            before.contains(case.without),
            "{name} without a profile:\n{before}"
        );
        let after = lint(case.manifest, path.to_str());
        match case.with {
            Some(with) => assert!(after.contains(with), "{name} imported:\n{after}"),
            None => assert!(!after.contains(rule), "{name} imported:\n{after}"),
        }
    }
}
