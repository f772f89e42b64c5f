//! Output of hostile input through the binary: lines past column 65,535 (one-line JSON) in
//! findings, profiles and configs; terminal controls in manifests; newlines in file names.

use std::fs;

use crate::cli::tempdir;
use crate::{check_json_in, findings, lblint_in, snapshot, Run};

/// Runs the binary in `dir` without a config file from the repository around it.
fn run_in(dir: &std::path::Path, args: &[&str]) -> Run {
    lblint_in(dir.to_str().unwrap(), args)
}

fn longest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// `jq -c` output: a Service on one 100 KiB line, its unquoted `true` annotation (K8S002)
/// at column 100,095. miette panicked there (exit 101, nothing printed).
#[test]
fn human_report_quotes_a_finding_past_column_65535() {
    let dir = tempdir("hostile-long-line");
    let text = format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{{\"name\":\"web\",\
         \"annotations\":{{\"pad\":\"{}\",\"scrape\":true}}}},\"spec\":{{\"ports\":[{{\"port\":80}}]}}}}\n",
        "x".repeat(100_000)
    );
    fs::write(dir.join("svc.json"), &text).unwrap();
    let column = text.find("true").unwrap() + 1;
    assert_eq!(column, 100_095);

    let run = run_in(&dir, &["check", "--no-config", "svc.json"]);
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));
    assert!(
        run.stdout.contains("error[K8S002]") && run.stdout.contains("[svc.json:1:100095]"),
        "{}",
        run.stdout
    );
    assert!(longest_line(&run.stdout) < 200, "{}", run.stdout);
    snapshot!("cli_human_past_column_65535", run.stdout);
}

/// A one-line JSON profile and config whose error sits past column 70,000 (padding spaces).
#[test]
fn profile_and_config_errors_past_column_65535_are_quoted_clipped() {
    let dir = tempdir("hostile-long-profile");
    let pad = " ".repeat(70_000);
    fs::write(
        dir.join("profile.json"),
        format!(
            "{{\"apiVersion\": \"lblint.dev/v1alpha1\", \"kind\": \"ClusterProfile\",{pad}\
             \"spec\": {{\"provider\": \"tke\", \"kubeProxy\": {{\"mod\": \"ipvs\"}}}}}}\n"
        ),
    )
    .unwrap();
    fs::write(
        dir.join("config.json"),
        format!("{{{pad}\"failOn\": \"sometimes\"}}\n"),
    )
    .unwrap();

    let profile = run_in(&dir, &["profile", "check", "profile.json"]);
    assert_eq!(profile.code, 2);
    assert!(longest_line(&profile.stderr) < 200, "{}", profile.stderr);
    snapshot!("cli_profile_error_past_column_65535", profile.stderr);

    let config = run_in(&dir, &["check", "--config", "config.json", "."]);
    assert_eq!(config.code, 2);
    assert!(longest_line(&config.stderr) < 200, "{}", config.stderr);
    snapshot!("cli_config_error_past_column_65535", config.stderr);
}

/// The object name and an annotation key hold ESC[2J (clear screen), an OSC title sequence,
/// a CR, U+202E (right-to-left override) and U+2028 (line separator), written as YAML escapes;
/// a raw lone CR ends the finding's line.
const CONTROLS: &str = "apiVersion: v1
kind: Service
metadata:
  name: \"web\\e[2J\\r\\u202Ex\\u2028\"
  annotations:
    \"evil\\e]0;pwned\\a\": true # note\r    # more
spec:
  ports:
    - port: 80
";

fn assert_no_raw_controls(format: &str, text: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(raw.is_empty(), "{format}: raw {raw:?} in\n{text}");
}

#[test]
fn terminal_controls_from_manifests_are_escaped_in_every_text_format() {
    let dir = tempdir("hostile-controls");
    fs::write(dir.join("svc.yaml"), CONTROLS).unwrap();
    for format in ["human", "compact", "github"] {
        let run = run_in(
            &dir,
            &[
                "check",
                "--no-config",
                "--color",
                "never",
                "--format",
                format,
                "svc.yaml",
            ],
        );
        assert_eq!((run.code, run.stderr.as_str()), (1, ""), "{format}");
        assert_no_raw_controls(format, &run.stdout);
        if format != "human" {
            assert_eq!(run.stdout.lines().count(), 1, "{format}: {}", run.stdout);
        }
        snapshot!(format!("cli_{format}_terminal_controls"), run.stdout);
    }
    // The cluster-model table names the object too (once it is a load balancer).
    let lb = CONTROLS.replace("spec:\n", "spec:\n  type: LoadBalancer\n");
    fs::write(dir.join("lb.yaml"), lb).unwrap();
    let model = run_in(&dir, &["model", "lb.yaml"]);
    assert_eq!(model.code, 0);
    assert_no_raw_controls("model", &model.stdout);
    assert!(
        model
            .stdout
            .contains("web\\u{1b}[2J\\u{d}\\u{202e}x\\u{2028}"),
        "{}",
        model.stdout
    );
    // JSON keeps the values, escaped by serde.
    let (_, report) = check_json_in(dir.to_str().unwrap(), &["--no-config", "svc.yaml"]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("Service/web\u{1b}[2J\r\u{202e}x\u{2028}"),
        "{message}"
    );
}

/// A newline in a file name must not forge a `path:line:col:` line in compact output.
#[test]
fn a_newline_in_a_file_name_cannot_forge_a_compact_line() {
    let dir = tempdir("hostile-file-name");
    let name = "evil.yaml\nfake.yaml:1:1: error[TKE001] forged";
    let manifest = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    \
                    a: true\n    b: yes\n";
    fs::write(dir.join(format!("{name}.yaml")), manifest).unwrap();
    let (_, report) = check_json_in(dir.to_str().unwrap(), &["--no-config", "."]);
    let found = findings(&report);
    assert_eq!(found.len(), 2, "{report:#}");
    assert_eq!(found[0].2, format!("{name}.yaml"));

    let run = run_in(&dir, &["check", "--no-config", "--format", "compact", "."]);
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "evil.yaml\\u{a}fake.yaml:1:1: error[TKE001] forged.yaml:6:8: error[K8S002] annotation \
             `a: true` on Service/web is not a string: Kubernetes (YAML 1.1) reads `true` as the \
             boolean true, and annotation values must be strings, so the API server rejects the \
             object.",
            "evil.yaml\\u{a}fake.yaml:1:1: error[TKE001] forged.yaml:7:8: error[K8S002] annotation \
             `b: yes` on Service/web is not a string: Kubernetes (YAML 1.1) reads `yes` as the \
             boolean true, and annotation values must be strings, so the API server rejects the \
             object. Quoted, the value Kubernetes sees becomes the string \"yes\", not \"true\": \
             \"true\" was probably meant.",
        ]
    );
    let human = run_in(&dir, &["check", "--no-config", "."]);
    assert!(
        human
            .stdout
            .contains("[evil.yaml\\u{a}fake.yaml:1:1: error[TKE001] forged.yaml:6:8]"),
        "{}",
        human.stdout
    );
}
