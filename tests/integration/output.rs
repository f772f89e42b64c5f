//! Rendered output of the bundled examples, snapshotted (the snapshots are reviewed).

use crate::{lblint, snapshot};

const EXAMPLES: [&str; 4] = [
    "check",
    "examples/manifests",
    "--profile",
    "examples/profiles/tke-ipvs.yaml",
];

#[test]
fn human_output() {
    let run = lblint(&EXAMPLES);
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr, "");
    snapshot!("cli_human_examples", run.stdout);
}

#[test]
fn compact_output() {
    let run = lblint(&[&EXAMPLES[..], &["--format", "compact"]].concat());
    snapshot!("cli_compact_examples", run.stdout);
}

#[test]
fn json_output() {
    let run = lblint(&[&EXAMPLES[..], &["--format", "json"]].concat());
    snapshot!("cli_json_examples", run.stdout);
}

#[test]
fn human_output_for_loader_problems() {
    let run = lblint(&[
        "check",
        "testdata/load/syntax-error.yaml",
        "testdata/load/template.yaml",
    ]);
    snapshot!("cli_human_loader", run.stdout);
}

#[test]
fn profile_errors() {
    let run = lblint(&["profile", "check", "testdata/profile/err-bad-enum.yaml"]);
    assert_eq!(run.code, 2);
    snapshot!("cli_profile_bad_enum", run.stderr);
}

/// Human output fits the width (the tests run at COLUMNS=100): the
/// message, help and notes wrap, and a label that cannot fit beside its span becomes a
/// wrapped related note.
#[test]
fn human_output_fits_the_width() {
    let run = crate::lblint(&[
        "check",
        "--profile",
        "testdata/tke/profile-ipvs-regular.yaml",
        "testdata/tke",
        "testdata/proxy",
        "examples/manifests",
    ]);
    let widest = run
        .stdout
        .lines()
        .max_by_key(|l| l.chars().count())
        .unwrap_or_default();
    assert!(widest.chars().count() <= 100, "{widest}");
}
