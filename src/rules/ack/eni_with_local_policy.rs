//! ACK003 ack-eni-backend-local-policy: `backend-type: eni` with `externalTrafficPolicy:
//! Local`; the documented pairing is `Cluster`.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::family::kube_proxy::local_policy;
use crate::rules::family::local_policy::{to_cluster_fix, what};
use crate::rules::{Context, Rule};

use super::{ack_entries, backend_type, BACKEND_TYPE, SEED_DOC};

use crate::catalog::meta::ACK003 as META;

pub(crate) struct EniWithLocalPolicy;

impl Rule for EniWithLocalPolicy {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, entry, object) in ack_entries(cx) {
            let Some((key, value)) = backend_type(cx, entry) else {
                continue;
            };
            if value.as_str() != Some("eni") {
                continue;
            }
            let Some(policy) = local_policy(cx, entry) else {
                continue;
            };
            let message = format!(
                "{} pairs `{BACKEND_TYPE}: eni` with `externalTrafficPolicy: Local`, but the vendor's fix for \
                 in-cluster access to the CLB address is `eni` with `externalTrafficPolicy: Cluster`: with `Local`, \
                 kube-proxy still programs the address only on nodes that run a backend pod.",
                what(entry, object)
            );
            let d = META
                .diagnostic(Severity::Warning, ws.location(object, policy.span()), message)
                .with_help(format!(
                    "set `externalTrafficPolicy: Cluster`; with `{BACKEND_TYPE}: eni` the CLB sends traffic \
                     straight to pod ENIs, so the source IP is kept. See {SEED_DOC}"
                ))
                .with_related(ws.location(object, key.span()), "ENI backends are requested here")
                .with_fix(to_cluster_fix(ws, object, policy));
            out.push(d.on(object));
        }
    }
}
