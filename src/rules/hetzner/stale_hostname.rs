//! HETZNER002 hetzner-stale-hostname: the hostname workaround for HETZNER001 kept where the
//! controller sets `ipMode: Proxy` itself and the cluster honours it.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::family::kube_proxy::{ip_mode_proxy_honoured, Gate};
use crate::rules::family::proxy_protocol::hetzner::{proxy_protocol, sets_ip_mode, CCM, CHANGELOG};
use crate::rules::family::proxy_protocol::hetzner::{HOSTNAME, IP_MODE_SINCE};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::catalog::meta::HETZNER002 as META;

pub(crate) struct StaleHostname;

impl Rule for StaleHostname {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        // Without the hostname the status would carry `ipMode: Proxy`, which helps only
        // where Kubernetes (1.30+) and the dataplane honour it; elsewhere HETZNER001 would
        // report the Service, so the hostname is still needed.
        if sets_ip_mode(cx).and(ip_mode_proxy_honoured(cx)) != Gate::Yes {
            return;
        }
        for (_, entry, service) in services_of(cx, Provider::Hetzner) {
            let Some((at, _)) = Annotations::of(ws, service).entry(HOSTNAME) else {
                continue;
            };
            if !matches!(proxy_protocol(cx, entry, service), Some(Ok(_))) {
                continue;
            }
            let version = cx.profile.cloud_controller_manager();
            let d = META
                .diagnostic(
                    Severity::Note,
                    ws.location(service, at.span()),
                    format!(
                        "`{HOSTNAME}` on PROXY-protocol Service `{}` is no longer needed to keep in-cluster calls on \
                         the load balancer: {CCM} {} (profile `{}`) sets `ipMode: Proxy` itself, and this cluster \
                         honours it.",
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
