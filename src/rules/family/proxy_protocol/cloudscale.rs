//! cloudscale.ch's adapter (rules/CLOUDSCALE001.md): a PROXY-protocol pool whose in-cluster
//! calls are short-circuited. The controller sets `ipMode: Proxy` by default from Kubernetes
//! 1.30, unless the Service forces `VIP`; before 1.30 only a forced hostname helps.

use crate::diagnostic::{Applicability, Fix};
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::edit;
use crate::rules::family::kube_proxy::{kubernetes_has_ip_mode, Gate};
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{Feature, Hostname, ProxyProvider};

const POOL_PROTOCOL: &str = "k8s.cloudscale.ch/loadbalancer-pool-protocol";
const IP_MODE: &str = "k8s.cloudscale.ch/loadbalancer-ip-mode";
const FORCE_HOSTNAME: &str = "k8s.cloudscale.ch/loadbalancer-force-hostname";
const SOURCE: &str = "cloudscale-cloud-controller-manager pkg/cloudscale_ccm/loadbalancer.go \
                      (https://github.com/cloudscale-ch/cloudscale-cloud-controller-manager)";

/// CLOUDSCALE001 cloudscale-proxy-protocol-in-cluster.
pub static CLOUDSCALE: ProxyProvider = ProxyProvider {
    provider: Provider::Cloudscale,
    meta: &meta::CLOUDSCALE001,
    trigger,
    hostname: Hostname::Name(FORCE_HOSTNAME),
    hostname_option: None,
    ip_mode,
    ip_mode_fix,
    help,
};

fn trigger<'w>(
    cx: &Context<'w>,
    _: &EntryPoint,
    service: &Object,
) -> Option<(Feature, NodeRef<'w>)> {
    Annotations::of(cx.ws, service)
        .key_if_in(POOL_PROTOCOL, &["proxy", "proxyv2"])
        .map(|at| (Feature::ProxyProtocol, at))
}

/// `ipMode: Proxy` by default; `VIP` turns it off.
fn ip_mode(cx: &Context<'_>, _: &EntryPoint, service: &Object) -> Gate {
    if Annotations::of(cx.ws, service)
        .key_if_in(IP_MODE, &["VIP"])
        .is_some()
    {
        Gate::No(format!(
            "`{IP_MODE}: VIP` turns off the controller's default `ipMode: Proxy`, so kube-proxy binds the \
             load balancer's IP on every node"
        ))
    } else {
        Gate::Yes
    }
}

/// `VIP` back to `Proxy`, where Kubernetes may honour it. Unsafe: in-cluster calls then
/// really cross the load balancer.
fn ip_mode_fix(cx: &Context<'_>, service: &Object, _: &str) -> Option<Fix> {
    let ws = cx.ws;
    let (_, value) = Annotations::of(ws, service)
        .entry(IP_MODE)
        .filter(|(_, v)| v.as_str() == Some("VIP"))?;
    match kubernetes_has_ip_mode(cx) {
        Gate::Yes | Gate::Unknown(_) => edit::replace_scalar(
            ws,
            service,
            value,
            "Proxy",
            format!("set `{IP_MODE}` to `Proxy` (Kubernetes 1.30 or later)"),
            Applicability::Unsafe,
        ),
        Gate::No(_) => None,
    }
}

fn help() -> String {
    format!(
        "on Kubernetes 1.30 or later, remove `{IP_MODE}: VIP` (the controller then sets `ipMode: Proxy`); \
         before 1.30, set `{FORCE_HOSTNAME}: <name>` with a DNS record for the name pointing at the \
         load balancer. See {SOURCE}"
    )
}
