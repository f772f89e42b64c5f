//! SNAT on CLB listeners that will not take effect.
//! TKE005 tke-snat-allowlist: the account allowlist for the feature is off.
//! TKE006 tke-l7-snat-field-version: `snatEnable` on an ingress-controller before v2.9.0.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::objects::Object;
use crate::profile::version::at_least;
use crate::rules::{Context, Rule};
use crate::yaml::NodeRef;

use super::{L7_SNAT_FIELD_SINCE, SEED_DOC};
use crate::views::tke::{listeners, Section};

use crate::catalog::meta::TKE005 as ALLOWLIST_META;

use crate::catalog::meta::TKE006 as FIELD_META;

fn tke_configs<'w>(cx: &Context<'w>) -> impl Iterator<Item = &'w Object> {
    cx.ws
        .objects
        .iter()
        .filter(|o| o.kind() == "TkeServiceConfig" && o.group() == "cloud.tencent.com")
}

pub(crate) struct SnatAllowlist;

impl Rule for SnatAllowlist {
    fn meta(&self) -> &'static RuleMeta {
        &ALLOWLIST_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let allow = cx.profile.spec.allowlists.as_ref();
        for config in tke_configs(cx) {
            let mut report = |key: NodeRef<'_>, features: &[(&str, &str, Option<bool>)]| {
                let off: Vec<&(&str, &str, Option<bool>)> =
                    features.iter().filter(|f| f.2 == Some(false)).collect();
                let unknown: Vec<&(&str, &str, Option<bool>)> =
                    features.iter().filter(|f| f.2.is_none()).collect();
                let (severity, message) = if !off.is_empty() {
                    let names: Vec<String> = off
                        .iter()
                        .map(|f| format!("\"{}\" (`spec.allowlists.{}: false`)", f.0, f.1))
                        .collect();
                    (
                        Severity::Error,
                        format!(
                            "SNAT here will not take effect: the account does not have {} enabled.",
                            names.join(" and ")
                        ),
                    )
                } else if !unknown.is_empty() {
                    let names: Vec<String> =
                        unknown.iter().map(|f| format!("\"{}\"", f.0)).collect();
                    let fields: Vec<String> = unknown
                        .iter()
                        .map(|f| format!("`spec.allowlists.{}`", f.1))
                        .collect();
                    (
                        Severity::Note,
                        format!(
                            "SNAT here takes effect only once the account has {} enabled by ticket; set {} in the \
                             profile to check it.",
                            names.join(" and "),
                            fields.join(" and ")
                        ),
                    )
                } else {
                    return;
                };
                let mut d = ALLOWLIST_META
                    .diagnostic(severity, ws.location(config, key.span()), message)
                    .with_help(format!(
                        "submit a ticket to enable {} for the account, then record it in the profile's \
                         `spec.allowlists`. See {SEED_DOC}",
                        features.iter().map(|f| format!("\"{}\"", f.0)).collect::<Vec<_>>().join(" and ")
                    ));
                d = d.on(config);
                out.push(d);
            };
            for listener in listeners(ws, config, Section::L4) {
                if let Some((key, _)) = listener.snat_on() {
                    report(
                        key,
                        &[(
                            "CLB Layer 4 SNAT capability",
                            "clbL4Snat",
                            allow.and_then(|a| a.clb_l4_snat),
                        )],
                    );
                }
            }
            for listener in listeners(ws, config, Section::L7) {
                if let Some((key, _)) = listener.l7_snat() {
                    // Layer-7 SNAT needs both the L7 SNAT and the Keep Alive capability
                    // (rules/TKE005.md).
                    report(
                        key,
                        &[
                            (
                                "CLB Layer 7 SNAT capability",
                                "clbL7Snat",
                                allow.and_then(|a| a.clb_l7_snat),
                            ),
                            (
                                "Keep Alive capability",
                                "clbKeepAlive",
                                allow.and_then(|a| a.clb_keep_alive),
                            ),
                        ],
                    );
                }
            }
        }
    }
}

pub(crate) struct L7SnatFieldVersion;

impl Rule for L7SnatFieldVersion {
    fn meta(&self) -> &'static RuleMeta {
        &FIELD_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let version = cx.profile.ingress_controller().value;
        let supported = version.and_then(|v| at_least(v, L7_SNAT_FIELD_SINCE));
        if supported == Some(true) {
            return;
        }
        for config in tke_configs(cx) {
            for listener in listeners(ws, config, Section::L7) {
                let Some((key, value)) = listener.snat_on() else {
                    continue;
                };
                let (severity, message) = match (supported, version) {
                    (Some(false), Some(v)) => (
                        Severity::Error,
                        format!(
                            "`snatEnable` in l7Listeners is ignored by ingress-controller {v} (profile \
                             `spec.addons.ingressController`{}): it is read from {L7_SNAT_FIELD_SINCE}; earlier \
                             controllers enable layer-7 SNAT with `keepaliveEnable: 1`.",
                            cx.profile.ingress_controller().at_line()
                        ),
                    ),
                    _ => (
                        Severity::Warning,
                        format!(
                            "`snatEnable` in l7Listeners works only with ingress-controller {L7_SNAT_FIELD_SINCE} or \
                             later; set `spec.addons.ingressController` in the profile to check it."
                        ),
                    ),
                };
                // The field this controller reads, in place: safe, since it is what
                // `snatEnable` was written to mean.
                let fix = (severity == Severity::Error).then(|| Fix {
                    description: "use `keepaliveEnable: 1`, the field this controller reads"
                        .to_string(),
                    applicability: Applicability::Safe,
                    edits: vec![Edit {
                        span: crate::source::Span {
                            start: key.span().start,
                            end: value.span().end,
                        },
                        content: "keepaliveEnable: 1".to_string(),
                    }],
                });
                let d = FIELD_META
                    .diagnostic(severity, ws.location(config, key.span()), message)
                    .with_help(format!(
                        "upgrade the ingress-controller to {L7_SNAT_FIELD_SINCE} or later, or use `keepaliveEnable: 1` \
                         (check the version with `kubectl -n kube-system get cm tke-ingress-controller-config -o \
                         jsonpath='{{.data.VERSION}}'`). See {SEED_DOC}"
                    ))
                    .with_fix(fix)
                    .on(config);
                out.push(d);
            }
        }
    }
}
