//! Volcengine Kubernetes Engine (VKE): the IP mode of LoadBalancer Services.
//! Source: Volcengine, "Configuring the IP mode of the LoadBalancer Service" (last updated
//! 2026-07-24; <https://www.volcengine.com/docs/6460>), KEP-1860 and
//! `volcengine/volcengine-cloud-controller-manager` docs/usage.md (rules/VKE001.md).

pub(crate) mod ip_mode_invalid;
pub(crate) mod ip_mode_not_load_balancer;
pub(crate) mod ip_mode_status_mismatch;
pub(crate) mod proxy_prerequisites;
pub(crate) mod proxy_same_node;

use crate::diagnostic::{Applicability, Fix};
use crate::model::{EntryId, EntryKind, EntryPoint};
use crate::objects::{Object, Workspace};
use crate::rules::{edit, Context};
use crate::views::Annotations;
use crate::yaml::NodeRef;

use crate::rules::family::kube_proxy::VKE_IP_MODE as IP_MODE;
/// The vendor doc's valid values, spelled as it spells them (`VIP` is the default).
pub(crate) const VALID_MODES: [&str; 2] = ["VIP", "Proxy"];
pub(crate) const SEED_DOC: &str =
    "Volcengine VKE, \"Configuring the IP mode of the LoadBalancer Service\"";

fn is_service(object: &Object) -> bool {
    object.kind() == "Service" && object.group().is_empty()
}

/// The annotation's value when it is one of the valid spellings.
fn valid_mode(value: NodeRef<'_>) -> Option<&str> {
    value.as_str().filter(|v| VALID_MODES.contains(v))
}

/// `Proxy` → `VIP`: unsafe, since the mode cannot be changed on an existing Service.
fn to_vip_fix(ws: &Workspace, object: &Object, value: NodeRef<'_>) -> Option<Fix> {
    edit::replace_scalar(
        ws,
        object,
        value,
        "VIP",
        format!("set `{IP_MODE}` to `VIP`"),
        Applicability::Unsafe,
    )
}

/// LoadBalancer Services with the annotation set to exactly `Proxy`, that the Volcengine
/// controller handles: one with a `loadBalancerClass` is another controller's, which
/// ignores the annotation (K8S012 says so).
fn proxy_services<'c>(
    cx: &'c Context<'_>,
) -> impl Iterator<Item = (EntryId, &'c EntryPoint, &'c Object, NodeRef<'c>)> + 'c {
    cx.model
        .entries()
        .filter(|(_, e)| {
            e.kind == EntryKind::Service && e.class.as_deref().is_none_or(str::is_empty)
        })
        .filter_map(move |(i, e)| {
            let object = &cx.ws.objects[e.object];
            let (_, value) = Annotations::of(cx.ws, object).entry(IP_MODE)?;
            (value.as_str() == Some("Proxy")).then_some((i, e, object, value))
        })
}
