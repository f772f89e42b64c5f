//! TKE007 tke-service-config-missing: the TkeServiceConfig a Service or Ingress names is
//! not in its namespace in these manifests.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::{Object, ObjectId};
use crate::rules::{Context, Rule};

use crate::model::tke_config::same_namespace;

use crate::catalog::meta::TKE007 as MISSING_META;

pub(crate) struct MissingConfig;

impl Rule for MissingConfig {
    fn meta(&self) -> &'static RuleMeta {
        &MISSING_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let index = &cx.tke_configs;
        for reference in &index.references {
            // The controller creates auto configs: a missing one is expected.
            let Some(name) = reference.manual_name() else {
                continue;
            };
            let Some((_, value)) = reference.manual else {
                continue;
            };
            let owner = &ws.objects[reference.object];
            let kind = reference.owner.label();
            let all: Vec<(ObjectId, &Object)> = index.named(name).collect();
            if all.iter().any(|(_, c)| same_namespace(owner, c)) {
                continue;
            }
            let location = ws.location(owner, value.span());
            let doc = reference.owner.doc();
            let ns = owner.namespace();
            let d = if all.is_empty() {
                MISSING_META
                    .diagnostic(
                        Severity::Note,
                        location,
                        format!(
                            "TkeServiceConfig `{name}` named by {kind} `{}` is not in these manifests. \
                             It may be created elsewhere; it must exist in namespace `{ns}`.",
                            owner.name()
                        ),
                    )
                    .with_help(format!(
                        "lint the TkeServiceConfig `{name}` (namespace `{ns}`) together with this {kind}, or check \
                         that it exists in the cluster; see {doc}"
                    ))
            } else {
                let others: Vec<&str> = all.iter().map(|(_, c)| c.namespace()).collect();
                let mut d = MISSING_META
                    .diagnostic(
                        Severity::Error,
                        location,
                        format!(
                            "TkeServiceConfig `{name}` named by {kind} `{}` is in namespace `{}`, not `{ns}`: \
                             TKE reads it only from the {kind}'s own namespace.",
                            owner.name(),
                            others.join("`, `")
                        ),
                    )
                    .with_help(format!(
                        "set `metadata.namespace: {ns}` on TkeServiceConfig `{name}` (or create a copy in \
                         namespace `{ns}`); see {doc}"
                    ));
                for (_, config) in &all {
                    let span = ws
                        .written_namespace_node(config)
                        .unwrap_or_else(|| ws.name_node(config))
                        .span();
                    d = d.with_related(
                        ws.location(config, span),
                        format!(
                            "TkeServiceConfig `{name}` is in namespace `{}`",
                            config.namespace()
                        ),
                    );
                }
                d
            };
            out.push(d.on(owner));
        }
    }
}
