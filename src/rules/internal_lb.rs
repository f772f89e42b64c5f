//! Family 1 advisories (rules/AKS001.md, rules/GKE001.md): an internal load balancer
//! that the vendor documents as unable to serve a backend's own call (Azure), or that
//! routes it back to the calling VM (GCP). kube-proxy answers such calls on the node in its
//! default paths, so they never meet that limitation: a note. Only where kube-proxy does not
//! serve the call on the node (IPVS hostNetwork callers and nftables before v1.34.0 /
//! v1.33.6, with `externalTrafficPolicy: Local`; rules/K8S013.md) is it a warning: no
//! vendor documents a failure on these clusters, so never an error.

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{Caller, EntryId, EntryPoint, Fit};
use crate::rules::ack::local_policy_in_cluster::unserved_by_kube_proxy;
use crate::rules::{calls_first, Context, RuleMeta};
use crate::yaml::NodeRef;

/// One internal load balancer, worded by its provider's module.
pub struct Advisory<'w> {
    /// The key or field that makes the load balancer internal (the finding points at it).
    pub at: NodeRef<'w>,
    /// Only node (hostNetwork) callers matter (GKE: the route is the VM's own).
    pub node_callers_only: bool,
    /// "Service `web` has an Azure internal load balancer (...)".
    pub subject: String,
    /// The vendor's limitation, with its quote.
    pub vendor: String,
    /// Why the call is fine in kube-proxy's default paths, and what stays unconfirmed.
    pub short_circuited: String,
    /// What becomes of a call kube-proxy does not serve on the node.
    pub unserved: String,
    /// The ways out.
    pub help: String,
}

/// Report `advisory` on the Service of `entry` when an in-cluster caller calls its address:
/// a note, or a warning when a caller is on a path kube-proxy does not serve on the node.
pub fn advise(
    cx: &Context<'_>,
    meta: &'static RuleMeta,
    index: EntryId,
    entry: &EntryPoint,
    advisory: Advisory<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let service = &ws.objects[entry.object];
    let callers: Vec<&Caller> = calls_first(cx.model.callers_of(index))
        .into_iter()
        .filter(|c| !advisory.node_callers_only || c.from_node)
        .collect();
    let Some(first) = callers.first() else {
        return;
    };
    let unserved: Vec<_> = callers
        .iter()
        .filter_map(|c| unserved_by_kube_proxy(cx, entry, c).map(|(reach, fit)| (c, reach, fit)))
        .collect();
    let off_path = unserved
        .iter()
        .find(|(_, reach, fit)| reach.known && *fit == Fit::Yes)
        .or_else(|| unserved.first());
    let who = |c: &Caller| {
        format!(
            "{}{} calls its address {} ({})",
            ws.objects[c.workload].id,
            if c.from_node { " (hostNetwork)" } else { "" },
            c.address,
            c.via
        )
    };
    let (severity, message) = match off_path {
        Some((caller, reach, fit)) => (
            Severity::Warning,
            format!(
                "{}, and {}, on a path kube-proxy does not serve on the node{}: {}{}. {} {}",
                advisory.subject,
                who(caller),
                match fit {
                    Fit::Yes => " when the caller runs on a node without a backend pod",
                    _ => " if the caller runs on a node without a backend pod (unknown from these manifests)",
                },
                if reach.known { "" } else { "not certain: " },
                reach.why,
                advisory.unserved,
                advisory.vendor
            ),
        ),
        None => (
            Severity::Note,
            format!(
                "{}, and {} from inside the cluster. {} {}",
                advisory.subject,
                who(first),
                advisory.vendor,
                advisory.short_circuited
            ),
        ),
    };
    let mut d = meta
        .diagnostic(severity, ws.location(service, advisory.at.span()), message)
        .with_help(advisory.help);
    d = crate::rules::with_callers(
        d,
        ws,
        callers.iter().copied(),
        "internal load-balancer address",
    );
    if let Some(mode) = cx.profile.kube_proxy_mode().location() {
        d = d.with_related(
            mode,
            "the cluster profile's kube-proxy mode decides whether kube-proxy serves the call",
        );
    }
    out.push(
        d.with_suggestion(crate::rules::call_by_name(service))
            .on(service),
    );
}
