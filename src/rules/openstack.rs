//! OpenStack OCCM (rules/OPENSTACK001.md; OVHcloud Octavia, Selectel, plusserver, SCS).
//! OPENSTACK001: PROXY protocol bypassed by in-cluster calls. Ways out: a hostname annotation,
//! the OCCM option `enable-ingress-hostname`, or OCCM v1.30.0+, which sets `ipMode: Proxy`.

use crate::diagnostic::Diagnostic;
use crate::profile::Provider;
use crate::rules::proxy_protocol::{annotation_in, controller_at_least, hostname_way_out};
use crate::rules::proxy_protocol::{
    hostname_suggestion, report, services_of, Bypass, Feature, Trap,
};
use crate::rules::upstream::{ip_mode_proxy_honoured, Gate};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::OPENSTACK001 as META;

const PROXY_PROTOCOL: &str = "loadbalancer.openstack.org/proxy-protocol";
const HOSTNAME: &str = "loadbalancer.openstack.org/hostname";
/// First OCCM that sets `ipMode: Proxy` (commit 7a4290e8c, PR #2587).
const IP_MODE_SINCE: &str = "v1.30.0";
const DOC: &str = "cloud-provider-openstack docs/openstack-cloud-controller-manager/\
                   expose-applications-using-loadbalancer-type-service.md (PROXY protocol)";

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let ingress_hostname = cx.profile.ccm_enable_ingress_hostname();
        if ingress_hostname.value == Some(true) {
            return;
        }
        for (index, entry, service) in services_of(cx, Provider::Openstack) {
            let Some(at) = annotation_in(ws, service, PROXY_PROTOCOL, &["true", "v1", "v2"]) else {
                continue;
            };
            if hostname_way_out(cx, entry, HOSTNAME) {
                continue;
            }
            let sets_proxy = controller_at_least(
                cx,
                "the OpenStack cloud controller manager (OCCM)",
                IP_MODE_SINCE,
                "sets `ipMode: Proxy` on PROXY-protocol load balancers",
            );
            let way_out = match (sets_proxy.and(ip_mode_proxy_honoured(cx)), ingress_hostname.value) {
                // Without the option stated, it may still give the status a hostname.
                (Gate::No(why) | Gate::Unknown(why), None) => Gate::Unknown(format!(
                    "{why}; and on {} (the OCCM option `enable-ingress-hostname`, which gives the status a \
                     hostname instead)",
                    ingress_hostname.field()
                )),
                (gate, _) => gate,
            };
            let Some(bypass) = Bypass::unless(way_out) else {
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
                    "set `{HOSTNAME}: <name>` (a DNS name for the load balancer), or run the OCCM with \
                     `[LoadBalancer] enable-ingress-hostname=true`, or upgrade it to {IP_MODE_SINCE} or later (it sets \
                     `ipMode: Proxy`; needs Kubernetes 1.30 or later) and record the version as \
                     `spec.addons.cloudControllerManager`. See {DOC}"
                ),
                edits,
            };
            report(cx, &META, index, entry, trap, out);
        }
    }
}
