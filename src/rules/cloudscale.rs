//! cloudscale.ch (rules/CLOUDSCALE001.md). CLOUDSCALE001: a PROXY-protocol pool whose in-cluster
//! calls are short-circuited: the controller sets `ipMode: Proxy` by default from Kubernetes
//! 1.30, unless the Service forces `VIP`; before 1.30 only a forced hostname helps.

use crate::diagnostic::Applicability;
use crate::diagnostic::Diagnostic;
use crate::profile::Provider;
use crate::rules::edit;
use crate::rules::proxy_protocol::{annotation_in, hostname_way_out, report, services_of};
use crate::rules::proxy_protocol::{hostname_suggestion, Bypass, Feature, Trap};
use crate::rules::upstream::ip_mode_proxy_honoured;
use crate::rules::upstream::{kubernetes_has_ip_mode, Gate};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::CLOUDSCALE001 as META;

const POOL_PROTOCOL: &str = "k8s.cloudscale.ch/loadbalancer-pool-protocol";
const IP_MODE: &str = "k8s.cloudscale.ch/loadbalancer-ip-mode";
const FORCE_HOSTNAME: &str = "k8s.cloudscale.ch/loadbalancer-force-hostname";
const SOURCE: &str = "cloudscale-cloud-controller-manager pkg/cloudscale_ccm/loadbalancer.go \
                      (https://github.com/cloudscale-ch/cloudscale-cloud-controller-manager)";

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry, service) in services_of(cx, Provider::Cloudscale) {
            let Some(at) = annotation_in(ws, service, POOL_PROTOCOL, &["proxy", "proxyv2"]) else {
                continue;
            };
            if hostname_way_out(cx, entry, FORCE_HOSTNAME) {
                continue;
            }
            let bypass = if annotation_in(ws, service, IP_MODE, &["VIP"]).is_some() {
                Some(Bypass::Sure(format!(
                    "`{IP_MODE}: VIP` turns off the controller's default `ipMode: Proxy`, so kube-proxy binds the \
                     load balancer's IP on every node"
                )))
            } else {
                Bypass::unless(ip_mode_proxy_honoured(cx))
            };
            let Some(bypass) = bypass else {
                continue;
            };
            let after = at.as_str().unwrap_or_default();
            let vip = ws
                .annotation(service, IP_MODE)
                .filter(|(_, v)| v.as_str() == Some("VIP"));
            let proxy_fix = match (vip, kubernetes_has_ip_mode(cx)) {
                // Unsafe: in-cluster calls then really cross the load balancer.
                (Some((_, value)), Gate::Yes | Gate::Unknown(_)) => edit::replace_scalar(
                    ws,
                    service,
                    value,
                    "Proxy",
                    format!("set `{IP_MODE}` to `Proxy` (Kubernetes 1.30 or later)"),
                    Applicability::Unsafe,
                ),
                _ => None,
            };
            let edits: Vec<_> = proxy_fix
                .into_iter()
                .chain(hostname_suggestion(ws, service, after, FORCE_HOSTNAME))
                .collect();
            let trap = Trap {
                feature: Feature::ProxyProtocol,
                at,
                bypass,
                fix: format!(
                    "on Kubernetes 1.30 or later, remove `{IP_MODE}: VIP` (the controller then sets `ipMode: Proxy`); \
                     before 1.30, set `{FORCE_HOSTNAME}: <name>` with a DNS record for the name pointing at the \
                     load balancer. See {SOURCE}"
                ),
                edits,
            };
            report(cx, &META, index, entry, trap, out);
        }
    }
}
