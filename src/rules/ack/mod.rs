//! Alibaba Cloud ACK / ASM: `externalTrafficPolicy: Local` and ENI backends.
//! Source: Alibaba Cloud ASM, "pods cannot access the CLB address of an ingress gateway"
//! (seed 003) and provider-facts §0.3, §3, §4.2.

pub mod eni_needs_terway;
pub mod eni_with_local_policy;
pub mod gateway_namespace;
pub mod local_policy_in_cluster;

use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryKind, EntryPoint, Fit};
use crate::objects::{pod_template, Object, Workspace};
use crate::profile::{Provider, ProxyMode};
use crate::rules::{edit, Context, Rule, RuleMeta};
use crate::yaml::NodeRef;

/// Backend type annotation: `eni` adds pod ENIs to the CLB backend (Terway / inclusive ENI).
pub const BACKEND_TYPE: &str = "service.beta.kubernetes.io/backend-type";
pub const ISTIO_NAMESPACE: &str = "istio-system";
pub const SEED_DOC: &str = "https://www.alibabacloud.com/help/en/asm/support/how-to-do-if-the-kubernetes-cluster-pods-cannot-access-clb-address-in-ingress-gateway";
pub const GATEWAY_DOC: &str =
    "https://alibabacloud.com/help/en/asm/use-cases/define-a-custom-ingress-gateway-service-1694486964219";

fn is_istio_gateway(object: &Object) -> bool {
    object.kind() == "IstioGateway" && object.group() == "istio.alibabacloud.com"
}

/// `spec.externalTrafficPolicy` when it is `Local`.
fn local_policy<'w>(ws: &'w Workspace, object: &Object) -> Option<NodeRef<'w>> {
    ws.spec(object)
        .and_then(|s| s.get("externalTrafficPolicy"))
        .filter(|p| p.as_str() == Some("Local"))
}

/// `backend-type` as (key, value): a Service annotation, or an IstioGateway's
/// `spec.serviceAnnotations` entry.
fn backend_type<'w>(
    ws: &'w Workspace,
    object: &Object,
    kind: EntryKind,
) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
    match kind {
        EntryKind::Service => ws.annotation(object, BACKEND_TYPE),
        EntryKind::IstioGateway => ws
            .spec(object)?
            .get("serviceAnnotations")?
            .get_entry(BACKEND_TYPE),
        _ => None,
    }
}

/// Service or IstioGateway entry points whose provider may be ACK (not another vendor's).
fn ack_entries<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (usize, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EntryKind::Service | EntryKind::IstioGateway))
        .filter(|(_, e)| matches!(e.provider, Some(Provider::Ack) | None))
        .map(move |(i, e)| (i, e, &cx.ws.objects[e.object]))
}

fn to_cluster_fix(ws: &Workspace, object: &Object, policy: NodeRef<'_>) -> Option<Fix> {
    edit::replace_scalar(
        ws,
        object,
        policy,
        "Cluster",
        "set `externalTrafficPolicy: Cluster`".to_string(),
        // Backends then see a SNATed source address instead of the client's.
        Applicability::Unsafe,
    )
}

fn what(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => format!("IstioGateway `{}`", object.name()),
        _ => format!("LoadBalancer Service `{}`", object.name()),
    }
}

fn dns_name(entry: &EntryPoint, object: &Object) -> String {
    match entry.kind {
        EntryKind::IstioGateway => {
            "the gateway Service's DNS name (for the default ingress gateway `istio-ingressgateway.istio-system`)"
                .to_string()
        }
        _ => object.service_hosts_hint(),
    }
}
