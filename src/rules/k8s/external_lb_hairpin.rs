//! K8S014 external-lb-hairpin: a pod calls a load balancer created outside Kubernetes (the
//! profile's `loadBalancers[]` with `targets`) that keeps the client IP and may send the
//! call back to where it came from: the caller's own node (instance targets) or the caller
//! itself (IP targets). Such a load balancer cannot hairpin (rules/K8S014.md).

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{Caller, EntryPoint, Evidence};
use crate::profile::{LoadBalancer, TargetType};
use crate::rules::{rename, Context, Rule};

use crate::catalog::meta::K8S014 as META;

pub(crate) struct ExternalLbHairpin;

/// AWS's words for the trap (NLB troubleshooting, "Connections time out for requests from
/// a target to its load balancer").
const AWS: &str = "AWS: \"Load balancers with client IP preservation enabled do not support \
                   hairpinning or loopback\"";

impl Rule for ExternalLbHairpin {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let described: Vec<&LoadBalancer> = cx.profile.load_balancers().collect();
        for &(entry_id, index) in &cx.model.external {
            let entry = &cx.model.entry_points[entry_id];
            let lb = Described {
                lb: described[index],
                index,
            };
            for caller in cx.model.callers_of(entry_id) {
                if let Some(d) = finding(cx, entry, &lb, caller) {
                    out.push(d);
                }
            }
        }
    }
}

/// A load balancer the profile describes, with its place there.
struct Described<'p> {
    lb: &'p LoadBalancer,
    index: usize,
}

impl Described<'_> {
    fn field(&self, name: &str) -> String {
        format!("spec.loadBalancers[{}].{name}", self.index)
    }

    fn label(&self) -> String {
        match &self.lb.name {
            Some(name) => format!(
                "load balancer `{name}` (profile `spec.loadBalancers[{}]`)",
                self.index
            ),
            None => format!(
                "the load balancer of profile `spec.loadBalancers[{}]`",
                self.index
            ),
        }
    }
}

fn finding(
    cx: &Context<'_>,
    entry: &EntryPoint,
    lb: &Described<'_>,
    caller: &Caller,
) -> Option<Diagnostic> {
    let ws = cx.ws;
    let service = &ws.objects[entry.object];
    let workload = &ws.objects[caller.workload];
    // Where the load balancer can send the call back to, and what that does.
    let (path, back) = match lb.lb.target_type {
        Some(TargetType::Instance) => (
            format!("{}'s NodePort on the nodes", service.id),
            "when it picks the node the call left from",
        ),
        Some(TargetType::Ip) if entry.backends.contains(&caller.workload) => (
            format!("{}'s pods", service.id),
            "when it picks the calling pod itself (the caller is one of the Service's backends)",
        ),
        // IP targets send a caller that is no backend to another address: no loop.
        Some(TargetType::Ip) => return None,
        None => (
            format!(
                "{} (nodes or pods: `{}` is not stated)",
                service.id,
                lb.field("targetType")
            ),
            "when it picks the caller's own node or the caller itself",
        ),
    };
    let known_target = lb.lb.target_type.is_some();
    let (severity, why) = match lb.lb.preserves_client_ip {
        Some(false) => return None,
        Some(true) if known_target && caller.evidence == Evidence::Call => {
            (Severity::Error, "keeps the client IP".to_string())
        }
        Some(true) => (Severity::Warning, "keeps the client IP".to_string()),
        None => (
            Severity::Warning,
            format!(
                "may keep the client IP (`{}` is not stated; an AWS NLB keeps it by default for \
                 instance targets and not for IP targets over TCP)",
                lb.field("preservesClientIp")
            ),
        ),
    };
    let how = match caller.evidence {
        Evidence::Mention => "mentions",
        _ => "calls",
    };
    let message = format!(
        "{} {how} {} ({}), the address of {} that forwards to {path} and {why}: {back}, the \
         target gets a packet from its own address and the connection times out ({AWS}).",
        workload.id,
        caller.address,
        caller.via,
        lb.label(),
    );
    let host = service.service_host_for(workload);
    let mut help = format!(
        "call `{host}` instead (in-cluster traffic then goes straight to a backend pod), or turn \
         client IP preservation off on the load balancer's target group (AWS NLB: target group \
         attribute `preserve_client_ip.enabled=false`) and state `{}: false`",
        lb.field("preservesClientIp")
    );
    if rename::tls_call(ws, caller) {
        help = format!("{}; {help}", rename::tls_caveat(&host, &caller.address));
    }
    let location = rename::call_location(caller);
    let d = META
        .diagnostic(severity, location, message)
        .on(workload)
        .with_help(help)
        .with_related(
            ws.location(service, ws.name_node(service).span()),
            "the Service the load balancer forwards to",
        );
    // Shown, never applied, and only where the rename keeps the call working (not a TLS
    // call): the call then skips the load balancer, which only the app's owner can weigh.
    Some(match rename::rename(cx, caller, &caller.location.file) {
        Some(fix) => d.with_suggestion(fix),
        None => d,
    })
}
