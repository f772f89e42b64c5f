//! K8S011 internal-traffic-policy-local-drop: `internalTrafficPolicy: Local` on a Service
//! whose backends are not on every node its callers can use.

use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::model::Fit;
use crate::objects::ObjectId;
use crate::rules::{edit, Context, Rule, RuleMeta};
use crate::views::{pod_template, selector_matches};

pub use crate::rules::meta::K8S011 as META;

pub struct InternalTrafficPolicyLocal;

impl Rule for InternalTrafficPolicyLocal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, object) in ws.ids() {
            let Some(service) = cx.views.service(index) else {
                continue;
            };
            let Some(policy) = service
                .internal_traffic_policy
                .filter(|p| p.as_str() == Some("Local"))
            else {
                continue;
            };
            let selector = service.selector;
            let backends: Vec<ObjectId> = cx
                .model
                .workloads
                .iter()
                .copied()
                .filter(|&w| {
                    let workload = &ws.objects[w];
                    workload.namespace() == object.namespace()
                        && pod_template(ws, workload)
                            .is_some_and(|t| selector_matches(selector, t.labels))
                })
                .collect();
            let mut calls: Vec<_> = cx
                .model
                .safe_calls
                .iter()
                .filter(|c| c.service == index)
                .collect();
            calls.dedup_by_key(|c| c.workload);
            // Per caller: can it run on a node without a backend pod?
            let verdicts: Vec<Fit> = calls
                .iter()
                .map(|c| {
                    if backends.is_empty() {
                        return Fit::Unknown;
                    }
                    let mut covered = Fit::No;
                    for &b in &backends {
                        // A backend calling its own Service always has a local endpoint: itself.
                        let fit = if b == c.workload {
                            Fit::Yes
                        } else {
                            cx.model.covers(ws, b, c.workload)
                        };
                        match fit {
                            Fit::Yes => return Fit::No,
                            Fit::Unknown => covered = Fit::Unknown,
                            Fit::No => {}
                        }
                    }
                    if covered == Fit::Unknown {
                        Fit::Unknown
                    } else {
                        Fit::Yes
                    }
                })
                .collect();
            let name = object.name();
            let found = calls
                .iter()
                .zip(&verdicts)
                .find(|(_, v)| **v == Fit::Yes)
                .or_else(|| {
                    calls
                        .iter()
                        .zip(&verdicts)
                        .find(|(_, v)| **v == Fit::Unknown)
                });
            let (severity, message) = match found {
                Some((call, Fit::Yes)) => (
                    Severity::Error,
                    format!(
                        "Service `{name}` has `internalTrafficPolicy: Local` and {} calls it ({}) from a pod that \
                         can run on a node without a backend pod (no backend DaemonSet covers every node pool it can use{}): kube-proxy \
                         drops traffic on nodes without a local endpoint.",
                        ws.objects[call.workload].id,
                        call.host,
                        cx.profile.node_pool_list().at_line()
                    ),
                ),
                Some((call, _)) => (
                    Severity::Warning,
                    format!(
                        "Service `{name}` has `internalTrafficPolicy: Local` and {} calls it ({}); whether a \
                         backend pod runs on every node that caller can use is unknown ({}): kube-proxy drops \
                         traffic on nodes without a local endpoint.",
                        ws.objects[call.workload].id,
                        call.host,
                        if backends.is_empty() {
                            "the backend pods are not in these manifests"
                        } else {
                            "set `spec.nodePools` in the cluster profile"
                        }
                    ),
                ),
                None if !calls.is_empty() => continue,
                None => {
                    // Without callers, only report backends that cannot be on every node.
                    if backends.is_empty()
                        || backends.iter().any(|&b| ws.objects[b].kind() == "DaemonSet")
                    {
                        continue;
                    }
                    (
                        Severity::Warning,
                        format!(
                            "Service `{name}` has `internalTrafficPolicy: Local` but its backends are not a \
                             DaemonSet: calls from pods on nodes without a backend pod are dropped. No \
                             in-cluster caller is visible in these manifests."
                        ),
                    )
                }
            };
            let mut d = META
                .diagnostic(severity, ws.location(object, policy.span()), message)
                .with_help(
                    "set `spec.internalTrafficPolicy: Cluster` (or remove it; `Cluster` is the default), or run \
                     the backends as a DaemonSet on every node the callers use. See \
                     https://kubernetes.io/docs/reference/networking/virtual-ips/",
                );
            for call in &calls {
                d = d.with_related(
                    call.location.clone(),
                    format!("{} calls the Service here", ws.objects[call.workload].id),
                );
            }
            d = d.on(object);
            d.fix = edit::replace_scalar(
                ws,
                object,
                policy,
                "Cluster",
                "set `internalTrafficPolicy: Cluster`".to_string(),
                // Node-local routing may be intended (e.g. a node agent).
                Applicability::Unsafe,
            );
            out.push(d);
        }
    }
}
