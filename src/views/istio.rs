//! Service-mesh objects: Alibaba Cloud ASM's IstioGateway.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::Kind;

/// The kinds [`IstioGatewayView`] reads.
pub const ISTIO_GATEWAY: &[Kind] = &[("istio.alibabacloud.com", "IstioGateway")];

/// An Alibaba Cloud Service Mesh `IstioGateway` (istio.alibabacloud.com).
#[derive(Clone, Debug)]
pub struct IstioGatewayView<'w> {
    pub object: &'w Object,
    pub external_traffic_policy: Option<NodeRef<'w>>,
    /// `spec.serviceAnnotations`: annotations ASM puts on the gateway's Service.
    pub service_annotations: Option<NodeRef<'w>>,
    /// `spec.podLabels`: the labels of the gateway pods ASM runs.
    pub pod_labels: Option<NodeRef<'w>>,
    /// `spec.serviceType` of the gateway's Service.
    pub service_type: Option<NodeRef<'w>>,
}

impl<'w> IstioGatewayView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IstioGatewayView<'w>> {
        if !super::is_kind(object, ISTIO_GATEWAY) {
            return None;
        }
        let spec = ws.spec(object);
        Some(IstioGatewayView {
            object,
            external_traffic_policy: spec.and_then(|s| s.get("externalTrafficPolicy")),
            service_annotations: spec.and_then(|s| s.get("serviceAnnotations")),
            pod_labels: spec.and_then(|s| s.get("podLabels")),
            service_type: spec.and_then(|s| s.get("serviceType")),
        })
    }
}

/// The kinds [`MeshGatewayView`] reads.
pub const MESH_GATEWAY: &[Kind] = &[("networking.istio.io", "Gateway")];
/// The kinds [`VirtualServiceView`] reads.
pub const VIRTUAL_SERVICE: &[Kind] = &[("networking.istio.io", "VirtualService")];
/// The kinds [`ServiceEntryView`] reads.
pub const SERVICE_ENTRY: &[Kind] = &[("networking.istio.io", "ServiceEntry")];

/// An Istio `Gateway` (networking.istio.io): the gateway pods it selects serve its hosts.
#[derive(Clone, Debug)]
pub struct MeshGatewayView<'w> {
    pub object: &'w Object,
    pub selector: Option<NodeRef<'w>>,
    /// `spec.servers[].hosts[]`.
    pub hosts: Vec<NodeRef<'w>>,
}

impl<'w> MeshGatewayView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<MeshGatewayView<'w>> {
        if !super::is_kind(object, MESH_GATEWAY) {
            return None;
        }
        let spec = ws.spec(object);
        Some(MeshGatewayView {
            object,
            selector: spec.and_then(|s| s.get("selector")),
            hosts: spec
                .and_then(|s| s.get("servers"))
                .into_iter()
                .flat_map(NodeRef::items)
                .flat_map(|server| server.get("hosts").into_iter().flat_map(NodeRef::items))
                .collect(),
        })
    }
}

/// An Istio `VirtualService`: the gateways it binds to, and its hosts.
#[derive(Clone, Debug)]
pub struct VirtualServiceView<'w> {
    pub object: &'w Object,
    /// `spec.gateways[]` as written: `namespace/name`, or `name` in its own namespace.
    pub gateways: Vec<&'w str>,
    pub hosts: Vec<NodeRef<'w>>,
}

impl<'w> VirtualServiceView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<VirtualServiceView<'w>> {
        if !super::is_kind(object, VIRTUAL_SERVICE) {
            return None;
        }
        let spec = ws.spec(object);
        let list = |key: &str| super::spec_list(spec, key);
        Some(VirtualServiceView {
            object,
            gateways: list("gateways").filter_map(|g| g.as_str()).collect(),
            hosts: list("hosts").collect(),
        })
    }
}

/// An Istio `ServiceEntry`: with `resolution: STATIC`, the sidecar sends a call of its
/// hosts to its endpoints' addresses.
#[derive(Clone, Debug)]
pub struct ServiceEntryView<'w> {
    pub object: &'w Object,
    pub resolution: Option<&'w str>,
    /// `spec.endpoints[].address`.
    pub endpoint_addresses: Vec<&'w str>,
    pub hosts: Vec<&'w str>,
}

impl<'w> ServiceEntryView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<ServiceEntryView<'w>> {
        if !super::is_kind(object, SERVICE_ENTRY) {
            return None;
        }
        let spec = ws.spec(object);
        let list = |key: &str| super::spec_list(spec, key);
        Some(ServiceEntryView {
            object,
            resolution: spec
                .and_then(|s| s.get("resolution"))
                .and_then(|r| r.as_str()),
            endpoint_addresses: list("endpoints")
                .filter_map(|e| e.get("address")?.as_str())
                .collect(),
            hosts: list("hosts").filter_map(|h| h.as_str()).collect(),
        })
    }
}
