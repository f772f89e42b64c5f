//! Manifests without `metadata.namespace` (applied with `kubectl -n NS`) and an imported
//! profile that lists the whole cluster's load balancers (issue 37): `--namespace` or the
//! config's `namespace:` places them; imported entries for other teams' objects are not
//! this repository's problem, and one left unmatched for want of a namespace says how.

use crate::cli::tempdir;
use crate::{check_json, f, findings, lblint};

const APP: &str = "testdata/namespace/app.yaml";
const PROFILE: &str = "testdata/namespace/profile.yaml";

#[test]
fn without_a_namespace_only_the_unplaced_entry_is_reported_with_the_flag_to_pass() {
    let (code, report) = check_json(&["--no-config", "--profile", PROFILE, APP]);
    assert_eq!(code, 1);
    // The other teams' imported load balancers (payments, billing) say nothing.
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", APP, 8, 5),
            f("LBL007", "warning", PROFILE, 16, 15),
        ]
    );
    let help = report["diagnostics"][1]["help"].as_str().unwrap();
    assert!(
        help.contains(
            "lint with `--namespace otel-demo` or set `namespace: otel-demo` in lblint.yaml"
        ),
        "{help}"
    );
}

#[test]
fn the_namespace_flag_places_the_manifests_and_the_call_is_judged() {
    for flag in ["-n", "--namespace"] {
        let (code, report) =
            check_json(&["--no-config", flag, "otel-demo", "--profile", PROFILE, APP]);
        assert_eq!(code, 1);
        assert_eq!(findings(&report), vec![f("TKE001", "error", APP, 8, 5)]);
        let message = report["diagnostics"][0]["message"].as_str().unwrap();
        assert!(
            message.contains("Deployment/otel-demo/load-generator calls its address 10.0.4.17"),
            "{message}"
        );
    }
    let run = lblint(&["check", "--no-config", "-n", "Otel_Demo", APP]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("a namespace is a DNS label"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_config_namespace_places_them_and_the_flag_wins() {
    let dir = tempdir("namespace-config");
    std::fs::copy(APP, dir.join("app.yaml")).unwrap();
    std::fs::copy(PROFILE, dir.join("profile.yaml")).unwrap();
    std::fs::write(
        dir.join("lblint.yaml"),
        "profile: profile.yaml\nnamespace: otel-demo\n",
    )
    .unwrap();
    let root = dir.to_str().unwrap();
    let (_, report) = crate::check_json_in(root, &["app.yaml"]);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "error", "app.yaml", 8, 5)]
    );
    // `--namespace` wins: in `shop` the profile's entry is unplaced again.
    let (_, report) = crate::check_json_in(root, &["-n", "shop", "app.yaml"]);
    let rules: Vec<String> = findings(&report).into_iter().map(|d| d.0).collect();
    assert_eq!(rules, vec!["TKE001", "LBL007"]);
    std::fs::write(dir.join("lblint.yaml"), "namespace: Otel Demo\n").unwrap();
    let run = crate::lblint_in(root, &["check", "app.yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("`namespace: Otel Demo` is not a namespace name"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("lblint.yaml:1:12"), "{}", run.stderr);
}
