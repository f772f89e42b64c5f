//! ACK004 ack-istio-gateway-namespace: an ASM IstioGateway outside `istio-system`.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{edit, Context, Rule};

use super::{is_istio_gateway, GATEWAY_DOC, ISTIO_NAMESPACE};

use crate::catalog::meta::ACK004 as META;

pub(crate) struct GatewayNamespace;

impl Rule for GatewayNamespace {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        for object in ws.objects.iter().filter(|o| is_istio_gateway(o)) {
            let namespace = ws.written_namespace_node(object);
            let help = format!(
                "set `metadata.namespace: {ISTIO_NAMESPACE}`: from Istio 1.6 an ASM gateway in another namespace \
                 fails to start. See {GATEWAY_DOC}"
            );
            let d = match namespace.and_then(|n| n.as_str().map(|s| (n, s))) {
                Some((_, ns)) if ns == ISTIO_NAMESPACE => continue,
                Some((node, ns)) => META
                    .diagnostic(
                            Severity::Error,
                            ws.location(object, node.span()),
                            format!(
                                "IstioGateway `{}` is in namespace `{ns}`, but ASM gateways must be in \
                                 `{ISTIO_NAMESPACE}`: a gateway elsewhere fails to start.",
                                object.name()
                            ),
                        )
                        .with_help(help)
                        .with_fix(edit::replace_scalar(
                            ws,
                            object,
                            node,
                            ISTIO_NAMESPACE,
                            format!("move the IstioGateway to `{ISTIO_NAMESPACE}`"),
                            // Applying it creates a new object; the old one stays until deleted.
                            Applicability::Unsafe,
                        )),
                None => {
                    let at = ws.name_node(object);
                    META.diagnostic(
                        Severity::Warning,
                        ws.location(object, at.span()),
                        format!(
                            "IstioGateway `{}` has no `metadata.namespace`, so it lands in the namespace it is \
                             applied to, and ASM gateways must be in `{ISTIO_NAMESPACE}`.",
                            object.name()
                        ),
                    )
                    .with_help(help)
                }
            };
            out.push(d.on(object));
        }
    }
}
