//! AWS EKS (rules/EKS001.md to EKS003.md): Network Load Balancers that keep the client's IP
//! cannot hairpin. EKS001: an NLB with client IP preservation called from inside the cluster.
//! EKS002: instance targets without node ports. EKS003: PROXY v2 with instance targets and
//! `externalTrafficPolicy: Local`.
//!
//! An NLB's status is a hostname, so kube-proxy never short-circuits calls to it: the trap
//! holds in every kube-proxy mode.

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::views::ServiceView;
use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::{Object, Workspace};
use crate::profile::{version, Provider};
use crate::rules::upstream::Gate;
use crate::rules::{calls_first, weigh, with_callers, Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

pub use crate::rules::meta::EKS001 as HAIRPIN_META;
pub use crate::rules::meta::EKS002 as NODE_PORTS_META;
pub use crate::rules::meta::EKS003 as PROXY_LOCAL_META;

const PREFIX: &str = "service.beta.kubernetes.io/aws-load-balancer-";
pub const NLB_CLASS: &str = "service.k8s.aws/nlb";
/// The controller's webhook that gives every LoadBalancer Service its class.
const WEBHOOK_SINCE: &str = "v2.5.0";
const TROUBLESHOOTING: &str = "AWS, \"Troubleshoot your Network Load Balancer\", connections time out for requests \
                               from a target to its load balancer: https://docs.aws.amazon.com/elasticloadbalancing/\
                               latest/network/load-balancer-troubleshooting.html#loopback-timeout";
const LBC_DOC: &str =
    "AWS Load Balancer Controller, Service annotations: https://kubernetes-sigs.github.io/\
                       aws-load-balancer-controller/latest/guide/service/annotations/";

fn key(suffix: &str) -> String {
    format!("{PREFIX}{suffix}")
}

fn annotation<'w>(
    ws: &'w Workspace,
    object: &Object,
    suffix: &str,
) -> Option<(NodeRef<'w>, &'w str)> {
    let (k, v) = ws.annotation(object, &key(suffix))?;
    Some((k, v.as_str()?))
}

/// Which controller makes the load balancer, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Nlb {
    /// The AWS Load Balancer Controller: instance or IP targets.
    Controller { ip_targets: bool },
    /// The legacy in-tree (cloud-provider-aws) controller with `aws-load-balancer-type: nlb`.
    InTree,
}

/// How the Service's load balancer is made, with the fact it hangs on when unknown.
#[derive(PartialEq, Eq)]
enum Made {
    Nlb(Nlb),
    /// A plain Service: the controller's webhook may make it an NLB.
    Maybe(String),
    NotNlb,
}

/// Does the controller's webhook give a plain LoadBalancer Service its class?
fn webhook_runs(cx: &Context<'_>) -> Gate {
    let version = cx.profile.aws_load_balancer_controller();
    let webhook = cx.profile.aws_lbc_service_mutator_webhook();
    if webhook.value == Some(false) {
        return Gate::No(format!("`{}: false`", webhook.field()));
    }
    match version.value.map(|v| (v, version::at_least(v, WEBHOOK_SINCE))) {
        Some((_, Some(true))) => Gate::Yes,
        Some((v, Some(false))) => Gate::No(format!(
            "the AWS Load Balancer Controller {v} predates the {WEBHOOK_SINCE} Service webhook"
        )),
        Some((v, None)) => Gate::Unknown(version.unknown(&format!(
            "`{v}` is not a version lblint can compare; from {WEBHOOK_SINCE} its webhook makes every \
             LoadBalancer Service an NLB"
        ))),
        None => Gate::Unknown(version.unknown(&format!(
            "the AWS Load Balancer Controller from {WEBHOOK_SINCE} makes every LoadBalancer Service an \
             internal NLB with instance targets, unless its Service webhook is off"
        ))),
    }
}

fn made(cx: &Context<'_>, entry: &EntryPoint, service: &Object, view: &ServiceView<'_>) -> Made {
    let ws = cx.ws;
    let class = view.load_balancer_class.and_then(|c| c.as_str());
    let lb_type = annotation(ws, service, "type").map(|(_, v)| v);
    let target_type = annotation(ws, service, "nlb-target-type").map(|(_, v)| v);
    let controller = |ip: bool| {
        Made::Nlb(Nlb::Controller {
            ip_targets: ip || target_type == Some("ip"),
        })
    };
    match (class, lb_type) {
        (Some(NLB_CLASS), _) | (_, Some("external")) => controller(false),
        (_, Some("nlb-ip")) => controller(true),
        (None, Some("nlb")) => Made::Nlb(Nlb::InTree),
        (Some(_), _) | (None, Some(_)) => Made::NotNlb,
        (None, None) if entry.provider == Some(Provider::Eks) => match webhook_runs(cx) {
            Gate::Yes => controller(false),
            Gate::No(_) => Made::NotNlb,
            Gate::Unknown(why) => Made::Maybe(why),
        },
        (None, None) => Made::NotNlb,
    }
}

/// `preserve_client_ip.enabled` as the target-group attributes set it for `port` (the
/// per-port annotation wins), if they do.
fn preservation_set(ws: &Workspace, service: &Object, port: Option<i64>) -> Option<bool> {
    let read = |suffix: String| {
        let (_, value) = annotation(ws, service, &suffix)?;
        value.split(',').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k.trim() == "preserve_client_ip.enabled")
                .then(|| v.trim().eq_ignore_ascii_case("true"))
        })
    };
    port.and_then(|p| read(format!("target-group-attributes.{p}")))
        .or_else(|| read("target-group-attributes".to_string()))
}

pub struct NlbHairpin;

impl Rule for NlbHairpin {
    fn meta(&self) -> &'static RuleMeta {
        &HAIRPIN_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry, service, view) in load_balancers(cx) {
            let quic: Vec<i64> = annotation(ws, service, "quic-enabled-ports")
                .map(|(_, v)| v.split(',').filter_map(|p| p.trim().parse().ok()).collect())
                .unwrap_or_default();
            let (nlb, maybe) = match made(cx, entry, service, view) {
                Made::Nlb(nlb) => (nlb, None),
                Made::Maybe(why) => (Nlb::Controller { ip_targets: false }, Some(why)),
                Made::NotNlb => continue,
            };
            // The first port whose target group keeps the client IP, and whether it can opt out.
            let mut kept = None;
            for port in &view.ports {
                let always =
                    port.protocol_is("UDP") || port.port.is_some_and(|p| quic.contains(&p));
                let preserved = always
                    || match (&nlb, preservation_set(ws, service, port.port)) {
                        (_, Some(set)) => set,
                        (Nlb::Controller { ip_targets: true }, None) => false,
                        _ => true,
                    };
                if preserved {
                    kept = Some((port, always));
                    break;
                }
            }
            let Some((port, always)) = kept else {
                continue;
            };
            report_hairpin(
                cx,
                index,
                service,
                &nlb,
                maybe,
                (port.node, port.port),
                always,
                out,
            );
        }
    }
}

/// LoadBalancer Services an AWS controller may handle: annotated for AWS, on an `eks`
/// profile, or with the controller's class.
fn load_balancers<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object, &'c ServiceView<'c>)> + 'c {
    cx.model.entries().filter_map(move |(index, entry)| {
        if entry.kind != EntryKind::Service {
            return None;
        }
        let view = cx.views.service(entry.object)?;
        let class = view.load_balancer_class.and_then(|c| c.as_str());
        let ours = entry.provider == Some(Provider::Eks) || class == Some(NLB_CLASS);
        (ours && view.is_load_balancer())
            .then(|| (index, entry, &cx.ws.objects[entry.object], view))
    })
}

/// `maybe`: whether the Service becomes an NLB hangs on this fact. `port`: the first port
/// whose target group keeps the client IP; `always`: it cannot opt out (UDP, QUIC).
/// Services the AWS Load Balancer Controller surely makes an NLB with instance targets.
fn instance_nlbs<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (&'c Object, &'c ServiceView<'c>)> + 'c {
    load_balancers(cx)
        .filter(move |(_, entry, service, view)| {
            made(cx, entry, service, view) == Made::Nlb(Nlb::Controller { ip_targets: false })
        })
        .map(|(_, _, service, view)| (service, view))
}

#[allow(clippy::too_many_arguments)]
fn report_hairpin(
    cx: &Context<'_>,
    index: EntryId,
    service: &Object,
    nlb: &Nlb,
    maybe: Option<String>,
    (port_node, port): (NodeRef<'_>, Option<i64>),
    always: bool,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let name = service.name();
    let internet_facing =
        annotation(ws, service, "scheme").map(|(_, v)| v) == Some("internet-facing");
    let port_text = port.map_or_else(|| "a port".to_string(), |p| format!("port {p}"));
    let kind = match nlb {
        Nlb::InTree => "the in-tree controller's NLB (`aws-load-balancer-type: nlb`), which keeps the client IP",
        Nlb::Controller { ip_targets: false } => "an NLB with instance targets, which keep the client IP by default",
        Nlb::Controller { ip_targets: true } => "an NLB with IP targets",
    };
    let why_kept = if always {
        format!("{port_text} is UDP or QUIC, whose target groups always keep the client IP")
    } else {
        format!("its target group for {port_text} keeps the client IP")
    };
    let callers = calls_first(cx.model.callers_of(index));
    let what = format!(
        "Service `{name}` gets {kind}; {why_kept}, and such a load balancer cannot send a target's own call back to \
         it (\"Load balancers with client IP preservation enabled do not support hairpinning or loopback\")"
    );
    let (severity, message) = match (&maybe, callers.first()) {
        (Some(why), first) => (
            Severity::Warning,
            format!(
                "{what}, if its load balancer is an NLB: that depends on {why}.{}",
                first
                    .map(|c| format!(" {} calls {} ({}).", ws.objects[c.workload].id, c.address, c.via))
                    .unwrap_or_default()
            ),
        ),
        (None, Some(caller)) => {
            let severity = if internet_facing { Severity::Warning } else { Severity::Error };
            let scheme = if internet_facing {
                " The load balancer is internet-facing, which AWS's older guide exempted; its current \
                 troubleshooting text is not scheme-specific."
            } else {
                ""
            };
            weigh(
                severity,
                caller,
                format!(
                    "{what}. {} calls {} ({}) from inside the cluster: when the NLB picks the caller's own node, the \
                     source and destination are the same and the connection times out (intermittently, by node).{scheme}",
                    ws.objects[caller.workload].id, caller.address, caller.via
                ),
            )
        }
        (None, None) => (
            Severity::Warning,
            format!(
                "{what}. No in-cluster caller is visible in these manifests; one that calls its hostname, or a host \
                 that an ingress controller behind it serves, times out whenever the NLB picks the caller's own node."
            ),
        ),
    };
    let fix = if always {
        "call the Service by its in-cluster name from inside the cluster: UDP and QUIC target groups cannot turn \
         client IP preservation off"
            .to_string()
    } else if *nlb == Nlb::InTree {
        "move the Service to the AWS Load Balancer Controller (`aws-load-balancer-type: external`) with \
         `aws-load-balancer-nlb-target-type: ip`, or call the Service by its in-cluster name from inside the \
         cluster: the in-tree controller cannot turn client IP preservation off (kubernetes/cloud-provider-aws#1160)"
            .to_string()
    } else {
        format!(
            "set `{}: preserve_client_ip.enabled=false` (TCP and TLS target groups), or \
             `{}: ip` (IP targets do not keep the client IP over TCP by default), or call the Service by its \
             in-cluster name from inside the cluster",
            key("target-group-attributes"),
            key("nlb-target-type")
        )
    };
    let d = HAIRPIN_META
        .diagnostic(severity, ws.location(service, port_node.span()), message)
        .with_help(format!("{fix}. See {TROUBLESHOOTING} and {LBC_DOC}"))
        .on(service);
    out.push(with_callers(d, ws, callers.iter().copied(), "address"));
}

pub struct InstanceWithoutNodePorts;

impl Rule for InstanceWithoutNodePorts {
    fn meta(&self) -> &'static RuleMeta {
        &NODE_PORTS_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (service, view) in instance_nlbs(cx) {
            let Some(allocate) = ws
                .spec(service)
                .and_then(|s| s.get("allocateLoadBalancerNodePorts"))
            else {
                continue;
            };
            if allocate.as_bool() != Some(false) {
                continue;
            }
            let Some(port) = view.ports.iter().find(|p| p.node.get("nodePort").is_none()) else {
                continue;
            };
            let d = NODE_PORTS_META
                .diagnostic(
                    Severity::Error,
                    ws.location(service, allocate.span()),
                    format!(
                        "Service `{}` gets an NLB with instance targets but `allocateLoadBalancerNodePorts: false`, and \
                         port {} has no `nodePort`: the AWS Load Balancer Controller \"will fail to reconcile instance \
                         mode NLB\".",
                        service.name(),
                        port.port.map_or_else(|| "?".to_string(), |p| p.to_string())
                    ),
                )
                .with_help(format!(
                    "set a `nodePort` on every port, allow node ports, or use `{}: ip`. See {LBC_DOC}",
                    key("nlb-target-type")
                ))
                .on(service);
            out.push(d);
        }
    }
}

pub struct ProxyProtocolInstanceLocal;

impl Rule for ProxyProtocolInstanceLocal {
    fn meta(&self) -> &'static RuleMeta {
        &PROXY_LOCAL_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (service, view) in instance_nlbs(cx) {
            let Some(local) = view
                .external_traffic_policy
                .filter(|p| p.as_str() == Some("Local"))
            else {
                continue;
            };
            let proxy = annotation(ws, service, "proxy-protocol")
                .filter(|(_, v)| *v == "*")
                .map(|(k, _)| k)
                .or_else(|| {
                    annotation(ws, service, "target-group-attributes")
                        .filter(|(_, v)| {
                            v.replace(' ', "")
                                .contains("proxy_protocol_v2.enabled=true")
                        })
                        .map(|(k, _)| k)
                });
            let Some(proxy) = proxy else {
                continue;
            };
            let d = PROXY_LOCAL_META
                .diagnostic(
                    Severity::Warning,
                    ws.location(service, proxy.span()),
                    format!(
                        "Service `{}` turns on PROXY protocol v2 on an NLB with instance targets and \
                         `externalTrafficPolicy: Local`: the AWS Load Balancer Controller documents that \"you shouldn't \
                         configure proxy protocol v2 with NLB instance mode and externalTrafficPolicy set to Local\".",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "use `{}: ip`, or `externalTrafficPolicy: Cluster`. See {LBC_DOC}",
                    key("nlb-target-type")
                ))
                .with_related(ws.location(service, local.span()), "`externalTrafficPolicy: Local` is set here")
                .on(service);
            out.push(d);
        }
    }
}
