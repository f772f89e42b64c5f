//! EKS003 eks-proxy-protocol-instance-local: PROXY v2 with instance targets and
//! `externalTrafficPolicy: Local`, which the controller's documentation advises against.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::{Object, Workspace};
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::views::ServiceView;
use crate::yaml::NodeRef;

use super::{instance_nlbs, key, LBC_DOC};

use crate::catalog::meta::EKS003 as META;

pub(crate) struct ProxyProtocolInstanceLocal;

impl Rule for ProxyProtocolInstanceLocal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (service, view) in instance_nlbs(cx) {
            let Some(local) = view
                .external_traffic_policy()
                .filter(|p| p.as_str() == Some("Local"))
            else {
                continue;
            };
            let proxy = proxy_protocol_key(ws, service, view);
            let Some(proxy) = proxy else {
                continue;
            };
            let d = META
                .diagnostic(
                    Severity::Warning,
                    ws.location(service, proxy.span()),
                    format!(
                        "Service `{}` turns on PROXY protocol v2 on an NLB with instance targets and \
                         `externalTrafficPolicy: Local`: the AWS Load Balancer Controller documents that \"you shouldn't \
                         configure proxy protocol v2 with NLB instance mode and externalTrafficPolicy set to Local\".",
                        service.name()
                    ),
                )
                .with_help(format!(
                    "use `{}: ip`, or `externalTrafficPolicy: Cluster`. See {LBC_DOC}",
                    key("nlb-target-type")
                ))
                .with_related(ws.location(service, local.span()), "`externalTrafficPolicy: Local` is set here")
                .on(service);
            out.push(d);
        }
    }
}

/// The annotation that turns PROXY protocol v2 on for a port of the Service, as the
/// controller reads them (pkg/service/model_build_target_group.go
/// `buildTargetGroupAttributes`): `aws-load-balancer-proxy-protocol: "*"`; else
/// `aws-load-balancer-proxy-protocol-per-target-group`, a comma-separated list of ports
/// (from v2.13.0, commit c80b61cb7); else `proxy_protocol_v2.enabled` in the target-group
/// attributes.
fn proxy_protocol_key<'w>(
    ws: &'w Workspace,
    service: &Object,
    view: &ServiceView<'_>,
) -> Option<NodeRef<'w>> {
    let annotations = Annotations::of(ws, service);
    if let Some(star) = annotations.key_if_in(&key("proxy-protocol"), &["*"]) {
        return Some(star);
    }
    if let Some((k, ports)) = annotations.text_entry(&key("proxy-protocol-per-target-group")) {
        let listed: Vec<i64> = ports
            .split(',')
            .filter_map(|p| p.trim().parse().ok())
            .collect();
        // The per-target-group list decides every port when it is written.
        return view
            .ports
            .iter()
            .any(|p| p.port.is_some_and(|n| listed.contains(&n)))
            .then_some(k);
    }
    let attributes = key("target-group-attributes");
    let on = annotations
        .lbc_string_map(&attributes)
        .is_some_and(|pairs| {
            pairs
                .iter()
                .any(|&(k, v)| k == "proxy_protocol_v2.enabled" && v == "true")
        });
    on.then(|| annotations.entry(&attributes).map(|(k, _)| k))
        .flatten()
}
