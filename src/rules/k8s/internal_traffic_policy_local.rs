//! K8S011 internal-traffic-policy-local-drop: `internalTrafficPolicy: Local` on a Service
//! whose backends are not on every node its callers can use.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::model::{Fit, SafeCall};
use crate::objects::{Object, ObjectId, Workspace};
use crate::rules::{edit, Context, Rule};
use crate::views::{pod_template, selector_matches};
use crate::yaml::NodeRef;

use crate::catalog::meta::K8S011 as META;

pub(crate) struct InternalTrafficPolicyLocal;

impl Rule for InternalTrafficPolicyLocal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, object) in cx.ws.ids() {
            let Some(service) = cx.views.service(index) else {
                continue;
            };
            let Some(policy) = service
                .internal_traffic_policy()
                .filter(|p| p.as_str() == Some("Local"))
            else {
                continue;
            };
            let verdict = Verdict::of(cx, index, object, service.selector());
            let Some(words) = verdict.words(cx, object) else {
                continue;
            };
            out.push(verdict.finding(cx.ws, object, policy, words));
        }
    }
}

/// One Service's verdict, before it is worded.
struct Verdict<'m> {
    /// The workloads the Service's selector picks, in its namespace.
    backends: Vec<ObjectId>,
    /// Its in-cluster calls, one per calling workload.
    calls: Vec<&'m SafeCall>,
    /// The call the message names, and whether its caller can run on a node without a
    /// backend pod: one that surely can, else one that may.
    found: Option<(&'m SafeCall, Fit)>,
}

impl<'m> Verdict<'m> {
    fn of(
        cx: &'m Context<'_>,
        index: ObjectId,
        object: &Object,
        selector: Option<NodeRef<'_>>,
    ) -> Verdict<'m> {
        let ws = cx.ws;
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
        let verdicts: Vec<Fit> = calls
            .iter()
            .map(|c| without_backend(cx, &backends, c.workload))
            .collect();
        let candidates = || calls.iter().zip(&verdicts);
        let found = candidates()
            .find(|(_, v)| **v == Fit::Yes)
            .or_else(|| candidates().find(|(_, v)| **v == Fit::Unknown))
            .map(|(c, v)| (*c, *v));
        Verdict {
            backends,
            calls,
            found,
        }
    }

    /// The severity and message; `None` when callers never land on a node without a
    /// backend pod, or, without callers, when the backends can be on every node.
    fn words(&self, cx: &Context<'_>, object: &Object) -> Option<(Severity, String)> {
        let ws = cx.ws;
        let name = object.name();
        Some(match self.found {
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
                    if self.backends.is_empty() {
                        "the backend pods are not in these manifests"
                    } else {
                        "set `spec.nodePools` in the cluster profile"
                    }
                ),
            ),
            None if !self.calls.is_empty() => return None,
            // Without callers, only report backends that cannot be on every node.
            None if self.backends.is_empty()
                || self
                    .backends
                    .iter()
                    .any(|&b| ws.objects[b].kind() == "DaemonSet") =>
            {
                return None
            }
            None => (
                Severity::Warning,
                format!(
                    "Service `{name}` has `internalTrafficPolicy: Local` but its backends are not a \
                     DaemonSet: calls from pods on nodes without a backend pod are dropped. No \
                     in-cluster caller is visible in these manifests."
                ),
            ),
        })
    }

    /// The finding: at the policy, with each call as a related location and
    /// `internalTrafficPolicy: Cluster` as the fix.
    fn finding(
        &self,
        ws: &Workspace,
        object: &Object,
        policy: NodeRef<'_>,
        (severity, message): (Severity, String),
    ) -> Diagnostic {
        let mut d = META
            .diagnostic(severity, ws.location(object, policy.span()), message)
            .with_help(
                "set `spec.internalTrafficPolicy: Cluster` (or remove it; `Cluster` is the default), or run \
                 the backends as a DaemonSet on every node the callers use. See \
                 https://kubernetes.io/docs/reference/networking/virtual-ips/",
            );
        for call in &self.calls {
            d = d.with_related(
                call.location.clone(),
                format!("{} calls the Service here", ws.objects[call.workload].id),
            );
        }
        d.on(object).with_fix(edit::replace_scalar(
            ws,
            object,
            policy,
            "Cluster",
            "set `internalTrafficPolicy: Cluster`".to_string(),
            // Node-local routing may be intended (e.g. a node agent).
            Applicability::Unsafe,
        ))
    }
}

/// Can the caller `workload` run on a node without a backend pod? Unknown when the backends
/// are not in these manifests.
fn without_backend(cx: &Context<'_>, backends: &[ObjectId], workload: ObjectId) -> Fit {
    if backends.is_empty() {
        return Fit::Unknown;
    }
    let mut covered = Fit::No;
    for &b in backends {
        // A backend calling its own Service always has a local endpoint: itself.
        let fit = if b == workload {
            Fit::Yes
        } else {
            cx.model.covers(cx.ws, b, workload)
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
}
