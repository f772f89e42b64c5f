//! `--fix` and `--unsafe-fixes`: edits land in the files, re-lint clean, and never touch
//! standard input, or rendered output whose template is in the repository.

use crate::cli::tempdir;
use crate::{check_json, findings, lblint, lblint_stdin};

/// Make `dir` a repository (a `.git` folder) holding the chart `name` with `templates`
/// (comment-only files in its `templates/`), or no chart when `name` is empty.
pub fn repository_with_chart(dir: &std::path::Path, name: &str, templates: &[&str]) {
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    if name.is_empty() {
        return;
    }
    let chart = dir.join(name);
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    let meta = format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n");
    std::fs::write(chart.join("Chart.yaml"), meta).unwrap();
    for template in templates {
        std::fs::write(chart.join("templates").join(template), "# a template\n").unwrap();
    }
}

fn copy(dir: &std::path::Path, fixture: &str) -> String {
    let name = std::path::Path::new(fixture).file_name().unwrap();
    let target = dir.join(name);
    std::fs::copy(fixture, &target).unwrap();
    target.to_str().unwrap().to_string()
}

#[test]
fn safe_fixes_quote_values_and_leave_unsafe_ones() {
    let dir = tempdir("fix-safe");
    let file = copy(&dir, "testdata/tke/annotation-bool.yaml");
    let run = lblint(&["check", "--fix", "--format", "json", &file]);
    assert_eq!(run.stderr, "lblint: fixed 2 problems\n");
    let text = std::fs::read_to_string(&file).unwrap();
    let original = std::fs::read_to_string("testdata/tke/annotation-bool.yaml").unwrap();
    // `yes` stays: quoting it would make the string "yes" where "true" was meant (unsafe).
    let expected = original
        .replace("    tier: 1\n", "    tier: \"1\"\n")
        .replace(
            "release-date: 2024-01-31\n",
            "release-date: \"2024-01-31\"\n",
        );
    assert_eq!(text, expected);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rules: Vec<String> = findings(&report).into_iter().map(|d| d.0).collect();
    // The unsafe fixes (TKE001 sets prevent-loopback to "true", K8S002 quotes `yes`) wait
    // for --unsafe-fixes.
    assert_eq!(rules, vec!["TKE001", "K8S002"]);
    // A second run has nothing left to fix.
    let again = lblint(&["check", "--fix", &file]);
    assert_eq!(again.stderr, "");
}

#[test]
fn unsafe_fixes_add_or_set_prevent_loopback_once() {
    let dir = tempdir("fix-unsafe");
    let set = copy(&dir, "testdata/tke/annotation-bool.yaml");
    let add = copy(&dir, "testdata/tke/private-no-caller.yaml");
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        "--select",
        "TKE001,K8S002",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let set_text = std::fs::read_to_string(&set).unwrap();
    assert_eq!(
        set_text.matches("prevent-loopback").count(),
        1,
        "{set_text}"
    );
    assert!(
        set_text.contains("prevent-loopback: \"true\"\n"),
        "{set_text}"
    );
    let add_text = std::fs::read_to_string(&add).unwrap();
    assert!(
        add_text.contains(
            "    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-11111111\n    service.cloud.tencent.com/prevent-loopback: \"true\"\nspec:"
        ),
        "{add_text}"
    );
    let (_, report) = check_json(&["--select", "TKE001,K8S002", dir.to_str().unwrap()]);
    assert_eq!(findings(&report), vec![]);
}

#[test]
fn rendered_output_and_stdin_are_never_written() {
    let dir = tempdir("fix-rendered");
    repository_with_chart(&dir, "shop", &["service.yaml"]);
    let helm = copy(&dir, "testdata/load/helm-rendered.yaml");
    let before = std::fs::read_to_string(&helm).unwrap();
    let run = lblint(&["check", "--fix", "--unsafe-fixes", &helm]);
    assert_eq!(run.code, 1);
    assert_eq!(std::fs::read_to_string(&helm).unwrap(), before);

    let text = std::fs::read("testdata/tke/annotation-bool.yaml").unwrap();
    let run = lblint_stdin(&["check", "--fix", "-"], Some(&text));
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("--fix cannot write back to standard input"),
        "{}",
        run.stderr
    );
}

/// Committed `helm template` output whose chart is not in the repository: the rendered
/// file is the one the team changes, so --fix fixes it there and says why.
#[test]
fn committed_helm_output_without_its_chart_is_fixed_in_place() {
    let dir = tempdir("fix-committed");
    repository_with_chart(&dir, "", &[]);
    let helm = copy(&dir, "testdata/load/helm-rendered.yaml");
    let before = std::fs::read_to_string(&helm).unwrap();
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        "--format",
        "compact",
        &helm,
    ]);
    assert_eq!(
        run.stderr,
        format!("lblint: fixing TKE001 at {}:18:5 in the rendered file: its template `shop/templates/service.yaml` is not in the repository, so this file, the one committed, is the one to change\nlblint: fixed 1 problem\n", crate::shown(std::path::Path::new(&helm)))
    );
    let quoted =
        "    service.kubernetes.io/qcloud-loadbalancer-internal-subnetid: subnet-0000000c\n";
    let added = "    service.cloud.tencent.com/prevent-loopback: \"true\"\n";
    let after = before.replace(quoted, &format!("{quoted}{added}"));
    assert_ne!(after, before);
    assert_eq!(std::fs::read_to_string(&helm).unwrap(), after);
    // The same chart name with another template is not this template.
    let dir = tempdir("fix-committed-other");
    repository_with_chart(&dir, "shop", &["configmap.yaml"]);
    let helm = copy(&dir, "testdata/load/helm-rendered.yaml");
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "--fix",
        "--unsafe-fixes",
        &helm,
    ]);
    assert!(
        run.stderr.contains("lblint: fixing TKE001"),
        "{}",
        run.stderr
    );
}

#[test]
fn unsafe_fixes_need_fix() {
    assert_eq!(lblint(&["check", "--unsafe-fixes", "testdata/tke"]).code, 2);
}
