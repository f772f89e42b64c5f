//! Names that lead to a load balancer, or away from one, through another object: an
//! ExternalName Service or an Istio ServiceEntry that aliases a load-balancer address, a
//! pod's hostAliases and the CoreDNS rewrites that send a host elsewhere (README, "The
//! cluster model"). The caller search (`callers`) asks these before it judges a host.

use std::collections::{HashMap, HashSet};

use crate::objects::{ObjectId, Workspace};
use crate::views::PodTemplate;
use crate::yaml::NodeRef;

use super::address::normalize;
use super::consumed::Store;
use super::EntryId;

/// Hosts the kube-system/coredns Corefile rewrites (`rewrite name [exact] <host> <name>`, the
/// fix Tencent's older loopback guide recommends): CoreDNS answers them with an in-cluster
/// name, so no pod's call of them reaches the load balancer.
pub(super) fn coredns_rewrites(
    ws: &Workspace,
    stores: &HashMap<(Store, &str, &str), Vec<ObjectId>>,
) -> HashSet<String> {
    let key = (Store::ConfigMap, "kube-system", "coredns");
    let Some(&coredns) = stores.get(&key).and_then(|all| all.last()) else {
        return Default::default();
    };
    let corefile = ws
        .root(&ws.objects[coredns])
        .path(&["data", "Corefile"])
        .and_then(|c| c.as_str())
        .unwrap_or("");
    corefile
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            if (words.next(), words.next()) != (Some("rewrite"), Some("name")) {
                return None;
            }
            let host = match words.next()? {
                "exact" => words.next()?,
                "regex" | "prefix" | "suffix" | "substring" => return None,
                host => host,
            };
            Some(normalize(host))
        })
        .collect()
}

/// Hosts a pod's hostAliases map to an address that is no load balancer's.
pub(super) fn aliased_elsewhere(
    template: &PodTemplate<'_>,
    lb_addresses: &HashMap<&str, Vec<EntryId>>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    for alias in template
        .spec
        .get("hostAliases")
        .into_iter()
        .flat_map(NodeRef::items)
    {
        let ip = alias.get("ip").and_then(|ip| ip.as_str()).map(normalize);
        if ip.is_some_and(|ip| lb_addresses.contains_key(ip.as_str())) {
            continue;
        }
        let names = alias.get("hostnames").into_iter().flat_map(NodeRef::items);
        out.extend(names.filter_map(|n| n.as_str()).map(normalize));
    }
    out
}

/// Entry points a load-balancer address (or a host under a wildcard one) belongs to.
pub(super) fn targets_of(
    address: &str,
    exact: &HashMap<&str, Vec<EntryId>>,
    wildcard: &HashMap<&str, Vec<EntryId>>,
) -> Vec<EntryId> {
    let mut targets = exact.get(address).cloned().unwrap_or_default();
    if let Some((_, parent)) = address.split_once('.') {
        targets.extend(wildcard.get(parent).into_iter().flatten());
    }
    targets
}

pub(super) type MeshHosts = HashMap<String, (ObjectId, Vec<EntryId>)>;

/// Names that lead to a load balancer through another object:
/// ExternalName Services whose externalName is a load-balancer address, by Service, and the
/// hosts of Istio ServiceEntries with `resolution: STATIC` whose endpoint is one, by host (the
/// sidecar sends a call of such a host to that endpoint).
pub(super) fn alias_maps(
    ws: &Workspace,
    exact: &HashMap<&str, Vec<EntryId>>,
    wildcard: &HashMap<&str, Vec<EntryId>>,
) -> (HashMap<ObjectId, Vec<EntryId>>, MeshHosts) {
    let mut aliases = HashMap::new();
    let mut mesh_hosts = MeshHosts::new();
    for (index, object) in ws.ids() {
        let Some(spec) = ws.spec(object) else {
            continue;
        };
        let text = |key: &str| spec.get(key).and_then(|v| v.as_str());
        if object.group().is_empty() && object.kind() == "Service" {
            if text("type") != Some("ExternalName") {
                continue;
            }
            let Some(external) = text("externalName").map(normalize) else {
                continue;
            };
            let targets = targets_of(&external, exact, wildcard);
            if !targets.is_empty() {
                aliases.insert(index, targets);
            }
        } else if object.group() == "networking.istio.io"
            && object.kind() == "ServiceEntry"
            && text("resolution") == Some("STATIC")
        {
            let mut targets: Vec<EntryId> = spec
                .get("endpoints")
                .into_iter()
                .flat_map(NodeRef::items)
                .filter_map(|e| e.get("address")?.as_str())
                .flat_map(|a| targets_of(&normalize(a), exact, wildcard))
                .collect();
            targets.sort_unstable();
            targets.dedup();
            if targets.is_empty() {
                continue;
            }
            for host in spec.get("hosts").into_iter().flat_map(NodeRef::items) {
                if let Some(host) = host.as_str().filter(|h| !h.contains('*')) {
                    mesh_hosts.insert(normalize(host), (index, targets.clone()));
                }
            }
        }
    }
    (aliases, mesh_hosts)
}
