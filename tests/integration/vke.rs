//! VKE001–VKE005 verdicts for Volcengine's "Configuring the IP mode of the LoadBalancer
//! Service" (rules/VKE001.md, References; testdata/vke/).

use crate::{check_json, f, findings};

const VKE: &str = "VKE001,VKE002,VKE003,VKE004,VKE005";

fn lint(profile: &str, manifest: &str) -> (i32, serde_json::Value) {
    let profile = format!("testdata/vke/{profile}.yaml");
    let manifest = format!("testdata/vke/{manifest}.yaml");
    check_json(&["--select", VKE, "--profile", &profile, &manifest])
}

fn file(manifest: &str) -> String {
    format!("testdata/vke/{manifest}.yaml")
}

fn message(report: &serde_json::Value, rule: &str) -> String {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {report}"))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn proxy_with_a_caller_that_can_share_a_node_is_an_error() {
    // Usage limits: "the client pod and the server pod cannot run on the same node".
    let (code, report) = lint("profile-ready", "proxy-with-caller");
    assert_eq!(code, 1);
    let path = file("proxy-with-caller");
    assert_eq!(findings(&report), vec![f("VKE004", "error", &path, 8, 65)]);
    let d = &report["diagnostics"][0];
    assert_eq!(d["object"]["name"], "web");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("Deployment/shop/client calls its CLB address 14.103.20.30"));
    assert!(message.contains("same node as a backend pod"));
    let help = d["help"].as_str().unwrap();
    // Why they share a node is the help's: the lead fits two lines.
    assert!(help.contains("`spec.nodePools` at testdata/vke/profile-ready.yaml:16"));
    assert!(help.contains("to `VIP`"));
    assert!(help.contains("call `web` (`web.shop` from other namespaces)"));
    assert!(help.contains("topologyKey: kubernetes.io/hostname"));
    // Related: the caller's env value.
    assert_eq!(d["related"][0]["line"], 54);
    assert_eq!(d["related"][0]["column"], 22);
    // Proxy → VIP, unsafe: the mode cannot be changed after creation.
    assert_eq!(d["fix"]["applicability"], "unsafe");
    assert_eq!(d["fix"]["edits"][0]["content"], "VIP");
    assert_eq!(d["fix"]["edits"][0]["line"], 8);
    assert_eq!(d["fix"]["edits"][0]["column"], 66);
    // Calling by name is the other way out: shown, never applied with the VIP fix.
    let suggestions = d["suggestions"].as_array().unwrap();
    assert_eq!(suggestions.len(), 2);
    assert!(suggestions[0]["description"]
        .as_str()
        .unwrap()
        .starts_with("have in-cluster clients call `web` (`web.shop` from other namespaces)"));
    assert_eq!(suggestions[0]["edits"], serde_json::json!([]));
    // Then its edit at the call: the error is the call's one verdict (no K8S001 beside it).
    assert_eq!(
        suggestions[1]["description"],
        "call `web` instead of 14.103.20.30"
    );
    assert_eq!(suggestions[1]["edits"][0]["line"], 54);
    assert_eq!(suggestions[1]["edits"][0]["column"], 29);
}

#[test]
fn required_anti_affinity_between_caller_and_backend_resolves_it() {
    let (code, report) = lint("profile-ready", "proxy-anti-affinity");
    assert_eq!((code, findings(&report)), (0, vec![]));
}

/// Nothing visible calls the vendor's example, a public CLB: a note (DEVELOPERS.md,
/// Severity); the same Service on a private CLB is a warning, as in every rule
/// (tests/integration/verdicts.rs).
#[test]
fn the_vendor_example_without_a_caller_notes_the_same_node_limit() {
    let (code, report) = lint("profile-ready", "service-demo");
    assert_eq!(code, 0);
    assert_eq!(
        findings(&report),
        vec![f("VKE004", "note", &file("service-demo"), 8, 65)]
    );
    let message = message(&report, "VKE004");
    assert!(message.contains("a client pod on the same node as a backend pod cannot reach"));
    assert!(message.contains("No in-cluster caller"));
}

#[test]
fn unknown_node_pools_make_a_caller_a_warning_naming_the_field() {
    let (_, report) = lint("profile-unknown", "proxy-with-caller");
    let path = file("proxy-with-caller");
    assert_eq!(
        findings(&report),
        vec![
            f("VKE003", "warning", &path, 8, 65),
            f("VKE004", "warning", &path, 8, 65)
        ]
    );
    assert!(message(&report, "VKE004").contains("`spec.nodePools`"));
}

#[test]
fn vip_and_the_default_mode_are_never_reported() {
    // VIP column of the vendor doc's table; "The VIP mode is used by default".
    for manifest in ["vip-with-caller", "default-with-caller"] {
        for profile in ["profile-ready", "profile-k8s-1.29", "profile-unknown"] {
            let (code, report) = lint(profile, manifest);
            assert_eq!(
                (code, findings(&report)),
                (0, vec![]),
                "{profile} {manifest}"
            );
        }
    }
}

#[test]
fn every_prerequisite_met_gives_no_prerequisite_finding() {
    let (_, report) = lint("profile-ready", "service-demo");
    assert!(findings(&report).iter().all(|d| d.0 != "VKE003"));
}

#[test]
fn each_missing_prerequisite_is_an_error_naming_the_field() {
    for (profile, field, value) in [
        ("profile-k8s-1.29", "spec.kubernetesVersion", "1.29.6"),
        ("profile-flannel", "spec.network.cni", "flannel"),
        (
            "profile-no-ebpf",
            "spec.network.serviceForwarding",
            "iptables",
        ),
        (
            "profile-ccm-old",
            "spec.addons.cloudControllerManager",
            "v1.42.9",
        ),
    ] {
        let (code, report) = lint(profile, "service-demo");
        assert_eq!(code, 1);
        let path = file("service-demo");
        assert_eq!(
            findings(&report),
            vec![
                f("VKE003", "error", &path, 8, 65),
                f("VKE004", "note", &path, 8, 65)
            ],
            "{profile}"
        );
        let message = message(&report, "VKE003");
        assert!(
            message.contains(&format!("`{field}` is `{value}`")),
            "{profile}: {message}"
        );
        // The profile line that states the failing fact: in the help, and a related location.
        let d = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == "VKE003")
            .unwrap();
        let help = d["help"].as_str().unwrap();
        assert!(
            help.contains(&format!("testdata/vke/{profile}.yaml:")),
            "{help}"
        );
        assert!(d["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["file"] == format!("testdata/vke/{profile}.yaml")));
    }
    let (_, report) = lint("profile-k8s-1.29", "service-demo");
    assert!(message(&report, "VKE003").contains("`spec.kubernetesVersion` is `1.29.6`."));
    let help = report["diagnostics"][0]["help"].as_str().unwrap();
    assert!(
        help.starts_with(
            "`spec.kubernetesVersion` is `1.29.6` (testdata/vke/profile-k8s-1.29.yaml:8)"
        ),
        "{help}"
    );
    // Flannel also misses the IPvlan pod interface.
    let (_, report) = lint("profile-flannel", "service-demo");
    assert!(message(&report, "VKE003").contains("`spec.network.podInterface` is `veth`"));
}

#[test]
fn unknown_prerequisites_are_a_warning_naming_every_field() {
    let (_, report) = lint("profile-unknown", "service-demo");
    let message = message(&report, "VKE003");
    for field in [
        "spec.kubernetesVersion",
        "spec.network.cni",
        "spec.network.podInterface",
        "spec.network.serviceForwarding",
        "spec.addons.cloudControllerManager",
    ] {
        assert!(
            message.contains(&format!("`{field}`")),
            "{field}: {message}"
        );
    }
    assert_eq!(report["diagnostics"][0]["severity"], "warning");
}

#[test]
fn no_profile_still_judges_the_volcengine_annotation() {
    let (code, report) = check_json(&["--select", VKE, "testdata/vke/proxy-with-caller.yaml"]);
    assert_eq!(code, 1);
    let rules: Vec<_> = findings(&report)
        .into_iter()
        .map(|(r, s, ..)| (r, s))
        .collect();
    assert_eq!(
        rules,
        vec![
            ("VKE003".into(), "warning".into()),
            ("VKE004".into(), "warning".into())
        ]
    );
}

#[test]
fn another_providers_profile_skips_the_vke_rules() {
    let (code, report) = check_json(&[
        "--select",
        VKE,
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "testdata/vke/proxy-with-caller.yaml",
    ]);
    assert_eq!((code, findings(&report)), (0, vec![]));
}

#[test]
fn values_other_than_vip_and_proxy_are_errors() {
    let (code, report) = lint("profile-ready", "invalid-value");
    assert_eq!(code, 1);
    let path = file("invalid-value");
    assert_eq!(
        findings(&report),
        vec![
            f("VKE001", "error", &path, 8, 65),
            f("VKE001", "error", &path, 21, 65)
        ]
    );
    let lower = &report["diagnostics"][0];
    let message = lower["message"].as_str().unwrap();
    assert!(message.contains("the valid values are `VIP` (the default) and `Proxy`"));
    assert!(message.contains("case-sensitive"));
    assert!(message.contains("did you mean `Proxy`?"));
    assert_eq!(lower["fix"]["edits"][0]["content"], "Proxy");
    assert_eq!(lower["fix"]["applicability"], "unsafe");
    // No spelling is close to `Passthrough`: no fix.
    assert!(report["diagnostics"][1]["fix"].is_null());
}

#[test]
fn the_annotation_on_a_cluster_ip_service_has_no_effect() {
    let (code, report) = lint("profile-ready", "not-load-balancer");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("VKE002", "warning", &file("not-load-balancer"), 8, 5)]
    );
    let d = &report["diagnostics"][0];
    assert!(d["message"].as_str().unwrap().contains("`type: ClusterIP`"));
    assert_eq!(d["related"][0]["line"], 10);
}

#[test]
fn an_annotation_that_disagrees_with_the_status_cannot_change_the_mode() {
    // "Changeable: No": the dump says VIP, the manifest asks for Proxy.
    let (_, report) = lint("profile-ready", "status-mismatch");
    let path = file("status-mismatch");
    assert_eq!(
        findings(&report),
        vec![
            f("VKE004", "note", &path, 8, 65),
            f("VKE005", "warning", &path, 8, 65)
        ]
    );
    let d = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "VKE005")
        .unwrap();
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("cannot be changed after the Service is created"));
    assert!(message.contains("`ipMode: VIP`"));
    assert_eq!(d["related"][0]["line"], 19);
    assert_eq!(d["fix"]["edits"][0]["content"], "VIP");
}

#[test]
fn a_removed_annotation_means_vip_and_disagrees_with_a_proxy_status() {
    let (_, report) = lint("profile-ready", "status-mismatch-default");
    assert_eq!(
        findings(&report),
        vec![f(
            "VKE005",
            "warning",
            &file("status-mismatch-default"),
            18,
            17
        )]
    );
}

#[test]
fn an_annotation_that_matches_the_status_is_fine() {
    let (_, report) = lint("profile-ready", "status-match");
    assert!(findings(&report).iter().all(|d| d.0 != "VKE005"));
}

/// A Service with a foreign `loadBalancerClass` is not the Volcengine
/// controller's, so its IP-mode annotation does nothing: VKE003/VKE004 stay silent (with a
/// ready profile and with an unknown one) and K8S012 says why.
#[test]
fn a_foreign_load_balancer_class_silences_the_ip_mode_rules() {
    let file = "testdata/vke/proxy-foreign-class.yaml";
    for profile in [
        "testdata/vke/profile-ready.yaml",
        "testdata/vke/profile-unknown.yaml",
    ] {
        let (_, report) = check_json(&["--profile", profile, file]);
        assert_eq!(
            findings(&report),
            vec![
                f("K8S012", "warning", file, 13, 22),
                f("K8S001", "note", file, 57, 29)
            ],
            "{profile}"
        );
    }
}
