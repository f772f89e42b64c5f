//! Facts from the nodes: the provider (`spec.providerID`, confirmed by the provider's node
//! labels), the lowest kubelet version, and the node pools (the provider's pool label, else
//! instance type and taints). Nodes are folded into [`Nodes`] one at a time as they are read
//! and not kept: a dump of any number of nodes costs the size of its pools. Per-node data
//! (names, IPs, ids) is never copied.

use std::collections::{BTreeMap, BTreeSet};

use super::value::Val;
use super::Found;
use crate::profile::tke::{INSTANCE_TYPE_LABEL, NATIVE_MACHINESET, SUPER_NODE_INSTANCE_TYPE};
use crate::profile::version::{parse_version, Version};
use crate::profile::{Provider, CLOUDS};

/// Each provider's node label domain and pool labels ([`crate::profile::Cloud::node_labels`]).
fn node_labels() -> impl Iterator<Item = (Provider, (&'static str, &'static [&'static str]))> {
    CLOUDS
        .iter()
        .filter_map(|c| Some((c.provider, c.node_labels?)))
}

/// Whether a label key is in the provider's domain or a subdomain of it.
fn in_domain(key: &str, domain: &str) -> bool {
    key.split_once('/').is_some_and(|(d, _)| {
        d == domain || d.strip_suffix(domain).is_some_and(|p| p.ends_with('.'))
    })
}

/// Labels that differ per node even within a pool.
const PER_NODE: &[&str] = &[
    "kubernetes.io/hostname",
    "doks.digitalocean.com/node-id",
    "node.k8s.linode.com/host-uuid",
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.k8s.aws/zone-id",
    "oci.oraclecloud.com/fault-domain",
    "node.tke.cloud.tencent.com/machine",
];

/// What the nodes say, folded one node at a time.
#[derive(Clone, Default)]
pub(crate) struct Nodes {
    /// Per provider: how many nodes, and the providerID form (node names are not copied).
    providers: BTreeMap<&'static str, (Provider, String, usize)>,
    /// Providers whose node labels some node carries.
    labelled: BTreeSet<&'static str>,
    /// The lowest kubelet version, and how many nodes state one.
    lowest: Option<(Version, String)>,
    kubelets: usize,
    /// How many nodes the dumps hold.
    count: usize,
    k3s: bool,
    /// Nodes by (pool label, its value), for every provider's pool label a node carries.
    by_label: BTreeMap<(&'static str, String), Group>,
    /// Nodes by (instance type and taints, the pool labels they carry).
    by_type: BTreeMap<(String, Vec<&'static str>), Group>,
}

/// The labels and taints every node of a group has, and how many nodes it holds.
#[derive(Clone)]
struct Group {
    labels: BTreeMap<String, String>,
    taints: Vec<(String, String, String)>,
    nodes: usize,
    /// The TKE node kinds of its nodes (one kind: the pool's `type`).
    kinds: BTreeSet<TkeKind>,
}

impl Group {
    /// Add a node to `group`, or start one with it (returned).
    fn add(
        group: Option<&mut Group>,
        labels: &BTreeMap<String, String>,
        taints: &[Taint],
        kind: TkeKind,
    ) -> Option<Group> {
        match group {
            Some(group) => {
                group.labels.retain(|k, v| labels.get(k) == Some(v));
                group.taints.retain(|t| taints.contains(t));
                group.nodes += 1;
                group.kinds.insert(kind);
                None
            }
            None => Some(Group {
                labels: labels.clone(),
                taints: taints.to_vec(),
                nodes: 1,
                kinds: BTreeSet::from([kind]),
            }),
        }
    }

    fn merge(&mut self, other: &Group) {
        self.labels.retain(|k, v| other.labels.get(k) == Some(v));
        self.taints.retain(|t| other.taints.contains(t));
        self.nodes += other.nodes;
        self.kinds.extend(&other.kinds);
    }
}

type Taint = (String, String, String);

impl Nodes {
    /// Fold one Node (its kept fields) in.
    pub(crate) fn add(&mut self, node: &Val) {
        self.count += 1;
        let labels = labels(node);
        if let Some(id) = node.path(&["spec", "providerID"]).and_then(Val::as_str) {
            self.k3s |= id.starts_with("k3s://");
            // Only the form is named as evidence: the ids themselves are per-node data.
            let found = CLOUDS
                .iter()
                .find_map(|c| {
                    Some((
                        c.provider,
                        c.provider_ids.iter().find(|p| id.starts_with(*p))?,
                    ))
                })
                .map(|(p, prefix)| (p, format!("{prefix}…")))
                .or_else(|| alibaba_bare(id).then(|| (Provider::Ack, "<region>.i-…".to_string())));
            if let Some((p, form)) = found {
                self.providers.entry(p.as_str()).or_insert((p, form, 0)).2 += 1;
            }
        }
        for (p, (domain, _)) in node_labels() {
            if labels.keys().any(|k| in_domain(k, domain)) {
                self.labelled.insert(p.as_str());
            }
        }
        let kubelet = node
            .path(&["status", "nodeInfo", "kubeletVersion"])
            .and_then(Val::as_str);
        if let Some((version, text)) = kubelet.and_then(|v| Some((parse_version(v)?, v))) {
            self.kubelets += 1;
            if self.lowest.as_ref().is_none_or(|(low, _)| version < *low) {
                self.lowest = Some((version, text.to_string()));
            }
        }
        let taints = taints(node);
        let kind = tke_kind(node, &labels);
        let mut carried = Vec::new();
        for (_, (_, pool_labels)) in node_labels() {
            // The first of a provider's pool labels that the node carries names its pool.
            let Some((label, value)) = pool_labels.iter().find_map(|l| Some((*l, labels.get(*l)?)))
            else {
                continue;
            };
            carried.push(label);
            let key = (label, value.clone());
            if let Some(new) = Group::add(self.by_label.get_mut(&key), &labels, &taints, kind) {
                self.by_label.insert(key, new);
            }
        }
        let instance_type = labels
            .get(INSTANCE_TYPE_LABEL)
            .map_or("unknown-type", String::as_str);
        let tainted = if taints.is_empty() { "" } else { "-tainted" };
        let key = (format!("{instance_type}{tainted}"), carried);
        if let Some(new) = Group::add(self.by_type.get_mut(&key), &labels, &taints, kind) {
            self.by_type.insert(key, new);
        }
    }

    /// How many nodes the dumps hold.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Whether the nodes are k3s's (whose kube-proxy runs inside the k3s process).
    pub(crate) fn k3s(&self) -> bool {
        self.k3s
    }
}

/// The provider the nodes' providerIDs name; several is a conflict.
pub(crate) fn provider(nodes: &Nodes, found: &mut Found) -> Option<Provider> {
    match nodes.providers.len() {
        // Every cloud's controller (or kubelet) sets a providerID: nodes without one run on
        // no cloud lblint models.
        0 if nodes.count > 0 && nodes.labelled.is_empty() => {
            let why = format!(
                "{} node(s), none with a spec.providerID (no cloud controller initialised them)",
                nodes.count
            );
            found.set("spec.provider", Provider::Generic.as_str(), why);
            Some(Provider::Generic)
        }
        0 => {
            found.unknown(
                "spec.provider",
                "no node has a spec.providerID lblint knows (add `kubectl get nodes -o yaml`)",
            );
            None
        }
        1 => {
            let (provider, form, count) = nodes.providers.values().next()?.clone();
            let why = format!("the providerID {form} of {count} node(s)");
            let why = if nodes.labelled.contains(provider.as_str()) {
                format!("{why}, and the provider's node labels")
            } else {
                why
            };
            found.set("spec.provider", provider.as_str(), why);
            Some(provider)
        }
        _ => {
            let names: Vec<String> = nodes
                .providers
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
pub(crate) fn lowest_kubelet(nodes: &Nodes) -> Option<(String, String)> {
    let (_, lowest) = nodes.lowest.as_ref()?;
    Some((
        lowest.clone(),
        format!(
            "the lowest status.nodeInfo.kubeletVersion of {} node(s)",
            nodes.kubelets
        ),
    ))
}

fn labels(node: &Val) -> BTreeMap<String, String> {
    node.path(&["metadata", "labels"])
        .into_iter()
        .flat_map(Val::entries)
        .filter_map(|(k, v)| Some((k.to_string(), v.as_str()?.to_string())))
        .collect()
}

fn taints(node: &Val) -> Vec<Taint> {
    let mut out: Vec<Taint> = node
        .path(&["spec", "taints"])
        .into_iter()
        .flat_map(Val::items)
        .map(|t| {
            let text = |k: &str| t.get(k).and_then(Val::as_str).unwrap_or("").to_string();
            (text("key"), text("value"), text("effect"))
        })
        .collect();
    out.sort();
    out
}

/// What a TKE node is, as far as the Node shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TkeKind {
    /// `node.kubernetes.io/instance-type: eklet`: a super node (TKE, "Scheduling a Pod to a
    /// super node": https://www.tencentcloud.com/document/product/457/45561).
    Super,
    /// The native-node MachineSet label.
    Native,
    /// A CVM instance (`qcloud:///<zone>/ins-…`, the form of the cluster autoscaler's
    /// tencentcloud provider) without the native-node label.
    Cvm,
    /// None of these (no providerID, an external or IDC node).
    Unknown,
}

fn tke_kind(node: &Val, labels: &BTreeMap<String, String>) -> TkeKind {
    let provider_id = node.path(&["spec", "providerID"]).and_then(Val::as_str);
    if labels.get(INSTANCE_TYPE_LABEL).map(String::as_str) == Some(SUPER_NODE_INSTANCE_TYPE) {
        TkeKind::Super
    } else if labels.contains_key(NATIVE_MACHINESET) {
        TkeKind::Native
    } else if provider_id.is_some_and(|id| id.starts_with("qcloud:///") && id.contains("/ins-")) {
        TkeKind::Cvm
    } else {
        TkeKind::Unknown
    }
}

/// A pool's `type` and the evidence for it, or why the nodes do not settle it (TKE only:
/// no other provider's rules read the type).
fn tke_type(kinds: &BTreeSet<TkeKind>) -> Result<(&'static str, &'static str), String> {
    let mut one = kinds.iter();
    match (one.next(), one.next()) {
        (Some(TkeKind::Super), None) => Ok((
            "super",
            "node.kubernetes.io/instance-type: eklet on every node (super nodes)",
        )),
        (Some(TkeKind::Native), None) => Ok((
            "native",
            "label node.tke.cloud.tencent.com/machineset on every node (the native pool's \
             MachineSet; seen on native nodes in public dumps, TKE's documentation does not list it)",
        )),
        (Some(TkeKind::Cvm), None) => Ok((
            "regular",
            "every node a CVM instance (providerID qcloud:///…/ins-…) without the native-node label; \
             regular and native nodes loop back alike",
        )),
        (Some(TkeKind::Unknown), None) | (None, _) => Err(
            "its nodes have no CVM providerID, no super-node instance type and no native-node label"
                .to_string(),
        ),
        (Some(_), Some(_)) => {
            let names: Vec<&str> = kinds
                .iter()
                .map(|k| match k {
                    TkeKind::Super => "super",
                    TkeKind::Native => "native",
                    TkeKind::Cvm => "regular (CVM)",
                    TkeKind::Unknown => "unknown",
                })
                .collect();
            Err(format!("its nodes are of several kinds: {}", names.join(", ")))
        }
    }
}

/// One node pool of the profile.
pub(crate) struct Pool {
    pub name: String,
    /// TKE: the pool's `type` and its evidence, or why the nodes do not settle it.
    pub node_type: Option<Result<(&'static str, &'static str), String>>,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub nodes: usize,
    pub by: String,
}

/// Node pools: by the provider's pool label, else by instance type and taints; with the
/// labels every node of the pool has.
pub(crate) fn pools(nodes: &Nodes, provider: Option<Provider>) -> Vec<Pool> {
    let pool_labels: &[&str] = provider
        .and_then(|p| p.cloud().node_labels)
        .map_or(&[], |(_, l)| l);
    let mut groups: BTreeMap<String, (String, Group)> = BTreeMap::new();
    let mut put = |name: &str, by: String, group: &Group| match groups.get_mut(name) {
        Some((_, seen)) => seen.merge(group),
        None => {
            groups.insert(name.to_string(), (by, group.clone()));
        }
    };
    for ((label, value), group) in &nodes.by_label {
        if pool_labels.contains(label) {
            put(value, format!("label {label}"), group);
        }
    }
    // Nodes without the provider's pool label go by instance type and taints.
    for ((key, carried), group) in &nodes.by_type {
        if !pool_labels.iter().any(|l| carried.contains(l)) {
            put(key, "instance type and taints".to_string(), group);
        }
    }
    groups
        .into_iter()
        .map(|(name, (by, mut group))| {
            group.labels.retain(|k, _| {
                !PER_NODE.contains(&k.as_str())
                    && !k.contains("node-id")
                    && !k.contains("instance-id")
            });
            Pool {
                node_type: (provider == Some(Provider::Tke)).then(|| tke_type(&group.kinds)),
                name,
                labels: group.labels,
                taints: group.taints,
                nodes: group.nodes,
                by,
            }
        })
        .collect()
}
