//! Hetzner Cloud's adapter (rules/HETZNER001.md): PROXY protocol or TLS termination
//! (`load-balancer.hetzner.cloud/protocol: https`) bypassed by in-cluster calls. The hcloud
//! controller sets `ipMode: Proxy` from v1.21.0, and only for PROXY protocol. HETZNER002
//! (`rules::hetzner`) reads the same annotations and controller version.

use crate::catalog::meta;
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::yaml::go_values::go_parse_bool;
use crate::yaml::NodeRef;

use super::{controller_at_least, no_ip_mode_fix, Hostname, ProxyProvider, Rejected, Triggered};

pub(crate) const USES_PROXY_PROTOCOL: &str = "load-balancer.hetzner.cloud/uses-proxyprotocol";
pub(crate) const HOSTNAME: &str = "load-balancer.hetzner.cloud/hostname";
const PROTOCOL: &str = "load-balancer.hetzner.cloud/protocol";
/// The first release that reads `load-balancer.hetzner.cloud/protocol` (tcp, http, https).
const PROTOCOL_SINCE: &str = "v1.6.0";
/// The first hcloud controller that sets `ipMode: Proxy` (CHANGELOG v1.21.0, PR #783).
pub(crate) const IP_MODE_SINCE: &str = "v1.21.0";
pub(crate) const CCM: &str = "the hcloud cloud controller manager";
pub(crate) const CHANGELOG: &str = "hcloud-cloud-controller-manager CHANGELOG v1.21.0 \
                         (https://github.com/hetznercloud/hcloud-cloud-controller-manager/releases/tag/v1.21.0)";

/// HETZNER001 hetzner-proxy-protocol-in-cluster. The hostname wins over ipMode: the status
/// is then hostname-only.
pub(crate) static HETZNER: ProxyProvider = ProxyProvider {
    provider: Provider::Hetzner,
    meta: &meta::HETZNER001,
    trigger,
    hostname: Some(Hostname::Name(HOSTNAME)),
    hostname_honoured: super::always,
    hostname_option: None,
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// Does the controller set `ipMode: Proxy` on PROXY-protocol load balancers?
pub(crate) fn sets_ip_mode(cx: &Context<'_>) -> Gate {
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
pub(crate) fn refused_bool<'w>(
    cx: &Context<'w>,
    service: &Object,
    annotation: &'static str,
    function: &'static str,
) -> Option<Rejected<'w>> {
    let view = cx.lb_annotations(service);
    let Some(Err(text)) = view.go_bool(annotation) else {
        return None;
    };
    Some(Rejected {
        at: view.value(annotation)?,
        annotation,
        controller: "the hcloud controller refuses with",
        error: format!(
            "{function}: annotation/Name.BoolFromService: {annotation}: {}",
            go_parse_bool(text).err()?
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
pub(crate) fn proxy_protocol<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<Result<NodeRef<'w>, Rejected<'w>>> {
    let view = cx.lb_annotations(service);
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
        // The controller-wide default: the finding points at the Service's type, or at a
        // Gateway's class (its implementation makes the Service).
        (None, _) if cx.profile.ccm_uses_proxy_protocol().value == Some(true) => {
            match cx.views.service(entry.object) {
                Some(view) => view.service_type().map(Ok),
                None => cx.views.gateway(entry.object)?.class_name.map(Ok),
            }
        }
        _ => None,
    }
}

/// `hclbServiceOptsBuilder.extract`, in its order: PROXY protocol, then the service protocol
/// (`LBSvcProtocolFromService`: lower-cased, `tcp`, `http` or `https`); the first error
/// stops it. An `https` service terminates TLS with the Service's certificates and forwards
/// HTTP. PROXY protocol wins where both are on.
fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let proxy = match proxy_protocol(cx, entry, service) {
        Some(Err(r)) => return Some(Triggered::Rejected(r)),
        proxy => proxy.and_then(Result::ok),
    };
    let tls = match https(cx, service) {
        Some(Err(r)) => return Some(Triggered::Rejected(r)),
        tls => tls.and_then(Result::ok),
    };
    Triggered::either(proxy, tls)
}

/// The `protocol` annotation's key when it reads as `https`, or the controller's refusal of
/// its value; `None` on a controller stated before v1.6.0, which does not read it.
fn https<'w>(cx: &Context<'w>, service: &Object) -> Option<Result<NodeRef<'w>, Rejected<'w>>> {
    let stated = cx.profile.cloud_controller_manager().value;
    if stated.and_then(|v| version::at_least(v, PROTOCOL_SINCE)) == Some(false) {
        return None;
    }
    let view = cx.lb_annotations(service);
    let (key, value) = view.entry(PROTOCOL)?;
    let protocol = view.lowercase(PROTOCOL).unwrap_or_default();
    match protocol.as_str() {
        "https" => Some(Ok(key)),
        "tcp" | "http" => None,
        _ => Some(Err(Rejected {
            at: value,
            annotation: PROTOCOL,
            controller: "the hcloud controller refuses with",
            error: format!(
                "hcops/hclbServiceOptsBuilder.extract: annotation/Name.LBSvcProtocolFromService: \
                 annotation/validateServiceProtocol: invalid: {protocol}"
            ),
            help: format!("set `{PROTOCOL}` to `tcp`, `http` or `https` (any case), or remove it"),
        })),
    }
}

/// `buildLoadBalancerStatusIngress`: `ipMode: Proxy` only when PROXY protocol is on (from
/// v1.21.0); a load balancer that only terminates TLS keeps `VIP`.
fn ip_mode(cx: &Context<'_>, entry: &EntryPoint, service: &Object) -> Gate {
    if matches!(proxy_protocol(cx, entry, service), Some(Ok(_))) {
        return sets_ip_mode(cx);
    }
    Gate::No(format!(
        "{CCM} sets `ipMode: Proxy` only on PROXY-protocol load balancers, so this one, which \
         terminates TLS without PROXY protocol, keeps `ipMode: VIP`"
    ))
}

fn help() -> String {
    format!(
        "for PROXY protocol, upgrade {CCM} to {IP_MODE_SINCE} or later (it then sets `ipMode: Proxy`, so \
         kube-proxy leaves calls to the load balancer alone; needs Kubernetes 1.30 or later) and record the \
         version as `spec.addons.cloudControllerManager`; for TLS termination (`{PROTOCOL}: https`, which \
         never gets `ipMode: Proxy`) or on an older controller, set `{HOSTNAME}: <name>` with a DNS record \
         for the name pointing at the load balancer. See {CHANGELOG}"
    )
}
