//! Ingresses and IngressClasses.

use crate::objects::{Object, Workspace};
use crate::yaml::NodeRef;

use super::{Annotations, Kind};

/// The kinds [`IngressView`] reads.
pub const INGRESS: &[Kind] = &[("networking.k8s.io", "Ingress"), ("extensions", "Ingress")];
/// The kinds [`IngressClassView`] reads.
pub const INGRESS_CLASS: &[Kind] = &[("networking.k8s.io", "IngressClass")];

/// A `networking.k8s.io` (or `extensions`) Ingress.
#[derive(Clone, Debug)]
pub struct IngressView<'w> {
    pub object: &'w Object,
    /// `spec.ingressClassName`.
    pub class_name: Option<NodeRef<'w>>,
    /// `spec.tls` and `spec.rules` as (key, value).
    pub tls: Option<(NodeRef<'w>, NodeRef<'w>)>,
    pub rules: Option<(NodeRef<'w>, NodeRef<'w>)>,
    /// The Services it routes to, as written (default backend first, then each path's).
    pub service_names: Vec<&'w str>,
}

impl<'w> IngressView<'w> {
    pub fn of(ws: &'w Workspace, object: &'w Object) -> Option<IngressView<'w>> {
        if !super::is_kind(object, INGRESS) {
            return None;
        }
        let spec = ws.spec(object);
        Some(IngressView {
            object,
            class_name: spec.and_then(|s| s.get("ingressClassName")),
            tls: spec.and_then(|s| s.get_entry("tls")),
            rules: spec.and_then(|s| s.get_entry("rules")),
            service_names: ingress_service_names(spec),
        })
    }

    /// `spec.rules[].host`.
    pub fn rule_hosts(&self) -> Vec<NodeRef<'w>> {
        let rules = self.rules.map(|(_, rules)| rules);
        rules
            .into_iter()
            .flat_map(NodeRef::items)
            .filter_map(|rule| rule.get("host"))
            .collect()
    }

    /// `spec.tls[].hosts[]`.
    pub fn tls_hosts(&self) -> Vec<NodeRef<'w>> {
        let tls = self.tls.map(|(_, tls)| tls);
        tls.into_iter()
            .flat_map(NodeRef::items)
            .flat_map(|t| t.get("hosts").into_iter().flat_map(NodeRef::items))
            .collect()
    }

    /// Whether `spec.tls` lists at least one entry (the CLB then gets an HTTPS listener).
    pub fn has_tls(&self) -> bool {
        self.tls
            .is_some_and(|(_, tls)| tls.items().next().is_some())
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
        if !super::is_kind(object, INGRESS_CLASS) {
            return None;
        }
        Some(IngressClassView {
            object,
            controller: ws.spec(object).and_then(|s| s.get("controller")),
            default_class: Annotations::of(ws, object)
                .entry("ingressclass.kubernetes.io/is-default-class"),
        })
    }

    /// Whether Ingresses without a class get this one.
    pub fn is_default(&self) -> bool {
        self.default_class.and_then(|(_, v)| v.as_str()) == Some("true")
    }
}

/// Service names an Ingress routes to (v1 `service.name`, v1beta1 `serviceName`).
fn ingress_service_names<'w>(spec: Option<NodeRef<'w>>) -> Vec<&'w str> {
    fn backend_name<'w>(backend: NodeRef<'w>) -> Option<&'w str> {
        backend
            .path(&["service", "name"])
            .or_else(|| backend.get("serviceName"))
            .and_then(|n| n.as_str())
    }
    let Some(spec) = spec else { return Vec::new() };
    let mut names: Vec<&str> = Vec::new();
    for default in [spec.get("defaultBackend"), spec.get("backend")]
        .into_iter()
        .flatten()
    {
        names.extend(backend_name(default));
    }
    for rule in spec.get("rules").into_iter().flat_map(NodeRef::items) {
        for path in rule
            .path(&["http", "paths"])
            .into_iter()
            .flat_map(NodeRef::items)
        {
            names.extend(path.get("backend").and_then(backend_name));
        }
    }
    names
}
