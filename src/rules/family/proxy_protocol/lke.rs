//! Linode / Akamai LKE's adapter (rules/LKE001.md): PROXY protocol on the NodeBalancer,
//! bypassed by in-cluster calls. The controller never sets `ipMode: Proxy`, and only a
//! hostname-only status avoids the shortcut.

use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{Profile, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::meta;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{no_ip_mode_fix, Feature, Hostname, HostnameOption, ProxyProvider};

const DEFAULT_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol";
const PORT_PREFIX: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-";
pub const HOSTNAME_ONLY: &str =
    "service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress";
const DOC: &str = "linode-cloud-controller-manager docs/configuration/annotations.md \
                   (https://github.com/linode/linode-cloud-controller-manager)";

/// LKE001 lke-proxy-protocol-in-cluster.
pub static LKE: ProxyProvider = ProxyProvider {
    provider: Provider::Lke,
    meta: &meta::LKE001,
    trigger,
    hostname: Hostname::Flag(HOSTNAME_ONLY),
    // `LINODE_HOSTNAME_ONLY_INGRESS`; off unless the profile says so.
    hostname_option: Some(HostnameOption {
        fact: Profile::ccm_hostname_only_ingress,
        unstated: None,
    }),
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

fn speaks_proxy(value: &str) -> bool {
    matches!(value, "v1" | "v2")
}

/// The `proxy-protocol` of a per-port annotation's JSON value, when it parses.
fn port_proxy(value: NodeRef<'_>) -> Option<String> {
    let json: serde_json::Value = serde_json::from_str(value.as_str()?).ok()?;
    json.get("proxy-protocol")?.as_str().map(str::to_string)
}

/// The first Service port that speaks PROXY protocol: each port speaks what its own
/// annotation says, else the default.
fn trigger<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<(Feature, NodeRef<'w>)> {
    let ws = cx.ws;
    let view = cx.views.service(entry.object)?;
    let default = Annotations::of(ws, service).entry(DEFAULT_PROXY);
    for port in view.ports.iter().filter_map(|p| p.port) {
        let own = Annotations::of(ws, service).entry(&format!("{PORT_PREFIX}{port}"));
        let own_setting = own.and_then(|(k, v)| port_proxy(v).map(|p| (k, p)));
        let (key, setting) = match (own_setting, default) {
            (Some((key, setting)), _) => (key, setting),
            (None, Some((key, value))) => match value.as_str() {
                Some(v) => (key, v.to_string()),
                None => continue,
            },
            (None, None) => continue,
        };
        if speaks_proxy(&setting) {
            return Some((Feature::ProxyProtocol, key));
        }
    }
    None
}

fn ip_mode(_: &Context<'_>, _: &EntryPoint, _: &Object) -> Gate {
    Gate::No(format!(
        "Linode's controller never sets `ipMode: Proxy`, and without `{HOSTNAME_ONLY}: \"true\"` the \
         Service's status carries the NodeBalancer's IP"
    ))
}

fn help() -> String {
    format!(
        "add `{HOSTNAME_ONLY}: \"true\"`: the status then holds only the NodeBalancer's hostname, which \
         kube-proxy cannot short-circuit, so in-cluster calls go through the NodeBalancer and get the \
         PROXY header (clients must use a DNS name, not the IP). See {DOC}"
    )
}
