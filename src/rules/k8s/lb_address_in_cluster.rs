//! K8S001 lb-address-in-cluster: a pod calls its own cluster's load-balancer address.

use crate::diagnostic::{Diagnostic, Location, ObjectRef, Severity};
use crate::model::{Caller, EntryKind, EntryPoint, Via};
use crate::objects::Object;
use crate::rules::family::proxy_protocol::members;
use crate::rules::rename;
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::K8S001 as META;

pub struct LbAddressInCluster;

impl Rule for LbAddressInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // The same object defined in several files (a base and its overlays) is one entry
        // point to the caller: report each call once, against the copy nearest the caller.
        let mut seen = std::collections::HashMap::new();
        // A host an in-cluster ingress controller serves reaches its load balancer: report
        // the call against that Service, not the Ingress too.
        let via_controller: std::collections::HashSet<_> = cx
            .model
            .callers
            .iter()
            .filter(|c| served_by_controller(cx, c))
            .chain(cx.model.ambiguous.iter().map(|a| &a.caller))
            .map(|c| (c.workload, c.location.clone(), c.address.clone()))
            .collect();
        for caller in &cx.model.callers {
            let entry = &cx.model.entry_points[caller.target];
            // A load balancer created outside Kubernetes has its own rule (K8S014).
            if entry.kind == EntryKind::External {
                continue;
            }
            if entry.kind == EntryKind::Ingress
                && via_controller.contains(&(
                    caller.workload,
                    caller.location.clone(),
                    caller.address.clone(),
                ))
            {
                continue;
            }
            let target = &cx.ws.objects[entry.object];
            let key = (
                caller.workload,
                caller.location.clone(),
                caller.address.clone(),
                target.id.clone(),
            );
            let same_file = target.file == cx.ws.objects[caller.workload].file;
            match seen.get(&key) {
                Some(&(index, false)) if same_file => {
                    out[index] = diagnostic(cx, caller);
                    seen.insert(key, (index, true));
                }
                Some(_) => {}
                None => {
                    seen.insert(key, (out.len(), same_file));
                    out.push(diagnostic(cx, caller));
                }
            }
        }
        // A host several controllers' load balancers serve: once, charged to none.
        for ambiguous in &cx.model.ambiguous {
            out.push(super::ambiguous_host::diagnostic(cx, ambiguous));
        }
    }
}

use crate::model::AddressSource;
use crate::model::Evidence;

/// What happens to such a call, without claiming more than the provider rules know: upstream
/// kube-proxy (iptables, IPVS) answers a load-balancer IP on the node unless the Service
/// reports `ipMode: Proxy`; hostnames, Proxy mode and TKE's IPVS mode send it out.
const PATH: &str = "Depending on the provider and kube-proxy mode, kube-proxy answers it on the node or it \
                    goes out through the load balancer and back, and the provider rules say which can break";

/// The caller reaches a Service's load balancer through a host of an Ingress that the
/// in-cluster controller behind it serves.
fn served_by_controller(cx: &Context<'_>, caller: &Caller) -> bool {
    let entry = &cx.model.entry_points[caller.target];
    entry.kind == EntryKind::Service
        && entry
            .addresses
            .iter()
            .any(|a| a.source == AddressSource::ControllerIngressHost && a.matches(&caller.address))
}

fn diagnostic(cx: &Context<'_>, caller: &Caller) -> Diagnostic {
    let ws = cx.ws;
    let entry = &cx.model.entry_points[caller.target];
    let target = &ws.objects[entry.object];
    let workload = &ws.objects[caller.workload];
    let host = rename::in_cluster_host(cx, caller);
    let location = rename::call_location(caller);
    // The lead names the call (issue 29 item 3); what becomes of it closes the help.
    let mut help = format!("{}. {PATH}.", help(entry, target, caller, host.as_deref()));
    if let (true, Some(host)) = (rename::tls_call(ws, caller), &host) {
        help = format!("{}; {help}", rename::tls_caveat(host, &caller.address));
    }
    let mut d = META
        .diagnostic(Severity::Note, location.clone(), message(cx, caller))
        .with_help(help);
    d = d.on(workload);
    // Point at where the manifest states the address (else at the object's name).
    let stated = entry
        .addresses
        .iter()
        .find(|a| a.matches(&caller.address))
        .and_then(|a| a.location.clone())
        .or_else(|| Some(ws.location(target, ws.name_node(target).span())));
    if let Some(stated) = stated {
        d = d.with_related(
            stated,
            format!("{} gets this load-balancer address", target.id),
        );
    }
    // A suggestion, never applied by --fix: the provider rules fix the same loopback at
    // the Service (their vendor's documented fix), and applying both changes the app
    // twice. The rename also changes what the app calls (TLS names, source-IP rules).
    if let Some(fix) = rename::rename(cx, caller, &location.file) {
        d = d.with_suggestion(fix);
    }
    if caller.via.is_secret() {
        d = d.with_secret_text();
    }
    d
}

/// Drop each K8S001 note on a call that another rule's finding (among `diagnostics`, of a
/// rule `enabled` in this run) names as a caller of the same object: that finding is the
/// call's verdict and carries the rewrite (`verdict::with_callers`), and one cause gets one
/// finding. A pass after all rules, so no rule depends on which ran first; a finding names a
/// call by listing the caller's value as a related location while being about the target.
pub fn yield_to_verdicts(
    cx: &Context<'_>,
    diagnostics: &mut Vec<Diagnostic>,
    enabled: impl Fn(&str) -> bool,
) {
    use std::collections::HashSet;
    // Each call's (where, target): a set as large as the calls, not as the findings (a
    // stream of many Services has a finding each and few calls).
    fn call_of<'a>(cx: &'a Context<'_>, c: &'a Caller) -> (&'a Location, &'a ObjectRef) {
        let target = &cx.ws.objects[cx.model.entry_points[c.target].object];
        (&c.location, &*target.id)
    }
    let calls: HashSet<(&Location, &ObjectRef)> =
        cx.model.callers.iter().map(|c| call_of(cx, c)).collect();
    if calls.is_empty() {
        return;
    }
    let judged: HashSet<(Location, ObjectRef)> = {
        let named: HashSet<(&Location, &ObjectRef)> = diagnostics
            .iter()
            .filter(|d| d.rule() != META.id && enabled(d.rule()))
            .filter_map(|d| Some((d.object()?, d.related())))
            .flat_map(|(object, related)| related.iter().map(move |r| (&r.location, object)))
            .filter(|named| calls.contains(named))
            .collect();
        if named.is_empty() {
            return;
        }
        cx.model
            .callers
            .iter()
            .filter(|c| named.contains(&call_of(cx, c)))
            .map(|c| {
                (
                    rename::call_location(c),
                    (*cx.ws.objects[c.workload].id).clone(),
                )
            })
            .collect()
    };
    if judged.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        d.rule() != META.id
            || !d
                .object()
                .is_some_and(|o| judged.contains(&(d.location().clone(), o.clone())))
    });
}

/// What the caller does with the address, by the evidence for the call.
fn message(cx: &Context<'_>, caller: &Caller) -> String {
    let ws = cx.ws;
    let entry = &cx.model.entry_points[caller.target];
    let target = &ws.objects[entry.object];
    let workload = &ws.objects[caller.workload];
    match caller.evidence {
        // A name that another object maps to the entry point's address.
        Evidence::Call if caller.alias.is_some() => {
            let alias = &ws.objects[caller.alias.unwrap_or(caller.workload)];
            let how = if alias.kind() == "ServiceEntry" {
                format!("a mesh host that {} sends to its STATIC endpoint,", alias.id)
            } else {
                format!("an ExternalName Service ({}) that aliases", alias.id)
            };
            format!(
                "{} calls {}, {how} the load-balancer address of {} in this cluster ({}).",
                workload.id, caller.address, target.id, caller.via
            )
        }
        Evidence::Call if served_by_controller(cx, caller) => format!(
            "{} calls {}, a host that the ingress controller or gateway pods behind {} serve: the call \
             goes to its load balancer ({}).",
            workload.id, caller.address, target.id, caller.via
        ),
        Evidence::Call => format!(
            "{} calls {}, the load-balancer address of {} in this cluster ({}).",
            workload.id, caller.address, target.id, caller.via
        ),
        Evidence::Mention => format!(
            "{} mentions {}, the load-balancer address of {} in this cluster ({}), in free text: if the pod \
             calls it, the traffic goes through the load balancer.",
            workload.id, caller.address, target.id, caller.via
        ),
        Evidence::Identity => format!(
            "{} names {}, the load-balancer address of {}, as its own public address ({}): browsers use \
             it, the pod does not call it.",
            workload.id, caller.address, target.id, caller.via
        ),
    }
}

/// The way out: the in-cluster name `host` where there is one.
fn help(entry: &EntryPoint, target: &Object, caller: &Caller, host: Option<&str>) -> String {
    match (host, entry.kind) {
        // The node resolves the registry's name with its own DNS: no in-cluster name works.
        _ if caller.via == Via::ImagePull => "the kubelet pulls images from the node with the node's own \
             DNS, so an in-cluster name is no way out: give the nodes a registry address that does not \
             loop back (a containerd registry mirror on the nodes, a registry outside the cluster, or the \
             provider rules' way out for the load balancer)"
            .to_string(),
        // The app's own public address: browsers use it, so it must stay public; nothing to
        // rename (a pod's real call elsewhere gets its own finding).
        _ if caller.evidence == Evidence::Identity => "keep this public address as it is: it is what \
             browsers and users reach the app by, and the pod does not call it. If a container of the \
             pod also calls it, that call gets its own finding"
            .to_string(),
        // A controller calls on the object's behalf: no app setting to change.
        _ if caller.via.is_implied() => "a controller makes this call for the object, so no app setting \
             changes it: the provider rules say whether it breaks and give the vendor's way out (a hostname \
             status or `ipMode: Proxy`, or turning client IP preservation off)"
            .to_string(),
        (Some(host), EntryKind::Service) if entry.provider.is_some_and(members::is_member) => {
            format!(
                "call `{host}` instead: in-cluster traffic then goes straight to a backend pod, with no \
                 load-balancer loopback; on this cloud the load balancer may add PROXY protocol or terminate \
                 TLS, which a direct call skips, so the backend must take the call without them"
            )
        }
        (Some(host), EntryKind::Service) => format!(
            "call `{host}` instead: in-cluster traffic then goes straight to a backend pod, with no \
             load-balancer loopback"
        ),
        (Some(host), _) => format!(
            "call the backend Service `{host}` instead of the Ingress host (mind the Ingress path and TLS \
             settings the direct call skips)"
        ),
        (None, _) => format!(
            "call the Service behind {} by its name instead (`<service>` from its own namespace, \
             `<service>.<namespace>` from others)",
            target.id
        ),
    }
}
