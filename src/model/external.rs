//! Load balancers created outside Kubernetes (Terraform, the console) that the profile
//! describes (`loadBalancers[]` with `targets`): entry points in front of a Service's
//! NodePort or pods, whose callers the caller search finds like any other's.

use crate::objects::Workspace;
use crate::profile::Profile;

use super::address::{push_address, Address, AddressSource};
use super::backends::Backends;
use super::entry::{EntryKind, Layer, Network};
use super::{EntryId, EntryPoint};

/// One entry point per described load balancer whose target Service is in the manifests
/// (the last copy of it, as overlays come after their bases), with its profile index.
pub(super) fn entry_points(
    ws: &Workspace,
    profile: &Profile,
    backends: &mut Backends<'_>,
    entry_points: &mut Vec<EntryPoint>,
) -> Vec<(EntryId, usize)> {
    let mut out = Vec::new();
    for (index, lb) in profile.load_balancers().enumerate() {
        let Some(key) = &lb.targets else { continue };
        let Some((service, _)) = ws.ids().filter(|(_, o)| o.is(key)).last() else {
            continue;
        };
        let mut addresses: Vec<Address> = Vec::new();
        for text in lb.addresses.iter().flatten() {
            push_address(&mut addresses, text, AddressSource::Profile, None);
        }
        if addresses.is_empty() {
            continue;
        }
        let (services, pods) = backends.of_entry(service, EntryKind::External);
        out.push((EntryId(entry_points.len()), index));
        entry_points.push(EntryPoint {
            object: service,
            kind: EntryKind::External,
            layer: Layer::L4,
            // Only a profile describes these, so its provider owns them (`generic`: none).
            provider: Some(profile.provider()).filter(|p| *p != crate::profile::Provider::Generic),
            network: match lb.network {
                Some(crate::profile::LbNetwork::Private) => Network::Private,
                Some(crate::profile::LbNetwork::Public) => Network::Public,
                None => Network::Unknown,
            },
            class: None,
            addresses,
            services,
            backends: pods,
        });
    }
    out
}
