//! The cluster model, built once per run: load-balancer entry points, their addresses
//! and backends, the pods that call them, and where each pod can run. Rules read it.

pub mod address;
mod aliases;
pub mod callers;
pub mod calls;
pub mod consumed;
pub mod controllers;
pub mod entry;
pub mod evidence;
pub mod implicit;
pub mod report;
pub mod scheduling;
pub mod tke_config;
pub mod views;

use std::collections::HashMap;
use std::sync::Arc;

use crate::objects::{pod_template, selector_matches, ObjectId, Workspace};
use crate::profile::{NodePool, Profile, Provider};
use crate::yaml::NodeRef;

pub use address::{Address, AddressSource};
pub use calls::{Caller, Evidence, SafeCall, Via};
pub use entry::{EntryKind, Layer, Network};
pub use scheduling::{Fit, Placement};

/// An object that gets a cloud load balancer.
#[derive(Clone, Debug)]
pub struct EntryPoint {
    /// Index into [`Workspace::objects`].
    pub object: ObjectId,
    pub kind: EntryKind,
    pub layer: Layer,
    /// The cloud whose controller handles it: from its annotations, else the profile.
    pub provider: Option<Provider>,
    pub network: Network,
    /// Ingress class, Gateway class or Service `loadBalancerClass`.
    pub class: Option<String>,
    pub addresses: Vec<Address>,
    /// Services behind an Ingress (indices into [`Workspace::objects`]).
    pub services: Vec<ObjectId>,
    /// Workloads whose pods receive its traffic (shared by entry points with one selector).
    pub backends: Arc<[ObjectId]>,
}

/// An entry point's position in [`Model::entry_points`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(pub usize);

impl std::ops::Index<EntryId> for Vec<EntryPoint> {
    type Output = EntryPoint;

    fn index(&self, id: EntryId) -> &EntryPoint {
        &self[id.0]
    }
}

/// A namespace and a Service selector's label pairs, sorted.
type SelectorKey<'a> = (&'a str, Vec<(&'a str, &'a str)>);

#[derive(Debug, Default)]
pub struct Model {
    pub entry_points: Vec<EntryPoint>,
    /// Calls to a load balancer's own address from inside the cluster.
    pub callers: Vec<Caller>,
    /// Calls by Service name or ClusterIP (never through a load balancer).
    pub safe_calls: Vec<SafeCall>,
    /// Indices into `callers`, by target entry point.
    callers_by_target: Vec<Vec<usize>>,
    /// Objects with a pod template.
    pub workloads: Vec<ObjectId>,
    /// Where each workload can run, by object index.
    placements: HashMap<ObjectId, Placement>,
    pools: Vec<NodePool>,
}

impl Model {
    /// Every entry point with its id, in object order.
    pub fn entries(&self) -> impl Iterator<Item = (EntryId, &EntryPoint)> {
        self.entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (EntryId(i), e))
    }

    pub fn build(ws: &Workspace, profile: &Profile) -> Model {
        Model::build_on(ws, profile, 1)
    }

    /// [`Model::build`], scanning the workloads for calls on up to `threads` threads (the
    /// result is the same on any number).
    pub fn build_on(ws: &Workspace, profile: &Profile, threads: usize) -> Model {
        let pools = profile.node_pools();
        let mut workloads = Vec::new();
        let mut placements = HashMap::new();
        let mut by_namespace: HashMap<&str, Vec<ObjectId>> = HashMap::new();
        // (namespace, label key, label value) -> workloads whose pods carry that label, so a
        // selector is matched against its candidates only (linear in the manifest set).
        let mut by_label: HashMap<(&str, &str, &str), Vec<ObjectId>> = HashMap::new();
        for (index, object) in ws.ids() {
            if let Some(template) = pod_template(ws, object) {
                workloads.push(index);
                placements.insert(index, scheduling::placement(&template, pools));
                by_namespace
                    .entry(object.namespace())
                    .or_default()
                    .push(index);
                for (key, value) in scheduling::template_labels(&template) {
                    by_label
                        .entry((object.namespace(), key, value))
                        .or_default()
                        .push(index);
                }
            }
        }
        // Services often share one selector (a Service per port, blue/green pairs): match each
        // distinct (namespace, selector) once, so N Services over N workloads stay linear.
        // Per selector: the matching workloads, and whether they all sit in one file (then
        // every Service with that selector takes them all, shared).
        let mut backends_by_selector: HashMap<SelectorKey<'_>, (Arc<[ObjectId]>, bool)> =
            HashMap::new();
        let mut service_backends = |service: ObjectId| -> Arc<[ObjectId]> {
            let object = &ws.objects[service];
            let selector = ws.spec(object).and_then(|s| s.get("selector"));
            let pairs: Option<Vec<(&str, &str)>> = selector.and_then(|s| {
                s.entries()
                    .map(|(k, v)| Some((k.as_str()?, v.as_str()?)))
                    .collect()
            });
            let Some(pairs) = pairs.filter(|p| !p.is_empty()) else {
                return Arc::from([]);
            };
            let (key, value) = pairs[0];
            let mut sorted = pairs;
            sorted.sort_unstable();
            let (all, one_file) = backends_by_selector
                .entry((object.namespace(), sorted))
                .or_insert_with(|| {
                    let all: Arc<[ObjectId]> = by_label
                        .get(&(object.namespace(), key, value))
                        .into_iter()
                        .flatten()
                        .copied()
                        .filter(|&w| {
                            pod_template(ws, &ws.objects[w])
                                .is_some_and(|t| selector_matches(selector, t.labels))
                        })
                        .collect();
                    let one_file = all.first().is_none_or(|f| {
                        all.iter()
                            .all(|w| ws.objects[*w].file == ws.objects[*f].file)
                    });
                    (all, one_file)
                })
                .clone();
            // Same-named workloads in several overlays: the Service's own copy.
            if one_file {
                all
            } else {
                Arc::from(ws.nearest(object, &all))
            }
        };
        let mut services_by_name: HashMap<(&str, &str), Vec<ObjectId>> = HashMap::new();
        for (index, object) in ws.ids() {
            if object.kind() == "Service" && object.group().is_empty() {
                services_by_name
                    .entry((object.namespace(), object.name()))
                    .or_default()
                    .push(index);
            }
        }

        let mut entry_points = Vec::new();
        for (index, object) in ws.ids() {
            let Some(class) = entry::classify(ws, object, profile) else {
                continue;
            };
            let addresses = address::collect(ws, object, class.kind, profile);
            // A Gateway is an entry point only once it has an address or a listener hostname.
            if class.kind == EntryKind::Gateway && addresses.is_empty() {
                continue;
            }
            let (services, backends) = match class.kind {
                EntryKind::Service => (Vec::new(), service_backends(index)),
                EntryKind::Ingress => {
                    let services: Vec<ObjectId> = ingress_service_names(ws.spec(object))
                        .into_iter()
                        .flat_map(|name| {
                            // Same-named Services in several overlays: the Ingress's own.
                            services_by_name
                                .get(&(object.namespace(), name))
                                .map(|all| ws.nearest(object, all))
                                .unwrap_or_default()
                        })
                        .fold(Vec::new(), |mut acc, s| {
                            if !acc.contains(&s) {
                                acc.push(s);
                            }
                            acc
                        });
                    let mut backends: Vec<ObjectId> = services
                        .iter()
                        .flat_map(|&s| service_backends(s).to_vec())
                        .collect();
                    backends.sort_unstable();
                    backends.dedup();
                    (services, Arc::from(backends))
                }
                EntryKind::IstioGateway => {
                    (Vec::new(), gateway_pods(ws, index, &by_namespace).into())
                }
                EntryKind::Gateway => (Vec::new(), Arc::from([])),
            };
            entry_points.push(EntryPoint {
                object: index,
                kind: class.kind,
                layer: class.layer,
                provider: class.provider,
                network: match class.network {
                    // A reused load balancer: the profile may say what it is.
                    Network::Unknown => stated_network(profile, object).unwrap_or(Network::Unknown),
                    network => network,
                },
                class: class.class,
                addresses,
                services,
                backends,
            });
        }
        controllers::link_ingress_hosts(ws, &workloads, &mut entry_points, profile);
        controllers::link_gateway_hosts(ws, &mut entry_points);
        let (callers, safe_calls) = callers::find(ws, &entry_points, &workloads, threads);
        let mut callers_by_target = vec![Vec::new(); entry_points.len()];
        // A pod naming the address as its own public URL does not call it: the provider
        // rules never see it (K8S001 still notes it).
        for (i, caller) in callers.iter().enumerate() {
            if caller.evidence == Evidence::Identity {
                continue;
            }
            if let Some(list) = callers_by_target.get_mut(caller.target.0) {
                list.push(i);
            }
        }
        Model {
            entry_points,
            callers,
            safe_calls,
            callers_by_target,
            workloads,
            placements,
            pools: pools.map(<[NodePool]>::to_vec).unwrap_or_default(),
        }
    }

    /// The calls and mentions of one entry point's address, in the order they were found
    /// (indexed: rules ask for every entry point's callers, and a scan each time was
    /// quadratic). The app's own public URL is not among them.
    pub fn callers_of(&self, entry_point: EntryId) -> impl Iterator<Item = &Caller> {
        self.callers_by_target
            .get(entry_point.0)
            .into_iter()
            .flatten()
            .map(|&i| &self.callers[i])
    }

    pub fn placement(&self, workload: ObjectId) -> Option<&Placement> {
        self.placements.get(&workload)
    }

    pub fn pools(&self) -> &[NodePool] {
        &self.pools
    }

    /// Can a pod of `caller` run on the same node as a pod of `backend`, on a pool accepted
    /// by `filter`? No when required pod anti-affinity on `kubernetes.io/hostname` keeps
    /// them apart, or no accepted pool takes both.
    pub fn can_share_node(
        &self,
        ws: &Workspace,
        caller: ObjectId,
        backend: ObjectId,
        filter: impl Fn(&NodePool) -> bool,
    ) -> Fit {
        if caller == backend {
            // Replicas of one workload call each other through the LB too.
            return self.any_pool(caller, &filter);
        }
        let (c, b) = (&ws.objects[caller], &ws.objects[backend]);
        let (Some(ct), Some(bt)) = (pod_template(ws, c), pod_template(ws, b)) else {
            return Fit::Unknown;
        };
        let (c_labels, b_labels) = (
            scheduling::template_labels(&ct),
            scheduling::template_labels(&bt),
        );
        if scheduling::repels(&ct, c.namespace(), &b_labels, b.namespace())
            || scheduling::repels(&bt, b.namespace(), &c_labels, c.namespace())
        {
            return Fit::No;
        }
        let (Some(Placement { pools: Some(cp) }), Some(Placement { pools: Some(bp) })) =
            (self.placement(caller), self.placement(backend))
        else {
            return Fit::Unknown;
        };
        // Some pool both can use.
        Fit::any(
            cp.iter()
                .zip(bp)
                .zip(&self.pools)
                .filter(|(_, pool)| filter(pool))
                .map(|((cf, bf), _)| cf.and(*bf)),
        )
    }

    /// Can the workload run on any pool accepted by `filter`?
    pub fn any_pool(&self, workload: ObjectId, filter: impl Fn(&NodePool) -> bool) -> Fit {
        match self.placement(workload) {
            Some(p) => p.any(&self.pools, filter),
            None => Fit::Unknown,
        }
    }

    /// Is a pod of `backend` on every node a pod of `caller` can use? Only a DaemonSet
    /// that fits every pool the caller fits guarantees it.
    pub fn covers(&self, ws: &Workspace, backend: ObjectId, caller: ObjectId) -> Fit {
        if ws.objects[backend].kind() != "DaemonSet" {
            return Fit::No;
        }
        let (Some(Placement { pools: Some(bp) }), Some(Placement { pools: Some(cp) })) =
            (self.placement(backend), self.placement(caller))
        else {
            return Fit::Unknown;
        };
        let mut fit = Fit::Yes;
        for (cf, bf) in cp.iter().zip(bp) {
            fit = match (cf, bf) {
                (Fit::No, _) => fit,
                (_, Fit::No) => return Fit::No,
                (Fit::Yes, Fit::Yes) => fit,
                _ => Fit::Unknown,
            };
        }
        fit
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

/// `loadBalancers[].network` of the profile entry for `object`.
fn stated_network(profile: &Profile, object: &crate::objects::Object) -> Option<Network> {
    profile
        .load_balancers()
        .filter(|lb| lb.object.as_ref().is_some_and(|key| object.is(key)))
        .find_map(|lb| lb.network)
        .map(|network| match network {
            crate::profile::LbNetwork::Private => Network::Private,
            crate::profile::LbNetwork::Public => Network::Public,
        })
}

/// The gateway pods of an ASM IstioGateway, when present in the set: workloads in its
/// namespace whose pod labels include its `podLabels`, or that carry its name.
fn gateway_pods(
    ws: &Workspace,
    gateway: ObjectId,
    by_namespace: &HashMap<&str, Vec<ObjectId>>,
) -> Vec<ObjectId> {
    let object = &ws.objects[gateway];
    let pod_labels = ws.spec(object).and_then(|s| s.get("podLabels"));
    by_namespace
        .get(object.namespace())
        .into_iter()
        .flatten()
        .copied()
        .filter(|&w| {
            let workload = &ws.objects[w];
            workload.name() == object.name()
                || pod_template(ws, workload)
                    .is_some_and(|t| selector_matches(pod_labels, t.labels))
        })
        .collect()
}

#[cfg(test)]
mod tests;
