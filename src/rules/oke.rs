//! Oracle OKE (rules/OKE001.md, OKE002.md). The opt-in `oci.oraclecloud.com/ingress-ip-mode`
//! annotation: OKE001, a value the controller rejects; OKE002, set on a cluster before
//! Kubernetes 1.30, where the ipMode field does not take effect. (TLS termination bypassed
//! in-cluster on OCI is KEP reasoning only, with no Oracle text, so it is not a rule.)

use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::proxy_protocol::services_of;
use crate::rules::upstream::{kubernetes_has_ip_mode, Gate};
use crate::rules::{Context, Rule, RuleMeta};

pub use crate::rules::meta::OKE001 as INVALID_META;
pub use crate::rules::meta::OKE002 as BEFORE_1_30_META;

pub const INGRESS_IP_MODE: &str = "oci.oraclecloud.com/ingress-ip-mode";
const DOC: &str = "Oracle, \"Specifying IP Mode for Load Balancers (Kubernetes version 1.30 or later)\", \
                   https://docs.oracle.com/iaas/releasenotes/conteng/conteng-LoadBalancer-IPMode-Release-Notes.htm";

/// `proxy` or `vip`, in any case (the controller's `getIngressIpMode`).
fn valid(value: &str) -> bool {
    value.eq_ignore_ascii_case("proxy") || value.eq_ignore_ascii_case("vip")
}

pub struct IpModeInvalid;

impl Rule for IpModeInvalid {
    fn meta(&self) -> &'static RuleMeta {
        &INVALID_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, _, service) in services_of(cx, Provider::Oke) {
            let Some((_, value)) = ws.annotation(service, INGRESS_IP_MODE) else {
                continue;
            };
            if value.as_str().is_some_and(valid) {
                continue;
            }
            let shown = value
                .as_str()
                .map_or_else(|| "a non-string value".to_string(), |v| format!("`{v}`"));
            let d = INVALID_META
                .diagnostic(
                    Severity::Error,
                    ws.location(service, value.span()),
                    format!(
                        "Service `{}` sets `{INGRESS_IP_MODE}` to {shown}: the OCI cloud controller accepts only \
                         `proxy` or `vip` (any case) and fails with \"IpMode can only be set as Proxy or VIP\".",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "set it to `proxy` (in-cluster calls then go through the load balancer) or `vip` (the \
                     default), or remove it. See {DOC}"
                ))
                .on(service);
            out.push(d);
        }
    }
}

pub struct IpModeBefore130;

impl Rule for IpModeBefore130 {
    fn meta(&self) -> &'static RuleMeta {
        &BEFORE_1_30_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let (severity, verdict) = match kubernetes_has_ip_mode(cx) {
            Gate::Yes => return,
            Gate::No(why) => (
                Severity::Error,
                format!("{why}, so kube-proxy still short-circuits in-cluster calls to the load balancer's IP"),
            ),
            Gate::Unknown(why) => (
                Severity::Warning,
                format!("whether it takes effect depends on {why}"),
            ),
        };
        for (_, _, service) in services_of(cx, Provider::Oke) {
            let Some((key, value)) = ws.annotation(service, INGRESS_IP_MODE) else {
                continue;
            };
            if !value
                .as_str()
                .is_some_and(|v| v.eq_ignore_ascii_case("proxy"))
            {
                continue;
            }
            let d = BEFORE_1_30_META
                .diagnostic(
                    severity,
                    ws.location(service, key.span()),
                    format!(
                        "`{INGRESS_IP_MODE}: proxy` on Service `{}` needs Kubernetes 1.30 or later: {verdict}.",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "upgrade the cluster to Kubernetes 1.30 or later (and state it as `spec.kubernetesVersion`), or \
                     have in-cluster clients call the Service by name. See {DOC}"
                ))
                .on(service);
            out.push(d);
        }
    }
}
