//! OKE002 oke-ip-mode-before-1-30: `oci.oraclecloud.com/ingress-ip-mode: proxy` on a cluster
//! before Kubernetes 1.30, where the ipMode field does not take effect.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::family::kube_proxy::{kubernetes_has_ip_mode, Gate};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::rules::family::proxy_protocol::oke::{DOC, INGRESS_IP_MODE};

use crate::catalog::meta::OKE002 as META;

pub(crate) struct IpModeBefore130;

impl Rule for IpModeBefore130 {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let (severity, verdict) = match kubernetes_has_ip_mode(cx) {
            Gate::Yes => return,
            Gate::No(why) => (
                Severity::Error,
                format!("{why}, so kube-proxy still short-circuits in-cluster calls to the load balancer's IP"),
            ),
            Gate::Unknown(why) => (
                Severity::Warning,
                format!("whether it takes effect depends on {why}"),
            ),
        };
        for (_, _, service) in services_of(cx, Provider::Oke) {
            let Some((key, value)) = Annotations::of(ws, service).entry(INGRESS_IP_MODE) else {
                continue;
            };
            if !value
                .as_str()
                .is_some_and(|v| v.eq_ignore_ascii_case("proxy"))
            {
                continue;
            }
            let d = META
                .diagnostic(
                    severity,
                    ws.location(service, key.span()),
                    format!(
                        "`{INGRESS_IP_MODE}: proxy` on Service `{}` needs Kubernetes 1.30 or later: {verdict}.",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "upgrade the cluster to Kubernetes 1.30 or later (and state it as `spec.kubernetesVersion`), or \
                     have in-cluster clients call the Service by name. See {DOC}"
                ))
                .on(service);
            out.push(d);
        }
    }
}
