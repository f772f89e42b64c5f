//! Scaleway Kapsule's adapter (rules/SCALEWAY001.md): PROXY protocol bypassed by in-cluster
//! calls. The controller sets `ipMode: Proxy` from v0.33.0, and only when PROXY protocol is
//! on for every port of the Service (or the Service asks for it).

use crate::diagnostic::{Applicability, Fix};
use crate::model::views::ServiceView;
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Provider};
use crate::rules::edit;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{add_annotation, controller_at_least, Feature, Hostname, ProxyProvider};

const PROXY_ANNOTATIONS: [&str; 3] = [
    "service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v1",
    "service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v2",
    // Deprecated spelling, still read.
    "service.beta.kubernetes.io/scw-loadbalancer-send-proxy-v2",
];
const CCM: &str = "the Scaleway cloud controller manager";
const IP_MODE: &str = "service.beta.kubernetes.io/scw-loadbalancer-ip-mode";
const USE_HOSTNAME: &str = "service.beta.kubernetes.io/scw-loadbalancer-use-hostname";
/// First release with ipMode support (commit e08417d, "feat: implement ipMode (#185)").
const IP_MODE_SINCE: &str = "v0.33.0";
const DOC: &str = "scaleway-cloud-controller-manager docs/loadbalancer-annotations.md \
                   (https://github.com/scaleway/scaleway-cloud-controller-manager)";

/// SCALEWAY001 scaleway-proxy-protocol-in-cluster.
pub static SCALEWAY: ProxyProvider = ProxyProvider {
    provider: Provider::Scaleway,
    meta: &meta::SCALEWAY001,
    trigger,
    hostname: Hostname::Flag(USE_HOSTNAME),
    hostname_option: None,
    ip_mode,
    ip_mode_fix,
    help,
};

/// Which ports a PROXY annotation value covers: all (`true`, `*`), none (`false`), or a
/// comma-separated list of port numbers.
enum Ports {
    All,
    Some(Vec<i64>),
}

fn covered(value: &str) -> Option<Ports> {
    match value.trim() {
        "true" | "*" => Some(Ports::All),
        "false" | "" => None,
        list => {
            let ports: Vec<i64> = list
                .split(',')
                .filter_map(|p| p.trim().parse().ok())
                .collect();
            (!ports.is_empty()).then_some(Ports::Some(ports))
        }
    }
}

/// Whether every Service port (by port or nodePort) is in the lists.
fn every_port(view: &ServiceView<'_>, lists: &[Vec<i64>]) -> bool {
    view.ports.iter().all(|p| {
        let node_port = p.node_port.and_then(|n| n.as_i64());
        lists
            .iter()
            .flatten()
            .any(|&n| Some(n) == p.port || Some(n) == node_port)
    })
}

/// The first PROXY annotation that covers a port, and whether PROXY protocol is on for
/// every port of the Service.
fn proxy_ports<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<(NodeRef<'w>, bool)> {
    let view = cx.views.service(entry.object)?;
    let mut at = None;
    let mut all = false;
    let mut lists = Vec::new();
    for key in PROXY_ANNOTATIONS {
        let Some((k, v)) = Annotations::of(cx.ws, service).entry(key) else {
            continue;
        };
        match v.as_str().and_then(covered) {
            Some(Ports::All) => all = true,
            Some(Ports::Some(ports)) => lists.push(ports),
            None => continue,
        }
        at.get_or_insert(k);
    }
    Some((at?, all || every_port(view, &lists)))
}

fn trigger<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<(Feature, NodeRef<'w>)> {
    proxy_ports(cx, entry, service).map(|(at, _)| (Feature::ProxyProtocol, at))
}

/// The Service's own `ip-mode` annotation decides; without it, PROXY protocol on every port.
fn ip_mode(cx: &Context<'_>, entry: &EntryPoint, service: &Object) -> Gate {
    let all = proxy_ports(cx, entry, service).is_some_and(|(_, all)| all);
    let override_mode = Annotations::of(cx.ws, service)
        .entry(IP_MODE)
        .and_then(|(_, v)| v.as_str());
    match override_mode {
        Some("VIP") => Gate::No(format!(
            "the Service sets `{IP_MODE}: VIP`, so the controller keeps the IP short-circuited"
        )),
        Some("Proxy") => controller_at_least(
            cx,
            CCM,
            IP_MODE_SINCE,
            "honours `scw-loadbalancer-ip-mode`",
        ),
        _ if all => controller_at_least(
            cx,
            CCM,
            IP_MODE_SINCE,
            "sets `ipMode: Proxy` when PROXY protocol is on for every port",
        ),
        _ => Gate::No(
            "PROXY protocol is on for only some of the Service's ports, and the Scaleway controller sets \
             `ipMode: Proxy` only when it is on for all of them"
                .to_string(),
        ),
    }
}

/// `ip-mode: Proxy`, unsafe: in-cluster calls then really cross the load balancer (latency,
/// its limits). A controller before v0.33.0 ignores the annotation: only the hostname helps.
fn ip_mode_fix(cx: &Context<'_>, service: &Object, after: &str) -> Option<Fix> {
    let ws = cx.ws;
    let old_controller = cx
        .profile
        .cloud_controller_manager()
        .value
        .and_then(|v| version::at_least(v, IP_MODE_SINCE))
        == Some(false);
    if old_controller {
        return None;
    }
    match Annotations::of(ws, service).entry(IP_MODE) {
        Some((_, value)) if value.as_str() == Some("VIP") => edit::replace_scalar(
            ws,
            service,
            value,
            "Proxy",
            format!("set `{IP_MODE}` to `Proxy`"),
            Applicability::Unsafe,
        ),
        Some(_) => None,
        None => add_annotation(
            ws,
            service,
            after,
            (IP_MODE, "\"Proxy\""),
            Applicability::Unsafe,
        ),
    }
}

fn help() -> String {
    format!(
        "add `{IP_MODE}: \"Proxy\"` (Scaleway cloud controller manager {IP_MODE_SINCE} or later, \
         Kubernetes 1.30 or later), or `{USE_HOSTNAME}: \"true\"` (the status then holds a hostname, which \
         kube-proxy cannot short-circuit). See {DOC}"
    )
}
