//! Facts from the nodes: the provider (`spec.providerID`, confirmed by the provider's node
//! labels), the lowest kubelet version, and the node pools (the provider's pool label, else
//! instance type and taints). Per-node data (names, IPs, ids) is never copied.

use std::collections::BTreeMap;

use super::dump::Obj;
use super::Found;
use crate::profile::version::parse_version;
use crate::profile::Provider;

/// providerID prefixes, from each cloud controller's code (rules of the README's profile
/// import section); `k3s://` and `kind://` are local distributions: generic.
const PROVIDER_IDS: &[(&str, Provider)] = &[
    ("aws://", Provider::Eks),
    ("eks-hybrid://", Provider::Eks),
    ("azure://", Provider::Aks),
    ("gce://", Provider::Gke),
    ("alicloud://", Provider::Ack),
    ("qcloud://", Provider::Tke),
    ("volcengine://", Provider::Vke),
    ("digitalocean://", Provider::Doks),
    ("linode://", Provider::Lke),
    ("hcloud://", Provider::Hetzner),
    ("hrobot://", Provider::Hetzner),
    ("openstack://", Provider::Openstack),
    ("oci://", Provider::Oke),
    ("ocid1.", Provider::Oke),
    ("scaleway://", Provider::Scaleway),
    ("cloudscale://", Provider::Cloudscale),
    ("k3s://", Provider::Generic),
    ("kind://", Provider::Generic),
];

/// A provider's node label prefix (confirms the providerID) and pool label.
const LABELS: &[(Provider, &str, Option<&str>)] = &[
    (
        Provider::Eks,
        "eks.amazonaws.com/",
        Some("eks.amazonaws.com/nodegroup"),
    ),
    (
        Provider::Gke,
        "cloud.google.com/",
        Some("cloud.google.com/gke-nodepool"),
    ),
    (
        Provider::Aks,
        "kubernetes.azure.com/",
        Some("kubernetes.azure.com/agentpool"),
    ),
    (
        Provider::Doks,
        "doks.digitalocean.com/",
        Some("doks.digitalocean.com/node-pool"),
    ),
    (
        Provider::Lke,
        "lke.linode.com/",
        Some("lke.linode.com/pool-id"),
    ),
    (
        Provider::Scaleway,
        "k8s.scaleway.com/",
        Some("k8s.scaleway.com/pool-name"),
    ),
    (
        Provider::Ack,
        "node.alibabacloud.com/",
        // Set by the CCM's node controller (pkg/controller/node/manager.go).
        Some("node.alibabacloud.com/nodepool-id"),
    ),
    (Provider::Hetzner, "instance.hetzner.cloud/", None),
    (Provider::Oke, "oci.oraclecloud.com/", None),
    (Provider::Tke, "cloud.tencent.com/", None),
];

/// Labels that differ per node even within a pool.
const PER_NODE: &[&str] = &[
    "kubernetes.io/hostname",
    "doks.digitalocean.com/node-id",
    "node.k8s.linode.com/host-uuid",
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.k8s.aws/zone-id",
    "oci.oraclecloud.com/fault-domain",
];

/// The provider the nodes' providerIDs name; several is a conflict.
pub fn provider(nodes: &[Obj<'_>], found: &mut Found) -> Option<Provider> {
    // Per provider: how many nodes, and the providerID form (node names are not copied).
    let mut seen: BTreeMap<&'static str, (Provider, String, usize)> = BTreeMap::new();
    for node in nodes {
        let Some(id) = node.text(&["spec", "providerID"]) else {
            continue;
        };
        // Only the form is named as evidence: the ids themselves are per-node data.
        let found = PROVIDER_IDS
            .iter()
            .find(|(prefix, _)| id.starts_with(prefix))
            .map(|&(prefix, p)| (p, format!("{prefix}…")))
            .or_else(|| alibaba_bare(id).then(|| (Provider::Ack, "<region>.i-…".to_string())));
        if let Some((p, form)) = found {
            seen.entry(p.as_str()).or_insert((p, form, 0)).2 += 1;
        }
    }
    match seen.len() {
        0 => {
            found.unknown(
                "spec.provider",
                "no node has a spec.providerID lblint knows (add `kubectl get nodes -o yaml`)",
            );
            None
        }
        1 => {
            let (provider, form, count) = seen.into_values().next()?;
            let why = format!("the providerID {form} of {count} node(s)");
            let confirmed =
                LABELS
                    .iter()
                    .find(|(p, _, _)| *p == provider)
                    .is_some_and(|(_, prefix, _)| {
                        nodes
                            .iter()
                            .any(|n| labels(n).keys().any(|k| k.starts_with(prefix)))
                    });
            let why = if confirmed {
                format!("{why}, and the provider's node labels")
            } else {
                why
            };
            found.set("spec.provider", provider.as_str(), why);
            Some(provider)
        }
        _ => {
            let names: Vec<String> = seen
                .values()
                .map(|(p, form, count)| {
                    format!("{} ({count} node(s) with providerID {form})", p.as_str())
                })
                .collect();
            found.conflict("spec.provider", &names.join(" and "));
            None
        }
    }
}

/// Alibaba's providerID without a scheme: `<region>.<instance-id>` (`cn-hangzhou.i-bp1…`).
fn alibaba_bare(id: &str) -> bool {
    id.split_once('.').is_some_and(|(region, instance)| {
        region.matches('-').count() >= 1
            && region
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && instance.starts_with("i-")
    })
}

/// The lowest kubelet version of the nodes, as written (node names are per-node data: the
/// evidence counts the nodes instead).
pub fn lowest_kubelet(nodes: &[Obj<'_>]) -> Option<(String, String)> {
    let versions: Vec<_> = nodes
        .iter()
        .filter_map(|n| n.text(&["status", "nodeInfo", "kubeletVersion"]))
        .filter_map(|v| Some((parse_version(v)?, v)))
        .collect();
    let (_, lowest) = versions.iter().min_by(|a, b| a.0.cmp(&b.0))?;
    Some((
        lowest.to_string(),
        format!(
            "the lowest status.nodeInfo.kubeletVersion of {} node(s)",
            versions.len()
        ),
    ))
}

pub fn labels<'d>(node: &Obj<'d>) -> BTreeMap<&'d str, &'d str> {
    node.get(&["metadata", "labels"])
        .into_iter()
        .flat_map(|m| m.entries())
        .filter_map(|(k, v)| Some((k.as_str()?, v.as_str()?)))
        .collect()
}

fn taints(node: &Obj<'_>) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = node
        .get(&["spec", "taints"])
        .into_iter()
        .flat_map(|t| t.items())
        .map(|t| {
            let text = |k: &str| t.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            (text("key"), text("value"), text("effect"))
        })
        .collect();
    out.sort();
    out
}

/// One node pool of the profile.
pub struct Pool {
    pub name: String,
    pub super_nodes: bool,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<(String, String, String)>,
    pub nodes: usize,
    pub by: String,
}

/// Node pools: by the provider's pool label, else by instance type and taints; with the
/// labels every node of the pool has.
pub fn pools(nodes: &[Obj<'_>], provider: Option<Provider>) -> Vec<Pool> {
    let pool_label = provider
        .and_then(|p| LABELS.iter().find(|(q, _, _)| *q == p))
        .and_then(|(_, _, l)| *l);
    let mut groups: BTreeMap<String, (String, Vec<&Obj<'_>>)> = BTreeMap::new();
    for node in nodes {
        let labels = labels(node);
        let (key, by) = match pool_label.and_then(|l| Some((l, *labels.get(l)?))) {
            Some((label, value)) => (value.to_string(), format!("label {label}")),
            None => {
                let kind = labels
                    .get("node.kubernetes.io/instance-type")
                    .copied()
                    .unwrap_or("unknown-type");
                let tainted = if taints(node).is_empty() {
                    ""
                } else {
                    "-tainted"
                };
                (
                    format!("{kind}{tainted}"),
                    "instance type and taints".to_string(),
                )
            }
        };
        groups
            .entry(key)
            .or_insert_with(|| (by, Vec::new()))
            .1
            .push(node);
    }
    groups
        .into_iter()
        .map(|(name, (by, members))| {
            let mut common: BTreeMap<String, String> = labels(members[0])
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            for node in &members[1..] {
                let theirs = labels(node);
                common.retain(|k, v| theirs.get(k.as_str()) == Some(&v.as_str()));
            }
            common.retain(|k, _| {
                !PER_NODE.contains(&k.as_str())
                    && !k.contains("node-id")
                    && !k.contains("instance-id")
            });
            let mut shared = taints(members[0]);
            for node in &members[1..] {
                let theirs = taints(node);
                shared.retain(|t| theirs.contains(t));
            }
            Pool {
                super_nodes: common
                    .get("node.kubernetes.io/instance-type")
                    .map(String::as_str)
                    == Some("eklet"),
                name,
                labels: common,
                taints: shared,
                nodes: members.len(),
                by,
            }
        })
        .collect()
}
