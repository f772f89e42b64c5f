//! EKS003 eks-proxy-protocol-instance-local: PROXY v2 with instance targets and
//! `externalTrafficPolicy: Local`, which the controller's documentation advises against.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule, RuleMeta};
use crate::views::Annotations;

use super::{instance_nlbs, key, LBC_DOC};

pub use crate::rules::meta::EKS003 as META;

pub struct ProxyProtocolInstanceLocal;

impl Rule for ProxyProtocolInstanceLocal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (service, view) in instance_nlbs(cx) {
            let Some(local) = view
                .external_traffic_policy()
                .filter(|p| p.as_str() == Some("Local"))
            else {
                continue;
            };
            let proxy = Annotations::of(ws, service)
                .text_entry(&key("proxy-protocol"))
                .filter(|(_, v)| *v == "*")
                .map(|(k, _)| k)
                .or_else(|| {
                    Annotations::of(ws, service)
                        .text_entry(&key("target-group-attributes"))
                        .filter(|(_, v)| {
                            v.replace(' ', "")
                                .contains("proxy_protocol_v2.enabled=true")
                        })
                        .map(|(k, _)| k)
                });
            let Some(proxy) = proxy else {
                continue;
            };
            let d = META
                .diagnostic(
                    Severity::Warning,
                    ws.location(service, proxy.span()),
                    format!(
                        "Service `{}` turns on PROXY protocol v2 on an NLB with instance targets and \
                         `externalTrafficPolicy: Local`: the AWS Load Balancer Controller documents that \"you shouldn't \
                         configure proxy protocol v2 with NLB instance mode and externalTrafficPolicy set to Local\".",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "use `{}: ip`, or `externalTrafficPolicy: Cluster`. See {LBC_DOC}",
                    key("nlb-target-type")
                ))
                .with_related(ws.location(service, local.span()), "`externalTrafficPolicy: Local` is set here")
                .on(service);
            out.push(d);
        }
    }
}
