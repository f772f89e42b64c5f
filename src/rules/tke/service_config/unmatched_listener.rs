//! TKE010 tke-service-config-unmatched-listener: a listener section that matches no port or
//! listener.

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::Object;
use crate::rules::{Context, Rule};
use crate::yaml::NodeRef;

use super::{ingress_listeners, service_ports, tke_clb_ingress};
use crate::model::tke_config::{Owner, Reference};
use crate::views::tke::is_config;

use crate::catalog::meta::TKE010 as UNMATCHED_META;

pub(crate) struct UnmatchedListener;

impl Rule for UnmatchedListener {
    fn meta(&self) -> &'static RuleMeta {
        &UNMATCHED_META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let index = &cx.tke_configs;
        for (config_index, config) in ws.ids() {
            if !is_config(config) {
                continue;
            }
            for kind in [Owner::Service, Owner::Ingress] {
                let users: Vec<&Reference<'_>> = index
                    .users(config_index)
                    .filter(|r| r.owner == kind)
                    .collect();
                if users.is_empty() {
                    continue;
                }
                // The listeners of every user; a user whose listeners are unknown settles nothing.
                let mut listeners: Vec<(String, i64)> = Vec::new();
                let mut known = true;
                for user in &users {
                    let object = &ws.objects[user.object];
                    match kind {
                        Owner::Service => {
                            let ports = service_ports(cx, user.object);
                            known &= !ports.is_empty();
                            listeners.extend(ports);
                        }
                        Owner::Ingress => {
                            known &= tke_clb_ingress(ws, object);
                            listeners.extend(
                                ingress_listeners(cx.views.ingress(user.object))
                                    .into_iter()
                                    .map(|(p, n)| (p.to_string(), n)),
                            );
                        }
                    }
                }
                if !known {
                    continue;
                }
                listeners.sort();
                listeners.dedup();
                for section in crate::views::tke::listeners(ws, config, kind.section()) {
                    let Some((port_key, port_value)) = section.port else {
                        continue;
                    };
                    let (Some(port), Some(protocol)) =
                        (port_value.as_i64(), section.protocol_str())
                    else {
                        continue;
                    };
                    let protocol = protocol.to_ascii_uppercase();
                    if listeners.iter().any(|(p, n)| *p == protocol && *n == port) {
                        continue;
                    }
                    out.push(unmatched(
                        cx, config, kind, &users, &listeners, port_key, &protocol, port,
                    ));
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn unmatched(
    cx: &Context<'_>,
    config: &Object,
    kind: Owner,
    users: &[&Reference<'_>],
    listeners: &[(String, i64)],
    port_key: NodeRef<'_>,
    protocol: &str,
    port: i64,
) -> Diagnostic {
    let ws = cx.ws;
    let names: Vec<String> = users
        .iter()
        .map(|u| format!("`{}`", ws.objects[u.object].name()))
        .collect();
    let available: Vec<String> = listeners.iter().map(|(p, n)| format!("{p}:{n}")).collect();
    let what = match kind {
        Owner::Service => "port",
        Owner::Ingress => "listener",
    };
    let mut d = UNMATCHED_META
        .diagnostic(
            Severity::Warning,
            ws.location(config, port_key.span()),
            format!(
                "`{}` entry {protocol}:{port} of TkeServiceConfig `{}` matches no {what} of {} {} ({}), so it \
                 configures nothing: TKE matches sections to listeners by protocol and port and leaves the others unmodified.",
                kind.section().key(),
                config.name(),
                kind.label(),
                names.join(", "),
                available.join(", ")
            ),
        )
        .with_help(format!(
            "set `protocol` and `port` to one of {} or remove the entry; see {}",
            available.join(", "),
            kind.doc()
        ));
    for user in users {
        let object = &ws.objects[user.object];
        let span = match kind {
            Owner::Service => cx
                .views
                .service(user.object)
                .and_then(|s| s.ports_key())
                .map(|k| k.span()),
            Owner::Ingress => cx
                .views
                .ingress(user.object)
                .and_then(|i| i.tls.or(i.rules))
                .map(|(k, _)| k.span()),
        };
        let span = span
            .or_else(|| user.manual.or(user.auto).map(|(k, _)| k.span()))
            .unwrap_or_else(|| ws.root(object).span());
        let message = match kind {
            Owner::Service => format!("the ports of Service `{}`", object.name()),
            Owner::Ingress => format!(
                "Ingress `{}` gets the CLB listeners {}",
                object.name(),
                ingress_listeners(cx.views.ingress(user.object))
                    .iter()
                    .map(|(p, n)| format!("{p}:{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        d = d.with_related(ws.location(object, span), message);
        if let Some((key, value)) = user.manual.or(user.auto) {
            let node = if user.manual.is_some() { value } else { key };
            if node.span() != span {
                d = d.with_related(
                    ws.location(object, node.span()),
                    format!(
                        "{} `{}` uses this TkeServiceConfig",
                        kind.label(),
                        object.name()
                    ),
                );
            }
        }
    }
    d.on(config)
}
