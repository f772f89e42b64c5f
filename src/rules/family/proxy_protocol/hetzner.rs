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

use super::{controller_at_least, no_ip_mode_fix, Feature, Hostname, ProxyProvider};

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

/// The annotation set to `true`; or, where the profile says the controller's
/// HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL default is on, a Service that does not turn it
/// off (the finding then points at its `type`).
fn trigger<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<(Feature, NodeRef<'w>)> {
    let default_on = cx.profile.ccm_uses_proxy_protocol().value == Some(true);
    let at = match Annotations::of(cx.ws, service).entry(USES_PROXY_PROTOCOL) {
        Some((key, value)) if value.as_str() == Some("true") => key,
        None if default_on => cx.views.service(entry.object)?.service_type()?,
        _ => return None,
    };
    Some((Feature::ProxyProtocol, at))
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
