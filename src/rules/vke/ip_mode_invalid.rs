//! VKE001 vke-ip-mode-invalid: the IP-mode annotation has a value other than `VIP` or `Proxy`.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{edit, Context, Rule};
use crate::views::Annotations;

use super::{is_service, valid_mode, IP_MODE, SEED_DOC, VALID_MODES};

use crate::catalog::meta::VKE001 as META;

pub(crate) struct IpModeInvalid;

impl Rule for IpModeInvalid {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for object in ws.objects.iter().filter(|o| is_service(o)) {
            let Some((_, value)) = Annotations::of(ws, object).entry(IP_MODE) else {
                continue;
            };
            if valid_mode(value).is_some() {
                continue;
            }
            let shown = value
                .as_str()
                .map_or_else(|| "a non-string value".to_string(), |v| format!("`{v}`"));
            let near = value.as_str().and_then(|v| {
                VALID_MODES
                    .iter()
                    .find(|m| m.eq_ignore_ascii_case(v.trim()))
                    .copied()
            });
            let mut message = format!(
                "Service `{}` sets `{IP_MODE}` to {shown}, which is not a valid IP mode: the valid values are `VIP` (the default) and `Proxy`.",
                object.name()
            );
            if let Some(near) = near {
                message.push_str(&format!(
                    " lblint reads the values as case-sensitive, as the vendor spells them; did you mean `{near}`?"
                ));
            }
            let mut d = META
                .diagnostic(Severity::Error, ws.location(object, value.span()), message)
                .with_help(format!(
                    "set `{IP_MODE}` to `VIP` (kube-proxy keeps in-cluster traffic inside the cluster) or `Proxy` \
                     (all traffic passes through the CLB), or remove it for the default `VIP`; the mode cannot be \
                     changed after the Service is created. See {SEED_DOC}"
                ));
            if let Some(near) = near {
                d = d.with_fix(edit::replace_scalar(
                    ws,
                    object,
                    value,
                    near,
                    format!("set `{IP_MODE}` to `{near}`"),
                    // The mode is fixed at creation: an existing Service keeps its mode.
                    Applicability::Unsafe,
                ));
            }
            out.push(d.on(object));
        }
    }
}
