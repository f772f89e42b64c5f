//! SARIF output: schema validity, fingerprints, URIs, UTF-16 columns, rule descriptors.

use super::*;
// The reporter, not this module (which the glob above also brings in).
use crate::report::sarif;

fn sarif_validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/report/sarif-schema-2.1.0.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn valid_sarif(text: &str) -> serde_json::Value {
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{text}");
    value
}

fn sarif_text(diagnostics: &[Diagnostic], map: &SourceMap) -> String {
    let text = report(Format::Sarif, diagnostics, &Summary::default(), map);
    // Only the version changes between releases; the rule documents have their own tests.
    let version = env!("CARGO_PKG_VERSION");
    text.replace(
        &format!("\"semanticVersion\": \"{version}\""),
        "\"semanticVersion\": \"[VERSION]\"",
    )
    .replace(
        &format!("\"version\": \"{version}\""),
        "\"version\": \"[VERSION]\"",
    )
}

/// Hand-built diagnostics with no registered rule, a cross-file related location,
/// a template origin, safe and unsafe fixes and a zero-length span; only the rules
/// that fired are described, so the snapshot stays small.
#[test]
fn sarif_basic() {
    let (diagnostics, _, map) = basic();
    let options = ReportOptions {
        rules: Vec::new(),
        ..ReportOptions::default()
    };
    let mut out = Vec::new();
    write_report(
        Format::Sarif,
        &diagnostics,
        &Summary::default(),
        &map,
        &options,
        &mut out,
    )
    .unwrap();
    let raw = String::from_utf8(out).unwrap();
    // Validated as written: the redacted version would not make a valid helpUri.
    let value = valid_sarif(&raw);
    let mut text = raw.replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
    // The registered rule's help is its whole document: checked, then shortened.
    let meta = crate::catalog::lookup("TKE001").unwrap();
    let body = crate::catalog::docs::body(meta.doc).trim_end();
    for help in [
        format!("{body}\n\nDocumentation: {}\n", meta.url()),
        format!("{body}\n\nDocumentation: [TKE001]({})\n", meta.url()),
    ] {
        let json = serde_json::to_string(&help)
            .unwrap()
            .replace(env!("CARGO_PKG_VERSION"), "[VERSION]");
        assert!(text.contains(&json));
        text = text.replace(&json, "\"[rules/TKE001.md body + link]\"");
    }
    let results = value["runs"][0]["results"].as_array().unwrap();
    let rules = value["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), 3, "one descriptor per rule that fired");
    for result in results {
        assert_eq!(
            rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
            result["ruleId"]
        );
    }
    // The fix first, then the suggestion with edits, marked; the by-hand one is left out.
    let fixes = results[1]["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 2);
    assert!(fixes[0]["properties"].get("suggestion").is_none());
    assert_eq!(fixes[1]["properties"]["suggestion"], true);
    assert_eq!(
        fixes[1]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
        "\"false\""
    );
    // An origin that is no file here (no working directory to find it from) is left out
    // of the related locations; its written path stays in the properties.
    let related = results[0]["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 2);
    assert_eq!(
        results[0]["properties"]["origin"],
        "charts/web/templates/service.yaml"
    );
    snapshot!("report_sarif_basic", text);
}

#[test]
fn sarif_empty() {
    let text = sarif_text(&[], &SourceMap::default());
    let value = valid_sarif(&text);
    assert_eq!(value["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        value["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        crate::catalog::all_meta().len()
    );
}

/// Identical (rule, file, object, span text) tuples differ only by occurrence.
#[test]
fn sarif_fingerprint_occurrences() {
    let path = "dup.yaml";
    let text = "a: x\nb: x\n";
    let make = |nth| {
        Diagnostic::new(
            "LB009",
            "dup",
            Severity::Warning,
            find(path, text, "x", nth),
            "same",
        )
    };
    let map = sources(&[(path, text)]);
    let value = valid_sarif(&sarif_text(&[make(0), make(1)], &map));
    let prints: Vec<&str> = value["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"]["lblint/v1"].as_str().unwrap())
        .collect();
    assert_ne!(prints[0], prints[1]);
    // Same input, same fingerprints: no randomized hashing.
    let again = valid_sarif(&sarif_text(&[make(0), make(1)], &map));
    assert_eq!(
        again["runs"][0]["results"][1]["partialFingerprints"]["lblint/v1"],
        prints[1]
    );
}

#[test]
fn fnv1a_known_values() {
    let hash = |s: &str| {
        let mut h = sarif::Fnv1a::new();
        h.write(s.as_bytes());
        h.0
    };
    assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn sarif_uri_encoding() {
    use sarif::{artifact_location, encode_path};
    use std::path::Path;
    assert_eq!(
        encode_path("k8s/web svc #1/100% ü.yaml"),
        "k8s/web%20svc%20%231/100%25%20%C3%BC.yaml"
    );
    assert_eq!(encode_path("a:b?c&d.yaml"), "a%3Ab%3Fc%26d.yaml");
    let cwd = Some(Path::new("/work/repo"));
    let rel = artifact_location("k8s/a b.yaml", cwd);
    assert_eq!(
        (rel.uri.as_str(), rel.uri_base_id),
        ("k8s/a%20b.yaml", Some("%SRCROOT%"))
    );
    let folded = artifact_location("k8s/../svc.yaml", cwd);
    assert_eq!(folded.uri, "svc.yaml");
    let outside = artifact_location("../other/svc.yaml", cwd);
    assert_eq!(
        (outside.uri.as_str(), outside.uri_base_id),
        ("file:///work/other/svc.yaml", None)
    );
    let absolute = artifact_location("/etc/k8s/Ä.yaml", cwd);
    assert_eq!(absolute.uri, "file:///etc/k8s/%C3%84.yaml");
    let inside = artifact_location("/work/repo/k8s/x.yaml", cwd);
    assert_eq!(inside.uri, "k8s/x.yaml");
    // Without a working directory a `../` path stays relative.
    assert_eq!(artifact_location("../x.yaml", None).uri, "../x.yaml");
    assert_eq!(artifact_location("<stdin>", cwd).uri, "%3Cstdin%3E");
}

#[test]
fn sarif_utf16_columns() {
    let text = "k: \"😀é\" v\n";
    let offset = text.find('v').unwrap();
    let pos = pos(text, offset);
    assert_eq!(pos.column, 9, "chars");
    assert_eq!(sarif::utf16_column(pos, Some(text)), 10, "UTF-16 units");
    assert_eq!(sarif::utf16_column(pos, None), 9, "no text: char column");
}

#[test]
fn sarif_full_description() {
    let body = "# X\n\n## What it finds\n\nA thing\n**bold**:\n\n- one\n- two\n\nMore.\n\n## Why\n";
    assert_eq!(
        sarif::full_description(body).as_deref(),
        Some("A thing bold: one two")
    );
    let long = format!("## What it finds\n\n{}\n", "word ".repeat(400));
    let text = sarif::full_description(&long).unwrap();
    assert!(
        text.chars().count() <= 1024 && text.ends_with('…'),
        "{text}"
    );
    assert_eq!(sarif::full_description("# no section\n"), None);
}
