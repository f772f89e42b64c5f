//! OpenStack OCCM's adapter (rules/OPENSTACK001.md; OVHcloud Octavia, Selectel, plusserver,
//! SCS): PROXY protocol or TLS termination (`TERMINATED_HTTPS` listeners) bypassed by
//! in-cluster calls. Ways out: a hostname annotation; for PROXY protocol also the OCCM option
//! `enable-ingress-hostname`, or OCCM v1.30.0+, which sets `ipMode: Proxy`.

use crate::catalog::meta;
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Profile, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::yaml::NodeRef;

use super::ProxyProvider;
use super::{controller_at_least, no_ip_mode_fix, Feature, Hostname, HostnameOption, Triggered};

const PROXY_PROTOCOL: &str = "loadbalancer.openstack.org/proxy-protocol";
const HOSTNAME: &str = "loadbalancer.openstack.org/hostname";
const TLS_CONTAINER_REF: &str = "loadbalancer.openstack.org/default-tls-container-ref";
/// First OCCM that reads `default-tls-container-ref` (`TERMINATED_HTTPS` listeners).
const TLS_SINCE: &str = "v1.21.0";
/// First OCCM that reads `v1` and `v2` (commit bcd8033, "octavia proxy protocol v2
/// support (#2635)").
const VERSIONS_SINCE: &str = "v1.31.0";
/// First OCCM that sets `ipMode: Proxy` (commit 7a4290e8c, PR #2587).
const IP_MODE_SINCE: &str = "v1.30.0";
const DOC: &str = "cloud-provider-openstack docs/openstack-cloud-controller-manager/\
                   expose-applications-using-loadbalancer-type-service.md (PROXY protocol)";

/// OPENSTACK001 openstack-proxy-protocol-in-cluster.
pub(crate) static OPENSTACK: ProxyProvider = ProxyProvider {
    provider: Provider::Openstack,
    meta: &meta::OPENSTACK001,
    trigger,
    hostname: Some(Hostname::Name(HOSTNAME)),
    // Without the option stated, it may still give the status a hostname.
    hostname_honoured: super::always,
    hostname_option: Some(HostnameOption {
        fact: Profile::ccm_enable_ingress_hostname,
        default: "OCCM's `[LoadBalancer] enable-ingress-hostname` is false unless set",
        annotation_overrides: false,
        // `enable-ingress-hostname` applies to PROXY-protocol load balancers only.
        proxy_only: true,
    }),
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// PROXY protocol (`getProxyProtocolFromServiceAnnotation`), else TLS termination. `v1` or
/// `v2` with the OCCM's version unstated: on only from v1.31.0, so uncertain.
fn trigger<'w>(cx: &Context<'w>, _: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let triggered = Triggered::either(proxy_protocol(cx, service), tls_termination(cx, service))?;
    let stated = cx.profile.cloud_controller_manager();
    let version_named = cx
        .lb_annotations(service)
        .text(PROXY_PROTOCOL)
        .is_some_and(|v| v == "v1" || v == "v2");
    match triggered {
        Triggered::On(feature @ Feature::ProxyProtocol, at)
            if version_named && stated.value.is_none() =>
        {
            Some(Triggered::Uncertain(
                feature,
                at,
                format!(
                    "whether the OCCM reads this value: {}",
                    stated.unknown(&format!(
                        "OCCM {VERSIONS_SINCE} and later read `v1` and `v2` as PROXY protocol; \
                         before, only `true`"
                    ))
                ),
            ))
        }
        triggered => Some(triggered),
    }
}

/// `getProxyProtocolFromServiceAnnotation` (v1.31.0 and later): exactly `true`, `v1` or
/// `v2`; before v1.31.0 the OCCM read it with `getBoolFromServiceAnnotation`, where only
/// `true` turns it on. Any other value is no PROXY protocol, not an error. An unstated
/// version reads as the current OCCM here; `trigger` makes `v1`/`v2` uncertain then.
fn proxy_protocol<'w>(cx: &Context<'w>, service: &Object) -> Option<NodeRef<'w>> {
    let accepted: &[&str] = if before(cx, VERSIONS_SINCE) {
        &["true"]
    } else {
        &["true", "v1", "v2"]
    };
    cx.lb_annotations(service)
        .key_if_in(PROXY_PROTOCOL, accepted)
}

/// `default-tls-container-ref` written and not empty (`getStringFromServiceAnnotation`; an
/// empty value overrides the cloud config's default): every listener is `TERMINATED_HTTPS`
/// and its pool HTTP (`getListenerProtocol`, `buildPoolCreateOpt`). The cloud config's own
/// `default-tls-container-ref` is not in the profile: unset, its default.
fn tls_termination<'w>(cx: &Context<'w>, service: &Object) -> Option<NodeRef<'w>> {
    if before(cx, TLS_SINCE) {
        return None;
    }
    let view = cx.lb_annotations(service);
    let (key, value) = view.entry(TLS_CONTAINER_REF)?;
    value.as_str().filter(|v| !v.is_empty()).map(|_| key)
}

/// The OCCM is stated, and before `since`.
fn before(cx: &Context<'_>, since: &str) -> bool {
    cx.profile
        .cloud_controller_manager()
        .value
        .and_then(|v| version::at_least(v, since))
        == Some(false)
}

/// `createLoadBalancerStatus`: `ipMode: Proxy` only with PROXY protocol (from v1.30.0); a
/// TLS-only load balancer keeps `VIP`.
fn ip_mode(cx: &Context<'_>, _: &EntryPoint, service: &Object) -> Gate {
    if proxy_protocol(cx, service).is_none() {
        return Gate::No(
            "the OCCM sets `ipMode: Proxy` only on PROXY-protocol load balancers, so this one, whose \
             listeners terminate TLS without PROXY protocol, keeps `ipMode: VIP`"
                .to_string(),
        );
    }
    controller_at_least(
        cx,
        "the OpenStack cloud controller manager (OCCM)",
        IP_MODE_SINCE,
        "sets `ipMode: Proxy` on PROXY-protocol load balancers",
    )
}

fn help() -> String {
    format!(
        "set `{HOSTNAME}: <name>` (a DNS name for the load balancer); for PROXY protocol, also: run the \
         OCCM with `[LoadBalancer] enable-ingress-hostname=true`, or upgrade it to {IP_MODE_SINCE} or later \
         (it sets `ipMode: Proxy`; needs Kubernetes 1.30 or later) and record the version as \
         `spec.addons.cloudControllerManager`. TLS termination alone gets neither. See {DOC}"
    )
}
