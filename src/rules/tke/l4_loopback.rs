//! TKE001 tke-l4-loopback: a private-network CLB Service in IPVS mode with backends on
//! regular or native nodes, and no working mitigation.

use std::collections::HashMap;

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit, Network};
use crate::objects::{Object, ObjectId, Workspace};
use crate::profile::{tke_binding, Provider, ProxyMode};
use crate::rules::verdict::{calls_first, unseen_why, weigh, with_call_by_name, with_callers};
use crate::rules::{Context, Rule};
use crate::views::pod_template;
use crate::views::Annotations;
use crate::views::ServiceView;
use crate::yaml::NodeRef;

use super::prevent_loopback::{binding, Binding};
use super::{node_type_unknown, regular_or_native};
use crate::model::entry::tke_reused_clb as reused_clb;
use crate::profile::tke::{INSTANCE_TYPE_LABEL, INTERNAL_SUBNET, SUPER_NODE_INSTANCE_TYPE};
use crate::views::tke::{listeners, Section};

use super::{PREVENT_LOOPBACK, SEED_DOC};

use crate::catalog::meta::TKE001 as META;

pub(crate) struct L4Loopback;

impl Rule for L4Loopback {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // Services sharing one selector share one backend list: judge each list once.
        let mut node_types_by_backends = HashMap::new();
        for (entry_index, entry) in cx.model.entries() {
            if let Some(diagnostic) =
                check_service(cx, entry_index, entry, &mut node_types_by_backends)
            {
                out.push(diagnostic);
            }
        }
    }
}

/// TKE001's verdict on one Service, before it is worded.
struct Verdict<'m> {
    /// The private subnet annotation, or a reused CLB's: the finding points at it.
    subnet_key: NodeRef<'m>,
    /// A reused CLB whose network the profile does not state.
    reused_unknown: bool,
    /// The profile facts the verdict needed but the profile does not state.
    unknowns: Vec<String>,
    /// The callers of the address, real calls first.
    callers: Vec<&'m Caller>,
    /// Whether a caller can run on a regular or native node beside a backend pod, and the
    /// caller the message names.
    sharing: (Option<&'m Caller>, Fit),
}

fn check_service(
    cx: &Context<'_>,
    entry_index: EntryId,
    entry: &EntryPoint,
    node_types_by_backends: &mut HashMap<*const ObjectId, Fit>,
) -> Option<Diagnostic> {
    let verdict = verdict(cx, entry_index, entry, node_types_by_backends)?;
    Some(diagnostic(cx, entry, verdict))
}

/// `None` where the Service cannot loop back: not a private (or unstated reused) TKE CLB, a
/// mitigation in place, a proxy mode that never sends the call to the CLB, or backends on
/// super nodes only.
fn verdict<'m>(
    cx: &'m Context<'_>,
    entry_index: EntryId,
    entry: &EntryPoint,
    node_types_by_backends: &mut HashMap<*const ObjectId, Fit>,
) -> Option<Verdict<'m>> {
    let ws = cx.ws;
    let service = &ws.objects[entry.object];
    // Only a private-network CLB loops back: a public CLB sees the node's public egress IP.
    // A reused CLB whose network the profile does not state: judged only when a pod calls
    // it, and then at most a warning that names the field (rules/TKE001.md).
    let reused_unknown = entry.network == Network::Unknown
        && reused_clb(&Annotations::of(ws, service)).is_some()
        && cx.model.callers_of(entry_index).next().is_some();
    if entry.kind != EntryKind::Service
        || !(entry.network == Network::Private || reused_unknown)
        || entry.provider != Some(Provider::Tke)
    {
        return None;
    }
    // The private subnet annotation, or a reused CLB the profile states is private.
    let (subnet_key, _) = Annotations::of(ws, service)
        .entry(INTERNAL_SUBNET)
        .or_else(|| reused_clb(&Annotations::of(ws, service)))?;
    if prevent_loopback_enabled(ws, service)
        || l4_snat_on_every_port(
            ws,
            cx.views.service(entry.object),
            cx.tke_configs.config_for(entry.object),
        )
    {
        return None;
    }

    let mode = cx.profile.kube_proxy_mode();
    let mut unknowns = Vec::new();
    if reused_unknown {
        unknowns.push(format!(
            "`spec.loadBalancers[].network` for `Service/{}/{}` (a reused CLB's network is not in \
             the manifest, and only a private CLB loops back)",
            service.namespace(),
            service.name()
        ));
    }
    match mode.value {
        Some(ProxyMode::Ipvs) => {}
        // iptables translates the destination before routing: traffic never reaches the CLB.
        Some(ProxyMode::Iptables) => return None,
        // TKE documents only iptables and IPVS; nothing is claimed for other modes.
        Some(ProxyMode::Nftables | ProxyMode::Ebpf) => return None,
        None => unknowns.push(mode.unknown("the loopback happens in IPVS mode only")),
    }
    let node_types = *node_types_by_backends
        .entry(entry.backends.as_ptr())
        .or_insert_with(|| backend_node_types(cx, entry));
    match node_types {
        Fit::No => return None,
        Fit::Yes => {}
        Fit::Unknown => unknowns.push(node_type_unknown(cx.profile)),
    }
    let callers = calls_first(cx.model.callers_of(entry_index));
    let sharing = sharing(cx, entry, &callers);
    Some(Verdict {
        subnet_key,
        reused_unknown,
        unknowns,
        callers,
        sharing,
    })
}

/// The loopback needs a caller and a backend on the same regular or native node: the first
/// caller that can, else the first that may.
fn sharing<'m>(
    cx: &Context<'_>,
    entry: &EntryPoint,
    callers: &[&'m Caller],
) -> (Option<&'m Caller>, Fit) {
    let sharing = callers
        .iter()
        .flat_map(|c| entry.backends.iter().map(move |&b| (c, b)))
        .map(|(c, b)| {
            (
                c,
                cx.model
                    .can_share_node(cx.ws, c.workload, b, regular_or_native),
            )
        })
        .fold((None, Fit::No), |(first, acc), (c, fit)| match (acc, fit) {
            (Fit::Yes, _) => (first, Fit::Yes),
            (_, Fit::Yes) => (Some(*c), Fit::Yes),
            (_, Fit::Unknown) => (first.or(Some(*c)), Fit::Unknown),
            _ => (first, acc),
        });
    // Backends not in these manifests (a controller installed elsewhere): where they run,
    // and so whether a caller shares their node, is unknown.
    match (entry.backends.is_empty(), callers.first()) {
        (true, Some(&caller)) => (Some(caller), Fit::Unknown),
        _ => sharing,
    }
}

/// The severity and message: an error when the profile settles everything and a caller
/// can share a backend's node, weighed by that caller's evidence.
fn words(cx: &Context<'_>, service: &Object, verdict: &Verdict<'_>) -> (Severity, String) {
    let ws = cx.ws;
    let name = service.name();
    let sharing = verdict.sharing;
    let severity = if verdict.unknowns.is_empty() && sharing.1 == Fit::Yes {
        Severity::Error
    } else {
        Severity::Warning
    };
    let message = if !verdict.unknowns.is_empty() {
        format!(
            "{} Service `{name}` may loop back in-cluster calls to its own address. \
             The cluster profile does not settle it; set {}.",
            if verdict.reused_unknown {
                "Reused CLB"
            } else {
                "Private-network CLB"
            },
            verdict.unknowns.join(" and ")
        )
    } else {
        // The mechanism is the help's first words (why_it_hangs): the lead names the caller.
        let tail = match (verdict.callers.first(), sharing) {
            (_, (Some(caller), Fit::Yes)) => format!(
                ": {} calls its address {} and can run on a node with a backend pod.",
                ws.objects[caller.workload].id, caller.address
            ),
            (Some(caller), (_, Fit::No)) => format!(
                ": {} calls its address {} but never shares a node with a backend pod; other pods would.",
                ws.objects[caller.workload].id, caller.address
            ),
            (Some(caller), _) => format!(
                ": {} calls its address {}; whether it shares a node with a backend pod is unknown.",
                ws.objects[caller.workload].id, caller.address
            ),
            (None, _) => format!(
                ". No in-cluster caller of its address is visible in these manifests.{}",
                unseen_why(
                    Network::Private,
                    META.id,
                    "add `service.cloud.tencent.com/prevent-loopback: \"true\"` or SNAT on its layer-4 listeners (help)"
                )
            ),
        };
        format!("Private-network CLB Service `{name}` will loop back in-cluster calls to its own address{tail}")
    };
    match sharing.0 {
        Some(caller) => weigh(severity, caller, message),
        None => (severity, message),
    }
}

/// The finding: at the subnet annotation, with the ways out, where the Service gets its
/// CLB and the profile's mode, the callers, and prevent-loopback as the fix.
fn diagnostic(cx: &Context<'_>, entry: &EntryPoint, verdict: Verdict<'_>) -> Diagnostic {
    let ws = cx.ws;
    let service = &ws.objects[entry.object];
    let (severity, message) = words(cx, service, &verdict);
    let binding = binding(cx);
    let mut diagnostic = META
        .diagnostic(severity, ws.location(service, verdict.subnet_key.span()), message)
        .with_help(format!(
            "in IPVS mode{} the CLB may send a pod's request to a backend on the pod's own node, and the \
             connection hangs: add the annotation `{PREVENT_LOOPBACK}: \"true\"` (intra-cluster forwarding, which needs kube-proxy to bind LB addresses to the IPVS NIC: {}), or enable SNAT on every layer-4 listener \
             with a TkeServiceConfig `spec.loadBalancer.l4Listeners[].snatEnable: true` (needs the CLB Layer 4 SNAT \
             allowlist ticket), or have in-cluster clients call {}. See {SEED_DOC}",
            cx.profile.kube_proxy_mode().at(),
            binding_needed(&binding),
            service.service_hosts_hint()
        ))
        .on(service);
    if let Some(type_node) = cx
        .views
        .service(entry.object)
        .and_then(|s| s.service_type())
    {
        diagnostic = diagnostic.with_related(
            ws.location(service, type_node.span()),
            "the Service gets a cloud load balancer here",
        );
    }
    if let Some(stated) = cx.profile.kube_proxy_mode().location() {
        diagnostic = diagnostic.with_related(
            stated,
            "the cluster profile's kube-proxy mode decides the verdict",
        );
    }
    diagnostic = with_call_by_name(diagnostic, service, verdict.callers.iter().copied());
    // The fix must end green: offered only where kube-proxy is known to bind LB addresses
    // (else TKE004 would flag the annotation it adds).
    let fix = match binding {
        Binding::Supported => prevent_loopback_fix(ws, service),
        _ => None,
    };
    with_callers(diagnostic, cx, verdict.callers, "CLB address").with_fix(fix)
}

/// What prevent-loopback needs of kube-proxy, for the help: settled by the profile, or the
/// builds that bind LB addresses.
fn binding_needed(binding: &Binding) -> String {
    match binding {
        Binding::Supported => "this cluster's does".into(),
        Binding::Unsupported(why) => format!(
            "this cluster's does not, {why}; upgrade it to {}",
            tke_binding::SUPPORTED_BUILDS
        ),
        Binding::Unknown(_) => tke_binding::SUPPORTED_BUILDS.to_string(),
    }
}

fn prevent_loopback_enabled(ws: &Workspace, service: &Object) -> bool {
    Annotations::of(ws, service)
        .entry(PREVENT_LOOPBACK)
        .and_then(|(_, v)| v.as_str())
        .is_some_and(|v| v == "true")
}

/// SNAT fixes the loopback only for listeners that enable it: every Service port needs
/// an `l4Listeners` entry (same port and protocol) with `snatEnable: true`.
fn l4_snat_on_every_port(
    ws: &Workspace,
    service: Option<&ServiceView<'_>>,
    config: Option<&Object>,
) -> bool {
    let (Some(service), Some(config)) = (service, config) else {
        return false;
    };
    let listeners = listeners(ws, config, Section::L4);
    !service.ports.is_empty()
        && service.ports.iter().all(|port| {
            listeners
                .iter()
                .any(|l| port.port.is_some_and(|n| l.is(port.protocol, n)) && l.snat_on().is_some())
        })
}

/// Can the Service's backends run on regular or native nodes?
fn backend_node_types(cx: &Context<'_>, entry: &EntryPoint) -> Fit {
    let ws = cx.ws;
    // A nodeSelector on the super-node instance type pins pods to super nodes (a fact,
    // with or without node pools in the profile).
    let pinned_to_super = |w: &ObjectId| {
        pod_template(ws, &ws.objects[*w])
            .is_some_and(|t| t.node_selector(INSTANCE_TYPE_LABEL) == Some(SUPER_NODE_INSTANCE_TYPE))
    };
    if !entry.backends.is_empty() && entry.backends.iter().all(pinned_to_super) {
        return Fit::No;
    }
    match cx.profile.node_pools() {
        Some(pools) if !pools.is_empty() => {
            if entry.backends.is_empty() {
                // Backends not in these manifests: any regular or native pool may hold them.
                Fit::any(pools.iter().map(regular_or_native))
            } else {
                Fit::any(
                    entry
                        .backends
                        .iter()
                        .map(|&b| cx.model.any_pool(b, regular_or_native)),
                )
            }
        }
        _ => Fit::Unknown,
    }
}

/// Insert `prevent-loopback: "true"` after the subnet annotation, when the annotations
/// are a block mapping (a flow mapping would need reformatting).
fn prevent_loopback_fix(ws: &Workspace, service: &Object) -> Option<Fix> {
    let view = Annotations::of(ws, service);
    let annotations = view.mapping()?;
    // Already there with another value (`"yes"`, `"false"`): set it, never add a duplicate key.
    if let Some((_, value)) = view.entry(PREVENT_LOOPBACK) {
        return Some(Fix {
            description: format!("set `{PREVENT_LOOPBACK}` to \"true\""),
            applicability: Applicability::Unsafe,
            edits: vec![Edit {
                span: value.span(),
                content: "\"true\"".to_string(),
            }],
        });
    }
    let subnet = view.entry(INTERNAL_SUBNET).or_else(|| reused_clb(&view))?;
    let edit = crate::rules::edit::insert_entry_after(
        ws,
        service,
        annotations,
        subnet,
        &format!("{PREVENT_LOOPBACK}: \"true\""),
    )?;
    Some(Fix {
        description: format!("add annotation `{PREVENT_LOOPBACK}: \"true\"`"),
        // It changes the traffic path: in-cluster calls bypass the CLB and its features.
        applicability: Applicability::Unsafe,
        edits: vec![edit],
    })
}
