//! Hosts routed through gateways: a Gateway API Gateway's routes (HTTPRoute, GRPCRoute,
//! TLSRoute and TCPRoute hostnames, by their parentRefs) are addresses of that Gateway;
//! an Istio (networking.istio.io) Gateway's server hosts, and those of the VirtualServices
//! bound to it, are addresses of the LoadBalancer Services in front of the gateway pods it
//! selects.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::objects::Workspace;
use crate::views::{pod_template, selector_matches, Views, VirtualServiceView};
use crate::yaml::NodeRef;

use super::address::{Address, AddressSource};
use super::controllers::{add_new_addresses, by_name, host_address};
use super::entry::EntryKind;
use super::EntryPoint;

/// Adds the hosts routed through each gateway to the entry points that serve them.
/// A Gateway is an entry point once it has an address, a listener hostname or a route's
/// hostname; one whose implementation's Service is in the manifests gives its addresses to
/// that Service instead.
pub fn link_gateway_hosts(ws: &Workspace, views: &Views<'_>, entry_points: &mut Vec<EntryPoint>) {
    let mut served = route_hosts(ws, views, entry_points);
    served.extend(istio_gateway_hosts(ws, views, entry_points));
    add_new_addresses(entry_points, served);
    let moved = move_to_implementation_services(ws, entry_points);
    let mut index = 0;
    entry_points.retain(|e| {
        let keep =
            e.kind != EntryKind::Gateway || !(e.addresses.is_empty() || moved.contains(&index));
        index += 1;
        keep
    });
}

/// Gateway API routes' hostnames, for each Gateway entry point a parentRef names.
fn route_hosts(
    ws: &Workspace,
    views: &Views<'_>,
    entry_points: &[EntryPoint],
) -> Vec<(usize, Address)> {
    let mut served = Vec::new();
    let gateways = by_name(ws, entry_points, EntryKind::Gateway);
    for route in views.routes() {
        let object = route.object;
        for parent in &route.parent_refs {
            let (Some(name), namespace) = (parent.name, parent.namespace) else {
                continue;
            };
            let namespace = namespace.unwrap_or(object.namespace());
            for &target in gateways.get(&(namespace, name)).into_iter().flatten() {
                served.extend(route.hostnames.iter().filter_map(|&h| {
                    let gateway = &ws.objects[entry_points[target].object].id;
                    let link = format!("{}, parentRef to {gateway}", object.id);
                    host_address(ws, h, object, AddressSource::RouteHostname, link)
                        .map(|a| (target, a))
                }));
            }
        }
    }
    served
}

/// Istio VirtualServices by the gateways they bind to: `namespace/name`, or `name` in
/// their own namespace.
fn virtual_services_by_gateway<'v, 'w>(
    views: &'v Views<'w>,
) -> HashMap<(&'w str, &'w str), Vec<&'v VirtualServiceView<'w>>> {
    let mut bound_to: HashMap<(&str, &str), Vec<&VirtualServiceView<'w>>> = HashMap::new();
    for virtual_service in views.virtual_services() {
        let own = virtual_service.object.namespace();
        let mut refs: Vec<(&str, &str)> = virtual_service
            .gateways
            .iter()
            .map(|g| g.split_once('/').unwrap_or((own, g)))
            .collect();
        // Bound once however often it names the gateway.
        refs.sort_unstable();
        refs.dedup();
        for gateway in refs {
            bound_to.entry(gateway).or_default().push(virtual_service);
        }
    }
    bound_to
}

/// Istio Gateways: selector -> gateway pods -> the LoadBalancer Services selecting them,
/// which serve the Gateway's hosts and its VirtualServices'.
fn istio_gateway_hosts(
    ws: &Workspace,
    views: &Views<'_>,
    entry_points: &[EntryPoint],
) -> Vec<(usize, Address)> {
    let mut served = Vec::new();
    if views.mesh_gateways().next().is_none() {
        return served;
    }
    let bound_to = virtual_services_by_gateway(views);
    // The pod labels behind each LoadBalancer Service, read once for every gateway.
    let fronted: Vec<(usize, Vec<Option<NodeRef<'_>>>)> = entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EntryKind::Service)
        .map(|(target, e)| {
            let labels = e
                .backends
                .iter()
                .filter_map(|&w| pod_template(ws, &ws.objects[w]).map(|t| t.labels))
                .collect();
            (target, labels)
        })
        .collect();
    for gateway in views.mesh_gateways() {
        let object = gateway.object;
        let mut hosts: Vec<NodeRef<'_>> = gateway.hosts.clone();
        let mut host_objects = vec![object; hosts.len()];
        let bound = bound_to.get(&(object.namespace(), object.name()));
        for &virtual_service in bound.into_iter().flatten() {
            for &host in &virtual_service.hosts {
                hosts.push(host);
                host_objects.push(virtual_service.object);
            }
        }
        for (target, labels) in &fronted {
            let target = *target;
            if labels
                .iter()
                .any(|&l| selector_matches(gateway.selector, l))
            {
                served.extend(hosts.iter().zip(&host_objects).filter_map(|(&h, o)| {
                    let link = if o.id == object.id {
                        format!(
                            "{}, whose selector matches this Service's gateway pods",
                            object.id
                        )
                    } else {
                        format!(
                            "{} bound to {}, whose selector matches this Service's gateway pods",
                            o.id, object.id
                        )
                    };
                    host_address(ws, h, o, AddressSource::ControllerIngressHost, link)
                        .map(|a| (target, a))
                }));
            }
        }
    }
    served
}

/// Gateway API Gateways whose implementation's Service is in the manifests (a cluster
/// export), found by the labels the implementations put on it:
/// [`SAME_NAMESPACE_OWNERS`] in the Gateway's namespace,
/// `gateway.envoyproxy.io/owning-gateway-name` and `-namespace` (envoyproxy/gateway
/// `translator.go`; the Service sits in Envoy Gateway's own namespace). That Service is the
/// Gateway's load balancer: the Gateway's addresses, listener hostnames and routes' hostnames
/// move to it, and the Gateway is no entry point of its own (one load balancer, one verdict).
/// Returns the Gateway entries that moved.
fn move_to_implementation_services(
    ws: &Workspace,
    entry_points: &mut [EntryPoint],
) -> HashSet<usize> {
    if !entry_points.iter().any(|e| e.kind == EntryKind::Gateway) {
        return HashSet::new();
    }
    let services: Vec<(usize, BTreeMap<&str, &str>)> = entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EntryKind::Service)
        .map(|(i, e)| (i, crate::views::labels(ws, &ws.objects[e.object])))
        .filter(|(_, labels)| {
            SAME_NAMESPACE_OWNERS
                .iter()
                .chain([&ENVOY_GATEWAY_NAME])
                .any(|k| labels.contains_key(k))
        })
        .collect();
    let mut moved = HashSet::new();
    if services.is_empty() {
        return moved;
    }
    let mut served = Vec::new();
    for (gateway, entry) in entry_points.iter().enumerate() {
        if entry.kind != EntryKind::Gateway {
            continue;
        }
        let object = &ws.objects[entry.object];
        let (ns, name) = (object.namespace(), object.name());
        for (target, labels) in &services {
            let label = |k: &str| labels.get(k).copied();
            let service = &ws.objects[entry_points[*target].object];
            let istio_like = SAME_NAMESPACE_OWNERS.iter().any(|k| label(k) == Some(name))
                && service.namespace() == ns;
            let envoy_gateway = label(ENVOY_GATEWAY_NAME) == Some(name)
                && label("gateway.envoyproxy.io/owning-gateway-namespace") == Some(ns);
            if !(istio_like || envoy_gateway) {
                continue;
            }
            moved.insert(gateway);
            for address in &entry.addresses {
                let through = address
                    .link
                    .clone()
                    .unwrap_or_else(|| object.id.to_string());
                let link = format!(
                    "{through}, served by this Service, which the Gateway's implementation \
                     created for {} (its labels say so)",
                    object.id
                );
                served.push((
                    *target,
                    Address {
                        link: Some(link),
                        ..address.clone()
                    },
                ));
            }
        }
    }
    add_new_addresses(entry_points, served);
    moved
}

/// The labels naming the Gateway on the Service its implementation creates in the Gateway's
/// namespace: `gateway.networking.k8s.io/gateway-name` (Istio's deployment controller,
/// Cilium, NGINX Gateway Fabric, Kong's operator, Contour's provisioner from v1.28.0), and
/// older releases' own: Contour's `projectcontour.io/owning-gateway-name` (v1.21.0) and
/// Cilium's deprecated `io.cilium.gateway/owning-gateway`.
const SAME_NAMESPACE_OWNERS: &[&str] = &[
    "gateway.networking.k8s.io/gateway-name",
    "projectcontour.io/owning-gateway-name",
    "io.cilium.gateway/owning-gateway",
];
/// Envoy Gateway's label naming the Gateway (with `-namespace`) on its Service.
const ENVOY_GATEWAY_NAME: &str = "gateway.envoyproxy.io/owning-gateway-name";
