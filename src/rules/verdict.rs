//! What a verdict rests on, shared by the rules that judge calls to an entry point: its
//! callers with real calls first, the weight of the evidence for each, whether a caller can
//! share a node with a backend pod, and the words every such finding ends with (the
//! callers as related locations, calling the Service by name as the way out).

use crate::diagnostic::{Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryPoint, Evidence, Fit, Network};
use crate::objects::Object;
use crate::rules::{rename, Context};

/// The alternative to a provider's fix that works everywhere: callers use the Service's
/// name. A suggestion only, so `--fix` applies one way out of the loopback, not two.
fn call_by_name(service: &Object) -> Fix {
    Fix::manual(format!(
        "have in-cluster clients call {} instead of the load-balancer address, by hand",
        service.service_hosts_hint()
    ))
}

/// `d` with [`call_by_name`] when one of `callers` really calls the address: a mention or
/// the app's own public identity (Grafana's `domain`) is never to be rewritten.
pub(crate) fn with_call_by_name<'m>(
    d: Diagnostic,
    service: &Object,
    callers: impl IntoIterator<Item = &'m Caller>,
) -> Diagnostic {
    if callers.into_iter().any(|c| c.evidence == Evidence::Call) {
        d.with_suggestion(call_by_name(service))
    } else {
        d
    }
}

/// The severity of a verdict with no visible caller, the same in every rule (DEVELOPERS.md,
/// Severity): a warning when the load balancer is private, since the in-cluster callers the
/// vendor documents as failing exist even if they are not in these files; a note when it is
/// public or its network is unknown (nothing visible calls it). Only for a configuration the
/// vendor documents as breaking in-cluster calls: a rule whose failure is inferred or
/// undocumented says a note itself.
pub(crate) fn unseen(network: Network) -> Severity {
    match network {
        Network::Private => Severity::Warning,
        Network::Public | Network::Unknown => Severity::Note,
    }
}

/// What a no-caller message adds for [`unseen`]'s warning: why it is one, and both ways
/// to finish in one line: `fix`, or a suppression with a reason when nothing in the cluster
/// calls the load balancer (`rule`'s id in the comment).
pub(crate) fn unseen_why(network: Network, rule: &str, fix: &str) -> String {
    match network {
        Network::Private => format!(
            " The load balancer is private, so its callers are in this cluster even if not in these \
             files: {fix}, or, if nothing in the cluster calls it, suppress this with a reason \
             (`# lblint: ignore[{rule}] <why nothing calls it>`)."
        ),
        Network::Public | Network::Unknown => String::new(),
    }
}

/// The callers of an entry point with real calls first (stable otherwise), so the caller a
/// verdict names is a call whenever there is one.
pub(crate) fn calls_first<'m>(callers: impl Iterator<Item = &'m Caller>) -> Vec<&'m Caller> {
    let mut callers: Vec<_> = callers.collect();
    callers.sort_by_key(|c| std::cmp::Reverse(c.evidence));
    callers
}

/// A verdict that rests on `caller`: an error needs a real call (README, "The cluster
/// model"), so when the value only mentions the address in free text the verdict is a
/// warning, and says why.
pub(crate) fn weigh(severity: Severity, caller: &Caller, message: String) -> (Severity, String) {
    if severity != Severity::Error || caller.evidence == Evidence::Call {
        return (severity, message);
    }
    (
        Severity::Warning,
        format!(
            "{message} ({} only mentions the address in free text, not in a setting that sends \
             traffic ({}): a warning until a real call is seen.)",
            caller.via, caller.reason
        ),
    )
}

/// `d` with each caller's value as a related location: "<workload> calls the <noun>
/// <address> from inside the cluster" (`noun`: "CLB address", "load-balancer address" …),
/// and the rewrite to the Service's name at each call where one keeps the call working
/// (a TLS call says why not). Naming the caller makes `d` the call's verdict (recorded in
/// `cx.claims`): K8S001 then stays silent on it.
pub(crate) fn with_callers<'m>(
    mut d: Diagnostic,
    cx: &Context<'_>,
    callers: impl IntoIterator<Item = &'m Caller>,
    noun: &str,
) -> Diagnostic {
    let ws = cx.ws;
    let file = d.location().file.clone();
    for caller in callers {
        cx.claims.judged(cx, d.rule(), caller);
        let mut aside = match rename::link(cx, caller) {
            Some(link) => format!("; the host reaches it through {link}"),
            None => String::new(),
        };
        if let Some(host) = rename::in_cluster_host(cx, caller) {
            if aside.is_empty() && rename::tls_call(ws, caller) {
                aside = rename::tls_aside(&host);
            }
        }
        d = d.with_related(
            caller.location.clone(),
            format!(
                "{} calls the {noun} {} from inside the cluster ({}: {}){aside}",
                ws.objects[caller.workload].id,
                caller.address,
                caller.evidence.as_str(),
                caller.reason
            ),
        );
        if let Some(fix) = rename::rename(cx, caller, &file) {
            d = d.with_suggestion(fix);
        }
        if caller.via.is_secret() {
            d = d.with_secret_text();
        }
    }
    d
}

/// Can `caller` run on the same node as a backend pod of `entry`? Unknown when the backends
/// are not in these manifests (they may be anywhere) or the profile's pools do not settle it.
pub(crate) fn shares_node(cx: &Context<'_>, entry: &EntryPoint, caller: &Caller) -> Fit {
    if entry.backends.is_empty() {
        return Fit::Unknown;
    }
    Fit::any(entry.backends.iter().map(|&b| {
        cx.model
            .can_share_node(cx.ws, caller.workload, b, |_| Fit::Yes)
    }))
}

/// Why [`shares_node`] is unknown, worded for a message.
pub(crate) fn sharing_unknown_why(cx: &Context<'_>, entry: &EntryPoint) -> String {
    if entry.backends.is_empty() {
        "the Service's backend pods are not in these manifests".to_string()
    } else if cx.profile.node_pools().is_none() {
        "set `spec.nodePools` in the cluster profile to settle it".to_string()
    } else {
        "the profile's node pools do not settle it".to_string()
    }
}

/// The profile fields (`` `spec.…` ``) a text names as unstated, each once, in order.
pub(crate) fn profile_fields(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for (at, _) in text.match_indices("`spec.") {
        if let Some(len) = text[at + 1..].find('`') {
            let field = &text[at..at + len + 2];
            // "`spec.x` at profile.yaml:7" cites a stated field: nothing to set.
            let stated = text[at + len + 2..].starts_with(" at ");
            if !stated && !found.contains(&field) {
                found.push(field);
            }
        }
    }
    found
}

/// "set `spec.a`, `spec.b` and `spec.c` in the cluster profile to settle it", for the profile
/// fields `why` names (DEVELOPERS.md: a warning names the field); `None` when it names none.
pub(crate) fn settle(why: &str) -> Option<String> {
    field_list(why).map(|list| format!("set {list} in the cluster profile to settle it"))
}

/// "`spec.a`, `spec.b` and `spec.c`": the unstated profile fields `text` names.
pub(crate) fn field_list(text: &str) -> Option<String> {
    let fields = profile_fields(text);
    let (last, rest) = fields.split_last()?;
    Some(if rest.is_empty() {
        (*last).to_string()
    } else {
        format!("{} and {last}", rest.join(", "))
    })
}

/// The default a verdict assumed, as `why` says it ("(assuming the controller's default: …;
/// set `…` to state it)"), made a sentence for the lead: DEVELOPERS.md wants it in the
/// message when the rest of `why` moves to the help.
pub(crate) fn assumed(why: &str) -> String {
    let Some(start) = why.find("(assuming ") else {
        return String::new();
    };
    let Some(len) = why[start..].find("to state it)") else {
        return String::new();
    };
    let inner = &why[start + 1..start + len + "to state it".len()];
    format!(" A{}.", &inner[1..])
}
