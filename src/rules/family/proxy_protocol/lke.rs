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

use super::{no_ip_mode_fix, Hostname, HostnameOption, ProxyProvider, Rejected, Triggered};

const DEFAULT_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol";
/// Still read when the current key is missing (`loadbalancers_deprecated.go`).
const DEPRECATED_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-proxy-protocol";
const DEFAULT_PROTOCOL: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-protocol";
const PORT_ANNOTATION: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-<N>";
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
    hostname: Some(Hostname::Flag(HOSTNAME_ONLY)),
    hostname_honoured: super::always,
    // `LINODE_HOSTNAME_ONLY_INGRESS`; off unless the profile says so (`envBoolOptions`:
    // unset is false), and the Service's own annotation, whatever its value, wins over it
    // (`makeLoadBalancerStatus`).
    hostname_option: Some(HostnameOption {
        fact: Profile::ccm_hostname_only_ingress,
        unstated: None,
        annotation_overrides: true,
        proxy_only: false,
    }),
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// A port's own setting from its `port-<N>` JSON (`getPortConfigAnnotation`): `None` when
/// the annotation is missing, its JSON does not parse (the controller then fails with Go's
/// JSON error, which lblint does not imitate), or its `proxy-protocol` is empty.
fn port_setting<'w>(value: NodeRef<'w>, field: &str) -> Option<String> {
    let json: serde_json::Value = serde_json::from_str(value.as_str()?).ok()?;
    json.get(field)?
        .as_str()
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// The first Service port that speaks PROXY protocol, as `getPortProxyProtocol` reads it:
/// the port's own `proxy-protocol`, else `…-default-proxy-protocol`, else the deprecated
/// `…-proxy-protocol`, lower-cased; `none`, `v1` or `v2`, anything else an error; and not on
/// a UDP port.
fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let view = Annotations::of(cx.ws, service);
    let service_view = cx.views.service(entry.object)?;
    let default = view.first_of(&[DEFAULT_PROXY, DEPRECATED_PROXY]);
    for port in service_view.ports.iter() {
        let Some(number) = port.port else { continue };
        let own = view.entry(&format!("{PORT_PREFIX}{number}"));
        let (key, value, setting) = match (
            own.and_then(|(k, v)| port_setting(v, "proxy-protocol").map(|p| (k, v, p))),
            default,
        ) {
            (Some(own), _) => own,
            (None, Some((key, value))) => (key, value, value.as_str()?.to_string()),
            (None, None) => continue,
        };
        let setting = setting.to_lowercase();
        let annotation = annotation_name(key);
        if !matches!(setting.as_str(), "none" | "v1" | "v2") {
            return Some(Triggered::Rejected(rejected(
                value,
                annotation,
                format!("invalid NodeBalancer proxy protocol value '{setting}'"),
            )));
        }
        if setting == "none" {
            continue;
        }
        // `getPortProtocol`: the port's own `protocol`, else `…-default-protocol`, else the
        // port's protocol, lower-cased.
        let protocol = own
            .and_then(|(_, v)| port_setting(v, "protocol"))
            .or_else(|| view.text(DEFAULT_PROTOCOL).map(str::to_string))
            .unwrap_or_else(|| port.protocol.to_string());
        if protocol.eq_ignore_ascii_case("udp") {
            return Some(Triggered::Rejected(rejected(
                value,
                annotation,
                format!("proxy protocol [{setting}] is not supported for UDP"),
            )));
        }
        return Some(Triggered::proxy(key));
    }
    None
}

/// The annotation a key node names (one of the keys the trigger reads).
fn annotation_name(key: NodeRef<'_>) -> &'static str {
    match key.as_str() {
        Some(DEFAULT_PROXY) => DEFAULT_PROXY,
        Some(DEPRECATED_PROXY) => DEPRECATED_PROXY,
        _ => PORT_ANNOTATION,
    }
}

fn rejected<'w>(at: NodeRef<'w>, annotation: &'static str, error: String) -> Rejected<'w> {
    Rejected {
        at,
        annotation,
        controller: "Linode's controller (`getPortProxyProtocol`) refuses with",
        error,
        help: "use `none`, `v1` or `v2` (any case), and PROXY protocol only on TCP ports"
            .to_string(),
    }
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
