//! The providers beyond tke, vke and ack, and their facts (README, "Cluster profile"):
//! accepted as written, located when wrong, and read through their `Fact`s.

use super::{check_schema, ok, yaml_to_json};
use crate::profile::*;

const HEAD: &str = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n";

fn parse(spec: &str) -> Result<Profile, crate::settings::SettingsError> {
    parse_profile(&format!("{HEAD}{spec}"), "cluster.yaml")
}

#[test]
fn every_provider_name_parses_and_round_trips() {
    for provider in Provider::ALL {
        let p = parse(&format!("  provider: {provider}\n")).unwrap();
        assert_eq!(p.provider(), provider);
        assert_eq!(
            Provider::NAMES[Provider::ALL.iter().position(|x| *x == provider).unwrap()],
            provider.as_str()
        );
        assert!(!provider.label().is_empty());
    }
    assert_eq!(
        Provider::NAMES,
        [
            "tke",
            "vke",
            "ack",
            "eks",
            "aks",
            "gke",
            "cce",
            "oke",
            "doks",
            "lke",
            "scaleway",
            "hetzner",
            "openstack",
            "cloudscale",
            "generic"
        ]
    );
    assert_eq!(Provider::Doks.label(), "DigitalOcean DOKS");
    assert_eq!(
        json_schema()["properties"]["spec"]["properties"]["provider"]["enum"],
        serde_json::json!(Provider::NAMES)
    );
}

const FULL: &str = "  provider: hetzner
  kubernetesVersion: \"1.31.4\"
  cceFlavour: turbo
  kubeProxy:
    mode: ebpf
  addons:
    cloudControllerManager: \"v1.21.0\"
    cloudControllerManagerOptions:
      enableIngressHostname: true
      hostnameOnlyIngress: false
      disablePrivateIngress: yes
      usesProxyProtocol: true
    awsLoadBalancerController: \"v2.8.2\"
    awsLoadBalancerControllerOptions:
      serviceMutatorWebhook: false
    cilium: 1.17.3
";

#[test]
fn the_new_facts_are_read_with_their_fields_and_lines() {
    let p = parse(FULL).unwrap();
    assert_eq!(p.provider(), Provider::Hetzner);
    let flavour = p.cce_flavour();
    assert_eq!(flavour.value, Some(CceFlavour::Turbo));
    assert_eq!(flavour.field(), "spec.cceFlavour");
    assert_eq!(flavour.at(), " (cluster.yaml:6)");
    let ccm = p.cloud_controller_manager();
    assert_eq!(
        (ccm.value, ccm.at_line()),
        (Some("v1.21.0"), " at cluster.yaml:10".into())
    );
    let bools = [
        (
            p.ccm_enable_ingress_hostname(),
            Some(true),
            12,
            "enableIngressHostname",
        ),
        (
            p.ccm_hostname_only_ingress(),
            Some(false),
            13,
            "hostnameOnlyIngress",
        ),
        (
            p.ccm_disable_private_ingress(),
            Some(true),
            14,
            "disablePrivateIngress",
        ),
        (
            p.ccm_uses_proxy_protocol(),
            Some(true),
            15,
            "usesProxyProtocol",
        ),
    ];
    for (fact, value, line, key) in bools {
        assert_eq!(fact.value, value, "{key}");
        assert_eq!(
            fact.field(),
            format!("spec.addons.cloudControllerManagerOptions.{key}")
        );
        assert_eq!(fact.at(), format!(" (cluster.yaml:{line})"), "{key}");
    }
    let lbc = p.aws_load_balancer_controller();
    assert_eq!(lbc.value, Some("v2.8.2"));
    assert_eq!(lbc.field(), "spec.addons.awsLoadBalancerController");
    let webhook = p.aws_lbc_service_mutator_webhook();
    assert_eq!(webhook.value, Some(false));
    assert_eq!(
        webhook.field(),
        "spec.addons.awsLoadBalancerControllerOptions.serviceMutatorWebhook"
    );
    assert_eq!(webhook.at(), " (cluster.yaml:18)");
    // Unquoted, kept as written.
    let cilium = p.cilium();
    assert_eq!(
        (cilium.value, cilium.field()),
        (Some("1.17.3"), "spec.addons.cilium".into())
    );
    assert_eq!(cilium.location().map(|l| l.span.start.line), Some(19));
    check_schema(&yaml_to_json(&format!("{HEAD}{FULL}")), &json_schema(), "$").unwrap();
}

#[test]
fn unstated_new_facts_are_unknown_and_name_their_field() {
    let p = parse("  provider: eks\n  addons: {cloudControllerManagerOptions: {}}\n").unwrap();
    assert_eq!(p.cce_flavour().value, None);
    assert_eq!(p.cilium().value, None);
    assert_eq!(p.aws_load_balancer_controller().value, None);
    assert_eq!(p.ccm_enable_ingress_hostname().value, None);
    assert_eq!(p.ccm_uses_proxy_protocol().at(), "");
    let webhook = p.aws_lbc_service_mutator_webhook();
    assert_eq!(webhook.value, None);
    assert_eq!(
        webhook.unknown("on by default from v2.5.0"),
        "`spec.addons.awsLoadBalancerControllerOptions.serviceMutatorWebhook` (on by default \
         from v2.5.0)"
    );
    let generic = generic();
    assert_eq!(generic.cce_flavour().value, None);
    assert_eq!(generic.aws_lbc_service_mutator_webhook().location(), None);
}

#[test]
fn wrong_new_facts_are_located_with_help() {
    // (spec body, line, column, message, help fragment)
    let cases: &[(&str, usize, usize, &str, &str)] = &[
        (
            "  provider: cce\n  cceFlavour: turob\n",
            5,
            15,
            "unknown value `turob` for `spec.cceFlavour`",
            "did you mean `turbo`? expected one of `standard` or `turbo`",
        ),
        (
            "  provider: cce\n  cceFlavour: [standard]\n",
            5,
            15,
            "`cceFlavour` must be one of `standard` or `turbo`, found a list",
            "takes a single value",
        ),
        (
            "  provider: openstack\n  addons:\n    cloudControllerManagerOptions:\n      \
             enableIngressHostname: maybe\n",
            7,
            30,
            "`enableIngressHostname` must be `true` or `false`, found `maybe`",
            "yes/no fact",
        ),
        (
            "  provider: openstack\n  addons:\n    cloudControllerManagerOptions:\n      \
             enable-ingress-hostname: true\n",
            7,
            7,
            "unknown field `enable-ingress-hostname` in `spec.addons.cloudControllerManagerOptions`",
            "did you mean `enableIngressHostname`?",
        ),
        (
            "  provider: eks\n  addons:\n    awsLoadBalancerControllerOptions:\n      \
             enableServiceMutatorWebhook: true\n",
            7,
            7,
            "unknown field `enableServiceMutatorWebhook` in \
             `spec.addons.awsLoadBalancerControllerOptions`",
            "expected one of `serviceMutatorWebhook`",
        ),
        (
            "  provider: eks\n  addons:\n    awsLoadBalancerControllerServiceWebhook: true\n",
            6,
            5,
            "unknown field `awsLoadBalancerControllerServiceWebhook` in `spec.addons`",
            "`awsLoadBalancerControllerOptions`",
        ),
        (
            "  provider: eks\n  addons:\n    awsLoadBalancerController: [v2]\n",
            6,
            32,
            "`awsLoadBalancerController` must be a string, found a list",
            "quote the value",
        ),
        (
            "  provider: hetzner\n  addons:\n    cilium: {version: 1}\n",
            6,
            13,
            "`cilium` must be a string, found a mapping",
            "quote the value",
        ),
        (
            "  provider: hetzner\n  addons:\n    cloudControllerManagerOptions: true\n",
            6,
            36,
            "`cloudControllerManagerOptions` must be a mapping, found `true`",
            "indented",
        ),
        (
            "  provider: hetzner\n  cluster: {flavour: turbo}\n",
            5,
            3,
            "unknown field `cluster` in `spec`",
            "expected one of",
        ),
        (
            "  provider: digitalocean\n",
            4,
            13,
            "unknown value `digitalocean` for `spec.provider`",
            "did you mean `doks`?",
        ),
        (
            "  provider: hetzer\n",
            4,
            13,
            "unknown value `hetzer` for `spec.provider`",
            "did you mean `hetzner`?",
        ),
        (
            "  provider: aws\n",
            4,
            13,
            "unknown value `aws` for `spec.provider`",
            "did you mean `eks`?",
        ),
    ];
    for &(body, line, column, message, help) in cases {
        let e = parse(body).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (line, column, message),
            "{body}"
        );
        let got = e.help.clone().unwrap_or_default();
        assert!(got.contains(help), "{body}: help {got:?}");
        // The schema refuses it too.
        let v = yaml_to_json(&format!("{HEAD}{body}"));
        assert!(check_schema(&v, &json_schema(), "$").is_err(), "{body}");
    }
}

#[test]
fn a_misspelt_provider_lists_every_provider() {
    let e = parse("  provider: dokss\n").unwrap_err();
    let help = e.help.unwrap();
    assert!(help.starts_with("did you mean `doks`?"), "{help}");
    for name in Provider::NAMES {
        assert!(help.contains(&format!("`{name}`")), "{name}: {help}");
    }
    let missing = parse_profile(&format!("{HEAD}  kubeProxy: {{}}\n"), "c.yaml").unwrap_err();
    assert!(missing.help.unwrap().contains("`cloudscale`"));
}

#[test]
fn provider_fixtures() {
    let eks = ok("eks.yaml");
    assert_eq!(eks.provider(), Provider::Eks);
    assert_eq!(eks.aws_load_balancer_controller().value, Some("v2.8.2"));
    assert_eq!(eks.aws_lbc_service_mutator_webhook().value, Some(true));
    assert_eq!(eks.cloud_controller_manager().value, None);
    let hetzner = ok("hetzner.yaml");
    assert_eq!(hetzner.kube_proxy_mode().value, Some(ProxyMode::Ebpf));
    assert_eq!(hetzner.cloud_controller_manager().value, Some("v1.21.0"));
    assert_eq!(hetzner.ccm_uses_proxy_protocol().value, Some(true));
    assert_eq!(hetzner.ccm_disable_private_ingress().value, Some(true));
    assert_eq!(hetzner.ccm_enable_ingress_hostname().value, None);
    assert_eq!(hetzner.cilium().value, Some("1.17.3"));
    let cce = ok("cce.yaml");
    assert_eq!(cce.cce_flavour().value, Some(CceFlavour::Turbo));
    assert_eq!(cce.cce_flavour().at(), " (testdata/profile/cce.yaml:7)");
}
