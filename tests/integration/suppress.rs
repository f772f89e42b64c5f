//! Suppressions: comments, annotations, `--no-ignores`, LBL004 notes and summary counts.

use crate::{check_json, f, findings, lblint};
use lblint::check::check_sources;
use lblint::profile;

fn summary(report: &serde_json::Value) -> (u64, u64, u64, u64) {
    let s = &report["summary"];
    (
        s["error"].as_u64().unwrap(),
        s["warning"].as_u64().unwrap(),
        s["note"].as_u64().unwrap(),
        s["suppressed"].as_u64().unwrap(),
    )
}

#[test]
fn trailing_comment_on_the_finding_line_suppresses_by_id() {
    let (code, report) = check_json(&["testdata/suppress/comment-line.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(findings(&report), vec![]);
    assert_eq!(summary(&report), (0, 0, 0, 1));
}

#[test]
fn comment_on_the_line_above_suppresses_by_name_with_reason() {
    let (code, report) = check_json(&["testdata/suppress/comment-above.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(findings(&report), vec![]);
    assert_eq!(summary(&report), (0, 0, 0, 1));
}

#[test]
fn hash_inside_a_string_or_block_scalar_is_not_a_comment() {
    let (code, report) = check_json(&["testdata/suppress/hash-in-string.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/suppress/hash-in-string.yaml",
            13,
            5
        )]
    );
    assert_eq!(summary(&report), (0, 1, 0, 0));
}

#[test]
fn comments_survive_helm_template_output() {
    let (code, report) = check_json(&["testdata/suppress/helm.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", "testdata/suppress/helm.yaml", 25, 5)]
    );
    assert_eq!(report["diagnostics"][0]["object"]["name"], "orders");
    assert_eq!(summary(&report), (0, 1, 0, 1));

    // The same stream on stdin, as `helm template ... | lblint check -` gives it.
    let text = std::fs::read("testdata/suppress/helm.yaml").unwrap();
    let run = crate::lblint_stdin(
        &[
            "check",
            "--format",
            "compact",
            "--stdin-filename",
            "rendered.yaml",
            "-",
        ],
        Some(&text),
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(run
        .stdout
        .starts_with("rendered.yaml:25:5: warning[TKE001]"));
}

#[test]
fn annotations_suppress_by_id_or_name_on_their_object_only() {
    let (code, report) = check_json(&["testdata/suppress/annotation.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/suppress/annotation.yaml",
            34,
            5
        )]
    );
    assert_eq!(report["diagnostics"][0]["object"]["name"], "billing");
    assert_eq!(summary(&report), (0, 1, 0, 2));
}

#[test]
fn no_ignores_shows_everything() {
    let (code, report) = check_json(&["--no-ignores", "testdata/suppress"]);
    assert_eq!(code, 1);
    let file = |name: &str| format!("testdata/suppress/{name}");
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", &file("annotation.yaml"), 9, 5),
            f("TKE001", "warning", &file("annotation.yaml"), 21, 5),
            f("TKE001", "warning", &file("annotation.yaml"), 34, 5),
            f("TKE001", "warning", &file("comment-above.yaml"), 9, 5),
            f("TKE001", "warning", &file("comment-line.yaml"), 8, 5),
            f("TKE001", "warning", &file("hash-in-string.yaml"), 13, 5),
            f("TKE001", "warning", &file("helm.yaml"), 10, 5),
            f("TKE001", "warning", &file("helm.yaml"), 25, 5),
            f("TKE001", "warning", &file("unused.yaml"), 24, 5),
        ]
    );
    // Nothing is suppressed, and no LBL004 note: suppressions are not looked at.
    assert_eq!(summary(&report), (0, 9, 0, 0));
}

#[test]
fn unused_and_unknown_suppressions_are_lbl004_notes() {
    let (code, report) = check_json(&["testdata/suppress/unused.yaml"]);
    assert_eq!(code, 1);
    let file = "testdata/suppress/unused.yaml";
    assert_eq!(
        findings(&report),
        vec![
            f("LBL004", "note", file, 8, 5),
            f("LBL004", "note", file, 9, 5),
            f("LBL004", "note", file, 11, 3),
            f("LBL004", "note", file, 14, 16),
            f("LBL004", "note", file, 15, 13),
            // A trailing comment covers its own line only, not the next one...
            f("LBL004", "note", file, 23, 16),
            // ...so the finding below it stays.
            f("TKE001", "warning", file, 24, 5),
        ]
    );
    let d = report["diagnostics"].as_array().unwrap();
    let text = |i: usize, key: &str| d[i][key].as_str().unwrap_or("").to_string();
    assert_eq!(
        text(0, "message"),
        "Unused suppression: Service/shop/web has no `TKE001` diagnostic to ignore."
    );
    assert_eq!(d[0]["object"]["name"], "web");
    assert_eq!(
        text(1, "message"),
        "Unknown rule `tke-l4-loopbak` in a suppression annotation: it suppresses nothing."
    );
    assert_eq!(
        text(1, "help"),
        "did you mean `tke-l4-loopback`? (see `lblint rules`)"
    );
    assert_eq!(
        text(2, "message"),
        "Unused suppression: no `TKE001` diagnostic on line 12 to ignore."
    );
    assert_eq!(
        text(3, "message"),
        "Unknown rule `TKE01` in a suppression comment: it suppresses nothing."
    );
    assert_eq!(
        text(3, "help"),
        "did you mean `TKE001`? (see `lblint rules`)"
    );
    assert_eq!(
        text(4, "message"),
        "Malformed suppression comment: it suppresses nothing."
    );
    assert_eq!(
        text(5, "message"),
        "Unused suppression: no `TKE001` diagnostic on line 23 to ignore (`TKE001` reports \
         line 24 of this document)."
    );
    assert_eq!(summary(&report), (0, 1, 6, 0));
}

#[test]
fn suppressions_listing_lbl004_are_kept_on_purpose() {
    let (code, report) = check_json(&["--fail-on", "note", "testdata/suppress/keep.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(findings(&report), vec![]);
    assert_eq!(summary(&report), (0, 0, 0, 0));
}

#[test]
fn lbl004_follows_the_rule_filters() {
    // Suppressions of a rule that did not run are not "unused".
    let (_, report) = check_json(&["--select", "LBL001", "testdata/suppress/unused.yaml"]);
    assert_eq!(findings(&report), vec![]);
    // LBL004 can be switched off like any rule; unknown-rule notes go with it.
    let (code, report) = check_json(&[
        "--ignore",
        "unused-suppression",
        "testdata/suppress/unused.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/suppress/unused.yaml",
            24,
            5
        )]
    );
}

#[test]
fn human_summary_mentions_suppressed_findings() {
    let run = lblint(&["check", "testdata/suppress/annotation.yaml"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.ends_with(
            "Found 0 errors, 1 warning and 0 notes (2 suppressed) in 1 file (3 objects).\n"
        ),
        "{}",
        run.stdout
    );
    let run = lblint(&["check", "testdata/suppress/comment-line.yaml"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout
            .ends_with("No problems found (1 suppressed) in 1 file (1 object).\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn check_sources_applies_comments_and_annotations() {
    let files: Vec<(String, Vec<u8>)> = ["comment-line.yaml", "annotation.yaml", "unused.yaml"]
        .iter()
        .map(|name| {
            (
                name.to_string(),
                std::fs::read(format!("testdata/suppress/{name}")).unwrap(),
            )
        })
        .collect();
    let outcome = check_sources(&files, &profile::generic());
    let got: Vec<(&str, &str, u32)> = outcome
        .diagnostics
        .iter()
        .map(|d| (d.rule(), &*d.location().file, d.location().span.start.line))
        .collect();
    assert_eq!(
        got,
        vec![
            ("TKE001", "annotation.yaml", 34),
            ("LBL004", "unused.yaml", 8),
            ("LBL004", "unused.yaml", 9),
            ("LBL004", "unused.yaml", 11),
            ("LBL004", "unused.yaml", 14),
            ("LBL004", "unused.yaml", 15),
            ("LBL004", "unused.yaml", 23),
            ("TKE001", "unused.yaml", 24),
        ]
    );
    assert_eq!(outcome.summary.suppressed, 3);
}

#[test]
fn suppressions_in_a_file_with_a_syntax_error_are_not_reported_unused() {
    let text = b"apiVersion: v1\nkind: Service\nmetadata:\n  name: web # lblint: ignore[TKE001]\n   namespace: x\n";
    let outcome = check_sources(&[("bad.yaml".into(), text.to_vec())], &profile::generic());
    let rules: Vec<&str> = outcome.diagnostics.iter().map(|d| d.rule()).collect();
    assert_eq!(rules, vec!["LBL001"]);
}
