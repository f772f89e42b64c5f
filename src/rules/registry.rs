//! Which rules exist, in the order they run (so output is deterministic), and which run on
//! a cluster.

use super::{ack, cce, doks, eks, family, hetzner, k8s, oke, profile_objects, tke, vke, Rule};
use crate::profile::{Profile, Provider};

/// Rules that run over objects, in a fixed order so output is deterministic. The
/// PROXY-protocol family's members come from its table (`members::PROVIDERS`), where each
/// is listed once.
pub fn registry() -> Vec<&'static dyn Rule> {
    let mut rules: Vec<&'static dyn Rule> = vec![
        &tke::l4_loopback::L4Loopback,
        &tke::l7_loopback::L7Loopback,
        &tke::prevent_loopback::PreventLoopbackL7,
        &tke::prevent_loopback::PreventLoopbackKubeProxy,
        &tke::snat::SnatAllowlist,
        &tke::snat::L7SnatFieldVersion,
        &tke::service_config::MissingConfig,
        &tke::service_config::ManualAndAuto,
        &tke::service_config::ReservedName,
        &tke::service_config::UnmatchedListener,
        &tke::service_config::UnusedConfig,
        &tke::tradeoffs::UdpSnat,
        &tke::tradeoffs::L7Snat,
        &tke::tradeoffs::PreventLoopbackBypass,
        &k8s::lb_address_in_cluster::LbAddressInCluster,
        &k8s::annotation_value_not_string::AnnotationValueNotString,
        &vke::ip_mode_invalid::IpModeInvalid,
        &vke::ip_mode_not_load_balancer::IpModeNotLoadBalancer,
        &vke::proxy_prerequisites::ProxyPrerequisites,
        &vke::proxy_same_node::ProxySameNode,
        &vke::ip_mode_status_mismatch::IpModeStatusMismatch,
        &family::local_policy::ACK,
        &family::local_policy::UPSTREAM,
        &ack::eni_needs_terway::EniNeedsTerway,
        &ack::eni_with_local_policy::EniWithLocalPolicy,
        &ack::gateway_namespace::GatewayNamespace,
        &k8s::no_short_circuit::NoShortCircuit,
        &k8s::internal_traffic_policy_local::InternalTrafficPolicyLocal,
        &k8s::class_ignores_annotations::ClassIgnoresAnnotations,
        &k8s::external_lb_hairpin::ExternalLbHairpin,
        &k8s::annotation_rejected::AnnotationValueRejected,
        &doks::hostname_needs_dns::HostnameNeedsDns,
        &hetzner::stale_hostname::StaleHostname,
        &hetzner::ipvs_private_ingress::IpvsPrivateIngress,
        &oke::ip_mode_invalid::IpModeInvalid,
        &oke::ip_mode_before_1_30::IpModeBefore130,
        &eks::nlb_hairpin::NlbHairpin,
        &eks::instance_without_node_ports::InstanceWithoutNodePorts,
        &eks::proxy_protocol_instance_local::ProxyProtocolInstanceLocal,
        &family::local_policy::CCE,
        &cce::pass_through_same_node::PassThroughSameNode,
        &cce::mixed_pass_through::MixedPassThrough,
        &family::internal_lb::InternalLbInCluster,
        &family::internal_lb::InternalLbNodeCaller,
        &profile_objects::ProfileObjectMissing,
    ];
    let proxy_family = family::proxy_protocol::members::PROVIDERS.iter();
    rules.extend(proxy_family.map(|member| *member as &'static dyn Rule));
    rules
}

/// The rules of `rules` that run on a cluster of `provider` (see `crate::catalog::RuleMeta::runs_on`).
pub fn for_provider<'r>(rules: &[&'r dyn Rule], provider: Provider) -> Vec<&'r dyn Rule> {
    rules
        .iter()
        .copied()
        .filter(|rule| rule.meta().runs_on(provider))
        .collect()
}

/// The rules of `rules` that run with `profile`: its provider's ([`for_provider`]), or,
/// with no profile, every rule (each cloud's on the objects annotated for that cloud).
pub fn for_profile<'r>(rules: &[&'r dyn Rule], profile: &Profile) -> Vec<&'r dyn Rule> {
    if profile.is_absent() {
        return rules.to_vec();
    }
    for_provider(rules, profile.provider())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{all_meta, lookup, Providers};

    #[test]
    fn provider_rules_run_on_their_cloud_only() {
        let runs = |id: &str, provider| lookup(id).expect("a rule").runs_on(provider);
        assert!(runs("TKE001", Provider::Tke));
        assert!(!runs("TKE001", Provider::Vke) && !runs("TKE001", Provider::Ack));
        assert!(runs("VKE004", Provider::Vke) && !runs("VKE004", Provider::Tke));
        assert!(runs("ACK001", Provider::Ack) && !runs("ACK001", Provider::Tke));
        // `provider: generic` is none of the named clouds: no cloud's rule runs there.
        assert!(!runs("TKE001", Provider::Generic) && !runs("ACK001", Provider::Generic));
        for provider in Provider::ALL {
            assert!(runs("K8S001", provider) && runs("LBL001", provider));
        }
        let on_vke: Vec<&str> = for_provider(&registry(), Provider::Vke)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        assert_eq!(on_vke, ["VKE001", "VKE002", "VKE003", "VKE004", "VKE005"]);
    }

    /// A provider's rules run on its clusters only; the provider-neutral ones run
    /// everywhere; with no profile, every rule runs.
    #[test]
    fn provider_rules_run_on_their_provider_only() {
        for provider in Provider::ALL {
            for m in all_meta() {
                let expected =
                    m.providers == Providers::Any || m.providers.clouds().contains(&provider);
                assert_eq!(m.runs_on(provider), expected, "{} on {provider}", m.id);
            }
            assert!(
                all_meta()
                    .iter()
                    .any(|m| m.id == "K8S010" && m.runs_on(provider)),
                "{provider}"
            );
        }
        let mut on_doks: Vec<&str> = for_provider(&registry(), Provider::Doks)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        on_doks.sort_unstable();
        assert_eq!(on_doks, ["DOKS001", "DOKS002"]);
        let on_cce: Vec<&str> = for_provider(&registry(), Provider::Cce)
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| !id.starts_with("K8S") && !id.starts_with("LBL"))
            .collect();
        assert_eq!(on_cce, ["CCE001", "CCE002", "CCE003"]);
        let on_generic = for_provider(&registry(), Provider::Generic);
        assert!(on_generic
            .iter()
            .all(|r| r.meta().providers == Providers::Any));
        // No profile: every rule, each cloud's on the objects annotated for it.
        let none = for_profile(&registry(), &crate::profile::generic());
        assert_eq!(none.len(), registry().len());
    }
}
