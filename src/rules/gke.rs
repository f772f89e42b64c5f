//! Google GKE (rules/GKE001.md). GKE001: a node (hostNetwork) caller of an internal
//! passthrough load balancer's address. GCP routes a backend VM's packets for its
//! load balancer's IP back to the VM itself, and kube-proxy serves them there, so this is
//! an advisory. `internalTrafficPolicy` on GKE Dataplane V2 needs a profile fact for
//! Dataplane V2, which the profile does not have: not linted.

use crate::diagnostic::Diagnostic;
use crate::model::entry::{GKE_INTERNAL_CLASS, GKE_LEGACY_TYPE};
use crate::model::EntryKind;
use crate::profile::Provider;
use crate::rules::internal_lb::{advise, Advisory};
use crate::rules::proxy_protocol::annotation_in;
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::GKE001 as META;

pub const LOAD_BALANCER_TYPE: &str = "networking.gke.io/load-balancer-type";
const ILB_DOC: &str =
    "https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing";

pub struct InternalLbNodeCaller;

impl Rule for InternalLbNodeCaller {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry) in cx.model.entries() {
            if entry.kind != EntryKind::Service || entry.provider != Some(Provider::Gke) {
                continue;
            }
            let Some(view) = cx.views.service(entry.object) else {
                continue;
            };
            let service = &ws.objects[entry.object];
            let class = view.load_balancer_class;
            let at = match class.and_then(|c| c.as_str()).filter(|c| !c.is_empty()) {
                Some(GKE_INTERNAL_CLASS) => class,
                // Another class: another controller's load balancer.
                Some(_) => None,
                None => [LOAD_BALANCER_TYPE, GKE_LEGACY_TYPE]
                    .iter()
                    .find_map(|key| annotation_in(ws, service, key, &["Internal"])),
            };
            let Some(at) = at else {
                continue;
            };
            let how = match at.as_str() {
                Some(GKE_INTERNAL_CLASS) => format!("`loadBalancerClass: {GKE_INTERNAL_CLASS}`"),
                _ => format!(
                    "`{}: \"Internal\"`",
                    at.as_str().unwrap_or(LOAD_BALANCER_TYPE)
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
                     address. See {ILB_DOC}",
                    service.service_hosts_hint()
                ),
            };
            advise(cx, &META, index, entry, advisory, out);
        }
    }
}
