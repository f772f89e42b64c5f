//! One owner per load balancer (issue 29 item 2; testdata/owners/): the profile's provider
//! decides which controller provisions a Service, whatever other clouds' annotations a
//! portable manifest carries; with no profile the annotations do, at most as a warning;
//! `provider: generic` runs no cloud's rules.

use crate::{check_json, f, findings};

const CONTOUR: &str = "testdata/owners/contour-envoy-aws-annotation.yaml";
const RULES: &str = "ACK001,EKS001,K8S013";

fn lint(profile: Option<&str>) -> Vec<(String, String, String, u64, u64)> {
    let mut args = vec!["--select", RULES];
    if let Some(profile) = profile {
        args.extend(["--profile", profile]);
    }
    args.push(CONTOUR);
    findings(&check_json(&args).1)
}

#[test]
fn contours_envoy_service_on_ack_is_acks_despite_its_aws_annotation() {
    // Before: the AWS annotation made it AWS's, so ACK001 never looked at it.
    assert_eq!(
        lint(Some("testdata/ack/profile-ack-iptables.yaml")),
        [f("ACK001", "warning", CONTOUR, 14, 26)]
    );
}

#[test]
fn without_a_profile_the_annotation_decides_at_most_a_warning() {
    assert_eq!(lint(None), [f("EKS001", "warning", CONTOUR, 16, 5)]);
    // An error of a cloud's rule becomes a warning that says why (DOKS001 on its fixture).
    let doks = "testdata/proxy/doks-ingress-nginx.yaml";
    let (_, report) = check_json(&["--select", "DOKS001", doks]);
    assert_eq!(findings(&report), [f("DOKS001", "warning", doks, 9, 5)]);
    let help = report["diagnostics"][0]["help"].as_str().unwrap();
    assert!(help.contains("no profile given"), "{help}");
    assert!(help.contains("`spec.provider`"), "{help}");
}

#[test]
fn provider_generic_runs_no_clouds_rules() {
    assert_eq!(lint(Some("testdata/ack/profile-generic-iptables.yaml")), []);
}

/// Reused load balancers (issue 29 item 6): a TKE Service on an existing CLB by
/// `loadbalance-id` (Tencent's own demo) has an unknown network, not a public one.
#[test]
fn a_tke_service_on_an_existing_clb_by_loadbalance_id_is_judged_by_the_profile() {
    let file = "testdata/owners/tke-loadbalance-id.yaml";
    let lint = |profile: &str| {
        let (_, report) = check_json(&["--select", "TKE001", "--profile", profile, file]);
        report
    };
    let report = lint("testdata/tke/profile-ipvs-regular.yaml");
    assert_eq!(findings(&report), [f("TKE001", "warning", file, 11, 5)]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("set `spec.loadBalancers[].network` for `Service/piggymetrics/gateway`"),
        "{message}"
    );
    // The profile says the CLB is private: the private CLB's verdict.
    let report = lint("testdata/owners/profile-tke-gateway-private.yaml");
    assert_eq!(findings(&report), [f("TKE001", "error", file, 11, 5)]);
}

/// An Alibaba Service on an existing SLB (`loadbalancer-id`) keeps that SLB's address type:
/// unknown unless `address-type` states it (the CCM refuses a mismatch).
#[test]
fn an_ack_service_on_an_existing_slb_has_an_unknown_network() {
    let output = crate::lblint(&[
        "model",
        "--format",
        "json",
        "--profile",
        "testdata/ack/profile-ack-iptables.yaml",
        "testdata/owners/ack-loadbalancer-id.yaml",
    ]);
    let model: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    let networks: Vec<&str> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["network"].as_str().unwrap())
        .collect();
    assert_eq!(networks, ["unknown", "private"]);
}

/// Nothing silent (issue 29 item 5): a profile key naming no linted object is a warning at
/// the key, with the object most likely meant.
#[test]
fn profile_keys_that_name_no_linted_object_are_warnings_at_the_key() {
    let profile = "testdata/owners/profile-names-missing.yaml";
    let (code, report) = check_json(&[
        "--select",
        "LBL007",
        "--profile",
        profile,
        "testdata/owners/tke-loadbalance-id.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        [
            f("LBL007", "warning", profile, 10, 15),
            f("LBL007", "warning", profile, 14, 16),
            f("LBL007", "warning", profile, 17, 16),
        ]
    );
    let d = &report["diagnostics"];
    let message = d[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`Service/piggymetric/gateway` (spec.loadBalancers[1].object)"),
        "{message}"
    );
    let help = d[0]["help"].as_str().unwrap();
    assert!(
        help.starts_with("did you mean `Service/piggymetrics/gateway`?"),
        "{help}"
    );
    assert!(d[2]["message"]
        .as_str()
        .unwrap()
        .contains("spec.ingressControllers[0].service"));
    // `profile check` reads the profile alone and says where the keys are checked.
    let run = crate::lblint(&["profile", "check", profile]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout
            .contains("the 4 object key(s) it names are checked"),
        "{}",
        run.stdout
    );
}

/// An unused suppression says where its rule's diagnostic is (issue 29 item 5): the
/// comment above the Service's name misses TKE001 at the reused-CLB annotation.
#[test]
fn an_unused_suppression_names_the_line_its_rule_reports() {
    let path = "testdata/owners/tke-loadbalance-id.yaml";
    let text = std::fs::read_to_string(path).unwrap().replacen(
        "  name: gateway\n  namespace: piggymetrics\n  annotations:",
        "  # lblint: ignore[TKE001] reused CLB, checked by hand\n  name: gateway\n  \
         namespace: piggymetrics\n  annotations:",
        1,
    );
    let profile = crate::profile_with("tke", "  kubeProxy:\n    mode: ipvs\n");
    let (found, message) = crate::lint_text(path, &text, &profile, "LBL004");
    assert_eq!(found, crate::one("LBL004", "note", 8, 3));
    assert_eq!(
        message,
        "Unused suppression: no `TKE001` diagnostic on line 9 to ignore (`TKE001` reports \
         line 12 of this document)."
    );
}

/// A suggested rewrite never breaks the call (issue 29 item 3): K8S001 offers the
/// Service's name for a plain-HTTP call only; for a TLS one its help says why not.
#[test]
fn k8s001_offers_no_rename_of_a_tls_call() {
    let file = "testdata/owners/tls-caller.yaml";
    let (_, report) = check_json(&["--select", "K8S001", file]);
    assert_eq!(
        findings(&report),
        [
            f("K8S001", "note", file, 30, 47),
            f("K8S001", "note", file, 31, 50)
        ]
    );
    let d = &report["diagnostics"];
    assert_eq!(d[0]["suggestions"].as_array().map_or(0, Vec::len), 0);
    let help = d[0]["help"].as_str().unwrap();
    assert!(
        help.starts_with("this call is TLS") && help.contains("no rewrite is offered"),
        "{help}"
    );
    assert_eq!(
        d[1]["suggestions"][0]["description"],
        "call `api` instead of 203.0.113.5"
    );
}

/// A class-less Ingress is TKE's own when TKE owns it (its annotations, with no profile),
/// not the default IngressClass's: the in-cluster controller's Service does not serve its
/// host. Another cloud's class-less Ingress goes to the default class as before.
#[test]
fn a_classless_ingress_follows_its_owner_not_the_profile_alone() {
    let text = std::fs::read_to_string("testdata/model/controllers/ingress-nginx.yaml")
        .unwrap()
        .replace(
            "  name: nginx\nspec:",
            "  name: nginx\n  annotations:\n    ingressclass.kubernetes.io/is-default-class: \"true\"\nspec:",
        )
        .replace("  ingressClassName: nginx\n", "");
    let served = |text: &str| {
        let run = crate::lblint_stdin(&["model", "-", "--no-config"], Some(text.as_bytes()));
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
            .contains("address api.corp.example.com (ControllerIngressHost)")
    };
    assert!(served(&text));
    let tke = text.replace(
        "  name: api\n  namespace: shop\nspec:\n  rules:",
        "  name: api\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.existLbId: lb-1\nspec:\n  rules:",
    );
    assert_ne!(tke, text);
    assert!(!served(&tke));
}

/// Internal load-balancer annotations read as each controller reads them, not with one
/// case-insensitive "true" (testdata/model/internal-annotations.yaml says which way each).
#[test]
fn internal_annotations_are_read_as_each_controller_reads_them() {
    let run = crate::lblint(&[
        "model",
        "testdata/model/internal-annotations.yaml",
        "--no-config",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let model: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let networks: Vec<(String, String)> = model["entryPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["object"]["name"].as_str().unwrap().to_string(),
                e["network"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("azure-true-capital", "public"),
        ("gke-first-key-external", "public"),
        ("aws-internal-zero", "private"),
        ("oci-internal-one", "private"),
        ("ibm-private-capital", "private"),
        ("openstack-true-capital", "unknown"),
    ];
    assert_eq!(
        networks,
        expected.map(|(n, w)| (n.to_string(), w.to_string()))
    );
}
