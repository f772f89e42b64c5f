//! Names that lead to a load balancer, or away from one, through another object: an
//! ExternalName Service or an Istio ServiceEntry that aliases a load-balancer address, a
//! pod's hostAliases that send a host elsewhere (README, "The cluster model"; CoreDNS
//! rewrites are in `dns`). The caller search (`callers`) asks these before it judges a host.

use std::collections::{HashMap, HashSet};

use crate::objects::ObjectId;
use crate::views::{PodTemplate, Views};

use super::address::normalize;
use super::EntryId;

/// Hosts a pod's hostAliases map to an address that is no load balancer's.
pub(super) fn aliased_elsewhere(
    template: &PodTemplate<'_>,
    lb_addresses: &HashMap<&str, Vec<EntryId>>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    for (ip, hostnames) in template.host_aliases() {
        if ip.is_some_and(|ip| lb_addresses.contains_key(normalize(ip).as_str())) {
            continue;
        }
        out.extend(hostnames.into_iter().map(normalize));
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
    views: &Views<'_>,
    exact: &HashMap<&str, Vec<EntryId>>,
    wildcard: &HashMap<&str, Vec<EntryId>>,
) -> (HashMap<ObjectId, Vec<EntryId>>, MeshHosts) {
    let mut aliases = HashMap::new();
    for (index, service) in views.services() {
        let Some(external) = service.alias().map(normalize) else {
            continue;
        };
        let targets = targets_of(&external, exact, wildcard);
        if !targets.is_empty() {
            aliases.insert(index, targets);
        }
    }
    let mut mesh_hosts = MeshHosts::new();
    for (index, entry) in views.service_entries() {
        if entry.resolution != Some("STATIC") {
            continue;
        }
        let mut targets: Vec<EntryId> = entry
            .endpoint_addresses
            .iter()
            .flat_map(|a| targets_of(&normalize(a), exact, wildcard))
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() {
            continue;
        }
        for host in entry.hosts.iter().filter(|h| !h.contains('*')) {
            mesh_hosts.insert(normalize(host), (index, targets.clone()));
        }
    }
    (aliases, mesh_hosts)
}
