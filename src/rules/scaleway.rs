//! Scaleway Kapsule (rules/SCALEWAY001.md). SCALEWAY001: PROXY protocol bypassed by
//! in-cluster calls. The controller sets `ipMode: Proxy` from v0.33.0, and only when PROXY
//! protocol is on for every port of the Service (or the Service asks for it).

use crate::diagnostic::Applicability;
use crate::diagnostic::Diagnostic;
use crate::model::views::ServiceView;
use crate::profile::version;
use crate::profile::Provider;
use crate::rules::edit;
use crate::rules::proxy_protocol::{add_annotation, Bypass, Feature, Trap};
use crate::rules::proxy_protocol::{controller_at_least, hostname_way_out, report, services_of};
use crate::rules::upstream::{ip_mode_proxy_honoured, Gate};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::SCALEWAY001 as META;

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
        let node_port = p.node.get("nodePort").and_then(|n| n.as_i64());
        lists
            .iter()
            .flatten()
            .any(|&n| Some(n) == p.port || Some(n) == node_port)
    })
}

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry, service) in services_of(cx, Provider::Scaleway) {
            let Some(view) = cx.views.service(entry.object) else {
                continue;
            };
            if hostname_way_out(cx, entry, USE_HOSTNAME) {
                continue;
            }
            let mut at = None;
            let mut all = false;
            let mut lists = Vec::new();
            for key in PROXY_ANNOTATIONS {
                let Some((k, v)) = ws.annotation(service, key) else {
                    continue;
                };
                match v.as_str().and_then(covered) {
                    Some(Ports::All) => all = true,
                    Some(Ports::Some(ports)) => lists.push(ports),
                    None => continue,
                }
                at.get_or_insert(k);
            }
            let Some(at) = at else {
                continue;
            };
            let all = all || every_port(view, &lists);
            let override_mode = ws
                .annotation(service, IP_MODE)
                .and_then(|(_, v)| v.as_str());
            let sets_proxy = match override_mode {
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
            };
            let Some(bypass) = Bypass::unless(sets_proxy.and(ip_mode_proxy_honoured(cx))) else {
                continue;
            };
            let after = at.as_str().unwrap_or_default();
            // Unsafe: in-cluster calls then really cross the load balancer (latency, its limits).
            // A controller before v0.33.0 ignores the ip-mode annotation: only the hostname helps.
            let old_controller = cx
                .profile
                .cloud_controller_manager()
                .value
                .and_then(|v| version::at_least(v, IP_MODE_SINCE))
                == Some(false);
            let ip_mode_fix = match ws.annotation(service, IP_MODE) {
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
            };
            let hostname_fix = add_annotation(
                ws,
                service,
                after,
                (USE_HOSTNAME, "\"true\""),
                Applicability::Unsafe,
            );
            let edits: Vec<_> = if old_controller {
                hostname_fix.into_iter().collect()
            } else {
                ip_mode_fix.into_iter().chain(hostname_fix).collect()
            };
            let trap = Trap {
                feature: Feature::ProxyProtocol,
                at,
                bypass,
                fix: format!(
                    "add `{IP_MODE}: \"Proxy\"` (Scaleway cloud controller manager {IP_MODE_SINCE} or later, \
                     Kubernetes 1.30 or later), or `{USE_HOSTNAME}: \"true\"` (the status then holds a hostname, which \
                     kube-proxy cannot short-circuit). See {DOC}"
                ),
                edits,
            };
            report(cx, &META, index, entry, trap, out);
        }
    }
}
