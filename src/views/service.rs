//! Core Services: ports, selector, traffic policies, class and the load balancer's status.

use crate::objects::{Object, Workspace};
use crate::yaml::{Document, NodeId, NodeRef};

use super::Kind;

/// The kinds [`ServiceView`] reads.
pub const SERVICE: &[Kind] = &[("", "Service")];

/// One `spec.ports[]` entry of a Service.
#[derive(Clone, Copy, Debug)]
pub struct ServicePort<'w> {
    pub node: NodeRef<'w>,
    pub port: Option<i64>,
    /// `nodePort`, when written.
    pub node_port: Option<NodeRef<'w>>,
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

/// `status.loadBalancer.ingress[]` of any object (Services, Ingresses and others report
/// their load balancer there).
pub fn load_balancer_status<'w>(ws: &'w Workspace, object: &Object) -> Vec<LbIngress<'w>> {
    ws.root(object)
        .path(&["status", "loadBalancer", "ingress"])
        .into_iter()
        .flat_map(NodeRef::items)
        .map(|entry| LbIngress {
            ip: entry.get("ip"),
            hostname: entry.get("hostname"),
            ip_mode: entry.get("ipMode"),
        })
        .collect()
}

/// Accessors of a view's single nodes, by field name.
macro_rules! nodes {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&self) -> Option<NodeRef<'w>> {
                self.node(self.$name)
            }
        )*
    };
}

/// A core `Service`. Its single nodes are kept as ids in the Service's document (4 bytes
/// each, not the 16 of an `Option<NodeRef>`) and read through accessors of the same names:
/// on a stream of 917,446 Services the views were 264 bytes each, now 120.
#[derive(Clone, Debug)]
pub struct ServiceView<'w> {
    pub object: &'w Object,
    doc: &'w Document,
    service_type: Slot,
    ports_key: Slot,
    selector: Slot,
    external_traffic_policy: Slot,
    internal_traffic_policy: Slot,
    load_balancer_class: Slot,
    external_name: Slot,
    load_balancer_ip: Slot,
    allocate_node_ports: Slot,
    pub ports: Box<[ServicePort<'w>]>,
    /// The lists most Services leave out, when one is there.
    lists: Option<Box<Lists<'w>>>,
}

#[derive(Clone, Debug)]
struct Lists<'w> {
    status_ingress: Box<[LbIngress<'w>]>,
    cluster_ips: Box<[&'w str]>,
    external_ips: Box<[NodeRef<'w>]>,
}

/// A node of the view's document, or none.
#[derive(Clone, Copy, Debug)]
struct Slot(u32);

impl Slot {
    const NONE: Slot = Slot(u32::MAX);

    fn of(doc: &Document, node: Option<NodeRef<'_>>) -> Slot {
        match node {
            // Every node a view reads is in its object's document.
            Some(node) if std::ptr::eq(node.doc, doc) && node.id.0 != u32::MAX => Slot(node.id.0),
            _ => Slot::NONE,
        }
    }
}

impl<'w> ServiceView<'w> {
    /// The view of `object` when it is a core Service.
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<ServiceView<'w>> {
        if !super::is_kind(object, SERVICE) {
            return None;
        }
        let doc = ws.root(object).doc;
        let spec = ws.spec(object);
        let field = |key: &str| spec.and_then(|s| s.get(key));
        let slot = |key: &str| Slot::of(doc, field(key));
        let ports = field("ports")
            .into_iter()
            .flat_map(NodeRef::items)
            .map(|node| ServicePort {
                node,
                port: node.get("port").and_then(|p| p.as_i64()),
                node_port: node.get("nodePort"),
                protocol: node
                    .get("protocol")
                    .and_then(|p| p.as_str())
                    .unwrap_or("TCP"),
            })
            .collect();
        Some(ServiceView {
            object,
            doc,
            service_type: slot("type"),
            ports_key: Slot::of(doc, spec.and_then(|s| s.get_entry("ports")).map(|(k, _)| k)),
            ports: boxed(ports),
            selector: slot("selector"),
            external_traffic_policy: slot("externalTrafficPolicy"),
            internal_traffic_policy: slot("internalTrafficPolicy"),
            load_balancer_class: slot("loadBalancerClass"),
            external_name: slot("externalName"),
            load_balancer_ip: slot("loadBalancerIP"),
            allocate_node_ports: slot("allocateLoadBalancerNodePorts"),
            lists: Lists {
                status_ingress: boxed(load_balancer_status(ws, object)),
                cluster_ips: boxed(
                    field("clusterIP")
                        .into_iter()
                        .chain(field("clusterIPs").into_iter().flat_map(NodeRef::items))
                        .filter_map(|ip| ip.as_str())
                        .collect(),
                ),
                external_ips: boxed(
                    field("externalIPs")
                        .into_iter()
                        .flat_map(NodeRef::items)
                        .collect(),
                ),
            }
            .unless_empty(),
        })
    }

    /// `status.loadBalancer.ingress[]`.
    pub fn status_ingress(&self) -> &[LbIngress<'w>] {
        self.lists.as_deref().map_or(&[], |l| &l.status_ingress)
    }

    /// `spec.clusterIP` then `spec.clusterIPs[]`, as written (`None` included).
    pub fn cluster_ips(&self) -> &[&'w str] {
        self.lists.as_deref().map_or(&[], |l| &l.cluster_ips)
    }

    /// `spec.externalIPs[]`.
    pub fn external_ips(&self) -> &[NodeRef<'w>] {
        self.lists.as_deref().map_or(&[], |l| &l.external_ips)
    }

    fn node(&self, slot: Slot) -> Option<NodeRef<'w>> {
        (slot.0 != Slot::NONE.0).then_some(NodeRef {
            doc: self.doc,
            id: NodeId(slot.0),
        })
    }

    nodes! {
        /// `spec.type`.
        service_type,
        /// The `ports` key, for pointing at the list.
        ports_key,
        selector,
        external_traffic_policy,
        internal_traffic_policy,
        load_balancer_class,
        /// `spec.externalName` (an ExternalName Service's alias).
        external_name,
        /// `spec.loadBalancerIP` (deprecated, still honoured by some controllers).
        load_balancer_ip,
        /// `spec.allocateLoadBalancerNodePorts`.
        allocate_node_ports,
    }

    pub fn is_load_balancer(&self) -> bool {
        self.service_type().and_then(|t| t.as_str()) == Some("LoadBalancer")
    }

    /// `spec.externalName` of an ExternalName Service.
    pub fn alias(&self) -> Option<&'w str> {
        if self.service_type().and_then(|t| t.as_str()) != Some("ExternalName") {
            return None;
        }
        self.external_name()?.as_str()
    }

    /// The reported `ipMode` nodes.
    pub fn ip_modes(&self) -> impl Iterator<Item = NodeRef<'w>> + '_ {
        self.status_ingress().iter().filter_map(|i| i.ip_mode)
    }

    /// The first reported IP with `ipMode: VIP` written: kube-proxy short-circuits it. (A
    /// status without `ipMode` may be hand-written or from before Kubernetes 1.29, so only
    /// the written value is taken as the controller's word.)
    pub fn vip_ingress(&self) -> Option<NodeRef<'w>> {
        self.status_ingress()
            .iter()
            .find(|i| i.ip_mode.and_then(|m| m.as_str()) == Some("VIP"))
            .and_then(|i| i.ip)
    }

    /// Whether the status reports an IP at all (a live export's fact, whatever the
    /// annotations and controller options suggest).
    pub fn reports_ip(&self) -> bool {
        self.status_ingress().iter().any(|i| i.ip.is_some())
    }

    /// A status with a hostname and no IP anywhere: that hostname (nothing for kube-proxy to
    /// short-circuit).
    pub fn hostname_only(&self) -> Option<NodeRef<'w>> {
        if self.status_ingress().iter().any(|i| i.ip.is_some()) {
            return None;
        }
        self.status_ingress().iter().find_map(|i| i.hostname)
    }
}

/// Exactly as long as it is (a view is kept for the whole run), and 8 bytes less than a
/// `Vec`.
fn boxed<T>(list: Vec<T>) -> Box<[T]> {
    list.into_boxed_slice()
}

impl<'w> Lists<'w> {
    fn unless_empty(self) -> Option<Box<Lists<'w>>> {
        let empty = self.status_ingress.is_empty()
            && self.cluster_ips.is_empty()
            && self.external_ips.is_empty();
        (!empty).then(|| Box::new(self))
    }
}
