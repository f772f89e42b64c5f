//! Typed views of the objects rules read, built once per run: each field is the YAML node
//! it came from (so a finding can point at it), or `None` when the manifest does not write
//! it. Rules read these instead of walking raw YAML by string paths.

use crate::objects::{Object, ObjectId, Workspace};
use crate::yaml::NodeRef;

/// One `spec.ports[]` entry of a Service.
#[derive(Clone, Copy, Debug)]
pub struct ServicePort<'w> {
    pub node: NodeRef<'w>,
    pub port: Option<i64>,
    /// `TCP` when not written (the Kubernetes default), as written otherwise.
    pub protocol: &'w str,
}

impl ServicePort<'_> {
    pub fn protocol_is(&self, protocol: &str) -> bool {
        self.protocol.eq_ignore_ascii_case(protocol)
    }
}

/// One `status.loadBalancer.ingress[]` entry: what the cloud controller reported.
#[derive(Clone, Copy, Debug)]
pub struct LbIngress<'w> {
    pub ip: Option<NodeRef<'w>>,
    pub hostname: Option<NodeRef<'w>>,
    /// `VIP` or `Proxy` (KEP-1860), when reported.
    pub ip_mode: Option<NodeRef<'w>>,
}

/// A core `Service`.
#[derive(Clone, Debug)]
pub struct ServiceView<'w> {
    pub object: &'w Object,
    /// `spec.type`.
    pub service_type: Option<NodeRef<'w>>,
    /// The `ports` key, for pointing at the list.
    pub ports_key: Option<NodeRef<'w>>,
    pub ports: Vec<ServicePort<'w>>,
    pub selector: Option<NodeRef<'w>>,
    pub external_traffic_policy: Option<NodeRef<'w>>,
    pub internal_traffic_policy: Option<NodeRef<'w>>,
    pub load_balancer_class: Option<NodeRef<'w>>,
    pub status_ingress: Vec<LbIngress<'w>>,
}

impl<'w> ServiceView<'w> {
    /// The view of `object` when it is a core Service.
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<ServiceView<'w>> {
        if object.kind() != "Service" || !object.group().is_empty() {
            return None;
        }
        let spec = ws.spec(object);
        let field = |key: &str| spec.and_then(|s| s.get(key));
        let ports = field("ports")
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|node| ServicePort {
                node,
                port: node.get("port").and_then(|p| p.as_i64()),
                protocol: node
                    .get("protocol")
                    .and_then(|p| p.as_str())
                    .unwrap_or("TCP"),
            })
            .collect();
        let status_ingress = ws
            .root(object)
            .path(&["status", "loadBalancer", "ingress"])
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|entry| LbIngress {
                ip: entry.get("ip"),
                hostname: entry.get("hostname"),
                ip_mode: entry.get("ipMode"),
            })
            .collect();
        Some(ServiceView {
            object,
            service_type: field("type"),
            ports_key: spec.and_then(|s| s.get_entry("ports")).map(|(k, _)| k),
            ports,
            selector: field("selector"),
            external_traffic_policy: field("externalTrafficPolicy"),
            internal_traffic_policy: field("internalTrafficPolicy"),
            load_balancer_class: field("loadBalancerClass"),
            status_ingress,
        })
    }

    pub fn is_load_balancer(&self) -> bool {
        self.service_type.and_then(|t| t.as_str()) == Some("LoadBalancer")
    }

    /// The reported `ipMode` nodes.
    pub fn ip_modes(&self) -> impl Iterator<Item = NodeRef<'w>> + '_ {
        self.status_ingress.iter().filter_map(|i| i.ip_mode)
    }

    /// A status with a hostname and no IP anywhere: that hostname (nothing for kube-proxy to
    /// short-circuit).
    pub fn hostname_only(&self) -> Option<NodeRef<'w>> {
        if self.status_ingress.iter().any(|i| i.ip.is_some()) {
            return None;
        }
        self.status_ingress.iter().find_map(|i| i.hostname)
    }
}

/// A `networking.k8s.io` (or `extensions`) Ingress.
#[derive(Clone, Debug)]
pub struct IngressView<'w> {
    pub object: &'w Object,
    /// `spec.ingressClassName`.
    pub class_name: Option<NodeRef<'w>>,
    /// `spec.tls` and `spec.rules` as (key, value).
    pub tls: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub rules: Option<(NodeRef<'w>, NodeRef<'w>)>,
}

impl<'w> IngressView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IngressView<'w>> {
        if object.kind() != "Ingress"
            || !matches!(object.group(), "networking.k8s.io" | "extensions")
        {
            return None;
        }
        let spec = ws.spec(object);
        Some(IngressView {
            object,
            class_name: spec.and_then(|s| s.get("ingressClassName")),
            tls: spec.and_then(|s| s.get_entry("tls")),
            rules: spec.and_then(|s| s.get_entry("rules")),
        })
    }

    /// Whether `spec.tls` lists at least one entry (the CLB then gets an HTTPS listener).
    pub fn has_tls(&self) -> bool {
        self.tls
            .is_some_and(|(_, tls)| tls.items().next().is_some())
    }
}

/// An Alibaba Cloud Service Mesh `IstioGateway` (istio.alibabacloud.com).
#[derive(Clone, Debug)]
pub struct IstioGatewayView<'w> {
    pub object: &'w Object,
    pub external_traffic_policy: Option<NodeRef<'w>>,
    /// `spec.serviceAnnotations`: annotations ASM puts on the gateway's Service.
    pub service_annotations: Option<NodeRef<'w>>,
}

impl<'w> IstioGatewayView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IstioGatewayView<'w>> {
        if object.kind() != "IstioGateway" || object.group() != "istio.alibabacloud.com" {
            return None;
        }
        let spec = ws.spec(object);
        Some(IstioGatewayView {
            object,
            external_traffic_policy: spec.and_then(|s| s.get("externalTrafficPolicy")),
            service_annotations: spec.and_then(|s| s.get("serviceAnnotations")),
        })
    }
}

/// The views of a run, by object index.
#[derive(Debug, Default)]
pub struct Views<'w> {
    services: Vec<Option<ServiceView<'w>>>,
    ingresses: Vec<Option<IngressView<'w>>>,
    istio_gateways: Vec<Option<IstioGatewayView<'w>>>,
}

impl<'w> Views<'w> {
    pub fn build(ws: &'w Workspace) -> Views<'w> {
        Views {
            services: ws.objects.iter().map(|o| ServiceView::of(ws, o)).collect(),
            ingresses: ws.objects.iter().map(|o| IngressView::of(ws, o)).collect(),
            istio_gateways: ws
                .objects
                .iter()
                .map(|o| IstioGatewayView::of(ws, o))
                .collect(),
        }
    }

    /// The Service view of an object.
    pub fn service(&self, id: ObjectId) -> Option<&ServiceView<'w>> {
        self.services.get(id.0)?.as_ref()
    }

    pub fn ingress(&self, id: ObjectId) -> Option<&IngressView<'w>> {
        self.ingresses.get(id.0)?.as_ref()
    }

    pub fn istio_gateway(&self, id: ObjectId) -> Option<&IstioGatewayView<'w>> {
        self.istio_gateways.get(id.0)?.as_ref()
    }
}
