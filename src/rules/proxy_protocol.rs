//! The PROXY-protocol family (KEP-1860, Motivation): a load balancer that speaks PROXY protocol
//! (or terminates TLS) while kube-proxy short-circuits in-cluster calls to its IP. In-cluster
//! clients then reach the backend without the PROXY header; ingress-nginx with
//! `use-proxy-protocol` answers "broken header" and the client gets an empty reply
//! (kubernetes/ingress-nginx#3996). Each provider's module decides, from its annotations and
//! the profile, whether calls are short-circuited; this module words and weighs the finding
//! the same way for all of them.

use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::{Object, Workspace};
use crate::profile::{version, Provider};
use crate::rules::upstream::{ip_mode_proxy_honoured, Gate};
use crate::rules::{calls_first, weigh, with_callers, Context, RuleMeta};
use crate::yaml::NodeRef;

/// What the load balancer does that a short-circuited call skips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    ProxyProtocol,
    TlsTermination,
}

/// One Service's verdict, from its provider's module.
pub struct Trap<'w> {
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
}

/// A fix that adds `annotation: value` to the Service, on the line after its annotation
/// `after`. A placeholder value (a DNS name to choose) makes it display-only.
pub fn add_annotation(
    ws: &Workspace,
    service: &Object,
    after: &str,
    (annotation, value): (&str, &str),
    applicability: Applicability,
) -> Option<Fix> {
    let annotations = ws.metadata(service, "annotations")?;
    let entry = annotations.get_entry(after)?;
    let line = format!("{annotation}: {value}");
    let edit = crate::rules::edit::insert_entry_after(ws, service, annotations, entry, &line)?;
    Some(Fix {
        description: format!("add annotation `{line}`"),
        applicability,
        edits: vec![edit],
    })
}

/// The hostname way out as a suggestion: the name is a placeholder, and its DNS record must
/// point at the load balancer before clients use it.
pub fn hostname_suggestion(
    ws: &Workspace,
    service: &Object,
    after: &str,
    annotation: &str,
) -> Option<Fix> {
    let mut fix = add_annotation(
        ws,
        service,
        after,
        (annotation, PLACEHOLDER_HOST),
        Applicability::DisplayOnly,
    )?;
    fix.description = format!(
        "add annotation `{annotation}: <name>` with a DNS name whose record points at the load balancer \
         ({PLACEHOLDER_HOST} is a placeholder)"
    );
    Some(fix)
}

/// The name the hostname suggestions show until the user picks theirs.
const PLACEHOLDER_HOST: &str = "lb.example.com";

/// In-cluster calls skip the load balancer: surely, or depending on an unknown fact. Each
/// carries the reason, worded for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bypass {
    Sure(String),
    Unknown(String),
}

impl Bypass {
    /// From whether a way out (`ipMode: Proxy`, a hostname status) works: it works, no
    /// bypass; it does not, a sure one; unknown, an unknown one.
    pub fn unless(way_out: Gate) -> Option<Bypass> {
        match way_out {
            Gate::Yes => None,
            Gate::No(why) => Some(Bypass::Sure(why)),
            Gate::Unknown(why) => Some(Bypass::Unknown(why)),
        }
    }
}

/// LoadBalancer Services that `provider`'s controller handles: annotated for it (or on its
/// profile), and not claimed by another controller's `loadBalancerClass` (K8S012 says so).
pub fn services_of<'c>(
    cx: &'c Context<'_>,
    provider: Provider,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entries()
        .filter(move |(_, e)| {
            e.kind == EntryKind::Service
                && e.provider == Some(provider)
                && e.class.as_deref().is_none_or(str::is_empty)
        })
        .filter(|(_, e)| {
            cx.views
                .service(e.object)
                .is_some_and(|s| s.is_load_balancer())
        })
        .map(|(i, e)| (i, e, &cx.ws.objects[e.object]))
}

/// The annotation `key` when its value is one of `values` (compared as written).
pub fn annotation_in<'w>(
    ws: &'w Workspace,
    object: &Object,
    key: &str,
    values: &[&str],
) -> Option<NodeRef<'w>> {
    let (k, v) = ws.annotation(object, key)?;
    v.as_str().filter(|v| values.contains(v)).map(|_| k)
}

/// The annotation `key` when it is written with a non-empty value.
pub fn annotation_set<'w>(ws: &'w Workspace, object: &Object, key: &str) -> Option<&'w str> {
    ws.annotation(object, key)
        .and_then(|(_, v)| v.as_str())
        .filter(|v| !v.trim().is_empty())
}

/// The Service's status will hold a hostname and no IP, so kube-proxy has nothing to
/// short-circuit: the provider's hostname annotation `key` is set (not to `false`), or a
/// status in the manifest already shows it.
pub fn hostname_way_out(cx: &Context<'_>, entry: &EntryPoint, key: &str) -> bool {
    let service = &cx.ws.objects[entry.object];
    annotation_set(cx.ws, service, key).is_some_and(|v| v != "false")
        || cx
            .views
            .service(entry.object)
            .and_then(|s| s.hostname_only())
            .is_some()
}

/// The provider's controller (`spec.addons.cloudControllerManager`) at `since` or later.
pub fn controller_at_least(cx: &Context<'_>, name: &str, since: &str, does: &str) -> Gate {
    let stated = cx.profile.cloud_controller_manager();
    match stated.value.map(|v| (v, version::at_least(v, since))) {
        Some((_, Some(true))) => Gate::Yes,
        Some((v, Some(false))) => Gate::No(format!(
            "{name} {v} (profile `{}`{}) is before {since}, the first that {does}",
            stated.field(),
            stated.at_line()
        )),
        Some((v, None)) => Gate::Unknown(stated.unknown(&format!(
            "`{v}` is not a version lblint can compare; {name} {since} and later {does}"
        ))),
        None => Gate::Unknown(stated.unknown(&format!("{name} {since} and later {does}"))),
    }
}

/// Report `trap` on the Service of `entry`: an error when a pod really calls the load
/// balancer's address (or a host it serves) and the call is sure to skip it; a warning
/// without a caller, or when the verdict hangs on an unknown fact.
pub fn report(
    cx: &Context<'_>,
    meta: &'static RuleMeta,
    index: EntryId,
    entry: &EntryPoint,
    trap: Trap<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let ws = cx.ws;
    let mut trap = trap;
    // A status that already reports `ipMode: Proxy` (a kubectl dump) shows what the
    // controller does, whatever its version: only the cluster's gates remain.
    let reports_proxy = cx
        .views
        .service(entry.object)
        .is_some_and(|s| s.ip_modes().any(|m| m.as_str() == Some("Proxy")));
    if reports_proxy {
        trap.bypass = match ip_mode_proxy_honoured(cx) {
            Gate::Yes => return,
            Gate::No(why) => Bypass::Sure(format!("its status reports `ipMode: Proxy`, but {why}")),
            Gate::Unknown(why) => {
                Bypass::Unknown(format!("{why} (its status reports `ipMode: Proxy`)"))
            }
        };
    }
    let service = &ws.objects[entry.object];
    let label = entry.provider.map_or("cloud", Provider::label);
    let name = service.name();
    let (what, breaks) = match trap.feature {
        Feature::ProxyProtocol => (
            "speaks PROXY protocol",
            "the backend gets the request without the PROXY header (ingress-nginx logs \"broken \
             header\", the client gets an empty reply)",
        ),
        Feature::TlsTermination => (
            "terminates TLS",
            "the backend gets TLS it does not terminate, or plain HTTP where it expects the load \
             balancer's decrypted traffic",
        ),
    };
    let callers = calls_first(cx.model.callers_of(index));
    let (severity, message) = match (&trap.bypass, callers.first()) {
        (Bypass::Unknown(why), first) => (
            Severity::Warning,
            format!(
                "The {label} load balancer of Service `{name}` {what}, and in-cluster calls to its \
                 address may skip it; it depends on {why}.{}",
                match first {
                    Some(c) => format!(
                        " {} calls {} ({}).",
                        ws.objects[c.workload].id, c.address, c.via
                    ),
                    None => String::new(),
                }
            ),
        ),
        (Bypass::Sure(why), Some(caller)) => weigh(
            Severity::Error,
            caller,
            format!(
                "The {label} load balancer of Service `{name}` {what}, but {} calls {} ({}) from \
                 inside the cluster, and kube-proxy answers that call on the node: {why}. So {breaks}.",
                ws.objects[caller.workload].id,
                caller.address,
                caller.via,
            ),
        ),
        (Bypass::Sure(why), None) => (
            Severity::Warning,
            format!(
                "The {label} load balancer of Service `{name}` {what}, but in-cluster calls to its \
                 address skip it: {why}. No in-cluster caller is visible in these manifests; one \
                 that calls its IP or a host it serves would fail, as {breaks}."
            ),
        ),
    };
    let mut d = meta
        .diagnostic(severity, ws.location(service, trap.at.span()), message)
        .with_help(trap.fix)
        .on(service);
    for fix in trap.edits {
        if fix.applicability == Applicability::Unsafe && d.fix.is_none() {
            d.fix = Some(fix);
        } else {
            d = d.with_suggestion(Fix {
                applicability: Applicability::DisplayOnly,
                ..fix
            });
        }
    }
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
    out.push(with_callers(d, ws, callers.iter().copied(), "address"));
}

/// Is `host` one the controllers behind this load balancer serve (not its own address)?
fn serves(entry: &EntryPoint, host: &str) -> bool {
    entry
        .addresses
        .iter()
        .any(|a| a.source == crate::model::AddressSource::ControllerIngressHost && a.matches(host))
}
