//! `lblint profile import`: profiles from hand-written kubectl dumps (testdata/import/, and
//! node dumps built here from each cloud controller's providerID format and pool labels);
//! one dump set per provider, and the verdicts it decides, in `providers`.

mod hostile;
mod providers;

use super::cli::tempdir;
use super::{lblint, lblint_stdin};

/// Import `files`, expecting success: the profile's text and standard error.
fn import(files: &[&str]) -> (String, String) {
    let mut args = vec!["profile", "import"];
    args.extend(files);
    let run = lblint(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    (run.stdout, run.stderr)
}

/// The profile passes `profile check`, from a file.
fn check(profile: &str, name: &str) -> std::path::PathBuf {
    let path = tempdir(name).join("cluster.yaml");
    std::fs::write(&path, profile).unwrap();
    let run = lblint(&["profile", "check", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{profile}", run.stderr);
    path
}

/// One node per provider, with the providerID its controller writes and its pool label.
const NODES: &[(&str, &str, &str)] = &[
    ("eks", "aws:///eu-west-1a/i-0123456789abcdef0", "eks.amazonaws.com/nodegroup: workers"),
    ("gke", "gce://shop-prod/europe-west1-b/gke-shop-default-pool-1a2b3c4d-x7k9", "cloud.google.com/gke-nodepool: default-pool"),
    ("aks", "azure:///subscriptions/0000/resourceGroups/mc_shop/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-123/virtualMachines/0", "kubernetes.azure.com/agentpool: nodepool1"),
    ("tke", "qcloud:///100003/ins-3ven36lk", "node.kubernetes.io/instance-type: S5.LARGE8"),
    ("ack", "cn-hangzhou.i-bp1a2b3c4d5e6f7g8h9i", "node.alibabacloud.com/nodepool-id: np-0123"),
    ("doks", "digitalocean://412345678", "doks.digitalocean.com/node-pool: pool-web"),
    ("lke", "linode://51234567", "lke.linode.com/pool-id: \"123456\""),
    ("hetzner", "hcloud://41234567", "instance.hetzner.cloud/provided-by: cloud"),
    ("openstack", "openstack:///5f6a3c1e-7b2d-4a8e-9c0f-1d2e3f4a5b6c", "node.kubernetes.io/instance-type: b2-7"),
    ("oke", "ocid1.instance.oc1.eu-frankfurt-1.abcdefgh", "oci.oraclecloud.com/fault-domain: FAULT-DOMAIN-1"),
    ("scaleway", "scaleway://instance/fr-par-1/0e3b5a9f-1c2d-4e5f-8a9b-0c1d2e3f4a5b", "k8s.scaleway.com/pool-name: default"),
    ("generic", "k3s://agent-1", "node.kubernetes.io/instance-type: k3s"),
];

fn node_dump(provider_id: &str, label: &str) -> String {
    format!(
        "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata:\n      \
         name: node-a\n      labels:\n        kubernetes.io/hostname: node-a\n        {label}\n    spec:\n      \
         providerID: {provider_id}\n    status:\n      nodeInfo:\n        kubeletVersion: v1.30.5\n"
    )
}

#[test]
fn every_provider_is_told_by_its_provider_id() {
    let dir = tempdir("import-providers");
    let mut all = String::new();
    for (provider, id, label) in NODES {
        let path = dir.join(format!("{provider}.yaml"));
        std::fs::write(&path, node_dump(id, label)).unwrap();
        let (profile, _) = import(&[path.to_str().unwrap()]);
        check(&profile, &format!("import-node-{provider}"));
        assert!(
            profile.contains(&format!("\n  provider: {provider}\n")),
            "{provider}:\n{profile}"
        );
        all.push_str(&format!(
            "=== {provider}\n{}",
            profile.lines().skip(6).collect::<Vec<_>>().join("\n")
        ));
        all.push('\n');
    }
    crate::snapshot!("profile_import_providers", all);
}

#[test]
fn conflicting_evidence_is_an_error_naming_both() {
    let dir = tempdir("import-conflict");
    let (a, b) = (dir.join("a.yaml"), dir.join("b.yaml"));
    std::fs::write(
        &a,
        node_dump("aws:///eu-west-1a/i-0123", "eks.amazonaws.com/nodegroup: a"),
    )
    .unwrap();
    std::fs::write(
        &b,
        node_dump("gce://p/z/i", "cloud.google.com/gke-nodepool: b"),
    )
    .unwrap();
    let files = [a.to_str().unwrap(), b.to_str().unwrap()];
    let run = lblint(&[&["profile", "import"][..], &files].concat());
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "the dumps disagree on the cloud: eks (1 node(s) with providerID aws://…) and gke (1 \
             node(s) with providerID gce://…)"
        ),
        "{}",
        run.stderr
    );
    // Stated, the cloud is the user's: the profile is written.
    let run = lblint(&[&["profile", "import", "--provider", "gke"][..], &files].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("  # from --provider\n  provider: gke\n"),
        "{}",
        run.stdout
    );
}

/// Never a silent `generic`: kube-system alone that names no cloud is an error that says
/// which dump to add; nodes without a providerID are a cluster on no cloud.
#[test]
fn an_unsettled_cloud_is_an_error_naming_the_dump_to_add() {
    let run = lblint(&[
        "profile",
        "import",
        "testdata/import/kubeadm-kube-system.yaml",
    ]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("no dump shows the cloud"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("kubectl get nodes -o yaml"),
        "{}",
        run.stderr
    );
    let dir = tempdir("import-no-provider-id");
    let nodes = dir.join("nodes.yaml");
    std::fs::write(
        &nodes,
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    \
         name: n1\n    labels: {kubernetes.io/hostname: n1}\n  status:\n    nodeInfo: \
         {kubeletVersion: v1.31.2}\n",
    )
    .unwrap();
    let (profile, _) = import(&[nodes.to_str().unwrap()]);
    assert!(
        profile.contains(
            "  # from 1 node(s), none with a spec.providerID (no cloud controller initialised them)\n  \
             provider: generic\n"
        ),
        "{profile}"
    );
}

/// No nodes dump: kube-system's vendor builds and registries name the cloud, with evidence.
#[test]
fn without_nodes_kube_system_names_the_cloud() {
    let (profile, _) = import(&["testdata/import/tke/kube-system.yaml"]);
    assert!(
        profile.contains(
            "  # from DaemonSet/kube-system/kube-proxy image \
             ccr.ccs.tencentyun.com/tkeimages/kube-proxy:v1.30.0-tke.5, \
             ConfigMap/kube-system/tke-ingress-controller-config (no node dump names the cloud)\n  \
             provider: tke\n"
        ),
        "{profile}"
    );
    let (profile, _) = import(&["testdata/import/eks/kube-system.yaml"]);
    assert!(profile.contains("\n  provider: eks\n"), "{profile}");
}

/// An application's own manifests hold nothing a profile takes: a located error, not an
/// empty profile.
#[test]
fn application_manifests_are_a_located_error() {
    let run = lblint(&["profile", "import", "examples/manifests/fixed.yaml"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("nothing to import: these are manifests as written"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("examples/manifests/fixed.yaml:"),
        "{}",
        run.stderr
    );
}

#[test]
fn kube_proxy_mode_comes_from_its_config_or_flag() {
    let (profile, _) = import(&[
        "--provider",
        "generic",
        "testdata/import/kubeadm-kube-system.yaml",
    ]);
    assert!(
        profile.contains("`mode: \"\"`), which DaemonSet/kube-system/kube-proxy reads with --config; an empty mode is kube-proxy's default, iptables on Linux\n    mode: iptables"),
        "{profile}"
    );
    let flag = std::fs::read_to_string("testdata/import/kubeadm-kube-system.yaml")
        .unwrap()
        .replace(
            "- --config=/var/lib/kube-proxy/config.conf",
            "- --proxy-mode=nftables",
        );
    let stdin = ["profile", "import", "--provider", "generic", "-"];
    let run = lblint_stdin(&stdin, Some(flag.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("flag --proxy-mode=nftables\n    mode: nftables"),
        "{}",
        run.stdout
    );
    // A flow-style YAML dump, which looks like JSON and is not.
    let flow = "{kind: DaemonSet, metadata: {name: kube-proxy, namespace: kube-system}, spec: \
                {template: {spec: {containers: [{name: kube-proxy, image: 'k8s/kube-proxy:v1.31.2', \
                command: [kube-proxy, --proxy-mode=ipvs]}]}}}}\n";
    let run = lblint_stdin(&stdin, Some(flow.as_bytes()));
    assert!(
        run.stdout.contains("--proxy-mode=ipvs\n    mode: ipvs"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    // No kube-proxy, and Cilium replaces it.
    let (profile, _) = import(&[
        "--provider",
        "generic",
        "testdata/import/cilium-kube-system.json",
    ]);
    assert!(
        profile.contains("kube-proxy-replacement: true\n    mode: ebpf"),
        "{profile}"
    );
    assert!(profile.contains("cilium: 1.17.6"), "{profile}");
}

#[test]
fn self_managed_controllers_give_their_version_and_options() {
    let (profile, _) = import(&["testdata/import/hetzner/kube-system.yaml"]);
    check(&profile, "import-hetzner");
    for line in [
        "cloudControllerManager: v1.21.0",
        "usesProxyProtocol: true",
        "privateNetwork: true",
    ] {
        assert!(profile.contains(line), "{line}:\n{profile}");
    }
}

/// TKE pools: by `tke.cloud.tencent.com/nodepool-id`, then a native node's MachineSet label;
/// each pool's type from its nodes, and a pool whose nodes do not tell is left untyped,
/// commented and listed to state. ACK: `alibabacloud.com/nodepool-id` first.
#[test]
fn pools_are_typed_from_their_nodes_or_said_to_be_unknown() {
    let dir = tempdir("import-pool-types");
    let node = |name: &str, id: &str, labels: &str| {
        let provider = if id.is_empty() {
            String::new()
        } else {
            format!("\n    spec:\n      providerID: {id}")
        };
        format!(
            "  - apiVersion: v1\n    kind: Node\n    metadata:\n      name: {name}\n      labels:\n        \
             kubernetes.io/hostname: {name}\n{labels}{provider}\n"
        )
    };
    let tke = [
        node("10.0.0.1", "qcloud:///100003/ins-aaaa1111", "        tke.cloud.tencent.com/nodepool-id: np-cvm00001\n"),
        node("10.0.0.2", "qcloud:///100003/ins-bbbb2222", "        node.tke.cloud.tencent.com/machineset: np-native01\n"),
        node("idc-1", "", "        tke.cloud.tencent.com/nodepool-id: np-idc00001\n        node.kubernetes.io/instance-type: external\n"),
    ]
    .concat();
    let path = dir.join("tke.yaml");
    std::fs::write(&path, format!("apiVersion: v1\nkind: List\nitems:\n{tke}")).unwrap();
    let (profile, _) = import(&["--provider", "tke", path.to_str().unwrap()]);
    check(&profile, "import-tke-pool-types");
    for line in [
        "    # 1 node(s), grouped by label tke.cloud.tencent.com/nodepool-id; labels and taints every one of them has\n    - name: np-cvm00001\n      # from every node a CVM instance",
        "      type: regular\n",
        "    # 1 node(s), grouped by label node.tke.cloud.tencent.com/machineset; labels and taints every one of them has\n    - name: np-native01\n      # from label node.tke.cloud.tencent.com/machineset on every node",
        "      type: native\n",
        "    - name: np-idc00001\n      # type: not imported, its nodes have no CVM providerID, no super-node instance type and no native-node label: state regular, native or super\n",
        "#   spec.nodePools[].type: the nodes of pool np-idc00001 do not show whether they are regular, native or super nodes",
    ] {
        assert!(profile.contains(line), "{line}\n{profile}");
    }
    // ACK: the documented label wins over the cloud controller's (v2.10.0).
    let ack = node(
        "n1",
        "cn-hangzhou.i-bp1a2b3c4d5e6f7g8h9i",
        "        alibabacloud.com/nodepool-id: np-doc\n        node.alibabacloud.com/nodepool-id: np-ccm\n",
    );
    let path = dir.join("ack.yaml");
    std::fs::write(&path, format!("apiVersion: v1\nkind: List\nitems:\n{ack}")).unwrap();
    let (profile, _) = import(&[path.to_str().unwrap()]);
    assert!(
        profile.contains("grouped by label alibabacloud.com/nodepool-id; labels and taints every one of them has\n    - name: np-doc\n"),
        "{profile}"
    );
}
