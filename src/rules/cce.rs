//! Huawei Cloud CCE (rules/CCE001.md to CCE003.md). CCE001: `externalTrafficPolicy: Local`
//! called in-cluster without `kubernetes.io/elb.pass-through` (the verdict lives with
//! ACK001's and K8S013's in `ack::local_policy_in_cluster`, so each Service is judged once).
//! CCE002: pass-through on CCE Standard with a caller that can share a node with a backend
//! pod, which fails with a dedicated ELB. CCE003: Services on one ELB that disagree on
//! pass-through under IPVS.

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{EntryKind, EntryPoint, Fit};
use crate::objects::{Object, Workspace};
use crate::profile::{CceFlavour, Provider, ProxyMode};
use crate::rules::ack::local_policy_in_cluster::{self, Judge};
use crate::rules::proxy_protocol::{annotation_in, services_of};
use crate::rules::{calls_first, shares_node, sharing_unknown_why, with_callers};
use crate::rules::{Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

pub use crate::rules::meta::CCE001 as LOCAL_POLICY_META;
pub use crate::rules::meta::CCE002 as PASS_THROUGH_META;
pub use crate::rules::meta::CCE003 as MIXED_META;

pub const PASS_THROUGH: &str = "kubernetes.io/elb.pass-through";
pub const ELB_ID: &str = "kubernetes.io/elb.id";
/// The values that turn pass-through on: `true`, and `onlyLocal`, which CCE writes itself
/// with node-level (Local) affinity.
const PASS_THROUGH_ON: &[&str] = &["true", "onlyLocal"];
const SERVICE_DOC: &str =
    "https://support.huaweicloud.com/intl/en-us/usermanual-cce/cce_10_0355.html";
const BEST_PRACTICE: &str =
    "https://support.huaweicloud.com/intl/en-us/bestpractice-cce/cce_bestpractice_0301.html";

/// A LoadBalancer Service the CCE controller handles: written for CCE (or on a CCE
/// profile) and not claimed by another controller's `loadBalancerClass`.
pub(crate) fn handles(entry: &EntryPoint) -> bool {
    entry.kind == EntryKind::Service
        && entry.provider == Some(Provider::Cce)
        && entry.class.as_deref().is_none_or(str::is_empty)
}

/// The pass-through annotation's key, when it turns pass-through on.
pub(crate) fn pass_through<'w>(ws: &'w Workspace, service: &Object) -> Option<NodeRef<'w>> {
    annotation_in(ws, service, PASS_THROUGH, PASS_THROUGH_ON)
}

/// CCE001's ways out, for the help text.
pub(crate) fn local_policy_help(dns: &str) -> String {
    format!(
        "1) set `{PASS_THROUGH}: \"true\"` (cluster v1.19 or later): in-cluster calls to the ELB address then go \
         through the ELB, which sends them to nodes with a backend pod; on CCE Standard with a dedicated ELB, \
         callers on a backend pod's node then fail instead (CCE002); 2) have in-cluster clients call {dns} (or \
         the ClusterIP), which works on every node; 3) set `externalTrafficPolicy: Cluster`, which loses the \
         client source IP. See {SERVICE_DOC}"
    )
}

pub struct LocalPolicyInCluster;

impl Rule for LocalPolicyInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &LOCAL_POLICY_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        local_policy_in_cluster::check(cx, Judge::Cce, out);
    }
}

pub struct PassThroughSameNode;

impl Rule for PassThroughSameNode {
    fn meta(&self) -> &'static RuleMeta {
        &PASS_THROUGH_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let flavour = cx.profile.cce_flavour();
        let standard = match flavour.value {
            // CCE Turbo: containers reach the ELB by pass-through by default, and the
            // constraint is documented for CCE Standard only.
            Some(CceFlavour::Turbo) => return,
            Some(CceFlavour::Standard) => format!(
                "The cluster is CCE Standard (profile `{}`{})",
                flavour.field(),
                flavour.at_line()
            ),
            None => format!(
                "The cluster profile does not state `{}` (the constraint holds on CCE Standard, not CCE Turbo)",
                flavour.field()
            ),
        };
        for (index, entry, service) in services_of(cx, Provider::Cce) {
            let Some(at) = pass_through(ws, service) else {
                continue;
            };
            let callers = calls_first(cx.model.callers_of(index));
            let fits: Vec<Fit> = callers.iter().map(|c| shares_node(cx, entry, c)).collect();
            let candidates = || callers.iter().zip(&fits);
            let Some((caller, fit)) = candidates()
                .find(|(_, f)| **f == Fit::Yes)
                .or_else(|| candidates().find(|(_, f)| **f == Fit::Unknown))
            else {
                continue;
            };
            let placement = match fit {
                Fit::Yes => "from a pod that can run on the same node as a backend pod".to_string(),
                _ => format!(
                    "and whether that pod can run on the same node as a backend pod is unknown ({})",
                    sharing_unknown_why(cx, entry)
                ),
            };
            let value = ws
                .annotation(service, PASS_THROUGH)
                .and_then(|(_, v)| v.as_str())
                .unwrap_or("true");
            let message = format!(
                "Service `{}` sets `{PASS_THROUGH}: \"{value}\"`, and {} calls its ELB address {} ({}) {placement}. \
                 Huawei: in a CCE Standard cluster with a dedicated ELB and pass-through, access to the ELB's \
                 private IP from the node of a workload pod, or from other containers on that node, fails. \
                 {standard}, and whether the ELB is dedicated is not in these manifests: lblint does not read it \
                 from `kubernetes.io/elb.class`, because that `performance` means a dedicated ELB is unconfirmed.",
                service.name(),
                ws.objects[caller.workload].id,
                caller.address,
                caller.via,
            );
            let mut d = PASS_THROUGH_META
                .diagnostic(Severity::Warning, ws.location(service, at.span()), message)
                .with_help(format!(
                    "if the ELB is dedicated: keep in-cluster clients off the backend pods' nodes (required pod \
                     anti-affinity on `kubernetes.io/hostname`), or have them call {} instead of the ELB \
                     address (Huawei documents the failure for dedicated ELBs). See {BEST_PRACTICE}",
                    service.service_hosts_hint()
                ));
            d = with_callers(d, ws, callers.iter().copied(), "ELB address");
            if let Some(at) = flavour.location() {
                d = d.with_related(at, "the cluster profile's CCE flavour decides the verdict");
            }
            out.push(
                d.with_suggestion(crate::rules::call_by_name(service))
                    .on(service),
            );
        }
    }
}

pub struct MixedPassThrough;

/// One Service on a shared ELB: where to point, and its pass-through value as written.
struct OnElb<'w> {
    service: &'w Object,
    at: NodeRef<'w>,
    value: Option<&'w str>,
}

impl OnElb<'_> {
    fn on(&self) -> bool {
        self.value.is_some_and(|v| PASS_THROUGH_ON.contains(&v))
    }

    fn shown(&self) -> String {
        match self.value {
            Some(v) => format!("{}: \"{v}\"", self.service.id),
            None => format!("{}: not set", self.service.id),
        }
    }
}

impl Rule for MixedPassThrough {
    fn meta(&self) -> &'static RuleMeta {
        &MIXED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let mode = cx.profile.kube_proxy_mode();
        let (severity, when) = match mode.value {
            Some(ProxyMode::Ipvs) => (
                Severity::Error,
                format!(
                    "kube-proxy runs in IPVS mode (profile `{}`{})",
                    mode.field(),
                    mode.at_line()
                ),
            ),
            None => (
                Severity::Warning,
                format!(
                    "the cluster profile does not state `{}` (the constraint holds in IPVS mode)",
                    mode.field()
                ),
            ),
            Some(_) => return,
        };
        let mut by_elb: BTreeMap<&str, Vec<OnElb<'_>>> = BTreeMap::new();
        for (_, _, service) in services_of(cx, Provider::Cce) {
            let Some((id_key, id)) = ws.annotation(service, ELB_ID) else {
                continue;
            };
            let Some(id) = id.as_str().map(str::trim).filter(|id| !id.is_empty()) else {
                continue;
            };
            let written = ws.annotation(service, PASS_THROUGH);
            by_elb.entry(id).or_default().push(OnElb {
                service,
                at: written.map_or(id_key, |(key, _)| key),
                value: written.and_then(|(_, v)| v.as_str()),
            });
        }
        for (id, copies) in by_elb {
            // The same Service in several files (a base and its overlays) is one Service,
            // whose setting is known only when its copies agree.
            let mut by_service: BTreeMap<_, Vec<&OnElb<'_>>> = BTreeMap::new();
            for copy in &copies {
                by_service.entry(&copy.service.id).or_default().push(copy);
            }
            let settled: Vec<&OnElb<'_>> = by_service
                .values()
                .filter(|c| c.iter().all(|copy| copy.on() == c[0].on()))
                .map(|c| c[0])
                .collect();
            if !(settled.iter().any(|s| s.on()) && settled.iter().any(|s| !s.on())) {
                continue;
            }
            let settings: Vec<String> = settled.iter().map(|s| s.shown()).collect();
            for this in copies
                .iter()
                .filter(|c| settled.iter().any(|s| s.service.id == c.service.id))
            {
                let mut d = MIXED_META
                    .diagnostic(
                        severity,
                        ws.location(this.service, this.at.span()),
                        format!(
                            "Service `{}` shares ELB `{id}` (`{ELB_ID}`) with Services whose `{PASS_THROUGH}` \
                             differs ({}), and {when}. Huawei: \"IPVS网络模式下，对接同一个ELB的Service需保持\
                             pass-through设置情况一致\" (in IPVS mode, the Services on one ELB must keep the same \
                             pass-through setting).",
                            this.service.name(),
                            settings.join(", ")
                        ),
                    )
                    .with_help(format!(
                        "give every Service on ELB `{id}` the same `{PASS_THROUGH}` value. See {BEST_PRACTICE}"
                    ));
                for other in settled.iter().filter(|o| o.service.id != this.service.id) {
                    d = d.with_related(
                        ws.location(other.service, other.at.span()),
                        format!(
                            "{} on the same ELB: pass-through {}",
                            other.service.id,
                            if other.on() { "on" } else { "off" }
                        ),
                    );
                }
                if let Some(at) = mode.location() {
                    d = d.with_related(
                        at,
                        "the cluster profile's kube-proxy mode decides the verdict",
                    );
                }
                out.push(d.on(this.service));
            }
        }
    }
}
