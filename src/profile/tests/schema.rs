//! The profile's JSON Schema, derived from the types: it accepts and refuses what the
//! hand-written schema did, the error help read from it says what the hand-written tables
//! said, and every `Fact` names a field it has.

use std::collections::BTreeSet;

use super::{check_schema, fixture, yaml_to_json};
use crate::profile::document::{has_field, tables};
use crate::profile::*;
use crate::settings::schema::{Shape, Tables};

#[test]
fn fixtures_match_the_schema() {
    let schema = json_schema();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    for name in [
        "tke-ipvs.yaml",
        "vke.yaml",
        "ack.yaml",
        "minimal.yaml",
        "eks.yaml",
        "hetzner.yaml",
        "cce.yaml",
    ] {
        let v = yaml_to_json(&fixture(name).0);
        check_schema(&v, &schema, "$").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // And the schema rejects what the loader rejects.
    for name in [
        "err-unknown-field.yaml",
        "err-bad-enum.yaml",
        "err-api-version.yaml",
        "err-node-pools-map.yaml",
        "err-cce-flavour.yaml",
        "err-ccm-option.yaml",
        "err-webhook-type.yaml",
    ] {
        let v = yaml_to_json(&fixture(name).0);
        assert!(
            check_schema(&v, &schema, "$").is_err(),
            "{name} should violate the schema"
        );
    }
}

/// Schema property names equal serde's field names, section by section: serde's own
/// "expected one of" list is read back from an unknown-field error in each section, whose
/// message names the section as it always has.
#[test]
fn schema_fields_match_serde_fields() {
    let schema = json_schema();
    let head = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\n";
    // The body, the section's path in the schema, and where messages say the field is.
    let sections: &[(&str, &[&str], &str)] = &[
        ("zzz: 1\nspec: {provider: tke}\n", &[], "at the top level"),
        (
            "metadata: {zzz: 1}\nspec: {provider: tke}\n",
            &["metadata"],
            "in `metadata`",
        ),
        ("spec: {provider: tke, zzz: 1}\n", &["spec"], "in `spec`"),
        (
            "spec: {provider: tke, kubeProxy: {zzz: 1}}\n",
            &["spec", "kubeProxy"],
            "in `spec.kubeProxy`",
        ),
        (
            "spec: {provider: tke, network: {zzz: 1}}\n",
            &["spec", "network"],
            "in `spec.network`",
        ),
        (
            "spec: {provider: tke, nodePools: [{zzz: 1}]}\n",
            &["spec", "nodePools", "[]"],
            "in `spec.nodePools[]`",
        ),
        (
            "spec: {provider: tke, nodePools: [{taints: [{zzz: 1}]}]}\n",
            &["spec", "nodePools", "[]", "taints", "[]"],
            "in `taints[]`",
        ),
        (
            "spec: {provider: tke, addons: {zzz: 1}}\n",
            &["spec", "addons"],
            "in `spec.addons`",
        ),
        (
            "spec: {provider: tke, addons: {cloudControllerManagerOptions: {zzz: 1}}}\n",
            &["spec", "addons", "cloudControllerManagerOptions"],
            "in `spec.addons.cloudControllerManagerOptions`",
        ),
        (
            "spec: {provider: tke, addons: {awsLoadBalancerControllerOptions: {zzz: 1}}}\n",
            &["spec", "addons", "awsLoadBalancerControllerOptions"],
            "in `spec.addons.awsLoadBalancerControllerOptions`",
        ),
        (
            "spec: {provider: tke, allowlists: {zzz: 1}}\n",
            &["spec", "allowlists"],
            "in `spec.allowlists`",
        ),
        (
            "spec: {provider: tke, loadBalancers: [{zzz: 1}]}\n",
            &["spec", "loadBalancers", "[]"],
            "in `spec.loadBalancers[]`",
        ),
        (
            "spec: {provider: tke, ingressControllers: [{class: a, service: Service/a/b, zzz: 1}]}\n",
            &["spec", "ingressControllers", "[]"],
            "in `spec.ingressControllers[]`",
        ),
    ];
    for (body, path, section) in sections {
        let e = parse_profile(&format!("{head}{body}"), "p.yaml").unwrap_err();
        assert_eq!(e.message, format!("unknown field `zzz` {section}"));
        let help = e.help.clone().unwrap();
        let serde_fields: BTreeSet<String> = help
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        let mut s = &schema;
        for step in *path {
            s = if *step == "[]" {
                &s["items"]
            } else {
                &s["properties"][step]
            };
        }
        let schema_fields: BTreeSet<String> = s["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(serde_fields, schema_fields, "{path:?}: {help}");
    }
}

const HEAD: &str = "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\n";

/// Profiles the schema accepts, and profiles it refuses (each for one reason): every
/// verdict the hand-written schema gave.
#[test]
fn the_schema_accepts_and_refuses_what_it_always_did() {
    let schema = json_schema();
    let accepted = [
        "spec: {provider: generic}\n",
        "metadata: {name: prod}\nspec: {provider: tke}\n",
        // Label values Kubernetes reads as text.
        "spec: {provider: tke, nodePools: [{labels: {a: b, n: 5, on: true}}]}\n",
        "spec: {provider: cce, cceFlavour: turbo, kubeProxy: {mode: nftables, lbAddressBinding: false}}\n",
        "spec: {provider: tke, loadBalancers: [{object: IstioGateway/a/b, network: private, addresses: [1.2.3.4]}]}\n",
        "spec: {provider: tke, ingressControllers: [{class: nginx, service: Service/ingress/nginx}]}\n",
        "spec: {provider: eks, addons: {awsLoadBalancerControllerOptions: {serviceMutatorWebhook: true}}}\n",
    ];
    for body in accepted {
        let v = yaml_to_json(&format!("{HEAD}{body}"));
        check_schema(&v, &schema, "$").unwrap_or_else(|e| panic!("{body}: {e}"));
    }
    let refused = [
        // Unknown keys, at every depth.
        "spec: {provider: tke}\nstatus: {}\n",
        "metadata: {name: a, labels: {}}\nspec: {provider: tke}\n",
        "spec: {provider: tke, kubeProxy: {mod: ipvs}}\n",
        "spec: {provider: tke, nodePools: [{taints: [{key: a, operator: Exists}]}]}\n",
        "spec: {provider: tke, addons: {cloudControllerManagerOptions: {x: true}}}\n",
        // Values none of an enum's.
        "spec: {provider: aws}\n",
        "spec: {provider: tke, kubeProxy: {mode: ipvss}}\n",
        "spec: {provider: tke, nodePools: [{type: big}]}\n",
        "spec: {provider: tke, nodePools: [{taints: [{effect: NoSchedul}]}]}\n",
        "spec: {provider: tke, loadBalancers: [{network: dmz}]}\n",
        "spec: {provider: cce, cceFlavour: Turbo}\n",
        // Wrong types.
        "spec: {provider: tke, kubeProxy: {lbAddressBinding: \"yes\"}}\n",
        "spec: {provider: tke, kubeProxy: ipvs}\n",
        "spec: {provider: tke, nodePools: {a: 1}}\n",
        "spec: {provider: tke, nodePools: [{labels: [a]}]}\n",
        "spec: {provider: tke, network: {cni: [a]}}\n",
        "spec: {provider: tke, kubernetesVersion: 1.30}\n",
        "spec: {provider: tke, loadBalancers: [{addresses: 1.2.3.4}]}\n",
        "spec: {provider: tke, addons: null}\n",
        // Objects of the wrong form or kind.
        "spec: {provider: tke, loadBalancers: [{object: Servce/a/b}]}\n",
        "spec: {provider: tke, loadBalancers: [{object: Service/a}]}\n",
        "spec: {provider: tke, ingressControllers: [{class: a, service: Ingress/a/b}]}\n",
        // Required fields and the header.
        "spec: {provider: tke, ingressControllers: [{class: a}]}\n",
        "spec: {kubernetesVersion: \"1.30\"}\n",
        "metadata: {name: a}\n",
    ];
    for body in refused {
        let v = yaml_to_json(&format!("{HEAD}{body}"));
        assert!(
            check_schema(&v, &schema, "$").is_err(),
            "{body} should violate the schema"
        );
    }
    let v =
        yaml_to_json("apiVersion: lblint.dev/v1\nkind: ClusterProfile\nspec: {provider: tke}\n");
    assert!(check_schema(&v, &schema, "$").is_err());
    let v = yaml_to_json("apiVersion: lblint.dev/v1alpha1\nkind: Profile\nspec: {provider: tke}\n");
    assert!(check_schema(&v, &schema, "$").is_err());
}

/// The shape each key's type errors name, as the hand-written table had it.
#[test]
fn type_error_help_names_the_shapes_it_always_did() {
    let t = tables();
    let expected: Vec<(&str, Shape)> = [
        (
            Shape::Bool,
            &[
                "lbAddressBinding",
                "eniDirect",
                "clbL4Snat",
                "clbL7Snat",
                "clbKeepAlive",
                "enableIngressHostname",
                "hostnameOnlyIngress",
                "disablePrivateIngress",
                "usesProxyProtocol",
                "privateNetwork",
                "serviceMutatorWebhook",
                "preservesClientIp",
                "imported",
            ][..],
        ),
        (
            Shape::List,
            &[
                "nodePools",
                "taints",
                "loadBalancers",
                "addresses",
                "ingressControllers",
            ],
        ),
        (
            Shape::Mapping,
            &[
                "metadata",
                "spec",
                "kubeProxy",
                // Also `loadBalancers[].network`, an enum: the shallower field wins.
                "network",
                "addons",
                "cloudControllerManagerOptions",
                "awsLoadBalancerControllerOptions",
                "allowlists",
                "labels",
            ],
        ),
        (
            Shape::Text,
            &[
                "apiVersion",
                "kind",
                "name",
                "kubernetesVersion",
                "version",
                "cni",
                "podInterface",
                "serviceForwarding",
                "ingressController",
                "cloudControllerManager",
                "awsLoadBalancerController",
                "cilium",
                "key",
                "value",
                "object",
                "class",
                "service",
                "targets",
            ],
        ),
    ]
    .into_iter()
    .flat_map(|(shape, keys)| keys.iter().map(move |k| (*k, shape.clone())))
    .chain([
        (
            "provider",
            Shape::Choice(Provider::NAMES.map(String::from).to_vec()),
        ),
        ("mode", choice(&["iptables", "ipvs", "nftables", "ebpf"])),
        ("type", choice(&["regular", "native", "super"])),
        ("cceFlavour", choice(&["standard", "turbo"])),
        ("targetType", choice(&["instance", "ip"])),
        (
            "effect",
            choice(&["NoSchedule", "PreferNoSchedule", "NoExecute"]),
        ),
    ])
    .collect();
    for (key, shape) in &expected {
        assert_eq!(t.shape(key), Some(shape), "{key}");
    }
    let listed: BTreeSet<&str> = expected.iter().map(|(k, _)| *k).collect();
    let derived: BTreeSet<&str> = t.keys().collect();
    assert_eq!(derived, listed);
    assert_eq!(
        Tables::ambiguous_keys(&json_schema()),
        BTreeSet::from(["network".to_owned()])
    );
    assert_eq!(t.ambiguities(), Vec::<&str>::new());
}

fn choice(values: &[&str]) -> Shape {
    Shape::Choice(values.iter().map(|v| v.to_string()).collect())
}

/// Each enum's unknown value names its field as messages always have.
#[test]
fn unknown_values_name_their_field() {
    let cases = [
        ("spec: {provider: tkee}\n", "`spec.provider`"),
        (
            "spec: {provider: tke, kubeProxy: {mode: x}}\n",
            "`spec.kubeProxy.mode`",
        ),
        (
            "spec: {provider: tke, nodePools: [{type: x}]}\n",
            "`nodePools[].type`",
        ),
        (
            "spec: {provider: tke, nodePools: [{taints: [{effect: x}]}]}\n",
            "`taints[].effect`",
        ),
        (
            "spec: {provider: tke, loadBalancers: [{network: x}]}\n",
            "`spec.loadBalancers[].network`",
        ),
        (
            "spec: {provider: cce, cceFlavour: x}\n",
            "`spec.cceFlavour`",
        ),
    ];
    for (body, field) in cases {
        let e = parse_profile(&format!("{HEAD}{body}"), "p.yaml").unwrap_err();
        let value = if body.contains("tkee") { "tkee" } else { "x" };
        assert_eq!(
            e.message,
            format!("unknown value `{value}` for {field}"),
            "{body}"
        );
    }
}

/// Every `Fact` accessor names a field of the schema: a misspelt path would lose the
/// "(cluster.yaml:12)" location silently and make `Fact::unknown` name a field that does
/// not exist. (`Profile::fact` checks every path it is given in debug builds too.)
#[test]
fn every_fact_names_a_field_of_the_schema() {
    let p = generic();
    let paths = [
        p.kube_proxy_mode().keys,
        p.kube_proxy_version().keys,
        p.kube_proxy_lb_address_binding().keys,
        p.node_pool_list().keys,
        p.ingress_controller().keys,
        p.kubernetes_version().keys,
        p.network_cni().keys,
        p.network_pod_interface().keys,
        p.network_service_forwarding().keys,
        p.network_eni_direct().keys,
        p.cloud_controller_manager().keys,
        p.aws_load_balancer_controller().keys,
        p.cilium().keys,
        p.ccm_enable_ingress_hostname().keys,
        p.ccm_hostname_only_ingress().keys,
        p.ccm_disable_private_ingress().keys,
        p.ccm_uses_proxy_protocol().keys,
        p.ccm_private_network().keys,
        p.aws_lbc_service_mutator_webhook().keys,
        p.cce_flavour().keys,
    ];
    // Every accessor is listed here: one `-> Fact<'_, …>` each in facts.rs.
    let accessors = include_str!("../facts.rs")
        .matches("(&self) -> Fact<'_,")
        .count();
    assert_eq!(paths.len(), accessors, "list the new accessor here");
    let schema = json_schema();
    for keys in paths {
        assert!(Tables::has_path(&schema, keys), "{keys:?}");
        assert!(has_field(keys));
    }
    assert!(!has_field(&["spec", "kubeProxy", "mod"]));
    assert!(!has_field(&["spec", "nodePool"]));
}
