//! HETZNER003 hetzner-ipvs-private-ingress: a private-IP load balancer whose private ingress
//! loops IPVS.

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::{Provider, ProxyMode};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule, RuleMeta};
use crate::views::Annotations;

use super::{DISABLE_PRIVATE_INGRESS, USE_PRIVATE_IP};

pub use crate::rules::meta::HETZNER003 as META;

pub struct IpvsPrivateIngress;

impl Rule for IpvsPrivateIngress {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let mode = cx.profile.kube_proxy_mode();
        let severity = match mode.value {
            Some(ProxyMode::Ipvs) => Severity::Error,
            None => Severity::Warning,
            Some(_) => return,
        };
        if cx.profile.ccm_disable_private_ingress().value == Some(true) {
            return;
        }
        for (_, _, service) in services_of(cx, Provider::Hetzner) {
            let Some(at) = Annotations::of(ws, service).key_if_in(USE_PRIVATE_IP, &["true"]) else {
                continue;
            };
            if Annotations::of(ws, service)
                .key_if_in(DISABLE_PRIVATE_INGRESS, &["true"])
                .is_some()
            {
                continue;
            }
            let when = match mode.value {
                Some(_) => format!(
                    "kube-proxy runs in IPVS mode (profile `{}`{})",
                    mode.field(),
                    mode.at_line()
                ),
                None => format!(
                    "if kube-proxy runs in IPVS mode; the profile does not state `{}`",
                    mode.field()
                ),
            };
            let d = META
                .diagnostic(
                    severity,
                    ws.location(service, at.span()),
                    format!(
                        "Service `{}` uses the load balancer's private IP without `{DISABLE_PRIVATE_INGRESS}: \"true\"`, \
                         and {when}: the network plugin puts the load balancer's IP on the nodes' dummy interface, \
                         looping IPVS, so the nodes never pass the load balancer's health checks.",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "add `{DISABLE_PRIVATE_INGRESS}: \"true\"` to the Service (or run the controller with \
                     HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS=true and record it as \
                     `spec.addons.cloudControllerManagerOptions.disablePrivateIngress: true`). See Hetzner, \
                     docs/guides/load-balancer/private-networks.md"
                ))
                .on(service);
            out.push(d);
        }
    }
}
