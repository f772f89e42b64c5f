//! CCE002 cce-pass-through-same-node: pass-through on CCE Standard with a caller that can
//! share a node with a backend pod, which fails with a dedicated ELB.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Fit;
use crate::profile::{CceFlavour, Provider};
use crate::rules::family::local_policy::CCE_PASS_THROUGH as PASS_THROUGH;
use crate::rules::select::services_of;
use crate::rules::verdict::with_callers;
use crate::rules::verdict::{calls_first, shares_node, sharing_unknown_why, with_call_by_name};
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use super::{pass_through, BEST_PRACTICE};

use crate::catalog::meta::CCE002 as META;

/// The ELB type annotation (https://support.huaweicloud.com/eu/usermanual-cce/cce_10_0385.html).
const ELB_CLASS: &str = "kubernetes.io/elb.class";

pub(crate) struct PassThroughSameNode;

impl Rule for PassThroughSameNode {
    fn meta(&self) -> &'static RuleMeta {
        &META
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
            // cce_10_0385: `kubernetes.io/elb.class` is `union` (shared) or `performance`
            // (dedicated); the constraint is the dedicated ELB's.
            let dedicated = match Annotations::of(ws, service).text(ELB_CLASS) {
                Some("performance") => true,
                Some("union") => continue,
                _ => false,
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
            let value = Annotations::of(ws, service)
                .entry(PASS_THROUGH)
                .and_then(|(_, v)| v.as_str())
                .unwrap_or("true");
            let elb = if dedicated {
                format!("the ELB is dedicated (`{ELB_CLASS}: performance`)")
            } else {
                format!(
                    "whether the ELB is dedicated is not in these manifests (`{ELB_CLASS}`: `performance` is \
                     dedicated, `union` shared)"
                )
            };
            let message = format!(
                "Service `{}` sets `{PASS_THROUGH}: \"{value}\"`, and {} calls its ELB address {} ({}) {placement}. \
                 Huawei: in a CCE Standard cluster with a dedicated ELB and pass-through, access to the ELB's \
                 private IP from the node of a workload pod, or from other containers on that node, fails. \
                 {standard}, and {elb}.",
                service.name(),
                ws.objects[caller.workload].id,
                caller.address,
                caller.via,
            );
            let certain =
                dedicated && *fit == Fit::Yes && flavour.value == Some(CceFlavour::Standard);
            let severity = if certain {
                Severity::Error
            } else {
                Severity::Warning
            };
            let mut d = META
                .diagnostic(severity, ws.location(service, at.span()), message)
                .with_help(format!(
                    "if the ELB is dedicated: keep in-cluster clients off the backend pods' nodes (required pod \
                     anti-affinity on `kubernetes.io/hostname`), or have them call {} instead of the ELB \
                     address (Huawei documents the failure for dedicated ELBs). See {BEST_PRACTICE}",
                    service.service_hosts_hint()
                ));
            // The way out by name first, then its edit at each call.
            d = with_callers(
                with_call_by_name(d, service, callers.iter().copied()),
                cx,
                callers.iter().copied(),
                "ELB address",
            );
            if let Some(at) = flavour.location() {
                d = d.with_related(at, "the cluster profile's CCE flavour decides the verdict");
            }
            out.push(d.on(service));
        }
    }
}
