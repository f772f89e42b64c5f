//! OpenStack OCCM's adapter (rules/OPENSTACK001.md; OVHcloud Octavia, Selectel, plusserver,
//! SCS): PROXY protocol bypassed by in-cluster calls. Ways out: a hostname annotation, the
//! OCCM option `enable-ingress-hostname`, or OCCM v1.30.0+, which sets `ipMode: Proxy`.

use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Profile, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;

use super::ProxyProvider;
use super::{controller_at_least, no_ip_mode_fix, Hostname, HostnameOption, Triggered};

const PROXY_PROTOCOL: &str = "loadbalancer.openstack.org/proxy-protocol";
const HOSTNAME: &str = "loadbalancer.openstack.org/hostname";
/// First OCCM that reads `v1` and `v2` (commit bcd8033, "octavia proxy protocol v2
/// support (#2635)").
const VERSIONS_SINCE: &str = "v1.31.0";
/// First OCCM that sets `ipMode: Proxy` (commit 7a4290e8c, PR #2587).
const IP_MODE_SINCE: &str = "v1.30.0";
const DOC: &str = "cloud-provider-openstack docs/openstack-cloud-controller-manager/\
                   expose-applications-using-loadbalancer-type-service.md (PROXY protocol)";

/// OPENSTACK001 openstack-proxy-protocol-in-cluster.
pub static OPENSTACK: ProxyProvider = ProxyProvider {
    provider: Provider::Openstack,
    meta: &meta::OPENSTACK001,
    trigger,
    hostname: Some(Hostname::Name(HOSTNAME)),
    // Without the option stated, it may still give the status a hostname.
    hostname_honoured: super::always,
    hostname_option: Some(HostnameOption {
        fact: Profile::ccm_enable_ingress_hostname,
        unstated: Some(
            "the OCCM option `enable-ingress-hostname`, which gives the status a hostname instead",
        ),
        annotation_overrides: false,
        // `enable-ingress-hostname` applies to PROXY-protocol load balancers only.
        proxy_only: true,
    }),
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// `getProxyProtocolFromServiceAnnotation` (v1.31.0 and later): exactly `true`, `v1` or
/// `v2`; before v1.31.0 the OCCM read it with `getBoolFromServiceAnnotation`, where only
/// `true` turns it on. Any other value is no PROXY protocol, not an error. An unstated
/// version reads as the current OCCM.
fn trigger<'w>(cx: &Context<'w>, _: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let before_versions = cx
        .profile
        .cloud_controller_manager()
        .value
        .and_then(|v| version::at_least(v, VERSIONS_SINCE))
        == Some(false);
    let accepted: &[&str] = if before_versions {
        &["true"]
    } else {
        &["true", "v1", "v2"]
    };
    Annotations::of(cx.ws, service)
        .key_if_in(PROXY_PROTOCOL, accepted)
        .map(Triggered::proxy)
}

fn ip_mode(cx: &Context<'_>, _: &EntryPoint, _: &Object) -> Gate {
    controller_at_least(
        cx,
        "the OpenStack cloud controller manager (OCCM)",
        IP_MODE_SINCE,
        "sets `ipMode: Proxy` on PROXY-protocol load balancers",
    )
}

fn help() -> String {
    format!(
        "set `{HOSTNAME}: <name>` (a DNS name for the load balancer), or run the OCCM with \
         `[LoadBalancer] enable-ingress-hostname=true`, or upgrade it to {IP_MODE_SINCE} or later (it sets \
         `ipMode: Proxy`; needs Kubernetes 1.30 or later) and record the version as \
         `spec.addons.cloudControllerManager`. See {DOC}"
    )
}
