//! `--context=DIR` lints the named files in the context of a repository's
//! manifests and reports the findings that involve a named file (testdata/context/).

use crate::{check_json, f, findings};

const PROFILE: &str = "testdata/context/profile.yaml";

#[test]
fn a_staged_caller_is_reported_against_the_load_balancer_in_another_file() {
    let billing = "testdata/context/billing.yaml";
    // Alone, the caller's file shows nothing: the load balancer is elsewhere.
    let (code, report) = check_json(&["--profile", PROFILE, billing]);
    assert_eq!((code, findings(&report)), (0, vec![]));
    // In the repository's context, the trap it completes is reported where it is.
    let (code, report) = check_json(&["--profile", PROFILE, "--context=testdata/context", billing]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "error", "testdata/context/orders.yaml", 9, 5),]
    );
    let related = report["diagnostics"][0]["related"].as_array().unwrap();
    assert!(related.iter().any(|r| r["file"] == billing), "{related:?}");
    // One verdict per call: no K8S001 note beside it; the rename is the error's suggestion,
    // by hand with its place, since an edit goes to the finding's own file.
    let suggestions = report["diagnostics"][0]["suggestions"].as_array().unwrap();
    assert_eq!(
        suggestions[1]["description"],
        "call `orders` instead of 10.20.30.40 at testdata/context/billing.yaml:17:46, by hand"
    );
    assert_eq!(suggestions[1]["edits"].as_array().map(Vec::len), Some(0));
    assert_eq!(report["summary"]["files"], 1);
}

#[test]
fn findings_that_do_not_involve_a_named_file_are_left_out() {
    // orders.yaml's own trap involves billing.yaml, not notes.yaml.
    let (code, report) = check_json(&[
        "--profile",
        PROFILE,
        "--context=testdata/context",
        "testdata/context/notes.yaml",
    ]);
    assert_eq!((code, findings(&report)), (0, vec![]));
    // Naming the load balancer's file reports its trap, and the caller's note that points
    // at the address it states.
    let (code, report) = check_json(&[
        "--profile",
        PROFILE,
        "--context=testdata/context",
        "testdata/context/orders.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        findings(&report),
        vec![f("TKE001", "error", "testdata/context/orders.yaml", 9, 5),]
    );
}

/// `--fix` writes only named files: a fix of a context file is left for its own commit.
#[test]
fn fixes_touch_only_named_files() {
    let dir = crate::cli::tempdir("context-fix");
    for name in ["orders.yaml", "billing.yaml", "profile.yaml"] {
        std::fs::copy(format!("testdata/context/{name}"), dir.join(name)).unwrap();
    }
    let orders_before = std::fs::read(dir.join("orders.yaml")).unwrap();
    let run = crate::lblint_os(&[
        "check",
        "--fix",
        "--unsafe-fixes",
        "--profile",
        dir.join("profile.yaml").to_str().unwrap(),
        &format!("--context={}", dir.to_str().unwrap()),
        dir.join("billing.yaml").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read(dir.join("orders.yaml")).unwrap(),
        orders_before
    );
}

/// The hook's form: `--context` alone takes the working directory, and the staged files
/// that pre-commit appends stay files (a value needs `--context=DIR`).
#[test]
fn bare_context_is_the_working_directory_and_files_follow_it() {
    let run = crate::lblint_in(
        "testdata/context",
        &[
            "check",
            "--format",
            "compact",
            "--profile",
            "profile.yaml",
            "--context",
            "billing.yaml",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("orders.yaml:9:5: error[TKE001]"),
        "{}",
        run.stdout
    );
}
