//! The cluster model, built once per run: load-balancer entry points, their addresses
//! and backends, the pods that call them, and where each pod can run. Rules read it.

pub mod address;
mod aliases;
pub mod ambiguous;
mod backends;
pub mod callers;
pub mod calls;
pub mod consumed;
pub mod controllers;
pub mod dns;
pub mod entry;
pub mod evidence;
mod external;
mod gateways;
pub mod implementation;
pub mod implicit;
mod parts;

pub mod scheduling;
mod service_names;
pub mod tke_config;
mod variants;
use crate::views::Views;

use std::collections::HashMap;
use std::sync::Arc;

use crate::objects::{ObjectId, Workspace};
use crate::profile::{NodePool, Profile, Provider};
use crate::views::pod_template;

use backends::Backends;

pub use address::{Address, AddressSource};
pub use calls::{Caller, Evidence, SafeCall, Via};
pub use entry::{EntryKind, Layer, Network};
pub use scheduling::{Fit, Placement};

/// `callers` indices by target entry point, for [`Model::callers_of`]: where each of the
/// `targets` entry points' run starts (and where the last ends), and the runs. A pod naming
/// the address as its own public URL does not call it: the provider rules never see it
/// (K8S001 still notes it).
fn index_callers(callers: &[Caller], targets: usize) -> (Vec<usize>, Vec<usize>) {
    let counted = |c: &Caller| c.evidence != Evidence::Identity && c.target.0 < targets;
    let mut starts = vec![0; targets + 1];
    for caller in callers.iter().filter(|c| counted(c)) {
        starts[caller.target.0 + 1] += 1;
    }
    for e in 0..targets {
        starts[e + 1] += starts[e];
    }
    let mut next = starts.clone();
    let mut ids = vec![0; starts[targets]];
    for (i, caller) in callers.iter().enumerate().filter(|(_, c)| counted(c)) {
        ids[next[caller.target.0]] = i;
        next[caller.target.0] += 1;
    }
    (starts, ids)
}

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
#[derive(Debug, Default)]
pub struct Model {
    pub entry_points: Vec<EntryPoint>,
    /// Calls to a load balancer's own address from inside the cluster.
    pub callers: Vec<Caller>,
    /// Calls whose host several controller-served load balancers serve equally: in no
    /// entry point's callers until the profile's `spec.ingressControllers` says which.
    pub ambiguous: Vec<ambiguous::Ambiguous>,
    /// Calls by Service name or ClusterIP (never through a load balancer).
    pub safe_calls: Vec<SafeCall>,
    /// Indices into `callers`, by target entry point: entry point `e`'s are
    /// `caller_ids[caller_starts[e]..caller_starts[e + 1]]`, in the order found. One list for
    /// all, not a list each: a stream of 917,446 Services has as many entry points, nearly
    /// all without callers, and an empty list each took 24 bytes.
    caller_starts: Vec<usize>,
    caller_ids: Vec<usize>,
    /// Entry points of load balancers created outside Kubernetes, each with its index in
    /// the profile's `loadBalancers`.
    pub external: Vec<(EntryId, usize)>,
    /// Objects with a pod template.
    pub workloads: Vec<ObjectId>,
    /// Where each workload can run, by object index.
    placements: HashMap<ObjectId, Placement>,
    pools: Vec<NodePool>,
}

impl Model {
    /// Every entry point a manifest's object gets, with its id, in object order (load
    /// balancers created outside Kubernetes are in [`Model::external`]).
    pub fn entries(&self) -> impl Iterator<Item = (EntryId, &EntryPoint)> {
        self.entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (EntryId(i), e))
            .filter(|(_, e)| e.kind != EntryKind::External)
    }

    /// Every entry point, those of load balancers created outside Kubernetes too (last).
    pub fn all_entries(&self) -> impl Iterator<Item = (EntryId, &EntryPoint)> {
        self.entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (EntryId(i), e))
    }

    pub fn build(ws: &Workspace, profile: &Profile) -> Model {
        Model::build_on(ws, &Views::build(ws), profile, 1)
    }

    /// [`Model::build`], scanning the workloads for calls on up to `threads` threads (the
    /// result is the same on any number).
    pub fn build_on(ws: &Workspace, views: &Views<'_>, profile: &Profile, threads: usize) -> Model {
        let pools = profile.node_pools();
        let mut backends = Backends::new(ws, views);
        let mut placements = HashMap::new();
        for &workload in &backends.workloads {
            if let Some(template) = pod_template(ws, &ws.objects[workload]) {
                placements.insert(workload, scheduling::placement(&template, pools));
            }
        }
        let mut entry_points = Vec::new();
        for (index, object) in ws.ids() {
            let Some(class) = entry::classify(ws, views, index, profile) else {
                continue;
            };
            let addresses = address::collect(ws, views, index, class.kind, profile);
            let (services, backend_pods) = backends.of_entry(index, class.kind);
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
                backends: backend_pods,
            });
        }
        controllers::link_ingress_hosts(ws, views, &backends.workloads, &mut entry_points, profile);
        gateways::link_gateway_hosts(ws, views, &mut entry_points);
        // After the links: an external load balancer fronts no ingress controller or route.
        let external = external::entry_points(ws, profile, &mut backends, &mut entry_points);
        let workloads = backends.workloads;
        let (mut callers, safe_calls) =
            callers::find(ws, views, &entry_points, &workloads, threads);
        let mut variants = variants::Variants::new(ws);
        if !variants.is_empty() {
            callers.retain(|c| {
                let target = &ws.objects[entry_points[c.target.0].object];
                !variants.apart(ws.objects[c.workload].file, target.file)
            });
        }
        // A host several controllers' load balancers serve is charged to none until stated.
        let (callers, ambiguous) = ambiguous::split(ws, &entry_points, profile, callers);
        let (caller_starts, caller_ids) = index_callers(&callers, entry_points.len());
        Model {
            entry_points,
            external,
            callers,
            ambiguous,
            safe_calls,
            caller_starts,
            caller_ids,
            workloads,
            placements,
            pools: pools.map(<[NodePool]>::to_vec).unwrap_or_default(),
        }
    }

    /// The calls and mentions of one entry point's address, in the order they were found
    /// (indexed: rules ask for every entry point's callers, and a scan each time was
    /// quadratic). The app's own public URL is not among them.
    pub fn callers_of(&self, entry_point: EntryId) -> impl Iterator<Item = &Caller> {
        let at = |e: usize| self.caller_starts.get(e).copied().unwrap_or(0);
        let (from, to) = (at(entry_point.0), at(entry_point.0 + 1));
        self.caller_ids
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .map(|&i| &self.callers[i])
    }

    pub fn placement(&self, workload: ObjectId) -> Option<&Placement> {
        self.placements.get(&workload)
    }

    pub fn pools(&self) -> &[NodePool] {
        &self.pools
    }

    /// Can a pod of `caller` run on the same node as a pod of `backend`, on a pool of the
    /// kind `kind` asks for (three-valued)? No when required pod anti-affinity on `kubernetes.io/hostname` keeps
    /// them apart, or no pool of that kind takes both.
    pub fn can_share_node(
        &self,
        ws: &Workspace,
        caller: ObjectId,
        backend: ObjectId,
        kind: impl Fn(&NodePool) -> Fit,
    ) -> Fit {
        if caller == backend {
            // Replicas of one workload call each other through the LB too.
            return self.any_pool(caller, &kind);
        }
        let (c, b) = (&ws.objects[caller], &ws.objects[backend]);
        let (Some(ct), Some(bt)) = (pod_template(ws, c), pod_template(ws, b)) else {
            return Fit::Unknown;
        };
        let (c_labels, b_labels) = (ct.label_map(), bt.label_map());
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
                .map(|((cf, bf), pool)| cf.and(*bf).and(kind(pool))),
        )
    }

    /// Can the workload run on any pool of the kind `kind` asks for (three-valued: a pool
    /// whose kind is not stated is unknown)?
    pub fn any_pool(&self, workload: ObjectId, kind: impl Fn(&NodePool) -> Fit) -> Fit {
        match self.placement(workload) {
            Some(p) => p.any(&self.pools, kind),
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

#[cfg(test)]
mod tests;
