//! A call whose host several load balancers serve equally: an Ingress of a class that two
//! in-cluster controllers both take (two ingress-nginx installs serving class `nginx`), each
//! behind its own LoadBalancer Service. Which one the call reaches depends on which
//! controller the cluster runs for the class, a fact the profile states in
//! `spec.ingressControllers`; until it does, the call is charged to none of them and reported
//! once, with its candidates (K8S001).

use std::collections::HashMap;

use crate::objects::{ObjectId, Workspace};
use crate::profile::Profile;
use crate::source::Location;

use super::address::AddressSource;
use super::calls::Caller;
use super::entry::EntryKind;
use super::{EntryId, EntryPoint};

/// One call and the load balancers it may reach.
#[derive(Clone, Debug)]
pub struct Ambiguous {
    /// The call (its `target` is the first candidate).
    pub caller: Caller,
    /// The Services in front of the controllers that serve its host, in entry order.
    pub candidates: Vec<EntryId>,
}

/// `callers` without the calls that several controller-served load balancers share, and
/// those calls once each. A candidate the profile names in `spec.ingressControllers` settles
/// it: the call is that Service's alone.
pub fn split(
    ws: &Workspace,
    entry_points: &[EntryPoint],
    profile: &Profile,
    callers: Vec<Caller>,
) -> (Vec<Caller>, Vec<Ambiguous>) {
    // The calls of one value to one host, by the Services whose controllers serve it.
    let mut groups: HashMap<(ObjectId, &Location, &str), Vec<usize>> = HashMap::new();
    for (i, caller) in callers.iter().enumerate() {
        if controller_served(&entry_points[caller.target.0], &caller.address) {
            groups
                .entry((caller.workload, &caller.location, caller.address.as_str()))
                .or_default()
                .push(i);
        }
    }
    let named = |target: EntryId| {
        let object = &ws.objects[entry_points[target.0].object];
        profile
            .spec
            .ingress_controllers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|link| object.is(&link.service))
    };
    let mut drop = vec![false; callers.len()];
    let mut found = Vec::new();
    for members in groups.values() {
        let mut candidates: Vec<EntryId> = members.iter().map(|&i| callers[i].target).collect();
        candidates.sort();
        candidates.dedup();
        // Copies of one Service (a base and its overlays, in several files) are one load
        // balancer: K8S001 and the provider rules treat them as one already.
        let id = |t: &EntryId| &ws.objects[entry_points[t.0].object].id;
        let mut distinct: Vec<_> = candidates.iter().map(id).collect();
        distinct.sort();
        distinct.dedup();
        if distinct.len() < 2 {
            continue;
        }
        // Named once each: the first copy of every Service.
        let mut shown = Vec::new();
        candidates.retain(|t| {
            let fresh = !shown.contains(&id(t));
            if fresh {
                shown.push(id(t));
            }
            fresh
        });
        let stated: Vec<EntryId> = candidates.iter().copied().filter(|&t| named(t)).collect();
        for &i in members {
            // Stated: the call is the named Services'; else it is no one's until stated.
            drop[i] = stated.is_empty() || !stated.contains(&callers[i].target);
        }
        if stated.is_empty() {
            let first = members.iter().copied().min().unwrap_or(members[0]);
            found.push((
                first,
                Ambiguous {
                    caller: callers[first].clone(),
                    candidates,
                },
            ));
        }
    }
    found.sort_by_key(|(first, _)| *first);
    let kept = callers
        .into_iter()
        .zip(drop)
        .filter_map(|(c, dropped)| (!dropped).then_some(c))
        .collect();
    (kept, found.into_iter().map(|(_, a)| a).collect())
}

/// Does `host` reach this Service only as a host its in-cluster controller serves?
fn controller_served(entry: &EntryPoint, host: &str) -> bool {
    entry.kind == EntryKind::Service && {
        let mut matching = entry
            .addresses
            .iter()
            .filter(|a| a.matches(host))
            .peekable();
        matching.peek().is_some()
            && matching.all(|a| a.source == AddressSource::ControllerIngressHost)
    }
}
