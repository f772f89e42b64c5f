//! Every rule document: generated metadata, references, sections, the README table, and
//! every example fails or passes as it says.

use lblint::catalog;
use lblint::catalog::docs;
use lblint::check::check_sources;
use lblint::profile;

#[test]
fn every_rule_document_cites_vendor_references_and_has_its_sections() {
    for meta in catalog::all_meta() {
        let fm =
            docs::front_matter(meta.doc).unwrap_or_else(|| panic!("{}: no front matter", meta.id));
        assert_eq!(fm.id, meta.id);
        assert!(
            !fm.references.is_empty(),
            "{}: no vendor reference",
            meta.id
        );
        assert!(
            fm.references.iter().all(|r| r.contains("https://")),
            "{}: every reference needs a link",
            meta.id
        );
        for heading in [
            "## What it finds",
            "## How to fix",
            "## Fix safety",
            "## Examples",
        ] {
            assert!(meta.doc.contains(heading), "{}: missing {heading}", meta.id);
        }
        let on_disk = std::fs::read_to_string(format!("rules/{}.md", meta.id)).unwrap();
        assert_eq!(on_disk, meta.doc);
    }
}

#[test]
fn every_rule_document_has_examples_and_they_hold() {
    for meta in catalog::all_meta() {
        let examples = docs::examples(meta.doc);
        // LBL003 is about files that cannot be read, LBL008 and LBL009 about folders
        // rendered (or not) with an external tool: one YAML file cannot show them
        // (tests/cli.rs and tests/render.rs do).
        if ["LBL003", "LBL008", "LBL009"].contains(&meta.id) {
            continue;
        }
        assert!(
            examples
                .iter()
                .any(|e| matches!(e.expect, docs::Expect::Fails(_))),
            "{}: no failing example",
            meta.id
        );
        assert!(
            examples.iter().any(|e| e.expect == docs::Expect::Passes),
            "{}: no passing example",
            meta.id
        );
        for example in examples {
            let profile = match &example.profile {
                Some(text) => profile::parse_profile(text, "profile.yaml").unwrap_or_else(|e| {
                    panic!("{} line {}: bad profile: {e}", meta.id, example.line)
                }),
                // A cloud's rule is shown on its cloud; no profile would make an error of
                // it a warning (the annotations alone say which cloud, README).
                None => match meta.providers.clouds() {
                    [cloud] => profile::parse_profile(
                        &format!(
                            "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\n\
                             spec:\n  provider: {cloud}\n"
                        ),
                        "profile.yaml",
                    )
                    .expect("a provider's profile"),
                    _ => profile::generic(),
                },
            };
            let outcome = check_sources(
                &[("example.yaml".into(), example.manifest.clone().into_bytes())],
                &profile,
            );
            let hits: Vec<_> = outcome
                .diagnostics
                .iter()
                .filter(|d| d.rule() == meta.id)
                .collect();
            match &example.expect {
                // Passing: this rule is silent, and no other rule finds a problem either
                // (trade-off notes from other rules may remain).
                docs::Expect::Passes => {
                    assert!(
                        outcome.diagnostics.iter().all(|d| d.rule() != meta.id
                            && d.severity() == lblint::diagnostic::Severity::Note),
                        "{} example at line {} should pass: {:#?}",
                        meta.id,
                        example.line,
                        outcome.diagnostics
                    )
                }
                docs::Expect::Fails(severity) => {
                    assert!(
                        !hits.is_empty(),
                        "{} example at line {} should fail",
                        meta.id,
                        example.line
                    );
                    if let Some(severity) = severity {
                        assert!(
                            hits.iter().all(|d| d.severity().as_str() == severity),
                            "{} example at line {}: expected {severity}, got {:?}",
                            meta.id,
                            example.line,
                            hits.iter().map(|d| d.severity()).collect::<Vec<_>>()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn readme_rules_table_is_generated_from_the_rule_documents() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert!(
        readme.contains(&catalog::markdown_table()),
        "README's rules table is out of date: replace it with `lblint rules --format markdown`"
    );
}

/// The pre-commit hook's description names every cloud of the provider table, in its
/// order (it once listed 11 of 14).
#[test]
fn the_hook_description_lists_every_cloud() {
    let hooks = std::fs::read_to_string(".pre-commit-hooks.yaml").unwrap();
    let shorts: Vec<&str> = profile::Provider::clouds().map(|c| c.short).collect();
    let listed = format!(
        "loopback traps ({}) in Kubernetes manifests",
        shorts.join(", ")
    );
    assert!(
        hooks.contains(&listed),
        ".pre-commit-hooks.yaml's lblint description should read `{listed}`"
    );
}

/// The profile schema's provider enum is the provider table's names, and its description
/// names each cloud by its label.
#[test]
fn the_profile_schema_lists_every_cloud() {
    let schema = profile::json_schema();
    let text = serde_json::to_string(&schema).unwrap();
    let names: Vec<String> = profile::CLOUDS
        .iter()
        .map(|c| format!("\"{}\"", c.name))
        .collect();
    assert!(text.contains(&format!("[{}]", names.join(","))), "{text}");
    for cloud in profile::Provider::clouds() {
        assert!(
            text.contains(&format!("{} ({})", cloud.name, cloud.label)),
            "{}",
            cloud.name
        );
    }
}

/// README's `profile init` usage line and its example profile list every provider.
#[test]
fn readme_lists_every_provider() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let names = profile::Provider::NAMES;
    let usage = format!("lblint profile init [--provider {}]", names.join("|"));
    assert!(readme.contains(&usage), "README lacks `{usage}`");
    let start = readme.find("  provider: tke ").unwrap();
    let example = &readme[start..start + readme[start..].find("kubernetesVersion").unwrap()];
    let listed: Vec<&str> = example
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| names.contains(w))
        .collect();
    assert_eq!(listed[1..], names, "README's example `provider:` comment");
}

/// Adding a rule is a rule file, a `rules/<ID>.md` and a registry line: a document without
/// a registered rule or loader finding (or the reverse) fails here, and so does a rule whose
/// metadata is not the document's generated record. The catalog lists the documents, the
/// registry the rules that run: this keeps the two the same set.
#[test]
fn every_documented_rule_is_registered_and_every_registered_rule_documented() {
    let registered: Vec<&'static catalog::RuleMeta> = catalog::lbl::ALL
        .iter()
        .copied()
        .chain(lblint::rules::registry().iter().map(|rule| rule.meta()))
        .collect();
    let mut registered_ids: Vec<&str> = registered.iter().map(|m| m.id).collect();
    registered_ids.sort_unstable();
    let documented: Vec<&str> = catalog::all_meta().iter().map(|m| m.id).collect();
    assert_eq!(
        registered_ids, documented,
        "registry ∪ loader findings vs rules/*.md"
    );
    for meta in registered {
        let generated = catalog::lookup(meta.id).unwrap();
        assert!(
            std::ptr::eq(meta, generated),
            "{}: registered with metadata not generated from rules/{}.md",
            meta.id,
            meta.id
        );
    }
}
