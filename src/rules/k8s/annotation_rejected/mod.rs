//! K8S015 annotation-value-rejected: a load-balancer annotation whose value the cloud
//! controller refuses, so it does not reconcile the Service's load balancer. The finding
//! quotes the controller's own error, which is what its `SyncLoadBalancerFailed` event
//! shows. Values the PROXY-family rules read (DOKS001, LKE001, HETZNER001, SCALEWAY001,
//! CLOUDSCALE001, HETZNER003) and OKE001's `ingress-ip-mode` are reported by those rules;
//! this one holds the controllers' other annotations (rules/K8S015.md).

mod table;

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::EntryKind;
use crate::rules::{Context, Rule};
use crate::views::Annotations;

use crate::catalog::meta::K8S015 as META;
use table::{Reads, Service, CHECKS};

pub(crate) struct AnnotationValueRejected;

impl Rule for AnnotationValueRejected {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for (_, entry) in cx.model.entries() {
            let Some(provider) = entry.provider else {
                continue;
            };
            if entry.kind != EntryKind::Service
                || !cx
                    .views
                    .service(entry.object)
                    .is_some_and(|s| s.is_load_balancer())
            {
                continue;
            }
            let object = &ws.objects[entry.object];
            let service = Service {
                object,
                annotations: Annotations::of(ws, object),
                class: entry.class.as_deref().filter(|c| !c.is_empty()),
            };
            // `entry.provider` is the cloud that runs it: another cloud's annotation on this
            // cluster is ignored, not refused (src/model/entry.rs, `owner`).
            for check in CHECKS.iter().filter(|c| c.provider == provider) {
                let Some((_, value)) = service.annotations.entry(check.key) else {
                    continue;
                };
                // A value YAML does not read as a string is K8S002's.
                let Some(text) = value.as_str() else { continue };
                let Some(error) = (check.rejects)(check.key, text) else {
                    continue;
                };
                let (severity, unless) = match (check.reads)(cx, &service) {
                    Reads::No => continue,
                    // With no profile, only the annotations say it is that cloud's.
                    Reads::Yes if cx.profile.is_absent() => (
                        Severity::Warning,
                        " if this cluster runs it (no profile: set `spec.provider`)".to_owned(),
                    ),
                    Reads::Yes => (Severity::Error, String::new()),
                    Reads::Unknown(what) => (
                        Severity::Warning,
                        format!(
                            " if it reads the annotation for this Service, which hangs on {what}"
                        ),
                    ),
                };
                let message = format!(
                    "The {} refuses `{}: {text}`{unless}; it fails with `{error}`, and does not \
                     create or update the Service's load balancer (the Service's event: `{}`).",
                    check.controller, check.key, check.event,
                );
                out.push(
                    META.diagnostic(severity, ws.location(object, value.span()), message)
                        .on(object)
                        .with_help(format!(
                            "write one of the values it takes: {}. The controller parses it in {}",
                            check.accepts, check.parser
                        )),
                );
            }
        }
    }
}
