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

/// A `networking.k8s.io` IngressClass.
#[derive(Clone, Debug)]
pub struct IngressClassView<'w> {
    pub object: &'w Object,
    /// `spec.controller`, e.g. `k8s.io/ingress-nginx`.
    pub controller: Option<NodeRef<'w>>,
    /// The `ingressclass.kubernetes.io/is-default-class` annotation, as (key, value).
    pub default_class: Option<(NodeRef<'w>, NodeRef<'w>)>,
}

impl<'w> IngressClassView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IngressClassView<'w>> {
        if object.kind() != "IngressClass" || object.group() != "networking.k8s.io" {
            return None;
        }
        Some(IngressClassView {
            object,
            controller: ws.spec(object).and_then(|s| s.get("controller")),
            default_class: ws.annotation(object, "ingressclass.kubernetes.io/is-default-class"),
        })
    }

    /// Whether Ingresses without a class get this one.
    pub fn is_default(&self) -> bool {
        self.default_class.and_then(|(_, v)| v.as_str()) == Some("true")
    }
}

/// One `spec.listeners[]` entry of a Gateway API Gateway.
#[derive(Clone, Copy, Debug)]
pub struct GatewayListener<'w> {
    pub node: NodeRef<'w>,
    pub name: Option<NodeRef<'w>>,
    pub hostname: Option<NodeRef<'w>>,
    pub protocol: Option<NodeRef<'w>>,
    pub port: Option<NodeRef<'w>>,
}

/// A Gateway API `Gateway` (gateway.networking.k8s.io).
#[derive(Clone, Debug)]
pub struct GatewayView<'w> {
    pub object: &'w Object,
    pub class_name: Option<NodeRef<'w>>,
    pub listeners: Vec<GatewayListener<'w>>,
    /// `spec.addresses[].value` and `status.addresses[].value`.
    pub addresses: Vec<NodeRef<'w>>,
}

impl<'w> GatewayView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<GatewayView<'w>> {
        if object.kind() != "Gateway" || object.group() != "gateway.networking.k8s.io" {
            return None;
        }
        let root = ws.root(object);
        let spec = ws.spec(object);
        let listeners = spec
            .and_then(|s| s.get("listeners"))
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|node| GatewayListener {
                node,
                name: node.get("name"),
                hostname: node.get("hostname"),
                protocol: node.get("protocol"),
                port: node.get("port"),
            })
            .collect();
        let addresses = [
            root.path(&["spec", "addresses"]),
            root.path(&["status", "addresses"]),
        ]
        .into_iter()
        .flatten()
        .flat_map(NodeRef::items)
        .filter_map(|a| a.get("value"))
        .collect();
        Some(GatewayView {
            object,
            class_name: spec.and_then(|s| s.get("gatewayClassName")),
            listeners,
            addresses,
        })
    }
}

/// A Gateway API route's `spec.parentRefs[]` entry.
#[derive(Clone, Copy, Debug)]
pub struct ParentRef<'w> {
    pub node: NodeRef<'w>,
    pub name: Option<&'w str>,
    /// Unset: the route's own namespace.
    pub namespace: Option<&'w str>,
    pub section_name: Option<&'w str>,
}

/// A Gateway API `HTTPRoute` (also GRPCRoute, TLSRoute, TCPRoute: same parents and
/// hostnames).
#[derive(Clone, Debug)]
pub struct RouteView<'w> {
    pub object: &'w Object,
    pub parent_refs: Vec<ParentRef<'w>>,
    pub hostnames: Vec<NodeRef<'w>>,
}

impl<'w> RouteView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<RouteView<'w>> {
        if object.group() != "gateway.networking.k8s.io"
            || !matches!(
                object.kind(),
                "HTTPRoute" | "GRPCRoute" | "TLSRoute" | "TCPRoute"
            )
        {
            return None;
        }
        let spec = ws.spec(object);
        let list = |key: &str| {
            spec.and_then(|s| s.get(key))
                .into_iter()
                .flat_map(NodeRef::items)
        };
        let text = |node: NodeRef<'w>, key: &str| node.get(key).and_then(|v| v.as_str());
        Some(RouteView {
            object,
            parent_refs: list("parentRefs")
                .map(|node| ParentRef {
                    node,
                    name: text(node, "name"),
                    namespace: text(node, "namespace"),
                    section_name: text(node, "sectionName"),
                })
                .collect(),
            hostnames: list("hostnames").collect(),
        })
    }
}

/// The keys of a ConfigMap or Secret, each as its (key, value) nodes. Secret `data` values
/// are base64, as written; `stringData` values are text.
#[derive(Clone, Debug)]
pub struct DataView<'w> {
    pub object: &'w Object,
    pub data: Vec<(NodeRef<'w>, NodeRef<'w>)>,
    /// Secret `stringData`.
    pub string_data: Vec<(NodeRef<'w>, NodeRef<'w>)>,
}

impl<'w> DataView<'w> {
    /// The data of a core ConfigMap or Secret.
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<DataView<'w>> {
        if !object.group().is_empty() || !matches!(object.kind(), "ConfigMap" | "Secret") {
            return None;
        }
        let root = ws.root(object);
        let entries = |key: &str| {
            root.get(key)
                .into_iter()
                .flat_map(NodeRef::entries)
                .collect::<Vec<_>>()
        };
        Some(DataView {
            object,
            data: entries("data"),
            string_data: entries("stringData"),
        })
    }

    /// The value of one key, from `data` or `stringData`.
    pub fn get(&self, key: &str) -> Option<NodeRef<'w>> {
        self.data
            .iter()
            .chain(&self.string_data)
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|&(_, v)| v)
    }
}

/// The views of a run, by object.
#[derive(Debug, Default)]
pub struct Views<'w> {
    services: ByObject<ServiceView<'w>>,
    ingresses: ByObject<IngressView<'w>>,
    istio_gateways: ByObject<IstioGatewayView<'w>>,
    ingress_classes: ByObject<IngressClassView<'w>>,
    gateways: ByObject<GatewayView<'w>>,
    routes: ByObject<RouteView<'w>>,
    data: ByObject<DataView<'w>>,
}

impl<'w> Views<'w> {
    pub fn build(ws: &'w Workspace) -> Views<'w> {
        Views {
            services: ByObject::build(ws, ServiceView::of),
            ingresses: ByObject::build(ws, IngressView::of),
            istio_gateways: ByObject::build(ws, IstioGatewayView::of),
            ingress_classes: ByObject::build(ws, IngressClassView::of),
            gateways: ByObject::build(ws, GatewayView::of),
            routes: ByObject::build(ws, RouteView::of),
            data: ByObject::build(ws, DataView::of),
        }
    }

    /// The Service view of an object.
    pub fn service(&self, id: ObjectId) -> Option<&ServiceView<'w>> {
        self.services.get(id)
    }

    pub fn ingress(&self, id: ObjectId) -> Option<&IngressView<'w>> {
        self.ingresses.get(id)
    }

    pub fn istio_gateway(&self, id: ObjectId) -> Option<&IstioGatewayView<'w>> {
        self.istio_gateways.get(id)
    }

    pub fn ingress_class(&self, id: ObjectId) -> Option<&IngressClassView<'w>> {
        self.ingress_classes.get(id)
    }

    pub fn gateway(&self, id: ObjectId) -> Option<&GatewayView<'w>> {
        self.gateways.get(id)
    }

    pub fn route(&self, id: ObjectId) -> Option<&RouteView<'w>> {
        self.routes.get(id)
    }

    /// The data of a ConfigMap or Secret.
    pub fn data(&self, id: ObjectId) -> Option<&DataView<'w>> {
        self.data.get(id)
    }
}

/// The views of one kind, for the objects that have one, in object order: most objects
/// have none, and one slot per object and kind was 4 MB on a 50 MB stream.
#[derive(Debug)]
struct ByObject<T>(Vec<(ObjectId, T)>);

impl<T> Default for ByObject<T> {
    fn default() -> Self {
        ByObject(Vec::new())
    }
}

impl<T> ByObject<T> {
    fn build<'w>(ws: &'w Workspace, of: impl Fn(&'w Workspace, &'w Object) -> Option<T>) -> Self {
        ByObject(
            ws.objects
                .iter()
                .enumerate()
                .filter_map(|(i, object)| Some((ObjectId(i), of(ws, object)?)))
                .collect(),
        )
    }

    fn get(&self, id: ObjectId) -> Option<&T> {
        let at = self.0.binary_search_by_key(&id, |(of, _)| *of).ok()?;
        Some(&self.0[at].1)
    }
}
