//! CCE003 cce-mixed-pass-through: Services on one ELB that disagree on pass-through under
//! IPVS.

use std::collections::BTreeMap;

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::Object;
use crate::profile::{Provider, ProxyMode};
use crate::rules::family::local_policy::{CCE_PASS_THROUGH as PASS_THROUGH, CCE_PASS_THROUGH_ON};
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{BEST_PRACTICE, ELB_ID};

use crate::catalog::meta::CCE003 as META;

pub(crate) struct MixedPassThrough;

/// One Service on a shared ELB: where to point, and its pass-through value as written.
struct OnElb<'w> {
    service: &'w Object,
    at: NodeRef<'w>,
    value: Option<&'w str>,
}

impl OnElb<'_> {
    fn on(&self) -> bool {
        self.value.is_some_and(|v| CCE_PASS_THROUGH_ON.contains(&v))
    }

    fn shown(&self) -> String {
        match self.value {
            Some(v) => format!("{}: \"{v}\"", self.service.id),
            None => format!("{}: not set", self.service.id),
        }
    }
}

impl Rule for MixedPassThrough {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let mode = cx.profile.kube_proxy_mode();
        let (severity, when) = match mode.value {
            Some(ProxyMode::Ipvs) => (
                Severity::Error,
                format!(
                    "kube-proxy runs in IPVS mode (profile `{}`{})",
                    mode.field(),
                    mode.at_line()
                ),
            ),
            None => (
                Severity::Warning,
                format!(
                    "the cluster profile does not state `{}` (the constraint holds in IPVS mode)",
                    mode.field()
                ),
            ),
            Some(_) => return,
        };
        let mut by_elb: BTreeMap<&str, Vec<OnElb<'_>>> = BTreeMap::new();
        for (_, _, service) in services_of(cx, Provider::Cce) {
            let Some((id_key, id)) = Annotations::of(ws, service).entry(ELB_ID) else {
                continue;
            };
            let Some(id) = id.as_str().map(str::trim).filter(|id| !id.is_empty()) else {
                continue;
            };
            let written = Annotations::of(ws, service).entry(PASS_THROUGH);
            by_elb.entry(id).or_default().push(OnElb {
                service,
                at: written.map_or(id_key, |(key, _)| key),
                value: written.and_then(|(_, v)| v.as_str()),
            });
        }
        for (id, copies) in by_elb {
            // The same Service in several files (a base and its overlays) is one Service,
            // whose setting is known only when its copies agree.
            let mut by_service: BTreeMap<_, Vec<&OnElb<'_>>> = BTreeMap::new();
            for copy in &copies {
                by_service.entry(&copy.service.id).or_default().push(copy);
            }
            let settled: Vec<&OnElb<'_>> = by_service
                .values()
                .filter(|c| c.iter().all(|copy| copy.on() == c[0].on()))
                .map(|c| c[0])
                .collect();
            if !(settled.iter().any(|s| s.on()) && settled.iter().any(|s| !s.on())) {
                continue;
            }
            let settings: Vec<String> = settled.iter().map(|s| s.shown()).collect();
            for this in copies
                .iter()
                .filter(|c| settled.iter().any(|s| s.service.id == c.service.id))
            {
                let mut d = META
                    .diagnostic(
                        severity,
                        ws.location(this.service, this.at.span()),
                        format!(
                            "Service `{}` shares ELB `{id}` (`{ELB_ID}`) with Services whose `{PASS_THROUGH}` \
                             differs ({}), and {when}. Huawei: \"IPVS网络模式下，对接同一个ELB的Service需保持\
                             pass-through设置情况一致\" (in IPVS mode, the Services on one ELB must keep the same \
                             pass-through setting).",
                            this.service.name(),
                            settings.join(", ")
                        ),
                    )
                    .with_help(format!(
                        "give every Service on ELB `{id}` the same `{PASS_THROUGH}` value. See {BEST_PRACTICE}"
                    ));
                for other in settled.iter().filter(|o| o.service.id != this.service.id) {
                    d = d.with_related(
                        ws.location(other.service, other.at.span()),
                        format!(
                            "{} on the same ELB: pass-through {}",
                            other.service.id,
                            if other.on() { "on" } else { "off" }
                        ),
                    );
                }
                if let Some(at) = mode.location() {
                    d = d.with_related(
                        at,
                        "the cluster profile's kube-proxy mode decides the verdict",
                    );
                }
                out.push(d.on(this.service));
            }
        }
    }
}
