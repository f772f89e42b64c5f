//! The PROXY-protocol family's table: every provider whose load balancer speaks PROXY
//! protocol or terminates TLS. Each member claims its provider's load balancers (`claims`
//! in `mod.rs`), so K8S010 leaves their calls through the load balancer to it (that is the
//! vendor's own way out there); K8S001's help reads the table to warn that a direct call
//! skips the feature; `registry()` runs each member from here. A new provider of the family
//! is one adapter, its line here and its `rules/<ID>.md`.

use crate::profile::Provider;

use super::cloudscale::CLOUDSCALE;
use super::doks::DOKS;
use super::hetzner::HETZNER;
use super::lke::LKE;
use super::oke::OKE;
use super::openstack::OPENSTACK;
use super::scaleway::SCALEWAY;
use super::ProxyProvider;

/// The providers with a rule: each adapter is that rule.
pub(crate) static PROVIDERS: [&ProxyProvider; 7] = [
    &DOKS,
    &HETZNER,
    &LKE,
    &SCALEWAY,
    &OPENSTACK,
    &CLOUDSCALE,
    &OKE,
];

/// Is `provider`'s load balancer one that speaks PROXY protocol or terminates TLS?
pub(crate) fn is_member(provider: Provider) -> bool {
    PROVIDERS.iter().any(|p| p.provider == provider)
}

#[cfg(test)]
mod tests {
    use super::is_member;
    use crate::profile::Provider;

    /// The table holds exactly the family K8S010 left alone before it read the table.
    #[test]
    fn the_family_is_the_seven_proxy_protocol_providers() {
        let members: Vec<Provider> = Provider::ALL
            .into_iter()
            .filter(|&p| is_member(p))
            .collect();
        assert_eq!(
            members.len(),
            7,
            "{members:?}: DOKS, LKE, Hetzner, Scaleway, OpenStack, cloudscale and OKE"
        );
        for p in [
            Provider::Doks,
            Provider::Lke,
            Provider::Hetzner,
            Provider::Scaleway,
            Provider::Openstack,
            Provider::Cloudscale,
            Provider::Oke,
        ] {
            assert!(is_member(p), "{p}");
        }
    }
}
