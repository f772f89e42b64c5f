//! The LoadBalancer Service a Gateway API implementation creates for a Gateway, when that
//! Service is not in the manifests: its name, by each implementation's naming code, and the
//! annotations it will carry, which decide the cloud controller's verdict. Each is inferred
//! from the Gateway (and its GatewayClass, when linted), and the findings say so.
//!
//! Sources, per implementation (controller code; first release in brackets):
//! - Istio `pilot/pkg/config/kube/gateway/deploymentcontroller.go` and
//!   `gatewaycommon/gateway_utils.go` `GetDefaultName`: `<gateway>-<class>` [1.17.0],
//!   `gateway.istio.io/name-override`; `networking.istio.io/service-type`;
//!   `extractInfrastructureAnnotations`: `spec.infrastructure.annotations` when set [1.21.0],
//!   else the Gateway's own annotations; a single Hostname address is a manual Gateway
//!   (`IsManaged`), which gets no Service.
//! - Envoy Gateway `internal/infrastructure/kubernetes/proxy/resource.go`
//!   `ExpectedResourceHashedName`, `internal/utils/misc.go` `GetHashedName`:
//!   `envoy-<ns>-<name>-<sha256("ns/name")[:8]>` in `envoy-gateway-system` [v0.6.0];
//!   `translator.go` `infrastructureAnnotations` [v1.0.0].
//! - Contour's provisioner `internal/provisioner/model/names.go` `EnvoyServiceName`:
//!   `envoy-<gateway>` [v1.21.0]; infrastructure annotations [v1.28.0].
//! - NGINX Gateway Fabric `internal/framework/controller/resource.go`
//!   `CreateNginxResourceName`: `<gateway>-<class>` [v2.0.0], shortened past 63 characters.
//! - Cilium `operator/pkg/model/translation/gateway-api/translator.go`:
//!   `cilium-gateway-<gateway>`, shortened past 63 characters.
//! - Kong's operator: `dataplane-ingress-<dataplane>-<random>` (generateName), so no name.

use sha2::{Digest, Sha256};

use crate::objects::Workspace;
use crate::views::{Annotations, GatewayView, ServicePort, Views};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    Istio,
    EnvoyGateway,
    Contour,
    NginxGatewayFabric,
    Cilium,
    KongOperator,
}

impl Implementation {
    pub fn label(self) -> &'static str {
        match self {
            Implementation::Istio => "Istio",
            Implementation::EnvoyGateway => "Envoy Gateway",
            Implementation::Contour => "Contour's Gateway provisioner",
            Implementation::NginxGatewayFabric => "NGINX Gateway Fabric",
            Implementation::Cilium => "Cilium",
            Implementation::KongOperator => "Kong's Gateway operator",
        }
    }

    /// By the GatewayClass's `spec.controllerName`, as each implementation defaults it.
    fn by_controller(name: &str) -> Option<Implementation> {
        Some(match name {
            "istio.io/gateway-controller" => Implementation::Istio,
            "gateway.envoyproxy.io/gatewayclass-controller" => Implementation::EnvoyGateway,
            "projectcontour.io/gateway-controller" => Implementation::Contour,
            "gateway.nginx.org/nginx-gateway-controller" => Implementation::NginxGatewayFabric,
            "io.cilium/gateway-controller" => Implementation::Cilium,
            "konghq.com/gateway-operator" => Implementation::KongOperator,
            _ => return None,
        })
    }

    /// By a class name only one implementation installs by default (Istio's built-in
    /// `istio`, the `cilium` class Cilium's chart creates, NGINX Gateway Fabric's `nginx`,
    /// Envoy Gateway's quickstart `eg`). Contour's `contour` is left out: the static
    /// Contour install uses it too, and its Service is in the manifests.
    fn by_class_name(class: &str) -> Option<Implementation> {
        Some(match class {
            "istio" => Implementation::Istio,
            "eg" => Implementation::EnvoyGateway,
            "nginx" => Implementation::NginxGatewayFabric,
            "cilium" => Implementation::Cilium,
            _ => return None,
        })
    }
}

/// The Service an implementation creates for one Gateway.
#[derive(Clone, Debug)]
pub struct InferredService<'w> {
    pub implementation: Implementation,
    /// How the implementation was told, for the message: "GatewayClass `eg` (controllerName
    /// `…`)" or "class name `istio`".
    pub told_by: String,
    /// `None` where the implementation names it at random (Kong's operator).
    pub name: Option<String>,
    pub namespace: String,
    /// What the Service's annotations are copied from.
    pub annotations: Annotations<'w>,
    /// Where those are, in words: `spec.infrastructure.annotations` or `metadata.annotations`.
    pub annotations_from: &'static str,
    /// The Service is of type LoadBalancer (every implementation's default; Istio's
    /// `networking.istio.io/service-type` annotation changes it).
    pub load_balancer: bool,
}

impl<'w> InferredService<'w> {
    /// The Service's ports: one per distinct listener port, as each implementation builds
    /// them (the research's "Service ports": Istio `extractServicePorts` adds its
    /// `status-port` 15021 and makes every port TCP; Contour's provisioner drops UDP
    /// listeners; the others give a UDP listener a UDP port).
    pub fn ports(&self, gateway: &GatewayView<'w>) -> Vec<ServicePort<'w>> {
        let mut ports: Vec<ServicePort<'w>> = Vec::new();
        let mut add = |node, number, protocol| {
            if !ports
                .iter()
                .any(|p| p.port == Some(number) && p.protocol == protocol)
            {
                ports.push(ServicePort {
                    node,
                    port: Some(number),
                    node_port: None,
                    protocol,
                });
            }
        };
        // Istio's first port, shown at the first listener (it has no node of its own).
        if let (Implementation::Istio, Some(first)) =
            (self.implementation, gateway.listeners.first())
        {
            add(first.node, 15021, "TCP");
        }
        for listener in &gateway.listeners {
            let Some(number) = listener.port.and_then(|p| p.as_i64()) else {
                continue;
            };
            let udp = listener.protocol.and_then(|p| p.as_str()) == Some("UDP");
            match (self.implementation, udp) {
                (Implementation::Contour, true) => {}
                (Implementation::Istio, _) | (_, false) => add(listener.node, number, "TCP"),
                (_, true) => add(listener.node, number, "UDP"),
            }
        }
        ports
    }

    /// "Service `envoy-web-eg-1a2b3c4d` in `envoy-gateway-system`, which Envoy Gateway creates
    /// for it (inferred from GatewayClass `eg`)".
    pub fn describe(&self) -> String {
        let name = self
            .name
            .as_deref()
            .map_or_else(|| "a Service".to_string(), |n| format!("Service `{n}`"));
        format!(
            "{name} in `{}`, which {} creates for it (inferred from {})",
            self.namespace,
            self.implementation.label(),
            self.told_by
        )
    }
}

/// The Service the implementation of `gateway` creates, when lblint knows the
/// implementation (its GatewayClass's controller, or a default class name) and it creates
/// one.
pub fn inferred_service<'w>(
    ws: &'w Workspace,
    views: &Views<'w>,
    gateway: &GatewayView<'w>,
) -> Option<InferredService<'w>> {
    let class = gateway.class_name.and_then(|c| c.as_str())?;
    let declared = views.gateway_classes().find(|c| c.object.name() == class);
    let (implementation, told_by) = match declared {
        Some(declared) => {
            let controller = declared.controller_name?;
            (
                Implementation::by_controller(controller)?,
                format!("GatewayClass `{class}`, controllerName `{controller}`"),
            )
        }
        None => (
            Implementation::by_class_name(class)?,
            format!("the class name `{class}`; the GatewayClass is not in the manifests"),
        ),
    };
    let object = gateway.object;
    let own = Annotations::of(ws, object);
    let infrastructure = gateway.infrastructure_annotations;
    let (ns, gw) = (object.namespace(), object.name());
    let mut load_balancer = true;
    let (name, namespace) = match implementation {
        Implementation::Istio => {
            // A single Hostname address names an existing Service: no Service is created.
            if gateway.address_types.len() == 1 && gateway.address_types[0] == Some("Hostname") {
                return None;
            }
            load_balancer = own
                .text("networking.istio.io/service-type")
                .is_none_or(|t| t == "LoadBalancer");
            let name = own
                .non_empty("gateway.istio.io/name-override")
                .map_or_else(|| format!("{gw}-{class}"), str::to_string);
            (Some(name), ns.to_string())
        }
        Implementation::EnvoyGateway => (
            Some(format!("envoy-{}", hashed_name(&format!("{ns}/{gw}"), 48))),
            "envoy-gateway-system".to_string(),
        ),
        Implementation::Contour => (Some(format!("envoy-{gw}")), ns.to_string()),
        Implementation::NginxGatewayFabric => (dns_label(format!("{gw}-{class}")), ns.to_string()),
        Implementation::Cilium => (dns_label(format!("cilium-gateway-{gw}")), ns.to_string()),
        Implementation::KongOperator => (None, ns.to_string()),
    };
    // Istio falls back to the Gateway's own annotations; the others copy only these.
    let (annotations, annotations_from) = match (implementation, infrastructure) {
        (Implementation::Istio, None) => (own, "metadata.annotations"),
        _ => (
            Annotations::in_mapping(infrastructure),
            "spec.infrastructure.annotations",
        ),
    };
    Some(InferredService {
        implementation,
        told_by,
        name,
        namespace,
        annotations,
        annotations_from,
        load_balancer,
    })
}

/// Envoy Gateway's `GetHashedName`: `ns/name` with `/` as `-`, cut to `max` characters
/// (without a trailing `-`), then `-` and the first 8 hex digits of the SHA-256 of the
/// uncut `ns/name`.
fn hashed_name(ns_name: &str, max: usize) -> String {
    let digest = Sha256::digest(ns_name.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let mut name = ns_name.replace('/', "-");
    if name.len() > max {
        name.truncate(max);
        while name.ends_with('-') {
            name.pop();
        }
    }
    format!("{name}-{hash}")
}

/// A name that fits a DNS label as is; a longer one the implementation shortens with a
/// hash, which lblint does not compute (`None`).
fn dns_label(name: String) -> Option<String> {
    (name.len() <= 63).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envoy_gateway_names_match_its_documented_examples() {
        // https://gateway.envoyproxy.io/docs/tasks/quickstart/ names default/eg's Service so.
        assert_eq!(hashed_name("default/eg", 48), "default-eg-e41e7b31");
        let long = format!("default/{}", "a".repeat(60));
        let cut = hashed_name(&long, 48);
        assert_eq!(cut.len(), 48 + 9);
        assert!(cut.starts_with("default-aaaa"));
    }
}
