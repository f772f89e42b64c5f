//! Linode / Akamai LKE's adapter (rules/LKE001.md): PROXY protocol or TLS termination (an
//! `https` port with its `tls-secret-name`) on the NodeBalancer, bypassed by in-cluster calls. The controller never sets `ipMode: Proxy`, and only a
//! hostname-only status avoids the shortcut.

use crate::catalog::meta;
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{Profile, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::yaml::go_json::{go_unmarshal_strings, GoJsonError};
use crate::yaml::NodeRef;

use super::{no_ip_mode_fix, Hostname, HostnameOption, ProxyProvider, Rejected, Triggered};

const DEFAULT_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol";
/// Still read when the current key is missing (`loadbalancers_deprecated.go`).
const DEPRECATED_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-proxy-protocol";
const DEFAULT_PROTOCOL: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-protocol";
const PORT_ANNOTATION: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-<N>";
const PORT_PREFIX: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-";
pub(crate) const HOSTNAME_ONLY: &str =
    "service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress";
const DOC: &str = "linode-cloud-controller-manager docs/configuration/annotations.md \
                   (https://github.com/linode/linode-cloud-controller-manager)";

/// LKE001 lke-proxy-protocol-in-cluster.
pub(crate) static LKE: ProxyProvider = ProxyProvider {
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
        default: "`LINODE_HOSTNAME_ONLY_INGRESS` is unset, so statuses carry the IP",
        annotation_overrides: true,
        proxy_only: false,
    }),
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

/// The fields of `portConfigAnnotation` that lblint reads from a `port-<N>` JSON.
const PORT_FIELDS: &[&str] = &["tls-secret-name", "protocol", "proxy-protocol"];

/// A port's own settings from its `port-<N>` JSON, decoded as `getPortConfigAnnotation`
/// does (`json.Unmarshal` into `portConfigAnnotation`): empty without the annotation; a
/// refusal when Go cannot decode it, which stops `getPortConfig` first.
fn port_settings<'w>(
    own: Option<(NodeRef<'w>, NodeRef<'w>)>,
) -> Result<Vec<(&'static str, String)>, Rejected<'w>> {
    let Some((_, value)) = own else {
        return Ok(Vec::new());
    };
    let Some(text) = value.as_str() else {
        return Ok(Vec::new());
    };
    go_unmarshal_strings(text, "linode.portConfigAnnotation", PORT_FIELDS).map_err(|e| {
        let mut r = rejected(
            value,
            PORT_ANNOTATION,
            "getPortConfigAnnotation",
            match e {
                GoJsonError::Go(text) => text,
                GoJsonError::Syntax(text) => {
                    format!("invalid JSON ({text}, as lblint's parser puts it)")
                }
            },
        );
        r.help = "write the annotation as a JSON object of strings, e.g. \
                  `{\"protocol\": \"https\", \"tls-secret-name\": \"my-tls\"}`"
            .to_string();
        r
    })
}

/// `getPortConfig` for each Service port, in order (the first error stops the controller):
/// the protocol (`getPortProtocol`: the port's own `protocol`, else
/// `…-default-protocol`, else the port's protocol, lower-cased; `tcp`, `udp`, `http` or
/// `https`), then PROXY protocol (`getPortProxyProtocol`: the port's own
/// `proxy-protocol`, else `…-default-proxy-protocol`, else the deprecated
/// `…-proxy-protocol`, lower-cased; `none`, `v1` or `v2`, and not on UDP), then
/// `tls-secret-name` (not on UDP). An `https` port terminates TLS with its
/// `tls-secret-name` (`getTLSCertInfo` refuses it missing). PROXY protocol on any port wins.
fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let (mut proxy, mut tls) = (None, None);
    for port in &cx.lb_ports(entry) {
        let Some(number) = port.port else { continue };
        match port_config(cx, service, number, port.protocol) {
            Err(r) => return Some(Triggered::Rejected(r)),
            Ok(Port::Proxy(at)) => proxy = proxy.or(Some(at)),
            Ok(Port::Tls(at)) => tls = tls.or(Some(at)),
            Ok(Port::Plain) => {}
        }
    }
    Triggered::either(proxy, tls)
}

/// What the controller makes of one port, with the key that turns its feature on.
enum Port<'w> {
    Proxy(NodeRef<'w>),
    Tls(NodeRef<'w>),
    Plain,
}

fn port_config<'w>(
    cx: &Context<'w>,
    service: &Object,
    number: i64,
    port_protocol: &str,
) -> Result<Port<'w>, Rejected<'w>> {
    let view = cx.lb_annotations(service);
    let own = view.entry(&format!("{PORT_PREFIX}{number}"));
    let settings = port_settings(own)?;
    let own_setting = |field: &str| {
        let (k, v) = own?;
        let (_, setting) = settings
            .iter()
            .find(|(f, s)| *f == field && !s.is_empty())?;
        Some((k, v, setting.clone()))
    };
    // Where the protocol comes from: (key, value) of the annotation that sets it.
    let (protocol_from, protocol) = match own_setting("protocol") {
        Some((k, v, p)) => (Some((k, v)), p),
        None => match view.entry(DEFAULT_PROTOCOL) {
            Some((k, v)) => (Some((k, v)), v.as_str().unwrap_or_default().to_string()),
            None => (None, port_protocol.to_string()),
        },
    };
    let protocol = protocol.to_lowercase();
    if !matches!(protocol.as_str(), "tcp" | "udp" | "http" | "https") {
        // A Service port's own protocol (SCTP) has no annotation to point at.
        let Some((key, at)) = protocol_from else {
            return Ok(Port::Plain);
        };
        return Err(rejected(
            at,
            annotation_name(key),
            "getPortProtocol",
            format!("invalid protocol: {protocol:?} specified"),
        ));
    }
    let proxy = match (
        own_setting("proxy-protocol"),
        view.first_of(&[DEFAULT_PROXY, DEPRECATED_PROXY]),
    ) {
        (Some(own), _) => Some(own),
        (None, Some((key, value))) => {
            Some((key, value, value.as_str().unwrap_or_default().to_string()))
        }
        (None, None) => None,
    };
    if let Some((key, value, setting)) = proxy {
        let setting = setting.to_lowercase();
        let annotation = annotation_name(key);
        if !matches!(setting.as_str(), "none" | "v1" | "v2") {
            return Err(proxy_rejected(
                value,
                annotation,
                format!("invalid NodeBalancer proxy protocol value '{setting}'"),
            ));
        }
        if setting != "none" {
            if protocol == "udp" {
                return Err(proxy_rejected(
                    value,
                    annotation,
                    format!("proxy protocol [{setting}] is not supported for UDP"),
                ));
            }
            return Ok(Port::Proxy(key));
        }
    }
    let secret = own_setting("tls-secret-name");
    match (protocol.as_str(), secret, protocol_from) {
        ("udp", Some((_, value, _)), _) => Err(rejected(
            value,
            PORT_ANNOTATION,
            "getPortConfig",
            "specifying TLS secret name is not supported for UDP".to_string(),
        )),
        ("https", Some(_), Some((key, _))) => Ok(Port::Tls(key)),
        ("https", None, Some((key, value))) => Err(rejected(
            value,
            annotation_name(key),
            "getTLSCertInfo",
            format!("TLS secret name for port {number} is not specified"),
        )),
        _ => Ok(Port::Plain),
    }
}

/// The annotation a key node names (one of the keys the trigger reads).
fn annotation_name(key: NodeRef<'_>) -> &'static str {
    match key.as_str() {
        Some(DEFAULT_PROXY) => DEFAULT_PROXY,
        Some(DEPRECATED_PROXY) => DEPRECATED_PROXY,
        Some(DEFAULT_PROTOCOL) => DEFAULT_PROTOCOL,
        _ => PORT_ANNOTATION,
    }
}

fn proxy_rejected<'w>(at: NodeRef<'w>, annotation: &'static str, error: String) -> Rejected<'w> {
    let mut r = rejected(at, annotation, "getPortProxyProtocol", error);
    r.help =
        "use `none`, `v1` or `v2` (any case), and PROXY protocol only on TCP ports".to_string();
    r
}

/// Linode's refusal in `function`, the first error of `getPortConfig` and its callers.
fn rejected<'w>(
    at: NodeRef<'w>,
    annotation: &'static str,
    function: &'static str,
    error: String,
) -> Rejected<'w> {
    Rejected {
        at,
        annotation,
        controller: match function {
            "getPortProxyProtocol" => "Linode's controller (`getPortProxyProtocol`) refuses with",
            "getPortProtocol" => "Linode's controller (`getPortProtocol`) refuses with",
            "getTLSCertInfo" => "Linode's controller (`getTLSCertInfo`) refuses with",
            "getPortConfigAnnotation" => {
                "Linode's controller (`getPortConfigAnnotation`, Go's `json.Unmarshal`) fails with"
            }
            _ => "Linode's controller (`getPortConfig`) refuses with",
        },
        error,
        help: "give each port `tcp`, `udp`, `http` or `https` (any case); an `https` port needs \
               `tls-secret-name` in its `port-<N>` annotation, and a UDP port takes neither PROXY protocol nor \
               a TLS secret"
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
         kube-proxy cannot short-circuit, so in-cluster calls go through the NodeBalancer and get its \
         PROXY header or TLS termination (clients must use a DNS name, not the IP). See {DOC}"
    )
}
