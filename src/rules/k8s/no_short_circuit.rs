//! K8S010 lb-no-short-circuit-in-cluster: the Service status says kube-proxy will not
//! short-circuit calls to the load-balancer address (`ipMode: Proxy`, or a hostname
//! only), and a pod calls that address.

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::EntryKind;
use crate::profile::{version, Provider};
use crate::rules::{vke, Context, Rule, RuleMeta};

pub use crate::rules::meta::K8S010 as META;

pub struct NoShortCircuit;

impl Rule for NoShortCircuit {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        // Before 1.30 the LoadBalancerIPMode gate is off by default (alpha in 1.29).
        let version = cx.profile.kubernetes_version();
        let ip_mode_honoured = version.value.and_then(|v| version::at_least(v, "1.30"));
        for (index, entry) in cx.model.entries() {
            if entry.kind != EntryKind::Service {
                continue;
            }
            let object = &ws.objects[entry.object];
            let callers: Vec<_> = cx.model.callers_of(index).collect();
            if callers.is_empty() {
                continue;
            }
            // VKE004 judges a Service that asks for Proxy mode by annotation.
            if matches!(cx.profile.provider(), Provider::Vke | Provider::Generic)
                && ws
                    .annotation(object, vke::IP_MODE)
                    .and_then(|(_, v)| v.as_str())
                    == Some("Proxy")
            {
                continue;
            }
            let Some(service) = cx.views.service(entry.object) else {
                continue;
            };
            let proxy = service.ip_modes().find(|m| m.as_str() == Some("Proxy"));
            let hostname_only = service.hostname_only();
            let (at, why) = match (proxy, hostname_only) {
                (Some(mode), _) if ip_mode_honoured != Some(false) => {
                    let gate = if ip_mode_honoured.is_none() {
                        format!(
                            " (on Kubernetes 1.30 or later, where the LoadBalancerIPMode feature is on by \
                             default; the cluster profile does not state `{}`)",
                            version.field()
                        )
                    } else {
                        String::new()
                    };
                    (mode, format!("its status reports `ipMode: Proxy`{gate}"))
                }
                (_, Some(hostname)) => (
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
            for caller in &callers {
                d = d.with_related(
                    caller.location.clone(),
                    format!(
                        "{} calls the load-balancer address {} from inside the cluster",
                        ws.objects[caller.workload].id, caller.address
                    ),
                );
            }
            d = d.on(object);
            out.push(d);
        }
    }
}
