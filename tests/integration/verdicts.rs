//! One verdict per cause (issue 29 item 3): a call that a rule judges is not noted again
//! by K8S001, whatever order the rules run in.

use crate::{check_json, f, findings};

const PROFILE: &str = "examples/profiles/tke-ipvs.yaml";
const CALLS: &str = "testdata/verdicts/one-verdict-per-call.yaml";

#[test]
fn a_judged_call_gets_one_finding_that_carries_the_rename() {
    let (_, report) = check_json(&["--profile", PROFILE, CALLS]);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", CALLS, 11, 5)]
    );
    let verdict = &report["diagnostics"][0];
    let suggestions = verdict["suggestions"].as_array().unwrap();
    // The way out by name, then its edit at the plain-HTTP call only.
    assert_eq!(suggestions.len(), 2, "{suggestions:?}");
    assert_eq!(
        suggestions[1],
        serde_json::json!({
            "description": "call `orders` instead of 10.0.1.30",
            "applicability": "display-only",
            "edits": [{"line": 40, "column": 30, "end_line": 40, "end_column": 39, "content": "orders"}],
        })
    );
    // The TLS call says why it gets no rename.
    let tls = verdict["related"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["line"] == 42)
        .unwrap();
    assert!(
        tls["message"]
            .as_str()
            .unwrap()
            .ends_with("; TLS, so no rename is offered (`orders` fails certificate verification unless the certificate names it)"),
        "{tls}"
    );
}

#[test]
fn k8s001_notes_the_calls_no_reported_rule_judges() {
    for args in [["--ignore", "TKE001"], ["--select", "K8S001"]] {
        let (_, report) = check_json(&[&args[..], &["--profile", PROFILE, CALLS]].concat());
        assert_eq!(
            findings(&report),
            vec![
                f("K8S001", "note", CALLS, 40, 30),
                f("K8S001", "note", CALLS, 42, 31),
            ],
            "{args:?}"
        );
    }
}

/// The pass that silences K8S001 runs after every rule: reversing the rules' order changes
/// nothing.
#[test]
fn the_verdict_does_not_depend_on_rule_order() {
    let files = [(CALLS.to_string(), std::fs::read(CALLS).unwrap())];
    let profile = lblint::profile::load_profile(std::path::Path::new(PROFILE)).unwrap();
    let forward = lblint::rules::registry();
    let mut backward = forward.clone();
    backward.reverse();
    let ids = |rules: &[&dyn lblint::rules::Rule]| {
        let mut found: Vec<_> = lblint::check::check_sources_with(&files, &profile, rules)
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.rule(),
                    d.location().span.start.line,
                    d.suggestions().len(),
                )
            })
            .collect();
        found.sort();
        found
    };
    assert_eq!(ids(&forward), vec![("TKE001", 11, 2)]);
    assert_eq!(ids(&backward), ids(&forward));
}
