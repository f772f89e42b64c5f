//! `externalTrafficPolicy: Local` with an in-cluster caller of the load-balancer address
//! that can run on a node without a backend pod. ACK001 ack-local-policy-in-cluster: on ACK,
//! the vendor-documented verdict. K8S013 local-policy-in-cluster: elsewhere, upstream
//! kube-proxy's gaps by mode and version (provider-facts §10.2, §10.3, §11).

use super::*;

pub use crate::rules::meta::ACK001 as META;
pub use crate::rules::meta::K8S013 as UPSTREAM_META;

pub struct LocalPolicyInCluster;

/// K8S013: the same trap on every other provider, judged by upstream kube-proxy's facts.
pub struct UpstreamLocalPolicy;

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
        // ACK documents iptables and IPVS; other dataplanes follow upstream.
        (false, _) | (true, Some(ProxyMode::Nftables | ProxyMode::Ebpf)) => upstream_gap(cx),
    }
}

/// The kube-proxy version that decides a gap: `spec.kubeProxy.version`, else the cluster's.
fn proxy_version(cx: &Context<'_>) -> Option<(String, String)> {
    let own = cx.profile.kube_proxy_version();
    let cluster = cx.profile.kubernetes_version();
    own.value
        .map(|v| (v.to_string(), format!("`{}`{}", own.field(), own.at_line())))
        .or_else(|| {
            cluster.value.map(|v| {
                (
                    v.to_string(),
                    format!("`{}`{}", cluster.field(), cluster.at_line()),
                )
            })
        })
}

/// Upstream kube-proxy, by mode and version: callers on nodes without a backend pod.
fn upstream_gap(cx: &Context<'_>) -> Gap {
    use crate::profile::version::at_least;
    let mode = cx.profile.kube_proxy_mode();
    let field = mode.field();
    let version = proxy_version(cx);
    let at_least_known = |since: &str| version.as_ref().and_then(|(v, _)| at_least(v, since));
    match mode.value {
        // iptables routes node-local traffic to LB IPs to the service chain since v1.15
        // (kubernetes/kubernetes#77523); pods were redirected before that.
        Some(ProxyMode::Iptables) => match (at_least_known("1.15"), &version) {
            (Some(false), Some((v, at))) => Gap::Known {
                host_network_only: true,
                why: format!(
                    "kube-proxy {v} ({at}) in iptables mode predates v1.15, which first routes node-local                      traffic to load-balancer IPs to the Service (kubernetes/kubernetes#77523)"
                ),
            },
            _ => Gap::None,
        },
        Some(ProxyMode::Ipvs) => Gap::Known {
            host_network_only: true,
            why: format!(
                "upstream kube-proxy in IPVS mode (`{field}`) still has no rule for the address for hostNetwork                  clients on nodes without a backend pod (kubernetes/kubernetes#93456; PR #97081 fixed it for                  other pods only)"
            ),
        },
        Some(ProxyMode::Nftables) => {
            // Fixed in v1.34.0 (kubernetes/kubernetes#132456), backported to v1.33.6 (#133969).
            let minor_33 = at_least_known("1.33").unwrap_or(false) && !at_least_known("1.34").unwrap_or(true);
            let fixed = if minor_33 { at_least_known("1.33.6") } else { at_least_known("1.34") };
            match (fixed, &version) {
                (Some(true), _) => Gap::None,
                (Some(false), Some((v, at))) => Gap::Known {
                    host_network_only: false,
                    why: format!(
                        "kube-proxy {v} ({at}) in nftables mode drops this traffic: the fix                          (kubernetes/kubernetes#132456) shipped in v1.34.0 and v1.33.6"
                    ),
                },
                _ => Gap::Maybe {
                    host_network_only: false,
                    why: format!(
                        "kube-proxy in nftables mode (`{field}`) dropped this traffic before v1.34.0 and v1.33.6                          (kubernetes/kubernetes#132456), and the cluster profile states neither                          `spec.kubeProxy.version` nor `spec.kubernetesVersion`"
                    ),
                },
            }
        }
        // Cilium's kube-proxy replacement serves eTP Local addresses "from nodes which have no
        // local backends"; Calico eBPF applies eTP Local to external traffic only.
        Some(ProxyMode::Ebpf) => Gap::None,
        None => Gap::Maybe {
            host_network_only: true,
            why: format!(
                "upstream kube-proxy in IPVS mode still drops this for hostNetwork clients                  (kubernetes/kubernetes#93456), and the cluster profile does not state `{field}`"
            ),
        },
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
        check(cx, true, out);
    }
}

impl Rule for UpstreamLocalPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &UPSTREAM_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        check(cx, false, out);
    }
}

/// A status that kube-proxy does not short-circuit (a hostname only, or `ipMode: Proxy`):
/// calls then go through the load balancer, which sends them to nodes with a backend pod.
fn not_short_circuited(cx: &Context<'_>, entry: &EntryPoint) -> bool {
    cx.views.service(entry.object).is_some_and(|s| {
        s.hostname_only().is_some() || s.ip_modes().any(|m| m.as_str() == Some("Proxy"))
    })
}

/// `vendor`: ACK's entries, with the vendor's verdict (ACK001); otherwise every other
/// provider's, with upstream's (K8S013).
fn check(cx: &Context<'_>, vendor: bool, out: &mut Vec<Diagnostic>) {
    let meta: &'static RuleMeta = if vendor { &META } else { &UPSTREAM_META };
    let lb = if vendor { "CLB" } else { "load-balancer" };
    let ws = cx.ws;
    {
        for (index, entry, object) in vendor_entries(cx, vendor) {
            let Some(policy) = local_policy(cx, entry) else {
                continue;
            };
            // AWS load balancers always report a hostname (provider-facts §8.1).
            if !vendor && (not_short_circuited(cx, entry) || entry.provider == Some(Provider::Eks))
            {
                continue;
            }
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
                        "{}{} calls its {lb} address {}",
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
                         cannot reach its {lb} address from inside the cluster; no in-cluster caller of the \
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
            let help = if vendor {
                format!(
                    "1) have in-cluster clients call {dns} (or the ClusterIP) instead of the CLB address, which \
                     works on every node; 2) set `externalTrafficPolicy: Cluster`, which programs the address on \
                     every node but loses the client source IP (SNAT); 3) set `externalTrafficPolicy: Cluster` and \
                     add the {eni_where}, which keeps the source IP but needs the Terway CNI or inclusive ENI mode. \
                     See {SEED_DOC}"
                )
            } else {
                format!(
                    "have in-cluster clients call {dns} (or the ClusterIP) instead of the load-balancer address, \
                     which works on every node; or set `externalTrafficPolicy: Cluster`, which loses the client \
                     source IP (SNAT). See kubernetes/kubernetes#93456 (IPVS) and #131765 (nftables)"
                )
            };
            let mut d = meta
                .diagnostic(severity, ws.location(object, policy.span()), message)
                .with_help(help);
            for caller in &callers {
                d = d.with_related(
                    caller.location.clone(),
                    format!(
                        "{} calls the {lb} address {} from inside the cluster",
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
