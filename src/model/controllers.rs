//! Hosts served by in-cluster ingress controllers (README, "The cluster model"). An
//! Ingress of class X is served by the controller pods for X (an IngressClass names their
//! controller; the pods' `--ingress-class` / `--controller-class` args say which they
//! serve), and those pods sit behind a LoadBalancer Service (`--publish-service`, or the
//! one that selects them). The Ingress hosts are then addresses of that Service: a pod
//! calling `https://api.corp.example.com` through ingress-nginx calls the controller's
//! load balancer.

use std::collections::{HashMap, HashSet};

use crate::objects::{Object, ObjectId, Workspace};
use crate::profile::{Profile, Provider};
use crate::views::pod_template;
use crate::views::Views;
use crate::yaml::go_values::pflags as flags;
use crate::yaml::NodeRef;

use super::address::{Address, AddressSource};
use super::entry::EntryKind;
use super::EntryPoint;

/// ingress-nginx's defaults when its pods do not say (its `--ingress-class` and
/// `--controller-class` flags).
const NGINX_CLASS: &str = "nginx";
const NGINX_CONTROLLER: &str = "k8s.io/ingress-nginx";

/// An ingress controller's pods, and what they serve.
#[derive(Debug)]
struct Controller {
    workload: ObjectId,
    /// `--ingress-class` (and Traefik's `--providers.kubernetesingress.ingressclass`).
    classes: Vec<String>,
    /// `--controller-class`: the IngressClass `spec.controller` it serves.
    controller_class: Option<String>,
    /// `--publish-service=<namespace>/<name>`: the Service whose address it publishes.
    publish: Option<(String, String)>,
    /// It also serves Ingresses without a class (Contour without `--ingress-class-name`).
    classless: bool,
    /// Contour, which also serves HTTPProxy objects.
    contour: bool,
    /// Emissary-ingress (Ambassador), which also serves Mappings and Hosts.
    emissary: bool,
    /// How the model knows the Service in front of it, for `lblint model`.
    publish_how: String,
}

/// Contour's defaults (projectcontour/contour `cmd/contour/serve.go` and
/// `internal/ingress` `MatchesIngressClassName`): it serves IngressClass `contour` and,
/// without `--ingress-class-name`, Ingresses without a class; Envoy's Service is
/// `--envoy-service-name` (default `envoy`) in `--envoy-service-namespace` (default
/// `CONTOUR_NAMESPACE`, which Contour's manifests set to its own namespace).
const CONTOUR_CLASS: &str = "contour";
const CONTOUR_ENVOY: &str = "envoy";

/// An Emissary-ingress (Ambassador) container, by its images (`emissary-ingress/emissary`
/// v4, `emissaryingress/emissary` v2-v3, `datawire/ambassador` and `datawire/aes` v1), not
/// its `apiext` command. It serves class `ambassador` and IngressClass controller
/// `getambassador.io/ingress-controller`, behind the Service that selects its pods.
fn emissary(workload: ObjectId, image: &str, words: &[&str]) -> Option<Controller> {
    let images = [
        "emissary-ingress/emissary",
        "emissaryingress/emissary",
        "datawire/ambassador",
        "datawire/aes",
    ];
    if !images.iter().any(|i| image.contains(i)) || words.contains(&"apiext") {
        return None;
    }
    Some(Controller {
        workload,
        classes: vec!["ambassador".to_string()],
        controller_class: Some("getambassador.io/ingress-controller".to_string()),
        publish: None,
        classless: false,
        contour: false,
        emissary: true,
        publish_how: " (Emissary: the Service that selects its pods)".to_string(),
    })
}

/// A Contour controller container (`contour serve`), from its image and words.
fn contour(ws: &Workspace, workload: ObjectId, image: &str, words: &[&str]) -> Option<Controller> {
    let is_contour = (image.contains("projectcontour/contour") || image.contains("/contour:"))
        && words.contains(&"serve");
    if !is_contour {
        return None;
    }
    let flags = flags(words);
    let flag = |name: &str| {
        flags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let class = flag("ingress-class-name");
    let namespace = flag("envoy-service-namespace")
        .unwrap_or_else(|| ws.objects[workload].namespace().to_string());
    let name = flag("envoy-service-name").unwrap_or_else(|| CONTOUR_ENVOY.to_string());
    Some(Controller {
        workload,
        contour: true,
        emissary: false,
        classless: class.is_none(),
        // A comma-separated list since v1.21.0.
        classes: match class {
            Some(list) => list.split(',').map(|c| c.trim().to_string()).collect(),
            None => vec![CONTOUR_CLASS.to_string()],
        },
        controller_class: None,
        publish_how: format!(" (Contour's Envoy Service {namespace}/{name}, --envoy-service-name)"),
        publish: Some((namespace, name)),
    })
}

fn controller_of(ws: &Workspace, workload: ObjectId) -> Option<Controller> {
    let template = pod_template(ws, &ws.objects[workload])?;
    let mut found = None;
    for container in template.containers() {
        let image = container.image().unwrap_or("");
        let words = container.words();
        if let Some(c) =
            contour(ws, workload, image, &words).or_else(|| emissary(workload, image, &words))
        {
            found = Some(c);
            continue;
        }
        let nginx = image.contains("ingress-nginx")
            || words.iter().any(|w| w.contains("nginx-ingress-controller"));
        let mut c = Controller {
            workload,
            classes: Vec::new(),
            controller_class: None,
            publish: None,
            classless: false,
            contour: false,
            emissary: false,
            publish_how: String::new(),
        };
        let mut ingress = nginx;
        for (key, value) in flags(&words) {
            match key.as_str() {
                "ingress-class" | "providers.kubernetesingress.ingressclass" => {
                    c.classes.push(value);
                    ingress = true;
                }
                "controller-class" => {
                    c.controller_class = Some(value);
                    ingress = true;
                }
                "publish-service" => {
                    if let Some((ns, name)) = value.split_once('/') {
                        // Charts pass `$(POD_NAMESPACE)/<name>`: the pod's own namespace.
                        let ns = if ns.starts_with("$(") {
                            ws.objects[workload].namespace()
                        } else {
                            ns
                        };
                        c.publish_how = format!(" (--publish-service={ns}/{name})");
                        c.publish = Some((ns.to_string(), name.to_string()));
                    }
                }
                _ => {}
            }
        }
        if !ingress {
            continue;
        }
        if nginx {
            if c.classes.is_empty() {
                c.classes.push(NGINX_CLASS.to_string());
            }
            c.controller_class
                .get_or_insert_with(|| NGINX_CONTROLLER.to_string());
        }
        found = Some(c);
    }
    found
}

/// An Ingress's hosts, as addresses of the load balancer in front of its controller; `link`
/// says how (which Ingress, class, controller).
fn hosts_of(entry: &EntryPoint, link: &str) -> Vec<Address> {
    entry
        .addresses
        .iter()
        .filter(|a| {
            matches!(
                a.source,
                AddressSource::IngressHost | AddressSource::TlsHost
            )
        })
        .map(|a| Address {
            value: a.value.clone(),
            source: AddressSource::ControllerIngressHost,
            location: a.location.clone(),
            link: Some(link.to_string()),
        })
        .collect()
}

/// Copy every in-cluster-served Ingress's hosts to the LoadBalancer Services in front of
/// its controller.
pub fn link_ingress_hosts(
    ws: &Workspace,
    views: &Views<'_>,
    workloads: &[ObjectId],
    entry_points: &mut [EntryPoint],
    profile: &Profile,
) {
    let controllers: Vec<Controller> = workloads
        .iter()
        .filter_map(|&w| controller_of(ws, w))
        .collect();
    let links = profile
        .spec
        .ingress_controllers
        .as_deref()
        .unwrap_or_default();
    if controllers.is_empty() && links.is_empty() {
        return;
    }
    let classes = ingress_classes(views);
    let serving = Serving {
        ws,
        entry_points,
        default_class: classes.iter().find(|(_, (_, d))| *d).map(|(name, _)| *name),
        classes,
        controllers,
        links,
        // Services by namespace and name, and by the workloads they select (in entry
        // order): ingresses x controllers x Services would be cubic in a big repository.
        service_by_name: by_name(ws, entry_points, EntryKind::Service),
        services_by_backend: services_by_backend(entry_points),
    };
    let mut served: Vec<(usize, Address)> = entry_points
        .iter()
        .filter(|entry| entry.kind == EntryKind::Ingress)
        .flat_map(|entry| serving.hosts_served(entry))
        .collect();
    served.extend(serving.http_proxy_hosts(views));
    served.extend(serving.emissary_hosts(views));
    add_new_addresses(entry_points, served);
}

/// IngressClass name -> (spec.controller, default class).
fn ingress_classes<'w>(views: &Views<'w>) -> HashMap<&'w str, (Option<&'w str>, bool)> {
    views
        .ingress_classes()
        .map(|class| {
            let controller = class.controller.and_then(|c| c.as_str());
            (class.object.name(), (controller, class.is_default()))
        })
        .collect()
}

/// LoadBalancer Service entry points by the workloads they select, in entry order.
fn services_by_backend(entry_points: &[EntryPoint]) -> HashMap<ObjectId, Vec<usize>> {
    let mut found: HashMap<ObjectId, Vec<usize>> = HashMap::new();
    for (target, service) in entry_points.iter().enumerate() {
        if service.kind == EntryKind::Service {
            for &workload in service.backends.iter() {
                found.entry(workload).or_default().push(target);
            }
        }
    }
    found
}

/// Who serves which Ingress class, and the Services in front of them.
struct Serving<'w> {
    ws: &'w Workspace,
    entry_points: &'w [EntryPoint],
    classes: HashMap<&'w str, (Option<&'w str>, bool)>,
    default_class: Option<&'w str>,
    controllers: Vec<Controller>,
    /// The profile's `spec.ingressControllers`.
    links: &'w [crate::profile::IngressControllerLink],
    service_by_name: HashMap<(&'w str, &'w str), Vec<usize>>,
    services_by_backend: HashMap<ObjectId, Vec<usize>>,
}

impl Serving<'_> {
    /// The hosts of one Ingress, each with the Service entry point (by index) that
    /// serves it: the Service the profile names for its class, and the Services in
    /// front of the controller pods that serve its class.
    fn hosts_served(&self, entry: &EntryPoint) -> Vec<(usize, Address)> {
        let ws = self.ws;
        let mut served = Vec::new();
        // Without a class, TKE's own controller takes the Ingress it owns (the owner rule:
        // the profile's provider, or TKE's annotations without a profile); elsewhere the
        // default class.
        let class = match (entry.class.as_deref(), self.default_class) {
            (Some(class), _) => class,
            (None, _) if entry.provider == Some(Provider::Tke) => return served,
            (None, Some(class)) => class,
            // No class and no default IngressClass: only a controller that takes Ingresses
            // without a class serves it (Contour by default).
            (None, None) => return self.classless_hosts(entry),
        };
        let controller_name = self.classes.get(class).and_then(|(c, _)| *c);
        let ingress = &ws.objects[entry.object].id;
        let class_text = match (entry.class.is_some(), controller_name) {
            (true, Some(name)) => format!("class {class} (IngressClass controller {name})"),
            (true, None) => format!("class {class}"),
            (false, Some(name)) => format!("default IngressClass {class} (controller {name})"),
            (false, None) => format!("default IngressClass {class}"),
        };
        // The profile names the Service in front of this class's controller.
        for link in self
            .links
            .iter()
            .filter(|l| l.class == class && l.service.kind == "Service")
        {
            for (target, service) in self.entry_points.iter().enumerate() {
                if service.kind == EntryKind::Service
                    && ws.objects[service.object].is(&link.service)
                {
                    let how = format!(
                        "{ingress}, {class_text}, served behind this Service as the profile's \
                         spec.ingressControllers states"
                    );
                    served.extend(hosts_of(entry, &how).into_iter().map(|h| (target, h)));
                }
            }
        }
        if !entry.addresses.iter().any(|a| {
            matches!(
                a.source,
                AddressSource::IngressHost | AddressSource::TlsHost
            )
        }) {
            return served;
        }
        let serving = self.controllers.iter().filter(|c| {
            c.classes.iter().any(|k| k == class)
                || controller_name.is_some_and(|name| c.controller_class.as_deref() == Some(name))
        });
        for controller in serving {
            served.extend(self.fronted(entry, controller, &format!("{ingress}, {class_text}")));
        }
        served
    }

    /// The hosts (`spec.virtualhost.fqdn`) of Contour's HTTPProxies, as addresses of the
    /// Envoy Service of each Contour that serves their class (`MatchesIngressClass`: a
    /// proxy without a class is served by a Contour without `--ingress-class-name`).
    fn http_proxy_hosts(&self, views: &Views<'_>) -> Vec<(usize, Address)> {
        let mut served = Vec::new();
        for proxy in views.http_proxies() {
            let Some(fqdn) = proxy.fqdn else { continue };
            let serving = self.controllers.iter().filter(|c| {
                c.contour
                    && proxy
                        .class
                        .map_or(c.classless, |class| c.classes.iter().any(|k| k == class))
            });
            for controller in serving {
                served.extend(self.host_served(controller, proxy.object, fqdn));
            }
        }
        served
    }

    /// The hosts of Emissary's Mappings and Hosts (for the `default` ambassador id), as
    /// addresses of the Services in front of the Emissary pods. A glob other than a leading
    /// `*.` names no single host.
    fn emissary_hosts(&self, views: &Views<'_>) -> Vec<(usize, Address)> {
        let mut served = Vec::new();
        for view in views.emissary_hosts() {
            let Some(node) = view.host else { continue };
            let Some(host) = node.as_str() else { continue };
            let glob = host.trim_start_matches("*.").contains(['*', '?', '[']);
            let ours = view.ambassador_ids.is_empty() || view.ambassador_ids.contains(&"default");
            if glob || !ours {
                continue;
            }
            for controller in self.controllers.iter().filter(|c| c.emissary) {
                served.extend(self.host_served(controller, view.object, node));
            }
        }
        served
    }

    /// The host written at `node` of `object` (a route-like object a controller serves), as
    /// an address of the Services in front of `controller`.
    fn host_served(
        &self,
        controller: &Controller,
        object: &Object,
        node: NodeRef<'_>,
    ) -> Vec<(usize, Address)> {
        let how = self.served_by(controller, &object.id.to_string());
        let source = AddressSource::ControllerIngressHost;
        let Some(address) = host_address(self.ws, node, object, source, how) else {
            return Vec::new();
        };
        self.fronting(controller)
            .iter()
            .map(|&target| (target, address.clone()))
            .collect()
    }

    /// The hosts of an Ingress without a class, served by controllers that take those.
    fn classless_hosts(&self, entry: &EntryPoint) -> Vec<(usize, Address)> {
        let ingress = &self.ws.objects[entry.object].id;
        self.controllers
            .iter()
            .filter(|c| c.classless)
            .flat_map(|c| self.fronted(entry, c, &format!("{ingress}, no class")))
            .collect()
    }

    /// `entry`'s hosts as addresses of the Services in front of `controller`.
    fn fronted(
        &self,
        entry: &EntryPoint,
        controller: &Controller,
        what: &str,
    ) -> Vec<(usize, Address)> {
        let how = self.served_by(controller, what);
        self.fronting(controller)
            .iter()
            .flat_map(|&target| hosts_of(entry, &how).into_iter().map(move |h| (target, h)))
            .collect()
    }

    /// The Service entry points in front of `controller`: the one it publishes, else those
    /// that select its pods.
    fn fronting<'s>(&'s self, controller: &'s Controller) -> &'s [usize] {
        match &controller.publish {
            Some((ns, name)) => self.service_by_name.get(&(ns.as_str(), name.as_str())),
            None => self.services_by_backend.get(&controller.workload),
        }
        .map_or(&[], Vec::as_slice)
    }

    /// How `what` reaches the Services in front of `controller`, for `lblint model`.
    fn served_by(&self, controller: &Controller, what: &str) -> String {
        format!(
            "{what}, served by controller pods {}{}",
            self.ws.objects[controller.workload].id, controller.publish_how
        )
    }
}

/// A host named at `node` of `object`, as an address linked by `link`. Istio hosts may be
/// `namespace/host`; `*` alone matches anything, not an address.
pub(super) fn host_address(
    ws: &Workspace,
    node: NodeRef<'_>,
    object: &Object,
    source: AddressSource,
    link: String,
) -> Option<Address> {
    let value = super::address::normalize(node.as_str()?);
    let value = value.rsplit('/').next().unwrap_or(&value).to_string();
    (value != "*" && !value.is_empty()).then(|| Address {
        value,
        source,
        location: Some(ws.location(object, node.span())),
        link: Some(link),
    })
}

/// The entry points of `kind`, by their object's namespace and name, in entry order.
pub(super) fn by_name<'w>(
    ws: &'w Workspace,
    entry_points: &[EntryPoint],
    kind: EntryKind,
) -> HashMap<(&'w str, &'w str), Vec<usize>> {
    let mut found: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (target, entry) in entry_points.iter().enumerate() {
        if entry.kind == kind {
            let object = &ws.objects[entry.object];
            found
                .entry((object.namespace(), object.name()))
                .or_default()
                .push(target);
        }
    }
    found
}

/// Add each address to its entry point unless one with the same value is there already
/// (a set per entry point: a controller can serve thousands of hosts).
pub(super) fn add_new_addresses(entry_points: &mut [EntryPoint], served: Vec<(usize, Address)>) {
    let mut seen: HashMap<usize, HashSet<String>> = HashMap::new();
    for (target, address) in served {
        let values = seen.entry(target).or_insert_with(|| {
            entry_points[target]
                .addresses
                .iter()
                .map(|a| a.value.clone())
                .collect()
        });
        if values.insert(address.value.clone()) {
            entry_points[target].addresses.push(address);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_every_spelling() {
        let found = flags(&[
            "/nginx-ingress-controller --ingress-class=nginx",
            "--publish-service",
            "ns/svc",
            "--controller-class=\"k8s.io/x\"",
            "--watch-namespace",
            "--v=2",
        ]);
        let found: Vec<(&str, &str)> = found
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("ingress-class", "nginx"),
                ("publish-service", "ns/svc"),
                ("controller-class", "k8s.io/x"),
                ("v", "2"),
            ]
        );
    }
}
