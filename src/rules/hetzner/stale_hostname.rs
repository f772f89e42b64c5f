//! HETZNER002 hetzner-stale-hostname: the hostname workaround for HETZNER001 kept after the
//! controller upgrade that sets `ipMode: Proxy` itself.

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::family::proxy_protocol::hetzner::{sets_ip_mode, CCM, CHANGELOG, HOSTNAME};
use crate::rules::family::proxy_protocol::hetzner::{IP_MODE_SINCE, USES_PROXY_PROTOCOL};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule, RuleMeta};
use crate::views::Annotations;

pub use crate::rules::meta::HETZNER002 as META;

pub struct StaleHostname;

impl Rule for StaleHostname {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        if sets_ip_mode(cx) != Gate::Yes {
            return;
        }
        for (_, _, service) in services_of(cx, Provider::Hetzner) {
            let Some((at, _)) = Annotations::of(ws, service).entry(HOSTNAME) else {
                continue;
            };
            if Annotations::of(ws, service)
                .key_if_in(USES_PROXY_PROTOCOL, &["true"])
                .is_none()
            {
                continue;
            }
            let version = cx.profile.cloud_controller_manager();
            let d = META
                .diagnostic(
                    Severity::Note,
                    ws.location(service, at.span()),
                    format!(
                        "`{HOSTNAME}` on PROXY-protocol Service `{}` is no longer needed to keep in-cluster calls on \
                         the load balancer: {CCM} {} (profile `{}`) sets `ipMode: Proxy` itself.",
                        service.name(),
                        version.value.unwrap_or(IP_MODE_SINCE),
                        version.field()
                    ),
                )
                .with_help(format!(
                    "if the hostname was added only for the PROXY-protocol problem, remove it (Hetzner: \"you can \
                     remove it after upgrading\"); keep it if clients need the name. See {CHANGELOG}"
                ))
                .on(service);
            out.push(d);
        }
    }
}
