//! VKE002 vke-ip-mode-without-load-balancer: the annotation on a Service that gets no CLB.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use super::{IP_MODE, SEED_DOC};

use crate::catalog::meta::VKE002 as META;

pub(crate) struct IpModeNotLoadBalancer;

impl Rule for IpModeNotLoadBalancer {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, object) in ws.ids() {
            let Some(service) = cx.views.service(index) else {
                continue;
            };
            let Some((key, _)) = Annotations::of(ws, object).entry(IP_MODE) else {
                continue;
            };
            let type_node = service.service_type();
            let service_type = type_node.and_then(|t| t.as_str()).unwrap_or("ClusterIP");
            if service_type == "LoadBalancer" {
                continue;
            }
            let mut d = META
                .diagnostic(
                    Severity::Warning,
                    ws.location(object, key.span()),
                    format!(
                        "Service `{}` sets `{IP_MODE}` but is `type: {service_type}`, so the annotation has no \
                         effect: the IP mode applies to LoadBalancer Services only.",
                        object.name()
                    ),
                )
                .with_help(format!(
                    "set `spec.type: LoadBalancer` if the Service should get a CLB, or remove `{IP_MODE}`. See {SEED_DOC}"
                ));
            if let Some(t) = type_node {
                d = d.with_related(
                    ws.location(object, t.span()),
                    "the Service type is set here",
                );
            }
            out.push(d.on(object));
        }
    }
}
