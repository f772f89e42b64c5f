//! DigitalOcean DOKS (rules/DOKS001.md, DOKS002.md). DOKS001: PROXY protocol or TLS
//! termination on the load balancer, bypassed by in-cluster calls (the controller never sets
//! `ipMode: Proxy`; only a hostname status avoids the shortcut). DOKS002: the hostname way
//! out needs a DNS record first.

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::proxy_protocol::{
    annotation_in, annotation_set, hostname_way_out, report, services_of,
};
use crate::rules::proxy_protocol::{hostname_suggestion, Bypass, Feature, Trap};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::DOKS001 as PROXY_META;
pub use crate::rules::meta::DOKS002 as HOSTNAME_META;

const PREFIX: &str = "service.beta.kubernetes.io/do-loadbalancer-";
const DOC: &str =
    "DigitalOcean cloud controller manager, docs/controllers/services/annotations.md \
                   (do-loadbalancer-hostname) and examples/README.md";

fn key(suffix: &str) -> String {
    format!("{PREFIX}{suffix}")
}

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &PROXY_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (index, entry, service) in services_of(cx, Provider::Doks) {
            // The hostname annotation (or a hostname-only status) leaves nothing to short-circuit.
            if hostname_way_out(cx, entry, &key("hostname")) {
                continue;
            }
            let proxy = annotation_in(ws, service, &key("enable-proxy-protocol"), &["true"])
                .map(|at| (Feature::ProxyProtocol, at));
            let tls = || {
                let protocol = annotation_set(ws, service, &key("protocol"))?;
                if !matches!(protocol, "https" | "http2")
                    || annotation_set(ws, service, &key("tls-passthrough")) == Some("true")
                {
                    return None;
                }
                let (at, _) = ws
                    .annotation(service, &key("certificate-id"))
                    .or_else(|| ws.annotation(service, &key("tls-ports")))?;
                Some((Feature::TlsTermination, at))
            };
            let Some((feature, at)) = proxy.or_else(tls) else {
                continue;
            };
            let after = at.as_str().unwrap_or_default();
            let edits: Vec<_> = hostname_suggestion(ws, service, after, &key("hostname"))
                .into_iter()
                .collect();
            let trap = Trap {
                feature,
                at,
                bypass: Bypass::Sure(format!(
                    "DigitalOcean's controller never sets `ipMode: Proxy`, and without `{}` the Service's \
                     status carries the load balancer's IP",
                    key("hostname")
                )),
                fix: format!(
                    "create a DNS record for a name (say lb.example.com) that points at the load balancer's \
                     IP, then add `{}: lb.example.com` and have clients use that name: the status then has a \
                     hostname, which kube-proxy cannot short-circuit, so in-cluster calls go through the load \
                     balancer too. See {DOC}",
                    key("hostname")
                ),
                edits,
            };
            report(cx, &PROXY_META, index, entry, trap, out);
        }
    }
}

pub struct HostnameNeedsDns;

impl Rule for HostnameNeedsDns {
    fn meta(&self) -> &'static RuleMeta {
        &HOSTNAME_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, _, service) in services_of(cx, Provider::Doks) {
            let Some((at, value)) = ws.annotation(service, &key("hostname")) else {
                continue;
            };
            let Some(host) = value.as_str().filter(|v| !v.trim().is_empty()) else {
                continue;
            };
            let d = HOSTNAME_META
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
