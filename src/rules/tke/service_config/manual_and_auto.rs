//! TKE008 tke-service-config-manual-and-auto: both the manual and the auto annotation.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule};

use crate::catalog::meta::TKE008 as BOTH_META;

pub(crate) struct ManualAndAuto;

impl Rule for ManualAndAuto {
    fn meta(&self) -> &'static RuleMeta {
        &BOTH_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for reference in &cx.tke_configs.references {
            let (Some((manual_key, _)), Some((auto_key, _))) = (reference.manual, reference.auto)
            else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let auto_name = reference.auto_name(ws).unwrap_or_default();
            let manual = reference.owner.manual_key();
            let auto = reference.owner.auto_key();
            let d = BOTH_META
                .diagnostic(
                    Severity::Error,
                    ws.location(owner, auto_key.span()),
                    format!(
                        "{kind} `{}` sets both `{manual}` and `{auto}: \"true\"`; TKE does not allow the two together.",
                        owner.name()
                    ),
                )
                .with_related(
                    ws.location(owner, manual_key.span()),
                    "the manual TkeServiceConfig reference",
                )
                .with_help(format!(
                    "keep one: remove `{auto}` to use the TkeServiceConfig you wrote, or remove `{manual}` to let \
                     the controller create and manage `{auto_name}`; see {}",
                    reference.owner.doc()
                ));
            out.push(d.on(owner));
        }
    }
}
