//! DOKS002 doks-hostname-needs-dns: the hostname annotation, DOKS001's way out, makes every
//! client need a DNS record for the name.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::family::proxy_protocol::doks::{DOC, HOSTNAME};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::catalog::meta::DOKS002 as META;

pub(crate) struct HostnameNeedsDns;

impl Rule for HostnameNeedsDns {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, _, service) in services_of(cx, Provider::Doks) {
            let Some((at, value)) = Annotations::of(ws, service).entry(HOSTNAME) else {
                continue;
            };
            let Some(host) = value.as_str().filter(|v| !v.trim().is_empty()) else {
                continue;
            };
            let d = META
                .diagnostic(
                    Severity::Note,
                    ws.location(service, at.span()),
                    format!(
                        "Service `{}` reports `{host}` as its load-balancer address: every client, inside the \
                         cluster and out, then needs a DNS record for `{host}` pointing at the load balancer's \
                         IP, or it cannot reach the Service at all.",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "DigitalOcean's order: wait for the external IP, add the DNS record for `{host}`, then add \
                     the annotation. See {DOC}"
                ))
                .on(service);
            out.push(d);
        }
    }
}
