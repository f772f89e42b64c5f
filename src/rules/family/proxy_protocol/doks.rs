//! DigitalOcean DOKS's adapter (rules/DOKS001.md): PROXY protocol or TLS termination on the
//! load balancer, bypassed by in-cluster calls. The controller never sets `ipMode: Proxy`;
//! only a hostname status avoids the shortcut. DOKS002 (`rules::doks`) reads the hostname
//! annotation too.

use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{no_ip_mode_fix, Feature, Hostname, ProxyProvider};

const PREFIX: &str = "service.beta.kubernetes.io/do-loadbalancer-";
pub const HOSTNAME: &str = "service.beta.kubernetes.io/do-loadbalancer-hostname";
pub const DOC: &str =
    "DigitalOcean cloud controller manager, docs/controllers/services/annotations.md \
                   (do-loadbalancer-hostname) and examples/README.md";

/// DOKS001 doks-proxy-protocol-in-cluster.
pub static DOKS: ProxyProvider = ProxyProvider {
    provider: Provider::Doks,
    meta: &meta::DOKS001,
    trigger,
    hostname: Hostname::Name(HOSTNAME),
    hostname_option: None,
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

fn key(suffix: &str) -> String {
    format!("{PREFIX}{suffix}")
}

/// PROXY protocol, else TLS terminated on the load balancer (HTTPS or HTTP/2 with a
/// certificate or TLS ports, not passed through).
fn trigger<'w>(
    cx: &Context<'w>,
    _: &EntryPoint,
    service: &Object,
) -> Option<(Feature, NodeRef<'w>)> {
    let ws = cx.ws;
    let proxy = Annotations::of(ws, service)
        .key_if_in(&key("enable-proxy-protocol"), &["true"])
        .map(|at| (Feature::ProxyProtocol, at));
    let tls = || {
        let protocol = Annotations::of(ws, service).non_empty(&key("protocol"))?;
        if !matches!(protocol, "https" | "http2")
            || Annotations::of(ws, service).non_empty(&key("tls-passthrough")) == Some("true")
        {
            return None;
        }
        let (at, _) = Annotations::of(ws, service)
            .entry(&key("certificate-id"))
            .or_else(|| Annotations::of(ws, service).entry(&key("tls-ports")))?;
        Some((Feature::TlsTermination, at))
    };
    proxy.or_else(tls)
}

fn ip_mode(_: &Context<'_>, _: &EntryPoint, _: &Object) -> Gate {
    Gate::No(format!(
        "DigitalOcean's controller never sets `ipMode: Proxy`, and without `{HOSTNAME}` the Service's \
         status carries the load balancer's IP"
    ))
}

fn help() -> String {
    format!(
        "create a DNS record for a name (say lb.example.com) that points at the load balancer's \
         IP, then add `{HOSTNAME}: lb.example.com` and have clients use that name: the status then has a \
         hostname, which kube-proxy cannot short-circuit, so in-cluster calls go through the load \
         balancer too. See {DOC}"
    )
}
