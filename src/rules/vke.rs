//! Volcengine Kubernetes Engine (VKE): the IP mode of LoadBalancer Services.
//! Source: Volcengine, "Configuring the IP mode of the LoadBalancer Service" (seed 002,
//! last updated 2026-07-24) and provider-facts §0.2, §2, §4.1.

use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{EntryKind, EntryPoint, Fit};
use crate::objects::{Object, Workspace};
use crate::profile::{version, Profile, Provider};
use crate::rules::{edit, Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

pub const IP_MODE: &str = "service.beta.kubernetes.io/volcengine-loadbalancer-ip-mode";
/// The seed's valid values, spelled as it spells them (`VIP` is the default).
pub const VALID_MODES: [&str; 2] = ["VIP", "Proxy"];
pub const SEED_DOC: &str =
    "Volcengine VKE, \"Configuring the IP mode of the LoadBalancer Service\"";

/// Provider rules run when the profile names VKE, or on VKE-annotated objects without one.
fn applies(cx: &Context<'_>) -> bool {
    matches!(cx.profile.provider(), Provider::Vke | Provider::Generic)
}

fn is_service(object: &Object) -> bool {
    object.kind() == "Service" && object.group().is_empty()
}

/// The IP-mode annotation as (key node, value node).
fn ip_mode<'w>(ws: &'w Workspace, object: &Object) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
    ws.annotation(object, IP_MODE)
}

/// The annotation's value when it is one of the valid spellings.
fn valid_mode(value: NodeRef<'_>) -> Option<&str> {
    value.as_str().filter(|v| VALID_MODES.contains(v))
}

fn attach(mut d: Diagnostic, object: &Object) -> Diagnostic {
    d.object = Some(object.id.clone());
    d.origin = object.origin.clone();
    d
}

/// `Proxy` → `VIP`: unsafe, since the mode cannot be changed on an existing Service.
fn to_vip_fix(ws: &Workspace, object: &Object, value: NodeRef<'_>) -> Option<Fix> {
    edit::replace_scalar(
        ws,
        object,
        value,
        "VIP",
        format!("set `{IP_MODE}` to `VIP`"),
        Applicability::Unsafe,
    )
}

/// LoadBalancer Services with the annotation set to exactly `Proxy`.
fn proxy_services<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (usize, &'c EntryPoint, &'c Object, NodeRef<'c>)> + 'c {
    cx.model
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EntryKind::Service)
        .filter_map(move |(i, e)| {
            let object = &cx.ws.objects[e.object];
            let (_, value) = ip_mode(cx.ws, object)?;
            (value.as_str() == Some("Proxy")).then_some((i, e, object, value))
        })
}

pub mod ip_mode_invalid {
    //! VKE001 vke-ip-mode-invalid: the IP-mode annotation has a value other than `VIP` or `Proxy`.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "VKE001",
        name: "vke-ip-mode-invalid",
        default_severity: Severity::Error,
        providers: &["vke"],
        summary: "The Volcengine IP-mode annotation must be `VIP` or `Proxy`.",
        doc: include_str!("../../rules/VKE001.md"),
    };

    pub struct IpModeInvalid;

    impl Rule for IpModeInvalid {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !applies(cx) {
                return;
            }
            let ws = cx.ws;
            for object in ws.objects.iter().filter(|o| is_service(o)) {
                let Some((_, value)) = ip_mode(ws, object) else {
                    continue;
                };
                if valid_mode(value).is_some() {
                    continue;
                }
                let shown = value
                    .as_str()
                    .map_or_else(|| "a non-string value".to_string(), |v| format!("`{v}`"));
                let near = value.as_str().and_then(|v| {
                    VALID_MODES
                        .iter()
                        .find(|m| m.eq_ignore_ascii_case(v.trim()))
                        .copied()
                });
                let mut message = format!(
                    "Service `{}` sets `{IP_MODE}` to {shown}, which is not a valid IP mode: the valid values are `VIP` (the default) and `Proxy`.",
                    object.name()
                );
                if let Some(near) = near {
                    message.push_str(&format!(
                        " lblint reads the values as case-sensitive, as the vendor spells them; did you mean `{near}`?"
                    ));
                }
                let mut d = META
                    .diagnostic(Severity::Error, ws.location(object, value.span()), message)
                    .with_help(format!(
                        "set `{IP_MODE}` to `VIP` (kube-proxy keeps in-cluster traffic inside the cluster) or `Proxy` \
                         (all traffic passes through the CLB), or remove it for the default `VIP`; the mode cannot be \
                         changed after the Service is created. See {SEED_DOC}"
                    ));
                if let Some(near) = near {
                    d.fix = edit::replace_scalar(
                        ws,
                        object,
                        value,
                        near,
                        format!("set `{IP_MODE}` to `{near}`"),
                        // The mode is fixed at creation: an existing Service keeps its mode.
                        Applicability::Unsafe,
                    );
                }
                out.push(attach(d, object));
            }
        }
    }
}

pub mod ip_mode_not_load_balancer {
    //! VKE002 vke-ip-mode-without-load-balancer: the annotation on a Service that gets no CLB.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "VKE002",
        name: "vke-ip-mode-without-load-balancer",
        default_severity: Severity::Warning,
        providers: &["vke"],
        summary: "The Volcengine IP-mode annotation has no effect on a Service that is not `type: LoadBalancer`.",
        doc: include_str!("../../rules/VKE002.md"),
    };

    pub struct IpModeNotLoadBalancer;

    impl Rule for IpModeNotLoadBalancer {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !applies(cx) {
                return;
            }
            let ws = cx.ws;
            for object in ws.objects.iter().filter(|o| is_service(o)) {
                let Some((key, _)) = ip_mode(ws, object) else {
                    continue;
                };
                let type_node = ws.spec(object).and_then(|s| s.get("type"));
                let service_type = type_node.and_then(|t| t.as_str()).unwrap_or("ClusterIP");
                if service_type == "LoadBalancer" {
                    continue;
                }
                let mut d = META
                    .diagnostic(
                        Severity::Warning,
                        ws.location(object, key.span()),
                        format!(
                            "Service `{}` sets `{IP_MODE}` but is `type: {service_type}`, so the annotation has no \
                             effect: the IP mode applies to LoadBalancer Services only.",
                            object.name()
                        ),
                    )
                    .with_help(format!(
                        "set `spec.type: LoadBalancer` if the Service should get a CLB, or remove `{IP_MODE}`. See {SEED_DOC}"
                    ));
                if let Some(t) = type_node {
                    d = d.with_related(
                        ws.location(object, t.span()),
                        "the Service type is set here",
                    );
                }
                out.push(attach(d, object));
            }
        }
    }
}

pub mod proxy_prerequisites {
    //! VKE003 vke-proxy-mode-prerequisites: `Proxy` on a cluster that lacks a prerequisite.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "VKE003",
        name: "vke-proxy-mode-prerequisites",
        default_severity: Severity::Error,
        providers: &["vke"],
        summary: "`Proxy` IP mode needs Kubernetes 1.30+, VPC-CNI with IPvlan and eBPF forwarding, and cloud-controller-manager v1.43.0+.",
        doc: include_str!("../../rules/VKE003.md"),
    };

    pub struct ProxyPrerequisites;

    /// A prerequisite the profile contradicts (with where it says so), or one it does not state.
    enum Verdict {
        Missing(String, &'static [&'static str]),
        Unknown(String),
    }

    fn version_fact(
        profile: &Profile,
        value: Option<&str>,
        keys: &'static [&'static str],
        minimum: &str,
        what: &str,
    ) -> Option<Verdict> {
        let field = keys.join(".");
        let Some(value) = value else {
            return Some(Verdict::Unknown(format!(
                "`{field}` ({what} must be {minimum} or later)"
            )));
        };
        match version::at_least(value, minimum) {
            Some(true) => None,
            Some(false) => Some(Verdict::Missing(
                format!(
                    "`{field}` is `{value}`{}, below {minimum}",
                    profile.fact_at(keys)
                ),
                keys,
            )),
            None => Some(Verdict::Unknown(format!(
                "`{field}` (`{value}` is not a version lblint can compare; {what} must be {minimum} or later)"
            ))),
        }
    }

    fn string_fact(
        profile: &Profile,
        value: Option<&str>,
        keys: &'static [&'static str],
        wanted: &str,
        what: &str,
    ) -> Option<Verdict> {
        let field = keys.join(".");
        match value {
            None => Some(Verdict::Unknown(format!(
                "`{field}` (must be `{wanted}`: {what})"
            ))),
            Some(v) if v.eq_ignore_ascii_case(wanted) => None,
            Some(v) => Some(Verdict::Missing(
                format!(
                    "`{field}` is `{v}`{}, not `{wanted}` ({what})",
                    profile.fact_at(keys)
                ),
                keys,
            )),
        }
    }

    impl Rule for ProxyPrerequisites {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !applies(cx) {
                return;
            }
            let spec = &cx.profile.spec;
            let network = spec.network.as_ref();
            let verdicts: Vec<Verdict> = [
                version_fact(
                    cx.profile,
                    spec.kubernetes_version.as_deref(),
                    &["spec", "kubernetesVersion"],
                    "v1.30",
                    "the cluster Kubernetes version",
                ),
                string_fact(
                    cx.profile,
                    network.and_then(|n| n.cni.as_deref()),
                    &["spec", "network", "cni"],
                    "vpc-cni",
                    "the VPC-CNI network model",
                ),
                string_fact(
                    cx.profile,
                    network.and_then(|n| n.pod_interface.as_deref()),
                    &["spec", "network", "podInterface"],
                    "ipvlan",
                    "IPvlan pod network interfaces",
                ),
                string_fact(
                    cx.profile,
                    network.and_then(|n| n.service_forwarding.as_deref()),
                    &["spec", "network", "serviceForwarding"],
                    "ebpf",
                    "eBPF Service forwarding",
                ),
                version_fact(
                    cx.profile,
                    spec.addons
                        .as_ref()
                        .and_then(|a| a.cloud_controller_manager.as_deref()),
                    &["spec", "addons", "cloudControllerManager"],
                    "v1.43.0",
                    "the cloud-controller-manager add-on",
                ),
            ]
            .into_iter()
            .flatten()
            .collect();
            if verdicts.is_empty() {
                return;
            }
            let missing: Vec<&str> = verdicts
                .iter()
                .filter_map(|v| match v {
                    Verdict::Missing(s, _) => Some(s.as_str()),
                    Verdict::Unknown(_) => None,
                })
                .collect();
            let unknown: Vec<&str> = verdicts
                .iter()
                .filter_map(|v| match v {
                    Verdict::Unknown(s) => Some(s.as_str()),
                    Verdict::Missing(..) => None,
                })
                .collect();
            let profile = cx.profile.path.as_deref().map_or_else(
                || "the cluster profile".to_string(),
                |p| format!("the cluster profile {p}"),
            );
            for (_, _, object, value) in proxy_services(cx) {
                let name = object.name();
                let (severity, mut message) = if missing.is_empty() {
                    (
                        Severity::Warning,
                        format!(
                            "Service `{name}` uses the `Proxy` IP mode, which works only on clusters that meet its \
                             prerequisites, and {profile} does not say whether this one does; set {}.",
                            unknown.join(", ")
                        ),
                    )
                } else {
                    (
                        Severity::Error,
                        format!(
                            "Service `{name}` uses the `Proxy` IP mode, which this cluster does not support: {}.",
                            missing.join("; ")
                        ),
                    )
                };
                if !missing.is_empty() && !unknown.is_empty() {
                    message.push_str(&format!(
                        " Also not stated in {profile}: {}.",
                        unknown.join(", ")
                    ));
                }
                let mut d = META
                    .diagnostic(severity, cx.ws.location(object, value.span()), message)
                    .with_help(format!(
                        "`Proxy` needs Kubernetes v1.30 or later, the VPC-CNI network model with IPvlan pod interfaces \
                         and eBPF Service forwarding, and the cloud-controller-manager add-on v1.43.0 or later: upgrade \
                         the cluster and add-on, or set `{IP_MODE}` to `VIP` (the default) before the Service is \
                         created. See {SEED_DOC}"
                    ));
                for keys in verdicts.iter().filter_map(|v| match v {
                    Verdict::Missing(_, keys) => Some(*keys),
                    Verdict::Unknown(_) => None,
                }) {
                    if let Some(at) = cx.profile.fact_location(keys) {
                        d = d.with_related(
                            at,
                            "the cluster profile states this prerequisite is not met",
                        );
                    }
                }
                let mut d = attach(d, object);
                d.fix = to_vip_fix(cx.ws, object, value);
                out.push(d);
            }
        }
    }
}

pub mod proxy_same_node {
    //! VKE004 vke-proxy-same-node: `Proxy` IP mode with an in-cluster caller that can share a
    //! node with a backend pod.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "VKE004",
        name: "vke-proxy-same-node",
        default_severity: Severity::Error,
        providers: &["vke"],
        summary: "In `Proxy` IP mode a client pod on the same node as a backend pod cannot reach the CLB address.",
        doc: include_str!("../../rules/VKE004.md"),
    };

    pub struct ProxySameNode;

    impl Rule for ProxySameNode {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !applies(cx) {
                return;
            }
            let ws = cx.ws;
            for (index, entry, object, value) in proxy_services(cx) {
                let name = object.name();
                let namespace = object.namespace();
                let callers: Vec<_> = cx.model.callers_of(index).collect();
                let fits: Vec<Fit> = callers
                    .iter()
                    .map(|c| {
                        entry
                            .backends
                            .iter()
                            .map(|&b| cx.model.can_share_node(ws, c.workload, b, |_| true))
                            .fold(
                                if entry.backends.is_empty() {
                                    Fit::Unknown
                                } else {
                                    Fit::No
                                },
                                |acc, fit| match (acc, fit) {
                                    (Fit::Yes, _) | (_, Fit::Yes) => Fit::Yes,
                                    (Fit::Unknown, _) | (_, Fit::Unknown) => Fit::Unknown,
                                    _ => Fit::No,
                                },
                            )
                    })
                    .collect();
                if !callers.is_empty() && fits.iter().all(|f| *f == Fit::No) {
                    // Required anti-affinity (or disjoint pools) keeps every caller apart.
                    continue;
                }
                let limit = "in `Proxy` mode the CLB may keep the client pod's source IP, so when it forwards a \
                             request to a backend pod on the client's own node the reply skips the CLB and the \
                             request fails";
                let sharing = callers
                    .iter()
                    .zip(&fits)
                    .find(|(_, f)| **f == Fit::Yes)
                    .or_else(|| callers.iter().zip(&fits).find(|(_, f)| **f == Fit::Unknown));
                let (severity, message) = match sharing {
                    Some((caller, Fit::Yes)) => (
                        Severity::Error,
                        format!(
                            "Service `{name}` uses the `Proxy` IP mode and {} calls its CLB address {} from a pod that \
                             can run on the same node as a backend pod (both fit a pool in `spec.nodePools`{} and no \
                             required pod anti-affinity on `kubernetes.io/hostname` keeps them apart): {limit}.",
                            ws.objects[caller.workload].id,
                            caller.address,
                            cx.profile
                        .fact_line(&["spec", "nodePools"])
                        .map(|l| format!(" at {l}"))
                        .unwrap_or_default()
                        ),
                    ),
                    Some((caller, _)) => {
                        let why = if entry.backends.is_empty() {
                            "the Service's backend pods are not in these manifests".to_string()
                        } else if cx.profile.node_pools().is_none() {
                            "set `spec.nodePools` in the cluster profile to settle it".to_string()
                        } else {
                            "the profile's node pools do not settle it".to_string()
                        };
                        (
                            Severity::Warning,
                            format!(
                                "Service `{name}` uses the `Proxy` IP mode and {} calls its CLB address {}; whether \
                                 that pod can run on the same node as a backend pod is unknown ({why}): {limit}.",
                                ws.objects[caller.workload].id, caller.address
                            ),
                        )
                    }
                    None => (
                        Severity::Warning,
                        format!(
                            "Service `{name}` uses the `Proxy` IP mode, where a client pod on the same node as a \
                             backend pod cannot reach the CLB address: {limit}. No in-cluster caller of its address \
                             is visible in these manifests."
                        ),
                    ),
                };
                let mut d = META
                    .diagnostic(severity, ws.location(object, value.span()), message)
                    .with_help(format!(
                        "set `{IP_MODE}` to `VIP` (the default; the mode cannot be changed after creation, so recreate \
                         the Service), or have in-cluster clients call `{name}.{namespace}.svc.cluster.local`, or keep \
                         clients and backend pods on different nodes with required pod anti-affinity \
                         (`requiredDuringSchedulingIgnoredDuringExecution`, `topologyKey: kubernetes.io/hostname`) \
                         between them. See {SEED_DOC}"
                    ));
                for caller in &callers {
                    d = d.with_related(
                        caller.location.clone(),
                        format!(
                            "{} calls the CLB address {} from inside the cluster",
                            ws.objects[caller.workload].id, caller.address
                        ),
                    );
                }
                let mut d = attach(d, object);
                d.fix = to_vip_fix(ws, object, value);
                out.push(d);
            }
        }
    }
}

pub mod ip_mode_status_mismatch {
    //! VKE005 vke-ip-mode-changed: the annotation disagrees with the IP mode in the
    //! Service's status; the mode cannot be changed after creation.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "VKE005",
        name: "vke-ip-mode-changed",
        default_severity: Severity::Warning,
        providers: &["vke"],
        summary: "The Volcengine IP mode cannot be changed after creation; the annotation disagrees with the Service's status.",
        doc: include_str!("../../rules/VKE005.md"),
    };

    pub struct IpModeStatusMismatch;

    impl Rule for IpModeStatusMismatch {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !applies(cx) {
                return;
            }
            let ws = cx.ws;
            for entry in cx
                .model
                .entry_points
                .iter()
                .filter(|e| e.kind == EntryKind::Service)
            {
                let object = &ws.objects[entry.object];
                let annotation = ip_mode(ws, object);
                let wanted = match annotation {
                    Some((_, value)) => match valid_mode(value) {
                        Some(mode) => mode,
                        // VKE001 reports the value itself.
                        None => continue,
                    },
                    // No annotation means VIP, but only on a VKE Service.
                    None if entry.provider == Some(Provider::Vke) => "VIP",
                    None => continue,
                };
                let statuses = ws
                    .root(object)
                    .path(&["status", "loadBalancer", "ingress"])
                    .into_iter()
                    .flat_map(NodeRef::items)
                    .filter_map(|i| i.get("ipMode"));
                for status in statuses {
                    let Some(actual) = status.as_str() else {
                        continue;
                    };
                    if actual == wanted {
                        continue;
                    }
                    let status_location = ws.location(object, status.span());
                    let (location, stated) = match annotation {
                        Some((_, value)) => (
                            ws.location(object, value.span()),
                            format!("sets `{IP_MODE}: {wanted}`"),
                        ),
                        None => (
                            status_location.clone(),
                            format!("has no `{IP_MODE}` annotation (the default is `VIP`)"),
                        ),
                    };
                    let message = format!(
                        "Service `{}` {stated} but its status reports `ipMode: {actual}`: the IP mode cannot be \
                         changed after the Service is created, so applying this manifest does not switch the mode. \
                         (lblint reads the mode VKE applied from `status.loadBalancer.ingress[].ipMode`, the upstream \
                         field the vendor's `status.ipMode` check refers to.)",
                        object.name()
                    );
                    let mut d = META
                        .diagnostic(Severity::Warning, location, message)
                        .with_help(format!(
                            "to keep the current mode, set `{IP_MODE}` to `{actual}`; to switch to `{wanted}`, delete \
                             and recreate the Service (its CLB and address may change). See {SEED_DOC}"
                        ));
                    if annotation.is_some() {
                        d = d.with_related(
                            status_location,
                            format!("the live Service runs in `{actual}` mode"),
                        );
                    }
                    let mut d = attach(d, object);
                    if let (Some((_, value)), true) = (annotation, VALID_MODES.contains(&actual)) {
                        d.fix = edit::replace_scalar(
                            ws,
                            object,
                            value,
                            actual,
                            format!("set `{IP_MODE}` back to `{actual}`, the mode the Service has"),
                            Applicability::Unsafe,
                        );
                    }
                    out.push(d);
                }
            }
        }
    }
}
