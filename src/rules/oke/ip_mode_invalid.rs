//! OKE001 oke-ip-mode-invalid: `oci.oraclecloud.com/ingress-ip-mode` set to a value the
//! controller rejects.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::profile::Provider;
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::rules::family::proxy_protocol::oke::{valid, DOC, INGRESS_IP_MODE};

use crate::catalog::meta::OKE001 as META;

pub(crate) struct IpModeInvalid;

impl Rule for IpModeInvalid {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, _, service) in services_of(cx, Provider::Oke) {
            let Some((_, value)) = Annotations::of(ws, service).entry(INGRESS_IP_MODE) else {
                continue;
            };
            if value.as_str().is_some_and(valid) {
                continue;
            }
            let shown = value
                .as_str()
                .map_or_else(|| "a non-string value".to_string(), |v| format!("`{v}`"));
            let d = META
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
