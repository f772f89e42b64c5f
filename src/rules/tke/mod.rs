//! Tencent Kubernetes Engine (TKE): CLB loopback rules.
//! Source: Tencent Cloud, "Guide to CLB Loopback"
//! (<https://www.tencentcloud.com/document/product/457/42976>) and the TKE documentation that
//! rules/TKE001.md to TKE014.md cite.

pub(crate) mod l4_loopback;
pub(crate) mod service_config;
pub(crate) mod tradeoffs;

pub(crate) const PREVENT_LOOPBACK: &str = "service.cloud.tencent.com/prevent-loopback";
pub(crate) const SEED_DOC: &str = "https://www.tencentcloud.com/document/product/457/42976";
pub(crate) mod l7_loopback;
pub(crate) mod prevent_loopback;
pub(crate) mod snat;

/// The ingress-controller release that reads `l7Listeners[].snatEnable` (rules/TKE006.md).
pub(crate) const L7_SNAT_FIELD_SINCE: &str = "v2.9.0";
use crate::model::Fit;
use crate::profile::{NodePool, NodeType, Profile};
use crate::views::tke::Listener;
use crate::views::IngressView;

/// Does the pool hold regular or native nodes, the ones that loop back? A pool whose `type`
/// the profile does not state is unknown, never "no" (super nodes are the only exception
/// TKE documents, and nothing says this pool is one).
pub(crate) fn regular_or_native(pool: &NodePool) -> Fit {
    match pool.node_type {
        Some(NodeType::Regular | NodeType::Native) => Fit::Yes,
        Some(NodeType::Super) => Fit::No,
        None => Fit::Unknown,
    }
}

/// The profile field that would settle whether the nodes loop back: `spec.nodePools` when
/// the profile lists none, else the `type` of the pools that lack one, by name.
pub(crate) fn node_type_unknown(profile: &Profile) -> String {
    const WHY: &str = "super nodes intercept the CLB VIP and do not loop back";
    let untyped: Vec<String> = profile
        .node_pools()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.node_type.is_none())
        .map(|(i, p)| match &p.name {
            Some(name) => format!("`{name}`"),
            None => format!("#{}", i + 1),
        })
        .collect();
    if untyped.is_empty() {
        profile
            .fact(&["spec", "nodePools"], profile.node_pools())
            .unknown(WHY)
    } else {
        format!(
            "`spec.nodePools[].type` of pool {} (regular, native or super; {WHY})",
            untyped.join(", ")
        )
    }
}

/// The CLB listeners an Ingress gets: HTTP:80, plus HTTPS:443 when it has TLS.
pub(crate) fn ingress_listeners(ingress: Option<&IngressView<'_>>) -> Vec<(&'static str, i64)> {
    let mut out = vec![("HTTP", 80)];
    if ingress.is_some_and(IngressView::has_tls) {
        out.push(("HTTPS", 443));
    }
    out
}

/// The listener section for a protocol and port, if the config has one.
pub(crate) fn listener_for<'w>(
    listeners: &[Listener<'w>],
    protocol: &str,
    port: i64,
) -> Option<Listener<'w>> {
    listeners.iter().copied().find(|l| l.is(protocol, port))
}
