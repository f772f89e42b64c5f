//! Hetzner Cloud's adapter (rules/HETZNER001.md): PROXY protocol bypassed by in-cluster
//! calls. The hcloud controller sets `ipMode: Proxy` only from v1.21.0. HETZNER002
//! (`rules::hetzner`) reads the same annotations and controller version.

use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{controller_at_least, no_ip_mode_fix, Hostname, ProxyProvider, Rejected, Triggered};

pub const USES_PROXY_PROTOCOL: &str = "load-balancer.hetzner.cloud/uses-proxyprotocol";
pub const HOSTNAME: &str = "load-balancer.hetzner.cloud/hostname";
/// The first hcloud controller that sets `ipMode: Proxy` (CHANGELOG v1.21.0, PR #783).
pub const IP_MODE_SINCE: &str = "v1.21.0";
pub const CCM: &str = "the hcloud cloud controller manager";
pub const CHANGELOG: &str = "hcloud-cloud-controller-manager CHANGELOG v1.21.0 \
                         (https://github.com/hetznercloud/hcloud-cloud-controller-manager/releases/tag/v1.21.0)";

/// HETZNER001 hetzner-proxy-protocol-in-cluster. The hostname wins over ipMode: the status
/// is then hostname-only.
pub static HETZNER: ProxyProvider = ProxyProvider {
    provider: Provider::Hetzner,
    meta: &meta::HETZNER001,
    trigger,
    hostname: Hostname::Name(HOSTNAME),
    hostname_honoured: super::always,
    hostname_option: None,
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// Does the controller set `ipMode: Proxy` on PROXY-protocol load balancers?
pub fn sets_ip_mode(cx: &Context<'_>) -> Gate {
    controller_at_least(
        cx,
        CCM,
        IP_MODE_SINCE,
        "sets `ipMode: Proxy` on PROXY-protocol load balancers",
    )
}

/// A Hetzner `BoolFromService` annotation the controller refuses (Go's
/// `strconv.ParseBool`): the finding for its value, quoting the controller's error from
/// `function` (its `op` name, which the controller puts in front of the error).
pub fn refused_bool<'w>(
    cx: &Context<'w>,
    service: &Object,
    annotation: &'static str,
    function: &'static str,
) -> Option<Rejected<'w>> {
    let view = Annotations::of(cx.ws, service);
    let Some(Err(text)) = view.go_bool(annotation) else {
        return None;
    };
    Some(Rejected {
        at: view.value(annotation)?,
        annotation,
        controller: "the hcloud controller refuses with",
        error: format!(
            "{function}: annotation/Name.BoolFromService: {annotation}: strconv.ParseBool: parsing {text:?}: \
             invalid syntax"
        ),
        help: format!(
            "write `\"true\"` or `\"false\"` in `{annotation}` (Go's strconv.ParseBool also takes 1, t, T, \
             TRUE, True and their false forms)"
        ),
    })
}

/// Whether PROXY protocol is on, and where it is turned on: the annotation read with Go's
/// `strconv.ParseBool` (`hclbServiceOptsBuilder.extract`); without it, the profile's
/// HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL (unset: off), then pointing at the Service's
/// `type`. `Err`: the controller refuses the annotation's value.
pub fn proxy_protocol<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<Result<NodeRef<'w>, Rejected<'w>>> {
    let view = Annotations::of(cx.ws, service);
    match (
        view.entry(USES_PROXY_PROTOCOL),
        view.go_bool(USES_PROXY_PROTOCOL),
    ) {
        (Some((key, _)), Some(Ok(true))) => Some(Ok(key)),
        (Some(_), Some(Err(_))) => refused_bool(
            cx,
            service,
            USES_PROXY_PROTOCOL,
            "hcops/hclbServiceOptsBuilder.extract",
        )
        .map(Err),
        (None, _) if cx.profile.ccm_uses_proxy_protocol().value == Some(true) => {
            cx.views.service(entry.object)?.service_type().map(Ok)
        }
        _ => None,
    }
}

fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    Some(match proxy_protocol(cx, entry, service)? {
        Ok(at) => Triggered::proxy(at),
        Err(r) => Triggered::Rejected(r),
    })
}

fn ip_mode(cx: &Context<'_>, _: &EntryPoint, _: &Object) -> Gate {
    sets_ip_mode(cx)
}

fn help() -> String {
    format!(
        "upgrade {CCM} to {IP_MODE_SINCE} or later (it then sets `ipMode: Proxy`, so kube-proxy leaves \
         calls to the load balancer alone; needs Kubernetes 1.30 or later) and record the version as \
         `spec.addons.cloudControllerManager`; on an older controller, set `{HOSTNAME}: <name>` with a \
         DNS record for the name pointing at the load balancer. See {CHANGELOG}"
    )
}
