//! The PROXY-protocol family as a whole: every value form the vendors document is read,
//! and every member weighs the same situation the same (the severity principle).

use lblint::check::check_sources;

use super::{one, profile_with as profile};

const MODERN: &str = "  kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n";

/// Every value form the vendors document turns the feature on; the off forms do not.
#[test]
fn every_documented_value_form_is_read() {
    let verdict = |fixture: &str, from: &str, to: &str, provider: &str, spec: &str| {
        let path = format!("testdata/proxy/{fixture}.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{fixture}: {from}");
        let outcome = check_sources(
            &[(path, text.replace(from, to).into_bytes())],
            &profile(provider, spec),
        );
        outcome
            .diagnostics
            .iter()
            .filter(|d| d.rule().starts_with(&provider.to_ascii_uppercase()))
            .map(|d| d.rule().to_string())
            .collect::<Vec<_>>()
    };
    // `v1` and `v2` from OCCM v1.31.0 (`getProxyProtocolFromServiceAnnotation`); before,
    // only `true` (`getBoolFromServiceAnnotation`). Kubernetes 1.29 leaves ipMode unused.
    let occm = |v: &str| {
        format!(
            "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n  addons:\n    \
             cloudControllerManager: \"{v}\"\n    cloudControllerManagerOptions:\n      \
             enableIngressHostname: false\n"
        )
    };
    let os = "loadbalancer.openstack.org/proxy-protocol: \"true\"";
    for (version, value, hits) in [
        ("v1.31.0", "\"true\"", 1),
        ("v1.31.0", "v1", 1),
        ("v1.31.0", "v2", 1),
        ("v1.31.0", "\"True\"", 0),
        ("v1.31.0", "\"false\"", 0),
        ("v1.29.0", "\"true\"", 1),
        ("v1.29.0", "v1", 0),
        ("v1.29.0", "v2", 0),
    ] {
        let to = format!("loadbalancer.openstack.org/proxy-protocol: {value}");
        let found = verdict("openstack-proxy", os, &to, "openstack", &occm(version));
        assert_eq!(found.len(), hits, "openstack {version} {value}");
    }
    let cs = "k8s.cloudscale.ch/loadbalancer-pool-protocol: proxyv2";
    for (value, hits) in [("proxy", 1), ("proxyv2", 1), ("tcp", 0)] {
        let to = format!("k8s.cloudscale.ch/loadbalancer-pool-protocol: {value}");
        let spec =
            "  kubernetesVersion: \"1.29.0\"\n  addons:\n    cloudControllerManager: \"1.1.0\"\n";
        assert_eq!(
            verdict("cloudscale-proxy", cs, &to, "cloudscale", spec).len(),
            hits,
            "cloudscale {value}"
        );
    }
    let scw_spec = format!("{MODERN}  addons:\n    cloudControllerManager: \"v0.33.0\"\n");
    let scw = "scw-loadbalancer-proxy-protocol-v2: \"443\"";
    for (value, hits) in [
        ("\"443\"", 1),
        ("\"80,443\"", 0),
        ("\"*\"", 0),
        ("\"true\"", 0),
        ("\"false\"", 0),
    ] {
        let to = format!("scw-loadbalancer-proxy-protocol-v2: {value}");
        assert_eq!(
            verdict("scaleway-some-ports", scw, &to, "scaleway", &scw_spec).len(),
            hits,
            "scaleway {value}"
        );
    }
    let lke = "linode-loadbalancer-default-proxy-protocol: v2";
    for (value, hits) in [("v1", 1), ("v2", 1), ("none", 0)] {
        let to = format!("linode-loadbalancer-default-proxy-protocol: {value}");
        assert_eq!(
            verdict("lke-proxy", lke, &to, "lke", "").len(),
            hits,
            "lke {value}"
        );
    }
    let doks = "do-loadbalancer-enable-proxy-protocol: \"true\"";
    for (value, hits) in [("\"true\"", 1), ("\"false\"", 0)] {
        let to = format!("do-loadbalancer-enable-proxy-protocol: {value}");
        let found = verdict("doks-ingress-nginx", doks, &to, "doks", MODERN);
        assert_eq!(found.len(), hits, "doks {value}");
    }
}

/// The severity principle (DEVELOPERS.md) holds across the family: the same situation gets
/// the same severity from every provider's rule. A sure shortcut with a pod calling the
/// address is an error; the same load balancer with nothing visible calling it a note.
#[test]
fn every_member_weighs_the_same_situation_the_same() {
    let ccm = |v: &str| format!("{MODERN}  addons:\n    cloudControllerManager: \"{v}\"\n");
    let members = [
        ("hetzner-proxy", "hetzner", ccm("v1.20.1"), "HETZNER001"),
        ("lke-proxy", "lke", MODERN.to_string(), "LKE001"),
        (
            "scaleway-all-ports",
            "scaleway",
            ccm("v0.32.0"),
            "SCALEWAY001",
        ),
        (
            "openstack-proxy",
            "openstack",
            ccm("v1.29.0"),
            "OPENSTACK001",
        ),
        (
            "cloudscale-proxy",
            "cloudscale",
            "  kubernetesVersion: \"1.29.4\"\n  kubeProxy:\n    mode: iptables\n  addons:\n    \
             cloudControllerManager: \"1.1.0\"\n"
                .to_string(),
            "CLOUDSCALE001",
        ),
    ];
    for (fixture, provider, spec, rule) in members {
        let path = format!("testdata/proxy/{fixture}.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        let profile = profile(provider, &spec);
        let prefix = &rule[..rule.len() - 3];
        let (found, message) = super::lint_text(&path, &text, &profile, prefix);
        assert_eq!(found, one(rule, "error", 8, 5), "{fixture}: {message}");
        let caller = text.find("---\napiVersion: v1\nkind: Pod").unwrap();
        let (found, message) = super::lint_text(&path, &text[..caller], &profile, prefix);
        assert_eq!(found, one(rule, "note", 8, 5), "{fixture}: {message}");
    }
}

/// A private load balancer's no-caller warning names both ways out in one line: the
/// vendor's fix, or a suppression with a reason when nothing in the cluster calls it.
#[test]
fn a_private_no_caller_warning_names_both_ways_out() {
    let dir = crate::cli::tempdir("proxy-no-caller");
    let profile = dir.join("profile.yaml");
    std::fs::write(
        &profile,
        "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: openstack\n  \
         kubernetesVersion: \"1.31.2\"\n  kubeProxy:\n    mode: iptables\n  addons:\n    \
         cloudControllerManager: v1.28.0\n",
    )
    .unwrap();
    let file = "testdata/ways-out/openstack-internal-no-caller.yaml";
    let (_, report) = crate::check_json(&["--profile", profile.to_str().unwrap(), file]);
    assert_eq!(
        crate::findings(&report),
        vec![crate::f("OPENSTACK001", "warning", file, 10, 5)]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with(
            "The load balancer is private, so its callers are in this cluster even if not in these \
             files: make in-cluster calls cross the load balancer (a hostname status or `ipMode: \
             Proxy`, as the help says), or, if nothing in the cluster calls it, suppress this with a \
             reason (`# lblint: ignore[OPENSTACK001] <why nothing calls it>`)."
        ),
        "{message}"
    );
}
