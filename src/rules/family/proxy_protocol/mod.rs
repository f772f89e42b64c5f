//! The PROXY-protocol family (KEP-1860, Motivation): a load balancer that speaks PROXY protocol
//! (or terminates TLS) while kube-proxy short-circuits in-cluster calls to its IP. In-cluster
//! clients then reach the backend without the PROXY header; ingress-nginx with
//! `use-proxy-protocol` answers "broken header" and the client gets an empty reply
//! (kubernetes/ingress-nginx#3996).
//!
//! One engine, [`ProxyProvider`], is the rule of every provider in the family; each
//! provider's file here is its adapter (what turns the feature on, the hostname and
//! `ipMode` ways out, the fixes), and `members.rs` is the family's table, which K8S010 and
//! K8S001 read too. The finding is worded and weighed the same way for all (`report.rs`).

pub(crate) mod cloudscale;
pub(crate) mod doks;
pub(crate) mod hetzner;
pub(crate) mod lke;
pub(crate) mod members;
pub(crate) mod oke;
pub(crate) mod openstack;
mod report;
pub(crate) mod scaleway;

pub(crate) use report::{rejected, Bypass, Feature, Rejected};

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::model::EntryPoint;
use crate::objects::Object;
use crate::profile::{version, Fact, Profile, Provider};
use crate::rules::family::kube_proxy::{ip_mode_proxy_honoured, Gate};
use crate::rules::select::load_balancers_of;
use crate::rules::{Context, Rule};
use crate::yaml::NodeRef;

/// One provider of the family: its rule's metadata and the vendor's facts, as hooks the
/// engine calls for each LoadBalancer Service the provider's controller handles.
pub(crate) struct ProxyProvider {
    pub provider: Provider,
    pub meta: &'static RuleMeta,
    /// What turns the feature on for a Service, and the annotation (or field) that does:
    /// the finding points at it, and the fixes insert after it. Or the value the
    /// controller refuses, which the rule reports instead.
    pub trigger: Trigger,
    /// The annotation that gives the Service's status a hostname, which kube-proxy cannot
    /// short-circuit (`None`: the controller has none).
    pub hostname: Option<Hostname>,
    /// Whether the controller reads the hostname annotation at all (a release before the
    /// one that added it does not; unknown when that hangs on an unstated version).
    pub hostname_honoured: fn(&Context<'_>) -> Gate,
    /// A controller option that gives every Service a hostname status, if the provider has
    /// one.
    pub hostname_option: Option<HostnameOption>,
    /// Whether the controller sets `ipMode: Proxy` on the Service, and why. The engine adds
    /// whether the cluster honours it.
    pub ip_mode: IpMode,
    /// An edit that makes the controller set `ipMode: Proxy` (after the trigger's key), put
    /// before the hostname edit.
    pub ip_mode_fix: IpModeFix,
    /// The vendor's ways out, for the help text.
    pub help: fn() -> String,
}

/// See [`ProxyProvider::trigger`].
pub(crate) type Trigger = for<'w> fn(&Context<'w>, &EntryPoint, &Object) -> Option<Triggered<'w>>;

/// What a provider's trigger finds on a Service.
pub(crate) enum Triggered<'w> {
    /// The load balancer has the feature; the annotation (or field) that turns it on.
    On(Feature, NodeRef<'w>),
    /// The controller refuses a value the trigger reads, so it does not reconcile the
    /// Service the way it is written.
    Rejected(Rejected<'w>),
    /// The feature is on only if an unstated profile fact says so (a value only newer
    /// controllers read): at most a warning, and the reason names the field.
    Uncertain(Feature, NodeRef<'w>, String),
}

impl<'w> Triggered<'w> {
    /// PROXY protocol, turned on at `at`.
    pub(crate) fn proxy(at: NodeRef<'w>) -> Triggered<'w> {
        Triggered::On(Feature::ProxyProtocol, at)
    }

    /// PROXY protocol turned on at `proxy`, else TLS terminated at `tls`: PROXY protocol
    /// wins where both are on (the header is what a short-circuited call loses first).
    pub(crate) fn either(
        proxy: Option<NodeRef<'w>>,
        tls: Option<NodeRef<'w>>,
    ) -> Option<Triggered<'w>> {
        match (proxy, tls) {
            (Some(at), _) => Some(Triggered::proxy(at)),
            (None, Some(at)) => Some(Triggered::On(Feature::TlsTermination, at)),
            (None, None) => None,
        }
    }
}
/// See [`ProxyProvider::ip_mode`].
pub(crate) type IpMode = fn(&Context<'_>, &EntryPoint, &Object) -> Gate;
/// See [`ProxyProvider::ip_mode_fix`].
pub(crate) type IpModeFix = fn(&Context<'_>, &Object, &str) -> Option<Fix>;

/// The hostname way out, by the kind of value its annotation takes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Hostname {
    /// A DNS name the status then reports: the fix is a suggestion with a placeholder name.
    Name(&'static str),
    /// `"true"`, which makes the status hostname-only: an unsafe fix (clients must then use a
    /// DNS name, not the IP).
    Flag(&'static str),
}

impl Hostname {
    pub(crate) fn annotation(self) -> &'static str {
        match self {
            Hostname::Name(key) | Hostname::Flag(key) => key,
        }
    }

    /// The edit that adds the annotation after the annotation `after`; where the trigger is
    /// no annotation (a controller default) or the layout takes no edit, the same advice
    /// by hand.
    fn edit(self, cx: &Context<'_>, service: &Object, after: &str) -> Option<Fix> {
        self.insert(cx, service, after).or_else(|| {
            Some(Fix::manual(match self {
                Hostname::Name(key) => format!(
                    "add annotation `{key}: <name>` with a DNS name whose record points at the load balancer"
                ),
                Hostname::Flag(key) => format!("add annotation `{key}: \"true\"`"),
            }))
        })
    }

    fn insert(self, cx: &Context<'_>, service: &Object, after: &str) -> Option<Fix> {
        match self {
            Hostname::Name(key) => hostname_suggestion(cx, service, after, key),
            Hostname::Flag(key) => add_annotation(
                cx,
                service,
                after,
                (key, "\"true\""),
                // The status then holds a hostname, not the IP clients and DNS may use.
                Applicability::Unsafe,
            ),
        }
    }
}

/// A controller option, stated in the profile, that gives every Service a hostname status.
#[derive(Clone, Copy)]
pub(crate) struct HostnameOption {
    pub fact: for<'p> fn(&'p Profile) -> Fact<'p, bool>,
    /// The option's documented default, off, which a profile that does not state it is
    /// assumed to run with, in words for the message ("OCCM's `enable-ingress-hostname`
    /// is false by default").
    pub default: &'static str,
    /// The Service's hostname annotation, when written (whatever its value), decides
    /// instead of the option.
    pub annotation_overrides: bool,
    /// The option gives only PROXY-protocol Services a hostname (OpenStack's
    /// `createLoadBalancerStatus`), not those that only terminate TLS.
    pub proxy_only: bool,
}

/// The controller reads its hostname annotation in every release.
pub(crate) fn always(_: &Context<'_>) -> Gate {
    Gate::Yes
}

/// No `ipMode` edit: the controller has no annotation for it.
pub(crate) fn no_ip_mode_fix(_: &Context<'_>, _: &Object, _: &str) -> Option<Fix> {
    None
}

impl Rule for ProxyProvider {
    fn meta(&self) -> &'static RuleMeta {
        self.meta
    }

    /// The provider's load balancers: going through one is the vendor's own way out of the
    /// bypass, not a risk, and this rule judges whether calls take it.
    fn claims(&self, _cx: &Context<'_>, entry: &crate::model::EntryPoint) -> bool {
        entry.provider == Some(self.provider)
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let option = self.hostname_option.map(|o| ((o.fact)(cx.profile), o));
        for (index, entry, service) in load_balancers_of(cx, self.provider) {
            // A status in the manifest (a live export) is the controller's own answer.
            let reported = reported_status(cx, entry);
            if matches!(reported, Some(Reported::HostnameOnly)) {
                continue;
            }
            let triggered = (self.trigger)(cx, entry, service);
            let feature = match &triggered {
                Some(Triggered::On(feature, _) | Triggered::Uncertain(feature, ..)) => {
                    Some(*feature)
                }
                _ => None,
            };
            // The option, where it applies to this load balancer's feature.
            let option = option
                .as_ref()
                .filter(|(_, o)| !(o.proxy_only && feature == Some(Feature::TlsTermination)));
            if reported.is_none() && self.option_gives_hostname(cx, service, option) {
                continue;
            }
            let (feature, at, uncertain) = match triggered {
                Some(Triggered::On(feature, at)) => (feature, at, None),
                Some(Triggered::Uncertain(feature, at, why)) => (feature, at, Some(why)),
                Some(Triggered::Rejected(r)) => {
                    out.push(rejected(cx.ws, self.meta, service, r));
                    continue;
                }
                None => continue,
            };
            let honoured = (self.hostname_honoured)(cx);
            let hostname = self.hostname.filter(|_| !matches!(honoured, Gate::No(_)));
            // The Service's own hostname annotation is the manifest's intent: it wins over a
            // status exported before it was added, where the controller reads it.
            let by_hostname = hostname.is_some_and(|h| hostname_way_out(cx, entry, h));
            if by_hostname && honoured == Gate::Yes {
                continue;
            }
            let mut way_out = match (&reported, honoured) {
                (Some(Reported::Vip(why)), _) => Gate::No(why.clone()),
                (_, Gate::Unknown(why)) if by_hostname => Gate::Unknown(format!(
                    "whether the controller reads the Service's hostname annotation: {why}"
                )),
                _ => (self.ip_mode)(cx, entry, service).and(ip_mode_proxy_honoured(cx)),
            };
            if let (None, Some((fact, o))) = (&reported, option) {
                way_out = assuming_default(way_out, fact, o.default);
            }
            let Some(bypass) = Bypass::unless(way_out) else {
                continue;
            };
            let maybe_on = uncertain.is_some();
            let bypass = match (uncertain, bypass) {
                (None, bypass) => bypass,
                (Some(on), Bypass::Sure(why) | Bypass::Unknown(why)) => {
                    Bypass::Unknown(format!("{on}; if it is on, {why}"))
                }
            };
            let after = at.as_str().unwrap_or_default();
            let edits = (self.ip_mode_fix)(cx, service, after)
                .into_iter()
                .chain(hostname.and_then(|h| h.edit(cx, service, after)))
                .collect();
            let trap = report::Trap {
                feature,
                maybe_on,
                at,
                bypass,
                fix: (self.help)(),
                edits,
            };
            report::report(cx, self.meta, index, entry, trap, out);
        }
    }
}

impl ProxyProvider {
    /// The option gives the status a hostname, unless the Service's own annotation
    /// overrides it (Linode's `makeLoadBalancerStatus`).
    fn option_gives_hostname(
        &self,
        cx: &Context<'_>,
        service: &Object,
        option: Option<&(Fact<'_, bool>, HostnameOption)>,
    ) -> bool {
        option.is_some_and(|(fact, o)| {
            fact.value == Some(true)
                && !(o.annotation_overrides
                    && self.hostname.is_some_and(|h| {
                        cx.lb_annotations(service).entry(h.annotation()).is_some()
                    }))
        })
    }
}

/// When the profile does not state the controller option that would give the status a
/// hostname, the verdict rests on the option's documented default, and says so.
fn assuming_default(way_out: Gate, fact: &Fact<'_, bool>, default: &str) -> Gate {
    let assumed = |why: String| {
        format!(
            "{why} (assuming the controller's default: {default}; set `{}` to state it)",
            fact.field()
        )
    };
    match (way_out, fact.value) {
        (Gate::No(why), None) => Gate::No(assumed(why)),
        (Gate::Unknown(why), None) => Gate::Unknown(assumed(why)),
        (gate, _) => gate,
    }
}

/// A fix that adds `annotation: value` to the Service, on the line after its annotation
/// `after`. A placeholder value (a DNS name to choose) makes it display-only.
pub(crate) fn add_annotation(
    cx: &Context<'_>,
    service: &Object,
    after: &str,
    (annotation, value): (&str, &str),
    applicability: Applicability,
) -> Option<Fix> {
    let view = cx.lb_annotations(service);
    let annotations = view.mapping()?;
    let entry = view.entry(after)?;
    let line = format!("{annotation}: {value}");
    let edit = crate::rules::edit::insert_entry_after(cx.ws, service, annotations, entry, &line)?;
    Some(Fix {
        description: format!("add annotation `{line}`"),
        applicability,
        edits: vec![edit],
    })
}

/// The hostname way out as a suggestion: the name is a placeholder, and its DNS record must
/// point at the load balancer before clients use it.
pub(crate) fn hostname_suggestion(
    cx: &Context<'_>,
    service: &Object,
    after: &str,
    annotation: &str,
) -> Option<Fix> {
    let mut fix = add_annotation(
        cx,
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

/// What a status written in the manifest (a `kubectl get -o yaml` export) shows about the
/// shortcut, whatever the profile's controller options and versions suggest (the Service's
/// own annotations are the manifest's intent and still count).
enum Reported {
    /// A hostname and no IP: nothing for kube-proxy to short-circuit.
    HostnameOnly,
    /// An IP with `ipMode: VIP`, which kube-proxy short-circuits, and where.
    Vip(String),
    /// IPs without `ipMode: VIP`: no hostname from a controller option; the controller's
    /// `ipMode` decides (`as_reported` weighs a reported `Proxy`).
    Ip,
}

fn reported_status(cx: &Context<'_>, entry: &EntryPoint) -> Option<Reported> {
    let view = cx.views.service(entry.object)?;
    if view.hostname_only().is_some() {
        return Some(Reported::HostnameOnly);
    }
    if !view.reports_ip() {
        return None;
    }
    let Some(ip) = view.vip_ingress() else {
        return Some(Reported::Ip);
    };
    let service = &cx.ws.objects[entry.object];
    let line = cx.ws.location(service, ip.span()).span.start.line;
    let address = ip.as_str().unwrap_or_default();
    Some(Reported::Vip(format!(
        "its status (line {line}) reports the IP {address} with `ipMode: VIP`"
    )))
}

/// The Service's status will hold a hostname and no IP, so kube-proxy has nothing to
/// short-circuit: the provider's hostname annotation names a host (a `Name`) or reads as
/// true with Go's `strconv.ParseBool` (a `Flag`: Linode's `getServiceBoolAnnotation` and
/// Scaleway's `getUseHostname` take any other value as false), or a status in the manifest
/// already shows it.
pub(crate) fn hostname_way_out(cx: &Context<'_>, entry: &EntryPoint, hostname: Hostname) -> bool {
    let service = &cx.ws.objects[entry.object];
    let view = cx.lb_annotations(service);
    let annotated = match hostname {
        Hostname::Name(key) => view.non_empty(key).is_some(),
        Hostname::Flag(key) => view.go_bool(key) == Some(Ok(true)),
    };
    annotated
        || cx
            .views
            .service(entry.object)
            .and_then(|s| s.hostname_only())
            .is_some()
}

/// The provider's controller (`spec.addons.cloudControllerManager`) at `since` or later.
pub(crate) fn controller_at_least(cx: &Context<'_>, name: &str, since: &str, does: &str) -> Gate {
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
