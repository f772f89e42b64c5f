//! `profile init`: the text parses for every provider and mode, claims nothing unasked, and
//! says what it says about each provider in the words of the sources its rules cite.

use clap::ValueEnum;

use super::{check_schema, yaml_to_json};
use crate::profile::*;

/// The template as `lblint profile init` prints it, with the provider's rules named.
fn template(provider: Option<Provider>, mode: Option<ProxyMode>) -> String {
    let own_rules = provider.map_or_else(Vec::new, crate::catalog::ids_for_provider);
    init_template(provider, mode, &own_rules)
}

fn combinations() -> Vec<(Option<Provider>, Option<ProxyMode>)> {
    let providers = std::iter::once(None).chain(Provider::ALL.map(Some));
    providers
        .flat_map(|p| {
            std::iter::once(None)
                .chain(ProxyMode::value_variants().iter().copied().map(Some))
                .map(move |m| (p, m))
        })
        .collect()
}

#[test]
fn template_parses_for_every_combination() {
    let combos = combinations();
    assert_eq!(
        combos.len(),
        (Provider::ALL.len() + 1) * (ProxyMode::value_variants().len() + 1)
    );
    for (provider, mode) in combos {
        let text = template(provider, mode);
        let p = parse_profile(&text, "template.yaml")
            .unwrap_or_else(|e| panic!("{provider:?}/{mode:?}:\n{e}\n---\n{text}"));
        assert_eq!(p.spec.provider, provider.unwrap_or(Provider::Generic));
        assert_eq!(p.spec.kube_proxy.and_then(|k| k.mode), mode);
        // Nothing else is claimed: every other fact stays unknown.
        assert_eq!(p.spec.kubernetes_version, None);
        assert_eq!(p.spec.cce_flavour, None);
        assert_eq!(p.spec.network, None);
        assert_eq!(p.spec.node_pools, None);
        assert_eq!(p.spec.addons, None);
        assert_eq!(p.spec.allowlists, None);
        assert_eq!(p.spec.load_balancers, None);
        assert_eq!(p.spec.ingress_controllers, None);
        assert!(
            text.lines().all(|l| l.chars().count() <= 100),
            "{provider:?}/{mode:?}: long line"
        );
        check_schema(&yaml_to_json(&text), &json_schema(), "$")
            .unwrap_or_else(|e| panic!("{provider:?}/{mode:?}: {e}"));
    }
}

/// The template with its commented-out facts (not the prose) uncommented.
fn uncommented(text: &str) -> String {
    text.lines()
        .map(|l| {
            let trimmed = l.trim_start();
            let indent = l.len() - trimmed.len();
            match trimmed.strip_prefix("# ") {
                Some(rest) if looks_like_yaml(rest) => format!("{}{rest}\n", " ".repeat(indent)),
                _ => format!("{l}\n"),
            }
        })
        .collect()
}

#[test]
fn template_with_every_line_uncommented_is_valid() {
    // Uncommenting the commented-out facts must give a valid, full profile.
    let text = uncommented(&template(Some(Provider::Tke), Some(ProxyMode::Ipvs)));
    let p = parse_profile(&text, "full.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let s = p.spec;
    assert!(s.kubernetes_version.is_some());
    assert_eq!(s.kube_proxy.unwrap().lb_address_binding, Some(true));
    assert_eq!(s.network.unwrap().eni_direct, Some(true));
    assert_eq!(s.node_pools.unwrap().len(), 2);
    assert_eq!(
        s.addons.unwrap().cloud_controller_manager.as_deref(),
        Some("v1.43.0")
    );
    assert_eq!(s.allowlists.unwrap().clb_l4_snat, Some(true));
    assert_eq!(s.load_balancers.unwrap().len(), 1);
}

#[test]
fn every_provider_template_uncommented_is_valid_and_states_its_facts() {
    for (provider, mode) in combinations() {
        let text = uncommented(&template(provider, mode));
        let p = parse_profile(&text, "full.yaml")
            .unwrap_or_else(|e| panic!("{provider:?}/{mode:?}: {e}\n{text}"));
        check_schema(&yaml_to_json(&text), &json_schema(), "$")
            .unwrap_or_else(|e| panic!("{provider:?}/{mode:?}: {e}"));
        let s = &p.spec;
        assert!(s.kubernetes_version.is_some(), "{provider:?}");
        assert!(s.kube_proxy.as_ref().is_some_and(|k| k.version.is_some()));
        let addons = s.addons.clone().unwrap_or_default();
        // Cilium is offered wherever it may be the dataplane.
        let ebpf_possible = matches!(mode, None | Some(ProxyMode::Ebpf));
        assert_eq!(
            addons.cilium.is_some(),
            ebpf_possible,
            "{provider:?}/{mode:?}"
        );
        let ccm = addons.cloud_controller_manager_options.unwrap_or_default();
        let webhook = addons
            .aws_load_balancer_controller_options
            .unwrap_or_default();
        let want = |on: &[Provider]| on.contains(&provider.unwrap_or(Provider::Generic));
        use Provider::*;
        let with_ccm = [
            Tke, Vke, Ack, Generic, Scaleway, Hetzner, Openstack, Doks, Cloudscale, Eks,
        ];
        let cases = [
            (addons.cloud_controller_manager.is_some(), want(&with_ccm)),
            (addons.aws_load_balancer_controller.is_some(), want(&[Eks])),
            (webhook.service_mutator_webhook.is_some(), want(&[Eks])),
            (ccm.enable_ingress_hostname.is_some(), want(&[Openstack])),
            (ccm.hostname_only_ingress.is_some(), want(&[Lke])),
            (ccm.uses_proxy_protocol.is_some(), want(&[Hetzner])),
            (ccm.disable_private_ingress.is_some(), want(&[Hetzner])),
            (ccm.private_network.is_some(), want(&[Hetzner])),
            (s.cce_flavour.is_some(), want(&[Cce])),
            (s.allowlists.is_some(), want(&[Tke, Vke, Ack, Generic])),
        ];
        for (i, (stated, wanted)) in cases.into_iter().enumerate() {
            assert_eq!(stated, wanted, "{provider:?}/{mode:?}: fact #{i}\n{text}");
        }
    }
}

/// The template's convention: commented-out YAML starts with a lowercase key or `- `.
fn looks_like_yaml(rest: &str) -> bool {
    let item = rest.trim_start().trim_start_matches("- ");
    item.starts_with(|c: char| c.is_ascii_lowercase())
        && item
            .split_once(':')
            .is_some_and(|(k, _)| k.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[test]
fn the_provider_comment_names_every_provider() {
    let text = template(None, None);
    let start = text.find("# Cloud provider:").unwrap();
    let comment = &text[start..text.find("\n  provider: ").unwrap()];
    for name in Provider::NAMES {
        assert!(
            comment
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == name),
            "{name} missing from\n{comment}"
        );
    }
}

/// Providers with no rule of their own say so; the seeds do not (they have rules).
#[test]
fn the_template_says_which_providers_have_no_rules_yet() {
    let rules = crate::rules::registry();
    for provider in Provider::ALL {
        let own = crate::rules::for_provider(&rules, provider)
            .iter()
            .any(|r| r.meta().providers.clouds().contains(&provider));
        let text = template(Some(provider), None);
        let says_none = text.contains(&format!("lblint has no {} rules yet", provider.label()));
        let expected = !own && provider != Provider::Generic;
        assert_eq!(says_none, expected, "{provider}");
    }
}

/// The version facts in the words of their sources (rules/HETZNER001.md, SCALEWAY001.md,
/// OPENSTACK001.md, CLOUDSCALE001.md, OKE002.md, EKS001.md; Cilium: cilium/cilium#34780,
/// #40913), each on one line.
#[test]
fn provider_comments_state_the_documented_versions() {
    let cases: &[(Provider, &[&str])] = &[
        (
            Provider::Hetzner,
            &["Hetzner CCM ≥ v1.21.0 sets ipMode: Proxy for PROXY-protocol Services"],
        ),
        (
            Provider::Scaleway,
            &["Scaleway CCM ≥ v0.33.0 sets ipMode Proxy only when PROXY is on all ports"],
        ),
        (
            Provider::Openstack,
            &["OpenStack OCCM ≥ v1.30.0 sets ipMode Proxy unless enable-ingress-hostname"],
        ),
        (
            Provider::Cloudscale,
            &["ipMode Proxy takes effect from Kubernetes 1.30"],
        ),
        (
            Provider::Oke,
            &["ipMode Proxy takes effect from Kubernetes 1.30"],
        ),
        (Provider::Eks, &["From v2.5.0 its Service webhook"]),
    ];
    for (provider, phrases) in cases {
        let text = template(Some(*provider), Some(ProxyMode::Ebpf));
        for phrase in phrases
            .iter()
            .chain(&["Cilium honours ipMode from 1.17 (1.18.0 regressed)"])
        {
            assert!(text.contains(phrase), "{provider}: {phrase}\n{text}");
        }
    }
    // Cilium is offered only where it can be the dataplane.
    let text = template(Some(Provider::Hetzner), Some(ProxyMode::Iptables));
    assert!(!text.contains("cilium:"), "{text}");
}

#[test]
fn template_snapshot() {
    snapshot!(
        "profile_init_template_tke_ipvs",
        template(Some(Provider::Tke), Some(ProxyMode::Ipvs))
    );
    snapshot!(
        "profile_init_template_hetzner",
        template(Some(Provider::Hetzner), None)
    );
    snapshot!(
        "profile_init_template_eks_iptables",
        template(Some(Provider::Eks), Some(ProxyMode::Iptables))
    );
}
