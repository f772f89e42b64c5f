//! Hetzner Cloud (rules/HETZNER001.md to HETZNER003.md). HETZNER001: PROXY protocol
//! bypassed by in-cluster calls (the hcloud controller sets `ipMode: Proxy` only from
//! v1.21.0). HETZNER002: the hostname workaround kept after that upgrade. HETZNER003: a
//! private-IP load balancer whose private ingress loops IPVS.

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::{Provider, ProxyMode};
use crate::rules::proxy_protocol::{annotation_in, controller_at_least, hostname_way_out};
use crate::rules::proxy_protocol::{
    hostname_suggestion, report, services_of, Bypass, Feature, Trap,
};
use crate::rules::upstream::{ip_mode_proxy_honoured, Gate};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::HETZNER001 as PROXY_META;
pub use crate::rules::meta::HETZNER002 as STALE_HOSTNAME_META;
pub use crate::rules::meta::HETZNER003 as PRIVATE_INGRESS_META;

pub const USES_PROXY_PROTOCOL: &str = "load-balancer.hetzner.cloud/uses-proxyprotocol";
pub const HOSTNAME: &str = "load-balancer.hetzner.cloud/hostname";
const USE_PRIVATE_IP: &str = "load-balancer.hetzner.cloud/use-private-ip";
const DISABLE_PRIVATE_INGRESS: &str = "load-balancer.hetzner.cloud/disable-private-ingress";
/// The first hcloud controller that sets `ipMode: Proxy` (CHANGELOG v1.21.0, PR #783).
const IP_MODE_SINCE: &str = "v1.21.0";
const CCM: &str = "the hcloud cloud controller manager";
const CHANGELOG: &str = "hcloud-cloud-controller-manager CHANGELOG v1.21.0 \
                         (https://github.com/hetznercloud/hcloud-cloud-controller-manager/releases/tag/v1.21.0)";

fn sets_ip_mode(cx: &Context<'_>) -> Gate {
    controller_at_least(
        cx,
        CCM,
        IP_MODE_SINCE,
        "sets `ipMode: Proxy` on PROXY-protocol load balancers",
    )
}

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &PROXY_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let default_on = cx.profile.ccm_uses_proxy_protocol().value == Some(true);
        for (index, entry, service) in services_of(cx, Provider::Hetzner) {
            // The hostname wins over ipMode: the status is then hostname-only.
            if hostname_way_out(cx, entry, HOSTNAME) {
                continue;
            }
            let written = ws.annotation(service, USES_PROXY_PROTOCOL);
            let at = match written {
                Some((key, value)) if value.as_str() == Some("true") => key,
                // The controller's HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL default, as the
                // profile states it, unless the Service turns it off.
                None if default_on => {
                    match cx.views.service(entry.object).and_then(|s| s.service_type) {
                        Some(node) => node,
                        None => continue,
                    }
                }
                _ => continue,
            };
            let Some(bypass) = Bypass::unless(sets_ip_mode(cx).and(ip_mode_proxy_honoured(cx)))
            else {
                continue;
            };
            let after = at.as_str().unwrap_or_default();
            let edits: Vec<_> = hostname_suggestion(ws, service, after, HOSTNAME)
                .into_iter()
                .collect();
            let trap = Trap {
                feature: Feature::ProxyProtocol,
                at,
                bypass,
                fix: format!(
                    "upgrade {CCM} to {IP_MODE_SINCE} or later (it then sets `ipMode: Proxy`, so kube-proxy leaves \
                     calls to the load balancer alone; needs Kubernetes 1.30 or later) and record the version as \
                     `spec.addons.cloudControllerManager`; on an older controller, set `{HOSTNAME}: <name>` with a \
                     DNS record for the name pointing at the load balancer. See {CHANGELOG}"
                ),
                edits,
            };
            report(cx, &PROXY_META, index, entry, trap, out);
        }
    }
}

pub struct StaleHostname;

impl Rule for StaleHostname {
    fn meta(&self) -> &'static RuleMeta {
        &STALE_HOSTNAME_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        if sets_ip_mode(cx) != Gate::Yes {
            return;
        }
        for (_, _, service) in services_of(cx, Provider::Hetzner) {
            let Some((at, _)) = ws.annotation(service, HOSTNAME) else {
                continue;
            };
            if annotation_in(ws, service, USES_PROXY_PROTOCOL, &["true"]).is_none() {
                continue;
            }
            let version = cx.profile.cloud_controller_manager();
            let d = STALE_HOSTNAME_META
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

pub struct IpvsPrivateIngress;

impl Rule for IpvsPrivateIngress {
    fn meta(&self) -> &'static RuleMeta {
        &PRIVATE_INGRESS_META
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
            let Some(at) = annotation_in(ws, service, USE_PRIVATE_IP, &["true"]) else {
                continue;
            };
            if annotation_in(ws, service, DISABLE_PRIVATE_INGRESS, &["true"]).is_some() {
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
            let d = PRIVATE_INGRESS_META
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
