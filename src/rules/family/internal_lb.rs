//! The internal-LB family: a load balancer that cannot take a backend's own call back.
//! AKS001 and GKE001 are advisories on one engine ([`advise`]): an internal load balancer
//! that the vendor documents as unable to serve a backend's own call (Azure), or that routes
//! it back to the calling VM (GCP). kube-proxy answers such calls on the node in its default
//! paths, so they never meet that limitation: a note. Only where kube-proxy does not serve
//! the call on the node (IPVS hostNetwork callers, IPVS pods before v1.24.0, and nftables
//! before v1.34.0 / v1.33.6, with
//! `externalTrafficPolicy: Local`; rules/K8S013.md) is it a warning: no vendor documents a
//! failure on these clusters, so never an error.
//!
//! EKS001 (`rules::eks::nlb_hairpin`) is the family's third member, on its own verdict: an
//! NLB's status is a hostname, so kube-proxy never answers the call, and the NLB times it out.
//! It shares [`NLB_CLASS`] with K8S010, which leaves such Services to it.

use crate::catalog::{meta, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::entry::{GKE_INTERNAL_CLASS, GKE_LEGACY_TYPE};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit};
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::family::kube_proxy::{unserved_by_kube_proxy, Reach};
use crate::rules::select::services_of;
use crate::rules::verdict::{calls_first, with_call_by_name, with_callers};
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::yaml::NodeRef;

/// The AWS Load Balancer Controller's class: its load balancers are NLBs (EKS001).
pub(crate) const NLB_CLASS: &str = "service.k8s.aws/nlb";

/// One internal load balancer, worded by its provider's adapter.
pub(crate) struct Advisory<'w> {
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
pub(crate) fn advise(
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
        .filter_map(|c| unserved_by_kube_proxy(cx, entry, c).map(|(reach, fit)| (*c, reach, fit)))
        .collect();
    let off_path = unserved
        .iter()
        .find(|(_, reach, fit)| reach.known && *fit == Fit::Yes)
        .or_else(|| unserved.first());
    // The lead fits two lines; the vendor's words and why open the help.
    let (severity, message, why) = words(cx, &advisory, first, off_path);
    let mut d = meta
        .diagnostic(severity, ws.location(service, advisory.at.span()), message)
        .with_help(format!("{why} Way out: {}", advisory.help));
    // The way out by name first, then its edit at each call.
    d = with_callers(
        with_call_by_name(d, service, callers.iter().copied()),
        cx,
        callers.iter().copied(),
        "internal load-balancer address",
    );
    if let Some(mode) = cx.profile.kube_proxy_mode().location() {
        d = d.with_related(
            mode,
            "the cluster profile's kube-proxy mode decides whether kube-proxy serves the call",
        );
    }
    out.push(d.on(service));
}

/// A warning naming the caller off kube-proxy's path, if there is one; else a note naming
/// the first caller.
fn words(
    cx: &Context<'_>,
    advisory: &Advisory<'_>,
    first: &Caller,
    off_path: Option<&(&Caller, Reach, Fit)>,
) -> (Severity, String, String) {
    // The call's setting is the related location's (with_callers), not the lead's.
    let who = |c: &Caller| {
        format!(
            "{}{} calls its address {}",
            cx.ws.objects[c.workload].id,
            if c.from_node { " (hostNetwork)" } else { "" },
            c.address,
        )
    };
    match off_path {
        Some((caller, reach, fit)) => (
            Severity::Warning,
            format!(
                "{}, and {}: kube-proxy does not serve it {}.{}",
                advisory.subject,
                who(caller),
                match fit {
                    Fit::Yes => "from a node without a backend pod",
                    _ => "if the caller runs on a node without a backend pod (unknown from these manifests)",
                },
                if reach.known {
                    String::new()
                } else {
                    crate::rules::verdict::settle(&reach.why)
                        .map(|s| format!(" Not certain: {s}."))
                        .unwrap_or_else(|| " Not certain (see help).".to_string())
                },
            ),
            format!(
                "{}{}. {} {}",
                if reach.known { "" } else { "Not certain: " },
                reach.why,
                advisory.unserved,
                advisory.vendor
            ),
        ),
        None => (
            Severity::Note,
            format!("{}, and {} from inside the cluster.", advisory.subject, who(first)),
            format!("{} {}", advisory.vendor, advisory.short_circuited),
        ),
    }
}

// Azure AKS's adapter (rules/AKS001.md): a Service on an internal Azure load balancer, called
// from inside the cluster. Azure documents that a backend VM's flow to the frontend of its
// own internal load balancer fails. Floating IP (`azure-disable-load-balancer-floating-ip`)
// and `azure-pip-*` carry no hairpin text and are not linted.

const AKS_INTERNAL: &str = "service.beta.kubernetes.io/azure-load-balancer-internal";
const AKS_COMPONENTS_DOC: &str = "https://learn.microsoft.com/en-us/azure/load-balancer/components";

/// AKS001 aks-internal-lb-in-cluster.
pub(crate) struct InternalLbInCluster;

impl Rule for InternalLbInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &meta::AKS001
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry, service) in services_of(cx, Provider::Aks) {
            let Some(at) = Annotations::of(cx.ws, service).key_if_in(AKS_INTERNAL, &["true"])
            else {
                continue;
            };
            let advisory = Advisory {
                at,
                node_callers_only: false,
                subject: format!(
                    "Service `{}` has an Azure internal load balancer (`{AKS_INTERNAL}: \"true\"`)",
                    service.name()
                ),
                vendor: "Azure: \"Outbound flow from a backend VM to a frontend of an internal Load Balancer \
                         will fail.\" Its troubleshooting guide names the symptom, \"intermittent connection \
                         timeouts when the flow returns to the same backend that originated the flow\", and a \
                         backend VM calling an application on the same VM over the same network interface is \
                         unsupported as well."
                    .to_string(),
                short_circuited: "kube-proxy answers this call on the node in its default paths (the Azure cloud \
                                  provider never reports `ipMode: Proxy`), so it should not reach the load \
                                  balancer: that kube-proxy masks the limitation is inferred from upstream \
                                  behaviour, and no AKS document covers pods calling their own internal load \
                                  balancer."
                    .to_string(),
                unserved: "Off kube-proxy's shortcut, nothing masks the Azure limitation.".to_string(),
                help: format!(
                    "have in-cluster clients call {} (or the ClusterIP) instead of the internal load balancer's \
                     address; Azure's own workaround is a proxy layer behind the internal load balancer \
                     (Floating IP, the other one its troubleshooting page names, is already AKS's default). \
                     See {AKS_COMPONENTS_DOC}",
                    service.service_hosts_hint()
                ),
            };
            advise(cx, &meta::AKS001, index, entry, advisory, out);
        }
    }
}

// Google GKE's adapter (rules/GKE001.md): a node (hostNetwork) caller of an internal
// passthrough load balancer's address. GCP routes a backend VM's packets for its load
// balancer's IP back to the VM itself, and kube-proxy serves them there.
// `internalTrafficPolicy` on GKE Dataplane V2 needs a profile fact for Dataplane V2, which
// the profile does not have: not linted.

const GKE_LOAD_BALANCER_TYPE: &str = "networking.gke.io/load-balancer-type";
const GKE_ILB_DOC: &str =
    "https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing";

/// GKE001 gke-internal-lb-node-caller.
pub(crate) struct InternalLbNodeCaller;

impl Rule for InternalLbNodeCaller {
    fn meta(&self) -> &'static RuleMeta {
        &meta::GKE001
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry) in cx.model.entries() {
            if entry.kind != EntryKind::Service || entry.provider != Some(Provider::Gke) {
                continue;
            }
            let service = &cx.ws.objects[entry.object];
            let Some(at) = gke_internal(cx, entry, service) else {
                continue;
            };
            let how = match at.as_str() {
                Some(GKE_INTERNAL_CLASS) => format!("`loadBalancerClass: {GKE_INTERNAL_CLASS}`"),
                _ => format!(
                    "`{}: \"Internal\"`",
                    at.as_str().unwrap_or(GKE_LOAD_BALANCER_TYPE)
                ),
            };
            let advisory = Advisory {
                at,
                node_callers_only: true,
                subject: format!(
                    "Service `{}` has a GKE internal passthrough load balancer ({how})",
                    service.name()
                ),
                vendor: "GCP: when a backend VM sends packets to the IP address of its load balancer, \"those \
                         requests are routed back to itself. This is the case regardless of the backend VM's \
                         health check state.\" GKE's Container-Optimized OS nodes implement that route with \
                         iptables."
                    .to_string(),
                short_circuited: "The call stays on the node, where kube-proxy serves it: it works, but the load \
                                  balancer never balances it. No GKE document says that node clients fail."
                    .to_string(),
                unserved: "Nor does the call leave a backend VM for the load balancer.".to_string(),
                help: format!(
                    "have node clients call {} (or the ClusterIP) instead of the internal load balancer's \
                     address. See {GKE_ILB_DOC}",
                    service.service_hosts_hint()
                ),
            };
            advise(cx, &meta::GKE001, index, entry, advisory, out);
        }
    }
}

/// The class or annotation that makes a GKE Service's load balancer internal.
fn gke_internal<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<NodeRef<'w>> {
    let class = cx.views.service(entry.object)?.load_balancer_class();
    match class.and_then(|c| c.as_str()).filter(|c| !c.is_empty()) {
        Some(GKE_INTERNAL_CLASS) => class,
        // Another class: another controller's load balancer.
        Some(_) => None,
        // GCE's `GetLoadBalancerAnnotationType`: the first key written decides, and takes
        // `Internal` or the deprecated `internal`.
        None => [GKE_LOAD_BALANCER_TYPE, GKE_LEGACY_TYPE]
            .iter()
            .find_map(|key| Annotations::of(cx.ws, service).entry(key))
            .filter(|(_, v)| matches!(v.as_str(), Some("Internal" | "internal")))
            .map(|(k, _)| k),
    }
}
