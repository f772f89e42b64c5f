//! cloudscale.ch's adapter (rules/CLOUDSCALE001.md): a PROXY-protocol pool whose in-cluster
//! calls are short-circuited. From controller 1.1.0 (commit 0c0afd8, "Add option to prevent
//! cluster-traffic from bypassing loadbalancers") the controller sets `ipMode: Proxy` by
//! default on Kubernetes 1.30 and later, unless the Service forces `VIP`; before 1.30 only a
//! forced hostname helps. Controller 1.0.x has neither annotation.

use crate::catalog::meta;
use crate::diagnostic::{Applicability, Fix};
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::edit;
use crate::rules::family::kube_proxy::{kubernetes_has_ip_mode, Gate};
use crate::rules::Context;

use super::{controller_at_least, Hostname, ProxyProvider, Rejected, Triggered};

const POOL_PROTOCOL: &str = "k8s.cloudscale.ch/loadbalancer-pool-protocol";
const IP_MODE: &str = "k8s.cloudscale.ch/loadbalancer-ip-mode";
const FORCE_HOSTNAME: &str = "k8s.cloudscale.ch/loadbalancer-force-hostname";
/// The first release with `loadbalancer-ip-mode` and `loadbalancer-force-hostname`.
const IP_MODE_SINCE: &str = "1.1.0";
const CCM: &str = "the cloudscale cloud controller manager";
const SOURCE: &str = "cloudscale-cloud-controller-manager pkg/cloudscale_ccm/loadbalancer.go \
                      (https://github.com/cloudscale-ch/cloudscale-cloud-controller-manager)";

/// CLOUDSCALE001 cloudscale-proxy-protocol-in-cluster.
pub(crate) static CLOUDSCALE: ProxyProvider = ProxyProvider {
    provider: Provider::Cloudscale,
    meta: &meta::CLOUDSCALE001,
    trigger,
    hostname: Some(Hostname::Name(FORCE_HOSTNAME)),
    // force-hostname came with 1.1.0 (commit 0c0afd8).
    hostname_honoured: |cx| {
        controller_at_least(
            cx,
            CCM,
            IP_MODE_SINCE,
            "reads `k8s.cloudscale.ch/loadbalancer-force-hostname`",
        )
    },
    hostname_option: None,
    ip_mode,
    ip_mode_fix,
    help,
};

/// The pool protocol `proxy` or `proxyv2` (`reconcile.go` passes it to the API as
/// written); or an `ip-mode` the controller refuses (`loadBalancerStatus`, 1.1.0 and later).
fn trigger<'w>(cx: &Context<'w>, _: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let view = cx.lb_annotations(service);
    let at = view.key_if_in(POOL_PROTOCOL, &["proxy", "proxyv2"])?;
    if let Some((_, value)) = view
        .entry(IP_MODE)
        .filter(|(_, v)| !matches!(v.as_str(), Some("Proxy" | "VIP")))
    {
        if !old_controller(cx) {
            let text = value.as_str().unwrap_or_default();
            return Some(Triggered::Rejected(Rejected {
                at: value,
                annotation: IP_MODE,
                controller: "the cloudscale controller (`loadBalancerStatus`) refuses with",
                error: format!("unsupported IP mode: '{text}', must be 'Proxy' or 'VIP'"),
                help: format!("set `{IP_MODE}` to `Proxy` (the default) or `VIP`, or remove it"),
            }));
        }
    }
    Some(Triggered::proxy(at))
}

/// A controller stated before 1.1.0: it neither reads the annotations nor sets `ipMode`.
fn old_controller(cx: &Context<'_>) -> bool {
    matches!(
        controller_at_least(cx, CCM, IP_MODE_SINCE, "sets `ipMode: Proxy`"),
        Gate::No(_)
    )
}

/// `ipMode: Proxy` by default from 1.1.0; `VIP` turns it off.
fn ip_mode(cx: &Context<'_>, _: &EntryPoint, service: &Object) -> Gate {
    let since = controller_at_least(
        cx,
        CCM,
        IP_MODE_SINCE,
        "sets `ipMode: Proxy` on its load balancers by default",
    );
    if cx
        .lb_annotations(service)
        .key_if_in(IP_MODE, &["VIP"])
        .is_some()
        && !matches!(since, Gate::No(_))
    {
        Gate::No(format!(
            "`{IP_MODE}: VIP` turns off the controller's default `ipMode: Proxy`, so kube-proxy binds the \
             load balancer's IP on every node"
        ))
    } else {
        since
    }
}

/// `VIP` back to `Proxy`, where Kubernetes may honour it. Unsafe: in-cluster calls then
/// really cross the load balancer.
fn ip_mode_fix(cx: &Context<'_>, service: &Object, _: &str) -> Option<Fix> {
    let ws = cx.ws;
    let (_, value) = cx
        .lb_annotations(service)
        .entry(IP_MODE)
        .filter(|(_, v)| v.as_str() == Some("VIP"))?;
    if old_controller(cx) {
        return None;
    }
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
        "with {CCM} {IP_MODE_SINCE} or later (record it as `spec.addons.cloudControllerManager`): on \
         Kubernetes 1.30 or later, remove `{IP_MODE}: VIP` (the controller then sets `ipMode: Proxy`); \
         before 1.30, set `{FORCE_HOSTNAME}: <name>` with a DNS record for the name pointing at the \
         load balancer. Older controllers read neither annotation. See {SOURCE}"
    )
}
