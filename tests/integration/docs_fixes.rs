//! The fix ends green: every rule document's failing example, fixed with lblint's own fixes
//! (`--fix --unsafe-fixes`) on its profile, and linted again, has no finding at warning or
//! above that it did not have before (a fix that makes another rule complain is a bug).

use lblint::catalog;
use lblint::catalog::docs;
use serde_json::Value;

use crate::cli::tempdir;
use crate::{check_json, lblint};

/// The (rule, object) pairs with a finding at warning or above.
fn serious(report: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] != "note")
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                format!("{}/{}", d["object"]["kind"], d["object"]["name"]),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The example's profile, or its provider's bare one (as tests/docs.rs lints them).
fn profile_text(meta: &catalog::RuleMeta, example: &docs::Example) -> String {
    match (&example.profile, meta.providers.clouds()) {
        (Some(text), _) => text.clone(),
        (None, [cloud]) => format!(
            "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: {cloud}\n"
        ),
        (None, _) => {
            "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: generic\n"
                .to_string()
        }
    }
}

#[test]
fn every_rule_documents_fix_ends_green() {
    let mut fixed = 0;
    let mut failures = Vec::new();
    for meta in catalog::all_meta() {
        for (n, example) in docs::examples(meta.doc).into_iter().enumerate() {
            if !matches!(example.expect, docs::Expect::Fails(_)) {
                continue;
            }
            let dir = tempdir(&format!("docs-fix-{}-{n}", meta.id));
            let (manifest, profile) = (dir.join("example.yaml"), dir.join("profile.yaml"));
            std::fs::write(&manifest, &example.manifest).unwrap();
            std::fs::write(&profile, profile_text(meta, &example)).unwrap();
            let (manifest, profile) = (manifest.to_str().unwrap(), profile.to_str().unwrap());
            let lint = || check_json(&["--no-config", "--profile", profile, manifest]).1;
            let before = serious(&lint());
            let run = lblint(&[
                "check",
                "--no-config",
                "--profile",
                profile,
                "--fix",
                "--unsafe-fixes",
                manifest,
            ]);
            if std::fs::read_to_string(manifest).unwrap() == example.manifest {
                continue;
            }
            fixed += 1;
            let after = serious(&lint());
            let new: Vec<_> = after.iter().filter(|f| !before.contains(f)).collect();
            if !new.is_empty() {
                failures.push(format!(
                    "{} example at line {}: the fix brought {new:?}\n{}",
                    meta.id, example.line, run.stderr
                ));
            }
        }
    }
    // Most rules with a fix show it in a failing example: far fewer fixed means the
    // examples or the fix flags went missing, not that every fix is green.
    assert!(fixed >= 8, "only {fixed} examples were changed by a fix");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
