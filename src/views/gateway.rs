//! Gateway API Gateways and their routes.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds [`GatewayView`] reads.
pub const GATEWAY: &[Kind] = &[("gateway.networking.k8s.io", "Gateway")];
/// The kinds [`GatewayClassView`] reads.
pub const GATEWAY_CLASS: &[Kind] = &[("gateway.networking.k8s.io", "GatewayClass")];
/// The kinds [`RouteView`] reads: the routes with the same parents and hostnames.
pub const ROUTE: &[Kind] = &[
    ("gateway.networking.k8s.io", "HTTPRoute"),
    ("gateway.networking.k8s.io", "GRPCRoute"),
    ("gateway.networking.k8s.io", "TLSRoute"),
    ("gateway.networking.k8s.io", "TCPRoute"),
];

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
    /// How many of `addresses` come from `spec` (the rest from `status`).
    pub spec_addresses: usize,
    /// `spec.addresses[].type`, in the order of the spec's `addresses`.
    pub address_types: Vec<Option<&'w str>>,
    /// `spec.infrastructure.annotations` (Gateway API v1.1), which implementations copy onto
    /// the resources they create for the Gateway.
    pub infrastructure_annotations: Option<NodeRef<'w>>,
}

impl<'w> GatewayView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<GatewayView<'w>> {
        if !super::is_kind(object, GATEWAY) {
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
        let values = |path: &[&str]| -> Vec<NodeRef<'w>> {
            root.path(path)
                .into_iter()
                .flat_map(NodeRef::items)
                .filter_map(|a| a.get("value"))
                .collect()
        };
        let address_types = root
            .path(&["spec", "addresses"])
            .into_iter()
            .flat_map(NodeRef::items)
            .filter(|a| a.get("value").is_some())
            .map(|a| a.get("type").and_then(|t| t.as_str()))
            .collect();
        let mut addresses = values(&["spec", "addresses"]);
        let spec_addresses = addresses.len();
        addresses.extend(values(&["status", "addresses"]));
        Some(GatewayView {
            object,
            class_name: spec.and_then(|s| s.get("gatewayClassName")),
            listeners,
            addresses,
            spec_addresses,
            address_types,
            infrastructure_annotations: root.path(&["spec", "infrastructure", "annotations"]),
        })
    }
}

/// A Gateway API `GatewayClass`: which controller implements its Gateways.
#[derive(Clone, Debug)]
pub struct GatewayClassView<'w> {
    pub object: &'w Object,
    /// `spec.controllerName`, e.g. `gateway.envoyproxy.io/gatewayclass-controller`.
    pub controller_name: Option<&'w str>,
}

impl<'w> GatewayClassView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<GatewayClassView<'w>> {
        if !super::is_kind(object, GATEWAY_CLASS) {
            return None;
        }
        Some(GatewayClassView {
            object,
            controller_name: ws
                .spec(object)
                .and_then(|s| s.get("controllerName"))
                .and_then(|c| c.as_str()),
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
        if !super::is_kind(object, ROUTE) {
            return None;
        }
        let spec = ws.spec(object);
        let list = |key: &str| super::spec_list(spec, key);
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
