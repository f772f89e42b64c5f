//! Bounded work and memory: merge-key and alias bombs, special files, the memory budget.
//! Each input is built at test time; each would hang, block or exhaust memory without the
//! limit it tests, and every other file's findings must survive it.

use std::fs;

use crate::robust::{relative, scratch};
use crate::{check_json, f, findings};

/// A merge bomb (rules/LBL006.md): 16 anchors, each `<<`-merging 6 copies of the one before, into
/// a Service's annotations (6^16 lookups if merges were followed path by path).
fn merge_bomb() -> String {
    let mut text = String::from("x-anchors:\n  a0: &a0 {k: v}\n");
    for i in 1..16 {
        let refs = vec![format!("*a{}", i - 1); 6].join(", ");
        text.push_str(&format!("  a{i}: &a{i} {{<<: [{refs}]}}\n"));
    }
    text + "apiVersion: v1\nkind: Service\nmetadata:\n  name: bomb\n  annotations:\n    <<: [*a15, *a15, *a15, *a15, *a15, *a15]\nspec:\n  type: LoadBalancer\n"
}

#[test]
fn merge_bomb_is_reported_at_its_alias_and_other_findings_are_kept() {
    let dir = scratch("limits-merge-bomb");
    fs::write(dir.join("bomb.yaml"), merge_bomb()).unwrap();
    // A second document in the bomb's file, and a second file: both still linted.
    let service = fs::read_to_string("testdata/tke/private-no-caller.yaml").unwrap();
    fs::write(
        dir.join("bomb.yaml"),
        format!("{}---\n{service}", merge_bomb()),
    )
    .unwrap();
    fs::write(dir.join("service.yaml"), &service).unwrap();
    let (code, report) = check_json(&["--no-config", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        relative(&report, &dir),
        vec![
            f("LBL006", "error", "bomb.yaml", 23, 10),
            f("TKE001", "warning", "bomb.yaml", 34, 5),
            f("TKE001", "warning", "service.yaml", 8, 5),
        ],
        "{report:#}"
    );
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("document contains excessive aliasing"),
        "{message}"
    );
}

#[test]
fn annotations_merged_with_a_merge_key_are_seen_by_rules() {
    let file = "testdata/robust/merged-annotations.yaml";
    let (code, report) = check_json(&["--no-config", file]);
    assert_eq!(code, 1);
    // The finding points where the merged annotation is written: in the anchor.
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "warning", file, 3, 3)],
        "{report:#}"
    );
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_fifo_in_a_scanned_folder_is_reported_not_opened() {
    let dir = scratch("limits-fifo");
    mkfifo(&dir.join("x.yaml"));
    fs::copy(
        "testdata/tke/private-no-caller.yaml",
        dir.join("service.yaml"),
    )
    .unwrap();
    let (code, report) = check_json(&["--no-config", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        relative(&report, &dir),
        vec![
            f("TKE001", "warning", "service.yaml", 8, 5),
            f("LBL003", "warning", "x.yaml", 1, 1),
        ]
    );
    let message = report["diagnostics"][1]["message"].as_str().unwrap();
    assert!(
        message.contains("a named pipe (FIFO), not a regular file"),
        "{message}"
    );
    // Named on the command line, it is not opened either.
    let fifo = dir.join("x.yaml");
    let (code, report) = check_json(&["--no-config", fifo.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(findings(&report)[0].0, "LBL003");
}

#[cfg(unix)]
#[test]
fn a_special_or_oversized_profile_or_config_fails_the_run_at_once() {
    let dir = scratch("limits-special-profile");
    let fifo = dir.join("fifo.yaml");
    mkfifo(&fifo);
    let big = dir.join("big.yaml");
    fs::write(&big, format!("# {}\n", "x".repeat(1024 * 1024))).unwrap();
    let service = "testdata/tke/private-no-caller.yaml";
    for (flag, path, words) in [
        ("--profile", fifo.to_str().unwrap(), "a named pipe (FIFO)"),
        ("--profile", "/dev/zero", "a character device"),
        (
            "--profile",
            big.to_str().unwrap(),
            "over the limit of 1048576 bytes",
        ),
        ("--config", fifo.to_str().unwrap(), "a named pipe (FIFO)"),
        ("--config", "/dev/zero", "a character device"),
        (
            "--config",
            big.to_str().unwrap(),
            "over the limit of 1048576 bytes",
        ),
    ] {
        let run = crate::lblint(&["check", flag, path, service]);
        assert_eq!(run.code, 2, "{flag} {path}: {}", run.stderr);
        assert!(run.stderr.contains(words), "{flag} {path}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn files_over_the_runs_memory_budget_are_reported_and_skipped() {
    // The budget is 16 x --max-file-size: 32 MB here. Each 600 KB file of one-character
    // list items builds a tree of over 12 MB, so two fit and the others are skipped, each
    // reported; nothing aborts. One thread makes the order (and so the verdicts) fixed.
    let dir = scratch("limits-memory");
    let tiny = format!("items:\n{}", "- a\n".repeat(150_000));
    for i in 1..=5 {
        fs::write(dir.join(format!("tiny-{i}.yaml")), &tiny).unwrap();
    }
    fs::copy(
        "testdata/tke/private-no-caller.yaml",
        dir.join("a-service.yaml"),
    )
    .unwrap();
    let (code, report) = check_json(&[
        "--no-config",
        "--threads",
        "1",
        "--max-file-size",
        "2000000",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        relative(&report, &dir),
        vec![
            f("TKE001", "warning", "a-service.yaml", 8, 5),
            f("LBL003", "warning", "tiny-3.yaml", 1, 1),
            f("LBL003", "warning", "tiny-4.yaml", 1, 1),
            f("LBL003", "warning", "tiny-5.yaml", 1, 1),
        ],
        "{report:#}"
    );
    let message = report["diagnostics"][1]["message"].as_str().unwrap();
    assert!(
        message.contains("memory budget (30 MiB of parse trees"),
        "{message}"
    );
    assert_eq!(report["summary"]["files"], 6);
}
