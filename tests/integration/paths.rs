//! File names that are not UTF-8 (Linux allows any bytes but `/` and NUL): each file is
//! linted under its own displayed name, named on the command line or found by the walk.
#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::cli::tempdir;
use crate::{findings, lblint_os, shown};

/// `dir/name` for a name given as raw bytes.
fn raw_name(dir: &std::path::Path, name: &[u8]) -> PathBuf {
    dir.join(OsStr::from_bytes(name))
}

fn service() -> String {
    std::fs::read_to_string("testdata/tke/private-no-caller.yaml").unwrap()
}

/// `lblint check --format json PATH`: exit status and parsed report.
fn check_json_os(path: &OsStr) -> (i32, serde_json::Value) {
    let run = lblint_os(&[
        OsStr::new("check"),
        OsStr::new("--format"),
        OsStr::new("json"),
        path,
    ]);
    let report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", run.stdout, run.stderr));
    (run.code, report)
}

/// Both names displayed as `a\u{FFFD}.yaml` before: the walk kept only the first.
#[test]
fn two_names_that_differ_in_invalid_bytes_are_both_linted() {
    let dir = tempdir("paths-alike");
    std::fs::write(raw_name(&dir, b"a\xff.yaml"), service()).unwrap();
    std::fs::write(raw_name(&dir, b"a\xfe.yaml"), service()).unwrap();
    let (code, report) = check_json_os(dir.as_os_str());
    assert_eq!(code, 1, "{report:#}");
    let shown = shown(&dir);
    let files: Vec<(String, String)> = findings(&report)
        .into_iter()
        .map(|(rule, _, file, _, _)| (rule, file))
        .collect();
    assert_eq!(
        files,
        vec![
            ("TKE001".into(), format!("{}/a\\xFE.yaml", shown)),
            ("TKE001".into(), format!("{}/a\\xFF.yaml", shown)),
        ],
        "{report:#}"
    );
    assert_eq!(report["summary"]["files"], 2);
}

/// pre-commit passes the staged file names as arguments: one that is not UTF-8 was exit 2
/// (clap refused it) and the hook failed for every file.
#[test]
fn a_name_that_is_not_utf8_on_the_command_line_is_linted() {
    let dir = tempdir("paths-argv");
    let svc = raw_name(&dir, b"svc-\xe9.yaml");
    std::fs::write(&svc, service()).unwrap();
    let (code, report) = check_json_os(svc.as_os_str());
    assert_eq!(code, 1, "{report:#}");
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0].0, "TKE001");
    assert!(found[0].2.ends_with("/svc-\\xE9.yaml"), "{report:#}");
    assert_eq!((found[0].3, found[0].4), (8, 5));

    // A missing one is named in the error the same way.
    let missing = raw_name(&dir, b"gone-\xe9.yaml");
    let run = lblint_os(&[OsStr::new("check"), missing.as_os_str()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("gone-\\xE9.yaml"), "{}", run.stderr);
}

/// A name that spells out the escape (`a\xFF.yaml` in ASCII) next to the byte it stands
/// for: one display string cannot name two files, so the second is reported, not linted.
#[test]
fn a_name_spelling_out_an_escape_does_not_hide_the_other_file() {
    let dir = tempdir("paths-spelt");
    std::fs::write(raw_name(&dir, b"a\xff.yaml"), service()).unwrap();
    std::fs::write(dir.join("a\\xFF.yaml"), service()).unwrap();
    let (_, report) = check_json_os(dir.as_os_str());
    let rules: Vec<String> = findings(&report).into_iter().map(|f| f.0).collect();
    // Both under one display name: the skip note sorts first (line 1).
    assert_eq!(rules, vec!["LBL003", "TKE001"], "{report:#}");
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(messages[0].contains("displayed the same"), "{messages:?}");
}
