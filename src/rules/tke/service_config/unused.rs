//! TKE011 tke-service-config-unused: a TkeServiceConfig nothing in these manifests uses.

use std::collections::HashSet;

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::{Context, Rule};

use super::{name_value, namespace_note};
use crate::model::tke_config::{Owner, INGRESS_AUTO_SUFFIX, INGRESS_CONFIG};
use crate::model::tke_config::{SERVICE_AUTO_SUFFIX, SERVICE_CONFIG, SERVICE_CONFIG_DOC};
use crate::views::tke::is_config;

use crate::catalog::meta::TKE011 as UNUSED_META;

pub(crate) struct UnusedConfig;

impl Rule for UnusedConfig {
    fn meta(&self) -> &'static RuleMeta {
        &UNUSED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        // Names used from any namespace: a reference from another namespace is TKE007's
        // error, not an unused config.
        let used: HashSet<String> = cx
            .tke_configs
            .references
            .iter()
            .flat_map(|r| r.names(ws))
            .collect();
        for config in ws.objects.iter().filter(|o| is_config(o)) {
            if used.contains(config.name()) {
                continue;
            }
            let Some(name) = name_value(ws, config) else {
                continue;
            };
            let owner_hint = [
                (SERVICE_AUTO_SUFFIX, Owner::Service),
                (INGRESS_AUTO_SUFFIX, Owner::Ingress),
            ]
            .into_iter()
            .find_map(|(suffix, owner)| {
                config
                    .name()
                    .strip_suffix(suffix)
                    .filter(|s| !s.is_empty())
                    .map(|s| (s, owner))
            });
            let message = match owner_hint {
                Some((stem, owner)) => format!(
                    "TkeServiceConfig `{}` is the auto config of {} `{stem}`, but no {} `{stem}` with `{}: \"true\"` \
                     is in {} in these manifests.",
                    config.name(),
                    owner.label(),
                    owner.label(),
                    owner.auto_key(),
                    namespace_note(config)
                ),
                None => format!(
                    "No Service or Ingress in these manifests uses TkeServiceConfig `{}`.",
                    config.name()
                ),
            };
            let d = UNUSED_META
                .diagnostic(Severity::Note, ws.location(config, name.span()), message)
                .with_help(format!(
                    "reference it from a Service in {ns} with `{SERVICE_CONFIG}: {n}` or from an Ingress with \
                     `{INGRESS_CONFIG}: {n}`, or delete it if nothing uses it; see {SERVICE_CONFIG_DOC}",
                    ns = namespace_note(config),
                    n = config.name()
                ));
            out.push(d.on(config));
        }
    }
}
