//! VKE005 vke-ip-mode-changed: the annotation disagrees with the IP mode in the
//! Service's status; the mode cannot be changed after creation.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::model::EntryKind;
use crate::profile::Provider;
use crate::rules::{edit, Context, Rule};
use crate::views::Annotations;

use super::{valid_mode, IP_MODE, SEED_DOC, VALID_MODES};

use crate::catalog::meta::VKE005 as META;

pub(crate) struct IpModeStatusMismatch;

impl Rule for IpModeStatusMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for entry in cx
            .model
            .entry_points
            .iter()
            .filter(|e| e.kind == EntryKind::Service)
        {
            let object = &ws.objects[entry.object];
            let annotation = Annotations::of(ws, object).entry(IP_MODE);
            let wanted = match annotation {
                Some((_, value)) => match valid_mode(value) {
                    Some(mode) => mode,
                    // VKE001 reports the value itself.
                    None => continue,
                },
                // No annotation means VIP, but only on a VKE Service.
                None if entry.provider == Some(Provider::Vke) => "VIP",
                None => continue,
            };
            let Some(service) = cx.views.service(entry.object) else {
                continue;
            };
            for status in service.ip_modes() {
                let Some(actual) = status.as_str() else {
                    continue;
                };
                if actual == wanted {
                    continue;
                }
                let status_location = ws.location(object, status.span());
                let (location, stated) = match annotation {
                    Some((_, value)) => (
                        ws.location(object, value.span()),
                        format!("sets `{IP_MODE}: {wanted}`"),
                    ),
                    None => (
                        status_location.clone(),
                        format!("has no `{IP_MODE}` annotation (the default is `VIP`)"),
                    ),
                };
                let message = format!(
                    "Service `{}` {stated} but its status reports `ipMode: {actual}`: the IP mode cannot be \
                     changed after the Service is created, so applying this manifest does not switch the mode. \
                     (lblint reads the mode VKE applied from `status.loadBalancer.ingress[].ipMode`, the upstream \
                     field the vendor's `status.ipMode` check refers to.)",
                    object.name()
                );
                let mut d = META
                    .diagnostic(Severity::Warning, location, message)
                    .with_help(format!(
                        "to keep the current mode, set `{IP_MODE}` to `{actual}`; to switch to `{wanted}`, delete \
                         and recreate the Service (its CLB and address may change). See {SEED_DOC}"
                    ));
                if annotation.is_some() {
                    d = d.with_related(
                        status_location,
                        format!("the live Service runs in `{actual}` mode"),
                    );
                }
                let mut d = d.on(object);
                if let (Some((_, value)), true) = (annotation, VALID_MODES.contains(&actual)) {
                    d = d.with_fix(edit::replace_scalar(
                        ws,
                        object,
                        value,
                        actual,
                        format!("set `{IP_MODE}` back to `{actual}`, the mode the Service has"),
                        Applicability::Unsafe,
                    ));
                }
                out.push(d);
            }
        }
    }
}
