//! Alibaba Cloud ACK / ASM: `externalTrafficPolicy: Local` and ENI backends.
//! Source: Alibaba Cloud ASM, "pods cannot access the CLB address of an ingress gateway"
//! (seed 003) and provider-facts §0.3, §3, §4.2.

use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryKind, EntryPoint, Fit};
use crate::objects::{pod_template, Object, Workspace};
use crate::profile::{Provider, ProxyMode};
use crate::rules::{edit, Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

/// Backend type annotation: `eni` adds pod ENIs to the CLB backend (Terway / inclusive ENI).
pub const BACKEND_TYPE: &str = "service.beta.kubernetes.io/backend-type";
pub const ISTIO_NAMESPACE: &str = "istio-system";
pub const SEED_DOC: &str = "https://www.alibabacloud.com/help/en/asm/support/how-to-do-if-the-kubernetes-cluster-pods-cannot-access-clb-address-in-ingress-gateway";
pub const GATEWAY_DOC: &str =
    "https://alibabacloud.com/help/en/asm/use-cases/define-a-custom-ingress-gateway-service-1694486964219";

fn profile_applies(cx: &Context<'_>) -> bool {
    matches!(cx.profile.provider(), Provider::Ack | Provider::Generic)
}

fn attach(mut d: Diagnostic, object: &Object) -> Diagnostic {
    d.object = Some(object.id.clone());
    d.origin = object.origin.clone();
    d
}

fn is_istio_gateway(object: &Object) -> bool {
    object.kind() == "IstioGateway" && object.group() == "istio.alibabacloud.com"
}

/// `spec.externalTrafficPolicy` when it is `Local`.
fn local_policy<'w>(ws: &'w Workspace, object: &Object) -> Option<NodeRef<'w>> {
    ws.spec(object)
        .and_then(|s| s.get("externalTrafficPolicy"))
        .filter(|p| p.as_str() == Some("Local"))
}

/// `backend-type` as (key, value): a Service annotation, or an IstioGateway's
/// `spec.serviceAnnotations` entry.
fn backend_type<'w>(
    ws: &'w Workspace,
    object: &Object,
    kind: EntryKind,
) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
    match kind {
        EntryKind::Service => ws.annotation(object, BACKEND_TYPE),
        EntryKind::IstioGateway => ws
            .spec(object)?
            .get("serviceAnnotations")?
            .get_entry(BACKEND_TYPE),
        _ => None,
    }
}

/// Service or IstioGateway entry points whose provider may be ACK (not another vendor's).
fn ack_entries<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (usize, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EntryKind::Service | EntryKind::IstioGateway))
        .filter(|(_, e)| matches!(e.provider, Some(Provider::Ack) | None))
        .map(move |(i, e)| (i, e, &cx.ws.objects[e.object]))
}

fn to_cluster_fix(ws: &Workspace, object: &Object, policy: NodeRef<'_>) -> Option<Fix> {
    edit::replace_scalar(
        ws,
        object,
        policy,
        "Cluster",
        "set `externalTrafficPolicy: Cluster`".to_string(),
        // Backends then see a SNATed source address instead of the client's.
        Applicability::Unsafe,
    )
}

fn what(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => format!("IstioGateway `{}`", object.name()),
        _ => format!("LoadBalancer Service `{}`", object.name()),
    }
}

fn dns_name(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => {
            "the gateway Service's DNS name (for the default ingress gateway `istio-ingressgateway.istio-system`)"
                .to_string()
        }
        _ => format!("`{}.{}`", object.name(), object.namespace()),
    }
}

pub mod local_policy_in_cluster {
    //! ACK001 ack-local-policy-in-cluster: `externalTrafficPolicy: Local` with an in-cluster
    //! caller of the CLB address that can run on a node without a backend pod.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "ACK001",
        name: "ack-local-policy-in-cluster",
        default_severity: Severity::Error,
        providers: &["ack", "any"],
        summary: "With `externalTrafficPolicy: Local`, pods on nodes without a backend pod cannot reach the CLB address.",
        doc: include_str!("../../rules/ACK001.md"),
    };

    pub struct LocalPolicyInCluster;

    /// What the proxy mode says about the gap.
    enum Gap {
        /// The gap exists for these callers (all, or hostNetwork only).
        Known {
            host_network_only: bool,
            why: String,
        },
        /// It may exist; the message says why it is not certain.
        Maybe {
            host_network_only: bool,
            why: String,
        },
        None,
    }

    fn gap(cx: &Context<'_>, vendor: bool) -> Gap {
        let mode = cx.profile.proxy_mode();
        match (vendor, mode) {
            (true, Some(m @ (ProxyMode::Iptables | ProxyMode::Ipvs))) => Gap::Known {
                host_network_only: false,
                why: format!(
                    "on ACK, kube-proxy in {m} mode (`spec.kubeProxy.mode`{}) programs the CLB address only on \
                     nodes that run a backend pod, as the vendor documents",
                    cx.profile
                        .fact_line(&["spec", "kubeProxy", "mode"])
                        .map(|l| format!(" at {l}"))
                        .unwrap_or_default()
                ),
            },
            (true, None) => Gap::Maybe {
                host_network_only: false,
                why: "the vendor documents this for kube-proxy in iptables and IPVS mode, and the cluster profile \
                      does not state `spec.kubeProxy.mode`"
                    .to_string(),
            },
            (_, Some(ProxyMode::Nftables)) => Gap::Maybe {
                host_network_only: false,
                why: "upstream kube-proxy in nftables mode (`spec.kubeProxy.mode`) dropped this traffic until \
                      kubernetes/kubernetes#132456 (cherry-picked to release-1.33; the first patch release with \
                      it is not confirmed)"
                    .to_string(),
            },
            (false, Some(ProxyMode::Ipvs)) => Gap::Known {
                host_network_only: true,
                why: "upstream kube-proxy in IPVS mode (`spec.kubeProxy.mode`) still has no rule for the address \
                      for hostNetwork clients on nodes without a backend pod (kubernetes/kubernetes#93456; \
                      PR #97081 fixed it for other pods only)"
                    .to_string(),
            },
            (false, None) => Gap::Maybe {
                host_network_only: true,
                why: "upstream kube-proxy in IPVS mode still drops this for hostNetwork clients \
                      (kubernetes/kubernetes#93456), and the cluster profile does not state `spec.kubeProxy.mode`"
                    .to_string(),
            },
            // Upstream iptables short-circuits to cluster-wide endpoints since v1.15; nothing
            // is documented for eBPF dataplanes.
            _ => Gap::None,
        }
    }

    fn host_network(ws: &Workspace, workload: usize) -> bool {
        pod_template(ws, &ws.objects[workload])
            .and_then(|t| t.spec.get("hostNetwork"))
            .and_then(|h| h.as_bool())
            == Some(true)
    }

    /// Can a pod of the caller run on a node without a backend pod?
    fn strands(cx: &Context<'_>, entry: &EntryPoint, caller: &Caller) -> Fit {
        if entry.backends.is_empty() {
            // An IstioGateway's pods are a Deployment its controller creates (never on every
            // node by construction); a Service's backends are simply not in these manifests.
            return if entry.kind == EntryKind::IstioGateway {
                Fit::Yes
            } else {
                Fit::Unknown
            };
        }
        let mut covered = Fit::No;
        for &backend in &entry.backends {
            match cx.model.covers(cx.ws, backend, caller.workload) {
                Fit::Yes => return Fit::No,
                Fit::Unknown => covered = Fit::Unknown,
                Fit::No => {}
            }
        }
        match covered {
            Fit::Unknown => Fit::Unknown,
            _ => Fit::Yes,
        }
    }

    impl Rule for LocalPolicyInCluster {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !profile_applies(cx) {
                return;
            }
            let ws = cx.ws;
            for (index, entry, object) in ack_entries(cx) {
                let Some(policy) = local_policy(ws, object) else {
                    continue;
                };
                let vendor = entry.provider == Some(Provider::Ack);
                let (known, host_network_only, why) = match gap(cx, vendor) {
                    Gap::Known {
                        host_network_only,
                        why,
                    } => (true, host_network_only, why),
                    Gap::Maybe {
                        host_network_only,
                        why,
                    } => (false, host_network_only, why),
                    Gap::None => continue,
                };
                let callers: Vec<&Caller> = cx
                    .model
                    .callers_of(index)
                    .filter(|c| !host_network_only || host_network(ws, c.workload))
                    .collect();
                let fits: Vec<Fit> = callers.iter().map(|c| strands(cx, entry, c)).collect();
                let subject = what(entry, object);
                let dns = dns_name(entry, object);
                let stranded = callers
                    .iter()
                    .zip(&fits)
                    .find(|(_, f)| **f == Fit::Yes)
                    .or_else(|| callers.iter().zip(&fits).find(|(_, f)| **f == Fit::Unknown));
                let (severity, message) = match stranded {
                    Some((caller, fit)) => {
                        let who = format!(
                            "{}{} calls its CLB address {}",
                            ws.objects[caller.workload].id,
                            if host_network_only { " (hostNetwork)" } else { "" },
                            caller.address
                        );
                        let severity = if known && *fit == Fit::Yes {
                            Severity::Error
                        } else {
                            Severity::Warning
                        };
                        let placement = match fit {
                            Fit::Yes if entry.backends.is_empty() => {
                                "while the gateway's own pods are a Deployment (created by the ASM controller), not a \
                                 DaemonSet on every node the caller can use"
                                    .to_string()
                            }
                            Fit::Yes => "from a pod that can run on a node without a backend pod".to_string(),
                            _ if entry.backends.is_empty() => {
                                "and its backend pods are not in these manifests, so whether every node the caller \
                                 can use runs one is unknown"
                                    .to_string()
                            }
                            _ => "and whether a backend DaemonSet runs on every node the caller can use is unknown \
                                  (set `spec.nodePools`)"
                                .to_string(),
                        };
                        let verb = if known { "fail" } else { "can fail" };
                        (
                            severity,
                            format!(
                                "{subject} has `externalTrafficPolicy: Local` and {who} {placement}: such calls {verb} \
                                 on nodes without a backend pod. {}{why}.",
                                if known { "Cause: " } else { "Not certain: " }
                            ),
                        )
                    }
                    None if !callers.is_empty() || !vendor => continue,
                    None => (
                        Severity::Note,
                        format!(
                            "{subject} has `externalTrafficPolicy: Local`, so pods on nodes without a backend pod \
                             cannot reach its CLB address from inside the cluster; no in-cluster caller of the \
                             address is visible in these manifests ({why})."
                        ),
                    ),
                };
                let eni_where = match entry.kind {
                    EntryKind::IstioGateway => {
                        format!("`spec.serviceAnnotations` entry `{BACKEND_TYPE}: eni`")
                    }
                    _ => format!("annotation `{BACKEND_TYPE}: eni`"),
                };
                let mut d = META
                    .diagnostic(severity, ws.location(object, policy.span()), message)
                    .with_help(format!(
                        "1) have in-cluster clients call {dns} (or the ClusterIP) instead of the CLB address, which \
                         works on every node; 2) set `externalTrafficPolicy: Cluster`, which programs the address on \
                         every node but loses the client source IP (SNAT); 3) set `externalTrafficPolicy: Cluster` and \
                         add the {eni_where}, which keeps the source IP but needs the Terway CNI or inclusive ENI mode. \
                         See {SEED_DOC}"
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
                if let Some(mode) = cx.profile.fact_location(&["spec", "kubeProxy", "mode"]) {
                    d = d.with_related(
                        mode,
                        "the cluster profile's kube-proxy mode decides the verdict",
                    );
                }
                let mut d = attach(d, object);
                d.fix = to_cluster_fix(ws, object, policy);
                out.push(d);
            }
        }
    }
}

pub mod eni_needs_terway {
    //! ACK002 ack-eni-backend-needs-terway: `backend-type: eni` on a cluster without Terway
    //! or inclusive ENI mode.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "ACK002",
        name: "ack-eni-backend-needs-terway",
        default_severity: Severity::Error,
        providers: &["ack"],
        summary: "`service.beta.kubernetes.io/backend-type: eni` needs the Terway CNI or inclusive ENI mode.",
        doc: include_str!("../../rules/ACK002.md"),
    };

    pub struct EniNeedsTerway;

    impl Rule for EniNeedsTerway {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !profile_applies(cx) {
                return;
            }
            let ws = cx.ws;
            let network = cx.profile.spec.network.as_ref();
            let eni_direct = network.and_then(|n| n.eni_direct);
            let cni = network.and_then(|n| n.cni.as_deref());
            let verdict = match (eni_direct, cni) {
                (Some(true), _) => return,
                (None, Some(c)) if c.eq_ignore_ascii_case("terway") => return,
                (Some(false), _) => Some((
                    Severity::Error,
                    format!(
                        "the cluster profile sets `spec.network.eniDirect: false`{} (neither Terway nor inclusive ENI \
                         mode)",
                        cx.profile.fact_at(&["spec", "network", "eniDirect"])
                    ),
                )),
                (None, Some(c)) => Some((
                    Severity::Error,
                    format!(
                        "the cluster profile's `spec.network.cni` is `{c}`{}, not Terway (set \
                         `spec.network.eniDirect: true` if the nodes run in inclusive ENI mode)",
                        cx.profile.fact_at(&["spec", "network", "cni"])
                    ),
                )),
                (None, None) => Some((
                    Severity::Warning,
                    "the cluster profile does not say whether it can: set `spec.network.cni` or \
                     `spec.network.eniDirect`"
                        .to_string(),
                )),
            };
            let Some((severity, why)) = verdict else {
                return;
            };
            for (_, entry, object) in ack_entries(cx) {
                let Some((_, value)) = backend_type(ws, object, entry.kind) else {
                    continue;
                };
                if value.as_str() != Some("eni") {
                    continue;
                }
                let message = format!(
                    "{} sets `{BACKEND_TYPE}: eni`, which adds pod ENIs to the CLB backend and needs the Terway CNI \
                     or inclusive ENI mode; {why}.",
                    what(entry, object)
                );
                let mut d = META
                    .diagnostic(severity, ws.location(object, value.span()), message)
                    .with_help(format!(
                        "remove `{BACKEND_TYPE}: eni` on clusters without Terway or inclusive ENI mode (and use the \
                         Service DNS name for in-cluster calls), or move the workload to a Terway cluster. See {SEED_DOC}"
                    ));
                for keys in [
                    &["spec", "network", "eniDirect"][..],
                    &["spec", "network", "cni"][..],
                ] {
                    if let Some(at) = cx.profile.fact_location(keys) {
                        d = d.with_related(at, "the cluster profile's network decides the verdict");
                        break;
                    }
                }
                out.push(attach(d, object));
            }
        }
    }
}

pub mod eni_with_local_policy {
    //! ACK003 ack-eni-backend-local-policy: `backend-type: eni` with `externalTrafficPolicy:
    //! Local`; the documented pairing is `Cluster`.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "ACK003",
        name: "ack-eni-backend-local-policy",
        default_severity: Severity::Warning,
        providers: &["ack"],
        summary: "`backend-type: eni` is documented together with `externalTrafficPolicy: Cluster`, not `Local`.",
        doc: include_str!("../../rules/ACK003.md"),
    };

    pub struct EniWithLocalPolicy;

    impl Rule for EniWithLocalPolicy {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !profile_applies(cx) {
                return;
            }
            let ws = cx.ws;
            for (_, entry, object) in ack_entries(cx) {
                let Some((key, value)) = backend_type(ws, object, entry.kind) else {
                    continue;
                };
                if value.as_str() != Some("eni") {
                    continue;
                }
                let Some(policy) = local_policy(ws, object) else {
                    continue;
                };
                let message = format!(
                    "{} pairs `{BACKEND_TYPE}: eni` with `externalTrafficPolicy: Local`, but the vendor's fix for \
                     in-cluster access to the CLB address is `eni` with `externalTrafficPolicy: Cluster`: with `Local`, \
                     kube-proxy still programs the address only on nodes that run a backend pod.",
                    what(entry, object)
                );
                let mut d = META
                    .diagnostic(Severity::Warning, ws.location(object, policy.span()), message)
                    .with_help(format!(
                        "set `externalTrafficPolicy: Cluster`; with `{BACKEND_TYPE}: eni` the CLB sends traffic \
                         straight to pod ENIs, so the source IP is kept. See {SEED_DOC}"
                    ))
                    .with_related(ws.location(object, key.span()), "ENI backends are requested here");
                d.fix = to_cluster_fix(ws, object, policy);
                out.push(attach(d, object));
            }
        }
    }
}

pub mod gateway_namespace {
    //! ACK004 ack-istio-gateway-namespace: an ASM IstioGateway outside `istio-system`.

    use super::*;

    pub static META: RuleMeta = RuleMeta {
        id: "ACK004",
        name: "ack-istio-gateway-namespace",
        default_severity: Severity::Error,
        providers: &["ack"],
        summary: "An ASM IstioGateway must be in the `istio-system` namespace.",
        doc: include_str!("../../rules/ACK004.md"),
    };

    pub struct GatewayNamespace;

    impl Rule for GatewayNamespace {
        fn meta(&self) -> &'static RuleMeta {
            &META
        }

        fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
            if !profile_applies(cx) {
                return;
            }
            let ws = cx.ws;
            for object in ws.objects.iter().filter(|o| is_istio_gateway(o)) {
                let root = ws.root(object);
                let namespace = root.path(&["metadata", "namespace"]);
                let help = format!(
                    "set `metadata.namespace: {ISTIO_NAMESPACE}`: from Istio 1.6 an ASM gateway in another namespace \
                     fails to start. See {GATEWAY_DOC}"
                );
                let d = match namespace.and_then(|n| n.as_str().map(|s| (n, s))) {
                    Some((_, ns)) if ns == ISTIO_NAMESPACE => continue,
                    Some((node, ns)) => {
                        let mut d = META
                            .diagnostic(
                                Severity::Error,
                                ws.location(object, node.span()),
                                format!(
                                    "IstioGateway `{}` is in namespace `{ns}`, but ASM gateways must be in \
                                     `{ISTIO_NAMESPACE}`: a gateway elsewhere fails to start.",
                                    object.name()
                                ),
                            )
                            .with_help(help);
                        d.fix = edit::replace_scalar(
                            ws,
                            object,
                            node,
                            ISTIO_NAMESPACE,
                            format!("move the IstioGateway to `{ISTIO_NAMESPACE}`"),
                            // Applying it creates a new object; the old one stays until deleted.
                            Applicability::Unsafe,
                        );
                        d
                    }
                    None => {
                        let at = root.path(&["metadata", "name"]).unwrap_or(root);
                        META.diagnostic(
                            Severity::Warning,
                            ws.location(object, at.span()),
                            format!(
                                "IstioGateway `{}` has no `metadata.namespace`, so it lands in the namespace it is \
                                 applied to, and ASM gateways must be in `{ISTIO_NAMESPACE}`.",
                                object.name()
                            ),
                        )
                        .with_help(help)
                    }
                };
                out.push(attach(d, object));
            }
        }
    }
}
