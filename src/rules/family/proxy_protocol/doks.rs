//! DigitalOcean DOKS's adapter (rules/DOKS001.md): PROXY protocol or TLS termination on the
//! load balancer, bypassed by in-cluster calls. The controller never sets `ipMode: Proxy`;
//! only a hostname status avoids the shortcut. DOKS002 (`rules::doks`) reads the hostname
//! annotation too. Every fact here is from
//! digitalocean-cloud-controller-manager `cloud-controller-manager/do/loadbalancers.go`.

use crate::catalog::meta;
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Provider};
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::yaml::go_values::{go_atoi, go_parse_bool, go_quote};
use crate::yaml::NodeRef;

use super::{no_ip_mode_fix, Feature, Hostname, ProxyProvider, Rejected, Triggered};

const PREFIX: &str = "service.beta.kubernetes.io/do-loadbalancer-";
const ENABLE_PROXY: &str = "service.beta.kubernetes.io/do-loadbalancer-enable-proxy-protocol";
const TYPE: &str = "service.beta.kubernetes.io/do-loadbalancer-type";
pub(crate) const HOSTNAME: &str = "service.beta.kubernetes.io/do-loadbalancer-hostname";
/// The first controller whose default type is `REGIONAL_NETWORK` (commit 2b44b2b, "Ensure NLB
/// is the default loadbalancer in DO CCM"); v0.1.62 added `DEFAULT_LB_TYPE` to change it.
const NETWORK_DEFAULT_SINCE: &str = "v0.1.61";
const CCM: &str = "DigitalOcean's controller";
pub(crate) const DOC: &str =
    "DigitalOcean cloud controller manager, docs/controllers/services/annotations.md \
                   (do-loadbalancer-hostname) and examples/README.md";

/// DOKS001 doks-proxy-protocol-in-cluster.
pub(crate) static DOKS: ProxyProvider = ProxyProvider {
    provider: Provider::Doks,
    meta: &meta::DOKS001,
    trigger,
    hostname: Some(Hostname::Name(HOSTNAME)),
    hostname_honoured: super::always,
    hostname_option: None,
    ip_mode,
    ip_mode_fix: no_ip_mode_fix,
    help,
};

fn key(suffix: &str) -> String {
    format!("{PREFIX}{suffix}")
}

/// The load balancer's type (`getType`): `REGIONAL` terminates TLS, `REGIONAL_NETWORK` passes
/// TCP/UDP through (`buildRegionalNetworkForwardingRule` ignores every protocol and
/// certificate annotation).
enum LbType {
    Regional,
    Network,
    /// Not written, and the controller version that decides the default is not stated.
    Unknown,
}

/// The type as the controller reads it, or its refusal of the value.
fn lb_type<'w>(cx: &Context<'w>, service: &Object) -> Result<LbType, Rejected<'w>> {
    let view = cx.lb_annotations(service);
    match view.entry(TYPE) {
        Some((_, v)) if v.as_str() == Some("REGIONAL") => Ok(LbType::Regional),
        Some((_, v)) if v.as_str() == Some("REGIONAL_NETWORK") => Ok(LbType::Network),
        Some((_, v)) if v.as_str() != Some("") => Err(Rejected {
            at: v,
            annotation: TYPE,
            controller: "DigitalOcean's controller (`getType`) refuses with",
            error: "only LB types supported are (REGIONAL, REGIONAL_NETWORK)".to_string(),
            help: format!("set `{TYPE}` to `REGIONAL` or `REGIONAL_NETWORK`, or remove it"),
        }),
        _ => Ok(
            match cx
                .profile
                .cloud_controller_manager()
                .value
                .and_then(|v| version::at_least(v, NETWORK_DEFAULT_SINCE))
            {
                // The documented default; `DEFAULT_LB_TYPE` (v0.1.62+) may change it, and
                // the Service's `do-loadbalancer-type` states it.
                Some(true) => LbType::Network,
                Some(false) => LbType::Regional,
                None => LbType::Unknown,
            },
        ),
    }
}

/// Whether the controller builds HTTP and TLS forwarding rules for the Service, and so reads
/// `do-loadbalancer-protocol` (`buildForwardingRules`): a `REGIONAL` load balancer does, a
/// `REGIONAL_NETWORK` one does not; `None` when the type hangs on an unstated controller
/// version.
pub(crate) fn builds_http_rules(cx: &Context<'_>, service: &Object) -> Option<bool> {
    match lb_type(cx, service) {
        Ok(LbType::Regional) => Some(true),
        Ok(LbType::Network) | Err(_) => Some(false),
        Ok(LbType::Unknown) => None,
    }
}

/// PROXY protocol (`getEnableProxyProtocol`, Go's `strconv.ParseBool`), else TLS
/// terminated on a `REGIONAL` load balancer; or the value the controller refuses.
fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let view = cx.lb_annotations(service);
    let proxy = match (view.entry(ENABLE_PROXY), view.go_bool(ENABLE_PROXY)) {
        (Some((at, _)), Some(Ok(true))) => Some(at),
        (Some((_, value)), Some(Err(text))) => {
            return Some(Triggered::Rejected(Rejected {
                at: value,
                annotation: ENABLE_PROXY,
                controller: "DigitalOcean's controller (`getEnableProxyProtocol`) refuses with",
                error: format!(
                    "failed to get proxy protocol configuration setting: cannot convert value {} for \
                     annotation {} to bool: {}",
                    go_quote(text),
                    go_quote(ENABLE_PROXY),
                    go_parse_bool(text).err().unwrap_or_default()
                ),
                help: format!(
                    "write `\"true\"` or `\"false\"` (Go's strconv.ParseBool also takes 1, t, T, TRUE, True \
                     and their false forms) in `{ENABLE_PROXY}`"
                ),
            }));
        }
        _ => None,
    };
    let tls = tls_termination(cx, entry, service);
    if proxy.is_none() && tls.is_none() {
        return None;
    }
    // `getType` runs before anything else the request reads.
    let lb = match lb_type(cx, service) {
        Ok(lb) => lb,
        Err(r) => return Some(Triggered::Rejected(r)),
    };
    if let Some(at) = proxy {
        return Some(Triggered::proxy(at));
    }
    match (tls?, lb) {
        (_, LbType::Network) => None,
        (Ok(at), _) => Some(Triggered::On(Feature::TlsTermination, at)),
        (Err(r), _) => Some(Triggered::Rejected(r)),
    }
}

/// `buildForwardingRules`: a certificate (`certificate-id`, else `certificate-name`) makes
/// port 443 HTTPS unless `tls-ports` is set or `http2-ports` has 443; each port is then
/// the protocol annotation's, overridden by `http-ports`, `tls-ports`, `http2-ports`.
/// An HTTPS or HTTP/2 port with the certificate (and no passthrough) terminates TLS
/// (`buildTLSForwardingRule`: target protocol `http`). `Ok`: the certificate's key, or the
/// annotation that made a port HTTPS; `Err`: the controller's refusal.
fn tls_termination<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<Result<NodeRef<'w>, Rejected<'w>>> {
    let view = cx.lb_annotations(service);
    let certificate = view
        .entry(&key("certificate-id"))
        .filter(|(_, v)| v.as_str().is_some_and(|t| !t.is_empty()))
        .or_else(|| {
            view.entry(&key("certificate-name"))
                .filter(|(_, v)| v.as_str().is_some_and(|t| !t.is_empty()))
        });
    // `getTLSPassThrough`: ParseBool, and any error counts as false.
    let passthrough = view.go_bool(&key("tls-passthrough")) == Some(Ok(true));
    let secure_port = match secure_port(cx, entry, service, certificate.is_some() || passthrough) {
        Ok(found) => found?,
        Err(r) => return Some(Err(r)),
    };
    Some(match (certificate, passthrough) {
        (Some((at, _)), false) => Ok(at),
        // The finding points at the passthrough that conflicts with the certificate.
        (Some(_), true) => Err(tls_refusal(
            view.entry(TLS_PASSTHROUGH)
                .map_or(secure_port, |(_, v)| (TLS_PASSTHROUGH, v)),
            "either certificate id should be set or tls pass through enabled, not both",
        )),
        (None, true) => return None,
        (None, false) => Err(tls_refusal(
            secure_port,
            "must set certificate id or enable tls pass through",
        )),
    })
}

fn tls_refusal<'w>((annotation, at): (&'static str, NodeRef<'w>), why: &str) -> Rejected<'w> {
    Rejected {
        at,
        annotation,
        controller: "DigitalOcean's controller (`buildTLSForwardingRule`) refuses with",
        error: format!("failed to build TLS part(s) of forwarding rule: {why}"),
        help: format!(
            "give the load balancer exactly one of `{PREFIX}certificate-id` (or `-certificate-name`) and \
             `{PREFIX}tls-passthrough: \"true\"`"
        ),
    }
}

const PROTOCOL: &str = "service.beta.kubernetes.io/do-loadbalancer-protocol";
const CERTIFICATE_ID: &str = "service.beta.kubernetes.io/do-loadbalancer-certificate-id";
const CERTIFICATE_NAME: &str = "service.beta.kubernetes.io/do-loadbalancer-certificate-name";
const TLS_PASSTHROUGH: &str = "service.beta.kubernetes.io/do-loadbalancer-tls-passthrough";
const HTTP_PORTS: &str = "service.beta.kubernetes.io/do-loadbalancer-http-ports";
const TLS_PORTS: &str = "service.beta.kubernetes.io/do-loadbalancer-tls-ports";
const HTTP2_PORTS: &str = "service.beta.kubernetes.io/do-loadbalancer-http2-ports";

/// The first TCP port whose forwarding rule is HTTPS or HTTP/2, as (annotation, value node)
/// that made it so; `secure`: a certificate or passthrough is set (port 443 is then HTTPS by
/// default).
fn secure_port<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
    secure: bool,
) -> Result<Option<(&'static str, NodeRef<'w>)>, Rejected<'w>> {
    let view = cx.lb_annotations(service);
    let ports =
        |annotation: &'static str| -> Result<Option<(NodeRef<'w>, Vec<i64>)>, Rejected<'w>> {
            let Some((_, value)) = view.entry(annotation) else {
                return Ok(None);
            };
            // `getPorts`: `strconv.Atoi` on each comma-separated item, untrimmed.
            let text = value.as_str().unwrap_or_default();
            let mut list = Vec::new();
            for item in text.split(',') {
                match go_atoi(item) {
                    Ok(p) => list.push(p),
                    Err(error) => {
                        return Err(Rejected {
                            at: value,
                            annotation,
                            controller: "DigitalOcean's controller (`getPorts`) refuses with",
                            error,
                            help: format!(
                            "write `{annotation}` as port numbers separated by commas, no spaces"
                        ),
                        })
                    }
                }
            }
            Ok(Some((value, list)))
        };
    let http = ports(HTTP_PORTS)?;
    let mut https = ports(TLS_PORTS)?.map(|(v, l)| (TLS_PORTS, v, l));
    let http2 = ports(HTTP2_PORTS)?;
    let protocol = view.entry(PROTOCOL);
    if secure && https.is_none() && !http2.as_ref().is_some_and(|(_, l)| l.contains(&443)) {
        // The annotation that made port 443 HTTPS, named as itself in a refusal.
        https = [CERTIFICATE_ID, CERTIFICATE_NAME, TLS_PASSTHROUGH]
            .iter()
            .find_map(|&k| Some((k, view.entry(k)?.1, vec![443])));
    }
    for port in &cx.lb_ports(entry) {
        let Some(number) = port.port else { continue };
        // `buildForwardingRules`: a UDP port's rule is UDP whatever the annotations say.
        if port.protocol == "UDP" {
            continue;
        }
        let has = |list: &Option<(NodeRef<'w>, Vec<i64>)>| {
            list.as_ref().is_some_and(|(_, l)| l.contains(&number))
        };
        if let Some((at, _)) = http2.as_ref().filter(|_| has(&http2)) {
            return Ok(Some((HTTP2_PORTS, *at)));
        }
        if let Some((annotation, at, list)) = &https {
            if list.contains(&number) {
                return Ok(Some((annotation, *at)));
            }
        }
        if has(&http) {
            continue;
        }
        if let Some((_, v)) =
            protocol.filter(|(_, v)| matches!(v.as_str(), Some("https" | "http2")))
        {
            return Ok(Some((PROTOCOL, v)));
        }
    }
    Ok(None)
}

fn ip_mode(cx: &Context<'_>, _: &EntryPoint, service: &Object) -> Gate {
    let never = format!(
        "{CCM} never sets `ipMode: Proxy`, and without `{HOSTNAME}` the Service's status carries the load \
         balancer's IP"
    );
    let proxy = cx.lb_annotations(service).go_bool(ENABLE_PROXY) == Some(Ok(true));
    if proxy {
        return Gate::No(never);
    }
    match lb_type(cx, service) {
        Ok(LbType::Unknown) => {
            let stated = cx.profile.cloud_controller_manager();
            Gate::Unknown(stated.unknown(&format!(
                "whether the load balancer is a `REGIONAL` one, which terminates TLS: without `{TYPE}`, {CCM} \
                 before {NETWORK_DEFAULT_SINCE} makes `REGIONAL` load balancers, {NETWORK_DEFAULT_SINCE} and \
                 later `REGIONAL_NETWORK` ones (pass-through, no TLS termination) unless its DEFAULT_LB_TYPE \
                 says otherwise; set `{TYPE}` on the Service to state it"
            )))
        }
        _ => Gate::No(never),
    }
}

fn help() -> String {
    format!(
        "create a DNS record for a name (say lb.example.com) that points at the load balancer's \
         IP, then add `{HOSTNAME}: lb.example.com` and have clients use that name: the status then has a \
         hostname, which kube-proxy cannot short-circuit, so in-cluster calls go through the load \
         balancer too. See {DOC}"
    )
}
