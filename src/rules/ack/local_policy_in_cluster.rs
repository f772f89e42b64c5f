//! `externalTrafficPolicy: Local` with an in-cluster caller of the load-balancer address
//! that can run on a node without a backend pod, judged once per Service by whoever
//! documents the gap: ACK001 ack-local-policy-in-cluster on ACK (the vendor's verdict),
//! CCE001 cce-local-policy-in-cluster on Huawei CCE (the vendor's verdict, rules/CCE001.md),
//! K8S013 local-policy-in-cluster everywhere else (upstream kube-proxy's gaps by mode and
//! version, rules/K8S013.md).

use super::*;

pub use crate::rules::meta::ACK001 as META;
pub use crate::rules::meta::CCE001 as CCE_META;
pub use crate::rules::meta::K8S013 as UPSTREAM_META;

pub struct LocalPolicyInCluster;

/// K8S013: the same trap on every other provider, judged by upstream kube-proxy's facts.
pub struct UpstreamLocalPolicy;

/// Whose facts judge an entry point: each entry point is judged by exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Judge {
    /// ACK Services and ASM IstioGateways (ACK001).
    Ack,
    /// Huawei CCE Services the CCE controller handles (CCE001).
    Cce,
    /// Every other LoadBalancer Service (K8S013).
    Upstream,
}

impl Judge {
    fn meta(self) -> &'static RuleMeta {
        match self {
            Judge::Ack => &META,
            Judge::Cce => &CCE_META,
            Judge::Upstream => &UPSTREAM_META,
        }
    }

    /// What the messages call the load balancer.
    fn lb(self) -> &'static str {
        match self {
            Judge::Ack => "CLB",
            Judge::Cce => "ELB",
            Judge::Upstream => "load-balancer",
        }
    }

    /// Who judges `entry`.
    fn of(entry: &EntryPoint) -> Option<Judge> {
        match entry.kind {
            EntryKind::IstioGateway => Some(Judge::Ack),
            EntryKind::Service if entry.provider == Some(Provider::Ack) => Some(Judge::Ack),
            EntryKind::Service if crate::rules::cce::handles(entry) => Some(Judge::Cce),
            // AWS load balancers always report a hostname: kube-proxy never short-circuits
            // them, and EKS001 judges the call (rules/EKS001.md).
            EntryKind::Service if entry.provider == Some(Provider::Eks) => None,
            EntryKind::Service => Some(Judge::Upstream),
            _ => None,
        }
    }
}

/// Whether a gap strands a caller, and how sure that is.
#[derive(Clone, Debug)]
pub(crate) struct Reach {
    /// Documented for this cluster (`false`: it hangs on an unknown profile fact).
    pub known: bool,
    /// Why, worded for a message.
    pub why: String,
}

/// The gap for hostNetwork callers and for other pods on nodes without a backend pod.
#[derive(Clone, Debug, Default)]
struct Gap {
    host: Option<Reach>,
    pods: Option<Reach>,
}

impl Gap {
    /// The same reach for every caller.
    fn all(known: bool, why: String) -> Gap {
        let reach = Reach { known, why };
        Gap {
            host: Some(reach.clone()),
            pods: Some(reach),
        }
    }

    /// A reach for hostNetwork callers only.
    fn host_only(known: bool, why: String) -> Gap {
        Gap {
            host: Some(Reach { known, why }),
            pods: None,
        }
    }

    fn for_caller(&self, caller: &Caller) -> Option<&Reach> {
        if caller.from_node {
            self.host.as_ref()
        } else {
            self.pods.as_ref()
        }
    }

    /// Whether hostNetwork callers are judged apart from other pods (the message then
    /// says the caller is hostNetwork).
    fn host_apart(&self) -> bool {
        match (&self.host, &self.pods) {
            (Some(host), Some(pods)) => host.known != pods.known || host.why != pods.why,
            (Some(_), None) => true,
            _ => false,
        }
    }
}

fn gap(cx: &Context<'_>, judge: Judge) -> Gap {
    let mode = cx.profile.kube_proxy_mode();
    let field = mode.field();
    match (judge, mode.value) {
        (Judge::Ack, Some(m @ (ProxyMode::Iptables | ProxyMode::Ipvs))) => Gap::all(
            true,
            format!(
                "on ACK, kube-proxy in {m} mode (`{field}`{}) programs the CLB address only on \
                 nodes that run a backend pod, as the vendor documents",
                mode.location()
                    .map(|l| format!(" at {}:{}", l.file, l.span.start.line))
                    .unwrap_or_default()
            ),
        ),
        (Judge::Ack, None) => Gap::all(
            false,
            format!(
                "the vendor documents this for kube-proxy in iptables and IPVS mode, and the cluster profile \
                 does not state `{field}`"
            ),
        ),
        // Huawei documents the gap for kube-proxy itself, whatever its mode; a dataplane that
        // replaces kube-proxy follows upstream.
        (Judge::Cce, Some(ProxyMode::Ebpf)) => upstream_gap(cx),
        (Judge::Cce, _) => cce_gap(cx),
        // ACK documents iptables and IPVS; other dataplanes follow upstream.
        (Judge::Upstream, _) | (Judge::Ack, Some(ProxyMode::Nftables | ProxyMode::Ebpf)) => {
            upstream_gap(cx)
        }
    }
}

/// Huawei CCE (cce_10_0355, rules/CCE001.md): kube-proxy puts the ELB address in every node's
/// local rules, and with `externalTrafficPolicy: Local` "if the node where the client runs
/// does not have the corresponding backend pod, the access may fail". CCE Turbo sends
/// containers' calls through the ELB (pass-through) by default; node (hostNetwork) clients
/// are not covered by that default.
fn cce_gap(cx: &Context<'_>) -> Gap {
    let flavour = cx.profile.cce_flavour();
    let vendor = "on CCE, kube-proxy adds the ELB address to the nodes' local forwarding rules, and \
                  Huawei documents that with `externalTrafficPolicy: Local` \"if the node where the client \
                  runs does not have the corresponding backend pod, the access may fail\" (cce_10_0355)";
    match flavour.value {
        Some(CceFlavour::Standard) => Gap::all(
            true,
            format!("{vendor}; CCE Standard (profile `{}`{})", flavour.field(), flavour.at_line()),
        ),
        Some(CceFlavour::Turbo) => Gap::host_only(
            true,
            format!(
                "{vendor}; on CCE Turbo (profile `{}`{}) only containers' calls go through the ELB by \
                 default, not a node's own",
                flavour.field(),
                flavour.at_line()
            ),
        ),
        None => Gap {
            host: Some(Reach {
                known: true,
                why: format!(
                    "{vendor}; node (hostNetwork) clients go through kube-proxy on CCE Standard and CCE Turbo alike"
                ),
            }),
            pods: Some(Reach {
                known: false,
                why: format!(
                    "{vendor}, unless the cluster is CCE Turbo, where containers' calls go through the ELB by \
                     default (pass-through); the cluster profile does not state `{}`",
                    flavour.field()
                ),
            }),
        },
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
            (Some(false), Some((v, at))) => Gap::host_only(
                true,
                format!(
                    "kube-proxy {v} ({at}) in iptables mode predates v1.15, which first routes node-local \
                     traffic to load-balancer IPs to the Service (kubernetes/kubernetes#77523)"
                ),
            ),
            _ => Gap::default(),
        },
        Some(ProxyMode::Ipvs) => Gap::host_only(
            true,
            format!(
                "upstream kube-proxy in IPVS mode (`{field}`) still has no rule for the address for hostNetwork \
                 clients on nodes without a backend pod (kubernetes/kubernetes#93456; PR #97081 fixed it for \
                 other pods only)"
            ),
        ),
        Some(ProxyMode::Nftables) => {
            // Fixed in v1.34.0 (kubernetes/kubernetes#132456), backported to v1.33.6 (#133969).
            let minor_33 =
                at_least_known("1.33").unwrap_or(false) && !at_least_known("1.34").unwrap_or(true);
            let fixed = if minor_33 {
                at_least_known("1.33.6")
            } else {
                at_least_known("1.34")
            };
            match (fixed, &version) {
                (Some(true), _) => Gap::default(),
                (Some(false), Some((v, at))) => Gap::all(
                    true,
                    format!(
                        "kube-proxy {v} ({at}) in nftables mode drops this traffic: the fix \
                         (kubernetes/kubernetes#132456) shipped in v1.34.0 and v1.33.6"
                    ),
                ),
                _ => Gap::all(
                    false,
                    format!(
                        "kube-proxy in nftables mode (`{field}`) dropped this traffic before v1.34.0 and v1.33.6 \
                         (kubernetes/kubernetes#132456), and the cluster profile states neither \
                         `spec.kubeProxy.version` nor `spec.kubernetesVersion`"
                    ),
                ),
            }
        }
        // Cilium's kube-proxy replacement serves eTP Local addresses "from nodes which have no
        // local backends"; Calico eBPF applies eTP Local to external traffic only.
        Some(ProxyMode::Ebpf) => Gap::default(),
        None => Gap::host_only(
            false,
            format!(
                "upstream kube-proxy in IPVS mode still drops this for hostNetwork clients \
                 (kubernetes/kubernetes#93456), and the cluster profile does not state `{field}`"
            ),
        ),
    }
}

/// A call that upstream kube-proxy does not serve on the node (rules/K8S013.md): the
/// Service has `externalTrafficPolicy: Local`, the proxy mode leaves `caller` without a rule
/// for the address, and the caller can run on a node without a backend pod. The reach says
/// whether that is documented for this cluster or hangs on a profile fact. Used by the
/// advisories (AKS001, GKE001) that only bite off kube-proxy's shortcut.
pub(crate) fn unserved_by_kube_proxy(
    cx: &Context<'_>,
    entry: &EntryPoint,
    caller: &Caller,
) -> Option<(Reach, Fit)> {
    local_policy(cx, entry)?;
    let reach = upstream_gap(cx).for_caller(caller)?.clone();
    match strands(cx, entry, caller) {
        Fit::No => None,
        fit => Some((reach, fit)),
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
    if let Some(template) = crate::views::pod_template(ws, caller_object) {
        let pinned = entry.backends.iter().any(|&b| {
            let backend = &ws.objects[b];
            crate::views::pod_template(ws, backend).is_some_and(|t| {
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
        check(cx, Judge::Ack, out);
    }
}

impl Rule for UpstreamLocalPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &UPSTREAM_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        check(cx, Judge::Upstream, out);
    }
}

/// A status that kube-proxy does not short-circuit (a hostname only, or `ipMode: Proxy`):
/// calls then go through the load balancer, which sends them to nodes with a backend pod.
fn not_short_circuited(cx: &Context<'_>, entry: &EntryPoint) -> bool {
    cx.views.service(entry.object).is_some_and(|s| {
        s.hostname_only().is_some() || s.ip_modes().any(|m| m.as_str() == Some("Proxy"))
    })
}

/// The entry points `judge` judges.
fn judged_by<'c>(
    cx: &'c Context<'_>,
    judge: Judge,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entries()
        .filter(move |(_, e)| Judge::of(e) == Some(judge))
        .map(move |(i, e)| (i, e, &cx.ws.objects[e.object]))
}

/// The ways out, for the help text.
fn help(judge: Judge, entry: &EntryPoint, object: &Object) -> String {
    let dns = dns_name(entry, object);
    match judge {
        Judge::Ack => {
            let eni_where = match entry.kind {
                EntryKind::IstioGateway => {
                    format!("`spec.serviceAnnotations` entry `{BACKEND_TYPE}: eni`")
                }
                _ => format!("annotation `{BACKEND_TYPE}: eni`"),
            };
            format!(
                "1) have in-cluster clients call {dns} (or the ClusterIP) instead of the CLB address, which \
                 works on every node; 2) set `externalTrafficPolicy: Cluster`, which programs the address on \
                 every node but loses the client source IP (SNAT); 3) set `externalTrafficPolicy: Cluster` and \
                 add the {eni_where}, which keeps the source IP but needs the Terway CNI or inclusive ENI mode. \
                 See {SEED_DOC}"
            )
        }
        Judge::Cce => crate::rules::cce::local_policy_help(&dns),
        Judge::Upstream => format!(
            "have in-cluster clients call {dns} (or the ClusterIP) instead of the load-balancer address, \
             which works on every node; or set `externalTrafficPolicy: Cluster`, which loses the client \
             source IP (SNAT). See kubernetes/kubernetes#93456 (IPVS) and #131765 (nftables)"
        ),
    }
}

/// Report the trap on every entry point `judge` judges.
pub(crate) fn check(cx: &Context<'_>, judge: Judge, out: &mut Vec<Diagnostic>) {
    let meta = judge.meta();
    let lb = judge.lb();
    let ws = cx.ws;
    for (index, entry, object) in judged_by(cx, judge) {
        let Some(policy) = local_policy(cx, entry) else {
            continue;
        };
        if judge != Judge::Ack && not_short_circuited(cx, entry) {
            continue;
        }
        if judge == Judge::Cce && crate::rules::cce::pass_through(ws, object).is_some() {
            continue;
        }
        let gap = gap(cx, judge);
        let callers: Vec<(&Caller, &Reach)> = crate::rules::calls_first(cx.model.callers_of(index))
            .into_iter()
            .filter_map(|c| gap.for_caller(c).map(|r| (c, r)))
            .collect();
        let Some(fallback) = gap.pods.as_ref().or(gap.host.as_ref()) else {
            continue;
        };
        let fits: Vec<Fit> = callers.iter().map(|(c, _)| strands(cx, entry, c)).collect();
        let subject = what(entry, object);
        let candidates = || callers.iter().zip(&fits);
        let stranded = candidates()
            .find(|((_, r), f)| **f == Fit::Yes && r.known)
            .or_else(|| candidates().find(|(_, f)| **f == Fit::Yes))
            .or_else(|| candidates().find(|(_, f)| **f == Fit::Unknown));
        let (severity, message) = match stranded {
            Some(((caller, reach), fit)) => {
                let who = format!(
                    "{}{} calls its {lb} address {}",
                    ws.objects[caller.workload].id,
                    if caller.from_node && gap.host_apart() {
                        " (hostNetwork)"
                    } else {
                        ""
                    },
                    caller.address
                );
                let severity = if reach.known && *fit == Fit::Yes {
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
                let verb = if reach.known { "fail" } else { "can fail" };
                crate::rules::weigh(
                    severity,
                    caller,
                    format!(
                        "{subject} has `externalTrafficPolicy: Local` and {who} {placement}: such calls {verb} \
                         on nodes without a backend pod. {}{}.",
                        if reach.known { "Cause: " } else { "Not certain: " },
                        reach.why
                    ),
                )
            }
            // A caller the gap does not reach (a pod on CCE Turbo) is still a caller.
            None if cx.model.callers_of(index).next().is_some() || judge == Judge::Upstream => {
                continue
            }
            None => (
                Severity::Note,
                format!(
                    "{subject} has `externalTrafficPolicy: Local`, so {} on nodes without a backend pod \
                     cannot reach its {lb} address from inside the cluster; no in-cluster caller of the \
                     address is visible in these manifests ({}).",
                    if gap.pods.is_some() { "pods" } else { "hostNetwork pods" },
                    fallback.why
                ),
            ),
        };
        let mut d = meta
            .diagnostic(severity, ws.location(object, policy.span()), message)
            .with_help(help(judge, entry, object));
        d = crate::rules::with_callers(
            d,
            ws,
            callers.iter().map(|(c, _)| *c),
            &format!("{lb} address"),
        );
        let decides = match judge {
            Judge::Cce => cx.profile.cce_flavour().location().map(|at| {
                (
                    at,
                    "the cluster profile's CCE flavour decides which callers fail",
                )
            }),
            _ => cx.profile.kube_proxy_mode().location().map(|at| {
                (
                    at,
                    "the cluster profile's kube-proxy mode decides the verdict",
                )
            }),
        };
        if let Some((at, why)) = decides {
            d = d.with_related(at, why);
        }
        if !callers.is_empty() && entry.kind == EntryKind::Service {
            d = d.with_suggestion(crate::rules::call_by_name(object));
        }
        let mut d = d.on(object);
        d.fix = to_cluster_fix(ws, object, policy);
        out.push(d);
    }
}
