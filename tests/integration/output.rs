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
