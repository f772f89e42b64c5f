//! TKE009 tke-service-config-reserved-name: a manual name with a suffix reserved for
//! auto configs.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule};

use super::name_value;
use crate::model::tke_config::{same_namespace, INGRESS_AUTO_SUFFIX, SERVICE_AUTO_SUFFIX};

use crate::catalog::meta::TKE009 as RESERVED_META;

pub(crate) struct ReservedName;

impl Rule for ReservedName {
    fn meta(&self) -> &'static RuleMeta {
        &RESERVED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let index = &cx.tke_configs;
        for reference in &index.references {
            let (Some(name), Some((_, value))) = (reference.manual_name(), reference.manual) else {
                continue;
            };
            let Some(suffix) = [SERVICE_AUTO_SUFFIX, INGRESS_AUTO_SUFFIX]
                .into_iter()
                .find(|s| name.ends_with(s))
            else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let stem = name.strip_suffix(suffix).unwrap_or(name);
            let stem = if stem.is_empty() { owner.name() } else { stem };
            let mut d = RESERVED_META
                .diagnostic(
                    Severity::Error,
                    ws.location(owner, value.span()),
                    format!(
                        "{kind} `{}` names TkeServiceConfig `{name}` manually, but names ending in `{suffix}` \
                         are reserved for the configs the controller creates.",
                        owner.name()
                    ),
                )
                .with_help(format!(
                    "rename the TkeServiceConfig and this value to a name without the suffix (for example \
                     `{stem}-config`), or replace the annotation with `{}: \"true\"` to let the controller \
                     manage `{}{}`; see {}",
                    reference.owner.auto_key(),
                    owner.name(),
                    reference.owner.auto_suffix(),
                    reference.owner.doc()
                ));
            for (_, config) in index.named(name).filter(|(_, c)| same_namespace(owner, c)) {
                if let Some(n) = name_value(ws, config) {
                    d = d.with_related(
                        ws.location(config, n.span()),
                        "the TkeServiceConfig to rename",
                    );
                }
            }
            out.push(d.on(owner));
        }
    }
}
