//! Exact positions through the loader: multi-document, List, Helm, kustomize, JSON,
//! BOM + CRLF, syntax errors, templates, encodings.

use crate::{check_json, f, findings, SUBNET_KEY};

#[test]
fn second_and_third_document_positions_are_exact() {
    let (code, report) = check_json(&["testdata/load/multi-doc.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", "testdata/load/multi-doc.yaml", 14, 5),
            f("TKE001", "warning", "testdata/load/multi-doc.yaml", 26, 5),
        ]
    );
    let second = &report["diagnostics"][0];
    assert_eq!(second["end_line"], 14);
    assert_eq!(second["end_column"], 5 + SUBNET_KEY.len() as u64);
    assert_eq!(second["object"]["name"], "second");
    assert_eq!(second["object"]["namespace"], serde_json::Value::Null);
    assert_eq!(report["diagnostics"][1]["object"]["name"], "third");
    assert_eq!(report["summary"]["objects"], 3);
}

#[test]
fn list_items_are_objects() {
    let (_, report) = check_json(&["testdata/load/list.yaml"]);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", "testdata/load/list.yaml", 21, 9)]
    );
    let d = &report["diagnostics"][0];
    assert_eq!(d["object"]["name"], "listed-b");
    assert_eq!(d["object"]["namespace"], "apps");
    // The List itself is not an object; its two items are.
    assert_eq!(report["summary"]["objects"], 2);
}

#[test]
fn helm_source_comment_is_the_origin() {
    let (_, report) = check_json(&["testdata/load/helm-rendered.yaml"]);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/load/helm-rendered.yaml",
            18,
            5
        )]
    );
    assert_eq!(
        report["diagnostics"][0]["origin"],
        "shop/templates/service.yaml"
    );
}

#[test]
fn kustomize_origin_annotation_is_the_origin() {
    let (_, report) = check_json(&["testdata/load/kustomize-origin.yaml"]);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/load/kustomize-origin.yaml",
            8,
            5
        )]
    );
    assert_eq!(report["diagnostics"][0]["origin"], "base/service.yaml");
}

#[test]
fn json_manifest_positions() {
    let (_, report) = check_json(&["testdata/load/service-tke.json"]);
    assert_eq!(
        findings(&report),
        vec![f(
            "TKE001",
            "warning",
            "testdata/load/service-tke.json",
            7,
            7
        )]
    );
    // The key's span includes its quotes.
    assert_eq!(
        report["diagnostics"][0]["end_column"],
        7 + SUBNET_KEY.len() as u64 + 2
    );
}

#[test]
fn bom_and_crlf_do_not_shift_positions() {
    let (_, report) = check_json(&[
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "testdata/load/bom-crlf.yaml",
    ]);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", "testdata/load/bom-crlf.yaml", 6, 5)]
    );
    assert_eq!(
        report["diagnostics"][0]["end_column"],
        5 + SUBNET_KEY.len() as u64
    );
    // The fix keeps the file's CRLF line ends.
    let fix = &report["diagnostics"][0]["fix"];
    assert_eq!(fix["edits"][0]["line"], 7);
    assert_eq!(fix["edits"][0]["column"], 1);
    assert_eq!(
        fix["edits"][0]["content"],
        "    service.cloud.tencent.com/prevent-loopback: \"true\"\r\n"
    );
}

#[test]
fn syntax_error_is_located_and_the_run_goes_on() {
    let (code, report) = check_json(&["testdata/load/syntax-error.yaml"]);
    assert_eq!(code, 1);
    let found = findings(&report);
    assert_eq!(found.len(), 2, "{report:#}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str(), found[0].3),
        ("LBL001", "error", 10)
    );
    assert_eq!(report["diagnostics"][0]["name"], "yaml-syntax");
    // The document after the broken one is still linted.
    assert_eq!(
        found[1],
        f(
            "TKE001",
            "warning",
            "testdata/load/syntax-error.yaml",
            17,
            5
        )
    );
    assert_eq!(report["summary"]["objects"], 2);
}

#[test]
fn unrendered_template_gets_a_note_and_is_skipped() {
    let (code, report) = check_json(&["testdata/load/template.yaml"]);
    assert_eq!(
        findings(&report),
        vec![f("LBL002", "note", "testdata/load/template.yaml", 1, 1)]
    );
    assert_eq!(
        code, 0,
        "a note does not fail the default --fail-on warning"
    );
}

#[test]
fn non_kubernetes_yaml_is_skipped_silently() {
    let (code, report) = check_json(&["testdata/load/not-kubernetes.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(findings(&report), vec![]);
    assert_eq!(report["summary"]["files"], 1);
    assert_eq!(report["summary"]["objects"], 0);
}

#[test]
fn latin1_file_is_reported_not_guessed() {
    let (code, report) = check_json(&["testdata/load/latin1.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("LBL003", "warning", "testdata/load/latin1.yaml", 1, 1)]
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("not valid UTF-8") && message.contains("line 4"),
        "{message}"
    );
}

/// Old Mac line ends (a lone CR) end lines for the parser, the JSON and SARIF positions and
/// the human snippet alike: one line index.
#[test]
fn lone_cr_line_ends_give_one_position_everywhere() {
    let text = "apiVersion: v1\rkind: Service\rmetadata:\r  name: web\r  annotations:\r    \
                scrape: true\r";
    let run = crate::lblint_stdin(
        &[
            "check",
            "--format",
            "json",
            "--stdin-filename",
            "cr.yaml",
            "-",
        ],
        Some(text.as_bytes()),
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        findings(&report),
        vec![f("K8S002", "error", "cr.yaml", 6, 13)]
    );

    let run = crate::lblint_stdin(
        &[
            "check",
            "--format",
            "sarif",
            "--stdin-filename",
            "cr.yaml",
            "-",
        ],
        Some(text.as_bytes()),
    );
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let region = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(6), Some(13))
    );

    let run = crate::lblint_stdin(
        &[
            "check",
            "--color",
            "never",
            "--stdin-filename",
            "cr.yaml",
            "-",
        ],
        Some(text.as_bytes()),
    );
    assert!(run.stdout.contains("[cr.yaml:6:13]"), "{}", run.stdout);
    assert!(
        run.stdout.contains(" 6 │     scrape: true\n"),
        "{}",
        run.stdout
    );
}

/// A stream of a few megabytes is parsed in chunks on several threads: the
/// report must be byte for byte the one-thread report, findings and order alike.
#[test]
fn a_large_stream_reports_the_same_on_one_thread_and_many() {
    let mut fixtures: Vec<std::path::PathBuf> = walk_yaml("testdata");
    fixtures.sort();
    let texts: Vec<String> = fixtures
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        // Unrendered templates drop the whole stream; directives stop the split.
        .filter(|t| !t.contains("{{") && !t.starts_with(['%', '\u{FEFF}']) && !t.contains("\n%"))
        .collect();
    let mut stream = String::new();
    while stream.len() < 3 << 20 {
        for text in &texts {
            stream.push_str("---\n");
            stream.push_str(text);
            stream.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stream.yaml");
    std::fs::write(&path, &stream).unwrap();
    let path = path.to_str().unwrap();
    let run = |threads: &str| {
        crate::lblint(&[
            "check",
            "--no-config",
            "--profile",
            "examples/profiles/tke-ipvs.yaml",
            "--threads",
            threads,
            "--format",
            "json",
            path,
        ])
    };
    let one = run("1");
    assert_eq!(one.code, 1, "{}", one.stderr);
    let report: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    let count = report["diagnostics"].as_array().unwrap().len();
    assert!(count > 500, "{count} findings");
    for threads in ["2", "3", "8"] {
        let many = run(threads);
        assert_eq!((many.code, &many.stderr), (one.code, &one.stderr));
        assert!(many.stdout == one.stdout, "--threads {threads} differs");
    }
    // The triage switch: granit alone, without the fast path, gives the same report, and
    // -v says which reader ran.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lblint"));
    command.env("LBLINT_YAML", "granit");
    let args = [
        "check",
        "-v",
        "--no-config",
        "--profile",
        "examples/profiles/tke-ipvs.yaml",
        "--format",
        "json",
        path,
    ];
    let granit = crate::lblint_command(".", &args, None, command);
    let switch = "lblint: YAML: granit alone, without the fast path (LBLINT_YAML=granit)\n";
    assert_eq!(granit.code, 1, "{}", granit.stderr);
    assert!(granit.stderr.contains(switch), "{}", granit.stderr);
    assert!(granit.stdout == one.stdout, "LBLINT_YAML=granit differs");
    assert!(!crate::lblint(&args).stderr.contains("YAML:"));
}

fn walk_yaml(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk_yaml(path.to_str().unwrap()));
        } else if path.extension().is_some_and(|x| x == "yaml") {
            out.push(path);
        }
    }
    out
}
