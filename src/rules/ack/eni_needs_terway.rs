//! ACK002 ack-eni-backend-needs-terway: `backend-type: eni` on a cluster without Terway
//! or inclusive ENI mode.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::family::local_policy::what;
use crate::rules::{Context, Rule};

use super::{ack_entries, backend_type, BACKEND_TYPE, SEED_DOC};

use crate::catalog::meta::ACK002 as META;

pub(crate) struct EniNeedsTerway;

impl Rule for EniNeedsTerway {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let (eni_direct, cni) = (cx.profile.network_eni_direct(), cx.profile.network_cni());
        let verdict = match (eni_direct.value, cni.value) {
            (Some(true), _) => return,
            (None, Some(c)) if c.eq_ignore_ascii_case("terway") => return,
            (Some(false), _) => Some((
                Severity::Error,
                format!(
                    "the cluster profile sets `spec.network.eniDirect: false`{} (neither Terway nor inclusive ENI \
                     mode)",
                    eni_direct.at()
                ),
            )),
            (None, Some(c)) => Some((
                Severity::Error,
                format!(
                    "the cluster profile's `spec.network.cni` is `{c}`{}, not Terway (set \
                     `spec.network.eniDirect: true` if the nodes run in inclusive ENI mode)",
                    cni.at()
                ),
            )),
            (None, None) => Some((
                Severity::Warning,
                "the cluster profile does not say whether it can: set `spec.network.cni` or \
                 `spec.network.eniDirect`"
                    .to_string(),
            )),
        };
        let Some((severity, why)) = verdict else {
            return;
        };
        for (_, entry, object) in ack_entries(cx) {
            let Some((_, value)) = backend_type(cx, entry) else {
                continue;
            };
            if value.as_str() != Some("eni") {
                continue;
            }
            let message = format!(
                "{} sets `{BACKEND_TYPE}: eni`, which adds pod ENIs to the CLB backend and needs the Terway CNI \
                 or inclusive ENI mode; {why}.",
                what(entry, object)
            );
            let mut d = META
                .diagnostic(severity, ws.location(object, value.span()), message)
                .with_help(format!(
                    "remove `{BACKEND_TYPE}: eni` on clusters without Terway or inclusive ENI mode (and use the \
                     Service DNS name for in-cluster calls), or move the workload to a Terway cluster. See {SEED_DOC}"
                ));
            if let Some(at) = eni_direct.location().or_else(|| cni.location()) {
                d = d.with_related(at, "the cluster profile's network decides the verdict");
            }
            out.push(d.on(object));
        }
    }
}
