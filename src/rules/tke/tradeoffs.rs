//! TKE012–TKE014: trade-offs of the vendor's loopback fixes, as notes (rules/TKE012.md to
//! TKE014.md).
//!
//! - SNAT on a layer-4 listener: the backend sees the CLB's address; UDP cannot get the
//!   real client IP back (TCP only through Proxy Protocol).
//! - SNAT on a layer-7 listener (`snatEnable: true`, or `keepaliveEnable: 1` on older
//!   controllers): the client IP comes from X-Forwarded-For, and nodes must allow the
//!   LB IP segment.
//! - `prevent-loopback: "true"`: in-cluster traffic no longer passes the CLB, so the CLB's
//!   capabilities (the Service's TkeServiceConfig settings) do not apply to it.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{EntryKind, Network};
use crate::profile::Provider;
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{PREVENT_LOOPBACK, SEED_DOC};
use crate::model::tke_config::{INGRESS_CONFIG_DOC, SERVICE_CONFIG_DOC};
use crate::profile::tke::INTERNAL_SUBNET;
use crate::views::tke::is_config;
use crate::views::tke::{listeners, Listener, Section};

use crate::catalog::meta::TKE012 as UDP_SNAT_META;

use crate::catalog::meta::TKE013 as L7_SNAT_META;

use crate::catalog::meta::TKE014 as BYPASS_META;

pub(crate) struct UdpSnat;

impl Rule for UdpSnat {
    fn meta(&self) -> &'static RuleMeta {
        &UDP_SNAT_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let configs = &cx.tke_configs;
        for (index, config) in ws.ids().filter(|(_, o)| is_config(o)) {
            for listener in listeners(ws, config, Section::L4) {
                let udp = listener
                    .protocol_str()
                    .is_some_and(|p| p.eq_ignore_ascii_case("UDP"));
                let Some((key, _)) = listener.snat_on() else {
                    continue;
                };
                if !udp {
                    continue;
                }
                let mut d = UDP_SNAT_META
                    .diagnostic(
                        Severity::Note,
                        ws.location(config, key.span()),
                        format!(
                            "SNAT on UDP listener {} of TkeServiceConfig `{}`: the CLB replaces the client's \
                             source address with its own, and over UDP the real client IP cannot be obtained.",
                            listener.label(),
                            config.name()
                        ),
                    )
                    .with_help(format!(
                        "fine if the backends do not need the client IP. If they do, use intra-cluster forwarding \
                         instead (`{PREVENT_LOOPBACK}: \"true\"` on the Service keeps the source IP), or have \
                         in-cluster clients call the Service by name; only TCP listeners can carry the client IP \
                         through Proxy Protocol. See {SEED_DOC}"
                    ));
                for (location, message) in configs.user_locations(index) {
                    d = d.with_related(location, message);
                }
                out.push(d.on(config));
            }
        }
    }
}

pub(crate) struct L7Snat;

impl Rule for L7Snat {
    fn meta(&self) -> &'static RuleMeta {
        &L7_SNAT_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let configs = &cx.tke_configs;
        for (index, config) in ws.ids().filter(|(_, o)| is_config(o)) {
            for listener in listeners(ws, config, Section::L7) {
                let Some((key, value)) = listener.l7_snat() else {
                    continue;
                };
                let setting = format!(
                    "{}: {}",
                    key.as_str().unwrap_or_default(),
                    value.as_str().unwrap_or_default()
                );
                let mut d = L7_SNAT_META
                    .diagnostic(
                        Severity::Note,
                        ws.location(config, key.span()),
                        format!(
                            "`{setting}` turns on SNAT for layer-7 listener {} of TkeServiceConfig `{}`: backends \
                             see the CLB's address as the source, and the real client IP is only in the \
                             X-Forwarded-For header.",
                            listener.label(),
                            config.name()
                        ),
                    )
                    .with_help(format!(
                        "read the client address from the X-Forwarded-For HTTP header in the backends, and make sure \
                         the nodes' security group allows traffic from the load balancer's IP segment (the older \
                         guide names 100.127.0.0/16, or \"allow by default\" on the CLB security group). See \
                         {SEED_DOC} and {INGRESS_CONFIG_DOC}"
                    ));
                for (location, message) in configs.user_locations(index) {
                    d = d.with_related(location, message);
                }
                out.push(d.on(config));
            }
        }
    }
}

pub(crate) struct PreventLoopbackBypass;

/// CLB settings of an l4 listener that in-cluster traffic will not get:
/// (key node, description).
fn clb_features<'w>(listener: &Listener<'w>) -> Vec<(NodeRef<'w>, &'static str)> {
    let mut out = Vec::new();
    if let Some(key) = listener.session_on() {
        out.push((key, "session persistence"));
    }
    if let Some(key) = listener.health_check_on() {
        out.push((key, "health check"));
    }
    if let Some((key, _)) = listener.scheduler {
        out.push((key, "scheduler"));
    }
    out
}

impl Rule for PreventLoopbackBypass {
    fn meta(&self) -> &'static RuleMeta {
        &BYPASS_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for entry in &cx.model.entry_points {
            if entry.kind != EntryKind::Service
                || entry.network != Network::Private
                || entry.provider != Some(Provider::Tke)
            {
                continue;
            }
            let service = &ws.objects[entry.object];
            if Annotations::of(ws, service)
                .entry(INTERNAL_SUBNET)
                .is_none()
            {
                continue;
            }
            let Some((key, _)) = Annotations::of(ws, service)
                .entry(PREVENT_LOOPBACK)
                .filter(|(_, v)| v.as_str().is_some_and(|v| v == "true"))
            else {
                continue;
            };
            // Where TKE004 says prevent-loopback cannot work, calls do not bypass the CLB.
            if matches!(
                super::prevent_loopback::binding(cx),
                super::prevent_loopback::Binding::Unsupported(_)
            ) {
                continue;
            }
            let Some(config) = cx.tke_configs.config_for(entry.object) else {
                continue;
            };
            let features: Vec<(NodeRef<'_>, &'static str, String)> =
                listeners(ws, config, Section::L4)
                    .into_iter()
                    .flat_map(|l| {
                        let label = l.label();
                        clb_features(&l)
                            .into_iter()
                            .map(move |(k, what)| (k, what, label.clone()))
                    })
                    .collect();
            if features.is_empty() {
                continue;
            }
            let mut kinds: Vec<&str> = features.iter().map(|(_, what, _)| *what).collect();
            kinds.sort_unstable();
            kinds.dedup();
            let mut d = BYPASS_META
                .diagnostic(
                    Severity::Note,
                    ws.location(service, key.span()),
                    format!(
                        "With `{PREVENT_LOOPBACK}: \"true\"`, in-cluster calls to Service `{}` bypass the CLB, so \
                         the {} settings of TkeServiceConfig `{}` apply only to traffic from outside the cluster.",
                        service.name(),
                        kinds.join(", "),
                        config.name()
                    ),
                )
                .with_help(format!(
                    "nothing to change if in-cluster clients do not rely on these CLB settings; if they do, use \
                     SNAT on the layer-4 listeners (`snatEnable: true`, needs the CLB Layer 4 SNAT allowlist) \
                     instead of intra-cluster forwarding: with SNAT the traffic passes the CLB and keeps its \
                     capabilities. See {SEED_DOC} and {SERVICE_CONFIG_DOC}"
                ));
            for (feature_key, what, label) in features {
                d = d.with_related(
                    ws.location(config, feature_key.span()),
                    format!("{what} of listener {label} applies only to traffic through the CLB"),
                );
            }
            out.push(d.on(service));
        }
    }
}
