//! K8S001 for every provider, and K8S010–K8S012 (testdata/k8s/).

use crate::{check_json, f, findings};

fn lint(rules: &str, profile: Option<&str>, manifest: &str) -> (i32, serde_json::Value) {
    let manifest = format!("testdata/k8s/{manifest}.yaml");
    let mut args = vec!["--select", rules];
    let profile = profile.map(|p| format!("testdata/k8s/{p}.yaml"));
    if let Some(p) = &profile {
        args.extend(["--profile", p.as_str()]);
    }
    args.push(&manifest);
    check_json(&args)
}

fn file(manifest: &str) -> String {
    format!("testdata/k8s/{manifest}.yaml")
}

#[test]
fn k8s001_notes_vke_callers() {
    let (code, report) = check_json(&[
        "--select",
        "K8S001",
        "--profile",
        "testdata/vke/profile-ready.yaml",
        "testdata/vke/vip-with-caller.yaml",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![f(
            "K8S001",
            "note",
            "testdata/vke/vip-with-caller.yaml",
            54,
            29
        )]
    );
    assert!(report["diagnostics"][0]["help"]
        .as_str()
        .unwrap()
        .contains("call `web` instead"));
}

#[test]
fn ip_mode_proxy_with_a_caller_warns_that_hairpin_is_the_providers() {
    let (code, report) = lint("K8S010", Some("profile-one-pool"), "ipmode-proxy-caller");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("K8S010", "warning", &file("ipmode-proxy-caller"), 16, 17)]
    );
    let d = &report["diagnostics"][0];
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("`ipMode: Proxy`"));
    assert!(message.contains("Deployment/shop/worker calls 198.51.100.7"));
    assert!(message.contains("up to the provider"));
    assert_eq!(d["related"][0]["line"], 35);
}

#[test]
fn ip_mode_proxy_without_a_kubernetes_version_names_the_field() {
    let (_, report) = lint("K8S010", None, "ipmode-proxy-caller");
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("`spec.kubernetesVersion`"));
}

#[test]
fn ip_mode_is_not_honoured_before_kubernetes_1_30() {
    let (code, report) = lint("K8S010", Some("profile-k8s-1.28"), "ipmode-proxy-caller");
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn ip_mode_vip_is_short_circuited() {
    let (code, report) = lint("K8S010", None, "ipmode-vip-caller");
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn a_hostname_only_status_with_a_caller_warns() {
    for profile in [None, Some("profile-k8s-1.28")] {
        let (_, report) = lint("K8S010", profile, "hostname-only-caller");
        assert_eq!(
            findings(&report),
            vec![f(
                "K8S010",
                "warning",
                &file("hostname-only-caller"),
                15,
                19
            )]
        );
    }
}

#[test]
fn internal_traffic_policy_local_with_deployment_backends_drops_calls() {
    let (code, report) = lint("K8S011", Some("profile-one-pool"), "itp-local-deployment");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "error", &file("itp-local-deployment"), 8, 26)]
    );
    let d = &report["diagnostics"][0];
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("Deployment/infra/app calls it (node-cache.infra.svc.cluster.local)"));
    assert_eq!(d["related"][0]["line"], 46);
    assert_eq!(d["fix"]["edits"][0]["content"], "Cluster");
    assert_eq!(d["fix"]["applicability"], "unsafe");
}

#[test]
fn internal_traffic_policy_local_with_a_daemonset_on_every_pool_is_fine() {
    let (code, report) = lint("K8S011", Some("profile-one-pool"), "itp-local-daemonset");
    assert_eq!((code, findings(&report)), (0, vec![]));
    // Without node pools the DaemonSet's coverage is unknown.
    let (_, report) = lint("K8S011", None, "itp-local-daemonset");
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "warning", &file("itp-local-daemonset"), 8, 26)]
    );
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("`spec.nodePools`"));
}

#[test]
fn internal_traffic_policy_local_without_callers_is_a_warning() {
    let (_, report) = lint("K8S011", None, "itp-local-no-caller");
    assert_eq!(
        findings(&report),
        vec![f("K8S011", "warning", &file("itp-local-no-caller"), 8, 26)]
    );
}

#[test]
fn load_balancer_class_makes_the_cloud_controller_ignore_its_annotations() {
    let (code, report) = lint("K8S012", None, "lbclass");
    assert_eq!(code, 1);
    let path = file("lbclass");
    // alibaba-cloud and legacy alicloud prefixes, and a VKE Service with a foreign class;
    // not the NLB class, VKE's own class, or a Service without a class.
    assert_eq!(
        findings(&report),
        vec![
            f("K8S012", "warning", &path, 11, 22),
            f("K8S012", "warning", &path, 23, 22),
            f("K8S012", "warning", &path, 59, 22)
        ]
    );
    let d = &report["diagnostics"][1];
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("`service.beta.kubernetes.io/alicloud-loadbalancer-address-type`"));
    assert_eq!(d["related"][0]["line"], 20);
    assert_eq!(d["related"][0]["column"], 5);
}
