//! TKE002 tke-l7-loopback: a private-network CLB Ingress on regular or native nodes,
//! in any proxy mode, without SNAT on every layer-7 listener.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit, Network};
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::verdict::{calls_first, unseen_why, weigh, with_callers};
use crate::rules::{Context, Rule};
use crate::views::pod_template;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{ingress_listeners, listener_for, node_type_unknown, regular_or_native};
use super::{L7_SNAT_FIELD_SINCE, SEED_DOC};
use crate::profile::tke::{INSTANCE_TYPE_LABEL, SUPER_NODE_INSTANCE_TYPE};
use crate::views::tke::listeners;
use crate::views::tke::Section;

use crate::catalog::meta::TKE002 as META;

pub(crate) struct L7Loopback;

/// Is this a TKE CLB Ingress (class `qcloud`, or none: TKE's default)?
pub(crate) fn is_clb_ingress(entry: &EntryPoint) -> bool {
    entry.kind == EntryKind::Ingress
        && entry.provider == Some(Provider::Tke)
        && matches!(entry.class.as_deref(), None | Some("qcloud"))
}

/// Does the Ingress's TkeServiceConfig enable SNAT (either field) on every listener?
pub(crate) fn l7_snat_on_every_listener(cx: &Context<'_>, entry: &EntryPoint) -> bool {
    let ws = cx.ws;
    let Some(config) = cx.tke_configs.config_for(entry.object) else {
        return false;
    };
    let sections = listeners(ws, config, Section::L7);
    ingress_listeners(cx.views.ingress(entry.object))
        .into_iter()
        .all(|(protocol, port)| {
            listener_for(&sections, protocol, port).is_some_and(|l| l.l7_snat().is_some())
        })
}

impl Rule for L7Loopback {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry) in cx.model.entries() {
            if !is_clb_ingress(entry)
                || !(entry.network == Network::Private || reused_unknown(cx, index, entry))
                || l7_snat_on_every_listener(cx, entry)
            {
                continue;
            }
            if let Some(d) = diagnostic(cx, index, entry) {
                out.push(d);
            }
        }
    }
}

/// A called Ingress on a reused CLB (`ingress.existLbId`) whose network the profile does not
/// state: a warning that names the field (README, "Cluster profile").
fn reused_unknown(cx: &Context<'_>, index: EntryId, entry: &EntryPoint) -> bool {
    entry.network == Network::Unknown
        && Annotations::of(cx.ws, &cx.ws.objects[entry.object])
            .entry(crate::model::entry::TKE_INGRESS_EXISTED_LB)
            .is_some()
        && cx.model.callers_of(index).next().is_some()
}

/// TKE002's finding for one private CLB Ingress (TKE003 takes its severity from it), or
/// `None` when the Ingress cannot loop back.
pub(crate) fn diagnostic(
    cx: &Context<'_>,
    index: EntryId,
    entry: &EntryPoint,
) -> Option<Diagnostic> {
    let ws = cx.ws;
    let ingress = &ws.objects[entry.object];
    let (subnet_key, nodes) = reach(cx, entry)?;
    let callers = calls_first(cx.model.callers_of(index));
    // The L7 CLB forwards to a NodePort on any node: a caller on a regular or native node
    // can be sent back to its own node.
    let exposed = callers
        .iter()
        .find(|c| cx.model.any_pool(c.workload, regular_or_native) == Fit::Yes)
        .copied();
    let (severity, message) = if reused_unknown(cx, index, entry) {
        (
            Severity::Warning,
            format!(
                "Reused CLB Ingress `{name}` may loop back in-cluster calls to its hosts. The cluster profile \
                 does not settle it; set `spec.loadBalancers[].network` for `Ingress/{}/{name}` (a reused \
                 CLB's network is not in the manifest, and only a private CLB loops back).",
                ingress.namespace(),
                name = ingress.name()
            ),
        )
    } else {
        words(cx, ingress, nodes, exposed, callers.first().copied())
    };
    let d = META
        .diagnostic(severity, ws.location(ingress, subnet_key.span()), message)
        .with_help(help(cx, entry))
        .on(ingress);
    Some(with_callers(d, cx, callers, "CLB host"))
}

/// The annotation that makes the CLB private (or reused), and whether the cluster has
/// regular or native nodes; `None` where super nodes intercept the CLB VIP (backends pinned
/// there, or a cluster of super nodes only).
fn reach<'w>(cx: &Context<'w>, entry: &EntryPoint) -> Option<(NodeRef<'w>, Fit)> {
    let ws = cx.ws;
    let ingress = &ws.objects[entry.object];
    let (subnet_key, _) = Annotations::of(ws, ingress)
        .entry(crate::model::entry::TKE_INGRESS_SUBNET)
        .or_else(|| {
            Annotations::of(ws, ingress).entry(crate::model::entry::TKE_INGRESS_EXISTED_LB)
        })?;
    let pinned_to_super = |w: &crate::objects::ObjectId| {
        pod_template(ws, &ws.objects[*w])
            .is_some_and(|t| t.node_selector(INSTANCE_TYPE_LABEL) == Some(SUPER_NODE_INSTANCE_TYPE))
    };
    if !entry.backends.is_empty() && entry.backends.iter().all(pinned_to_super) {
        return None;
    }
    let pools = cx.profile.node_pools().filter(|p| !p.is_empty());
    let nodes = match pools {
        Some(pools) => Fit::any(pools.iter().map(regular_or_native)),
        None => Fit::Unknown,
    };
    if nodes == Fit::No {
        return None;
    }
    Some((subnet_key, nodes))
}

/// The severity and message for a private CLB Ingress: an error when a caller runs on a
/// regular or native node (weighed by its evidence), else a warning.
fn words(
    cx: &Context<'_>,
    ingress: &Object,
    nodes: Fit,
    exposed: Option<&Caller>,
    first: Option<&Caller>,
) -> (Severity, String) {
    let ws = cx.ws;
    let name = ingress.name();
    let (severity, message) = match (nodes, exposed, first) {
        (Fit::Unknown, ..) => (
            Severity::Warning,
            format!(
                "Private-network CLB Ingress `{name}` may loop back in-cluster calls to its hosts. The cluster \
                 profile does not settle it; set {}.",
                node_type_unknown(cx.profile)
            ),
        ),
        (_, Some(caller), _) => (
            Severity::Error,
            format!(
                "Private-network CLB Ingress `{name}` will loop back in-cluster calls: {} calls {} from a regular or \
                 native node, and the layer-7 CLB may forward the request to that same node (4-second delays or \
                 failures, in any kube-proxy mode).",
                ws.objects[caller.workload].id, caller.address
            ),
        ),
        (_, None, Some(caller)) => (
            Severity::Warning,
            format!(
                "Private-network CLB Ingress `{name}` loops back in-cluster calls from regular or native nodes; {} \
                 calls {}, but whether it runs on such a node is unknown.",
                ws.objects[caller.workload].id, caller.address
            ),
        ),
        (_, None, None) => (
            Severity::Warning,
            format!(
                "Private-network CLB Ingress `{name}` will loop back in-cluster calls to its hosts from regular or \
                 native nodes, in any kube-proxy mode. No in-cluster caller is visible in these manifests.{}",
                unseen_why(
                    Network::Private,
                    META.id,
                    "enable SNAT on its layer-7 listeners (help)"
                )
            ),
        ),
    };
    match exposed {
        Some(caller) => weigh(severity, caller, message),
        None => (severity, message),
    }
}

/// SNAT on every listener, with the field the profile's ingress-controller reads.
fn help(cx: &Context<'_>, entry: &EntryPoint) -> String {
    let field = match cx.profile.ingress_controller().value {
        Some(v) if crate::profile::version::at_least(v, L7_SNAT_FIELD_SINCE) == Some(false) => {
            format!("`keepaliveEnable: 1` (ingress-controller {v} is before {L7_SNAT_FIELD_SINCE})")
        }
        Some(v) if crate::profile::version::at_least(v, L7_SNAT_FIELD_SINCE) == Some(true) => {
            format!("`snatEnable: true` (ingress-controller {v})")
        }
        _ => format!(
            "`snatEnable: true` from ingress-controller {L7_SNAT_FIELD_SINCE}, `keepaliveEnable: 1` before \
             (set `spec.addons.ingressController` to know which)"
        ),
    };
    let listeners: Vec<String> = ingress_listeners(cx.views.ingress(entry.object))
        .iter()
        .map(|(p, port)| format!("{p}:{port}"))
        .collect();
    format!(
        "layer 7 is fixed only by SNAT on the CLB: reference a TkeServiceConfig with \
         `ingress.cloud.tencent.com/tke-service-config-auto: \"true\"` (or a named one) whose \
         `spec.loadBalancer.l7Listeners[]` enables {field} on every listener ({}), after the \"CLB Layer 7 SNAT\" \
         and \"Keep Alive\" allowlist tickets; backends then read the client IP from X-Forwarded-For. \
         prevent-loopback does not help layer 7. Or have in-cluster clients call the backend Service by name. \
         See {SEED_DOC}",
        listeners.join(", ")
    )
}
