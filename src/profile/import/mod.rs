//! `lblint profile import`: a cluster profile from read-only kubectl dumps, offline. Every
//! imported fact names its evidence (object and value); a fact with none is left out with a
//! comment that says how to state it; conflicting evidence is reported and left out, never
//! guessed. Secrets are never read. The result passes `profile check`.

mod cloud;
mod dump;
mod nodes;
mod redact;
mod split;
mod value;
mod workloads;
mod write;

use std::collections::BTreeMap;

pub(crate) use dump::Input;

use crate::profile::Provider;
use crate::settings::SettingsError;
use dump::{Dump, Loaded};

/// The commands whose output the importer reads (README, "Importing a profile").
pub(crate) const COMMANDS: &str =
    "give the output of read-only kubectl commands, e.g. `kubectl version \
     -o yaml`, `kubectl get nodes -o yaml`, `kubectl -n kube-system get ds,deploy,cm,pods -o \
     yaml`, `kubectl get svc,ingress,ingressclass -A -o yaml`";

/// Why a fact has its value.
#[derive(Clone, Debug)]
pub(crate) struct Evidence(pub String);

/// The facts found, by profile path, and what could not be settled.
#[derive(Default)]
pub(crate) struct Found {
    values: BTreeMap<String, (String, Evidence)>,
    /// Facts left out, with how to state them.
    unknown: BTreeMap<String, String>,
    /// Facts left out because the dumps disagree.
    conflicts: BTreeMap<String, String>,
}

impl Found {
    fn set(&mut self, path: &str, value: &str, why: String) {
        self.set_owned(path.to_string(), value.to_string(), why);
    }

    fn set_owned(&mut self, path: String, value: String, why: String) {
        if self.conflicts.contains_key(&path) {
            return;
        }
        // A version the profile cannot hold (an image tag such as `latest`) is left out and
        // said, never written: `profile check` would refuse it.
        if VERSION_FIELDS.contains(&path.as_str())
            && crate::profile::version::parse_version(&value).is_none()
        {
            let how =
                format!("{why} is `{value}`, not a version lblint can compare: state it by hand");
            self.unknown(&path, &how);
            return;
        }
        match self.values.get(&path) {
            Some((seen, first)) if *seen != value => {
                let both = format!("{seen} ({}) and {value} ({why})", first.0);
                self.values.remove(&path);
                self.conflicts.insert(path, both);
            }
            Some(_) => {}
            None => {
                self.unknown.remove(&path);
                self.values.insert(path, (value, Evidence(why)));
            }
        }
    }

    fn unknown(&mut self, path: &str, how: &str) {
        if !self.values.contains_key(path) {
            self.unknown.insert(path.to_string(), how.to_string());
        }
    }

    fn conflict(&mut self, path: &str, what: &str) {
        self.conflict_owned(path.to_string(), what.to_string());
    }

    fn conflict_owned(&mut self, path: String, what: String) {
        self.values.remove(&path);
        self.conflicts.insert(path, what);
    }

    fn get(&self, path: &str) -> Option<&(String, Evidence)> {
        self.values.get(path)
    }
}

/// The profile's version fields (`profile::values` refuses a value `parse_version` cannot
/// read in any of them).
const VERSION_FIELDS: &[&str] = &[
    "spec.kubernetesVersion",
    "spec.kubeProxy.version",
    "spec.addons.ingressController",
    "spec.addons.cloudControllerManager",
    "spec.addons.awsLoadBalancerController",
    "spec.addons.cilium",
];

/// The imported profile: its text, and the conflicts and gaps to tell the user.
pub(crate) struct Imported {
    pub profile: String,
    pub conflicts: Vec<String>,
}

/// Import a profile from the dumps; `provider` is the cloud the user states
/// (`--provider`), for dumps that cannot show it.
pub(crate) fn import(
    inputs: Vec<Input>,
    provider: Option<Provider>,
) -> Result<Imported, SettingsError> {
    let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    let loaded = Loaded::parse(&inputs)?;
    let dump = loaded.dump();
    let (found, pools, lbs, links) = facts(&dump, &names, provider);
    // Never a silent `generic`: it turns every cloud rule off.
    if found.get("spec.provider").is_none() {
        return Err(dump::unsettled_cloud(
            &inputs,
            found.conflicts.get("spec.provider").map(String::as_str),
        ));
    }
    let profile = write::profile(&names, &found, &pools, &lbs, &links);
    // What the importer writes must be a valid profile; anything else is lblint's bug.
    if let Err(e) = crate::profile::parse_profile(&profile, "imported profile") {
        panic!("profile import wrote an invalid profile: {e}\n{profile}");
    }
    let conflicts = found
        .conflicts
        .iter()
        .map(|(path, what)| format!("{path}: the dumps disagree: {what}"))
        .collect();
    Ok(Imported { profile, conflicts })
}

type Facts = (
    Found,
    Vec<nodes::Pool>,
    Vec<write::LbAddresses>,
    Vec<write::Link>,
);

fn facts(dump: &Dump<'_>, names: &[String], stated: Option<Provider>) -> Facts {
    let mut found = Found::default();
    let containers = workloads::containers(dump);
    let mut provider = match stated {
        Some(p) => {
            found.set("spec.provider", p.as_str(), "--provider".to_string());
            Some(p)
        }
        None => nodes::provider(dump.nodes, &mut found),
    };
    if provider.is_none() && !found.conflicts.contains_key("spec.provider") {
        provider = provider_from_clues(dump, &containers, names, &mut found);
    }
    match (dump.server_version, nodes::lowest_kubelet(dump.nodes)) {
        (Some((version, input)), _) => found.set(
            "spec.kubernetesVersion",
            version,
            format!(
                "serverVersion.gitVersion of `kubectl version` ({})",
                names[input]
            ),
        ),
        (None, Some((version, why))) => found.set("spec.kubernetesVersion", &version, why),
        (None, None) => found.unknown("spec.kubernetesVersion", "add `kubectl version -o yaml`"),
    }
    workloads::kube_proxy(dump, &containers, &mut found);
    if dump.nodes.k3s() && containers.iter().all(|c| !workloads::is_kube_proxy(c)) {
        found.unknown(
            "spec.kubeProxy.mode",
            "k3s runs kube-proxy inside its own process, which no dump shows: state the mode \
             it runs with (k3s's --kube-proxy-arg)",
        );
    }
    if provider == Some(Provider::Tke) {
        tke_lb_address_binding(&mut found);
    }
    workloads::network(&containers, &mut found);
    workloads::controllers(dump, &containers, &mut found);
    unstated_controllers(provider, &mut found);
    let pools = nodes::pools(dump.nodes, provider);
    if dump.nodes.count() == 0 {
        found.unknown(
            "spec.nodePools",
            "add `kubectl get nodes -o yaml`: pools come from the nodes' labels and taints \
             (unstated, rules that need them warn)",
        );
    }
    let untyped: Vec<&str> = pools
        .iter()
        .filter(|p| matches!(p.node_type, Some(Err(_))))
        .map(|p| p.name.as_str())
        .collect();
    if !untyped.is_empty() {
        found.unknown(
            "spec.nodePools[].type",
            &format!(
                "the nodes of pool {} do not show whether they are regular, native or super nodes \
                 (super nodes do not loop back): state each pool's type",
                untyped.join(", ")
            ),
        );
    }
    let lbs = write::load_balancers(dump);
    let links = write::ingress_links(dump, &containers);
    (found, pools, lbs, links)
}

/// No node names the cloud: what kube-system, the versions and the Services say.
fn provider_from_clues(
    dump: &Dump<'_>,
    containers: &[workloads::Container<'_>],
    names: &[String],
    found: &mut Found,
) -> Option<Provider> {
    match cloud::clues(dump, containers, names).verdict() {
        Ok(Some((provider, why))) => {
            let why = format!("{why} (no node dump names the cloud)");
            found.set("spec.provider", provider.as_str(), why);
            Some(provider)
        }
        Ok(None) => None,
        Err(candidates) => {
            found.conflict("spec.provider", &candidates);
            None
        }
    }
}

/// TKE: whether the imported kube-proxy build binds LB addresses to the IPVS NIC
/// (prevent-loopback needs it), from TKE's table of builds.
fn tke_lb_address_binding(found: &mut Found) {
    const PATH: &str = "spec.kubeProxy.lbAddressBinding";
    let Some((version, why)) = found.get("spec.kubeProxy.version").cloned() else {
        return;
    };
    let (value, reason) = match crate::profile::tke_binding::binding(&version) {
        crate::profile::tke_binding::Binding::Binds(reason) => ("true", reason),
        crate::profile::tke_binding::Binding::Older(reason) => ("false", reason),
        crate::profile::tke_binding::Binding::Unknown(reason) => {
            found.unknown(
                PATH,
                &format!("{reason}: state it if TKE confirms the build"),
            );
            return;
        }
    };
    found.set(
        PATH,
        value,
        format!("{} ({reason}; TKE revision history)", why.0),
    );
}

/// What the dumps cannot show for the provider's controllers, and how to state it.
fn unstated_controllers(provider: Option<Provider>, found: &mut Found) {
    use Provider::*;
    if let Some(p @ (Eks | Doks | Lke | Oke | Aks | Gke)) = provider {
        found.unknown(
            "spec.addons.cloudControllerManager",
            &format!(
                "{}'s control plane runs its cloud controller, which the cluster API does not show; \
                 state its version if a rule asks for it",
                p.label()
            ),
        );
    }
    if provider == Some(Eks) && found.get("spec.addons.awsLoadBalancerController").is_some() {
        found.unknown(
            "spec.addons.awsLoadBalancerControllerOptions.serviceMutatorWebhook",
            "the Deployment cannot show it (the chart's enableServiceMutatorWebhook creates only \
             the webhook configuration): add `kubectl get mutatingwebhookconfigurations -o yaml`; \
             unstated, rules assume the controller's default, on from v2.5.0",
        );
    }
}
