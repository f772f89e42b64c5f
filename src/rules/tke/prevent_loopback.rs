//! The prevent-loopback fix used where it cannot work.
//! TKE003 tke-prevent-loopback-l7: on an Ingress, or relied on for an Ingress through its
//! backend Services. TKE004 tke-prevent-loopback-kube-proxy: kube-proxy cannot bind LB
//! addresses to the IPVS NIC.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::{EntryKind, Network};
use crate::objects::{Object, ObjectId};
use crate::profile::tke_binding;
use crate::profile::{Provider, ProxyMode};
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use super::l7_loopback::{self, is_clb_ingress, l7_snat_on_every_listener};
use super::{L7_SNAT_FIELD_SINCE, PREVENT_LOOPBACK, SEED_DOC};

use crate::catalog::meta::TKE003 as L7_META;

use crate::catalog::meta::TKE004 as KUBE_PROXY_META;

fn is_true(value: Option<&str>) -> bool {
    value == Some("true")
}

pub(crate) struct PreventLoopbackL7;

impl Rule for PreventLoopbackL7 {
    fn meta(&self) -> &'static RuleMeta {
        &L7_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        for (index, entry) in cx.model.entries() {
            if !is_clb_ingress(entry) {
                continue;
            }
            let ingress = &cx.ws.objects[entry.object];
            on_ingress(cx, ingress, out);
            // On a backend Service, while the private Ingress in front of it has no SNAT.
            if entry.network != Network::Private || l7_snat_on_every_listener(cx, entry) {
                continue;
            }
            // The Ingress's own loopback verdict (TKE002): no loopback there, nothing relied on.
            let Some(ingress_verdict) = l7_loopback::diagnostic(cx, index, entry) else {
                continue;
            };
            for &service in &entry.services {
                if let Some(d) = on_backend(cx, ingress, service, ingress_verdict.severity()) {
                    out.push(d);
                }
            }
        }
    }
}

/// The annotation on the Ingress itself: no layer-7 controller reads it.
fn on_ingress(cx: &Context<'_>, ingress: &Object, out: &mut Vec<Diagnostic>) {
    let ws = cx.ws;
    let keys = Annotations::of(ws, ingress)
        .entries()
        .map(|(key, _)| key)
        .filter(|key| {
            key.as_str()
                .is_some_and(|k| k.ends_with("/prevent-loopback"))
        });
    for key in keys {
        let d = L7_META
            .diagnostic(
                Severity::Error,
                ws.location(ingress, key.span()),
                format!(
                    "`{}` on Ingress `{}` does nothing: intra-cluster forwarding is a layer-4 fix, and \
                     layer-7 loopback is resolved only by SNAT on the CLB.",
                    key.as_str().unwrap_or_default(),
                    ingress.name()
                ),
            )
            .with_help(format!(
                "remove the annotation and enable SNAT on every l7 listener through a TkeServiceConfig \
                 (`spec.loadBalancer.l7Listeners[].snatEnable: true` from ingress-controller \
                 {L7_SNAT_FIELD_SINCE}, `keepaliveEnable: 1` before). See {SEED_DOC}"
            ))
            .on(ingress);
        out.push(d);
    }
}

/// prevent-loopback on a backend Service of a private Ingress that loops back. On a
/// LoadBalancer Service the annotation does its layer-4 job; only the reliance on it for the
/// Ingress is wrong, and that is as sure as the Ingress's own loopback (rules/TKE003.md).
/// Elsewhere it cannot work at all.
fn on_backend(
    cx: &Context<'_>,
    ingress: &Object,
    service_index: ObjectId,
    ingress_severity: Severity,
) -> Option<Diagnostic> {
    let ws = cx.ws;
    let service = &ws.objects[service_index];
    let (key, value) = Annotations::of(ws, service).entry(PREVENT_LOOPBACK)?;
    if !is_true(value.as_str()) {
        return None;
    }
    let (severity, message) = if cx
        .views
        .service(service_index)
        .is_some_and(|v| v.is_load_balancer())
    {
        (
            ingress_severity,
            format!(
                "prevent-loopback on LoadBalancer Service `{}` covers calls to its own CLB, not to \
                 Ingress `{}`: calls to the Ingress host go through the layer-7 CLB, which only SNAT \
                 fixes.",
                service.name(),
                ingress.name()
            ),
        )
    } else {
        (
            Severity::Error,
            format!(
                "prevent-loopback on Service `{}` does not protect Ingress `{}`: calls to the Ingress \
                 host go through the layer-7 CLB, which only SNAT fixes.",
                service.name(),
                ingress.name()
            ),
        )
    };
    let d = L7_META
        .diagnostic(severity, ws.location(service, key.span()), message)
        .with_help(format!(
            "enable SNAT on the Ingress's l7 listeners through its TkeServiceConfig \
             (`ingress.cloud.tencent.com/tke-service-config`), or have clients call \
             {}. See {SEED_DOC}",
            service.service_hosts_hint()
        ))
        .with_related(
            ws.location(ingress, ws.root(ingress).span()),
            format!(
                "private-network CLB Ingress `{}` routes to this Service",
                ingress.name()
            ),
        )
        .on(service);
    Some(d)
}

pub(crate) enum Binding {
    Supported,
    Unsupported(String),
    Unknown(String),
}

/// Whether kube-proxy binds LB addresses: the profile's `lbAddressBinding`, else its
/// version read against TKE's table ([`crate::profile::tke_binding`]).
pub(crate) fn binding(cx: &Context<'_>) -> Binding {
    let (binding, stated) = (
        cx.profile.kube_proxy_lb_address_binding(),
        cx.profile.kube_proxy_version(),
    );
    match binding.value {
        Some(true) => return Binding::Supported,
        Some(false) => {
            return Binding::Unsupported(format!("the profile says `{}: false`", binding.field()))
        }
        None => {}
    }
    let Some(text) = stated.value else {
        return Binding::Unknown(format!(
            "the profile states neither `{}` nor `{}`",
            binding.field(),
            stated.field()
        ));
    };
    let at = format!(" (profile `{}`{})", stated.field(), stated.at_line());
    match tke_binding::binding(text) {
        tke_binding::Binding::Binds(_) => Binding::Supported,
        tke_binding::Binding::Older(why) => Binding::Unsupported(format!("{why}{at}")),
        tke_binding::Binding::Unknown(why) => Binding::Unknown(format!("{why}{at}")),
    }
}

pub(crate) struct PreventLoopbackKubeProxy;

impl Rule for PreventLoopbackKubeProxy {
    fn meta(&self) -> &'static RuleMeta {
        &KUBE_PROXY_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        // The annotation matters in IPVS mode only (iptables never sends pod traffic to the CLB).
        if matches!(cx.profile.proxy_mode(), Some(m) if m != ProxyMode::Ipvs) {
            return;
        }
        let verdict = binding(cx);
        let ws = cx.ws;
        for entry in &cx.model.entry_points {
            if entry.kind != EntryKind::Service || entry.provider != Some(Provider::Tke) {
                continue;
            }
            let service = &ws.objects[entry.object];
            let Some((key, value)) = Annotations::of(ws, service).entry(PREVENT_LOOPBACK) else {
                continue;
            };
            if !is_true(value.as_str()) {
                continue;
            }
            let (severity, message) = match &verdict {
                Binding::Supported => continue,
                Binding::Unsupported(why) => (
                    Severity::Error,
                    format!(
                        "prevent-loopback on Service `{}` will not work: {why}, so the CLB VIP is not intercepted \
                         and in-cluster calls still loop back.",
                        service.name()
                    ),
                ),
                Binding::Unknown(why) => (
                    Severity::Warning,
                    format!(
                        "prevent-loopback on Service `{}` works only if kube-proxy binds LB addresses to the IPVS NIC: \
                         {why}.",
                        service.name()
                    ),
                ),
            };
            let mut d = KUBE_PROXY_META
                .diagnostic(severity, ws.location(service, key.span()), message)
                .with_help(format!(
                    "upgrade the kube-proxy DaemonSet in kube-system to a build that supports binding LB addresses \
                     to the IPVS NIC ({}; TKE Kubernetes Revision Version History, \
                     https://intl.cloud.tencent.com/document/product/457/9315) and record its version in the \
                     profile, or `spec.kubeProxy.lbAddressBinding: true` if TKE confirms the build binds them; \
                     or use SNAT on the CLB listeners instead. See {SEED_DOC}",
                    tke_binding::SUPPORTED_BUILDS
                ));
            d = d.on(service);
            out.push(d);
        }
    }
}
