//! The local-policy family: `externalTrafficPolicy: Local` with an in-cluster caller of the
//! load-balancer address that can run on a node without a backend pod. One engine judges
//! each entry point once, by whoever documents the gap: ACK001 ack-local-policy-in-cluster on
//! ACK (the vendor's verdict), CCE001 cce-local-policy-in-cluster on Huawei CCE (the vendor's
//! verdict, rules/CCE001.md), K8S013 local-policy-in-cluster everywhere else (upstream
//! kube-proxy's gaps by mode and version, rules/K8S013.md). Each judge's adapter is below
//! the engine: its gap, its ways out, and (CCE) the pass-through that takes a Service out.

use crate::catalog::meta;
use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit};
use crate::objects::{Object, Workspace};
use crate::profile::{CceFlavour, Provider, ProxyMode};
use crate::rules::edit;
use crate::rules::family::internal_lb::NLB_CLASS;
use crate::rules::family::kube_proxy::{local_policy, strands, upstream_gap, Gap, Reach};
use crate::rules::verdict::{calls_first, weigh, with_call_by_name, with_callers};
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::yaml::NodeRef;

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
            Judge::Ack => &meta::ACK001,
            Judge::Cce => &meta::CCE001,
            Judge::Upstream => &meta::K8S013,
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
            EntryKind::Service if cce_handles(entry) => Some(Judge::Cce),
            // AWS load balancers always report a hostname: kube-proxy never short-circuits
            // them, and EKS001 judges the call (rules/EKS001.md), also for a Service that only
            // the AWS Load Balancer Controller's class marks as AWS's.
            EntryKind::Service
                if entry.provider == Some(Provider::Eks)
                    || entry.class.as_deref() == Some(NLB_CLASS) =>
            {
                None
            }
            EntryKind::Service => Some(Judge::Upstream),
            _ => None,
        }
    }
}

/// The family's rule, one per judge: ACK001, CCE001 and K8S013.
pub(crate) struct LocalPolicyInCluster(Judge);

/// ACK001 ack-local-policy-in-cluster.
pub(crate) static ACK: LocalPolicyInCluster = LocalPolicyInCluster(Judge::Ack);
/// CCE001 cce-local-policy-in-cluster.
pub(crate) static CCE: LocalPolicyInCluster = LocalPolicyInCluster(Judge::Cce);
/// K8S013 local-policy-in-cluster: the same trap on every other provider, judged by
/// upstream kube-proxy's facts.
pub(crate) static UPSTREAM: LocalPolicyInCluster = LocalPolicyInCluster(Judge::Upstream);

impl Rule for LocalPolicyInCluster {
    fn meta(&self) -> &'static RuleMeta {
        self.0.meta()
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        check(cx, self.0, out);
    }
}

/// Report the trap on every entry point `judge` judges.
fn check(cx: &Context<'_>, judge: Judge, out: &mut Vec<Diagnostic>) {
    for (index, entry, object) in judged_by(cx, judge) {
        let Some(policy) = local_policy(cx, entry) else {
            continue;
        };
        if judge != Judge::Ack && not_short_circuited(cx, entry) {
            continue;
        }
        if judge == Judge::Cce && cce_pass_through(cx.ws, object).is_some() {
            continue;
        }
        let gap = gap(cx, judge);
        let Some(verdict) = Verdict::of(cx, judge, index, entry, &gap) else {
            continue;
        };
        let Some(words) = verdict.words(cx, object) else {
            continue;
        };
        out.push(verdict.finding(cx, object, policy, words));
    }
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

/// A status that kube-proxy does not short-circuit (a hostname only, or `ipMode: Proxy`):
/// calls then go through the load balancer, which sends them to nodes with a backend pod.
fn not_short_circuited(cx: &Context<'_>, entry: &EntryPoint) -> bool {
    cx.views.service(entry.object).is_some_and(|s| {
        s.hostname_only().is_some() || s.ip_modes().any(|m| m.as_str() == Some("Proxy"))
    })
}

/// One entry point's verdict, before it is worded.
struct Verdict<'v> {
    judge: Judge,
    entry: &'v EntryPoint,
    gap: &'v Gap,
    /// The callers the gap reaches, real calls first.
    callers: Vec<(&'v Caller, &'v Reach)>,
    /// Whether the entry point has any in-cluster caller, reached by the gap or not.
    called: bool,
    /// The reach that words a finding without a stranded caller.
    fallback: &'v Reach,
    /// The caller the finding names, and whether it can run on a node without a backend
    /// pod: a documented gap on such a caller first, then any such caller, then one whose
    /// placement is unknown.
    stranded: Option<(&'v Caller, &'v Reach, Fit)>,
}

impl<'v> Verdict<'v> {
    fn of(
        cx: &'v Context<'_>,
        judge: Judge,
        index: EntryId,
        entry: &'v EntryPoint,
        gap: &'v Gap,
    ) -> Option<Verdict<'v>> {
        let callers: Vec<(&Caller, &Reach)> = calls_first(cx.model.callers_of(index))
            .into_iter()
            .filter_map(|c| gap.for_caller(c).map(|r| (c, r)))
            .collect();
        let fallback = gap.pods.as_ref().or(gap.host.as_ref())?;
        let fits: Vec<Fit> = callers.iter().map(|(c, _)| strands(cx, entry, c)).collect();
        let candidates = || callers.iter().zip(&fits);
        let stranded = candidates()
            .find(|((_, r), f)| **f == Fit::Yes && r.known)
            .or_else(|| candidates().find(|(_, f)| **f == Fit::Yes))
            .or_else(|| candidates().find(|(_, f)| **f == Fit::Unknown))
            .map(|((c, r), f)| (*c, *r, *f));
        Some(Verdict {
            judge,
            entry,
            gap,
            called: cx.model.callers_of(index).next().is_some(),
            callers,
            fallback,
            stranded,
        })
    }

    /// The severity and message; `None` when there is nothing to report: a caller the gap
    /// does not reach (a pod on CCE Turbo) is still a caller, and K8S013 speaks only of
    /// callers.
    fn words(&self, cx: &Context<'_>, object: &Object) -> Option<(Severity, String, String)> {
        let subject = what(self.entry, object);
        let lb = self.judge.lb();
        let Some((caller, reach, fit)) = self.stranded else {
            if self.called || self.judge == Judge::Upstream {
                return None;
            }
            // Nothing visible calls it: a warning when the load balancer is private, as in
            // every rule (verdict::unseen).
            return Some((
                crate::rules::verdict::unseen(self.entry.network),
                format!(
                    "{subject} has `externalTrafficPolicy: Local`, so {} on nodes without a backend pod \
                     cannot reach its {lb} address; no in-cluster caller of it is visible in these manifests.{}",
                    if self.gap.pods.is_some() { "pods" } else { "hostNetwork pods" },
                    crate::rules::verdict::unseen_why(
                        self.entry.network,
                        self.judge.meta().id,
                        "set `externalTrafficPolicy: Cluster`"
                    )
                ),
                format!("Cause: {}.", self.fallback.why),
            ));
        };
        let who = format!(
            "{}{} calls its {lb} address {}",
            cx.ws.objects[caller.workload].id,
            if caller.from_node && self.gap.host_apart() {
                " (hostNetwork)"
            } else {
                ""
            },
            caller.address
        );
        // CCE: Huawei says CCE sets `elb.pass-through: onlyLocal` itself with Local
        // (cce_bestpractice_0301) without naming the cluster versions, so a manifest that
        // leaves the annotation out may not fail as written.
        let auto_set = self.judge == Judge::Cce
            && Annotations::of(cx.ws, object)
                .entry(CCE_PASS_THROUGH)
                .is_none();
        let severity = if reach.known && fit == Fit::Yes && !auto_set {
            Severity::Error
        } else {
            Severity::Warning
        };
        // A second sentence: where the caller runs, the fact the verdict rests on.
        let placement = match fit {
            Fit::Yes if self.entry.backends.is_empty() => {
                "The gateway's own pods are a Deployment (created by the ASM controller), not a \
                 DaemonSet on every node the caller can use."
            }
            Fit::Yes => "The caller can run on such a node.",
            _ if self.entry.backends.is_empty() => {
                "Its backend pods are not in these manifests, so whether every node the caller can \
                 use runs one is unknown."
            }
            _ => {
                "Whether a backend DaemonSet runs on every node the caller can use is unknown \
                  (set `spec.nodePools`)."
            }
        };
        let verb = if reach.known { "fails" } else { "can fail" };
        let unsure = if reach.known {
            String::new()
        } else {
            crate::rules::verdict::settle(&reach.why)
                .map(|s| format!(" Not certain: {s}."))
                .unwrap_or_else(|| " Not certain (see help).".to_string())
        };
        let auto = if auto_set {
            format!(
                " Huawei also says that with node-level (Local) affinity CCE sets `{CCE_PASS_THROUGH}: onlyLocal` \
                 itself, without naming the cluster versions that do; where it does, the call goes through the ELB \
                 and works, so this is a warning."
            )
        } else {
            String::new()
        };
        let (severity, message) = weigh(
            severity,
            caller,
            format!(
                "{subject} has `externalTrafficPolicy: Local`, and {who}: the call {verb} from a node \
                 without a backend pod. {placement}{unsure}"
            ),
        );
        let cause = format!(
            "{}{}.{auto}",
            if reach.known {
                "Cause: "
            } else {
                "Not certain: "
            },
            reach.why
        );
        Some((severity, message, cause))
    }

    /// The finding: at the policy, with the judge's ways out, the callers, the profile fact
    /// that decides, and `externalTrafficPolicy: Cluster` as the fix.
    fn finding(
        &self,
        cx: &Context<'_>,
        object: &Object,
        policy: NodeRef<'_>,
        (severity, message, cause): (Severity, String, String),
    ) -> Diagnostic {
        let ws = cx.ws;
        let lb = self.judge.lb();
        let mut d = self
            .judge
            .meta()
            .diagnostic(severity, ws.location(object, policy.span()), message)
            .with_help(format!(
                "{cause} Way out: {}",
                help(self.judge, self.entry, object)
            ));
        // The way out by name first, then its edit at each call.
        if self.entry.kind == EntryKind::Service {
            d = with_call_by_name(d, object, self.callers.iter().map(|(c, _)| *c));
        }
        d = with_callers(
            d,
            cx,
            self.callers.iter().map(|(c, _)| *c),
            &format!("{lb} address"),
        );
        let decides = match self.judge {
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
        d.on(object).with_fix(to_cluster_fix(ws, object, policy))
    }
}

/// Who is stranded, as each judge's facts say.
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

/// The ways out, for the help text.
fn help(judge: Judge, entry: &EntryPoint, object: &Object) -> String {
    let dns = dns_name(entry, object);
    match judge {
        Judge::Ack => ack_help(entry, &dns),
        Judge::Cce => cce_help(&dns),
        Judge::Upstream => format!(
            "have in-cluster clients call {dns} (or the ClusterIP) instead of the load-balancer address, \
             which works on every node; or set `externalTrafficPolicy: Cluster`, which loses the client \
             source IP (SNAT). See kubernetes/kubernetes#93456 (IPVS) and #131765 (nftables)"
        ),
    }
}

/// How the messages name the entry point.
pub(crate) fn what(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => format!("IstioGateway `{}`", object.name()),
        _ => format!("LoadBalancer Service `{}`", object.name()),
    }
}

/// The in-cluster name callers should use instead of the load-balancer address.
fn dns_name(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => {
            "the gateway Service's DNS name (for the default ingress gateway `istio-ingressgateway.istio-system`)"
                .to_string()
        }
        _ => object.service_hosts_hint(),
    }
}

/// `externalTrafficPolicy: Cluster`, which programs the address on every node.
pub(crate) fn to_cluster_fix(ws: &Workspace, object: &Object, policy: NodeRef<'_>) -> Option<Fix> {
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

// ACK's adapter. The constants are here, not in rules/ack/, because the family reads them
// and ACK's own rules (ACK002, ACK003) read the family: one direction only.

/// Backend type annotation: `eni` adds pod ENIs to the CLB backend (Terway / inclusive ENI).
pub(crate) const ACK_BACKEND_TYPE: &str = "service.beta.kubernetes.io/backend-type";
/// Alibaba Cloud ASM, "pods cannot access the CLB address of an ingress gateway".
pub(crate) const ACK_DOC: &str = "https://www.alibabacloud.com/help/en/asm/support/how-to-do-if-the-kubernetes-cluster-pods-cannot-access-clb-address-in-ingress-gateway";

fn ack_help(entry: &EntryPoint, dns: &str) -> String {
    let eni_where = match entry.kind {
        EntryKind::IstioGateway => {
            format!("`spec.serviceAnnotations` entry `{ACK_BACKEND_TYPE}: eni`")
        }
        _ => format!("annotation `{ACK_BACKEND_TYPE}: eni`"),
    };
    format!(
        "1) have in-cluster clients call {dns} (or the ClusterIP) instead of the CLB address, which \
         works on every node; 2) set `externalTrafficPolicy: Cluster`, which programs the address on \
         every node but loses the client source IP (SNAT); 3) set `externalTrafficPolicy: Cluster` and \
         add the {eni_where}, which keeps the source IP but needs the Terway CNI or inclusive ENI mode. \
         See {ACK_DOC}"
    )
}

// CCE's adapter: which Services the CCE controller handles, the pass-through that sends
// in-cluster calls through the ELB (CCE002 and CCE003 read it too), the gap and the ways out.

pub(crate) const CCE_PASS_THROUGH: &str = "kubernetes.io/elb.pass-through";
/// The values that turn pass-through on: `true`, and `onlyLocal`, which CCE writes itself
/// with node-level (Local) affinity.
pub(crate) const CCE_PASS_THROUGH_ON: &[&str] = &["true", "onlyLocal"];
const CCE_SERVICE_DOC: &str =
    "https://support.huaweicloud.com/intl/en-us/usermanual-cce/cce_10_0355.html";

/// A LoadBalancer Service the CCE controller handles: written for CCE (or on a CCE
/// profile) and not claimed by another controller's `loadBalancerClass`.
fn cce_handles(entry: &EntryPoint) -> bool {
    entry.kind == EntryKind::Service
        && entry.provider == Some(Provider::Cce)
        && entry.class.as_deref().is_none_or(str::is_empty)
}

/// The pass-through annotation's key, when it turns pass-through on.
pub(crate) fn cce_pass_through<'w>(ws: &'w Workspace, service: &Object) -> Option<NodeRef<'w>> {
    Annotations::of(ws, service).key_if_in(CCE_PASS_THROUGH, CCE_PASS_THROUGH_ON)
}

/// CCE001's ways out, for the help text.
fn cce_help(dns: &str) -> String {
    format!(
        "1) set `{CCE_PASS_THROUGH}: \"true\"` (cluster v1.19 or later): in-cluster calls to the ELB address then go \
         through the ELB, which sends them to nodes with a backend pod; on CCE Standard with a dedicated ELB, \
         callers on a backend pod's node then fail instead (CCE002); 2) have in-cluster clients call {dns} (or \
         the ClusterIP), which works on every node; 3) set `externalTrafficPolicy: Cluster`, which loses the \
         client source IP. See {CCE_SERVICE_DOC}"
    )
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
        // Huawei's LoadBalancer page (cce_10_0014) says "CCE Turbo clusters support only
        // cluster-level service affinity": whether Local takes effect there is unknown.
        Some(CceFlavour::Turbo) => Gap::host_only(
            false,
            format!(
                "{vendor}; on CCE Turbo (profile `{}`{}) only containers' calls go through the ELB by \
                 default, not a node's own, and Huawei says \"CCE Turbo clusters support only cluster-level \
                 service affinity\" (cce_10_0014), so whether `Local` takes effect there is unknown",
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
