//! HETZNER003 hetzner-ipvs-private-ingress: a load balancer on the private network whose
//! private IP the controller reports in the status, which loops IPVS.
//!
//! The controller attaches every load balancer to its network when `HCLOUD_NETWORK` is set
//! (`internal/hcops/load_balancer.go` `attachToNetwork`; `use-private-ip: "true"` without a
//! network is an error), and `buildLoadBalancerStatusIngress` (`hcloud/load_balancers.go`)
//! reports the private IPs unless private ingress is disabled, by the Service's
//! `disable-private-ingress` (Go's `strconv.ParseBool`) or else by
//! HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS (unset: enabled).

use crate::catalog::RuleMeta;
use crate::diagnostic::{Diagnostic, Severity};
use crate::objects::Object;
use crate::profile::{Provider, ProxyMode};
use crate::rules::family::proxy_protocol::hetzner::refused_bool;
use crate::rules::family::proxy_protocol::rejected;
use crate::rules::select::services_of;
use crate::rules::{Context, Rule};
use crate::views::Annotations;
use crate::yaml::NodeRef;

use super::{DISABLE_PRIVATE_INGRESS, USE_PRIVATE_IP};

use crate::catalog::meta::HETZNER003 as META;

pub(crate) struct IpvsPrivateIngress;

/// Whether the load balancer is on the network, where the finding points, and (when the
/// profile does not say) the field the verdict hangs on.
struct Attached<'w> {
    at: NodeRef<'w>,
    unknown: Option<String>,
}

impl Rule for IpvsPrivateIngress {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
        let ws = cx.ws;
        let mode = cx.profile.kube_proxy_mode();
        if !matches!(mode.value, Some(ProxyMode::Ipvs) | None) {
            return;
        }
        for (_, entry, service) in services_of(cx, Provider::Hetzner) {
            let view = Annotations::of(ws, service);
            let default_off = || cx.profile.ccm_disable_private_ingress().value == Some(true);
            match view.go_bool(DISABLE_PRIVATE_INGRESS) {
                Some(Ok(true)) => continue,
                Some(Err(_)) => {
                    if let Some(r) = refused_bool(
                        cx,
                        service,
                        DISABLE_PRIVATE_INGRESS,
                        "hcloud/loadBalancers.getLoadBalancerStatusIngress",
                    ) {
                        out.push(rejected(ws, &META, service, r));
                    }
                    continue;
                }
                None if default_off() => continue,
                _ => {}
            }
            let Some(service_type) = cx
                .views
                .service(entry.object)
                .and_then(|s| s.service_type())
            else {
                continue;
            };
            let Some(attached) = attached(cx, service, service_type) else {
                continue;
            };
            let mut unknown: Vec<String> = attached.unknown.into_iter().collect();
            if mode.value.is_none() {
                unknown.push(format!(
                    "whether kube-proxy runs in IPVS mode (`{}`)",
                    mode.field()
                ));
            }
            let (severity, when) = if unknown.is_empty() {
                (
                    Severity::Error,
                    format!(
                        "kube-proxy runs in IPVS mode (profile `{}`{})",
                        mode.field(),
                        mode.at_line()
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "if so, and the profile does not state {}",
                        unknown.join(", nor ")
                    ),
                )
            };
            out.push(finding(cx, service, attached.at, severity, &when));
        }
    }
}

/// The load balancer is on the network: the Service asks for its private IP
/// (`use-private-ip`, which needs the network), or the profile says HCLOUD_NETWORK is set;
/// unstated, it may be.
fn attached<'w>(
    cx: &Context<'w>,
    service: &Object,
    service_type: NodeRef<'w>,
) -> Option<Attached<'w>> {
    let view = Annotations::of(cx.ws, service);
    if view.go_bool(USE_PRIVATE_IP) == Some(Ok(true)) {
        let (at, _) = view.entry(USE_PRIVATE_IP)?;
        return Some(Attached { at, unknown: None });
    }
    let network = cx.profile.ccm_private_network();
    match network.value {
        Some(true) => Some(Attached {
            at: service_type,
            unknown: None,
        }),
        Some(false) => None,
        None => Some(Attached {
            at: service_type,
            unknown: Some(format!(
                "whether the controller runs with HCLOUD_NETWORK (`{}`)",
                network.field()
            )),
        }),
    }
}

fn finding(
    cx: &Context<'_>,
    service: &Object,
    at: NodeRef<'_>,
    severity: Severity,
    when: &str,
) -> Diagnostic {
    let disabled = cx.profile.ccm_disable_private_ingress();
    let default = if disabled.value.is_none() {
        format!(
            " (assuming the controller's default, private ingress on; state `{}` if it runs with \
             HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS)",
            disabled.field()
        )
    } else {
        String::new()
    };
    META.diagnostic(
        severity,
        cx.ws.location(service, at.span()),
        format!(
            "The load balancer of Service `{}` is on the private network and its private IP is in the Service's \
             status{default}; {when}: the network plugin puts that IP on the nodes' dummy interface, looping \
             IPVS, so the nodes never pass the load balancer's health checks.",
            service.name()
        ),
    )
    .with_help(format!(
        "add `{DISABLE_PRIVATE_INGRESS}: \"true\"` to the Service (or run the controller with \
         HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS=true and record it as \
         `spec.addons.cloudControllerManagerOptions.disablePrivateIngress: true`). See Hetzner, \
         docs/guides/load-balancer/private-networks.md"
    ))
    .on(service)
}
