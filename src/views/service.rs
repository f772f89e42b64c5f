//! Core Services: ports, selector, traffic policies, class and the load balancer's status.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

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
    /// `spec.clusterIP` then `spec.clusterIPs[]`, as written (`None` included).
    pub cluster_ips: Vec<&'w str>,
    /// `spec.externalName` (an ExternalName Service's alias).
    pub external_name: Option<NodeRef<'w>>,
    /// `spec.loadBalancerIP` (deprecated, still honoured by some controllers).
    pub load_balancer_ip: Option<NodeRef<'w>>,
    pub external_ips: Vec<NodeRef<'w>>,
    /// `spec.allocateLoadBalancerNodePorts`.
    pub allocate_node_ports: Option<NodeRef<'w>>,
}

impl<'w> ServiceView<'w> {
    /// The view of `object` when it is a core Service.
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<ServiceView<'w>> {
        if !super::is_kind(object, SERVICE) {
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
                node_port: node.get("nodePort"),
                protocol: node
                    .get("protocol")
                    .and_then(|p| p.as_str())
                    .unwrap_or("TCP"),
            })
            .collect();
        let status_ingress = super::exact(load_balancer_status(ws, object));
        Some(ServiceView {
            object,
            service_type: field("type"),
            ports_key: spec.and_then(|s| s.get_entry("ports")).map(|(k, _)| k),
            ports: super::exact(ports),
            selector: field("selector"),
            external_traffic_policy: field("externalTrafficPolicy"),
            internal_traffic_policy: field("internalTrafficPolicy"),
            load_balancer_class: field("loadBalancerClass"),
            status_ingress,
            cluster_ips: super::exact(
                field("clusterIP")
                    .into_iter()
                    .chain(field("clusterIPs").into_iter().flat_map(NodeRef::items))
                    .filter_map(|ip| ip.as_str())
                    .collect(),
            ),
            external_name: field("externalName"),
            load_balancer_ip: field("loadBalancerIP"),
            allocate_node_ports: field("allocateLoadBalancerNodePorts"),
            external_ips: super::exact(
                field("externalIPs")
                    .into_iter()
                    .flat_map(NodeRef::items)
                    .collect(),
            ),
        })
    }

    pub fn is_load_balancer(&self) -> bool {
        self.service_type.and_then(|t| t.as_str()) == Some("LoadBalancer")
    }

    /// `spec.externalName` of an ExternalName Service.
    pub fn alias(&self) -> Option<&'w str> {
        if self.service_type.and_then(|t| t.as_str()) != Some("ExternalName") {
            return None;
        }
        self.external_name?.as_str()
    }

    /// The reported `ipMode` nodes.
    pub fn ip_modes(&self) -> impl Iterator<Item = NodeRef<'w>> + '_ {
        self.status_ingress.iter().filter_map(|i| i.ip_mode)
    }

    /// The first reported IP with `ipMode: VIP` written: kube-proxy short-circuits it. (A
    /// status without `ipMode` may be hand-written or from before Kubernetes 1.29, so only
    /// the written value is taken as the controller's word.)
    pub fn vip_ingress(&self) -> Option<NodeRef<'w>> {
        self.status_ingress
            .iter()
            .find(|i| i.ip_mode.and_then(|m| m.as_str()) == Some("VIP"))
            .and_then(|i| i.ip)
    }

    /// Whether the status reports an IP at all (a live export's fact, whatever the
    /// annotations and controller options suggest).
    pub fn reports_ip(&self) -> bool {
        self.status_ingress.iter().any(|i| i.ip.is_some())
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
