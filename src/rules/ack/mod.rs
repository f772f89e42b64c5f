//! Alibaba Cloud ACK / ASM: `externalTrafficPolicy: Local` and ENI backends.
//! Source: Alibaba Cloud ASM, "pods cannot access the CLB address of an ingress gateway",
//! the Alibaba CCM's docs/usage.md and upstream kube-proxy (rules/ACK001.md to ACK004.md,
//! References).

pub mod eni_needs_terway;
pub mod eni_with_local_policy;
pub mod gateway_namespace;
pub mod local_policy_in_cluster;

use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::model::{Caller, EntryId, EntryKind, EntryPoint, Fit};
use crate::objects::{Object, Workspace};
use crate::profile::{CceFlavour, Provider, ProxyMode};
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

/// `spec.externalTrafficPolicy` of a Service or IstioGateway, when it is `Local`.
fn local_policy<'w>(cx: &Context<'w>, entry: &EntryPoint) -> Option<NodeRef<'w>> {
    let views = &cx.views;
    let policy = match entry.kind {
        EntryKind::Service => views.service(entry.object)?.external_traffic_policy,
        EntryKind::IstioGateway => views.istio_gateway(entry.object)?.external_traffic_policy,
        _ => None,
    };
    policy.filter(|p| p.as_str() == Some("Local"))
}

/// `backend-type` as (key, value): a Service annotation, or an IstioGateway's
/// `spec.serviceAnnotations` entry.
fn backend_type<'w>(cx: &Context<'w>, entry: &EntryPoint) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
    match entry.kind {
        EntryKind::Service => cx.ws.annotation(&cx.ws.objects[entry.object], BACKEND_TYPE),
        EntryKind::IstioGateway => cx
            .views
            .istio_gateway(entry.object)?
            .service_annotations?
            .get_entry(BACKEND_TYPE),
        _ => None,
    }
}

/// Service or IstioGateway entry points whose provider may be ACK (not another vendor's).
fn ack_entries<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object)> + 'c {
    cx.model
        .entries()
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
