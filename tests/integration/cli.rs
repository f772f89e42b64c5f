//! Command-line contract: exit statuses, walking, stdin, filters, subcommands.

use crate::{check_json, f, findings, lblint, lblint_stdin};

const EXAMPLES: [&str; 3] = [
    "examples/manifests",
    "--profile",
    "examples/profiles/tke-ipvs.yaml",
];

#[test]
fn bundled_examples_give_one_error_and_one_warning() {
    let (code, report) = check_json(&EXAMPLES);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![
            f("TKE001", "warning", "examples/manifests/reports.yaml", 8, 5),
            f("TKE001", "error", "examples/manifests/shop-api.yaml", 9, 5),
        ]
    );
    assert_eq!(report["summary"]["files"], 3);
    assert_eq!(report["summary"]["error"], 1);
    assert_eq!(report["summary"]["warning"], 1);
    assert_eq!(report["summary"]["note"], 0);
}

#[test]
fn fail_on_sets_the_threshold() {
    let only_warning = ["check", "testdata/tke/private-no-caller.yaml"];
    assert_eq!(lblint(&only_warning).code, 1);
    assert_eq!(
        lblint(&[&only_warning[..], &["--fail-on", "error"]].concat()).code,
        0
    );
    assert_eq!(
        lblint(&[&only_warning[..], &["--fail-on", "never"]].concat()).code,
        0
    );
    let only_note = ["check", "testdata/load/template.yaml"];
    assert_eq!(lblint(&only_note).code, 0);
    assert_eq!(
        lblint(&[&only_note[..], &["--fail-on", "note"]].concat()).code,
        1
    );
}

#[test]
fn missing_path_is_exit_2() {
    let run = lblint(&["check", "testdata/does-not-exist.yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("path not found: testdata/does-not-exist.yaml"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn bad_arguments_are_exit_2() {
    assert_eq!(lblint(&["check", "--format", "xml"]).code, 2);
    assert_eq!(lblint(&["check", "--fail-on", "sometimes"]).code, 2);
}

#[test]
fn unknown_rule_in_select_is_exit_2_with_suggestion() {
    let run = lblint(&["check", "--select", "TKE01", "testdata/tke"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown rule `TKE01`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("did you mean `TKE001`?"),
        "{}",
        run.stderr
    );
}

#[test]
fn select_and_ignore_take_ids_and_names() {
    let args = ["testdata/load/syntax-error.yaml"];
    let (_, report) = check_json(&[&args[..], &["--select", "yaml-syntax"]].concat());
    assert_eq!(
        findings(&report)
            .iter()
            .map(|d| d.0.as_str())
            .collect::<Vec<_>>(),
        vec!["LBL001"]
    );
    let (_, report) = check_json(&[&args[..], &["--ignore", "LBL001,tke-l4-loopback"]].concat());
    assert_eq!(findings(&report), vec![]);
}

#[test]
fn stdin_with_a_display_name() {
    let text = std::fs::read("testdata/tke/private-no-caller.yaml").unwrap();
    let run = lblint_stdin(
        &[
            "check",
            "--format",
            "compact",
            "--stdin-filename",
            "k8s/ledger.yaml",
            "-",
        ],
        Some(&text),
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("k8s/ledger.yaml:8:5: warning[TKE001] "),
        "{}",
        run.stdout
    );
}

#[test]
fn walk_skips_hidden_and_vendor_dirs_and_honours_globs() {
    let dir = tempdir("walk");
    let svc = std::fs::read_to_string("testdata/tke/private-no-caller.yaml").unwrap();
    for path in [
        "a/svc.yaml",
        "b/svc.yml",
        "c/svc.json.txt",
        ".hidden/svc.yaml",
        "node_modules/x/svc.yaml",
        "target/svc.yaml",
        "vendor/svc.yaml",
    ] {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, &svc).unwrap();
    }
    let root = dir.to_str().unwrap();
    let marker = format!("walk-{}/", std::process::id());
    let files = |extra: &[&str]| -> Vec<String> {
        let (_, report) = check_json(&[&[root][..], extra].concat());
        findings(&report)
            .into_iter()
            .map(|d| d.2.split_once(&marker).unwrap().1.to_string())
            .collect()
    };
    assert_eq!(
        files(&[]),
        vec!["a/svc.yaml", "b/svc.yml", "vendor/svc.yaml"]
    );
    assert_eq!(
        files(&["--exclude", "vendor"]),
        vec!["a/svc.yaml", "b/svc.yml"]
    );
    assert_eq!(files(&["--include", "*.yml"]), vec!["b/svc.yml"]);
    // An explicitly named file is linted whatever its extension, but exclude still holds.
    let named = format!("{root}/c/svc.json.txt");
    let (_, report) = check_json(&[named.as_str()]);
    assert_eq!(findings(&report).len(), 1);
    let (_, report) = check_json(&[named.as_str(), "--exclude", "*.txt"]);
    assert_eq!(findings(&report).len(), 0);
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_unless_asked_and_loops_are_reported() {
    let dir = tempdir("links");
    let svc = std::fs::read_to_string("testdata/tke/private-no-caller.yaml").unwrap();
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::write(dir.join("real/svc.yaml"), svc).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("linked")).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("real/loop")).unwrap();
    let root = dir.to_str().unwrap();
    let (_, report) = check_json(&[root]);
    assert_eq!(findings(&report).len(), 1, "{report:#}");
    let (_, report) = check_json(&[root, "--follow-links"]);
    let rules: Vec<String> = findings(&report).into_iter().map(|d| d.0).collect();
    assert!(rules.contains(&"LBL003".to_string()), "{report:#}");
    assert_eq!(
        rules.iter().filter(|r| *r == "TKE001").count(),
        2,
        "{report:#}"
    );
}

#[test]
fn oversized_file_is_skipped_with_a_message() {
    let (code, report) = check_json(&[
        "--max-file-size",
        "100",
        "testdata/tke/private-no-caller.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f(
            "LBL003",
            "warning",
            "testdata/tke/private-no-caller.yaml",
            1,
            1
        )]
    );
    assert!(report["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("--max-file-size"));
}

#[test]
fn output_file_gets_the_report_and_stdout_stays_empty() {
    let dir = tempdir("output");
    let out = dir.join("report.json");
    let run = lblint(&[
        "check",
        "--format",
        "json",
        "--output",
        out.to_str().unwrap(),
        "testdata/tke/private-no-caller.yaml",
    ]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(report["diagnostics"][0]["rule"], "TKE001");
}

#[test]
fn output_is_deterministic_whatever_the_thread_count() {
    let one = lblint(&[
        "check",
        "--format",
        "json",
        "--threads",
        "1",
        "testdata",
        "examples",
    ]);
    let many = lblint(&[
        "check",
        "--format",
        "json",
        "--threads",
        "8",
        "testdata",
        "examples",
    ]);
    assert_eq!(one.stdout, many.stdout);
    assert_eq!(one.code, many.code);
}

#[test]
fn rules_and_explain() {
    let run = lblint(&["rules", "--format", "json"]);
    assert_eq!(run.code, 0);
    let rules: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let ids: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut ids = ids;
    ids.sort_unstable();
    // Every rule has a document in rules/, and every document a rule.
    let mut docs: Vec<String> = std::fs::read_dir("rules")
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".md")
                .to_string()
        })
        .collect();
    docs.sort_unstable();
    assert_eq!(ids, docs);
    let table = lblint(&["rules"]);
    assert!(
        table.stdout.lines().any(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells.starts_with(&["TKE001", "tke-l4-loopback", "warning", "tke"])
        }),
        "{}",
        table.stdout
    );
    // The table fits the terminal (the tests run at COLUMNS=100); one too
    // narrow for a summary column gets the summary under each row.
    let widest = table
        .stdout
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 100, "{widest}\n{}", table.stdout);

    let explain = lblint(&["explain", "tke-l4-loopback"]);
    assert_eq!(explain.code, 0);
    assert_eq!(
        explain.stdout,
        std::fs::read_to_string("rules/TKE001.md").unwrap()
    );
    let unknown = lblint(&["explain", "tke-l4-lopback"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("did you mean `tke-l4-loopback`?"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn profile_init_output_passes_profile_check() {
    let dir = tempdir("init");
    for provider in lblint::profile::Provider::NAMES {
        for mode in ["iptables", "ipvs", "nftables", "ebpf"] {
            let run = lblint(&[
                "profile",
                "init",
                "--provider",
                provider,
                "--proxy-mode",
                mode,
            ]);
            assert_eq!(run.code, 0);
            let path = dir.join(format!("{provider}-{mode}.yaml"));
            std::fs::write(&path, &run.stdout).unwrap();
            let check = lblint(&["profile", "check", path.to_str().unwrap()]);
            assert_eq!(check.code, 0, "{provider}/{mode}: {}", check.stderr);
            assert!(
                check.stdout.contains(&format!("provider {provider}")),
                "{}",
                check.stdout
            );
        }
    }
    assert_eq!(lblint(&["profile", "init"]).code, 0);
}

#[test]
fn profile_init_lists_every_provider_and_refuses_others() {
    let help = lblint(&["profile", "init", "--help"]);
    assert_eq!(help.code, 0);
    for provider in lblint::profile::Provider::ALL {
        let name = format!("- {provider}:");
        assert!(
            help.stdout
                .lines()
                .any(|l| l.trim_start().starts_with(&name)
                    && l.trim_end().ends_with(provider.label())),
            "{provider}: {}",
            help.stdout
        );
    }
    let run = lblint(&["profile", "init", "--provider", "digitalocean"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("a similar value exists: 'doks'"),
        "{}",
        run.stderr
    );
}

#[test]
fn broken_profile_is_exit_2_with_location() {
    let dir = tempdir("badprofile");
    let path = dir.join("profile.yaml");
    std::fs::write(
        &path,
        "apiVersion: lblint.dev/v1alpha1\nkind: ClusterProfile\nspec:\n  provider: tke\n  kubeProxy:\n    mod: ipvs\n",
    )
    .unwrap();
    let run = lblint(&["check", "--profile", path.to_str().unwrap(), "testdata/tke"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("profile.yaml:6:5"), "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean `mode`?"),
        "{}",
        run.stderr
    );
    let run = lblint(&["profile", "check", path.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    let run = lblint(&[
        "check",
        "--profile",
        "testdata/no-such-profile.yaml",
        "testdata/tke",
    ]);
    assert_eq!(run.code, 2);
}

/// A fresh directory under the target dir (tests must not depend on anything outside the repo).
pub fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every error of a profile in one run, in file order, with values that
/// parse but that no rule can use (a version lblint cannot compare, an address that is
/// neither an IP nor a DNS name).
#[test]
fn profile_check_reports_every_error_in_one_run() {
    let run = lblint(&["profile", "check", "testdata/profile/err-many.yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("lblint: error: invalid cluster profile (5 errors)"),
        "{}",
        run.stderr
    );
    assert_eq!(
        crate::error_messages(&run.stderr),
        [
            "`one-thirty` is not a version lblint can compare, for `spec.kubernetesVersion`",
            "unknown value `ipvss` for `spec.kubeProxy.mode`",
            "unknown value `regulr` for `nodePools[].type`",
            "`latest` is not a version lblint can compare, for `spec.addons.ingressController`",
            "`http://x` is neither an IP address nor a DNS name",
        ]
    );
    for at in [
        "err-many.yaml:6:22",
        "err-many.yaml:8:11",
        "err-many.yaml:11:13",
        "err-many.yaml:16:19",
    ] {
        assert!(run.stderr.contains(at), "{at}: {}", run.stderr);
    }
    // A vendor build suffix is a version still.
    let ok = lblint(&["profile", "check", "testdata/profile/vendor-build.yaml"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}
