//! Alibaba Cloud ACK / ASM: ENI backends and ASM gateways. ACK001 (`externalTrafficPolicy:
//! Local` called in-cluster) is a member of the local-policy family
//! (`rules::family::local_policy`). Source: Alibaba Cloud ASM, "pods cannot access the CLB
//! address of an ingress gateway", the Alibaba CCM's docs/usage.md and upstream kube-proxy
//! (rules/ACK001.md to ACK004.md, References).

pub(crate) mod eni_needs_terway;
pub(crate) mod eni_with_local_policy;
pub(crate) mod gateway_namespace;

use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::Object;
use crate::profile::Provider;
use crate::rules::Context;
use crate::views::Annotations;
use crate::yaml::NodeRef;

use crate::rules::family::local_policy::{ACK_BACKEND_TYPE as BACKEND_TYPE, ACK_DOC as SEED_DOC};

pub(crate) const ISTIO_NAMESPACE: &str = "istio-system";
pub(crate) const GATEWAY_DOC: &str =
    "https://alibabacloud.com/help/en/asm/use-cases/define-a-custom-ingress-gateway-service-1694486964219";

fn is_istio_gateway(object: &Object) -> bool {
    object.kind() == "IstioGateway" && object.group() == "istio.alibabacloud.com"
}

/// `backend-type` as (key, value): a Service annotation, or an IstioGateway's
/// `spec.serviceAnnotations` entry.
fn backend_type<'w>(cx: &Context<'w>, entry: &EntryPoint) -> Option<(NodeRef<'w>, NodeRef<'w>)> {
    match entry.kind {
        EntryKind::Service => {
            Annotations::of(cx.ws, &cx.ws.objects[entry.object]).entry(BACKEND_TYPE)
        }
        EntryKind::IstioGateway => cx
            .views
            .istio_gateway(entry.object)?
            .service_annotations
            .map(|map| Annotations::in_mapping(Some(map)))?
            .entry(BACKEND_TYPE),
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
