//! The family's finding, the same for every provider: the verdict first (does the call
//! surely skip the load balancer, and who calls), then its words.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{AddressSource, Caller, EntryId, EntryPoint};
use crate::objects::{Object, Workspace};
use crate::profile::Provider;
use crate::rules::family::kube_proxy::{ip_mode_proxy_honoured, Gate};
use crate::rules::verdict::{calls_first, weigh, with_callers};
use crate::rules::Context;
use crate::yaml::NodeRef;

/// What the load balancer does that a short-circuited call skips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Feature {
    ProxyProtocol,
    TlsTermination,
}

/// In-cluster calls skip the load balancer: surely, or depending on an unknown fact. Each
/// carries the reason, worded for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bypass {
    Sure(String),
    Unknown(String),
}

impl Bypass {
    /// From whether a way out (`ipMode: Proxy`, a hostname status) works: it works, no
    /// bypass; it does not, a sure one; unknown, an unknown one.
    pub(crate) fn unless(way_out: Gate) -> Option<Bypass> {
        match way_out {
            Gate::Yes => None,
            Gate::No(why) => Some(Bypass::Sure(why)),
            Gate::Unknown(why) => Some(Bypass::Unknown(why)),
        }
    }
}

/// A value the controller refuses: it returns an error instead of reconciling the Service
/// as written (the load balancer is not created or updated, or its status not written).
pub(crate) struct Rejected<'w> {
    /// The annotation's value (the finding points at it).
    pub at: NodeRef<'w>,
    pub annotation: &'static str,
    /// The controller, its function, and what the error stops, e.g. "the DigitalOcean
    /// controller (`getEnableProxyProtocol`) fails with".
    pub controller: &'static str,
    /// The controller's own error text for this value.
    pub error: String,
    /// What to write instead.
    pub help: String,
}

/// The error finding of a refused value: it quotes the controller, so the user can match
/// it to the event the controller records on the Service.
pub(crate) fn rejected(
    ws: &Workspace,
    meta: &'static RuleMeta,
    service: &Object,
    r: Rejected<'_>,
) -> Diagnostic {
    let shown =
        r.at.as_str()
            .map_or_else(|| "a non-string value".to_string(), |v| format!("`{v}`"));
    meta.diagnostic(
        Severity::Error,
        ws.location(service, r.at.span()),
        format!(
            "{} `{}` sets `{}` to {shown}, which {} \"{}\": the load balancer is not reconciled as \
             written.",
            service.kind(),
            service.name(),
            r.annotation,
            r.controller,
            r.error
        ),
    )
    .with_help(r.help)
    .on(service)
}

/// One Service's trap, from its provider's adapter.
pub(super) struct Trap<'w> {
    pub feature: Feature,
    /// The annotation that turns the feature on (the finding points at its key).
    pub at: NodeRef<'w>,
    /// Whether in-cluster calls to the address skip the load balancer, and why.
    pub bypass: Bypass,
    /// The vendor's ways out, for the help text.
    pub fix: String,
    /// Edits for the ways out that fit in the manifest: an unsafe one becomes the finding's
    /// fix (`--fix --unsafe-fixes`), the others are shown as suggestions.
    pub edits: Vec<Fix>,
    /// The feature is on only if an unstated fact says so ([`super::Triggered::Uncertain`]):
    /// the lead says the load balancer *may* have it.
    pub maybe_on: bool,
}

/// Report `trap` on the Service of `entry`: an error when a pod really calls the load
/// balancer's address (or a host it serves) and the call is sure to skip it; a warning
/// without a caller, or when the verdict hangs on an unknown fact.
pub(super) fn report(
    cx: &Context<'_>,
    meta: &'static RuleMeta,
    index: EntryId,
    entry: &EntryPoint,
    trap: Trap<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let Some(bypass) = as_reported(cx, entry, trap.bypass) else {
        return;
    };
    let callers = calls_first(cx.model.callers_of(index));
    let (severity, message, why) = words(
        cx,
        (meta.id, entry),
        (trap.feature, trap.maybe_on),
        &bypass,
        callers.first().copied(),
    );
    let service = &ws.objects[entry.object];
    let mut d = meta
        .diagnostic(severity, ws.location(service, trap.at.span()), message)
        .with_help(format!("{why} Way out: {}", trap.fix))
        .on(service);
    d = with_edits(d, trap.edits);
    // A host served behind the load balancer: calling the Ingress's backend Service by
    // name leaves both the controller and the load balancer out of the path.
    if callers
        .iter()
        .any(|c| c.address_span.is_some() && !c.via.is_implied() && serves(entry, &c.address))
    {
        d = d.with_suggestion(Fix::manual(
            "have in-cluster clients call the backend Service behind the Ingress rule for the host by its \
             in-cluster name (`<service>.<namespace>`) instead of the public host: neither the ingress \
             controller nor the load balancer is then in the path",
        ));
    }
    out.push(with_callers(d, cx, callers.iter().copied(), "address"));
}

/// A status that already reports `ipMode: Proxy` (a kubectl dump) shows what the
/// controller does, whatever its version: only the cluster's gates remain. `None`: the
/// calls do not skip the load balancer.
fn as_reported(cx: &Context<'_>, entry: &EntryPoint, bypass: Bypass) -> Option<Bypass> {
    let reports_proxy = cx
        .views
        .service(entry.object)
        .is_some_and(|s| s.ip_modes().any(|m| m.as_str() == Some("Proxy")));
    if !reports_proxy {
        return Some(bypass);
    }
    match ip_mode_proxy_honoured(cx) {
        Gate::Yes => None,
        Gate::No(why) => Some(Bypass::Sure(format!(
            "its status reports `ipMode: Proxy`, but {why}"
        ))),
        Gate::Unknown(why) => Some(Bypass::Unknown(format!(
            "{why} (its status reports `ipMode: Proxy`)"
        ))),
    }
}

/// The severity and message (the severity principle, DEVELOPERS.md): unknown, a warning
/// naming the first caller; sure with a caller, an error (weighed by its evidence); no
/// caller, a note, or a warning for a private load balancer.
fn words(
    cx: &Context<'_>,
    (rule, entry): (&str, &EntryPoint),
    (feature, maybe_on): (Feature, bool),
    bypass: &Bypass,
    first: Option<&Caller>,
) -> (Severity, String, String) {
    let ws = cx.ws;
    let label = entry.provider.map_or("cloud", Provider::label);
    let name = ws.objects[entry.object].name();
    let (what, breaks) = feature_words(feature, maybe_on);
    // Nothing visible calls it: the same severity as every rule's (verdict::unseen).
    let unseen = crate::rules::verdict::unseen(entry.network);
    let inferred = cx.inferred_service(&ws.objects[entry.object]);
    let subject = match &inferred {
        Some(service) => format!(
            "The {label} load balancer of Gateway `{name}` ({}, inferred) {what}",
            service.name.as_deref().map_or_else(
                || "its Service".to_string(),
                |n| format!("its Service `{n}`")
            )
        ),
        None => format!("The {label} load balancer of Service `{name}` {what}"),
    };
    // Where the inferred Service comes from opens the help.
    let origin = inferred.map_or_else(String::new, |s| {
        format!(
            "The load balancer belongs to {}; it carries the Gateway's `{}`. ",
            s.describe(),
            s.annotations_from
        )
    });
    // The lead fits two lines; why, and what breaks, open the help.
    match (bypass, first) {
        (Bypass::Unknown(why), first) => (
            if first.is_some() { Severity::Warning } else { unseen },
            format!(
                "{subject}, and in-cluster calls to its address may skip it ({}).{}{}",
                settle(why),
                crate::rules::verdict::assumed(why),
                match first {
                    Some(c) => format!(
                        " {} calls {} ({}).",
                        ws.objects[c.workload].id, c.address, c.via
                    ),
                    None => String::new(),
                }
            ),
            format!("{origin}Whether they skip it depends on {why}. If they do, {breaks}."),
        ),
        (Bypass::Sure(why), Some(caller)) => {
            let (severity, message) = weigh(
                Severity::Error,
                caller,
                format!(
                    "{subject}, but {} calls {} ({}), and {} answers \
                     that call on the node, skipping it.{}",
                    ws.objects[caller.workload].id,
                    caller.address,
                    caller.via,
                    answerer(cx),
                    crate::rules::verdict::assumed(why),
                ),
            );
            (
                severity,
                message,
                format!(
                    "{origin}{} answers it on the node: {why}. So {breaks}.",
                    capitalised(answerer(cx))
                ),
            )
        }
        (Bypass::Sure(why), None) => (
            unseen,
            format!(
                "{subject}, but in-cluster calls to its address skip it; no in-cluster caller is \
                 visible in these manifests.{}{}",
                crate::rules::verdict::assumed(why),
                crate::rules::verdict::unseen_why(
                    entry.network,
                    rule,
                    "make in-cluster calls cross the load balancer (a hostname status or `ipMode: Proxy`, as the help says)",
                )
            ),
            format!(
                "{origin}They skip it: {why}. One that calls its IP or a host it serves would fail, as {breaks}."
            ),
        ),
    }
}

/// What the load balancer does, and what breaks when a call skips it.
fn feature_words(feature: Feature, maybe_on: bool) -> (&'static str, &'static str) {
    match feature {
        Feature::ProxyProtocol => (
            if maybe_on {
                "may speak PROXY protocol"
            } else {
                "speaks PROXY protocol"
            },
            "the backend gets the request without the PROXY header (ingress-nginx logs \"broken \
             header\", the client gets an empty reply)",
        ),
        Feature::TlsTermination => (
            "terminates TLS",
            "the backend gets TLS it does not terminate, or plain HTTP where it expects the load \
             balancer's decrypted traffic",
        ),
    }
}

/// What answers a call to the load balancer's address on the node: kube-proxy, or the
/// dataplane the profile says replaces it.
fn answerer(cx: &Context<'_>) -> &'static str {
    match cx.profile.proxy_mode() {
        Some(crate::profile::ProxyMode::Ebpf) => "the dataplane that replaces kube-proxy",
        _ => "kube-proxy",
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The profile fields an unknown verdict hangs on, as the lead says them.
fn settle(why: &str) -> String {
    crate::rules::verdict::settle(why)
        .unwrap_or_else(|| "it depends on facts the help names".to_string())
}

/// `d` with the first unsafe edit as its fix and the other edits, in order, as suggestions.
fn with_edits(d: Diagnostic, mut edits: Vec<Fix>) -> Diagnostic {
    let fix = edits
        .iter()
        .position(|fix| fix.applicability == Applicability::Unsafe)
        .map(|at| edits.remove(at));
    edits
        .into_iter()
        .fold(d.with_fix(fix), Diagnostic::with_suggestion)
}

/// Is `host` one the controllers behind this load balancer serve (not its own address)?
fn serves(entry: &EntryPoint, host: &str) -> bool {
    entry
        .addresses
        .iter()
        .any(|a| a.source == AddressSource::ControllerIngressHost && a.matches(host))
}
