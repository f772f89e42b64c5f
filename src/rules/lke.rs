//! Linode / Akamai LKE (rules/LKE001.md). LKE001: PROXY protocol on the NodeBalancer,
//! bypassed by in-cluster calls: the controller never sets `ipMode: Proxy`, and only a
//! hostname-only status avoids the shortcut.

use crate::diagnostic::Applicability;
use crate::diagnostic::Diagnostic;
use crate::profile::Provider;
use crate::rules::proxy_protocol::{add_annotation, Bypass, Feature, Trap};
use crate::rules::proxy_protocol::{hostname_way_out, report, services_of};
use crate::rules::{Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

pub use crate::rules::meta::LKE001 as META;

const DEFAULT_PROXY: &str = "service.beta.kubernetes.io/linode-loadbalancer-default-proxy-protocol";
const PORT_PREFIX: &str = "service.beta.kubernetes.io/linode-loadbalancer-port-";
pub const HOSTNAME_ONLY: &str =
    "service.beta.kubernetes.io/linode-loadbalancer-hostname-only-ingress";
const DOC: &str = "linode-cloud-controller-manager docs/configuration/annotations.md \
                   (https://github.com/linode/linode-cloud-controller-manager)";

fn speaks_proxy(value: &str) -> bool {
    matches!(value, "v1" | "v2")
}

/// The `proxy-protocol` of a per-port annotation's JSON value, when it parses.
fn port_proxy(value: NodeRef<'_>) -> Option<String> {
    let json: serde_json::Value = serde_json::from_str(value.as_str()?).ok()?;
    json.get("proxy-protocol")?.as_str().map(str::to_string)
}

pub struct ProxyProtocolInCluster;

impl Rule for ProxyProtocolInCluster {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        if cx.profile.ccm_hostname_only_ingress().value == Some(true) {
            return;
        }
        for (index, entry, service) in services_of(cx, Provider::Lke) {
            let Some(view) = cx.views.service(entry.object) else {
                continue;
            };
            if hostname_way_out(cx, entry, HOSTNAME_ONLY) {
                continue;
            }
            let default = ws.annotation(service, DEFAULT_PROXY);
            // Each Service port speaks what its own annotation says, else the default.
            let mut at = None;
            for port in view.ports.iter().filter_map(|p| p.port) {
                let own = ws.annotation(service, &format!("{PORT_PREFIX}{port}"));
                let own_setting = own.and_then(|(k, v)| port_proxy(v).map(|p| (k, p)));
                let (key, setting) = match (own_setting, default) {
                    (Some((key, setting)), _) => (key, setting),
                    (None, Some((key, value))) => match value.as_str() {
                        Some(v) => (key, v.to_string()),
                        None => continue,
                    },
                    (None, None) => continue,
                };
                if speaks_proxy(&setting) {
                    at = Some(key);
                    break;
                }
            }
            let Some(at) = at else {
                continue;
            };
            let after = at.as_str().unwrap_or_default();
            // Unsafe: the status then holds a hostname, not the IP clients and DNS may use.
            let edits: Vec<_> = add_annotation(
                ws,
                service,
                after,
                (HOSTNAME_ONLY, "\"true\""),
                Applicability::Unsafe,
            )
            .into_iter()
            .collect();
            let trap = Trap {
                feature: Feature::ProxyProtocol,
                at,
                bypass: Bypass::Sure(format!(
                    "Linode's controller never sets `ipMode: Proxy`, and without `{HOSTNAME_ONLY}: \"true\"` the \
                     Service's status carries the NodeBalancer's IP"
                )),
                fix: format!(
                    "add `{HOSTNAME_ONLY}: \"true\"`: the status then holds only the NodeBalancer's hostname, which \
                     kube-proxy cannot short-circuit, so in-cluster calls go through the NodeBalancer and get the \
                     PROXY header (clients must use a DNS name, not the IP). See {DOC}"
                ),
                edits,
            };
            report(cx, &META, index, entry, trap, out);
        }
    }
}
