//! Scaleway Kapsule's adapter (rules/SCALEWAY001.md): PROXY protocol or TLS termination (a
//! frontend with certificates) bypassed by in-cluster calls. The controller sets `ipMode:
//! Proxy` from v0.33.0, and only when PROXY protocol is on for every port of the Service (or
//! the Service asks for it).

use crate::catalog::meta;
use crate::diagnostic::{Applicability, Fix};
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Provider};
use crate::rules::edit;
use crate::rules::family::kube_proxy::Gate;
use crate::rules::Context;
use crate::views::{parse_go_int, Annotations};
use crate::yaml::go_values::go_parse_int_base0;
use crate::yaml::go_values::parse_go_bool;
use crate::yaml::NodeRef;

use super::{add_annotation, controller_at_least, Hostname, ProxyProvider, Rejected, Triggered};

const PROXY_ANNOTATIONS: [&str; 3] = [
    "service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v1",
    "service.beta.kubernetes.io/scw-loadbalancer-proxy-protocol-v2",
    // Deprecated spelling, still read.
    "service.beta.kubernetes.io/scw-loadbalancer-send-proxy-v2",
];
const CERTIFICATE_IDS: &str = "service.beta.kubernetes.io/scw-loadbalancer-certificate-ids";
const BACKEND_TLS: &str = "service.beta.kubernetes.io/scw-loadbalancer-http-backend-tls";
const CCM: &str = "the Scaleway cloud controller manager";
const IP_MODE: &str = "service.beta.kubernetes.io/scw-loadbalancer-ip-mode";
const USE_HOSTNAME: &str = "service.beta.kubernetes.io/scw-loadbalancer-use-hostname";
/// First release with ipMode support (commit e08417d, "feat: implement ipMode (#185)").
const IP_MODE_SINCE: &str = "v0.33.0";
const DOC: &str = "scaleway-cloud-controller-manager docs/loadbalancer-annotations.md \
                   (https://github.com/scaleway/scaleway-cloud-controller-manager)";

/// SCALEWAY001 scaleway-proxy-protocol-in-cluster.
pub(crate) static SCALEWAY: ProxyProvider = ProxyProvider {
    provider: Provider::Scaleway,
    meta: &meta::SCALEWAY001,
    trigger,
    hostname: Some(Hostname::Flag(USE_HOSTNAME)),
    hostname_honoured: super::always,
    hostname_option: None,
    ip_mode,
    ip_mode_fix,
    help,
};

/// `isPortInRange(r, port)`: Go's `strconv.ParseBool` forms except `1` and `0`, `*` (all),
/// empty (none), else a comma-separated list (spaces removed) read up to the first match.
/// `Err`: the controller's error.
fn in_range(value: &str, port: i64) -> Result<bool, String> {
    if let Some(b) = parse_go_bool(value).filter(|_| value != "1" && value != "0") {
        return Ok(b);
    }
    match value {
        "*" => return Ok(true),
        "" => return Ok(false),
        _ => {}
    }
    for item in value.replace(' ', "").split(',') {
        let n = go_parse_int_base0(item)?;
        if !(1..=65535).contains(&n) {
            return Err(format!("port {n} is outside valid range (1-65535)"));
        }
        if n == port {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The deprecated `send-proxy-v2` (`getSendProxyV2`): Go's `strconv.ParseBool` (`1` and `0`
/// included), else a port list whose every item before the match must parse.
fn send_proxy_v2(value: &str, port: i64) -> Result<bool, String> {
    if let Some(b) = parse_go_bool(value) {
        return Ok(b);
    }
    for item in value.replace(' ', "").split(',') {
        match parse_go_int(item) {
            Some(n) if n == port => return Ok(true),
            Some(_) => {}
            None => return Err("load balancer invalid annotation".to_string()),
        }
    }
    Ok(false)
}

/// Whether PROXY protocol is on for `port`, as `getProxyProtocol` decides, and the
/// annotation that turns it on; `Err`: (annotation, the controller's error).
fn port_proxy(
    view: &Annotations<'_>,
    port: i64,
) -> Result<Option<&'static str>, (&'static str, String)> {
    let [v1_key, v2_key, deprecated] = PROXY_ANNOTATIONS;
    let text = |key| view.text(key).unwrap_or_default();
    let v1 = in_range(text(v1_key), port).map_err(|e| (v1_key, e))?;
    let v2 = in_range(text(v2_key), port).map_err(|e| (v2_key, e))?;
    match (v1, v2) {
        (true, true) => Err((
            v2_key,
            format!("port {port} is in both v1 and v2 proxy protocols"),
        )),
        (true, false) => Ok(Some(v1_key)),
        (false, true) => Ok(Some(v2_key)),
        (false, false) => match view.text(deprecated) {
            None => Ok(None),
            Some(t) => Ok(send_proxy_v2(t, port)
                .map_err(|e| (deprecated, e))?
                .then_some(deprecated)),
        },
    }
}

/// What the PROXY annotations make of the Service's ports.
enum Proxy<'w> {
    /// The first annotation that covers a port, and whether every port is covered.
    On(NodeRef<'w>, bool),
    Refused(Rejected<'w>),
}

fn proxy_ports<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Proxy<'w>> {
    let view = cx.lb_annotations(service);
    let ports = &cx.lb_ports(entry);
    let mut first: Option<&'static str> = None;
    let mut covered = 0;
    for port in ports {
        let Some(number) = port.port else { continue };
        match port_proxy(&view, number) {
            Ok(Some(key)) => {
                covered += 1;
                let earlier = |k: &str| PROXY_ANNOTATIONS.iter().position(|a| *a == k);
                if first.is_none_or(|f| earlier(key) < earlier(f)) {
                    first = Some(key);
                }
            }
            Ok(None) => {}
            Err((annotation, error)) => {
                return Some(Proxy::Refused(Rejected {
                    at: view.value(annotation)?,
                    annotation,
                    controller: "the Scaleway controller (`getProxyProtocol`) refuses with",
                    error,
                    help: "write `true`, `false`, `*` or a comma-separated list of the Service's ports (1-65535), \
                           each port in at most one of `-v1` and `-v2`"
                        .to_string(),
                }))
            }
        }
    }
    // No covered port (or no port at all): no frontend speaks PROXY protocol.
    let (at, _) = view.entry(first?)?;
    Some(Proxy::On(at, covered == ports.len()))
}

/// PROXY protocol wins over TLS termination; a refusal of either stops the controller.
fn trigger<'w>(cx: &Context<'w>, entry: &EntryPoint, service: &Object) -> Option<Triggered<'w>> {
    let proxy = match proxy_ports(cx, entry, service) {
        Some(Proxy::Refused(r)) => return Some(Triggered::Rejected(r)),
        Some(Proxy::On(at, _)) => Some(at),
        None => None,
    };
    let tls = match tls_termination(cx, entry, service) {
        Some(Err(r)) => return Some(Triggered::Rejected(r)),
        tls => tls.and_then(Result::ok),
    };
    Triggered::either(proxy, tls)
}

/// `getCertificateIDs(service, port)`: `;`-separated parts, each a `,`-list of ids for every
/// frontend or `<ports>:<ids>` for the ports `isPortInRange` matches; a `region/id` keeps
/// its id, any other `/` is an error. `Err`: the controller's error.
fn certificate_ids(value: &str, port: i64) -> Result<Vec<&str>, String> {
    let mut ids = Vec::new();
    if value.is_empty() {
        return Ok(ids);
    }
    for part in value.split(';') {
        match part.split_once(':') {
            None => ids.extend(part.split(',')),
            Some((ports, list)) => {
                // Go's `strings.Split(part, ":")[1]`: up to a second `:`.
                let list = list.split(':').next().unwrap_or_default();
                if in_range(ports, port)? {
                    ids.extend(list.split(','));
                }
            }
        }
    }
    ids.into_iter()
        .map(|id| match id.split('/').collect::<Vec<_>>()[..] {
            [_] => Ok(id),
            [_, id] => Ok(id),
            _ => Err(format!("unable to get certificate ID from {id}")),
        })
        .collect()
}

/// A frontend with a certificate terminates TLS (`servicePortToFrontend`), unless its
/// backend re-encrypts (`http-backend-tls` for the port, `getSSLBridging`): the key of
/// `certificate-ids` when a port terminates TLS, or the first refusal, port by port.
fn tls_termination<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
) -> Option<Result<NodeRef<'w>, Rejected<'w>>> {
    let view = cx.lb_annotations(service);
    let (key, value) = view.entry(CERTIFICATE_IDS)?;
    let refused = |at, annotation, function, error| {
        Rejected {
        at,
        annotation,
        controller: function,
        error,
        help: format!(
            "write `{CERTIFICATE_IDS}` as `<id>,<id>` (every frontend) or `<ports>:<id>,<id>;…`, with `true`, \
             `false`, `*` or a comma-separated list of the Service's ports (1-65535), and an id or \
             `<region>/<id>`"
        ),
    }
    };
    let mut terminated = None;
    for number in cx
        .views
        .service(entry.object)?
        .ports
        .iter()
        .filter_map(|p| p.port)
    {
        let ids = match certificate_ids(value.as_str().unwrap_or_default(), number) {
            Ok(ids) => ids,
            Err(e) => {
                let by = "the Scaleway controller (`getCertificateIDs`) refuses with";
                return Some(Err(refused(value, CERTIFICATE_IDS, by, e)));
            }
        };
        if ids.iter().all(|id| id.is_empty()) {
            continue;
        }
        match view
            .entry(BACKEND_TLS)
            .map(|(_, v)| (v, in_range(v.as_str().unwrap_or_default(), number)))
        {
            Some((_, Ok(true))) => {}
            Some((at, Err(e))) => {
                let by = "the Scaleway controller (`getSSLBridging`) refuses with";
                return Some(Err(refused(at, BACKEND_TLS, by, e)));
            }
            _ => terminated = terminated.or(Some(key)),
        }
    }
    terminated.map(Ok)
}

/// The Service's own `ip-mode` annotation decides; without it, PROXY protocol on every port.
fn ip_mode(cx: &Context<'_>, entry: &EntryPoint, service: &Object) -> Gate {
    let proxy = proxy_ports(cx, entry, service);
    let all = matches!(proxy, Some(Proxy::On(_, true)));
    let override_mode = cx
        .lb_annotations(service)
        .entry(IP_MODE)
        .and_then(|(_, v)| v.as_str());
    match override_mode {
        Some("VIP") => Gate::No(format!(
            "the Service sets `{IP_MODE}: VIP`, so the controller keeps the IP short-circuited"
        )),
        Some("Proxy") => controller_at_least(
            cx,
            CCM,
            IP_MODE_SINCE,
            "honours `scw-loadbalancer-ip-mode`",
        ),
        _ if all => controller_at_least(
            cx,
            CCM,
            IP_MODE_SINCE,
            "sets `ipMode: Proxy` when PROXY protocol is on for every port",
        ),
        _ if proxy.is_none() => Gate::No(format!(
            "the Scaleway controller sets `ipMode: Proxy` by itself only when PROXY protocol is on for every \
             port, so this load balancer, which terminates TLS without it, keeps `ipMode: VIP` unless the \
             Service sets `{IP_MODE}: Proxy`"
        )),
        _ => Gate::No(
            "PROXY protocol is on for only some of the Service's ports, and the Scaleway controller sets \
             `ipMode: Proxy` only when it is on for all of them"
                .to_string(),
        ),
    }
}

/// `ip-mode: Proxy`, unsafe: in-cluster calls then really cross the load balancer (latency,
/// its limits). A controller before v0.33.0 ignores the annotation: only the hostname helps.
fn ip_mode_fix(cx: &Context<'_>, service: &Object, after: &str) -> Option<Fix> {
    let ws = cx.ws;
    let old_controller = cx
        .profile
        .cloud_controller_manager()
        .value
        .and_then(|v| version::at_least(v, IP_MODE_SINCE))
        == Some(false);
    if old_controller {
        return None;
    }
    match cx.lb_annotations(service).entry(IP_MODE) {
        Some((_, value)) if value.as_str() == Some("VIP") => edit::replace_scalar(
            ws,
            service,
            value,
            "Proxy",
            format!("set `{IP_MODE}` to `Proxy`"),
            Applicability::Unsafe,
        ),
        Some(_) => None,
        None => add_annotation(
            cx,
            service,
            after,
            (IP_MODE, "\"Proxy\""),
            Applicability::Unsafe,
        ),
    }
}

fn help() -> String {
    format!(
        "add `{IP_MODE}: \"Proxy\"` (Scaleway cloud controller manager {IP_MODE_SINCE} or later, \
         Kubernetes 1.30 or later), or `{USE_HOSTNAME}: \"true\"` (the status then holds a hostname, which \
         kube-proxy cannot short-circuit). See {DOC}"
    )
}
