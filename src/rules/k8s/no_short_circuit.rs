//! K8S010 lb-no-short-circuit-in-cluster: the Service status says kube-proxy will not
//! short-circuit calls to the load-balancer address (`ipMode: Proxy`, or a hostname
//! only), and a pod calls that address.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::EntryKind;
use crate::rules::family::kube_proxy::{self, Gate};
use crate::rules::verdict::with_callers;
use crate::rules::{Context, Rule};

use crate::catalog::meta::K8S010 as META;

pub(crate) struct NoShortCircuit;

impl Rule for NoShortCircuit {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        // Whether `ipMode: Proxy` takes effect here: Kubernetes 1.30+, a dataplane that honours it.
        let ip_mode = kube_proxy::ip_mode_proxy_honoured(cx);
        for (index, entry) in cx.model.entries() {
            if entry.kind != EntryKind::Service {
                continue;
            }
            // A rule that judges this load balancer's calls (the PROXY-protocol family, where
            // going through the load balancer is the vendor's own way out; EKS001, which
            // knows whether the NLB can take the call back; VKE004) has the verdict.
            if cx.claims.owner(cx, entry).is_some() {
                continue;
            }
            let object = &ws.objects[entry.object];
            let callers: Vec<_> = cx.model.callers_of(index).collect();
            if callers.is_empty() {
                continue;
            }
            let Some(service) = cx.views.service(entry.object) else {
                continue;
            };
            let proxy = service.ip_modes().find(|m| m.as_str() == Some("Proxy"));
            let hostname_only = service.hostname_only();
            let (at, why) = match (proxy, hostname_only, &ip_mode) {
                (Some(mode), _, Gate::Yes) => (mode, "its status reports `ipMode: Proxy`".to_string()),
                (Some(mode), _, Gate::Unknown(gate)) => (
                    mode,
                    format!("its status reports `ipMode: Proxy` (which takes effect depending on {gate})"),
                ),
                (_, Some(hostname), _) => (
                    hostname,
                    "its status has a hostname and no IP, which kube-proxy cannot bind".to_string(),
                ),
                _ => continue,
            };
            let first = callers[0];
            let mut d = META
                .diagnostic(
                    Severity::Warning,
                    ws.location(object, at.span()),
                    format!(
                        "In-cluster calls to the load-balancer address of Service `{}` really go through the load \
                         balancer: {why}, so kube-proxy does not short-circuit them. {} calls {}; whether the load \
                         balancer can send that traffic back into the same cluster, or the caller's own node \
                         (hairpin), is now up to the provider.",
                        object.name(),
                        ws.objects[first.workload].id,
                        first.address
                    ),
                )
                .with_help(format!(
                    "have in-cluster clients call {} (or the ClusterIP) instead, or check that the provider's \
                     load balancer supports hairpin traffic from its own backends",
                    object.service_hosts_hint()
                ));
            d = with_callers(d, cx, callers.iter().copied(), "load-balancer address");
            d = d.on(object);
            out.push(d);
        }
    }
}
