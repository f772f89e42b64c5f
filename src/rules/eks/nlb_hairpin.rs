//! EKS001 eks-nlb-hairpin: an NLB with client IP preservation called from inside the
//! cluster. A member of the internal-LB family on its own verdict (`rules::family::internal_lb`).

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::views::ServiceView;
use crate::model::{Caller, EntryId, EntryPoint};
use crate::objects::{Object, Workspace};
use crate::rules::verdict::{calls_first, weigh, with_callers};
use crate::rules::{Context, Rule, RuleMeta};
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{key, load_balancers, made, Made, Nlb, LBC_DOC, TROUBLESHOOTING};

pub use crate::rules::meta::EKS001 as META;

/// `preserve_client_ip.enabled` as the target-group attributes set it for `port` (the
/// per-port annotation wins), if they do.
fn preservation_set(ws: &Workspace, service: &Object, port: Option<i64>) -> Option<bool> {
    let read = |suffix: String| {
        let (_, value) = Annotations::of(ws, service).text_entry(&key(&suffix))?;
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
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry, service, view) in load_balancers(cx) {
            if let Some(hairpin) = hairpin(cx, entry, service, view) {
                report(cx, index, service, &hairpin, out);
            }
        }
    }
}

/// EKS001's verdict on one Service, before it is worded.
struct Hairpin<'w> {
    nlb: Nlb,
    /// Whether the Service becomes an NLB hangs on this fact.
    maybe: Option<String>,
    /// The first port whose target group keeps the client IP: its node and number.
    port: (NodeRef<'w>, Option<i64>),
    /// That port cannot opt out (UDP, QUIC).
    always: bool,
}

/// `None` unless the Service gets (or may get) an NLB with a port that keeps the client IP.
fn hairpin<'w>(
    cx: &Context<'w>,
    entry: &EntryPoint,
    service: &Object,
    view: &ServiceView<'w>,
) -> Option<Hairpin<'w>> {
    let ws = cx.ws;
    let quic: Vec<i64> = Annotations::of(ws, service)
        .text_entry(&key("quic-enabled-ports"))
        .map(|(_, v)| v.split(',').filter_map(|p| p.trim().parse().ok()).collect())
        .unwrap_or_default();
    let (nlb, maybe) = match made(cx, entry, service, view) {
        Made::Nlb(nlb) => (nlb, None),
        Made::Maybe(why) => (Nlb::Controller { ip_targets: false }, Some(why)),
        Made::NotNlb => return None,
    };
    // The first port whose target group keeps the client IP, and whether it can opt out.
    view.ports.iter().find_map(|port| {
        let always = port.protocol_is("UDP") || port.port.is_some_and(|p| quic.contains(&p));
        let preserved = always
            || match (&nlb, preservation_set(ws, service, port.port)) {
                (_, Some(set)) => set,
                (Nlb::Controller { ip_targets: true }, None) => false,
                _ => true,
            };
        preserved.then(|| Hairpin {
            nlb: nlb.clone(),
            maybe: maybe.clone(),
            port: (port.node, port.port),
            always,
        })
    })
}

fn report(
    cx: &Context<'_>,
    index: EntryId,
    service: &Object,
    hairpin: &Hairpin<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let callers = calls_first(cx.model.callers_of(index));
    let (severity, message) = words(cx, service, hairpin, callers.first().copied());
    let d = META
        .diagnostic(
            severity,
            ws.location(service, hairpin.port.0.span()),
            message,
        )
        .with_help(format!(
            "{}. See {TROUBLESHOOTING} and {LBC_DOC}",
            ways_out(hairpin)
        ))
        .on(service);
    out.push(with_callers(d, ws, callers.iter().copied(), "address"));
}

/// The severity and message: a warning when the NLB itself is unsure; an error when a pod
/// calls it (a warning if internet-facing), weighed by the evidence; else a warning.
fn words(
    cx: &Context<'_>,
    service: &Object,
    hairpin: &Hairpin<'_>,
    first: Option<&Caller>,
) -> (Severity, String) {
    let ws = cx.ws;
    let name = service.name();
    let internet_facing = Annotations::of(ws, service)
        .text_entry(&key("scheme"))
        .map(|(_, v)| v)
        == Some("internet-facing");
    let port_text = hairpin
        .port
        .1
        .map_or_else(|| "a port".to_string(), |p| format!("port {p}"));
    let kind = match hairpin.nlb {
        Nlb::InTree => "the in-tree controller's NLB (`aws-load-balancer-type: nlb`), which keeps the client IP",
        Nlb::Controller { ip_targets: false } => "an NLB with instance targets, which keep the client IP by default",
        Nlb::Controller { ip_targets: true } => "an NLB with IP targets",
    };
    let why_kept = if hairpin.always {
        format!("{port_text} is UDP or QUIC, whose target groups always keep the client IP")
    } else {
        format!("its target group for {port_text} keeps the client IP")
    };
    let what = format!(
        "Service `{name}` gets {kind}; {why_kept}, and such a load balancer cannot send a target's own call back to \
         it (\"Load balancers with client IP preservation enabled do not support hairpinning or loopback\")"
    );
    match (&hairpin.maybe, first) {
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
    }
}

/// The ways out this NLB allows.
fn ways_out(hairpin: &Hairpin<'_>) -> String {
    if hairpin.always {
        "call the Service by its in-cluster name from inside the cluster: UDP and QUIC target groups cannot turn \
         client IP preservation off"
            .to_string()
    } else if hairpin.nlb == Nlb::InTree {
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
    }
}
