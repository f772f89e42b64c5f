//! Upstream kube-proxy facts that several families and providers share, each answer saying
//! why and naming the profile field when it is unknown:
//! - whether `ipMode: Proxy` takes effect on this cluster (KEP-1860; rules/K8S010.md), which
//!   the PROXY-protocol family and K8S010 ask;
//! - where kube-proxy leaves a caller of an `externalTrafficPolicy: Local` address without a
//!   rule on its node (rules/K8S013.md), which the local-policy and internal-LB families ask.

use crate::model::{Caller, EntryKind, EntryPoint, Fit};
use crate::profile::version::{self, at_least, parse_version};
use crate::profile::ProxyMode;
use crate::rules::Context;
use crate::yaml::NodeRef;

/// The Volcengine annotation that asks the controller for `ipMode: Proxy` (rules/VKE001.md).
/// Here because K8S010 leaves a Service that asks for it to VKE004, and a provider's folder
/// is no place for another rule to import from.
pub(crate) const VKE_IP_MODE: &str = "service.beta.kubernetes.io/volcengine-loadbalancer-ip-mode";

/// A yes/no/unknown answer with the reason, written for a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Gate {
    Yes,
    No(String),
    Unknown(String),
}

impl Gate {
    /// Both must hold: `No` wins, then `Unknown` (reasons joined).
    pub(crate) fn and(self, other: Gate) -> Gate {
        match (self, other) {
            (Gate::No(a), _) | (_, Gate::No(a)) => Gate::No(a),
            (Gate::Unknown(a), Gate::Unknown(b)) => Gate::Unknown(format!("{a}; {b}")),
            (Gate::Unknown(a), Gate::Yes) | (Gate::Yes, Gate::Unknown(a)) => Gate::Unknown(a),
            (Gate::Yes, Gate::Yes) => Gate::Yes,
        }
    }
}

/// First Cilium release that honours `ipMode`: cilium/cilium#34780 merged on main in
/// October 2024, after 1.16.0, and the 1.18.0 regression report (cilium/cilium#40913) names
/// v1.17.6 as working. The first tag itself was not checked (rules/K8S010.md).
const CILIUM_IP_MODE_SINCE: &str = "1.17.0";
/// Cilium 1.18.0 ignores `ipMode: Proxy` (cilium/cilium#40913, fixed by #40915).
const CILIUM_IP_MODE_REGRESSION: &str = "1.18.0";

/// Does `status.loadBalancer.ingress[].ipMode: Proxy` stop the in-cluster shortcut here?
/// Kubernetes 1.30 or later (the LoadBalancerIPMode gate is beta and on from 1.30), and a
/// dataplane that honours it: kube-proxy in any of its Linux modes, Cilium's kube-proxy
/// replacement from 1.17 except 1.18.0.
pub(crate) fn ip_mode_proxy_honoured(cx: &Context<'_>) -> Gate {
    kubernetes_has_ip_mode(cx).and(dataplane_honours_ip_mode(cx))
}

/// Kubernetes 1.30 or later.
pub(crate) fn kubernetes_has_ip_mode(cx: &Context<'_>) -> Gate {
    let stated = cx.profile.kubernetes_version();
    match stated.value.map(|v| (v, version::at_least(v, "1.30"))) {
        Some((_, Some(true))) => Gate::Yes,
        Some((v, Some(false))) => Gate::No(format!(
            "Kubernetes {v} (profile `{}`{}) is before 1.30, where the LoadBalancerIPMode feature \
             gate is off by default, so `ipMode: Proxy` is ignored",
            stated.field(),
            stated.at_line()
        )),
        Some((v, None)) => Gate::Unknown(stated.unknown(&format!(
            "`{v}` is not a version lblint can compare; `ipMode: Proxy` needs 1.30 or later"
        ))),
        None => Gate::Unknown(stated.unknown("`ipMode: Proxy` takes effect from Kubernetes 1.30")),
    }
}

fn dataplane_honours_ip_mode(cx: &Context<'_>) -> Gate {
    let mode = cx.profile.kube_proxy_mode();
    match mode.value {
        // kubernetes/kubernetes pkg/proxy/serviceport.go `newBaseServiceInfo` drops every
        // load-balancer IP whose ipMode is not VIP ("kube-proxy ... only creates rules for
        // VIP-style load balancers") before any proxier sees the Service; the iptables,
        // IPVS and nftables proxiers all build on it, from v1.29.0, the release that
        // brought both the ipMode field and the nftables mode.
        Some(ProxyMode::Iptables | ProxyMode::Ipvs | ProxyMode::Nftables) => Gate::Yes,
        Some(ProxyMode::Ebpf) => cilium_honours_ip_mode(cx),
        None => Gate::Unknown(mode.unknown(
            "kube-proxy honours `ipMode: Proxy` in iptables, IPVS and nftables mode; an eBPF \
             dataplane depends on its version",
        )),
    }
}

fn cilium_honours_ip_mode(cx: &Context<'_>) -> Gate {
    let cilium = cx.profile.cilium();
    let Some(text) = cilium.value else {
        return Gate::Unknown(cilium.unknown(
            "the eBPF dataplane replaces kube-proxy; Cilium honours `ipMode: Proxy` from 1.17, \
             except 1.18.0",
        ));
    };
    let (Some(v), Some(since), Some(broken)) = (
        parse_version(text),
        parse_version(CILIUM_IP_MODE_SINCE),
        parse_version(CILIUM_IP_MODE_REGRESSION),
    ) else {
        return Gate::Unknown(
            cilium.unknown(&format!("`{text}` is not a version lblint can compare")),
        );
    };
    if v < since {
        Gate::No(format!(
            "Cilium {text} (profile `{}`{}) predates {CILIUM_IP_MODE_SINCE}, the first release \
             after cilium/cilium#34780 (merged October 2024), which taught Cilium to honour \
             `ipMode: Proxy`",
            cilium.field(),
            cilium.at_line()
        ))
    } else if v == broken {
        Gate::No(format!(
            "Cilium {text} (profile `{}`{}) ignores `ipMode: Proxy` (cilium/cilium#40913, fixed \
             in 1.18.1)",
            cilium.field(),
            cilium.at_line()
        ))
    } else {
        Gate::Yes
    }
}

/// `spec.externalTrafficPolicy` of a Service or IstioGateway, when it is `Local`.
pub(crate) fn local_policy<'w>(cx: &Context<'w>, entry: &EntryPoint) -> Option<NodeRef<'w>> {
    let views = &cx.views;
    let policy = match entry.kind {
        EntryKind::Service => views.service(entry.object)?.external_traffic_policy(),
        EntryKind::IstioGateway => views.istio_gateway(entry.object)?.external_traffic_policy,
        _ => None,
    };
    policy.filter(|p| p.as_str() == Some("Local"))
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
pub(crate) struct Gap {
    pub host: Option<Reach>,
    pub pods: Option<Reach>,
}

impl Gap {
    /// The same reach for every caller.
    pub(crate) fn all(known: bool, why: String) -> Gap {
        let reach = Reach { known, why };
        Gap {
            host: Some(reach.clone()),
            pods: Some(reach),
        }
    }

    /// A reach for hostNetwork callers only.
    pub(crate) fn host_only(known: bool, why: String) -> Gap {
        Gap {
            host: Some(Reach { known, why }),
            pods: None,
        }
    }

    pub(crate) fn for_caller(&self, caller: &Caller) -> Option<&Reach> {
        if caller.from_node {
            self.host.as_ref()
        } else {
            self.pods.as_ref()
        }
    }

    /// Whether hostNetwork callers are judged apart from other pods (the message then
    /// says the caller is hostNetwork).
    pub(crate) fn host_apart(&self) -> bool {
        match (&self.host, &self.pods) {
            (Some(host), Some(pods)) => host.known != pods.known || host.why != pods.why,
            (Some(_), None) => true,
            _ => false,
        }
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
pub(crate) fn upstream_gap(cx: &Context<'_>) -> Gap {
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
        Some(ProxyMode::Ipvs) => ipvs_gap(&field, version.as_ref(), at_least_known("1.24")),
        Some(ProxyMode::Nftables) => nftables_gap(&field, version.as_ref(), at_least_known),
        // Cilium's kube-proxy replacement serves eTP Local addresses "from nodes which have no
        // local backends"; Calico eBPF applies eTP Local to external traffic only.
        Some(ProxyMode::Ebpf) => Gap::default(),
        None => unstated_mode_gap(&field, at_least_known),
    }
}

/// The mode unstated: whatever mode it is. hostNetwork clients are stranded in IPVS mode
/// at every version; other pods in IPVS mode before v1.24.0 and in nftables mode before
/// v1.34.0 (v1.33.6), so only a version past both settles them.
fn unstated_mode_gap(field: &str, at_least_known: impl Fn(&str) -> Option<bool>) -> Gap {
    let host = Reach {
        known: false,
        why: format!(
            "upstream kube-proxy in IPVS mode still drops this for hostNetwork clients \
             (kubernetes/kubernetes#93456), and the cluster profile does not state `{field}`"
        ),
    };
    let pods = (nftables_fixed(at_least_known) != Some(true)).then(|| Reach {
        known: false,
        why: format!(
            "kube-proxy drops pods' calls on nodes without a backend pod in IPVS mode before v1.24.0 \
             (kubernetes/kubernetes#97081) and in nftables mode before v1.34.0 and v1.33.6 \
             (kubernetes/kubernetes#132456), and the cluster profile does not state `{field}`"
        ),
    });
    Gap {
        host: Some(host),
        pods,
    }
}

/// IPVS mode has no rule for the address for hostNetwork clients on nodes without a backend
/// pod (kubernetes/kubernetes#93456, still so in 2025). Other pods were dropped too until
/// kubernetes/kubernetes#97081 (ipvs/proxier.go `syncEndpoint`: "Allow access from local
/// PODs even if no local endpoints exist"), first in v1.24.0: it was still in review in
/// January 2022, and kube-proxy vendored at v1.23.4 lacks it while v1.24.0 has it
/// (openshift/sdn's vendor tree, commit fe6f39368).
fn ipvs_gap(field: &str, version: Option<&(String, String)>, fixed: Option<bool>) -> Gap {
    let host = Reach {
        known: true,
        why: format!(
            "upstream kube-proxy in IPVS mode (`{field}`) has no rule for the address for hostNetwork clients \
             on nodes without a backend pod (kubernetes/kubernetes#93456; PR #97081, in v1.24.0, fixed it \
             for other pods only)"
        ),
    };
    let pods = match (fixed, version) {
        (Some(true), _) => None,
        (Some(false), Some((v, at))) => Some(Reach {
            known: true,
            why: format!(
                "kube-proxy {v} ({at}) in IPVS mode predates v1.24.0, the first release that serves pods on \
                 nodes without a backend pod (kubernetes/kubernetes#97081)"
            ),
        }),
        _ => Some(Reach {
            known: false,
            why: format!(
                "kube-proxy in IPVS mode (`{field}`) drops pods' calls on nodes without a backend pod before \
                 v1.24.0 (kubernetes/kubernetes#97081), and the cluster profile states neither \
                 `spec.kubeProxy.version` nor `spec.kubernetesVersion`"
            ),
        }),
    };
    Gap {
        host: Some(host),
        pods,
    }
}

/// Whether the version has the nftables fix: v1.34.0, or v1.33.6 on the 1.33 line.
fn nftables_fixed(at_least_known: impl Fn(&str) -> Option<bool>) -> Option<bool> {
    let minor_33 =
        at_least_known("1.33").unwrap_or(false) && !at_least_known("1.34").unwrap_or(true);
    if minor_33 {
        at_least_known("1.33.6")
    } else {
        at_least_known("1.34")
    }
}

/// nftables mode dropped the traffic until the fix shipped in v1.34.0
/// (kubernetes/kubernetes#132456), backported to v1.33.6 (#133969).
fn nftables_gap(
    field: &str,
    version: Option<&(String, String)>,
    at_least_known: impl Fn(&str) -> Option<bool>,
) -> Gap {
    match (nftables_fixed(at_least_known), version) {
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
pub(crate) fn strands(cx: &Context<'_>, entry: &EntryPoint, caller: &Caller) -> Fit {
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
                    &t.label_map(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_combine_no_first_then_unknown() {
        let no = || Gate::No("n".into());
        let unknown = |s: &str| Gate::Unknown(s.into());
        assert_eq!(Gate::Yes.and(no()), no());
        assert_eq!(unknown("a").and(no()), no());
        assert_eq!(unknown("a").and(unknown("b")), unknown("a; b"));
        assert_eq!(Gate::Yes.and(unknown("a")), unknown("a"));
        assert_eq!(Gate::Yes.and(Gate::Yes), Gate::Yes);
    }
}
