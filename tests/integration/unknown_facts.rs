//! "Unknown is never no" as a property: for every scenario (each manifest of a testdata
//! folder with each profile of that folder, and every rule document's example with its
//! profile) where the full profile gives an object a finding at warning or above, deleting
//! any one profile fact must leave that object a finding at warning or above. A fact the
//! profile does not state is unknown: it may lower an error to a warning that names the
//! field, never to silence or a note.
//!
//! Facts are every leaf under `spec` and every key of a node pool. Not deleted: what is
//! evidence rather than a fact that could be unknown (load balancers' addresses and the
//! objects they name, the allow-lists a support ticket enables), `spec.provider`
//! (required: a profile without it does not load), and the controllers' options, which
//! unstated take the controller's documented default (DEVELOPERS.md, "Severity"): a
//! non-default value that causes a finding is rightly gone with it.

use std::collections::BTreeSet;

use lblint::catalog;
use lblint::catalog::docs;
use lblint::check::check_sources;
use lblint::diagnostic::{Diagnostic, Severity};
use lblint::profile;
use serde_json::Value;

/// Folders whose manifests are linted with each of their `profile*.yaml`.
const FOLDERS: &[&str] = &[
    "examples/manifests",
    "testdata/ack",
    "testdata/context",
    "testdata/gateways",
    "testdata/k8s",
    "testdata/model",
    "testdata/model/controllers",
    "testdata/model/evidence",
    "testdata/namespace",
    "testdata/owners",
    "testdata/tke",
    "testdata/verdicts",
    "testdata/vke",
];

struct Scenario {
    name: String,
    manifest: Vec<u8>,
    profile: String,
}

fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    for folder in FOLDERS {
        let mut manifests = Vec::new();
        let mut profiles = Vec::new();
        let bundled = std::fs::read_dir("examples/profiles").unwrap();
        let own = std::fs::read_dir(folder).unwrap();
        let entries = own.chain(
            if *folder == "examples/manifests" {
                Some(bundled)
            } else {
                None
            }
            .into_iter()
            .flatten(),
        );
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("profile") || path.parent().is_some_and(|p| p.ends_with("profiles"))
            {
                profiles.push(path);
            } else {
                manifests.push(path);
            }
        }
        manifests.sort();
        profiles.sort();
        for manifest in &manifests {
            for profile in &profiles {
                out.push(Scenario {
                    name: format!("{} with {}", manifest.display(), profile.display()),
                    manifest: std::fs::read(manifest).unwrap(),
                    profile: std::fs::read_to_string(profile).unwrap(),
                });
            }
        }
    }
    for meta in catalog::all_meta() {
        for example in docs::examples(meta.doc) {
            if let (docs::Expect::Fails(_), Some(profile)) = (&example.expect, &example.profile) {
                out.push(Scenario {
                    name: format!("rules/{}.md line {}", meta.id, example.line),
                    manifest: example.manifest.clone().into_bytes(),
                    profile: profile.clone(),
                });
            }
        }
    }
    out
}

/// The objects (or, for a finding on no object, the lines) with a finding at warning or
/// above, and the findings for the failure message.
fn flagged(manifest: &[u8], profile_text: &str) -> Option<(BTreeSet<String>, Vec<String>)> {
    let profile = profile::parse_profile(profile_text, "profile.yaml").ok()?;
    let outcome = check_sources(&[("example.yaml".into(), manifest.to_vec())], &profile);
    let serious = |d: &&Diagnostic| d.severity() >= Severity::Warning;
    let keys = outcome
        .diagnostics
        .iter()
        .filter(serious)
        .filter(|d| d.location().file.as_ref() == "example.yaml")
        .map(|d| match d.object() {
            Some(o) => format!("{}/{}", o.kind, o.name),
            None => format!("line {}", d.location().span.start.line),
        })
        .collect();
    let all = outcome
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {}:{} {}",
                d.rule(),
                d.severity().as_str(),
                d.location().file,
                d.location().span.start.line,
                d.message()
            )
        })
        .collect();
    Some((keys, all))
}

/// Every deletable fact's path under the profile document.
fn fact_paths(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let here = path.join(".");
    if here == "spec.provider"
        || here.starts_with("spec.allowlists")
        || here.starts_with("spec.loadBalancers")
        || here.starts_with("spec.ingressControllers")
        || here.starts_with("spec.addons.cloudControllerManagerOptions")
        || here.starts_with("spec.addons.awsLoadBalancerControllerOptions")
    {
        return;
    }
    match value {
        Value::Object(map) => {
            // A node pool's keys are facts too (its labels as a whole, its taints).
            let in_pool = path.len() == 3 && path[1] == "nodePools";
            for (key, child) in map {
                path.push(key.clone());
                if in_pool && (child.is_object() || child.is_array()) {
                    out.push(path.clone());
                }
                fact_paths(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(i.to_string());
                fact_paths(child, path, out);
                path.pop();
            }
        }
        _ if path.len() > 1 => out.push(path.clone()),
        _ => {}
    }
}

fn without(value: &Value, path: &[String]) -> Value {
    let mut copy = value.clone();
    let (last, parents) = path.split_last().unwrap();
    let mut node = &mut copy;
    for key in parents {
        node = match node {
            Value::Object(map) => map.get_mut(key).unwrap(),
            Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
            _ => unreachable!(),
        };
    }
    match node {
        Value::Object(map) => {
            map.remove(last);
        }
        Value::Array(items) => {
            items.remove(last.parse::<usize>().unwrap());
        }
        _ => unreachable!(),
    }
    copy
}

#[test]
fn deleting_any_profile_fact_never_silences_a_finding() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for scenario in scenarios() {
        let Some((full, _)) = flagged(&scenario.manifest, &scenario.profile) else {
            continue;
        };
        if full.is_empty() {
            continue;
        }
        let document: Value = serde_saphyr::from_str(&scenario.profile).unwrap();
        let mut paths = Vec::new();
        fact_paths(&document, &mut Vec::new(), &mut paths);
        for path in paths {
            // JSON is YAML: the changed profile is written as JSON.
            let text = serde_json::to_string_pretty(&without(&document, &path)).unwrap();
            let Some((after, findings)) = flagged(&scenario.manifest, &text) else {
                continue;
            };
            checked += 1;
            let lost: Vec<&String> = full.difference(&after).collect();
            if !lost.is_empty() {
                failures.push(format!(
                    "{}: without {} the finding on {lost:?} is gone:\n    {}",
                    scenario.name,
                    path.join("."),
                    findings.join("\n    ")
                ));
            }
        }
    }
    // Every scenario above, with every fact: a count far below this means scenarios went
    // missing (a moved folder), not that the property holds.
    assert!(checked > 1500, "only {checked} deletions checked");
    assert!(
        failures.is_empty(),
        "{} deletions silenced a finding:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
