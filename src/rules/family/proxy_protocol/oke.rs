//! Oracle OKE's adapter (rules/OKE003.md): PROXY protocol on the OCI load balancer or
//! network load balancer, or TLS terminated on a load balancer listener, bypassed by
//! in-cluster calls. The OCI controller leaves `ipMode` unset (VIP) unless the Service sets
//! `oci.oraclecloud.com/ingress-ip-mode: proxy`, which OKE001 and OKE002 judge too. Every
//! fact here is from oracle/oci-cloud-controller-manager
//! `pkg/cloudprovider/providers/oci/load_balancer_spec.go` and `load_balancer_util.go`.

use crate::catalog::meta;
use crate::diagnostic::{Applicability, Fix};
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::edit;
use crate::rules::family::kube_proxy::{kubernetes_has_ip_mode, Gate};
use crate::rules::Context;
use crate::views::{Annotations, ServicePort};
use crate::yaml::go_values::{go_atoi, go_quote};
use crate::yaml::NodeRef;

/// OKE's opt-in `ipMode` annotation (OKE001, OKE002 and this adapter read it).
pub(crate) const INGRESS_IP_MODE: &str = "oci.oraclecloud.com/ingress-ip-mode";
pub(crate) const DOC: &str = "Oracle, \"Support for controlling the IPMode of services of type LoadBalancer (Kubernetes version 1.30 or later)\", \
                   https://docs.oracle.com/iaas/releasenotes/conteng/conteng-LoadBalancer-IPMode-Release-Notes.htm";

/// `proxy` or `vip`, in any case (the controller's `getIngressIpMode`).
pub(crate) fn valid(value: &str) -> bool {
    value.eq_ignore_ascii_case("proxy") || value.eq_ignore_ascii_case("vip")
}

use super::{add_annotation, ProxyProvider, Rejected, Triggered};

const LB_TYPE: &str = "oci.oraclecloud.com/load-balancer-type";
const PROXY_VERSION: &str =
    "service.beta.kubernetes.io/oci-load-balancer-connection-proxy-protocol-version";
const BACKEND_PROTOCOL: &str = "service.beta.kubernetes.io/oci-load-balancer-backend-protocol";
const SSL_PORTS: &str = "service.beta.kubernetes.io/oci-load-balancer-ssl-ports";
const TLS_SECRET: &str = "service.beta.kubernetes.io/oci-load-balancer-tls-secret";
const BACKENDSET_SECRET: &str =
    "service.beta.kubernetes.io/oci-load-balancer-tls-backendset-secret";
const NLB_PPV2: &str = "oci-network-load-balancer.oraclecloud.com/is-ppv2-enabled";

/// OKE003 oke-proxy-protocol-in-cluster. OKE's status has no hostname option.
pub(crate) static OKE: ProxyProvider = ProxyProvider {
    provider: Provider::Oke,
    meta: &meta::OKE003,
    trigger,
    hostname: None,
    hostname_honoured: super::always,
    hostname_option: None,
    ip_mode,
    ip_mode_fix,
    help,
};

/// `getLoadBalancerType`: `nlb` lower-cased is a network load balancer, anything else a
/// load balancer.
pub(crate) fn is_network_lb(view: &Annotations<'_>) -> bool {
    view.lowercase(LB_TYPE).as_deref() == Some("nlb")
}

fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let view = cx.lb_annotations(service);
    // A value `getIngressIpMode` refuses stops the controller; OKE001 reports it.
    if view
        .entry(INGRESS_IP_MODE)
        .is_some_and(|(_, v)| !v.as_str().is_some_and(valid))
    {
        return None;
    }
    let ports = &cx.lb_ports(entry);
    if is_network_lb(&view) {
        // `getListenersNetworkLoadBalancer`: `true` lower-cased; PPv2 on TCP listeners.
        let (key, _) = view.entry(NLB_PPV2)?;
        let on = view.lowercase(NLB_PPV2).as_deref() == Some("true");
        return (on && ports.iter().any(|p| p.protocol_is("TCP"))).then(|| Triggered::proxy(key));
    }
    Some(match load_balancer(&view, ports) {
        Ok(found) => found?,
        Err(r) => Triggered::Rejected(r),
    })
}

/// The load balancer's listeners, in the controller's order: the SSL ports
/// (`getSSLEnabledPorts`, in `EnsureLoadBalancer`), then `getListenersOciLoadBalancer`'s
/// PROXY version and each port's backend protocol. PROXY protocol (version 1 or 2 on a TCP
/// listener) wins over TLS termination (an SSL port with the listener secret, and no
/// backend-set secret that re-encrypts).
fn load_balancer<'w>(
    view: &Annotations<'w>,
    ports: &[ServicePort<'w>],
) -> Result<Option<Triggered<'w>>, Rejected<'w>> {
    let ssl_ports = ssl_ports(view)?;
    let proxy = proxy_version(view)?;
    let backend = if ports.is_empty() {
        None
    } else {
        backend_protocol(view)?
    };
    let terminates = !secret_name(view.text(TLS_SECRET)).is_empty()
        && secret_name(view.text(BACKENDSET_SECRET)).is_empty();
    let (mut proxy_at, mut tls_at) = (None, None);
    for port in ports {
        let Some(number) = port.port else { continue };
        let protocol = backend.as_deref().unwrap_or(port.protocol);
        if let Some((key, 1 | 2)) = proxy.filter(|_| protocol.eq_ignore_ascii_case("TCP")) {
            proxy_at = proxy_at.or(Some(key));
        }
        if let Some((key, list)) = ssl_ports.as_ref().filter(|_| terminates) {
            if list.contains(&number) {
                tls_at = tls_at.or(Some(*key));
            }
        }
    }
    Ok(Triggered::either(proxy_at, tls_at))
}

/// `getSecretParts`: the name of `<namespace>/<name>` (the second part), or the whole text.
fn secret_name(text: Option<&str>) -> &str {
    let text = text.unwrap_or_default();
    match text.split('/').nth(1) {
        Some(name) => name,
        None => text,
    }
}

fn refused<'w>(
    at: NodeRef<'w>,
    annotation: &'static str,
    controller: &'static str,
    error: String,
    help: &str,
) -> Rejected<'w> {
    Rejected {
        at,
        annotation,
        controller,
        error,
        help: help.to_string(),
    }
}

/// `getSSLEnabledPorts`: each comma-separated item trimmed and read with `strconv.Atoi`.
fn ssl_ports<'w>(view: &Annotations<'w>) -> Result<Option<(NodeRef<'w>, Vec<i64>)>, Rejected<'w>> {
    let Some((key, value)) = view.entry(SSL_PORTS) else {
        return Ok(None);
    };
    let text = value.as_str().unwrap_or_default();
    if text.is_empty() {
        return Ok(Some((key, Vec::new())));
    }
    let ports = text
        .split(',')
        .map(|item| go_atoi(item.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            refused(
                value,
                SSL_PORTS,
                "the OCI cloud controller manager (`getSSLEnabledPorts`) refuses with",
                format!("parse SSL port: {e}"),
                "write the SSL ports as port numbers separated by commas",
            )
        })?;
    Ok(Some((key, ports)))
}

/// The PROXY version when written and not empty, read with `strconv.Atoi`.
fn proxy_version<'w>(view: &Annotations<'w>) -> Result<Option<(NodeRef<'w>, i64)>, Rejected<'w>> {
    let Some((key, value)) = view.entry(PROXY_VERSION) else {
        return Ok(None);
    };
    let text = value.as_str().unwrap_or_default();
    if text.is_empty() {
        return Ok(None);
    }
    match go_atoi(text) {
        Ok(version) => Ok(Some((key, version))),
        Err(_) => Err(refused(
            value,
            PROXY_VERSION,
            "the OCI cloud controller manager (`getListenersOciLoadBalancer`) refuses with",
            format!("error parsing service annotation: {PROXY_VERSION}={text}"),
            "write the PROXY protocol version as `\"1\"` or `\"2\"`",
        )),
    }
}

/// The listener protocol that overrides every port's (`""` is TCP): HTTP, TCP or GRPC in any
/// case, anything else refused.
fn backend_protocol<'w>(view: &Annotations<'w>) -> Result<Option<String>, Rejected<'w>> {
    let Some((_, value)) = view.entry(BACKEND_PROTOCOL) else {
        return Ok(None);
    };
    let text = value.as_str().unwrap_or_default();
    let protocol = if text.is_empty() { "TCP" } else { text };
    if ["HTTP", "TCP", "GRPC"]
        .iter()
        .any(|p| protocol.eq_ignore_ascii_case(p))
    {
        return Ok(Some(protocol.to_string()));
    }
    Err(refused(
        value,
        BACKEND_PROTOCOL,
        "the OCI cloud controller manager (`getListenersOciLoadBalancer`) refuses with",
        format!(
            "invalid backend protocol {} requested for load balancer listener. Only 'HTTP', 'TCP' and \
             'GRPC' protocols supported",
            go_quote(protocol)
        ),
        "set the backend protocol to `HTTP`, `TCP` or `GRPC`, or remove it",
    ))
}

/// `getIngressIpMode`: `proxy` (any case) sets `ipMode: Proxy`; `vip` or nothing leaves VIP.
fn ip_mode(cx: &Context<'_>, _: &EntryPoint, service: &Object) -> Gate {
    match cx
        .lb_annotations(service)
        .lowercase(INGRESS_IP_MODE)
        .as_deref()
    {
        Some("proxy") => Gate::Yes,
        Some(_) => Gate::No(format!(
            "the Service sets `{INGRESS_IP_MODE}: vip`, so the status keeps `ipMode: VIP`"
        )),
        None => Gate::No(format!(
            "the OCI cloud controller leaves `ipMode` unset (VIP) unless the Service sets \
             `{INGRESS_IP_MODE}: proxy`"
        )),
    }
}

/// `ingress-ip-mode: proxy`, unsafe: in-cluster calls then really cross the load balancer.
/// Not where the profile states Kubernetes before 1.30 (OKE002's case).
fn ip_mode_fix(cx: &Context<'_>, service: &Object, after: &str) -> Option<Fix> {
    if matches!(kubernetes_has_ip_mode(cx), Gate::No(_)) {
        return None;
    }
    let ws = cx.ws;
    match cx.lb_annotations(service).entry(INGRESS_IP_MODE) {
        Some((_, value)) => edit::replace_scalar(
            ws,
            service,
            value,
            "proxy",
            format!("set `{INGRESS_IP_MODE}` to `proxy`"),
            Applicability::Unsafe,
        ),
        None => add_annotation(
            cx,
            service,
            after,
            (INGRESS_IP_MODE, "\"proxy\""),
            Applicability::Unsafe,
        ),
    }
}

fn help() -> String {
    format!(
        "on Kubernetes 1.30 or later, add `{INGRESS_IP_MODE}: proxy`: the status then reports `ipMode: \
         Proxy`, so kube-proxy leaves calls to the load balancer's IP alone and they cross the load \
         balancer; before 1.30, have in-cluster clients call the Service by name. See {DOC}"
    )
}
