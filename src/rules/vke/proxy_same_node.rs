//! VKE004 vke-proxy-same-node: `Proxy` IP mode with an in-cluster caller that can share a
//! node with a backend pod.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Fit;
use crate::rules::verdict::{calls_first, shares_node, sharing_unknown_why, with_call_by_name};
use crate::rules::verdict::{weigh, with_callers};
use crate::rules::{Context, Rule};

use super::{proxy_services, to_vip_fix, IP_MODE, SEED_DOC};

use crate::catalog::meta::VKE004 as META;

pub(crate) struct ProxySameNode;

impl Rule for ProxySameNode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// A Service that asks for Proxy mode by annotation: this rule judges its calls.
    fn claims(&self, cx: &Context<'_>, entry: &crate::model::EntryPoint) -> bool {
        let object = &cx.ws.objects[entry.object];
        crate::views::Annotations::of(cx.ws, object)
            .entry(IP_MODE)
            .and_then(|(_, v)| v.as_str())
            == Some("Proxy")
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry, object, value) in proxy_services(cx) {
            let name = object.name();
            let hosts = object.service_hosts_hint();
            let callers = calls_first(cx.model.callers_of(index));
            let fits: Vec<Fit> = callers.iter().map(|c| shares_node(cx, entry, c)).collect();
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
                         can run on the same node as a backend pod.",
                        ws.objects[caller.workload].id,
                        caller.address,
                    ),
                ),
                Some((caller, _)) => {
                    let why = sharing_unknown_why(cx, entry);
                    (
                        Severity::Warning,
                        format!(
                            "Service `{name}` uses the `Proxy` IP mode and {} calls its CLB address {}; whether \
                             that pod can run on the same node as a backend pod is unknown ({why}).",
                            ws.objects[caller.workload].id, caller.address
                        ),
                    )
                }
                // Nothing visible calls it: a warning when the CLB is private, as in every
                // rule (verdict::unseen).
                None => (
                    crate::rules::verdict::unseen(entry.network),
                    format!(
                        "Service `{name}` uses the `Proxy` IP mode, where a client pod on the same node as a \
                         backend pod cannot reach the CLB address. No in-cluster caller of its address \
                         is visible in these manifests.{}",
                        crate::rules::verdict::unseen_why(
                            entry.network,
                            META.id,
                            "keep the `VIP` IP mode"
                        )
                    ),
                ),
            };
            let (severity, message) = match sharing {
                Some((caller, _)) => weigh(severity, caller, message),
                None => (severity, message),
            };
            let mut d = META
                .diagnostic(severity, ws.location(object, value.span()), message)
                .with_help(format!(
                    "{limit}{}. Way out: set `{IP_MODE}` to `VIP` (the default; the mode cannot be changed after creation, so recreate \
                     the Service), or have in-cluster clients call {hosts}, or keep \
                     clients and backend pods on different nodes with required pod anti-affinity \
                     (`requiredDuringSchedulingIgnoredDuringExecution`, `topologyKey: kubernetes.io/hostname`) \
                     between them. See {SEED_DOC}",
                    match sharing {
                        Some((_, Fit::Yes)) => format!(
                            "; they can share a node: both fit a pool in `spec.nodePools`{} and no required pod \
                             anti-affinity on `kubernetes.io/hostname` keeps them apart",
                            cx.profile.node_pool_list().at_line()
                        ),
                        _ => String::new(),
                    }
                ));
            // The way out by name first, then its edit at each call.
            d = with_call_by_name(d, object, callers.iter().copied());
            d = with_callers(d, cx, callers.iter().copied(), "CLB address");
            out.push(d.on(object).with_fix(to_vip_fix(ws, object, value)));
        }
    }
}
