//! ACK001 ack-local-policy-in-cluster: `externalTrafficPolicy: Local` with an in-cluster
//! caller of the CLB address that can run on a node without a backend pod.

use super::*;

pub use crate::rules::meta::ACK001 as META;

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
    let mode = cx.profile.kube_proxy_mode();
    let field = mode.field();
    match (vendor, mode.value) {
        (true, Some(m @ (ProxyMode::Iptables | ProxyMode::Ipvs))) => Gap::Known {
            host_network_only: false,
            why: format!(
                "on ACK, kube-proxy in {m} mode (`{field}`{}) programs the CLB address only on \
                 nodes that run a backend pod, as the vendor documents",
                mode.location()
                    .map(|l| format!(" at {}:{}", l.file, l.span.start.line))
                    .unwrap_or_default()
            ),
        },
        (true, None) => Gap::Maybe {
            host_network_only: false,
            why: format!(
                "the vendor documents this for kube-proxy in iptables and IPVS mode, and the cluster profile \
                 does not state `{field}`"
            ),
        },
        (_, Some(ProxyMode::Nftables)) => Gap::Maybe {
            host_network_only: false,
            why: format!(
                "upstream kube-proxy in nftables mode (`{field}`) dropped this traffic until \
                 kubernetes/kubernetes#132456 (cherry-picked to release-1.33; the first patch release with \
                 it is not confirmed)"
            ),
        },
        (false, Some(ProxyMode::Ipvs)) => Gap::Known {
            host_network_only: true,
            why: format!(
                "upstream kube-proxy in IPVS mode (`{field}`) still has no rule for the address \
                 for hostNetwork clients on nodes without a backend pod (kubernetes/kubernetes#93456; \
                 PR #97081 fixed it for other pods only)"
            ),
        },
        (false, None) => Gap::Maybe {
            host_network_only: true,
            why: format!(
                "upstream kube-proxy in IPVS mode still drops this for hostNetwork clients \
                 (kubernetes/kubernetes#93456), and the cluster profile does not state `{field}`"
            ),
        },
        // Upstream iptables short-circuits to cluster-wide endpoints since v1.15; nothing
        // is documented for eBPF dataplanes.
        _ => Gap::None,
    }
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
    // A required pod affinity to a backend on the same node pins the caller beside one.
    let ws = cx.ws;
    let caller_object = &ws.objects[caller.workload];
    if let Some(template) = crate::objects::pod_template(ws, caller_object) {
        let pinned = entry.backends.iter().any(|&b| {
            let backend = &ws.objects[b];
            crate::objects::pod_template(ws, backend).is_some_and(|t| {
                crate::model::scheduling::attracts(
                    &template,
                    caller_object.namespace(),
                    &crate::model::scheduling::template_labels(&t),
                    backend.namespace(),
                )
            })
        });
        if pinned {
            return Fit::No;
        }
    }
    let mut covered = Fit::No;
    for &backend in entry.backends.iter() {
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
        let ws = cx.ws;
        for (index, entry, object) in ack_entries(cx) {
            let Some(policy) = local_policy(cx, entry) else {
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
            let callers: Vec<&Caller> = crate::rules::calls_first(
                cx.model
                    .callers_of(index)
                    .filter(|c| !host_network_only || c.from_node),
            );
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
            let (severity, message) = match stranded {
                Some((caller, _)) => crate::rules::weigh(severity, caller, message),
                None => (severity, message),
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
            if let Some(mode) = cx.profile.kube_proxy_mode().location() {
                d = d.with_related(
                    mode,
                    "the cluster profile's kube-proxy mode decides the verdict",
                );
            }
            if !callers.is_empty() && entry.kind == EntryKind::Service {
                d = d.with_suggestion(crate::rules::call_by_name(object));
            }
            let mut d = d.on(object);
            d.fix = to_cluster_fix(ws, object, policy);
            out.push(d);
        }
    }
}
